# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Table.add(progress=...): the reports a callable, a tqdm-like object and progress=True get,
next to LanceDB's for the same adds."""

import asyncio
import glob
import os
import sys

import lancedb
import pandas as pd
import pyarrow as pa
import pytest

import lancedb_cpp

BIG = pa.table({"id": pa.array(range(100_000), pa.int64()), "s": pa.array(["xyz"] * 100_000)})
SEED = pa.table({"id": pa.array([0, 1, 2], pa.int64()), "s": pa.array(["a", "b", "c"])})


def pair(tmp_path, name="t"):
    ours = lancedb_cpp.connect(tmp_path / "cpp").create_table(name, SEED)
    theirs = lancedb.connect(str(tmp_path / "real")).create_table(name, SEED)
    return ours, theirs


def shape(reports):
    """What both libraries must agree on (bytes and times differ by engine)."""
    return [(p["output_rows"], p["total_rows"], p["active_tasks"], p["total_tasks"], p["done"])
            for p in reports]


INPUTS = {
    "two_chunks": lambda: pa.concat_tables([BIG.slice(0, 30_000), BIG.slice(30_000)]),
    "list": lambda: [{"id": 1, "s": "q"}, {"id": 2, "s": "r"}],
    "pandas": lambda: BIG.slice(0, 50).to_pandas(),
    "batch": lambda: BIG.slice(0, 50).to_batches()[0],
    "reader": lambda: pa.RecordBatchReader.from_batches(
        BIG.schema, BIG.to_batches(max_chunksize=40_000)),
    "iterator": lambda: iter(BIG.slice(0, 50).to_batches(max_chunksize=20)),
    "empty": lambda: BIG.slice(0, 0),
}


@pytest.mark.parametrize("name", list(INPUTS))
def test_callable_gets_the_reports_lancedb_sends(tmp_path, name):
    ours, theirs = pair(tmp_path)
    got, want = [], []
    ours.add(INPUTS[name](), progress=got.append)
    theirs.add(INPUTS[name](), progress=want.append)
    assert shape(got) == shape(want)
    assert [list(p) for p in got] == [list(p) for p in want]
    assert all(isinstance(p["elapsed_seconds"], float) for p in got)
    assert got[-1]["done"] and got[-1]["output_rows"] == ours.count_rows() - 3


def test_overwrite_reports_and_bytes_written(tmp_path):
    ours, theirs = pair(tmp_path)
    got, want = [], []
    ours.add(BIG.slice(0, 5), mode="overwrite", progress=got.append)
    theirs.add(BIG.slice(0, 5), mode="overwrite", progress=want.append)
    assert shape(got) == shape(want)
    assert ours.to_arrow().equals(theirs.to_arrow())
    # As LanceDB: once written, output_bytes is the size of the data files written.
    before = set(glob.glob(str(tmp_path / "cpp" / "t.lance" / "data" / "*")))
    got.clear()
    ours.add(BIG, progress=got.append)
    new = set(glob.glob(str(tmp_path / "cpp" / "t.lance" / "data" / "*"))) - before
    assert got[-1]["output_bytes"] == sum(os.path.getsize(f) for f in new)
    assert got[0]["output_bytes"] > 0  # the batch in memory, before any file is written


class Recorder:
    """A tqdm-like object recording how it is driven."""

    def __init__(self):
        object.__setattr__(self, "calls", [])

    def update(self, n):
        self.calls.append(("update", n))

    def set_postfix_str(self, text):
        self.calls.append(("postfix", text.split(" | ")[1]))  # throughput differs by engine

    def refresh(self):
        self.calls.append(("refresh",))

    def __setattr__(self, key, value):
        self.calls.append(("set", key, value))
        object.__setattr__(self, key, value)


@pytest.mark.parametrize("name", ["two_chunks", "reader", "empty"])
def test_tqdm_like_object_is_driven_as_lancedb_drives_it(tmp_path, name):
    ours, theirs = pair(tmp_path)
    got, want = Recorder(), Recorder()
    ours.add(INPUTS[name](), progress=got)
    theirs.add(INPUTS[name](), progress=want)
    assert got.calls == want.calls


def test_real_tqdm_bar(tmp_path):
    from tqdm import tqdm

    ours, _ = pair(tmp_path)
    with tqdm(file=open(os.devnull, "w")) as bar:
        ours.add(BIG, progress=bar)
        assert (bar.n, bar.total) == (100_000, 100_000)
        assert "1/1 workers" in str(bar.postfix)


def test_progress_true_creates_and_closes_a_bar(tmp_path, monkeypatch):
    import tqdm.auto

    made = []

    class Bar(Recorder):
        def __init__(self, **kwargs):
            super().__init__()
            self.calls.append(("init", kwargs))
            made.append(self)

        def close(self):
            self.calls.append(("close",))

    monkeypatch.setattr(tqdm.auto, "tqdm", Bar)
    ours, theirs = pair(tmp_path)
    ours.add(INPUTS["two_chunks"](), progress=True)
    theirs.add(INPUTS["two_chunks"](), progress=True)
    assert len(made) == 2
    assert made[0].calls == made[1].calls
    assert made[0].calls[0] == ("init", {"unit": " rows"}) and made[0].calls[-1] == ("close",)


def test_progress_true_without_tqdm_says_so(tmp_path, monkeypatch):
    ours, theirs = pair(tmp_path)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    with pytest.raises(ModuleNotFoundError) as real_error:
        theirs.add(BIG.slice(0, 5), progress=True)
    with pytest.raises(ModuleNotFoundError, match=r"pip install tqdm") as error:
        ours.add(BIG.slice(0, 5), progress=True)
    assert error.value.name == "tqdm" and "tqdm" in str(real_error.value)
    assert ours.count_rows() == 3 and ours.version == 1


def test_failing_callback_does_not_stop_the_add(tmp_path, monkeypatch):
    ours, theirs = pair(tmp_path)
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append(u.exc_value))

    def boom(p):
        raise RuntimeError("boom")

    assert ours.add(BIG.slice(0, 5), progress=boom).version == 2
    assert theirs.add(BIG.slice(0, 5), progress=boom).version == 2
    assert ours.count_rows() == 8
    assert seen and all(isinstance(e, RuntimeError) for e in seen)


def test_bad_progress_values(tmp_path):
    ours, _ = pair(tmp_path)
    with pytest.raises(TypeError, match="progress must be"):
        ours.add(BIG.slice(0, 5), progress=42)
    assert ours.count_rows() == 3
    assert ours.add(BIG.slice(0, 5), progress=False).version == 2


def test_async_add_with_progress(tmp_path):
    async def run():
        adb = await lancedb_cpp.connect_async(tmp_path)
        at = await adb.create_table("t", SEED)
        got = []
        await at.add(BIG.slice(0, 7), progress=got.append)
        return got

    got = asyncio.run(run())
    assert shape(got)[-1] == (7, 7, 0, 1, True)
