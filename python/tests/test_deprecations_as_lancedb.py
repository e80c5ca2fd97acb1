# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""The DeprecationWarnings and limit checks a LanceDB 0.39 user sees, compared with the
installed lancedb on the same data: deprecated index, compaction, cleanup and metadata methods
warn (and still work), the new index API does not warn, open_table(index_cache_size=...) warns
and opens, vector-query limits (sync and async) and add(write_parallelism=...) are checked as
LanceDB checks them."""

import asyncio
import warnings
from datetime import timedelta

import lancedb
import numpy as np
import pyarrow as pa
import pytest

import lancedb_cpp


def make_table(mod, path):
    rng = np.random.default_rng(3)
    data = pa.table({
        "vector": pa.array(rng.random((300, 8), dtype=np.float32).tolist(), pa.list_(pa.float32(), 8)),
        "id": range(300),
        "text": [f"word{i % 7} other{i % 3}" for i in range(300)],
        "tags": [[f"t{i % 5}"] for i in range(300)],
    })  # fmt: skip
    db = mod.connect(path)
    return db, db.create_table("t", data)


def deprecations(call):
    """The messages of the DeprecationWarnings `call` emits, and what it returned or raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = ("ok", None)
            call()
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            result = (type(e).__name__, str(e))
    # The distinct messages: LanceDB warns twice for some calls (its sync method and the async
    # one it calls are both deprecated).
    messages = sorted({str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)})
    return messages, result


def _index_names(t):
    return sorted(i.name for i in t.list_indices())


CASES = {
    "create_scalar_index": lambda m, t: t.create_scalar_index("id"),
    "create_scalar_index_bitmap": lambda m, t: t.create_scalar_index("id", index_type="BITMAP"),
    "create_fts_index": lambda m, t: t.create_fts_index("text"),
    "legacy_create_index_metric_first": lambda m, t: t.create_index("l2", num_partitions=2,
                                                                   num_sub_vectors=2),
    "legacy_create_index_column_name": lambda m, t: t.create_index(
        metric="cosine", vector_column_name="vector", num_partitions=2, num_sub_vectors=2
    ),
    "new_create_index": lambda m, t: t.create_index(
        "vector", config=m.index.IvfPq(num_partitions=2, num_sub_vectors=2)
    ),
    "new_create_index_scalar": lambda m, t: t.create_index("id", config=m.index.BTree()),
    "new_create_index_fts": lambda m, t: t.create_index("text", config=m.index.FTS()),
    "compact_files": lambda m, t: t.compact_files(),
    "cleanup_old_versions": lambda m, t: t.cleanup_old_versions(timedelta(days=1)),
    "replace_field_metadata": lambda m, t: t.replace_field_metadata("id", {"k": "v"}),
    "optimize": lambda m, t: t.optimize(),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_deprecations_as_lancedb(tmp_path, case):
    _, ours = make_table(lancedb_cpp, tmp_path / "ours")
    _, theirs = make_table(lancedb, tmp_path / "theirs")
    got = deprecations(lambda: CASES[case](lancedb_cpp, ours))
    want = deprecations(lambda: CASES[case](lancedb, theirs))
    assert got == want
    assert want[1] == ("ok", None)  # the deprecated calls still work in LanceDB
    assert (len(want[0]) == 1) == (not case.startswith("new_") and case != "optimize")
    assert _index_names(ours) == _index_names(theirs)


def test_open_table_index_cache_size_warns_and_opens(tmp_path):
    results = []
    for mod in (lancedb_cpp, lancedb):
        db, _ = make_table(mod, tmp_path / mod.__name__)
        opened = []
        messages, result = deprecations(
            lambda: opened.append(db.open_table("t", index_cache_size=16))
        )
        results.append((messages, result, opened[0].count_rows()))
    assert results[0] == results[1]
    assert results[0][0] and results[0][2] == 300


@pytest.mark.parametrize("limit", [None, 0, -1, 1, 5])
def test_vector_query_limits_as_lancedb(tmp_path, limit):
    def run(mod):
        _, t = make_table(mod, tmp_path / mod.__name__)
        try:
            return ("ok", len(t.search([0.5] * 8).limit(limit).to_list()))
        except Exception as e:  # noqa: BLE001
            return (type(e).__name__, str(e))

    got, want = run(lancedb_cpp), run(lancedb)
    assert got == want
    assert (want[0] == "ok") == (limit is not None and limit > 0)


@pytest.mark.parametrize("limit", [None, 0, -1, 2.5, 3])
@pytest.mark.parametrize("kind", ["plain", "vector"])
def test_async_query_limits_as_lancedb(tmp_path, limit, kind):
    async def run(mod):
        db = await mod.connect_async(tmp_path / mod.__name__)
        t = await db.create_table("t", pa.table({"vector": [[1.0, 2.0]] * 5, "id": range(5)}))
        q = t.query() if kind == "plain" else t.query().nearest_to([1.0, 2.0])
        try:
            return ("ok", (await q.limit(limit).to_arrow()).num_rows)
        except Exception as e:  # noqa: BLE001
            return (type(e).__name__, str(e))

    got, want = asyncio.run(run(lancedb_cpp)), asyncio.run(run(lancedb))
    assert got == want


@pytest.mark.parametrize("value", [None, 1, 4, 0, -1, 2.5, "2"])
def test_add_write_parallelism_as_lancedb(tmp_path, value):
    """A cap on the partitions written at once: valid values add the rows, invalid ones raise
    LanceDB's errors and write nothing."""

    def run(mod):
        _, t = make_table(mod, tmp_path / mod.__name__)
        rows = t.to_arrow().slice(0, 40)
        try:
            t.add(rows, write_parallelism=value)
            outcome = ("ok", None)
        except Exception as e:  # noqa: BLE001
            outcome = (type(e).__name__, str(e))
        return outcome, t.count_rows(), t.version

    got, want = run(lancedb_cpp), run(lancedb)
    assert got == want
    assert (want[0][0] == "ok") == (value is None or value in (1, 4))
