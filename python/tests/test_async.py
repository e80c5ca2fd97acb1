# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""The async API (lancedb_cpp._async) against the sync one, plus concurrency checks."""

import asyncio
import datetime
import threading
import time

import numpy as np
import pyarrow as pa
import pytest

import lancedb_cpp
from lancedb_cpp import _async_query
from lancedb_cpp._async import AsyncTable, connect_async
from lancedb_cpp.expr import col
from lancedb_cpp.index import FTS, IvfFlat, IvfPq
from lancedb_cpp.query import ColumnOrdering

DIM = 8


def _rows(start, n, seed=0):
    rng = np.random.default_rng(seed + start)
    vecs = rng.random((n, DIM), dtype=np.float32)
    words = ["apple", "banana", "cherry", "date", "elder", "fig"]
    return [
        {
            "id": start + i,
            "vector": vecs[i].tolist(),
            "text": f"{words[i % 6]} {words[(i * 7) % 6]} item{start + i}",
            "price": float((start + i) % 17),
        }
        for i in range(n)
    ]


Q = [0.5] * DIM


def _sorted(t, key="id"):
    return t.sort_by(key) if key in t.column_names else t


# Each step: (name, sync function(table) -> result, async function(table) -> awaitable).
STEPS = [
    ("count", lambda t: t.count_rows(), lambda t: t.count_rows()),
    ("count_filter", lambda t: t.count_rows("price > 5"), lambda t: t.count_rows("price > 5")),
    (
        "scan",
        lambda t: t.search().where("id > 10").select(["id", "price"]).limit(7).offset(2).to_arrow(),
        lambda t: t.query().where("id > 10").select(["id", "price"]).limit(7).offset(2).to_arrow(),
    ),
    (
        "scan_dynamic",
        lambda t: t.search().select({"double": "price * 2"}).limit(5).to_arrow(),
        lambda t: t.query().select({"double": "price * 2"}).limit(5).to_arrow(),
    ),
    (
        "vector",
        lambda t: t.search(Q).distance_type("cosine").where("price < 10").limit(5)
        .select(["id"]).to_arrow(),
        lambda t: t.query().nearest_to(Q).distance_type("cosine").where("price < 10").limit(5)
        .select(["id"]).to_arrow(),
    ),
    (
        "vector_opts",
        lambda t: t.search(Q).nprobes(4).refine_factor(2).postfilter().where("id % 2 = 0")
        .distance_range(0.0, 2.0).limit(4).to_arrow(),
        lambda t: t.vector_search(Q).nprobes(4).refine_factor(2).postfilter().where("id % 2 = 0")
        .distance_range(0.0, 2.0).limit(4).to_arrow(),
    ),
    (
        "vector_batch",
        lambda t: t.search([Q, [0.1] * DIM]).limit(3).with_row_id(True).to_arrow(),
        lambda t: t.query().nearest_to(Q).nearest_to([0.1] * DIM).limit(3).with_row_id()
        .to_arrow(),
    ),
    ("delete", lambda t: t.delete("id < 3").num_deleted_rows,
     lambda t: _attr(t.delete("id < 3"), "num_deleted_rows")),
    (
        "update",
        lambda t: t.update(where="id = 5", values={"price": 99.0}).rows_updated,
        lambda t: _attr(t.update({"price": 99.0}, where="id = 5"), "rows_updated"),
    ),
    (
        "update_sql",
        lambda t: t.update(where="id > 50", values_sql={"price": "price + 1"}).rows_updated,
        lambda t: _attr(t.update(updates_sql={"price": "price + 1"}, where="id > 50"),
                        "rows_updated"),
    ),
    (
        "merge",
        lambda t: _merge_tuple(t.merge_insert("id").when_matched_update_all()
                               .when_not_matched_insert_all().execute(_rows(55, 10, seed=9))),
        lambda t: _amerge(t.merge_insert("id").when_matched_update_all()
                          .when_not_matched_insert_all().execute(_rows(55, 10, seed=9))),
    ),
    ("add", lambda t: t.add(_rows(100, 20)).version, lambda t: _attr(t.add(_rows(100, 20)), "version")),
    ("fts_index", lambda t: t.create_fts_index("text"), lambda t: t.create_index("text", config=FTS())),
    (
        "fts",
        lambda t: t.search("banana", query_type="fts").limit(50).select(["id"]).to_arrow(),
        lambda t: t.query().nearest_to_text("banana").limit(50).select(["id"]).to_arrow(),
    ),
    (
        "fts_filter",
        lambda t: t.search("cherry").where("price > 3").limit(50).select(["id"]).to_arrow(),
        lambda t: t.query().where("price > 3").nearest_to_text("cherry").limit(50)
        .select(["id"]).to_arrow(),
    ),
    (
        "hybrid",
        lambda t: t.search(query_type="hybrid").vector(Q).text("apple").limit(8)
        .select(["id"]).to_arrow(),
        lambda t: t.query().nearest_to(Q).nearest_to_text("apple").limit(8).select(["id"])
        .to_arrow(),
    ),
    ("scalar_index", lambda t: t.create_scalar_index("id"), lambda t: t.create_index("id")),
    ("vector_index",
     lambda t: t.create_index("vector", config=IvfFlat(num_partitions=2)),
     lambda t: t.create_index("vector", config=IvfFlat(num_partitions=2))),
    ("indices", lambda t: sorted((i.name, i.index_type) for i in t.list_indices()),
     lambda t: _indices(t)),
    ("index_stats", lambda t: _stats(t.index_stats("id_idx")),
     lambda t: _astats(t.index_stats("id_idx"))),
    (
        "indexed_vector",
        lambda t: t.search(Q).nprobes(2).limit(5).select(["id"]).to_arrow(),
        lambda t: t.query().nearest_to(Q).nprobes(2).limit(5).select(["id"]).to_arrow(),
    ),
    ("add_columns", lambda t: t.add_columns({"p2": "price * 2"}) and None,
     lambda t: _none(t.add_columns({"p2": "price * 2"}))),
    ("alter", lambda t: t.alter_columns({"path": "p2", "rename": "p3"}) and None,
     lambda t: _none(t.alter_columns({"path": "p2", "rename": "p3"}))),
    ("drop_col", lambda t: t.drop_columns(["p3"]) and None, lambda t: _none(t.drop_columns(["p3"]))),
    ("schema", lambda t: t.schema, lambda t: t.schema()),
    ("version", lambda t: t.version, lambda t: t.version()),
    ("n_versions", lambda t: len(t.list_versions()), lambda t: _len(t.list_versions())),
    ("checkout", lambda t: (t.checkout(2), t.count_rows())[1],
     lambda t: _seq(t.checkout(2), t.count_rows())),
    ("restore", lambda t: (t.restore(), t.count_rows(), t.version)[1:],
     lambda t: _restore(t)),
    ("optimize", lambda t: (t.optimize(), t.count_rows())[1],
     lambda t: _seq(t.optimize(), t.count_rows())),
    ("all", lambda t: t.to_arrow(), lambda t: t.to_arrow()),
    ("take", lambda t: t.take_offsets([0, 3, 1]).select(["id"]).to_arrow(),
     lambda t: t.take_offsets([0, 3, 1]).select(["id"]).to_arrow()),
    # The query builders' newer options, maintenance and index methods.
    ("order_by", lambda t: t.search().order_by(ORDER).select(["id", "price"]).limit(9).to_arrow(),
     lambda t: t.query().order_by(ORDER).select(["id", "price"]).limit(9).to_arrow()),
    ("row_address",
     lambda t: t.search().with_row_address().select(["id"]).limit(4).to_arrow(),
     lambda t: t.query().with_row_address().select(["id"]).limit(4).to_arrow()),
    ("fragments", lambda t: t.search().fragment_ids([0]).select(["id"]).to_arrow(),
     lambda t: t.query().fragment_ids([0]).select(["id"]).to_arrow()),
    ("timeout", lambda t: t.search().where("id < 50").to_arrow(timeout=LONG).num_rows,
     lambda t: _attr(t.query().where("id < 50").to_arrow(timeout=LONG), "num_rows")),
    ("update_expr", lambda t: t.update(where=col("id") == 20, values={"price": 1.5}).rows_updated,
     lambda t: _attr(t.update({"price": 1.5}, where=col("id") == 20), "rows_updated")),
    ("stats", lambda t: _table_stats(t.stats()), lambda t: _astats_dict(t.stats())),
    ("tokenize",  # the restore above went back before the indices: build them again
     lambda t: (t.create_fts_index("text"), t.tokenize("Apple bananas", column="text"))[1],
     lambda t: _seq(t.create_index("text", config=FTS()),
                    t.tokenize("Apple bananas", column="text"))),
    ("prewarm", lambda t: (t.create_scalar_index("id"), t.prewarm_index("id_idx"))[1],
     lambda t: _seq(t.create_index("id"), t.prewarm_index("id_idx"))),
    ("v2_paths", lambda t: t.uses_v2_manifest_paths(), lambda t: t.uses_v2_manifest_paths()),
    ("branches", lambda t: (t.branches.create("dev").count_rows(), sorted(t.branches.list())),
     lambda t: _branches(t)),
]

ORDER = [ColumnOrdering(column_name="price", ascending=False), ColumnOrdering(column_name="id")]
LONG = datetime.timedelta(seconds=600)


def _table_stats(stats):
    return (stats["num_rows"], stats["num_indices"], stats["fragment_stats"])


async def _astats_dict(coro):
    return _table_stats(await coro)


async def _branches(t):
    dev = await t.branches.create("dev")
    return (await dev.count_rows(), sorted(await t.branches.list()))


async def _attr(coro, name):
    return getattr(await coro, name)


async def _none(coro):
    await coro
    return None


async def _len(coro):
    return len(await coro)


async def _seq(*coros):
    for c in coros[:-1]:
        await c
    return await coros[-1]


async def _restore(t):
    await t.restore()
    return (await t.count_rows(), await t.version())


def _merge_tuple(r):
    return (r.num_updated_rows, r.num_inserted_rows, r.num_deleted_rows)


async def _amerge(coro):
    return _merge_tuple(await coro)


async def _indices(t):
    return sorted((i.name, i.index_type) for i in await t.list_indices())


def _stats(s):
    return (s.num_indexed_rows, s.num_unindexed_rows, s.index_type)


async def _astats(coro):
    return _stats(await coro)


def test_sync_and_async_give_identical_results(tmp_path):
    sync_db = lancedb_cpp.connect(str(tmp_path / "sync"))
    sync_table = sync_db.create_table("t", _rows(0, 300))
    sync_results = [(name, f(sync_table)) for name, f, _ in STEPS]

    async def run():
        db = await connect_async(str(tmp_path / "async"))
        table = await db.create_table("t", _rows(0, 300))
        assert isinstance(table, AsyncTable)
        out = []
        for name, _, f in STEPS:
            result = f(table)
            out.append((name, await result if asyncio.iscoroutine(result) else result))
        return out

    async_results = asyncio.run(run())
    for (name, expected), (_, got) in zip(sync_results, async_results):
        assert got == expected, name


def test_async_connection_api(tmp_path):
    async def run():
        db = await connect_async(tmp_path)
        assert db.uri == str(tmp_path)
        assert db.is_open()
        assert await db.get_read_consistency_interval() is None
        for name in ("b", "a", "c"):
            await db.create_table(name, [{"x": 1}])
        assert list(await db.table_names()) == ["a", "b", "c"]
        assert list(await db.table_names(start_after="a", limit=1)) == ["b"]
        assert (await db.list_tables()).tables == ["a", "b", "c"]
        with pytest.raises(ValueError):
            await db.create_table("a", [{"x": 1}])
        t = await db.create_table("a", [{"x": 2}], exist_ok=True)
        assert (await t.to_arrow()).to_pylist() == [{"x": 1}]
        t = await db.create_table("a", [{"x": 3}], mode="overwrite")
        assert (await t.to_arrow()).to_pylist() == [{"x": 3}]
        await db.drop_table("b")
        with pytest.raises(ValueError):
            await db.drop_table("b")
        await db.drop_table("b", ignore_missing=True)
        with pytest.raises(ValueError):
            await db.open_table("b")
        assert t.name == "a"
        assert (await t.uri()).endswith("a.lance")
        with pytest.raises(NotImplementedError):
            await db.rename_table("a", "z")
        with pytest.raises(ValueError, match="Branch 'dev' not found"):
            await db.open_table("a", branch="dev")
        with pytest.raises(ValueError, match="write_parallelism must be greater than 0"):
            await t.add([{"x": 4}], write_parallelism=0)
        with pytest.raises(RuntimeError, match="Query timeout after 0 ms"):
            await t.query().to_arrow(timeout=__import__("datetime").timedelta(0))
        await db.drop_all_tables()
        assert list(await db.table_names()) == []
        with db as same:
            assert same is db
        assert not db.is_open()
        with pytest.raises(RuntimeError):
            await db.table_names()

    asyncio.run(run())


def test_to_batches_and_outputs(tmp_path):
    async def run():
        db = await connect_async(tmp_path)
        t = await db.create_table("t", _rows(0, 23))
        reader = await t.query().select(["id"]).to_batches(max_batch_length=5)
        sizes = [b.num_rows async for b in reader]
        assert sum(sizes) == 23 and max(sizes) <= 5
        reader = await t.query().nearest_to(Q).limit(7).to_batches()
        assert sum(b.num_rows for b in await reader.read_all()) == 7
        df = await t.query().limit(3).to_pandas()
        assert len(df) == 3
        assert len(await t.query().limit(4).to_list()) == 4
        schema = await t.query().nearest_to(Q).output_schema()
        assert "_distance" in schema.names
        assert "KNN" in await t.query().nearest_to(Q).explain_plan() or True
        assert isinstance(await t.query().where("id = 1").analyze_plan(), str)
        assert (await t.head(2)).num_rows == 2
        row_ids = (await t.query().with_row_id().limit(2).to_arrow())["_rowid"].to_pylist()
        got = await t.take_row_ids(row_ids).select(["id"]).to_list()
        assert len(got) == 2
        await t.tags.create("v1", 1)
        assert await t.tags.get_version("v1") == 1

    asyncio.run(run())


def test_concurrent_queries_overlap(tmp_path, monkeypatch):
    n = 300_000
    rng = np.random.default_rng(1)
    vecs = rng.random((n, 64), dtype=np.float32)
    data = pa.table(
        {
            "id": pa.array(np.arange(n)),
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(vecs.reshape(-1)), 64),
        }
    )
    intervals = []
    lock = threading.Lock()

    async def run():
        db = await connect_async(tmp_path)
        t = await db.create_table("t", data)

        def timed(query):
            inner = query._inner
            original = inner.to_arrow

            def wrapped(*args, **kwargs):
                start = time.monotonic()
                try:
                    return original(*args, **kwargs)
                finally:
                    with lock:
                        intervals.append((start, time.monotonic()))

            inner.to_arrow = wrapped
            return query

        q1 = timed(t.query().nearest_to(vecs[0]).limit(10))
        q2 = timed(t.query().nearest_to(vecs[1]).limit(10))
        r1, r2 = await asyncio.gather(q1.to_arrow(), q2.to_arrow())
        assert r1["id"][0].as_py() == 0 and r2["id"][0].as_py() == 1

        # The event loop keeps running while an index is built.
        ticks_during = []
        building = asyncio.Event()
        done = asyncio.Event()

        async def ticker():
            while not done.is_set():
                if building.is_set():
                    ticks_during.append(time.monotonic())
                await asyncio.sleep(0.005)

        async def build():
            building.set()
            try:
                await t.create_index("vector", config=IvfPq(num_partitions=32, num_sub_vectors=8))
            finally:
                done.set()

        await asyncio.gather(ticker(), build())
        assert len(ticks_during) >= 5
        assert [i.index_type for i in await t.list_indices()] == ["IvfPq"]

    asyncio.run(run())
    (s1, e1), (s2, e2) = intervals
    assert s1 < e2 and s2 < e1, intervals


def test_errors_match_sync(tmp_path):
    sync_db = lancedb_cpp.connect(str(tmp_path / "s"))
    sync_t = sync_db.create_table("t", _rows(0, 5))

    async def run():
        db = await connect_async(str(tmp_path / "a"))
        t = await db.create_table("t", _rows(0, 5))
        cases = [
            (lambda: sync_db.open_table("missing"), lambda: db.open_table("missing")),
            (lambda: sync_t.count_rows("nope > 1"), lambda: t.count_rows("nope > 1")),
            (lambda: sync_t.search(Q).distance_type("manhattan"),
             lambda: _sync_in_coro(lambda: t.query().nearest_to(Q).distance_type("manhattan"))),
            (lambda: sync_t.drop_index("nothing"), lambda: t.drop_index("nothing")),
            (lambda: sync_t.add([{"id": "x"}]), lambda: t.add([{"id": "x"}])),
            (lambda: sync_t.restore(), lambda: t.restore()),
        ]
        for sync_call, async_call in cases:
            with pytest.raises(Exception) as sync_err:
                sync_call()
            with pytest.raises(Exception) as async_err:
                await async_call()
            assert type(async_err.value) is type(sync_err.value), (sync_err, async_err)

    asyncio.run(run())


async def _sync_in_coro(fn):
    return fn()


def test_builders_module_exports():
    for name in ("AsyncQuery", "AsyncVectorQuery", "AsyncFTSQuery", "AsyncHybridQuery",
                 "AsyncTakeQuery", "AsyncRecordBatchReader"):
        assert hasattr(_async_query, name)
