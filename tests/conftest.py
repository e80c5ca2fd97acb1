# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Shared helpers: locate the build and the LanceDB fixtures, run the C++ test binaries that
produce tables for pylance, and drive the lancedb_tool command-line front end.

Locations come from the environment, which scripts/test.sh sets: LANCEDB_BUILD_DIR (default
./build) and LANCEDB_FIXTURES_DIR (default ../shared/fixtures beside the checkout). A missing
binary or fixture skips a test only when its variable is unset; with the variable set, as in CI,
it fails the test.
"""

import fnmatch
import json
import os
import pathlib
import subprocess
import tempfile
from typing import Dict, List

import pyarrow as pa
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def build_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("LANCEDB_BUILD_DIR", ROOT / "build")).resolve()


def built(relative: str) -> pathlib.Path:
    """A file of the build (e.g. "src/table/table_test"); fails the test when it is missing."""
    path = build_dir() / relative
    if not path.exists():
        where = "LANCEDB_BUILD_DIR is set" if "LANCEDB_BUILD_DIR" in os.environ else "default"
        pytest.fail(f"{path} is not built ({where} build directory)")
    return path


def fixtures_root() -> pathlib.Path:
    """The directory holding lancedb-0.39/ (not checked for existence)."""
    env = os.environ.get("LANCEDB_FIXTURES_DIR")
    return pathlib.Path(env) if env else ROOT.parent / "shared" / "fixtures"


def fixtures_dir() -> pathlib.Path:
    """The tables LanceDB 0.39 wrote; fails the test when they are absent and
    LANCEDB_FIXTURES_DIR is set, skips it when the variable is unset."""
    path = fixtures_root() / "lancedb-0.39"
    if not path.is_dir():
        if "LANCEDB_FIXTURES_DIR" in os.environ:
            pytest.fail(f"{path} is absent (LANCEDB_FIXTURES_DIR is set)")
        pytest.skip(f"{path} is absent")
    return path


def run_gtest(binary: pathlib.Path, patterns: List[str], **env) -> Dict[str, dict]:
    """Run the GoogleTest binary on the tests matching `patterns` (gtest filter patterns) with
    extra environment variables, and assert that it passed, that every pattern matched a test
    and that every test ran to completion: a skipped test, or a filter matching nothing, fails.
    Returns the JSON report of each test that ran, by "Suite.Name"."""
    full_env = dict(os.environ, **{k: str(v) for k, v in env.items()})
    with tempfile.TemporaryDirectory() as tmp:
        report_path = pathlib.Path(tmp) / "report.json"
        proc = subprocess.run(
            [str(binary), "--gtest_filter=" + ":".join(patterns),
             f"--gtest_output=json:{report_path}"],
            env=full_env, capture_output=True, text=True,
        )
        output = f"{binary.name} {patterns}:\n{proc.stdout}{proc.stderr}"
        assert proc.returncode == 0, output
        assert report_path.exists(), f"no JSON report\n{output}"
        report = json.loads(report_path.read_text())
    ran = {f"{suite['name']}.{test['name']}": test
           for suite in report["testsuites"] for test in suite["testsuite"]}
    for pattern in patterns:
        assert any(fnmatch.fnmatchcase(name, pattern) for name in ran), \
            f"no test matches {pattern!r}\n{output}"
    for name, test in ran.items():
        assert (test["status"], test["result"]) == ("RUN", "COMPLETED"), \
            f"{name}: {test['status']} {test['result']}\n{output}"
        assert not test.get("failures"), f"{name} failed\n{output}"
    return ran


class Tool:
    """Runs lancedb_tool; data goes in and out as Arrow IPC stream files."""

    def __init__(self, tmp_path: pathlib.Path):
        self.exe = built("tools/lancedb_tool")
        self.tmp = tmp_path
        self.counter = 0

    def run(self, *args, check=True):
        proc = subprocess.run([str(self.exe), *map(str, args)], capture_output=True, text=True)
        if check and proc.returncode != 0:
            raise AssertionError(f"lancedb_tool {' '.join(map(str, args))} failed: {proc.stderr}")
        return proc

    def _write_ipc(self, table: pa.Table) -> pathlib.Path:
        self.counter += 1
        path = self.tmp / f"in-{self.counter}.arrows"
        with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as writer:
            for batch in table.to_batches():
                writer.write_batch(batch)
        return path

    def create(self, db, name, table: pa.Table, mode="create"):
        out = self.run("create", db, name, self._write_ipc(table), mode)
        return int(out.stdout.strip())

    def add(self, db, name, table: pa.Table, mode="append"):
        out = self.run("add", db, name, self._write_ipc(table), mode)
        return int(out.stdout.strip())

    def scan(self, db, name, *flags) -> pa.Table:
        self.counter += 1
        path = self.tmp / f"out-{self.counter}.arrows"
        self.run("scan", db, name, path, *flags)
        with pa.OSFile(str(path), "rb") as source:
            return pa.ipc.open_stream(source).read_all()

    def count(self, db, name, *flags) -> int:
        return int(self.run("count", db, name, *flags).stdout.strip())

    def versions(self, db, name):
        return [int(v) for v in self.run("versions", db, name).stdout.split()]


@pytest.fixture
def tool(tmp_path):
    return Tool(tmp_path)
