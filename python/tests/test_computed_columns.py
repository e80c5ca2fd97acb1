# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Computed columns: add_columns(computed=...) and refresh_column, with LanceDB 0.39 (the
installed ``lancedb``) as the oracle for results, metadata and errors."""

from __future__ import annotations

import asyncio

import lancedb
import pyarrow as pa
import pytest

import lancedb_cpp
from lancedb_cpp.functions import RefreshColumnResult as JobResult

COMPUTED_KEYS = {
    b"computed_column",
    b"computed_column.kind",
    b"computed_column.expression",
    b"computed_column.inputs",
    b"computed_refresh.source_signature",
}


def _both(tmp_path, data):
    ours = lancedb_cpp.connect(str(tmp_path / "ours")).create_table("t", data)
    theirs = lancedb.connect(str(tmp_path / "theirs")).create_table("t", data)
    return ours, theirs


def _sorted(table, key):
    return table.to_arrow().sort_by(key).to_pydict()


def test_declare_then_refresh_as_lancedb(tmp_path):
    ours, theirs = _both(tmp_path, [{"x": 1}, {"x": 2}])
    for t in (ours, theirs):
        assert repr(t.add_columns(computed={"doubled": "x * 2"})) == "AddColumnsResult(version=2)"
    assert ours.schema == theirs.schema
    assert _sorted(ours, "x") == _sorted(theirs, "x") == {"x": [1, 2], "doubled": [None, None]}
    md = ours.schema.field("doubled").metadata
    assert COMPUTED_KEYS <= set(md)
    assert {k: md[k] for k in COMPUTED_KEYS} == {
        k: theirs.schema.field("doubled").metadata[k] for k in COMPUTED_KEYS
    }
    assert md[b"computed_column.expression"] == b"x * 2"
    assert md[b"computed_column.inputs"] == b'["x"]'

    r_ours, r_theirs = ours.refresh_column("doubled"), theirs.refresh_column("doubled")
    assert repr(r_ours) == repr(r_theirs) == "RefreshColumnResult(rows_filled=2, version=4)"
    assert _sorted(ours, "x") == _sorted(theirs, "x") == {"x": [1, 2], "doubled": [2, 4]}
    # Nothing left to fill: no commit, the current version.
    assert repr(ours.refresh_column("doubled")) == repr(theirs.refresh_column("doubled"))
    assert ours.version == 4


def test_rows_added_later_are_filled_by_the_next_refresh(tmp_path):
    ours, theirs = _both(tmp_path, [{"x": 1}, {"x": 2}])
    for t in (ours, theirs):
        t.add_columns(computed={"d": "x * 2"})
        t.refresh_column("d")
        t.add([{"x": 5}, {"x": 6}])
        t.delete("x = 6")
    assert _sorted(ours, "x")["d"] == [2, 4, None]
    assert repr(ours.refresh_column("d")) == repr(theirs.refresh_column("d"))
    assert _sorted(ours, "x") == _sorted(theirs, "x") == {"x": [1, 2, 5], "d": [2, 4, 10]}


def test_null_result_stays_null_and_is_not_counted(tmp_path):
    data = pa.table({"x": pa.array([1, None, 3], pa.int64())})
    ours, theirs = _both(tmp_path, data)
    for t in (ours, theirs):
        t.add_columns(computed={"d": "x * 2"})
    assert repr(ours.refresh_column("d")) == repr(theirs.refresh_column("d"))
    assert ours.to_arrow()["d"].to_pylist() == [2, None, 6]
    assert ours.refresh_column("d").rows_filled == 0


def test_failing_row_is_counted_and_left_unfilled(tmp_path):
    # LanceDB 0.39 fails the whole local refresh here; lancedb_cpp fails only the bad rows.
    t = lancedb_cpp.connect(str(tmp_path)).create_table(
        "t", pa.table({"x": [1, 0, 4, 0], "s": ["1", "abc", "3", "4"]})
    )
    t.add_columns(computed={"q": "10 / x", "n": "CAST(s AS INT) + 1"})
    before = t.version
    result = t.refresh_column_async("q").wait()
    assert isinstance(result, JobResult)
    assert (result.rows_assigned, result.rows_failed, result.rows_remaining) == (2, 2, 2)
    assert result.source_version == before and result.published_version == before + 2
    assert t.to_arrow()["q"].to_pylist() == [10, None, 2, None]
    sync = t.refresh_column("n")
    assert repr(sync) == f"RefreshColumnResult(rows_filled=3, version={before + 4})"
    assert (sync.rows_assigned, sync.rows_failed, sync.rows_remaining) == (3, 1, 1)
    assert (sync.source_version, sync.published_version) == (before + 2, before + 4)
    assert t.to_arrow()["n"].to_pylist() == [2, None, 4, 5]
    # The failed rows are tried again (and fail again) by the next refresh.
    again = t.refresh_column_async("q").wait()
    assert (again.rows_assigned, again.rows_failed, again.published_version) == (0, 2, None)
    t.update(where="x = 0", values={"x": 5})
    assert t.refresh_column("q").rows_filled == 2
    assert sorted(t.to_arrow()["q"].to_pylist()) == [2, 2, 2, 10]


def test_expressions_read_earlier_computed_columns(tmp_path):
    ours, theirs = _both(tmp_path, [{"x": 1}, {"x": 2}])
    for t in (ours, theirs):
        t.add_columns(computed={"d": "x * 2", "e": "d + 1"})
    assert ours.schema == theirs.schema
    assert ours.schema.field("e").metadata[b"computed_column.inputs"] == b'["d"]'
    ours.refresh_column("e")
    assert ours.to_arrow()["e"].to_pylist() == [None, None]  # d is not filled yet
    ours.refresh_column("d")
    ours.refresh_column("e")
    assert _sorted(ours, "x") == {"x": [1, 2], "d": [2, 4], "e": [3, 5]}


def test_tables_stay_readable_by_lancedb(tmp_path):
    t = lancedb_cpp.connect(str(tmp_path)).create_table("t", [{"x": i} for i in range(5)])
    t.add_columns(computed={"d": "x * 3"})
    t.refresh_column("d")
    t.add([{"x": 10}])
    theirs = lancedb.connect(str(tmp_path)).open_table("t")
    assert _sorted(theirs, "x") == _sorted(t, "x")
    theirs.refresh_column("d")  # LanceDB recognizes the column as computed
    assert _sorted(theirs, "x")["d"] == [0, 3, 6, 9, 12, 30]


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda t: t.refresh_column("x"), RuntimeError, "Column 'x' is not a computed column"),
        (lambda t: t.refresh_column("nope"), RuntimeError, "Column 'nope' was not found"),
        (
            lambda t: t.refresh_column_async("x"),
            RuntimeError,
            "Column 'x' is not a computed column",
        ),
        (lambda t: t.refresh_column_async("nope"), RuntimeError, "Column 'nope' was not found"),
        (lambda t: t.add_columns(computed={"x": "1"}), RuntimeError, "Column 'x' already exists"),
        (
            lambda t: t.add_columns(computed={"y": "nope + 1"}),
            RuntimeError,
            "Invalid expression for column 'y'",
        ),
        (
            lambda t: t.add_columns(computed={"y": "x +"}),
            RuntimeError,
            "Invalid expression for column 'y'",
        ),
        (
            lambda t: t.add_columns({"a": "x"}, computed={"z": "x"}),
            ValueError,
            "add_columns cannot take both transforms and computed columns",
        ),
        (
            lambda t: t.add_columns(computed={}),
            ValueError,
            "add_columns requires transforms or computed columns",
        ),
        (lambda t: t.add_columns(computed={"y": 1}), TypeError, ""),
    ],
)
def test_bad_input_raises_as_lancedb_and_writes_nothing(tmp_path, call, error, message):
    ours, theirs = _both(tmp_path, [{"x": 1}, {"x": 2}])
    for t in (ours, theirs):
        with pytest.raises(error) as raised:
            call(t)
        assert message in str(raised.value)
    assert ours.version == theirs.version == 1
    assert ours.schema == theirs.schema


def test_computed_columns_are_refreshed_again_when_nulled(tmp_path):
    t = lancedb_cpp.connect(str(tmp_path)).create_table("t", [{"x": 1}, {"x": 2}])
    t.add_columns(computed={"d": "x * 2"})
    t.refresh_column("d")
    t.update(where="x = 1", values_sql={"d": "CAST(NULL AS BIGINT)"})
    assert t.refresh_column("d").rows_filled == 1
    assert _sorted(t, "x")["d"] == [2, 4]


def test_async_table_variants(tmp_path):
    async def run():
        db = await lancedb_cpp.connect_async(str(tmp_path))
        t = await db.create_table("t", [{"x": 1}, {"x": 2}])
        assert repr(await t.add_columns(computed={"d": "x * 2"})) == "AddColumnsResult(version=2)"
        assert repr(await t.refresh_column("d")) == "RefreshColumnResult(rows_filled=2, version=4)"
        await t.add([{"x": 3}])
        job = await t.refresh_column_async("d")
        result = await job.wait()
        assert (result.rows_assigned, result.source_version, result.published_version) == (1, 5, 7)
        assert await job.status() == "finished"
        with pytest.raises(RuntimeError, match="not a computed column"):
            await t.refresh_column_async("x")
        return (await t.to_arrow()).sort_by("x").to_pydict()

    assert asyncio.run(run()) == {"x": [1, 2, 3], "d": [2, 4, 6]}


def test_update_of_an_input_makes_the_row_refreshed_again(tmp_path):
    ours, theirs = _both(tmp_path, [{"x": 1, "y": 1}, {"x": 2, "y": 2}])
    for t in (ours, theirs):
        t.add_columns(computed={"d": "x * 2", "e": "d + 1"})
        t.refresh_column("d")
        t.refresh_column("e")
        t.update(where="x = 1", values={"x": 10})
    # Until the refresh LanceDB shows the stale values, lancedb_cpp NULL (unfilled).
    assert _sorted(ours, "y") == {"x": [10, 2], "y": [1, 2], "d": [None, 4], "e": [None, 5]}
    for column in ("d", "e"):
        assert repr(ours.refresh_column(column)) == repr(theirs.refresh_column(column))
    assert _sorted(ours, "y") == _sorted(theirs, "y") == {
        "x": [10, 2], "y": [1, 2], "d": [20, 4], "e": [21, 5]
    }  # fmt: skip
    # Changing a column no expression reads keeps the values.
    for t in (ours, theirs):
        t.update(where="x = 2", values={"y": 20})
    assert _sorted(ours, "y") == _sorted(theirs, "y")


@pytest.mark.parametrize(
    "change",
    [
        lambda t: t.drop_columns(["x"]),
        lambda t: t.drop_columns(["d"]),
        lambda t: t.drop_columns(["d", "e"]),
        lambda t: t.alter_columns({"path": "x", "rename": "z"}),
        lambda t: t.alter_columns({"path": "x", "data_type": pa.int32()}),
    ],
)
def test_inputs_of_computed_columns_cannot_be_dropped_renamed_or_retyped(tmp_path, change):
    ours, theirs = _both(tmp_path, [{"x": 1, "y": 1}])
    messages = []
    for t in (ours, theirs):
        t.add_columns(computed={"d": "x * 2", "e": "d + 1"})
        with pytest.raises(ValueError, match="is read by computed column") as raised:
            change(t)
        messages.append(str(raised.value))
    assert messages[0] == messages[1]
    assert ours.version == theirs.version == 2


def test_computed_columns_themselves_can_be_renamed_and_dropped(tmp_path):
    t = lancedb_cpp.connect(str(tmp_path)).create_table("t", [{"x": 1}])
    t.add_columns(computed={"d": "x * 2", "e": "d + 1"})
    t.alter_columns({"path": "e", "rename": "f"})
    t.refresh_column("d")
    assert t.refresh_column("f").rows_filled == 1
    t.drop_columns(["f"])
    t.drop_columns(["d"])
    assert t.schema.names == ["x"]


def test_writes_without_the_computed_columns_leave_them_unfilled(tmp_path):
    data = pa.table({"id": [1, 2], "n": pa.array([1, 2], pa.int64())})
    ours, theirs = _both(tmp_path, data)
    for t in (ours, theirs):
        t.add_columns(computed={"x": "id + 1"})
        t.refresh_column("x")
        t.merge_insert("id").when_not_matched_insert_all().execute(
            pa.table({"id": [4], "n": [5]})
        )
        t.add(pa.table({"id": [9], "n": [5]}))
        t.add([{"id": 10, "n": 5}])
    assert _sorted(ours, "id") == _sorted(theirs, "id")
    assert _sorted(ours, "id")["x"] == [2, 3, None, None, None]
    assert repr(ours.refresh_column("x")) == repr(theirs.refresh_column("x"))
    assert _sorted(ours, "id") == _sorted(theirs, "id")
    # As LanceDB: a merge_insert may leave out columns; its inserted rows get NULLs there.
    for t in (ours, theirs):
        t.merge_insert("id").when_not_matched_insert_all().execute(pa.table({"id": [11]}))
    assert _sorted(ours, "id") == _sorted(theirs, "id")
    assert _sorted(ours, "id")["n"][-1] is None


def test_refreshes_race_with_appends_and_updates(tmp_path):
    import threading

    db = lancedb_cpp.connect(str(tmp_path))
    t = db.create_table("t", pa.table({"x": pa.array(range(100), pa.int64())}))
    t.add_columns(computed={"d": "x * 2"})
    other = lancedb_cpp.connect(str(tmp_path)).open_table("t")
    errors = []

    def append(i):
        # An append does not rebase over the refresh's Merge commit (as over add_columns): it
        # fails with a retryable CommitConflictError, and is run again.
        while True:
            try:
                return other.add(pa.table({"x": pa.array([1000 + i], pa.int64())}))
            except lancedb_cpp.exceptions.CommitConflictError as error:
                assert error.retryable

    def write():
        try:
            for i in range(10):
                append(i)
                other.update(where=f"x = {i}", values={"x": 500 + i})
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    writer = threading.Thread(target=write)
    writer.start()
    results = [t.refresh_column("d") for _ in range(5)]
    writer.join()
    assert not errors
    t.refresh_column("d")
    rows = t.to_arrow().to_pydict()
    assert len(rows["x"]) == 110
    assert rows["d"] == [x * 2 for x in rows["x"]]
    assert all(r.rows_filled >= 0 for r in results)


def test_merge_insert_updates_keep_computed_values_as_lancedb(tmp_path):
    """A merge_insert whose data leaves out a computed column keeps the updated rows' computed
    values, as LanceDB does (they are refreshed by recomputing the column)."""
    data = pa.table({"id": [1, 2], "n": pa.array([1, 2], pa.int64())})
    ours, theirs = _both(tmp_path, data)
    for t in (ours, theirs):
        t.add_columns(computed={"x": "id + n"})
        t.refresh_column("x")
        t.merge_insert("id").when_matched_update_all().execute(pa.table({"id": [1], "n": [10]}))
    assert _sorted(ours, "id") == _sorted(theirs, "id") == {"id": [1, 2], "n": [10, 2], "x": [2, 4]}
