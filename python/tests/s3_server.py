# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""A real S3-compatible server for the s3:// tests: moto's server (PyPI ``moto[server]``, pinned
in scripts/setup.sh), one process per pytest(-xdist) worker on a free 127.0.0.1 port, and one
new bucket per test. Import the fixtures into a test module with
``from s3_server import s3_server, s3  # noqa: F401``."""

import os
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from typing import Dict

import pytest

ACCESS_KEY = "testing-key"
SECRET_KEY = "testing-secret"
REGION = "us-east-1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class S3Server:
    endpoint: str
    process: subprocess.Popen

    def client(self):
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET_KEY,
            region_name=REGION,
        )


@dataclass
class S3Bucket:
    server: S3Server
    name: str
    # The storage options every engine (lancedb_cpp, lancedb, pylance) takes for this server.
    options: Dict[str, str] = field(default_factory=dict)

    def uri(self, prefix: str = "db") -> str:
        return f"s3://{self.name}/{prefix}" if prefix else f"s3://{self.name}"

    def keys(self, prefix: str = ""):
        """Every object key under `prefix`."""
        client = self.server.client()
        keys = []
        for page in client.get_paginator("list_objects_v2").paginate(
            Bucket=self.name, Prefix=prefix
        ):
            keys += [o["Key"] for o in page.get("Contents", [])]
        return keys


def start_server(**env_vars: str) -> S3Server:
    """Start moto's server; `env_vars` configure it (INITIAL_NO_AUTH_ACTION_COUNT="0" makes it
    check access keys)."""
    port = free_port()
    env = dict(os.environ, MOTO_ALLOW_NONEXISTENT_REGION="true", **env_vars)
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    endpoint = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(endpoint + "/moto-api/", timeout=1).close()
            return S3Server(endpoint, process)
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(f"moto_server did not start on {endpoint}")
            time.sleep(0.2)


@pytest.fixture(scope="session")
def s3_server():
    server = start_server()
    yield server
    server.process.terminate()
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.process.kill()


@pytest.fixture
def s3(s3_server):
    """A new, empty bucket of its own on the worker's server."""
    name = "t-" + uuid.uuid4().hex[:24]
    s3_server.client().create_bucket(Bucket=name)
    options = {
        "aws_access_key_id": ACCESS_KEY,
        "aws_secret_access_key": SECRET_KEY,
        "aws_region": REGION,
        "aws_endpoint": s3_server.endpoint,
        "allow_http": "true",
    }
    return S3Bucket(s3_server, name, options)
