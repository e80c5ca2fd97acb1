# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""External blob URIs under registered base paths (Lance manifest base_paths, registered with
pylance's ``add_bases`` through ``to_lance()``): written relative to their base, refused
outside every base (and under a dataset-root base) unless allowed, read back by fetch,
kept as references by compaction — with LanceDB and pylance as oracles both ways."""

import pyarrow as pa
import pytest

import lancedb_cpp

import lance
import lancedb

OUTSIDE = "is outside registered external bases (dataset root is not allowed)"


@pytest.fixture
def files(tmp_path):
    """Payload files: two under the base `media`, one under its nested base, one outside."""
    media = tmp_path / "media"
    (media / "sub").mkdir(parents=True)
    (media / "deep").mkdir()
    (media / "sub" / "a.bin").write_bytes(b"payload-a")
    (media / "b c.bin").write_bytes(b"0123456789")
    (media / "deep" / "d.bin").write_bytes(b"deep")
    (tmp_path / "outside.bin").write_bytes(b"outside")
    return tmp_path


def _schema(mod):
    return pa.schema([pa.field("id", pa.int64()), mod.blob("img")])


def _uris(ids, uris):
    return pa.table({"id": pa.array(ids, pa.int64()), "img": pa.array(uris, pa.utf8())})


def _register(table, root):
    """Register `media` and its nested `deep` (pylance's add_bases, as a LanceDB user does)."""
    table.to_lance().add_bases(
        [
            lance.DatasetBasePath("file://" + str(root / "media"), name="media"),
            lance.DatasetBasePath(str(root / "media" / "deep"), name="deep"),
        ]
    )


def _tables(files, db, oracle):
    """The same table in lancedb_cpp and LanceDB, each with the bases registered."""
    out = []
    for mod, conn in ((lancedb_cpp, db), (lancedb, oracle)):
        t = conn.create_table("t", schema=_schema(mod))
        t.add(pa.table({"id": pa.array([0], pa.int64()), "img": pa.array([b"x"], pa.large_binary())}))
        _register(t, files)
        out.append(conn.open_table("t"))  # LanceDB sees the new bases only when reopened
    return out


def _descriptors(t):
    rows = t.search().to_arrow().sort_by("id")
    d = rows["img"].combine_chunks()
    return list(
        zip(rows["id"].to_pylist(), d.field("kind").to_pylist(), d.field("blob_id").to_pylist(),
            d.field("blob_uri").to_pylist())
    )


def _fetch(t):
    rows = t.search().to_arrow().sort_by("id")
    return dict(zip(rows["id"].to_pylist(), t.fetch_blobs("img", rows).to_pylist()))


def test_uris_under_registered_bases_are_stored_as_lancedb_stores_them(files, both):
    ours, theirs = _tables(files, *both)
    media = files / "media"
    uris = [
        "file://" + str(media / "sub" / "a.bin"),
        str(media / "b c.bin"),  # a plain path under the base
        "file://" + str(media / "b%20c.bin"),  # percent-encoded
        "file://" + str(media / "deep" / "d.bin"),  # the longest matching base wins
        "file://" + str(media / "x" / ".." / "sub" / "a.bin"),
    ]
    for t in (ours, theirs):
        t.add(_uris([1, 2, 3, 4, 5], uris))
    assert _descriptors(ours) == _descriptors(theirs)
    assert [d[2:] for d in _descriptors(ours)[1:]] == [
        (1, "sub/a.bin"), (1, "b c.bin"), (1, "b c.bin"), (2, "d.bin"), (1, "sub/a.bin")
    ]
    expected = {0: b"x", 1: b"payload-a", 2: b"0123456789", 3: b"0123456789", 4: b"deep",
                5: b"payload-a"}
    assert _fetch(ours) == _fetch(theirs) == expected
    # Each reads the other's table.
    assert _fetch(lancedb.connect(files / "cpp").open_table("t")) == expected
    assert _fetch(lancedb_cpp.connect(files / "oracle").open_table("t")) == expected
    blobs = lance.dataset(str(files / "cpp" / "t.lance")).take_blobs("img", indices=[1, 4])
    assert [b.readall() for b in blobs] == [b"payload-a", b"deep"]


def test_uris_outside_every_base_are_refused(files, both):
    ours, theirs = _tables(files, *both)
    media = files / "media"
    refused = [
        "file://" + str(files / "outside.bin"),
        "file://" + str(media),  # the base itself
        "file://" + str(files / "mediax" / "a.bin"),  # a sibling sharing a prefix
        "file://" + str(media / ".." / "outside.bin"),
        "file://" + str(files / "cpp" / "t.lance" / "data" / "x.bin"),  # the dataset root
    ]
    for t in (ours, theirs):
        for uri in refused:
            with pytest.raises(ValueError) as err:
                t.add(_uris([7], [uri]))
            assert str(err.value).startswith("Invalid input, External blob URI '" + uri)
            assert OUTSIDE in str(err.value)
        assert t.count_rows() == 1
        t.add(_uris([8], ["file://" + str(files / "outside.bin")]),
              allow_external_blob_outside_bases=True)
        with pytest.raises(ValueError, match="not a valid absolute URI"):
            t.add(_uris([9], [str(files / "outside.bin")]), allow_external_blob_outside_bases=True)
        assert t.count_rows() == 2
    assert _descriptors(ours) == _descriptors(theirs)
    assert _descriptors(ours)[1][2] == 0  # absolute: no base
    assert _fetch(ours) == _fetch(theirs) == {0: b"x", 8: b"outside"}


def test_dataset_root_bases_are_not_external_bases(files, db):
    t = db.create_table("t", schema=_schema(lancedb_cpp))
    t.to_lance().add_bases(
        [lance.DatasetBasePath(str(files / "media"), name="root", is_dataset_root=True)]
    )
    with pytest.raises(ValueError, match="outside registered external bases"):
        t.add(_uris([1], ["file://" + str(files / "media" / "sub" / "a.bin")]))
    assert t.count_rows() == 0


def test_merge_insert_checks_struct_uris_against_the_bases(files, both):
    ours, theirs = _tables(files, *both)
    storage = lancedb.blob("img").type.storage_type
    for t in (ours, theirs):
        typ = t.schema.field("img").type

        def rows(uri, position=None, size=None):
            value = {"data": None, "uri": uri, "position": position, "size": size}
            return pa.table(
                {"id": pa.array([5], pa.int64()),
                 "img": pa.ExtensionArray.from_storage(typ, pa.array([value], storage))}
            )

        with pytest.raises(ValueError, match="outside registered external bases"):
            t.merge_insert("id").when_not_matched_insert_all().execute(
                rows("file://" + str(files / "outside.bin")))
        assert t.count_rows() == 1
        uri = "file://" + str(files / "media" / "b c.bin")
        t.merge_insert("id").when_not_matched_insert_all().execute(rows(uri, 2, 3))
    assert _descriptors(ours) == _descriptors(theirs)
    assert _fetch(ours) == _fetch(theirs) == {0: b"x", 5: b"234"}


def test_update_and_compaction_keep_base_relative_references(files, both):
    ours, theirs = _tables(files, *both)
    media = files / "media"
    for t in (ours, theirs):
        for i, name in enumerate(["sub/a.bin", "b c.bin", "deep/d.bin"]):
            t.add(_uris([i + 1], ["file://" + str(media / name)]))
        t.update(where="id = 2", values={"id": 20})
        t.optimize()
    assert _descriptors(ours) == _descriptors(theirs)
    assert [d[2:] for d in _descriptors(ours)] == [
        (0, ""), (1, "sub/a.bin"), (2, "d.bin"), (1, "b c.bin")
    ]
    assert len(ours.to_lance().get_fragments()) == 1
    assert _fetch(ours) == _fetch(theirs)
    assert _fetch(lancedb.connect(files / "cpp").open_table("t"))[20] == b"0123456789"


def test_pylance_written_base_relative_blobs_are_read(files, db):
    media = files / "media"
    data = pa.table(
        {"id": pa.array([1, 2], pa.int64()),
         "img": lance.blob_array(["file://" + str(media / "sub" / "a.bin"),
                                  "file://" + str(media / "deep" / "d.bin")])}
    )
    lance.write_dataset(
        data, str(files / "cpp" / "p.lance"), data_storage_version="2.2",
        initial_bases=[lance.DatasetBasePath("file://" + str(media), name="media")],
    )
    t = db.open_table("p")
    assert [d[2:] for d in _descriptors(t)] == [(1, "sub/a.bin"), (1, "deep/d.bin")]
    assert _fetch(t) == {1: b"payload-a", 2: b"deep"}
    files_ = t.fetch_blob_files("img", t.search().with_row_id(True).to_arrow()["_rowid"].to_pylist())
    assert sorted(f.readall() for f in files_) == [b"deep", b"payload-a"]
    t.add(_uris([3], ["file://" + str(media / "b c.bin")]))
    assert _fetch(lancedb.connect(files / "cpp").open_table("p"))[3] == b"0123456789"
