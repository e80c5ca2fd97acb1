# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Table.stats() against LanceDB's stats() of the same table directory (LanceDB opens the
table lancedb_cpp wrote), after each kind of write."""

import asyncio

import lancedb
import numpy as np
import pyarrow as pa
import pytest

import lancedb_cpp


def rows(first, count):
    rng = np.random.default_rng(first)
    return pa.table({
        "id": pa.array(range(first, first + count), pa.int64()),
        "text": pa.array([f"word{i % 7} other{i % 3}" for i in range(first, first + count)]),
        "v": pa.array(rng.random((count, 4), dtype=np.float32).tolist(), pa.list_(pa.float32(), 4)),
    })


def oracle_stats(path, name, version=None):
    t = lancedb.connect(str(path)).open_table(name)
    if version is not None:
        t.checkout(version)
    return t.stats()


def test_stats_match_lancedb_after_each_write(tmp_path):
    db = lancedb_cpp.connect(tmp_path)
    t = db.create_table("t", rows(0, 10))
    steps = [
        lambda: None,
        lambda: [t.add(rows(100 * n, n)) for n in (5, 300, 1, 2)],
        lambda: t.delete("id % 100 = 0"),
        lambda: t.update(where="id < 5", values={"text": "changed"}),
        lambda: t.create_scalar_index("id"),
        lambda: t.create_fts_index("text"),
        lambda: t.add_columns({"twice": "id * 2"}),
        lambda: t.compact_files(),
        lambda: t.add(rows(1000, 7)),
    ]
    for i, step in enumerate(steps):
        step()
        ours = t.stats()
        assert ours == oracle_stats(tmp_path, "t"), f"after step {i}"
    assert ours["num_indices"] == 2
    assert ours["total_bytes"] > 0


def test_stats_shape_and_types(tmp_path):
    db = lancedb_cpp.connect(tmp_path)
    t = db.create_table("t", rows(0, 3))
    s = t.stats()
    assert isinstance(s, dict)
    assert list(s) == ["total_bytes", "num_rows", "num_indices", "fragment_stats"]
    assert list(s["fragment_stats"]) == ["num_fragments", "num_small_fragments", "lengths"]
    assert list(s["fragment_stats"]["lengths"]) == ["min", "max", "mean", "p25", "p50", "p75",
                                                    "p99"]
    assert all(type(v) is int for v in s["fragment_stats"]["lengths"].values())
    from lancedb_cpp.table import FragmentStatistics, FragmentSummaryStats, TableStatistics
    from lancedb.table import TableStatistics as RealTableStatistics

    fields = [f for f in TableStatistics.__dataclass_fields__]
    assert fields == list(RealTableStatistics.__dataclass_fields__)
    assert list(FragmentStatistics.__dataclass_fields__) == list(s["fragment_stats"])
    assert list(FragmentSummaryStats.__dataclass_fields__) == list(s["fragment_stats"]["lengths"])


def test_stats_of_empty_table_and_checked_out_version(tmp_path):
    db = lancedb_cpp.connect(tmp_path)
    e = db.create_table("e", schema=rows(0, 1).schema)
    assert e.stats() == oracle_stats(tmp_path, "e")
    assert e.stats()["fragment_stats"]["lengths"]["p99"] == 0
    t = db.create_table("t", rows(0, 10))
    t.add(rows(10, 200))
    t.checkout(1)
    assert t.stats() == oracle_stats(tmp_path, "t", version=1)
    assert t.stats()["num_rows"] == 10


def test_small_fragment_threshold_matches_lancedb(tmp_path):
    db = lancedb_cpp.connect(tmp_path)
    big = pa.table({"id": pa.array(range(100_000), pa.int64())})
    t = db.create_table("t", big)
    t.add(big.slice(0, 99_999))
    ours = t.stats()
    assert ours == oracle_stats(tmp_path, "t")
    assert ours["fragment_stats"]["num_small_fragments"] == 1


def test_stats_async_and_memory(tmp_path):
    async def run():
        adb = await lancedb_cpp.connect_async(tmp_path)
        at = await adb.create_table("t", rows(0, 12))
        await at.add(rows(12, 3))
        return await at.stats()

    assert asyncio.run(run()) == oracle_stats(tmp_path, "t")
    m = lancedb_cpp.connect("memory://stats").create_table("m", rows(0, 4))
    assert m.stats()["num_rows"] == 4
    assert m.stats()["total_bytes"] > 0
