# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Permutations (lancedb_cpp.permutation) against LanceDB's (the installed ``lancedb`` is the
oracle): permutation tables equal to LanceDB's where the assignment is deterministic
(sequential, calculated, filtered, unsplit), split sizes equal to LanceDB's where it is random,
the same rows read back through every reader method and format, LanceDB's errors for bad
input; and what LanceDB cannot be compared on (its random generator and hash are its own):
disjoint splits, seeded orders that repeat across processes, hash splits that follow only the
hashed values, and a reader pinned to the version the permutation was built from."""

from __future__ import annotations

import asyncio
import gc
import importlib.util
import json
import pickle
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import lancedb
import lancedb.permutation as their
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import lancedb_cpp
import lancedb_cpp.permutation as ours
from lancedb_cpp._async import AsyncTable

N = 200


def _data(n: int = N, start: int = 0) -> pa.Table:
    ids = np.arange(start, start + n)
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "group": pa.array([f"g{i % 7}" for i in ids]),
            "score": pa.array(ids * 0.5),
            "vector": pa.FixedSizeListArray.from_arrays(
                pa.array(np.repeat(ids, 4).astype(np.float32)), 4
            ),
        }
    )


@pytest.fixture
def pair(tmp_path):
    """The same two-fragment table written by lancedb_cpp and by LanceDB: (ours, theirs)."""
    tables = []
    for module, name in ((lancedb_cpp, "ours"), (lancedb, "theirs")):
        table = module.connect(str(tmp_path / name)).create_table("t", _data(150))
        table.add(_data(50, start=150))
        tables.append(table)
    return tuple(tables)


def _both(pair, configure):
    """The permutation tables `configure(builder)` builds on each side, as pyarrow tables."""
    ours_table, their_table = pair
    return (
        configure(ours.permutation_builder(ours_table)).execute().to_arrow(),
        configure(their.permutation_builder(their_table)).execute().to_arrow(),
    )


def _table_names(connection) -> list:
    with warnings.catch_warnings():  # table_names() is deprecated in LanceDB, and enough here
        warnings.simplefilter("ignore", DeprecationWarning)
        return list(connection.table_names())


def _outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - the error itself is what is compared
        return (type(e).__name__, str(e))


def _splits(table: pa.Table) -> dict:
    """split id -> its row ids, in order."""
    out: dict = {}
    for row_id, split in zip(table["row_id"].to_pylist(), table["split_id"].to_pylist()):
        out.setdefault(split, []).append(row_id)
    return out


# ---- Permutation tables equal to LanceDB's --------------------------------------------------


@pytest.mark.parametrize(
    "configure",
    [
        lambda b: b,
        lambda b: b.filter("id % 3 = 0"),
        lambda b: b.split_sequential(ratios=[0.3, 0.5], split_names=["a", "b"]),
        lambda b: b.split_sequential(ratios=[0.333, 0.333, 0.334]),
        lambda b: b.split_sequential(counts=[17, 120]),
        lambda b: b.split_sequential(fixed=3).filter("score > 20"),
        lambda b: b.split_calculated("id % 4"),
        lambda b: b.split_calculated("id % 3", split_names=["x", "y", "z"]).filter("id > 100"),
    ],
    ids=["unsplit", "filter", "ratios", "ratios-sum-1", "counts", "fixed+filter", "calculated",
         "calculated+filter"],  # fmt: skip
)
def test_deterministic_permutation_tables_equal_lancedb(pair, configure):
    mine, theirs = _both(pair, configure)
    assert mine.schema.names == theirs.schema.names
    assert mine.schema.types == theirs.schema.types
    assert [f.nullable for f in mine.schema] == [f.nullable for f in theirs.schema]
    assert mine.schema.metadata == theirs.schema.metadata
    assert mine.to_pydict() == theirs.to_pydict()


def test_permutation_table_records_the_base_version(pair):
    ours_table, _ = pair
    table = ours.permutation_builder(ours_table).split_random(
        ratios=[0.5, 0.5], seed=1, split_names=["train", "test"]
    ).execute()
    assert table.name == "permutation"
    assert table.schema.metadata == {b"base_version": b"2", b"split_names": b'["train","test"]'}
    # The caller's handle was not checked out: it still follows the table and takes writes.
    assert ours_table.version == 2
    ours_table.add(_data(1, start=1000))
    assert ours_table.version == 3


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(ratios=[0.3, 0.7]),
        dict(ratios=[0.25, 0.25]),
        dict(ratios=[0.333, 0.333, 0.334]),
        dict(ratios=[0.1, 0.2, 0.3, 0.4]),
        dict(counts=[10, 90]),
        dict(fixed=3),
        dict(fixed=7, clump_size=4),
    ],
)
def test_random_splits_have_lancedbs_sizes_and_are_disjoint(pair, kwargs):
    mine, theirs = _both(pair, lambda b: b.split_random(seed=5, **kwargs))
    mine_splits, their_splits = _splits(mine), _splits(theirs)
    assert {k: len(v) for k, v in mine_splits.items()} == {
        k: len(v) for k, v in their_splits.items()
    }
    all_ids = [i for ids in mine_splits.values() for i in ids]
    assert len(all_ids) == len(set(all_ids))  # disjoint, no row twice
    base_ids = set(pair[0].search().with_row_id(True).to_arrow()["_rowid"].to_pylist())
    assert set(all_ids) <= base_ids
    assert mine["split_id"].to_pylist() == sorted(mine["split_id"].to_pylist())  # grouped


def test_random_split_and_shuffle_are_seeded(pair):
    ours_table, _ = pair

    def build(seed, shuffle_seed=None):
        b = ours.permutation_builder(ours_table).split_random(ratios=[0.6, 0.4], seed=seed)
        if shuffle_seed is not None:
            b = b.shuffle(seed=shuffle_seed)
        return b.execute().to_arrow()

    assert build(7).equals(build(7))
    assert not build(7).equals(build(8))
    assert build(7, 3).equals(build(7, 3))
    assert not build(7, 3).equals(build(7, 4))
    # The shuffle reorders inside each split and keeps each split's rows.
    unshuffled, shuffled = _splits(build(7)), _splits(build(7, 3))
    assert {k: sorted(v) for k, v in unshuffled.items()} == {
        k: sorted(v) for k, v in shuffled.items()
    }
    assert unshuffled != shuffled
    # Without a seed, two builds differ.
    first = ours.permutation_builder(ours_table).shuffle().execute().to_arrow()
    second = ours.permutation_builder(ours_table).shuffle().execute().to_arrow()
    assert not first.equals(second)


def test_clumps_move_together(tmp_path):
    table = lancedb_cpp.connect(str(tmp_path)).create_table("t", pa.table({"id": range(100)}))
    shuffled = ours.permutation_builder(table).shuffle(seed=3, clump_size=10).execute()
    row_ids = shuffled.to_arrow()["row_id"].to_pylist()
    assert sorted(row_ids) == list(range(100)) and row_ids != sorted(row_ids)
    for i in range(10):  # each run of 10 is one whole clump
        start = row_ids[i * 10]
        assert start % 10 == 0 and row_ids[i * 10 : (i + 1) * 10] == list(range(start, start + 10))
    split = ours.permutation_builder(table).split_random(counts=[30, 50], seed=2, clump_size=10)
    for ids in _splits(split.execute().to_arrow()).values():
        assert len(ids) % 10 == 0
        for i in range(0, len(ids), 10):
            assert ids[i] % 10 == 0 and ids[i : i + 10] == list(range(ids[i], ids[i] + 10))


def test_seeded_order_is_the_same_in_another_process(tmp_path):
    db = lancedb_cpp.connect(str(tmp_path))
    db.create_table("t", _data(500))
    script = textwrap.dedent(
        f"""
        import json, lancedb_cpp
        from lancedb_cpp.permutation import permutation_builder
        table = lancedb_cpp.connect({str(tmp_path)!r}).open_table("t")
        perm = (permutation_builder(table)
                .split_random(ratios=[0.7, 0.2], seed=11, clump_size=3)
                .shuffle(seed=99, clump_size=2).execute().to_arrow())
        print(json.dumps([perm["row_id"].to_pylist(), perm["split_id"].to_pylist()]))
        """
    )
    env_path = str(Path(lancedb_cpp.__file__).parent.parent)
    child = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env={"PYTHONPATH": env_path, "PATH": ""},
    )
    here = (
        ours.permutation_builder(db.open_table("t"))
        .split_random(ratios=[0.7, 0.2], seed=11, clump_size=3)
        .shuffle(seed=99, clump_size=2)
        .execute()
        .to_arrow()
    )
    assert json.loads(child.stdout) == [here["row_id"].to_pylist(), here["split_id"].to_pylist()]


# ---- Hash splits ---------------------------------------------------------------------------


def test_hash_splits_follow_the_hashed_values(tmp_path):
    db = lancedb_cpp.connect(str(tmp_path))
    n = 4000
    keys = [f"user-{i}" for i in range(n)]
    table = db.create_table("t", pa.table({"key": keys, "n": range(n)}))

    def assignment(tbl, **kwargs):
        built = ours.permutation_builder(tbl).split_hash(["key"], [1, 3], **kwargs).execute()
        perm = built.to_arrow()
        key_of = dict(zip(*tbl.search().with_row_id(True).to_arrow()
                          .select(["_rowid", "key"]).to_pydict().values()))  # fmt: skip
        return {key_of[r]: s for r, s in zip(perm["row_id"].to_pylist(),
                                             perm["split_id"].to_pylist())}  # fmt: skip

    first = assignment(table)
    assert len(first) == n  # no discard: every row in a split
    share = sum(1 for s in first.values() if s == 0) / n
    assert 0.2 < share < 0.3  # weight 1 of 4
    assert assignment(table) == first  # deterministic
    # Other rows and other columns do not move a row: add rows, rewrite `n`.
    table.add(pa.table({"key": [f"new-{i}" for i in range(500)], "n": range(500)}))
    table.update(values_sql={"n": "n * 2"})
    again = assignment(table)
    assert {k: again[k] for k in first} == first
    # A discard weight leaves out about its share.
    kept = assignment(table, discard_weight=4)
    assert 0.4 < len(kept) / (n + 500) < 0.6
    assert all(kept[k] == again[k] for k in kept)


def test_hash_splits_over_several_column_types(tmp_path):
    table = lancedb_cpp.connect(str(tmp_path)).create_table(
        "t",
        pa.table(
            {
                "i": pa.array([1, 2, None, 4] * 50, pa.int32()),
                "f": pa.array([0.5, -0.0, None, 2.5] * 50),
                "s": pa.array(["a", None, "c", "d"] * 50),
                "b": pa.array([True, False, None, True] * 50),
                "d": pa.array([1, 2, 3, None] * 50, pa.date32()),
            }
        ),
    )
    perm = ours.permutation_builder(table).split_hash(["i", "f", "s", "b", "d"], [1, 1])
    result = perm.execute().to_arrow()
    assert result.num_rows == 200
    # Rows with equal values land in the same split (the pattern repeats every 4 rows).
    by_row = dict(zip(result["row_id"].to_pylist(), result["split_id"].to_pylist()))
    assert all(by_row[r] == by_row[r % 4] for r in by_row)


# ---- Reading ----------------------------------------------------------------------------------


def _read(permutation, batch_size=7):
    return [row for batch in permutation.iter(batch_size) for row in batch]


def test_reader_matches_lancedb(pair):
    ours_table, their_table = pair
    tables = []
    for module, table in ((ours, ours_table), (their, their_table)):
        perm = module.permutation_builder(table).split_sequential(
            counts=[60, 100], split_names=["train", "test"]
        ).filter("id % 5 != 1").execute()  # fmt: skip
        tables.append((module, table, perm))

    def observe(module, table, perm):
        p = module.Permutation.from_tables(table, perm, "test")
        splits = module.Permutations(table, perm)
        return [
            p.num_rows, p.num_columns, p.shape, p.column_names, p.schema, len(p),
            _read(p), _read(p, 1000),
            [len(b) for b in p.iter(13, skip_last_batch=True)],
            [len(b) for b in p.with_batch_size(30)],
            _read(p.with_skip(10)), _read(p.with_take(25)), _read(p.with_skip(5).with_take(9)),
            _read(p.with_take(9).with_skip(5)), p.with_skip(5).num_rows,
            _read(p.select_columns(["score", "_rowid", "id"])),
            p.select_columns(["_rowid"]).schema,
            _read(p.rename_column("id", "ident")), _read(p.rename_columns({"id": "a", "a": "b"})),
            _read(p.remove_columns(["vector", "nope"])),
            p.take_offsets([5, 0, 99, 5]), p[3], p.__getitems__([8, 2]), p.take_offsets([]),
            p.with_skip(90).take_offsets([1, 0]),
            p.with_format("python_col").take_offsets([1, 2]),
            _read(module.Permutation.from_tables(table, perm, 0).select_columns(["id"])),
            _read(module.Permutation.from_tables(table, perm).select_columns(["id"])),
            splits.split_names, splits.split_dict, splits["train"].num_rows, splits[1].num_rows,
        ]  # fmt: skip

    mine, theirs = observe(*tables[0]), observe(*tables[1])
    for i, (a, b) in enumerate(zip(mine, theirs)):
        assert a == b, f"observation {i}: {a!r} != {b!r}"


def test_identity_permutation_matches_lancedb(pair):
    ours_table, their_table = pair

    def observe(module, table):
        p = module.Permutation.identity(table)
        return [p.num_rows, _read(p.select_columns(["id"]), 16),
                _read(p.with_skip(190).select_columns(["id", "_rowid"]), 4),
                p.select_columns(["id"]).take_offsets([4]), p.with_take(3).num_rows]  # fmt: skip

    assert observe(ours, ours_table) == observe(their, their_table)
    # Beyond LanceDB: identity takes come back in the order asked, relative to the skip.
    p = ours.Permutation.identity(ours_table).select_columns(["id"])
    assert p.take_offsets([7, 2, 7]) == [{"id": 7}, {"id": 2}, {"id": 7}]
    assert p.with_skip(100).take_offsets([1, 0]) == [{"id": 101}, {"id": 100}]
    rows = [b.num_rows for b in p.with_format("arrow").iter(64)]
    assert rows == [64, 64, 64, 8]  # exact batches across the fragment boundary


def test_every_format_gives_the_same_rows(pair):
    ours_table, _ = pair
    built = ours.permutation_builder(ours_table).split_random(ratios=[0.5], seed=3).execute()
    p = ours.Permutation.from_tables(ours_table, built, 0).select_columns(["id", "score", "group"])
    reference = pa.Table.from_batches(list(p.with_format("arrow").iter(9)))
    expected = reference.to_pylist()
    assert len(expected) == 100 and len({r["id"] for r in expected}) == 100

    def rows(fmt, batch):
        if fmt == "python":
            return batch
        if fmt == "python_col":
            return [dict(zip(batch, values)) for values in zip(*batch.values())]
        if fmt == "numpy":
            return [dict(zip(["id", "score", "group"], r)) for r in batch.tolist()]
        if fmt == "pandas":
            return batch.to_dict("records")
        if fmt == "polars":
            return batch.to_dicts()
        return batch.to_pylist()

    types = {"python": list, "python_col": dict, "numpy": np.ndarray, "pandas": pd.DataFrame,
             "polars": pl.DataFrame, "arrow": pa.RecordBatch}  # fmt: skip
    for fmt, kind in types.items():
        fp = p.with_format(fmt)
        batches = list(fp.iter(9))
        assert all(isinstance(b, kind) for b in batches), fmt
        assert [r for b in batches for r in rows(fmt, b)] == expected, fmt
        assert rows(fmt, fp.take_offsets([3, 1])) == [expected[3], expected[1]], fmt
    # A custom transform sees RecordBatches.
    sums = list(p.with_transform(lambda b: sum(b.column("id").to_pylist())).iter(50))
    assert sums == [sum(r["id"] for r in expected[:50]), sum(r["id"] for r in expected[50:])]


def test_torch_formats_need_torch(pair):
    p = ours.Permutation.identity(pair[0]).select_columns(["id", "score"])
    for fmt in ("torch", "torch_row", "torch_col"):
        if importlib.util.find_spec("torch") is None:
            with pytest.raises(ImportError, match="torch"):
                p.with_format(fmt)
        else:  # with torch installed: tensors of the same values
            batch = next(iter(p.with_format(fmt).iter(4)))
            assert len(batch) in (2, 4)


def test_reader_pins_the_base_version(pair):
    """Appends, deletes, updates and a compaction of the base table after the build change
    nothing a permutation reads; LanceDB reads the same."""
    outcomes = []
    for module, table in zip((ours, their), pair):
        perm = module.permutation_builder(table).split_sequential(
            counts=[40, 60], split_names=["a", "b"]
        ).shuffle(seed=4).execute()  # fmt: skip
        p = module.Permutation.from_tables(table, perm, "b").select_columns(["id", "score"])
        before = sorted(_read(p), key=lambda r: r["id"])
        offsets = p.take_offsets([0, 59, 30])
        table.add(_data(30, start=500))
        table.delete("id < 120")
        table.update(where="id >= 150", values={"score": -1.0})
        table.optimize()
        assert table.count_rows() == 110
        after = module.Permutation.from_tables(table, perm, "b").select_columns(["id", "score"])
        assert sorted(_read(after), key=lambda r: r["id"]) == before
        assert after.take_offsets([0, 59, 30]) == offsets
        assert after.num_rows == 60
        outcomes.append(before)
    assert outcomes[0] != [] and len(outcomes[0]) == len(outcomes[1]) == 60


def test_permutation_of_a_branch_records_and_reads_the_branch(tmp_path):
    """Built off a branch, a permutation records base_branch and reads that branch at its
    version, whichever handle of the table it is given; as LanceDB does."""
    outcomes = []
    for module in (lancedb_cpp, lancedb):
        permutation = ours if module is lancedb_cpp else their
        main = module.connect(str(tmp_path / module.__name__)).create_table(
            "t", pa.table({"x": list(range(10))})
        )
        main.add(pa.table({"x": [10, 11]}))
        branch = main.branches.create("exp")
        branch.add(pa.table({"x": [100, 101, 102]}))
        on_branch = permutation.permutation_builder(branch).split_sequential(counts=[5, 10])
        on_branch = on_branch.execute()
        branch.delete("x < 3")
        branch.add(pa.table({"x": [200]}))
        main.add(pa.table({"x": [300]}))
        on_main = permutation.permutation_builder(main).split_sequential(counts=[3]).execute()
        outcomes.append([
            on_branch.schema.metadata, on_main.schema.metadata,
            _read(permutation.Permutation.from_tables(branch, on_branch, 1), 20),
            _read(permutation.Permutation.from_tables(main, on_branch, 1), 20),
            _read(permutation.Permutation.from_tables(branch, on_main, 0), 20),
        ])  # fmt: skip
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] == {b"base_branch": b"exp", b"base_version": b"3"}


def test_pin_survives_on_a_table_with_stable_row_ids(tmp_path):
    db = lancedb_cpp.connect(
        str(tmp_path), storage_options={"new_table_enable_stable_row_ids": "true"}
    )
    table = db.create_table("t", _data(100))
    table.add(_data(100, start=100))
    perm = ours.permutation_builder(table).split_sequential(counts=[50]).filter("id % 2 = 0")
    built = perm.execute()
    expected = _read(ours.Permutation.from_tables(table, built).select_columns(["id"]))
    table.delete("id % 4 = 0")
    table.optimize()
    got = _read(ours.Permutation.from_tables(table, built).select_columns(["id"]))
    assert got == expected == [{"id": i} for i in range(0, 100, 2)]


def test_repeat_unique_and_flatten(tmp_path):
    db = lancedb_cpp.connect(str(tmp_path))
    table = db.create_table(
        "t",
        pa.table({"id": range(10), "tag": ["a", "b"] * 5,
                  "pos": [{"x": i, "y": -i} for i in range(10)]}),  # fmt: skip
    )
    built = ours.permutation_builder(table).split_sequential(counts=[4]).execute()
    p = ours.Permutation.from_tables(table, built).select_columns(["id"])
    twice = p.with_repeat(3)
    assert twice.num_rows == 12
    assert [r["id"] for r in _read(twice, 5)] == [0, 1, 2, 3] * 3
    assert [len(b) for b in twice.iter(5)] == [5, 5, 2]
    assert twice.take_offsets([9, 1]) == [{"id": 1}, {"id": 1}]
    assert [r["id"] for r in _read(p.with_skip(1).with_repeat(2))] == [1, 2, 3, 1, 2, 3]
    identity = ours.Permutation.identity(table).select_columns(["id"]).with_take(3)
    assert [r["id"] for r in _read(identity.with_repeat(2), 4)] == [0, 1, 2, 0, 1, 2]
    with pytest.warns(DeprecationWarning):
        assert p.repeat(2).num_rows == 8
    full = ours.Permutation.identity(table)
    assert sorted(full.unique("tag")) == ["a", "b"]
    assert full.with_take(1).unique("id") == [0]
    with pytest.raises(ValueError, match="does not exist"):
        full.unique("nope")
    flat = full.select_columns(["id", "pos"]).flatten()
    assert flat.column_names == ["id", "pos.x", "pos.y"]
    assert flat.take_offsets([2]) == [{"id": 2, "pos.x": 2, "pos.y": -2}]


def test_pickle_round_trip(tmp_path):
    for uri in (str(tmp_path / "disk"), "memory://permutation-pickle-test"):
        table = lancedb_cpp.connect(uri).create_table("t", _data(40))
        built = ours.permutation_builder(table).split_random(ratios=[0.5, 0.5], seed=2).execute()
        p = ours.Permutation.from_tables(table, built, 1).select_columns(["id"]).with_skip(2)
        p = p.with_format("python_col").with_batch_size(6)
        clone = pickle.loads(pickle.dumps(p))
        assert list(clone) == list(p)
        assert clone.take_offsets([0, 3]) == p.take_offsets([0, 3])
    factory = _Factory(str(tmp_path / "disk"))
    p = ours.Permutation.identity(factory("t")).with_connection_factory(factory)
    clone = pickle.loads(pickle.dumps(p))
    assert clone.num_rows == 40 and factory.calls == 1 and clone.connection_factory.calls == 2


class _Factory:
    def __init__(self, uri):
        self.uri, self.calls = uri, 0

    def __call__(self, name):
        self.calls += 1
        return lancedb_cpp.connect(self.uri).open_table(name)


def test_async_builder_and_async_tables(pair):
    ours_table, _ = pair

    async def build():
        builder = ours.async_permutation_builder(AsyncTable(ours_table))
        return await builder.split_sequential(counts=[10, 20]).shuffle(seed=1).execute()

    built = asyncio.run(build())
    assert isinstance(built, AsyncTable)
    sync = ours.permutation_builder(ours_table).split_sequential(counts=[10, 20]).shuffle(seed=1)
    assert asyncio.run(built.to_arrow()).equals(sync.execute().to_arrow())
    p = ours.Permutation.from_tables(AsyncTable(ours_table), built, 1)
    assert p.num_rows == 20


def test_permutation_tables_are_memory_databases_of_their_own(pair):
    first = ours.permutation_builder(pair[0]).execute()
    second = ours.permutation_builder(pair[0]).split_random(ratios=[0.5, 0.5], seed=3).execute()
    assert first.uri.startswith("/memory/") and second.name == first.name == "permutation"
    # Reconnecting to the URI is a new, empty database: the tables are reachable only through
    # their handles, and each keeps its own rows.
    uri = "memory://" + first.uri[len("/memory/") : -len("/permutation.lance")]
    assert _table_names(lancedb_cpp.connect(uri)) == []
    assert first.count_rows() == second.count_rows() == pair[0].count_rows()
    ids = sorted(first.to_arrow()["row_id"].to_pylist())
    assert ids == sorted(second.to_arrow()["row_id"].to_pylist()) and len(set(ids)) == len(ids)


# ---- Bad input -------------------------------------------------------------------------------


BAD_BUILDS = {
    "ratios sum > 1": lambda b: b.split_random(ratios=[0.7, 0.4]),
    "negative ratio": lambda b: b.split_random(ratios=[-0.1, 0.5]),
    "ratio > 1": lambda b: b.split_sequential(ratios=[1.5]),
    "ratio rounds to 0": lambda b: b.split_random(ratios=[0.001]),
    "ratio of no rows": lambda b: b.filter("id > 1000").split_random(ratios=[0.5]),
    "counts > rows": lambda b: b.split_random(counts=[150, 100]),
    "zero count": lambda b: b.split_sequential(counts=[0, 10]),
    "negative count": lambda b: b.split_random(counts=[-1, 10]),
    "fixed > rows": lambda b: b.split_random(fixed=300),
    "negative fixed": lambda b: b.split_sequential(fixed=-2),
    "no sizes": lambda b: b.split_random(),
    "two sizes": lambda b: b.split_sequential(ratios=[0.5], counts=[3]),
    "negative seed": lambda b: b.split_random(ratios=[0.5], seed=-1),
    "negative shuffle seed": lambda b: b.shuffle(seed=-3),
    "ratio not a number": lambda b: b.split_random(ratios=["a"]),
    "names not a list": lambda b: b.split_random(ratios=[0.5], split_names="ab"),
    "no hash columns": lambda b: b.split_hash([], [1, 2], discard_weight=0),
    "no hash weights": lambda b: b.split_hash(["id"], [], discard_weight=0),
    "zero hash weight": lambda b: b.split_hash(["id"], [0, 1], discard_weight=0),
    "negative hash weight": lambda b: b.split_hash(["id"], [-1, 1], discard_weight=0),
}


@pytest.mark.parametrize("name", list(BAD_BUILDS))
def test_bad_builds_fail_as_lancedb_and_write_nothing(pair, name):
    configure = BAD_BUILDS[name]
    outcomes = []
    for module, table in zip((ours, their), pair):
        version, names = table.version, _table_names(table._conn)
        outcomes.append(_outcome(lambda: configure(module.permutation_builder(table)).execute()))
        assert (table.version, _table_names(table._conn)) == (version, names)
    assert outcomes[0][0] != "ok"
    assert outcomes[0] == outcomes[1]


def test_bad_input_lancedb_does_not_reject_cleanly(pair):
    """Where LanceDB panics or passes nonsense on, lancedb_cpp raises a clear error."""
    table = pair[0]
    cases = {
        "Split fixed config must specify at least 1 split": lambda b: b.split_random(fixed=0),
        "clump size must be greater than 0": lambda b: b.split_random(ratios=[0.5],
                                                                      clump_size=0),
        "clump size must be greater than 0 ": lambda b: b.shuffle(clump_size=0),
    }  # fmt: skip
    for message, configure in cases.items():
        with pytest.raises(ValueError, match=f"Invalid input, {message.strip()}"):
            configure(ours.permutation_builder(table)).execute()
    with pytest.raises(ValueError, match="Column 'nope' not found"):
        ours.permutation_builder(table).split_hash(["nope"], [1, 1]).execute()
    with pytest.raises(ValueError, match="Column 'nope' not found"):
        ours.permutation_builder(table).filter("nope > 1").execute()
    with pytest.raises(ValueError, match="Syntax error"):
        ours.permutation_builder(table).split_calculated("id +* 1").execute()
    builder = ours.permutation_builder(table)
    builder.execute()
    with pytest.raises(RuntimeError, match="Builder already consumed"):
        builder.execute()
    with pytest.raises(RuntimeError, match="Builder already consumed"):
        builder.shuffle()
    with pytest.raises(RuntimeError, match="does not appear to be a Table"):
        ours.permutation_builder("not a table")


def test_bad_reads_fail_as_lancedb(pair):
    outcomes = []
    for module, table in zip((ours, their), pair):
        perm = module.permutation_builder(table).split_sequential(
            counts=[5, 7], split_names=["train", "test"]
        ).execute()  # fmt: skip
        unnamed = module.permutation_builder(table).execute()
        p = module.Permutation.from_tables(table, perm, "train")
        P = module.Permutation
        outcomes.append([
            _outcome(lambda: P.from_tables(table, perm, 5)),
            _outcome(lambda: P.from_tables(table, perm, -1)),
            _outcome(lambda: P.from_tables(table, perm, 1.0)),
            _outcome(lambda: P.from_tables(table, perm, "nope")),
            _outcome(lambda: P.from_tables(table, unnamed, "train")),
            _outcome(lambda: module.Permutations(table, perm)["nope"]),
            _outcome(lambda: module.Permutations(table, perm)[1.5]),
            _outcome(lambda: module.Permutations(table, unnamed).split_names),
            _outcome(lambda: p.with_skip(6)),
            _outcome(lambda: p.with_take(6)),
            _outcome(lambda: p.with_skip(2).with_take(4)),
            _outcome(lambda: p.with_skip(-1)),
            _outcome(lambda: p.take_offsets([-1])),
            _outcome(lambda: p.remove_columns(["id", "group", "score", "vector"])),
            _outcome(lambda: p.rename_column("id", "score")),
            _outcome(lambda: p.rename_column("nope", "x")),
            _outcome(lambda: p.select_columns(["nope"])),
            _outcome(lambda: p.select_columns([])),
            _outcome(lambda: p.with_format("bad")),
            _outcome(lambda: p._with_selection({"_rowid": "id"}).take_offsets([0])),
        ])  # fmt: skip
    for i, (a, b) in enumerate(zip(*outcomes)):
        assert a == b, f"case {i}: {a} != {b}"


def test_bad_reads_lancedb_does_not_reject_cleanly(pair):
    table = pair[0]
    perm = ours.permutation_builder(table).split_sequential(counts=[5]).execute()
    p = ours.Permutation.from_tables(table, perm)
    with pytest.raises(ValueError, match="Offset 5 is out of range; this permutation exposes 5"):
        p.take_offsets([1, 5])  # LanceDB: an internal error
    with pytest.raises(ValueError, match="Offset 200 is out of range"):
        ours.Permutation.identity(table).take_offsets([200])  # LanceDB: no rows, no error
    with pytest.raises(ValueError, match="batch_size must be greater than 0"):
        list(p.iter(0))
    assert list(p.with_skip(5).iter(2)) == []  # LanceDB: "Permutation was empty"
    with pytest.raises(ValueError, match="Cannot create a permutation on split `1` because no"):
        ours.Permutation.from_tables(table, None, 1)
    not_a_permutation = lancedb_cpp.connect("memory://not-a-permutation").create_table(
        "p", pa.table({"row_id": pa.array([0], pa.uint64())})
    )
    with pytest.raises(ValueError, match="must contain a column named split_id"):
        ours.Permutation.from_tables(table, not_a_permutation)
