# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Writes with a subset of the columns and NULLs against non-nullable columns, compared with the
installed lancedb on the same data: merge_insert with a subset of the table's columns (updated
rows keep their other values, inserted rows get NULLs), add without a non-nullable column, and
NULLs in a non-nullable column (refused, nothing written)."""

import lancedb
import pyarrow as pa
import pytest

import lancedb_cpp


def outcome(call):
    try:
        call()
        return ("ok",)
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        # Lance's messages end with the Rust source location of the check
        return (type(e).__name__, str(e).split(", location: ")[0].split(", /root")[0])


def merge_table(mod, path):
    data = pa.table({"id": range(4), "a": [1.0, 2.0, 3.0, 4.0], "c": ["x"] * 4})
    return mod.connect(path).create_table("t", data)


MERGES = {
    "update_and_insert": lambda t: t.merge_insert("id").when_matched_update_all()
    .when_not_matched_insert_all().execute(pa.table({"id": [2, 3, 7], "c": ["y", "y", "z"]})),
    "update_only": lambda t: t.merge_insert("id").when_matched_update_all()
    .execute(pa.table({"id": [0, 9], "a": [10.0, 90.0]})),
    "insert_only": lambda t: t.merge_insert("id").when_not_matched_insert_all()
    .execute(pa.table({"id": [1, 8], "a": [0.5, 8.5]})),
    "columns_reordered": lambda t: t.merge_insert("id").when_matched_update_all()
    .when_not_matched_insert_all().execute(pa.table({"c": ["q", "r"], "id": [1, 5]})),
    "rows_input": lambda t: t.merge_insert("id").when_matched_update_all()
    .when_not_matched_insert_all().execute([{"id": 3, "c": "w"}, {"id": 6, "c": "v"}]),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(MERGES))
def test_merge_insert_with_a_subset_of_columns_as_lancedb(tmp_path, case):
    def run(mod):
        t = merge_table(mod, tmp_path / mod.__name__)
        result = MERGES[case](t)
        counts = (result.num_updated_rows, result.num_inserted_rows, result.num_deleted_rows)
        return counts, t.to_arrow().sort_by("id").to_pylist(), t.version, t.schema

    got, want = run(lancedb_cpp), run(lancedb)
    assert got == want
    assert want[2] == 2


def test_merge_insert_subset_keeps_values_through_a_scalar_index(tmp_path):
    """Repeated partial updates of string-keyed rows found through a BTREE on the key."""

    def run(mod):
        def batch(start):
            return pa.table({
                "id": [f"id-{i:04}" for i in range(start, start + 50)],
                "category": ["A"] * 50,
                "value": [float(i) for i in range(start, start + 50)],
            })  # fmt: skip

        t = mod.connect(tmp_path / mod.__name__).create_table("t", batch(0))
        t.add(batch(50))
        t.create_index("id", config=mod.index.BTree())
        ids = [f"id-{i:04}" for i in range(25, 75)]
        updated = []
        for value in (999.0, 888.0):
            r = t.merge_insert("id").when_matched_update_all().execute(
                pa.table({"id": ids, "value": [value] * 50})
            )
            updated.append(r.num_updated_rows)
        return updated, t.to_arrow().sort_by("id").to_pylist()

    got, want = run(lancedb_cpp), run(lancedb)
    assert got == want
    assert want[0] == [50, 50]


def test_merge_insert_without_the_key_is_refused(tmp_path):
    for mod in (lancedb_cpp, lancedb):
        t = merge_table(mod, tmp_path / mod.__name__)
        with pytest.raises(ValueError):
            t.merge_insert("id").when_matched_update_all().execute(pa.table({"c": ["z"]}))
        assert t.version == 1


SCHEMA = pa.schema([
    pa.field("vector", pa.list_(pa.float32(), 2), nullable=True),
    pa.field("item", pa.string(), nullable=True),
    pa.field("price", pa.float64(), nullable=False),
])  # fmt: skip
NULLABLE = pa.schema([pa.field(f.name, f.type, nullable=True) for f in SCHEMA])

ADDS = {
    "without_nullable_columns": lambda t: t.add([{"price": 10.0}]),
    "without_a_non_nullable_column": lambda t: t.add([{"item": "foo"}]),
    "null_in_non_nullable_column": lambda t: t.add(
        pa.table({"vector": [[1.0, 2.0]], "item": ["a"], "price": [None]}, schema=NULLABLE)
    ),
    "nullable_schema_without_nulls": lambda t: t.add(
        pa.table({"vector": [[1.0, 2.0]], "item": ["a"], "price": [1.5]}, schema=NULLABLE)
    ),
}


@pytest.mark.parametrize("case", sorted(ADDS))
def test_add_and_nullability_as_lancedb(tmp_path, case):
    def run(mod):
        t = mod.connect(tmp_path / mod.__name__).create_table("t", schema=SCHEMA)
        result = outcome(lambda: ADDS[case](t))
        return result, t.to_arrow().to_pylist(), t.version

    got, want = run(lancedb_cpp), run(lancedb)
    if want[0][0] == "ValueError":  # LanceDB prefixes Lance's message with "Invalid input, "
        assert got[0][0] == "ValueError" and want[0][1].endswith(got[0][1])
        assert got[1:] == want[1:]
    else:
        assert got == want
    assert (want[0] == ("ok",)) == (case in ("without_nullable_columns",
                                             "nullable_schema_without_nulls"))  # fmt: skip


def test_alter_columns_commits_one_version_as_lancedb(tmp_path):
    """A type change together with renames and nullability is one commit, as in LanceDB."""

    def run(mod):
        data = pa.table({"id": pa.array([0, 1], pa.int64()), "x": [1.5, 2.5]})
        t = mod.connect(tmp_path / mod.__name__).create_table("t", data)
        versions = [
            t.alter_columns({"path": "id", "rename": "new_id"}).version,
            t.alter_columns(dict(path="new_id", data_type=pa.int16(), nullable=True)).version,
            t.alter_columns(dict(path="x", data_type=pa.float32(), rename="y"),
                            dict(path="new_id", rename="k")).version,  # fmt: skip
        ]
        return versions, t.schema, t.to_arrow().to_pylist(), t.version

    got, want = run(lancedb_cpp), run(lancedb)
    assert got == want
    assert want[0] == [2, 3, 4]


@pytest.mark.parametrize("timeout", ["zero", "one_microsecond", "a_minute"])
def test_merge_insert_timeout_as_lancedb(tmp_path, timeout):
    """An explicit timeout bounds the whole merge; one that runs out commits nothing."""
    from datetime import timedelta

    value = {"zero": timedelta(0), "one_microsecond": timedelta(microseconds=1),
             "a_minute": timedelta(minutes=1)}[timeout]  # fmt: skip

    def run(mod):
        t = merge_table(mod, tmp_path / mod.__name__)
        result = outcome(lambda: t.merge_insert("id").when_matched_update_all()
                         .execute(pa.table({"id": [1], "a": [9.0], "c": ["q"]}), timeout=value))  # fmt: skip
        return result, t.version, t.to_arrow().sort_by("id").to_pylist()

    got, want = run(lancedb_cpp), run(lancedb)
    assert got == want
    assert (want[0] == ("ok",)) == (timeout == "a_minute")


def test_merge_insert_conditions_as_expressions_as_lancedb(tmp_path):
    def run(mod):
        from importlib import import_module

        expr = import_module(mod.__name__ + ".expr")
        t = merge_table(mod, tmp_path / mod.__name__)
        r = (t.merge_insert("id").when_matched_update_all()
             .when_not_matched_insert_all()
             .when_not_matched_by_source_delete(expr.col("id") > expr.lit(2))
             .execute(pa.table({"id": [1, 8], "a": [0.5, 8.5], "c": ["p", "q"]})))  # fmt: skip
        counts = (r.num_updated_rows, r.num_inserted_rows, r.num_deleted_rows)
        return counts, t.to_arrow().sort_by("id").to_pylist()

    got, want = run(lancedb_cpp), run(lancedb)
    assert got == want
    assert want[0] == (1, 1, 1)
