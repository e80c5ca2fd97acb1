# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Materialized views: creation, refresh modes, the differential contract (after every source
operation the refreshed view equals its definition evaluated over the source, in the refresh
mode LanceDB uses), concurrent refreshes and the failure contracts. The real `lancedb` is the
oracle for modes, results and errors."""

from __future__ import annotations

import asyncio
import json
import threading

import lancedb
import pyarrow as pa
import pytest

import lancedb_cpp
from lancedb_cpp import _native
from lancedb_cpp.exceptions import CommitConflictError
from lancedb_cpp.materialized_view import RefreshMaterializedViewResult

STABLE = {"new_table_enable_stable_row_ids": "true"}


def _connect(module, path):
    return module.connect(str(path), storage_options=STABLE)


def _rows(start, n):
    return [{"id": i, "v": (i * 7) % 50, "s": f"r{i}"} for i in range(start, start + n)]


def _direct(source, definition):
    """The definition evaluated over the source: its rows with their source row ids."""
    q = source.search().select(dict(definition.projections)).with_row_id(True)
    if definition.filter is not None:
        q = q.where(definition.filter)
    q = q.limit(definition.limit)
    got = q.to_arrow()
    return got.rename_columns(
        ["__source_row_id" if n == "_rowid" else n for n in got.column_names]
    )


def _sorted(table):
    return table.sort_by("__source_row_id").to_pylist()


def _result(r):
    return (r.mode, r.rows_written, r.source_version)


def test_doc_example_matches_lancedb(tmp_path):
    out = {}
    for name, module in (("real", lancedb), ("ours", lancedb_cpp)):
        db = _connect(module, tmp_path / name)
        db.create_table("people", [{"name": "ada", "age": 36}, {"name": "kid", "age": 7}])
        view = db.create_materialized_view(
            "adults", "people", select=["name", ("shout", "upper(name)")], where="age >= 18"
        )
        first = view.refresh()
        again = view.refresh()
        out[name] = (
            repr(view), view.definition.__dict__, view.table.schema.remove_metadata(),
            _result(first), _result(again), view.table.to_arrow().to_pylist(),
            sorted(k for k in view.table.schema.metadata), db.list_materialized_views(),
        )  # fmt: skip
    assert out["ours"] == out["real"]
    assert out["ours"][3] == ("rebuild", 1, 1) and out["ours"][4] == ("no_op", 0, 1)


def test_metadata_holds_definition_and_source_version(tmp_path):
    db = _connect(lancedb_cpp, tmp_path)
    db.create_table("s", _rows(0, 5))
    view = db.create_materialized_view("v", "s", where="v > 10", limit=3)
    meta = view.table.schema.metadata
    assert json.loads(meta[b"mv.definition"]) == {
        "filter": "v > 10", "inputs": ["id", "s", "v"], "kind": "select", "limit": 3,
        "projections": [{"expression": "`id`", "output": "id"},
                        {"expression": "`v`", "output": "v"},
                        {"expression": "`s`", "output": "s"}],
        "source_table": "s",
    }  # fmt: skip
    assert b"mv.source_version" not in meta
    result = view.refresh()
    meta = view.table.schema.metadata
    assert meta[b"mv.source_version"] == b"1"
    assert int(meta[b"mv.refreshed_at_ms"]) > 0
    assert meta[b"mv.view_version"] == str(result.version).encode()
    assert result.version == view.table.version
    assert view.table.schema.field("__source_row_id").type == pa.uint64()
    assert not view.table.schema.field("__source_row_id").nullable


# Three view shapes x seven source operations, each refreshed and checked after every step.
SHAPES = {
    "projection": dict(select=["id", ("v2", "v * 2"), "s"]),
    "filter": dict(select=["id", "v"], where="v >= 20"),
    "filter_limit": dict(select=["id", ("label", "upper(s)")], where="v >= 20", limit=6),
}


def _operations(version_after_update):
    def merge(t):
        new = pa.table({"id": [1, 2, 3, 100, 101], "v": [45, 1, 30, 40, 5],
                        "s": ["m1", "m2", "m3", "m100", "m101"]})  # fmt: skip
        t.merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(new)

    return [
        ("append", lambda t: t.add(_rows(30, 10))),
        ("update", lambda t: t.update(where="id % 3 = 0", values={"v": 25})),
        ("delete", lambda t: t.delete("id % 5 = 1")),
        ("merge_insert", merge),
        ("compaction", lambda t: t.optimize()),
        ("add_column", lambda t: t.add_columns({"w": "v + 1"})),
        ("restore", lambda t: t.restore(version_after_update[0])),
    ]


def _run_shape(module, path, shape):
    db = _connect(module, path)
    source = db.create_table("src", _rows(0, 10))
    source.add(_rows(10, 10))  # two fragments
    view = db.create_materialized_view("view", "src", **SHAPES[shape])
    steps = [("create", _result(view.refresh()), _sorted(view.table.to_arrow()),
              _sorted(_direct(source, view.definition)))]  # fmt: skip
    after_update = [None]
    for name, op in _operations(after_update):
        op(source)
        if name == "update":
            after_update[0] = source.version
        result = view.refresh()
        assert result.version == view.table.version
        steps.append((name, _result(result), _sorted(view.table.to_arrow()),
                      _sorted(_direct(source, view.definition))))  # fmt: skip
    return steps


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_differential_refresh_after_each_operation(tmp_path, shape):
    ours = _run_shape(lancedb_cpp, tmp_path / "ours", shape)
    real = _run_shape(lancedb, tmp_path / "real", shape)
    for (name, result, view_rows, direct_rows), (_, real_result, _, _) in zip(ours, real):
        assert view_rows == direct_rows, name
        # The mode and rows written are LanceDB's; the source versions follow each engine's
        # own history (their optimize commits differently).
        assert result[:2] == real_result[:2], name
    modes = [result[0] for _, result, _, _ in ours]
    if shape == "filter_limit":
        assert modes == ["rebuild", "incremental", "rebuild", "rebuild", "rebuild",
                         "incremental", "incremental", "rebuild"]  # fmt: skip
    else:
        assert modes == ["rebuild"] + ["incremental"] * 6 + ["rebuild"]


def test_incremental_refresh_recomputes_only_changed_rows(tmp_path):
    db = _connect(lancedb_cpp, tmp_path)
    source = db.create_table("s", _rows(0, 100))
    view = db.create_materialized_view("v", "s", select=["id", "v"])
    view.refresh()
    source.update(where="id < 3", values={"v": 99})
    source.delete("id >= 97")
    source.add(_rows(100, 2))
    changed = _native.changed_rows(source._inner, 1, source.version)
    import numpy as np

    inserted, updated, deleted = (np.frombuffer(b, dtype=np.uint64).tolist() for b in changed[:3])
    assert (inserted, updated, deleted, changed[3]) == ([100, 101], [0, 1, 2], [97, 98, 99], "")
    result = view.refresh()
    assert (result.mode, result.rows_written) == ("incremental", 5)
    assert _sorted(view.table.to_arrow()) == _sorted(_direct(source, view.definition))


def test_full_and_source_version(tmp_path):
    db = _connect(lancedb_cpp, tmp_path)
    source = db.create_table("s", _rows(0, 10))
    view = db.create_materialized_view("v", "s", where="v >= 20")
    view.refresh()
    source.add(_rows(10, 10))
    assert view.refresh(full=True).mode == "rebuild"
    assert view.refresh(full=True).mode == "rebuild"  # forced even with nothing new
    back = view.refresh(source_version=1)
    assert (back.mode, back.source_version) == ("rebuild", 1)
    source.checkout(1)
    assert _sorted(view.table.to_arrow()) == _sorted(_direct(source, view.definition))
    source.checkout_latest()
    forward = view.refresh()
    assert (forward.mode, forward.source_version) == ("incremental", 2)
    assert view.refresh(source_version=2).mode == "no_op"


def test_view_is_an_ordinary_table(tmp_path):
    db = _connect(lancedb_cpp, tmp_path)
    db.create_table("s", _rows(0, 50))
    view = db.create_materialized_view("v", "s", select=["id", "v"], where="v > 10")
    view.refresh()
    view.table.create_scalar_index("id")
    assert view.table.search().where("id = 12").to_arrow()["v"].to_pylist() == [34]
    assert "v" in db.table_names()
    db.open_table("s").add(_rows(50, 5))
    # Any commit on the view since its last refresh (this index) is drift: LanceDB rebuilds.
    assert view.refresh().mode == "rebuild"
    assert view.table.count_rows("id >= 50") == 3  # v = 14, 21, 28
    assert [i["name"] for i in view.table.list_indices()] == ["id_idx"]
    assert view.table.search().where("id = 12").to_arrow()["v"].to_pylist() == [34]
    db.open_table("s").add(_rows(60, 5))
    assert view.refresh().mode == "incremental"


def _drift_and_dropped_input(module, path):
    db = _connect(module, path)
    source = db.create_table("s", _rows(0, 20))
    view = db.create_materialized_view("v", "s", select=["id", "v"], where="v > 3")
    out = [_result(view.refresh())]
    view.table.create_scalar_index("id")
    out.append(_result(view.refresh()))  # drift, nothing new in the source: rebuild
    source.add(_rows(20, 3))
    out.append(_result(view.refresh()))
    view.table.add([{"id": 999, "v": 9, "__source_row_id": 12345}])
    out.append(_result(view.refresh()))  # a manual write is drift too
    out.append(view.table.count_rows("id = 999"))
    source.alter_columns({"path": "v", "rename": "vv"})
    with pytest.raises(ValueError) as info:
        view.refresh()
    out.append(str(info.value))
    return out


def test_view_drift_and_dropped_input_as_lancedb(tmp_path):
    ours = _drift_and_dropped_input(lancedb_cpp, tmp_path / "ours")
    real = _drift_and_dropped_input(lancedb, tmp_path / "real")
    assert [r[:2] if isinstance(r, tuple) else r for r in ours] == [
        r[:2] if isinstance(r, tuple) else r for r in real]  # fmt: skip
    assert [r[0] for r in ours[:4]] == ["rebuild", "rebuild", "incremental", "rebuild"]


def test_open_and_list(tmp_path):
    db = _connect(lancedb_cpp, tmp_path)
    db.create_table("s", _rows(0, 3))
    db.create_materialized_view("v1", "s")
    db.create_materialized_view("v2", "v1", select=["id"])  # a view over a view
    assert db.list_materialized_views() == ["v1", "v2"]
    opened = db.open_materialized_view("v1")
    assert opened.definition.source_table == "s"
    assert opened.refresh().rows_written == 3
    assert db.open_materialized_view("v2").refresh().rows_written == 3
    with pytest.raises(ValueError, match="Table 's' is not a materialized view"):
        db.open_materialized_view("s")
    with pytest.raises(ValueError, match="nothere"):
        db.open_materialized_view("nothere")


def test_concurrent_refreshes_one_commits(tmp_path, monkeypatch):
    db = _connect(lancedb_cpp, tmp_path)
    source = db.create_table("s", _rows(0, 20))
    view = db.create_materialized_view("v", "s", where="v >= 10")
    view.refresh()
    source.add(_rows(20, 20))
    source.delete("id < 5")
    # Both refreshes plan against the same view version before either commits.
    barrier = threading.Barrier(2)
    replace = _native.replace_rows

    def racing_replace(*args):
        barrier.wait(timeout=30)
        return replace(*args)

    monkeypatch.setattr(_native, "replace_rows", racing_replace)
    outcomes = []

    def run():
        handle = db.open_materialized_view("v")
        try:
            outcomes.append(handle.refresh())
        except CommitConflictError as e:
            outcomes.append(e)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    results = [o for o in outcomes if isinstance(o, RefreshMaterializedViewResult)]
    errors = [o for o in outcomes if isinstance(o, CommitConflictError)]
    assert len(results) == 1 and len(errors) == 1
    assert "conflicts with a concurrent write" in str(errors[0])
    assert isinstance(errors[0], OSError)
    monkeypatch.setattr(_native, "replace_rows", replace)
    view.table.checkout_latest()
    rows = view.table.to_arrow()
    assert len(set(rows["__source_row_id"].to_pylist())) == rows.num_rows
    assert _sorted(rows) == _sorted(_direct(source, view.definition))
    assert view.table.version == results[0].version
    # The loser finds nothing left to do when it tries again.
    assert view.refresh().mode == "no_op"


def test_concurrent_refreshes_without_a_forced_race(tmp_path):
    db = _connect(lancedb_cpp, tmp_path)
    source = db.create_table("s", _rows(0, 200))
    view = db.create_materialized_view("v", "s", where="v >= 10")
    view.refresh()
    for round_ in range(3):
        source.add(_rows(1000 + round_ * 100, 100))
        outcomes = []

        def run():
            try:
                outcomes.append(db.open_materialized_view("v").refresh().mode)
            except CommitConflictError:
                outcomes.append("conflict")

        threads = [threading.Thread(target=run) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(outcomes) in (["conflict", "incremental"], ["incremental", "no_op"])
        view.table.checkout_latest()
        assert _sorted(view.table.to_arrow()) == _sorted(_direct(source, view.definition))


def _errors(module, path):
    db = _connect(module, path)
    db.create_table("s", _rows(0, 5))
    plain = module.connect(str(path))
    plain.create_table("plain", [{"a": 1}], storage_options={
        "new_table_enable_stable_row_ids": "false"})  # fmt: skip
    calls = {
        "no stable ids": lambda: db.create_materialized_view("x", "plain"),
        "missing source": lambda: db.create_materialized_view("x", "missing"),
        "unknown filter column": lambda: db.create_materialized_view("x", "s", where="nope > 1"),
        "bad filter": lambda: db.create_materialized_view("x", "s", where="v >>> 1"),
        "unknown select column": lambda: db.create_materialized_view("x", "s", select=["nope"]),
        "bad select": lambda: db.create_materialized_view("x", "s", select=[("a", "v +* 2")]),
        "limit too large": lambda: db.create_materialized_view("x", "s", limit=2**63),
        "negative limit": lambda: db.create_materialized_view("x", "s", limit=-1),
        "reserved name": lambda: db.create_materialized_view(
            "x", "s", select=[("__source_row_id", "v")]),
        "duplicate column": lambda: db.create_materialized_view(
            "x", "s", select=[("a", "v"), ("a", "id")]),
        "name taken": lambda: db.create_materialized_view("s", "s"),
    }  # fmt: skip
    out = {}
    for what, call in calls.items():
        with pytest.raises(Exception) as info:
            call()
        out[what] = (type(info.value), str(info.value))
    return out, sorted(db.table_names())


def test_failures_raise_as_lancedb_and_write_nothing(tmp_path):
    ours, our_tables = _errors(lancedb_cpp, tmp_path / "ours")
    real, real_tables = _errors(lancedb, tmp_path / "real")
    assert our_tables == real_tables == ["plain", "s"]
    for what in ours:
        assert ours[what][0] is real[what][0], what
    for what in ("no stable ids", "missing source", "limit too large", "reserved name",
                 "duplicate column", "name taken"):  # fmt: skip
        assert ours[what][1] == real[what][1], what
    assert ours["unknown filter column"][1].startswith("Invalid input, invalid view filter: ")
    assert "nope" in ours["unknown filter column"][1]
    assert ours["bad filter"][1].startswith("Invalid input, invalid view filter: ")
    assert ours["unknown select column"][1].startswith("Invalid expression for column 'nope': ")
    assert ours["bad select"][1].startswith("Invalid expression for column 'a': ")
    assert "negative" in ours["negative limit"][1]


def test_largest_limit_is_accepted(tmp_path):
    db = _connect(lancedb_cpp, tmp_path)
    db.create_table("s", _rows(0, 4))
    view = db.create_materialized_view("x", "s", limit=2**63 - 1)
    assert view.definition.limit == 2**63 - 1
    assert view.refresh().rows_written == 4


def test_refresh_to_missing_source_version_writes_nothing(tmp_path):
    db = _connect(lancedb_cpp, tmp_path)
    db.create_table("s", _rows(0, 4))
    view = db.create_materialized_view("x", "s")
    before = view.table.version
    with pytest.raises(RuntimeError, match="999"):  # as LanceDB
        view.refresh(source_version=999)
    with pytest.raises(OverflowError):
        view.refresh(source_version=-1)
    assert view.table.version == before and view.table.count_rows() == 0


def test_async_views(tmp_path):
    async def main():
        db = await lancedb_cpp.connect_async(str(tmp_path), storage_options=STABLE)
        source = await db.create_table("s", _rows(0, 10))
        view = await db.create_materialized_view("v", "s", select=["id"], where="v >= 20")
        assert repr(view) == "AsyncMaterializedView(name='v')"
        assert (await view.definition()).filter == "v >= 20"
        first = await view.refresh()
        await source.add(_rows(10, 5))
        second = await view.refresh()
        opened = await db.open_materialized_view("v")
        return (first.mode, second.mode, await db.list_materialized_views(),
                await opened.table.count_rows(), (await view.refresh()).mode)  # fmt: skip

    mode1, mode2, names, rows, mode3 = asyncio.run(main())
    assert (mode1, mode2, names, mode3) == ("rebuild", "incremental", ["v"], "no_op")
    direct = [r for r in _rows(0, 15) if r["v"] >= 20]
    assert rows == len(direct)


def test_views_refresh_across_engines(tmp_path):
    """Each engine continues incrementally from the other's refresh (same metadata)."""
    for creator, other in ((lancedb, lancedb_cpp), (lancedb_cpp, lancedb)):
        path = tmp_path / creator.__name__
        db = _connect(creator, path)
        source = db.create_table("s", _rows(0, 20))
        view = db.create_materialized_view("v", "s", select=["id", ("x", "v * 2")], where="v > 3")
        assert view.refresh().mode == "rebuild"
        source.add(_rows(20, 10))
        source.update(where="id = 5", values={"v": 0})
        theirs = _connect(other, path).open_materialized_view("v")
        assert theirs.refresh().mode == "incremental"
        source.delete("id = 6")
        view = db.open_materialized_view("v")
        assert view.refresh().mode == "incremental"
        assert theirs.refresh().mode == "no_op"
        assert _sorted(view.table.to_arrow()) == _sorted(_direct(source, view.definition))


def test_view_without_stable_row_ids_of_its_own(tmp_path):
    """Only the source needs stable row ids; the view table may have plain row addresses."""
    db = lancedb_cpp.connect(str(tmp_path))
    source = db.create_table("s", _rows(0, 30), storage_options=STABLE)
    view = db.create_materialized_view("v", "s", select=["id", "v"], where="v >= 20")
    assert view.refresh().mode == "rebuild"
    source.update(where="id < 10", values={"v": 21})
    source.delete("id > 25")
    source.add(_rows(30, 5))
    result = view.refresh()
    assert result.mode == "incremental"
    assert _sorted(view.table.to_arrow()) == _sorted(_direct(source, view.definition))
    assert view.refresh(full=True).mode == "rebuild"
    assert _sorted(view.table.to_arrow()) == _sorted(_direct(source, view.definition))


def test_definition_inputs_as_lancedb(tmp_path):
    cases = [
        dict(select=[("t", "concat(s, 'v')")]),
        dict(select={"a": "`id` + 1"}, where="s = 'id'"),
        dict(select=["s"], where="v > 3 AND id < 10"),
        dict(),
    ]
    for i, kwargs in enumerate(cases):
        got = []
        for name, module in (("real", lancedb), ("ours", lancedb_cpp)):
            db = _connect(module, tmp_path / f"{name}{i}")
            db.create_table("s", _rows(0, 3))
            got.append(db.create_materialized_view("v", "s", **kwargs).definition.__dict__)
        assert got[1] == got[0], kwargs


def test_refresh_with_strong_read_consistency(tmp_path):
    from datetime import timedelta

    db = lancedb_cpp.connect(str(tmp_path), storage_options=STABLE,
                             read_consistency_interval=timedelta(0))  # fmt: skip
    source = db.create_table("s", _rows(0, 20))
    view = db.create_materialized_view("v", "s", where="v > 10")
    assert view.refresh().mode == "rebuild"
    source.update(where="id < 4", values={"v": 40})
    source.add(_rows(20, 4))
    assert view.refresh().mode == "incremental"
    assert _sorted(view.table.to_arrow()) == _sorted(_direct(source, view.definition))


def test_tables_with_an_lsm_write_spec_are_refused_as_lancedb(tmp_path):
    """LanceDB refuses views, permutations and computed columns over a table with an LSM write
    spec (rows in its LSM tiers have no row id); lancedb_cpp reads such a table LanceDB made
    and refuses the same operations with the same errors, writing nothing."""
    import shutil

    from lancedb.permutation import permutation_builder as their_builder

    from lancedb_cpp.permutation import permutation_builder as our_builder

    db = _connect(lancedb, tmp_path / "real")
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.int64())])
    table = db.create_table("t", pa.table({"id": [0, 1, 2], "v": [5, 6, 7]}, schema=schema))
    db.create_materialized_view("mv", "t").refresh()
    table.set_unenforced_primary_key("id")
    table.set_lsm_write_spec(lancedb.LsmWriteSpec.unsharded())
    shutil.copytree(tmp_path / "real", tmp_path / "ours")
    outcomes = []
    for module, builder in ((lancedb, their_builder), (lancedb_cpp, our_builder)):
        db = _connect(module, tmp_path / ("real" if module is lancedb else "ours"))
        table = db.open_table("t")
        calls = [
            lambda: db.create_materialized_view("mv2", "t"),
            lambda: db.open_materialized_view("mv").refresh(),
            lambda: builder(table).execute(),
            lambda: table.add_columns(computed={"w": "v + 1"}),
        ]
        got = []
        for call in calls:
            with pytest.raises(NotImplementedError) as info:
                call()
            got.append(str(info.value))
        outcomes.append((got, sorted(db.table_names()), table.version, table.schema.names))
    assert outcomes[1] == outcomes[0]
    assert "LSM write spec" in outcomes[1][0][2]
