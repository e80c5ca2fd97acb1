# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Blob columns (lancedb.blob(), Lance blob v2; legacy lance-encoding:blob columns are read):
payloads stored out of line, descriptors in scans and queries, the fetch API and BlobFile,
external URIs, compaction — with LanceDB and pylance as oracles both ways."""

import io

import pyarrow as pa
import pytest

import lancedb_cpp

import lance
import lancedb

BIG = bytes(range(256)) * 400  # 102400 bytes: LanceDB stores it in a packed sidecar file
PAYLOADS = [b"hello", None, b"", BIG, b"\x00\x01\x02"]


def _schema(mod):
    return pa.schema([pa.field("id", pa.int64()), mod.blob("img")])


def _rows(ids, payloads):
    return pa.table(
        {"id": pa.array(ids, pa.int64()), "img": pa.array(payloads, pa.large_binary())}
    )


def _make(mod, conn, name="t", payloads=PAYLOADS):
    t = conn.create_table(name, schema=_schema(mod))
    t.add(_rows(list(range(len(payloads))), payloads))
    return t


def test_blob_field_is_lancedbs():
    ours, theirs = lancedb_cpp.blob("img"), lancedb.blob("img")
    assert ours.type.extension_name == theirs.type.extension_name == "lance.blob.v2"
    assert ours.type.storage_type == theirs.type.storage_type
    assert ours.nullable and not lancedb_cpp.blob("x", nullable=False).nullable
    assert type(ours.type) is type(theirs.type)  # pylance's class, as LanceDB insists
    assert lancedb_cpp.BlobType is lancedb.BlobType


def test_descriptors_and_fetch_match_lancedb(both):
    db, oracle = both
    ours, theirs = _make(lancedb_cpp, db), _make(lancedb, oracle)
    assert ours.schema == theirs.schema
    assert ours.blob_columns() == theirs.blob_columns() == ["img"]
    got, expected = ours.to_arrow(), theirs.to_arrow()
    assert got.schema.field("img").type.names == expected.schema.field("img").type.names
    # Descriptors: same validity, sizes and row ids; payloads never appear in a scan.
    for name in ("size", "_lance_row_id"):
        assert got["img"].combine_chunks().field(name) == expected["img"].combine_chunks().field(
            name
        )
    assert got["img"].is_null().to_pylist() == [p is None for p in PAYLOADS]
    ids = [4, 0, 1, 2, 3, 0]
    assert ours.fetch_blobs("img", ids) == theirs.fetch_blobs("img", ids)
    assert ours.fetch_blobs("img", ids).to_pylist() == [PAYLOADS[i] for i in ids]
    hits = ours.search().where("id >= 3").to_arrow()
    assert ours.fetch_blobs("img", hits).to_pylist() == [BIG, PAYLOADS[4]]
    hits = ours.search().where("id >= 3").with_row_id(True).to_arrow()
    assert "_rowid" in hits.column_names
    assert ours.fetch_blobs("img", hits).to_pylist() == [BIG, PAYLOADS[4]]


def test_to_pandas_blob_modes_match_lancedb(both):
    db, oracle = both
    ours, theirs = _make(lancedb_cpp, db), _make(lancedb, oracle)
    for source in (lambda t: t, lambda t: t.search()):
        got = source(ours).to_pandas(blob_mode="bytes")
        assert got["img"].tolist() == source(theirs).to_pandas(blob_mode="bytes")["img"].tolist()
        got = source(ours).to_pandas(blob_mode="descriptions")["img"].tolist()
        expected = source(theirs).to_pandas(blob_mode="descriptions")["img"].tolist()
        assert [g and g["size"] for g in got] == [e and e["size"] for e in expected]
        lazy = source(ours).to_pandas()["img"].tolist()
        assert [f if f is None else f.read() for f in lazy] == PAYLOADS
    with pytest.raises(ValueError, match="blob_mode must be one of"):
        ours.to_pandas(blob_mode="nope")


def test_blob_files_read_the_bytes_written(db):
    t = _make(lancedb_cpp, db)
    files = t.fetch_blob_files("img", [0, 1, 2, 3])
    assert files[1] is None
    f = files[0]
    assert isinstance(f, io.RawIOBase) and f.readable() and f.seekable()
    assert f.size() == 5 and repr(f) == "<BlobFile size=5>"
    assert f.read(2) == b"he" and f.tell() == 2
    assert f.read() == b"llo" and f.tell() == 5
    assert f.seek(1) == 1 and f.read_range(1, 2) == b"el"
    assert f.readall() == b"ello"
    assert f.seek(-2, io.SEEK_END) == 3 and f.read(10) == b"lo"
    buf = bytearray(3)
    f.seek(0)
    assert f.readinto(buf) == 3 and bytes(buf) == b"hel"
    with pytest.raises(ValueError):
        f.read_range(3, 10)
    f.close()
    assert f.closed
    with pytest.raises(ValueError):
        f.read()
    assert files[2].size() == 0 and files[2].read() == b""
    big = files[3]
    assert big.size() == len(BIG) and big.read_range(1000, 24) == BIG[1000:1024]
    assert big.read() == BIG


def test_fetch_blob_ranges(db):
    t = _make(lancedb_cpp, db)
    got = t.fetch_blob_ranges("img", [(0, 1, 3), (3, 256, 4), (1, 0, 0), (0, 0, 0), (0, 1, 3)])
    assert got.to_pylist() == [b"ell", BIG[256:260], None, b"", b"ell"]
    with pytest.raises(ValueError, match="exceeds blob size"):
        t.fetch_blob_ranges("img", [(0, 3, 10)])


def test_fetch_errors_match_lancedb(both):
    db, oracle = both
    ours, theirs = _make(lancedb_cpp, db), _make(lancedb, oracle)
    for t in (ours, theirs):
        with pytest.raises(ValueError, match="'id' is not a blob column"):
            t.fetch_blobs("id", [0])
        with pytest.raises(ValueError, match="no column named 'nope'"):
            t.fetch_blobs("nope", [0])
        with pytest.raises(ValueError, match="not a column array"):
            t.fetch_blobs("img", t.to_arrow()["img"])
    with pytest.raises(ValueError):
        ours.fetch_blobs("img", [0, 99])


def test_pylance_and_lancedb_read_our_blobs(tmp_path):
    db = lancedb_cpp.connect(tmp_path)
    _make(lancedb_cpp, db)
    ds = lance.dataset(str(tmp_path / "t.lance"))
    files = ds.take_blobs("img", indices=list(range(len(PAYLOADS))))
    got = [f.readall() for f in files if f is not None]
    assert got == [p for p in PAYLOADS if p is not None]
    theirs = lancedb.connect(tmp_path).open_table("t")
    assert theirs.fetch_blobs("img", [0, 1, 2, 3, 4]).to_pylist() == PAYLOADS
    assert theirs.to_pandas(blob_mode="bytes")["img"].tolist() == PAYLOADS


def test_we_read_lancedbs_blobs(tmp_path):
    theirs = _make(lancedb, lancedb.connect(tmp_path))
    # LanceDB keeps payloads over 64 KiB in a sidecar .blob file (kind packed).
    assert theirs.to_arrow()["img"].combine_chunks().field("kind").to_pylist()[3] != 0
    ours = lancedb_cpp.connect(tmp_path).open_table("t")
    assert ours.fetch_blobs("img", [0, 1, 2, 3, 4]).to_pylist() == PAYLOADS
    assert ours.to_pandas(blob_mode="bytes")["img"].tolist() == PAYLOADS
    assert [f and f.read() for f in ours.fetch_blob_files("img", [3])] == [BIG]


def test_legacy_blob_columns_are_read(tmp_path):
    field = pa.field("b", pa.large_binary(), metadata={"lance-encoding:blob": "true"})
    data = pa.table({"id": pa.array(range(5), pa.int64()),
                     "b": pa.array(PAYLOADS, pa.large_binary())},
                    schema=pa.schema([pa.field("id", pa.int64()), field]))
    lance.write_dataset(data, str(tmp_path / "v1.lance"), data_storage_version="2.1")
    ours = lancedb_cpp.connect(tmp_path).open_table("v1")
    theirs = lancedb.connect(tmp_path).open_table("v1")
    assert ours.schema == theirs.schema
    got = ours.to_arrow()["b"].combine_chunks()
    assert got.type == theirs.to_arrow()["b"].type  # struct<position, size>
    assert got.field("size").to_pylist()[:1] == [5]
    assert got.is_null().to_pylist() == [p is None for p in PAYLOADS]
    assert ours.to_pandas(blob_mode="bytes")["b"].tolist() == PAYLOADS
    lazy = ours.to_pandas()["b"].tolist()
    assert [f if f is None else f.read() for f in lazy] == PAYLOADS
    # As in LanceDB, the fetch API is for blob v2 columns only.
    assert ours.blob_columns() == theirs.blob_columns() == []
    for t in (ours, theirs):
        with pytest.raises(ValueError, match="legacy blob column"):
            t.fetch_blobs("b", [0])


def test_legacy_blob_columns_are_not_written_in_2_2(db):
    field = pa.field("b", pa.large_binary(), metadata={"lance-encoding:blob": "true"})
    schema = pa.schema([pa.field("id", pa.int64()), field])
    with pytest.raises(ValueError, match="Legacy blob column 'b'"):
        db.create_table("t", pa.table({"id": [1], "b": [b"x"]}, schema=schema))
    assert "t" not in db.table_names()


def test_compaction_keeps_blobs(tmp_path):
    db = lancedb_cpp.connect(tmp_path)
    t = db.create_table("t", schema=_schema(lancedb_cpp))
    for i, p in enumerate(PAYLOADS):  # one fragment per row, so that compaction rewrites
        t.add(_rows([i], [p]))
    t.delete("id IN (0, 3)")
    t.optimize()
    hits = t.search().to_arrow()
    got = dict(zip(hits["id"].to_pylist(), t.fetch_blobs("img", hits).to_pylist()))
    assert got == {1: None, 2: b"", 4: PAYLOADS[4]}
    # Null stays null, empty stays empty, bytes stay bytes — also for pylance.
    ds = lance.dataset(str(tmp_path / "t.lance"))
    assert len(ds.get_fragments()) == 1
    files = ds.take_blobs("img", indices=[0, 1, 2])
    assert [f and f.readall() for f in files] == [None, b"", PAYLOADS[4]]


def test_compaction_keeps_lancedb_blobs(tmp_path):
    conn = lancedb.connect(tmp_path)
    t = conn.create_table("t", schema=_schema(lancedb))
    for i, p in enumerate(PAYLOADS):
        t.add(_rows([i], [p]))
    ours = lancedb_cpp.connect(tmp_path).open_table("t")
    ours.delete("id IN (0, 2)")
    ours.optimize()
    hits = ours.search().to_arrow()
    got = dict(zip(hits["id"].to_pylist(), ours.fetch_blobs("img", hits).to_pylist()))
    assert got == {1: None, 3: BIG, 4: PAYLOADS[4]}
    theirs = lancedb.connect(tmp_path).open_table("t")
    hits = theirs.search().to_arrow()
    assert dict(zip(hits["id"].to_pylist(), theirs.fetch_blobs("img", hits).to_pylist())) == got


def test_external_uris(tmp_path, both):
    db, oracle = both
    payload = tmp_path / "payload.bin"
    payload.write_bytes(b"external-bytes")
    uri = "file://" + str(payload)
    for t in (_make(lancedb_cpp, db, payloads=[b"a"]), _make(lancedb, oracle, payloads=[b"a"])):
        row = pa.table({"id": pa.array([9], pa.int64()), "img": pa.array([uri])})
        with pytest.raises(ValueError, match="outside registered external bases"):
            t.add(row)
        assert t.count_rows() == 1
        bad = pa.table({"id": pa.array([9], pa.int64()), "img": pa.array([str(payload)])})
        with pytest.raises(ValueError, match="not a valid absolute URI"):
            t.add(bad, allow_external_blob_outside_bases=True)
        assert t.count_rows() == 1
        t.add(row, allow_external_blob_outside_bases=True)
        desc = t.to_arrow()["img"].combine_chunks()
        assert desc.field("kind").to_pylist() == [0, 3]
        assert desc.field("blob_uri").to_pylist() == ["", uri]
        assert t.fetch_blobs("img", t.search().to_arrow()).to_pylist() == [b"a", b"external-bytes"]
        # merge_insert does not coerce strings.
        with pytest.raises(Exception):
            t.merge_insert("id").when_not_matched_insert_all().execute(
                pa.table({"id": pa.array([10], pa.int64()), "img": pa.array([uri])}))
        assert t.count_rows() == 2
    # Compaction keeps the reference, not a copy.
    ours = db.open_table("t")
    ours.optimize()
    desc = ours.to_arrow()["img"].combine_chunks()
    assert desc.field("blob_uri").to_pylist() == ["", uri]


def test_bad_blob_input_writes_nothing(db):
    t = _make(lancedb_cpp, db, payloads=[b"a"])
    with pytest.raises(ValueError):
        t.add(pa.table({"id": pa.array([1], pa.int64()), "img": pa.array([1.5])}))
    assert t.count_rows() == 1
    with pytest.raises(Exception, match="2.2|storage"):
        db.create_table("old", schema=_schema(lancedb_cpp),
                        storage_options={"new_table_data_storage_version": "2.0"})
    assert "old" not in db.table_names()


def test_legacy_blob_tables_are_compacted_in_21(tmp_path):
    """Legacy blob columns live in 2.0/2.1 tables; lancedb_cpp compacts 2.1 ones, rewriting
    every remaining payload (null stays null, empty stays empty), which pylance then reads."""
    field = pa.field("b", pa.large_binary(), metadata={"lance-encoding:blob": "true"})
    schema = pa.schema([pa.field("id", pa.int64()), field])
    for i, p in enumerate(PAYLOADS):
        lance.write_dataset(pa.table({"id": [i], "b": pa.array([p], pa.large_binary())},
                                     schema=schema),
                            str(tmp_path / "v1.lance"), data_storage_version="2.1",
                            mode="append")
    ours = lancedb_cpp.connect(tmp_path).open_table("v1")
    ours.delete("id = 0")
    ours.optimize()
    assert len(lance.dataset(str(tmp_path / "v1.lance")).get_fragments()) == 1
    assert ours.to_pandas(blob_mode="bytes")["b"].tolist() == PAYLOADS[1:]
    ds = lance.dataset(str(tmp_path / "v1.lance"))
    ids = ds.to_table(columns=["id"])["id"].to_pylist()
    blobs = ds.take_blobs("b", indices=list(range(len(ids))))
    assert {i: None if f is None else f.readall() for i, f in zip(ids, blobs)} == \
        dict(enumerate(PAYLOADS[1:], start=1))


def test_update_and_vector_search_keep_blobs(db):
    schema = pa.schema([pa.field("id", pa.int64()), pa.field("v", pa.list_(pa.float32(), 2)),
                        lancedb_cpp.blob("img")])
    t = db.create_table("t", schema=schema)
    t.add(pa.table({"id": pa.array([1, 2], pa.int64()),
                    "v": pa.array([[0, 0], [1, 1]], pa.list_(pa.float32(), 2)),
                    "img": pa.array([b"a", BIG], pa.large_binary())}))
    t.update(where="id = 1", values={"id": 10})
    got = t.to_pandas(blob_mode="bytes").sort_values("id")
    assert got["id"].tolist() == [2, 10] and got["img"].tolist() == [BIG, b"a"]
    hits = t.search([1.0, 1.0]).limit(1).with_row_id(True).to_arrow()
    assert hits["id"].to_pylist() == [2]
    assert t.fetch_blobs("img", hits).to_pylist() == [BIG]


def test_row_id_stash_helpers_match_lancedb(both):
    import lancedb._blob as real

    import lancedb_cpp._blob as ours

    for mod, conn, helpers in ((lancedb_cpp, both[0], ours), (lancedb, both[1], real)):
        hits = _make(mod, conn).search().with_row_id(True).limit(10).to_arrow()
        row_ids = hits["_rowid"].to_pylist()
        stashed = helpers.stash_auto_row_ids(hits, ["img"])
        assert "_rowid" not in stashed.column_names
        assert stashed.schema.field("img").metadata == hits.schema.field("img").metadata
        assert helpers.read_row_ids_from_hits(stashed, "img") == row_ids
        with pytest.raises(ValueError, match="no '_rowid' column to hide"):
            helpers.stash_auto_row_ids(stashed, ["img"])
        with pytest.raises(ValueError, match="no blob v2 column"):
            helpers.stash_auto_row_ids(hits, ["other"])
        with pytest.raises(ValueError, match="no '_rowid' column and no '_lance_row_id'"):
            helpers.read_row_ids_from_hits(hits.drop_columns(["_rowid"]), "img")


def test_rows_with_bytes_fill_a_blob_column_as_in_lancedb(both):
    payloads = []
    for mod, conn in ((lancedb_cpp, both[0]), (lancedb, both[1])):
        t = conn.create_table("rows", schema=_schema(mod))
        t.add([{"id": 1, "img": b"abc"}, {"id": 2, "img": None}, {"id": 3, "img": b""}])
        assert t.count_rows() == 3
        hits = t.search().with_row_id(True).limit(10).to_arrow().sort_by("id")
        payloads.append(t.fetch_blobs("img", hits).to_pylist())
    assert payloads[0] == payloads[1]
