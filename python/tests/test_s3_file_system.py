# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""The C++ FileSystem contract (src/io/file_system_test.cc, FileSystemTest: the cases the
local disk and memory:// pass) on the S3 file system, against the test server: io_test runs
its S3 instantiation with the server's endpoint and a bucket of its own."""

import os
import pathlib

import pytest

from s3_server import s3, s3_server  # noqa: F401 (fixtures)

ROOT = pathlib.Path(__file__).resolve().parents[2]


def io_test() -> pathlib.Path:
    build = pathlib.Path(os.environ.get("LANCEDB_BUILD_DIR", ROOT / "build"))
    binary = build / "src" / "io" / "io_test"
    if not binary.exists():
        pytest.fail(f"{binary} is missing: build the C++ tests (scripts/build.sh release)")
    return binary


def test_file_system_contract_on_s3(s3):
    import json
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        report = pathlib.Path(tmp) / "report.json"
        proc = subprocess.run(
            [str(io_test()), "--gtest_filter=S3/FileSystemTest.*",
             f"--gtest_output=json:{report}"],
            env=dict(os.environ, LANCEDB_TEST_S3_ENDPOINT=s3.server.endpoint,
                     LANCEDB_TEST_S3_BUCKET=s3.name),
            capture_output=True, text=True, timeout=600,
        )
        output = proc.stdout + proc.stderr
        assert proc.returncode == 0, output
        tests = [t for suite in json.loads(report.read_text())["testsuites"]
                 for t in suite["testsuite"]]
    assert len(tests) >= 10, output
    assert all((t["status"], t["result"]) == ("RUN", "COMPLETED") and not t.get("failures")
               for t in tests), output
    # Every test removed what it wrote, and no multipart upload was left open.
    assert s3.keys() == []
    assert not s3.server.client().list_multipart_uploads(Bucket=s3.name).get("Uploads")
