# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Shared fixtures: locate the build and drive the lancedb_tool command-line front end."""

import os
import pathlib
import subprocess

import pyarrow as pa
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT.parent / "shared" / "fixtures" / "lancedb-0.39"


def build_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("LANCEDB_BUILD_DIR", ROOT / "build")).resolve()


class Tool:
    """Runs lancedb_tool; data goes in and out as Arrow IPC stream files."""

    def __init__(self, tmp_path: pathlib.Path):
        self.exe = build_dir() / "tools" / "lancedb_tool"
        if not self.exe.exists():
            pytest.skip(f"{self.exe} is not built")
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
