# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""The same inputs through lancedb (the oracle) and lancedb_cpp: same results, types, errors."""

import math
from datetime import datetime, timedelta

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import lancedb_cpp

INPUTS = {
    "scalars": [{"id": 1, "x": 1.5, "s": "a", "b": True}, {"id": 2, "x": 2.5, "s": None, "b": False}],
    "vector": [{"vector": [1.0, 2.0, 3.0], "id": 1}, {"vector": [4.0, 5.0, 6.0], "id": 2}],
    "embedding": [{"my_embedding": [1.0, 2.0], "id": 1}, {"my_embedding": [3.0, 4.0], "id": 2}],
    "int_vector": [{"vector": [1, 2], "id": 1}, {"vector": [3, 255], "id": 2}],
    "big_int_vector": [{"vector": [1, 2], "id": 1}, {"vector": [3, 1000], "id": 2}],
    "not_a_vector": [{"values": [1.0, 2.0]}, {"values": [3.0]}],
    "nested": [{"id": 1, "meta": {"a": 1, "b": "x"}}, {"id": 2, "meta": {"a": 2, "b": "y"}}],
    "ints_and_floats": [{"v": 1}, {"v": 2.5}],
    "lists_of_str": [{"tags": ["a", "b"]}, {"tags": []}],
}


def _pair(both, name, data, **kwargs):
    db, oracle = both
    ours = db.create_table(name, data, **kwargs)
    theirs = oracle.create_table(name, data, **kwargs)
    return ours, theirs


@pytest.mark.parametrize("case", sorted(INPUTS))
def test_schema_inference_matches_lancedb(both, case):
    ours, theirs = _pair(both, case, INPUTS[case])
    assert ours.schema == theirs.schema
    assert ours.to_arrow() == theirs.to_arrow()


def test_pandas_and_arrow_inputs_match(both):
    df = pd.DataFrame({"id": [1, 2, 3], "vector": [[1.0, 2.0]] * 3, "name": ["a", "b", "c"]})
    ours, theirs = _pair(both, "pd", df)
    assert ours.schema == theirs.schema
    assert ours.to_pandas().equals(theirs.to_pandas())
    table = pa.table({"id": pa.array([1, 2], pa.int32()), "f": pa.array([1.0, 2.0], pa.float32())})
    ours, theirs = _pair(both, "pa", table)
    assert ours.schema == theirs.schema == table.schema
    batches = table.to_batches()
    assert both[0].create_table("batches", iter(batches)).to_arrow() == table
    ours = both[0].create_table("reader", pa.RecordBatchReader.from_batches(table.schema, batches))
    theirs = both[1].create_table("reader", pa.RecordBatchReader.from_batches(table.schema, batches))
    assert ours.to_arrow() == theirs.to_arrow() == table
    ours, theirs = _pair(both, "batch", batches[0])
    assert ours.to_arrow() == theirs.to_arrow()


def test_create_with_schema_casts_like_lancedb(both):
    schema = pa.schema([("id", pa.int32()), ("vector", pa.list_(pa.float32(), 2))])
    data = [{"id": 1, "vector": [1, 2]}, {"id": 2, "vector": [3.5, 4.5]}]
    ours, theirs = _pair(both, "t", data, schema=schema)
    assert ours.schema == theirs.schema == schema
    assert ours.to_arrow() == theirs.to_arrow()
    ours, theirs = _pair(both, "empty", None, schema=schema)
    assert ours.schema == theirs.schema and len(ours) == len(theirs) == 0


@pytest.mark.parametrize("mode", ["drop", "fill", "null"])
def test_on_bad_vectors_matches_lancedb(both, mode):
    data = [
        {"vector": [1.0, 2.0], "id": 1},
        {"vector": [math.nan, 2.0], "id": 2},
        {"vector": [3.0], "id": 3},
        {"vector": [5.0, 6.0], "id": 4},
    ]
    ours, theirs = _pair(both, "t", data, on_bad_vectors=mode, fill_value=7.0)
    assert ours.schema == theirs.schema
    assert ours.to_arrow() == theirs.to_arrow()


@pytest.mark.parametrize(
    "data",
    [
        [{"vector": [1.0, 2.0]}, {"vector": [1.0]}],
        [{"vector": [1.0, math.nan]}],
    ],
    ids=["wrong_length", "nan"],
)
def test_bad_vectors_error_like_lancedb(both, data):
    db, oracle = both
    with pytest.raises(ValueError) as theirs:
        oracle.create_table("t", data)
    with pytest.raises(ValueError) as ours:
        db.create_table("t", data)
    assert str(ours.value) == str(theirs.value)
    assert db.list_tables().tables == []


def test_add_bad_vectors_writes_nothing(both):
    db, _ = both
    t = db.create_table("t", [{"vector": [1.0, 2.0], "id": 1}])
    with pytest.raises(ValueError, match="NaN"):
        t.add([{"vector": [math.nan, 1.0], "id": 2}])
    assert t.version == 1 and len(t) == 1
    t.add([{"vector": [math.nan, 1.0], "id": 2}], on_bad_vectors="drop")
    assert len(t) == 1


def test_bad_vector_in_a_late_batch_of_a_stream_writes_nothing(both, tmp_path):
    """Vectors are checked as the data streams in: a NaN in the last batch fails the write
    after earlier batches were written to data files, and still nothing is committed."""
    db, _ = both
    schema = pa.schema([("vector", pa.list_(pa.float32(), 2)), ("id", pa.int64())])
    good = [{"vector": [1.0, 2.0], "id": i} for i in range(100)]
    batches = [pa.RecordBatch.from_pylist(good, schema=schema) for _ in range(4)]
    batches.append(pa.RecordBatch.from_pylist(good + [{"vector": [math.nan, 1.0], "id": -1}],
                                              schema=schema))
    with pytest.raises(ValueError, match="NaN"):
        db.create_table("t", pa.RecordBatchReader.from_batches(schema, iter(batches)))
    assert db.list_tables().tables == []
    t = db.create_table("t", pa.Table.from_batches(batches[:1]))
    with pytest.raises(ValueError, match="NaN"):
        t.add(pa.RecordBatchReader.from_batches(schema, iter(batches)))
    assert t.version == 1 and len(t) == 100


def test_mismatched_types_name_field_and_row(db):
    with pytest.raises(ValueError, match=r"field 'a'.*row 0.*row 2"):
        db.create_table("t", [{"a": 1}, {"a": 2}, {"a": "x"}])
    with pytest.raises(ValueError, match=r"field 'm\.b'.*row 1"):
        db.create_table("t", [{"m": {"b": "x"}}, {"m": {"b": [1]}}])
    assert db.list_tables().tables == []


def test_results_and_listing_match(both):
    db, oracle = both
    for conn in (db, oracle):
        for i in range(12):
            conn.create_table(f"t{i:02d}", [{"a": i}])
    assert db.table_names() == oracle.table_names()  # default limit 10
    assert db.table_names(limit=0) == oracle.table_names(limit=0) == []
    assert db.table_names(limit=20) == oracle.table_names(limit=20)
    page = db.list_tables(limit=5)
    theirs = oracle.list_tables(limit=5)
    assert page.tables == theirs.tables
    assert page.page_token is not None and theirs.page_token is not None  # opaque tokens
    assert db.list_tables(page_token=page.page_token).tables == oracle.list_tables(
        page_token=theirs.page_token
    ).tables
    assert db.list_tables().page_token is None
    assert len(db) == 12 and "t03" in db and "zz" not in db
    t = db["t01"]
    theirs = oracle["t01"]
    r1, r2 = t.add([{"a": 5}]), theirs.add([{"a": 5}])
    assert repr(r1) == repr(r2) == "AddResult(version=2)"
    assert isinstance(t.version, int) and t.version == theirs.version
    db.drop_all_tables()
    assert db.list_tables().tables == []


def test_versions_match(both):
    ours, theirs = _pair(both, "t", [{"a": 1}])
    for t in (ours, theirs):
        t.add([{"a": 2}])
        t.add([{"a": 3}], mode="overwrite")
    v1, v2 = ours.list_versions(), theirs.list_versions()
    assert [v["version"] for v in v1] == [v["version"] for v in v2] == [1, 2, 3]
    assert all(isinstance(v["timestamp"], datetime) for v in v1)
    assert abs(v1[0]["timestamp"] - datetime.now()) < timedelta(minutes=5)
    assert set(v1[0]) == set(v2[0])
    for t in (ours, theirs):
        t.checkout(2)
        assert t.version == 2 and len(t) == 2
        with pytest.raises(ValueError, match="checked out"):
            t.add([{"a": 9}])
        t.checkout_latest()
        t.restore(1)
    assert ours.version == theirs.version == 4
    assert ours.to_arrow() == theirs.to_arrow()


def test_open_missing_table_and_version(both):
    db, oracle = both
    for conn in (db, oracle):
        with pytest.raises(ValueError, match="not found"):
            conn.open_table("missing")
        with pytest.raises(ValueError):
            conn.drop_table("missing")
        conn.drop_table("missing", ignore_missing=True)
        conn.create_table("t", [{"a": 1}])
        with pytest.raises(ValueError, match="already exists"):
            conn.create_table("t", [{"a": 1}])
        t = conn.create_table("t", [{"a": 5}], exist_ok=True)
        assert len(t) == 1
        t = conn.create_table("t", [{"a": 5}, {"a": 6}], mode="overwrite")
        assert len(t) == 2 and t.version == 2
        with pytest.raises(ValueError):
            conn.create_table("t", schema=None)
        old = conn.open_table("t", version=1)
        assert old.version == 1 and old.to_arrow().column("a").to_pylist() == [1]


def test_add_schema_errors(both):
    db, oracle = both
    for conn in (db, oracle):
        t = conn.create_table("t", [{"a": 1, "b": "x"}])
        with pytest.raises(ValueError, match="'x' does not exist"):
            t.add([{"x": 1}])
        with pytest.raises(ValueError):
            t.add({"a": 1})
        assert t.version == 1 and len(t) == 1
        t.add([{"b": "y", "a": 2}])  # column order does not matter
        assert t.to_arrow().column("b").to_pylist() == ["x", "y"]


def test_plain_queries_match(both):
    data = [{"id": i, "v": float(i) / 2, "s": str(i)} for i in range(20)]
    ours, theirs = _pair(both, "t", data)
    for build in (
        lambda q: q.limit(5),
        lambda q: q.limit(5).offset(3),
        lambda q: q.offset(18),
        lambda q: q.select(["s", "id"]).limit(3),
        lambda q: q.with_row_id(True).limit(2),
        lambda q: q.select(["id"]).with_row_id(True).offset(19),
    ):
        assert build(ours.search()).to_arrow() == build(theirs.search()).to_arrow()
    assert ours.head(3) == theirs.head(3)
    assert ours.search().limit(3).to_list() == theirs.search().limit(3).to_list()
    assert ours.search().to_pandas().equals(theirs.search().to_pandas())
    reader = ours.search().to_batches()
    assert isinstance(reader, pa.RecordBatchReader)
    assert reader.read_all().num_rows == 20
    with pytest.raises(ValueError):
        ours.search().select(["nope"]).to_arrow()


def test_sql_queries_match(both):
    data = [{"id": i, "v": float(i) / 2, "s": str(i), "vector": [float(i), 1.0]} for i in range(20)]
    ours, theirs = _pair(both, "t", data)
    for build in (
        lambda q: q.where("id > 15"),
        lambda q: q.where("id > 5").where("id < 8"),
        lambda q: q.where("s = '3'").select(["id", "vector"]),
        lambda q: q.where("v >= 2").limit(3).offset(1),
        lambda q: q.select({"double": "id * 2", "s": "s"}).limit(4),
        lambda q: q.where("id < 3").with_row_id(True),
    ):
        assert build(ours.search()).to_arrow() == build(theirs.search()).to_arrow()
    assert ours.count_rows("id > 10") == theirs.count_rows("id > 10") == 9
    assert ours.take_offsets([3, 1]).to_arrow() == theirs.take_offsets([3, 1]).to_arrow()
    row_ids = ours.search().with_row_id(True).to_arrow().column("_rowid").to_pylist()
    assert ours.take_row_ids(row_ids[5:7]).to_list() == theirs.take_row_ids(row_ids[5:7]).to_list()
    for t in (ours, theirs):
        with pytest.raises(ValueError):
            t.search().where("nope > 1").to_arrow()
        with pytest.raises(ValueError):
            t.count_rows("nope > 1")


def test_writes_match(both):
    data = [{"id": i, "name": f"n{i}", "price": float(i)} for i in range(10)]
    ours, theirs = _pair(both, "t", data)
    assert repr(ours.delete("id >= 7")) == repr(theirs.delete("id >= 7"))
    assert repr(ours.update(where="id < 2", values={"name": "cheap", "price": 0.5})) == repr(
        theirs.update(where="id < 2", values={"name": "cheap", "price": 0.5})
    )
    assert repr(ours.update(values_sql={"price": "price * 2"})) == repr(
        theirs.update(values_sql={"price": "price * 2"})
    )
    assert ours.to_arrow() == theirs.to_arrow()
    for t in (ours, theirs):
        version = t.version
        with pytest.raises(ValueError):
            t.delete("nope = 1")
        with pytest.raises(ValueError):
            t.update(where="id = 1", values={"nope": 1})
        with pytest.raises(ValueError):
            t.update(where="id = 1")
        assert t.version == version


def test_numpy_vectors(both):
    data = [{"vector": np.array([1.0, 2.0], dtype=np.float32), "id": 1}]
    ours, theirs = _pair(both, "t", pd.DataFrame(data))
    assert ours.schema == theirs.schema
    assert ours.to_arrow() == theirs.to_arrow()


def test_read_consistency_interval_property(tmp_path):
    db = lancedb_cpp.connect(tmp_path, read_consistency_interval=timedelta(0))
    assert db.read_consistency_interval == timedelta(0)
    assert lancedb_cpp.connect(tmp_path).read_consistency_interval is None
    other = lancedb_cpp.connect(tmp_path)
    t = db.create_table("t", [{"a": 1}])
    other.open_table("t").add([{"a": 2}])
    assert len(t) == 2  # strong consistency: sees the other handle's write
    stale = lancedb_cpp.connect(tmp_path).open_table("t")
    other.open_table("t").add([{"a": 3}])
    assert len(stale) == 2
    stale.checkout_latest()
    assert len(stale) == 3
