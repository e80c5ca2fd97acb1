# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Tables in Lance file format 2.1 (what older LanceDB releases created by default, and what
`data_storage_version="2.1"` creates): lancedb_cpp appends, updates, merges, compacts and adds
columns to them in 2.1 files, legacy blob columns included. pylance and LanceDB are the
oracle: they read every file lancedb_cpp writes and keep working on the table afterwards."""

import datetime
import os
import warnings

import numpy as np
import pyarrow as pa
import pytest

import lance
import lancedb
import lancedb_cpp

BIG = bytes(range(256)) * 400
BLOB_FIELD = pa.field("b", pa.large_binary(), metadata={"lance-encoding:blob": "true"})
BLOB_SCHEMA = pa.schema([pa.field("id", pa.int64()), BLOB_FIELD])


@pytest.fixture(autouse=True)
def _quiet():
    warnings.filterwarnings("ignore", category=DeprecationWarning)


def _maybe(value, i, every=7):
    return None if i % every == 3 else value


def _sample(n, offset=0):
    """Every column type lancedb_cpp writes: nulls, empty and null lists, null structs,
    long strings (full-zip pages), 128-dim vectors, all-null and constant columns."""
    rng = np.random.default_rng(offset)
    ids = list(range(offset, offset + n))
    colors = ["red", "green", "blue"]
    struct_type = pa.struct([("x", pa.int32()), ("y", pa.string()),
                             ("z", pa.struct([("w", pa.float64())]))])
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "i8": pa.array([_maybe(i % 100 - 50, i) for i in ids], pa.int8()),
        "i32": pa.array([i * 7 for i in ids], pa.int32()),
        "u16": pa.array([_maybe(i % 60000, i, 5) for i in ids], pa.uint16()),
        "f32": pa.array(rng.random(n).astype(np.float32)),
        "f64": pa.array([_maybe(i / 3, i) for i in ids], pa.float64()),
        "flag": pa.array([_maybe(i % 3 == 0, i, 4) for i in ids], pa.bool_()),
        "s": pa.array([_maybe(f"str-{i}", i) for i in ids], pa.string()),
        "ls": pa.array([_maybe("x" * (i % 13), i) for i in ids], pa.large_string()),
        "bin": pa.array([_maybe(bytes([i % 256]) * (i % 5), i) for i in ids], pa.binary()),
        "lbin": pa.array([_maybe(bytes([i % 256]) * (i % 9), i, 11) for i in ids],
                         pa.large_binary()),
        "color": pa.array([_maybe(colors[i % 3], i) for i in ids]).dictionary_encode(),
        "lst": pa.array([None if i % 10 == 1 else ([] if i % 10 == 2 else [i, None, i + 1][:i % 4])
                         for i in ids], pa.list_(pa.int32())),
        "lstr": pa.array([None if i % 9 == 1 else [f"a{i}", None] for i in ids],
                         pa.list_(pa.string())),
        "ll": pa.array([None if i % 5 == 0 else [[i], [], None] for i in ids],
                       pa.list_(pa.list_(pa.int64()))),
        "st": pa.array([None if i % 8 == 5 else {"x": _maybe(i, i), "y": f"y{i}", "z": {"w": i / 2}}
                        for i in ids], struct_type),
        "fsl": pa.array([None if i % 6 == 1 else [float(i), None if i % 4 == 0 else 1.0, 2.0, 3.0]
                         for i in ids], pa.list_(pa.float32(), 4)),
        "ts": pa.array([_maybe(datetime.datetime(2024, 1, 1) + datetime.timedelta(seconds=i), i)
                        for i in ids], pa.timestamp("us")),
        "ts_tz": pa.array([datetime.datetime(2024, 1, 1) + datetime.timedelta(hours=i)
                           for i in ids], pa.timestamp("ms", tz="UTC")),
        "day": pa.array([_maybe(datetime.date(2020, 1, 1) + datetime.timedelta(days=i), i)
                         for i in ids], pa.date32()),
        "all_null": pa.nulls(n, pa.int32()),
        "all_null_s": pa.nulls(n, pa.string()),
        "const": pa.array([7] * n, pa.int32()),
        "long_s": pa.array([_maybe(f"{i}-" + "L" * (256 + i % 50), i) for i in ids], pa.string()),
        "vector": pa.FixedSizeListArray.from_arrays(
            pa.array(rng.random(n * 128).astype(np.float32)), 128),
        "fsb": pa.array([bytes([i % 256]) * 16 for i in ids], pa.binary(16)),
    })


def _dataset(table):
    return lance.dataset(table.uri if hasattr(table, "uri") else str(table))


def _file_versions(ds):
    return {f"{f.file_major_version}.{f.file_minor_version}"
            for frag in ds.get_fragments() for f in frag.data_files()}


def _assert_tables_equal(actual, expected, sort_by="id"):
    actual = actual.sort_by(sort_by)
    expected = expected.sort_by(sort_by)
    assert actual.column_names == expected.column_names
    for name in expected.column_names:
        a = actual[name].combine_chunks()
        e = expected[name].combine_chunks()
        if pa.types.is_dictionary(e.type):
            a, e = a.cast(e.type.value_type), e.cast(e.type.value_type)
        assert a.equals(e), f"column {name} differs"


def _lancedb_21(path, name, data, **kwargs):
    return lancedb.connect(path).create_table(name, data, data_storage_version="2.1", **kwargs)


def test_add_to_a_lancedb_21_table_writes_21_files_lancedb_reads_and_extends(tmp_path):
    first, second = _sample(300), _sample(3000, offset=300)
    _lancedb_21(tmp_path, "t", first)
    ours = lancedb_cpp.connect(tmp_path).open_table("t")
    ours.add(second)
    ds = _dataset(ours)
    assert ds.data_storage_version == "2.1"
    assert _file_versions(ds) == {"2.1"}
    expected = pa.concat_tables([first, second])
    _assert_tables_equal(ds.to_table(), expected)
    _assert_tables_equal(ours.to_arrow(), expected)
    # LanceDB keeps working on the table: append, delete, compact, BTree index.
    theirs = lancedb.connect(tmp_path).open_table("t")
    theirs.add(_sample(20, offset=5000))
    theirs.delete("id % 3 = 0")
    theirs.optimize()
    theirs.create_scalar_index("id")
    assert theirs.search().where("id = 301").to_arrow()["s"].to_pylist() == ["str-301"]
    expected = pa.concat_tables([expected, _sample(20, offset=5000)])
    kept = expected.filter(pa.array([i % 3 != 0 for i in expected["id"].to_pylist()]))
    _assert_tables_equal(_dataset(ours).to_table(), kept)
    ours = lancedb_cpp.connect(tmp_path).open_table("t")
    _assert_tables_equal(ours.to_arrow(), kept)
    assert ours.count_rows("id = 301") == 1


def test_create_table_in_21(tmp_path):
    db = lancedb_cpp.connect(tmp_path)
    by_option = db.create_table("a", _sample(100),
                                storage_options={"new_table_data_storage_version": "2.1"})
    by_keyword = db.create_table("b", _sample(100), data_storage_version="2.1")
    for table in (by_option, by_keyword):
        ds = _dataset(table)
        assert ds.data_storage_version == "2.1"
        assert _file_versions(ds) == {"2.1"}
        _assert_tables_equal(ds.to_table(), _sample(100))
        theirs = lancedb.connect(tmp_path).open_table(table.name)
        theirs.add(_sample(10, offset=100))
        _assert_tables_equal(db.open_table(table.name).to_arrow(),
                             pa.concat_tables([_sample(100), _sample(10, offset=100)]))
    # An overwrite keeps the table's version unless asked otherwise.
    over = db.create_table("a", _sample(5), mode="overwrite")
    assert _dataset(over).data_storage_version == "2.1"
    empty = db.create_table("e", schema=_sample(1).schema, data_storage_version="2.1")
    empty.add(_sample(3))
    assert _dataset(empty).data_storage_version == "2.1"
    assert _file_versions(_dataset(empty)) == {"2.1"}


def _both_21(tmp_path, n=200):
    """The same 2.1 table, created by LanceDB, for lancedb_cpp ("ours") and LanceDB."""
    data = _sample(n)
    _lancedb_21(tmp_path / "ours", "t", data)
    theirs = _lancedb_21(tmp_path / "theirs", "t", data)
    return lancedb_cpp.connect(tmp_path / "ours").open_table("t"), theirs


def _assert_same(ours, theirs):
    ds = _dataset(ours)
    assert ds.data_storage_version == "2.1"
    assert _file_versions(ds) == {"2.1"}
    _assert_tables_equal(ds.to_table(), theirs.to_arrow())
    _assert_tables_equal(ours.to_arrow(), theirs.to_arrow())


def test_update_delete_merge_compact_and_add_columns_in_21(tmp_path):
    ours, theirs = _both_21(tmp_path)
    for t in (ours, theirs):
        t.update(where="id < 50", values={"s": "updated", "i32": 1})
    _assert_same(ours, theirs)
    for t in (ours, theirs):
        t.delete("id % 4 = 1")
    _assert_same(ours, theirs)
    new = _sample(60, offset=170)
    for t in (ours, theirs):
        t.merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(new)
    _assert_same(ours, theirs)
    for t in (ours, theirs):
        t.optimize()
    _assert_same(ours, theirs)
    assert len(_dataset(ours).get_fragments()) == 1
    for t in (ours, theirs):
        t.add_columns({"twice": "id * 2"})
    _assert_same(ours, theirs)
    for t in (ours, theirs):
        t.alter_columns({"path": "i32", "data_type": pa.int64()})
    _assert_same(ours, theirs)
    # LanceDB keeps working on what lancedb_cpp wrote.
    theirs_on_ours = lancedb.connect(tmp_path / "ours").open_table("t")
    theirs_on_ours.delete("id < 10")
    theirs_on_ours.optimize()
    theirs_on_ours.create_scalar_index("id")
    assert theirs_on_ours.count_rows() == ours.count_rows() - theirs.count_rows("id < 10")


def test_legacy_blob_columns_in_21(tmp_path):
    payloads = [b"hello", None, b"", BIG, b"\x00\x01\x02"]
    first = pa.table({"id": list(range(5)), "b": pa.array(payloads, pa.large_binary())},
                     schema=BLOB_SCHEMA)
    _lancedb_21(tmp_path, "t", first)
    ours = lancedb_cpp.connect(tmp_path).open_table("t")
    more = [None, b"", b"x" * 70000, b"tail", None] + [bytes([i]) * i for i in range(200)]
    ours.add(pa.table({"id": list(range(5, 5 + len(more))), "b": pa.array(more, pa.large_binary())},
                      schema=BLOB_SCHEMA))
    everything = payloads + more
    ds = _dataset(ours)
    assert _file_versions(ds) == {"2.1"}

    def check(kept_ids):
        ds = _dataset(ours)
        mine = lancedb_cpp.connect(tmp_path).open_table("t").to_pandas(blob_mode="bytes")
        ids = ds.to_table(columns=["id"])["id"].to_pylist()
        assert sorted(ids) == kept_ids
        blobs = ds.take_blobs("b", indices=list(range(len(ids))))
        got = {i: (None if f is None else f.readall()) for i, f in zip(ids, blobs)}
        assert got == {i: everything[i] for i in kept_ids}  # None stays None, b"" stays b""
        mine = mine.sort_values("id")
        assert mine["b"].tolist() == [everything[i] for i in kept_ids]

    check(list(range(len(everything))))
    ours.delete("id % 3 = 0")
    ours.optimize()
    assert len(_dataset(ours).get_fragments()) == 1
    assert _file_versions(_dataset(ours)) == {"2.1"}
    kept = [i for i in range(len(everything)) if i % 3 != 0]
    check(kept)
    # LanceDB appends to and compacts the table lancedb_cpp rewrote.
    theirs = lancedb.connect(tmp_path).open_table("t")
    theirs.add(pa.table({"id": [1000], "b": pa.array([b"theirs"], pa.large_binary())},
                        schema=BLOB_SCHEMA))
    theirs.delete("id = 1")
    theirs.optimize()
    everything.extend([None] * (1000 - len(everything)) + [b"theirs"])
    check([i for i in kept if i != 1] + [1000])


def test_legacy_blob_table_created_by_lancedb_cpp(tmp_path):
    db = lancedb_cpp.connect(tmp_path)
    payloads = [b"a", None, b"", BIG]
    t = db.create_table("t", pa.table({"id": [0, 1, 2, 3], "b": pa.array(payloads, pa.large_binary())},
                                      schema=BLOB_SCHEMA), data_storage_version="2.1")
    ds = _dataset(t)
    blobs = ds.take_blobs("b", indices=[0, 1, 2, 3])
    assert [None if f is None else f.readall() for f in blobs] == payloads
    # A 2.2 table still refuses legacy blob columns, as Lance does.
    with pytest.raises(ValueError, match="Legacy blob column 'b'"):
        db.create_table("t22", pa.table({"id": [0], "b": pa.array([b"a"], pa.large_binary())},
                                        schema=BLOB_SCHEMA))
    assert "t22" not in db.table_names()


def test_bad_input_leaves_a_21_table_unchanged(tmp_path):
    _lancedb_21(tmp_path, "t", _sample(50))
    _lancedb_21(tmp_path, "blobs", pa.table({"id": [0], "b": pa.array([b"a"], pa.large_binary())},
                                            schema=BLOB_SCHEMA))
    db = lancedb_cpp.connect(tmp_path)
    t = db.open_table("t")
    files = sorted(os.listdir(os.path.join(t.uri, "data")))
    version = t.version
    with pytest.raises(ValueError):
        t.add(pa.table({"id": pa.array([1.5])}))
    bad = _sample(5, offset=100).set_column(1, "i8", pa.array(["x"] * 5))
    with pytest.raises(ValueError):
        t.add(bad)
    assert t.version == version
    assert sorted(os.listdir(os.path.join(t.uri, "data"))) == files
    _assert_tables_equal(_dataset(t).to_table(), _sample(50))
    # A blob v2 column cannot go into a 2.1 table.
    with pytest.raises(ValueError, match="Blob v2 column 'img'.*2.2"):
        db.create_table("v2", schema=pa.schema([pa.field("id", pa.int64()), lancedb_cpp.blob("img")]),
                        data_storage_version="2.1")
    assert "v2" not in db.table_names()


def test_20_tables_and_versions_are_refused_naming_the_version(tmp_path):
    lancedb.connect(tmp_path).create_table("old", _sample(20).select(["id", "s"]),
                                           data_storage_version="2.0")
    db = lancedb_cpp.connect(tmp_path)
    old = db.open_table("old")
    assert old.to_arrow().num_rows == 20
    with pytest.raises(NotImplementedError, match=r"version 2\.0 \(Lance's legacy"):
        old.add(_sample(2).select(["id", "s"]))
    old.delete("id < 5")
    with pytest.raises(NotImplementedError, match=r"Compacting .* version 2\.0"):
        old.optimize()
    for name, says in [("2.0", r"2\.0 \(Lance's legacy encodings\)"),
                       ("legacy", r"Lance's v1 format"), ("next", "next")]:
        with pytest.raises(NotImplementedError, match=says):
            db.create_table("new", _sample(2), data_storage_version=name)
    assert "new" not in db.table_names()
