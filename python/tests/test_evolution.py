# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Table evolution and maintenance: merge_insert against a pandas oracle and LanceDB, tags."""

import datetime
import json
import os
import random

import pandas as pd
import pyarrow as pa
import pytest

import lancedb_cpp



def _frame(ids, seed):
    rng = random.Random(seed)
    return pd.DataFrame(
        {
            "id": pd.Series(ids, dtype="int64"),
            "g": pd.Series([rng.choice(["a", "b", "c"]) for _ in ids], dtype="object"),
            "v": pd.Series([rng.random() for _ in ids], dtype="float64"),
        }
    )


def _oracle_merge(target, source, update, insert, delete, delete_cond=None, update_cond=None):
    """What merge_insert on "id" must produce, computed with pandas."""
    t = target.set_index("id")
    s = source.set_index("id")
    matched = t.index.intersection(s.index)
    updated = 0
    if update:
        upd = matched
        if update_cond is not None:
            upd = [k for k in matched if update_cond(t.loc[k], s.loc[k])]
        t.loc[list(upd), ["g", "v"]] = s.loc[list(upd), ["g", "v"]].values
        updated = len(upd)
    deleted = 0
    if delete:
        gone = [k for k in t.index.difference(s.index) if delete_cond is None or delete_cond(t.loc[k])]
        t = t.drop(index=gone)
        deleted = len(gone)
    inserted = 0
    if insert:
        new = s.loc[s.index.difference(t.index).difference(matched)]
        inserted = len(new)
        t = pd.concat([t, new])
    out = t.reset_index().sort_values("id").reset_index(drop=True)
    return out, inserted, updated, deleted


def _sorted(table):
    return table.to_pandas().sort_values("id").reset_index(drop=True)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("mode", ["upsert", "insert", "delete_by_source", "conditional"])
def test_merge_insert_matches_pandas(tmp_path, seed, mode):
    rng = random.Random(seed * 31 + len(mode))
    target_ids = rng.sample(range(200), rng.randint(0, 80))
    source_ids = rng.sample(range(200), rng.randint(1, 80))
    target = _frame(target_ids, seed)
    source = _frame(source_ids, seed + 1000)
    db = lancedb_cpp.connect(tmp_path)
    table = db.create_table("t", target, mode="overwrite")
    if len(target_ids) > 10:  # several fragments
        table.add(_frame([], 0))
    builder = table.merge_insert("id")
    kwargs = dict(update=False, insert=False, delete=False)
    if mode == "upsert":
        builder = builder.when_matched_update_all().when_not_matched_insert_all()
        kwargs.update(update=True, insert=True)
    elif mode == "insert":
        builder = builder.when_not_matched_insert_all()
        kwargs.update(insert=True)
    elif mode == "delete_by_source":
        builder = (
            builder.when_matched_update_all()
            .when_not_matched_insert_all()
            .when_not_matched_by_source_delete("id < 100")
        )
        kwargs.update(update=True, insert=True, delete=True, delete_cond=lambda r: r.name < 100)
    else:
        builder = builder.when_matched_update_all(where="target.v < source.v")
        kwargs.update(update=True, update_cond=lambda t, s: t["v"] < s["v"])
    result = builder.execute(source)
    expected, inserted, updated, deleted = _oracle_merge(target, source, **kwargs)
    got = _sorted(table)
    pd.testing.assert_frame_equal(got, expected[["id", "g", "v"]], check_dtype=False)
    assert (result.num_inserted_rows, result.num_updated_rows, result.num_deleted_rows) == (
        inserted,
        updated,
        deleted,
    )
    assert result.num_rows == len(source_ids)
    assert result.version == table.version


def test_merge_insert_matches_lancedb(tmp_path):
    import lancedb
    target = _frame(list(range(0, 20)), 1)
    source = _frame(list(range(15, 30)), 2)
    results = []
    for mod, sub in ((lancedb_cpp, "cpp"), (lancedb, "oracle")):
        t = mod.connect(tmp_path / sub).create_table("t", target)
        r = (
            t.merge_insert("id")
            .when_matched_update_all()
            .when_not_matched_insert_all()
            .when_not_matched_by_source_delete("id < 5")
            .execute(source)
        )
        results.append((r.version, r.num_inserted_rows, r.num_updated_rows, r.num_deleted_rows,
                        r.num_rows, _sorted(t)))
    assert results[0][:5] == results[1][:5]
    pd.testing.assert_frame_equal(results[0][5], results[1][5])


def test_merge_insert_composite_key_and_errors(tmp_path):
    db = lancedb_cpp.connect(tmp_path)
    t = db.create_table("t", [{"a": 1, "b": "x", "v": 1.0}, {"a": 1, "b": "y", "v": 2.0}])
    r = (
        t.merge_insert(["a", "b"])
        .when_matched_update_all()
        .when_not_matched_insert_all()
        .execute([{"a": 1, "b": "y", "v": 20.0}, {"a": 2, "b": "x", "v": 3.0}])
    )
    assert (r.num_updated_rows, r.num_inserted_rows) == (1, 1)
    assert sorted(t.to_pandas()["v"]) == [1.0, 3.0, 20.0]
    version = t.version
    with pytest.raises(ValueError, match="more than one row with key"):
        t.merge_insert("a").when_not_matched_insert_all().execute(
            [{"a": 7, "b": "x", "v": 1.0}, {"a": 7, "b": "z", "v": 1.0}]
        )
    with pytest.raises(ValueError, match="'nope' not found"):
        t.merge_insert("nope").when_not_matched_insert_all().execute([{"a": 7, "b": "x", "v": 1.0}])
    assert t.version == version
    assert t.count_rows() == 3


def test_tags_roundtrip_and_lance_layout(tmp_path):
    db = lancedb_cpp.connect(tmp_path)
    t = db.create_table("t", [{"id": 1}])
    t.add([{"id": 2}])
    t.add([{"id": 3}])
    t.tags.create("first", 1)
    t.tags.create("v2", 2)
    tags = t.tags.list()
    assert set(tags) == {"first", "v2"}
    assert tags["first"]["version"] == 1 and tags["first"]["manifest_size"] > 0
    assert t.tags.get_version("v2") == 2
    with open(os.path.join(t.uri, "_refs", "tags", "v2.json")) as f:
        doc = json.load(f)
    assert set(doc) == {"branch", "version", "createdAt", "updatedAt", "manifestSize", "metadata"}
    assert doc["version"] == 2 and doc["branch"] is None
    t.tags.update("v2", 3)
    assert t.tags.get_version("v2") == 3
    with pytest.raises(ValueError, match="already exists"):
        t.tags.create("first", 2)
    with pytest.raises(ValueError, match="does not exist"):
        t.tags.create("future", 99)
    assert "future" not in t.tags.list()
    t.checkout("first")
    assert t.version == 1 and t.count_rows() == 1
    t.checkout_latest()
    t.restore("first")
    assert t.count_rows() == 1 and t.version == 4
    t.tags.delete("first")
    with pytest.raises(ValueError, match="not found"):
        t.tags.get_version("first")
    # pylance sees our tags.
    import lance
    ds = lance.dataset(t.uri)
    assert ds.tags.list()["v2"]["version"] == 3


def test_tags_written_by_lance_are_read(tmp_path):
    import lancedb
    t = lancedb.connect(tmp_path).create_table("t", [{"id": 1}])
    t.add([{"id": 2}])
    t.tags.create("mark", 1)
    ours = lancedb_cpp.connect(tmp_path).open_table("t")
    assert ours.tags.list() == t.tags.list()
    ours.checkout("mark")
    assert ours.count_rows() == 1


# Schema evolution -------------------------------------------------------------------------------


def _table(tmp_path, rows=10):
    db = lancedb_cpp.connect(tmp_path)
    return db.create_table("t", pa.table({"id": list(range(rows)), "x": [i / 2 for i in range(rows)]}))


def test_add_columns_sql_matches_lancedb(tmp_path):
    import lancedb
    data = pa.table({"id": list(range(10)), "x": [i / 2 for i in range(10)]})
    ours = lancedb_cpp.connect(tmp_path / "cpp").create_table("t", data)
    theirs = lancedb.connect(tmp_path / "oracle").create_table("t", data)
    for t in (ours, theirs):
        t.delete("id = 3")
        r = t.add_columns({"doubled": "x * 2", "label": "concat('r', cast(id as string))"})
        assert r.version == 3
    assert ours.schema == theirs.schema
    assert ours.to_arrow().sort_by("id") == theirs.to_arrow().sort_by("id")


def test_add_columns_all_null_nested_struct(tmp_path):
    t = _table(tmp_path)
    field = pa.field("meta", pa.struct([("a", pa.int32()), ("b", pa.string())]))
    t.add_columns([field, pa.field("n", pa.float32())])
    assert t.schema.field("meta").type == field.type
    col = t.to_arrow()["meta"]
    assert col.null_count == 10
    # New columns are new files in the same fragments: pylance agrees.
    import lance
    ds = lance.dataset(t.uri)
    frags = ds.get_fragments()
    assert len(frags) == 1 and len(frags[0].data_files()) == 2
    assert ds.to_table()["n"].null_count == 10


def test_add_columns_udf_sees_read_columns(tmp_path):
    t = _table(tmp_path)
    seen = []

    def fn(batch):
        seen.append(batch.schema.names)
        return pa.RecordBatch.from_pydict({"y": pa.compute.add(batch["x"], 1.0)})

    t.add_columns(fn, read_columns=["x"])
    assert all(names == ["x"] for names in seen) and seen
    got = t.to_arrow()
    assert got["y"].to_pylist() == [i / 2 + 1 for i in range(10)]


def test_add_columns_contract_errors(tmp_path):
    t = _table(tmp_path)
    with pytest.raises(ValueError, match="requires transforms or computed columns"):
        t.add_columns(None)
    with pytest.raises(ValueError, match="BatchUDF"):
        t.add_columns({"z": "x + 1"}, read_columns=["x"])
    with pytest.raises(ValueError, match="BatchUDF"):
        t.add_columns(pa.field("z", pa.int32()), read_columns=["x"])
    assert t.schema.names == ["id", "x"] and t.version == 1


def test_alter_drop_metadata(tmp_path):
    db = lancedb_cpp.connect(tmp_path)
    schema = pa.schema(
        [
            pa.field("id", pa.int64(), nullable=False),
            pa.field("s", pa.struct([("a", pa.int32()), ("b", pa.string())])),
        ]
    )
    t = db.create_table("t", pa.table({"id": [1, 2], "s": [{"a": 1, "b": "x"}, None]}, schema=schema))
    t.alter_columns({"path": "s.a", "rename": "alpha"}, {"path": "id", "nullable": True})
    assert t.schema.field("s").type == pa.struct([("alpha", pa.int32()), ("b", pa.string())])
    assert t.schema.field("id").nullable
    with pytest.raises(ValueError, match="already exists"):
        t.alter_columns({"path": "s", "rename": "id"})
    with pytest.raises(ValueError):
        t.alter_columns({"path": "missing", "rename": "z"})
    t.update_field_metadata({"path": "s.b", "metadata": {"lancedb:description": "text", "k": "v"}})
    t.update_field_metadata({"path": "s.b", "metadata": {"k": None}})
    b = t.schema.field("s").type.field("b")
    assert b.metadata == {b"lancedb:description": b"text"}
    t.update_field_metadata({"path": "id", "metadata": {"lancedb:status": "production"}})
    t.update_field_metadata({"path": "id", "metadata": {"x": "1"}, "replace": True})
    assert t.schema.field("id").metadata == {b"x": b"1"}
    version = t.version
    with pytest.raises(ValueError, match="all columns"):
        t.drop_columns(["id", "s"])
    assert t.version == version
    t.drop_columns(["s"])
    assert t.schema.names == ["id"] and t.to_arrow()["id"].to_pylist() == [1, 2]
    t.checkout(1)
    assert t.schema.names == ["id", "s"] and t.to_arrow()["s"].to_pylist()[0] == {"a": 1, "b": "x"}
    import lance
    assert lance.dataset(t.uri).schema.names == ["id"]


# Maintenance ----------------------------------------------------------------------------------


def test_parallel_compaction_contract(tmp_path):
    db = lancedb_cpp.connect(tmp_path)
    t = db.create_table("t", pa.table({"id": list(range(10))}))
    for f in range(1, 64):
        t.add(pa.table({"id": list(range(f * 10, f * 10 + 10))}))
    before = t.version
    stats = t.compact_files(target_rows_per_fragment=20, num_threads=64)
    assert (stats.fragments_removed, stats.fragments_added) == (64, 32)
    assert t.count_rows() == 640 and t.version == before + 2
    import lance
    ds = lance.dataset(t.uri)
    assert len(ds.get_fragments()) == 32
    assert sorted(ds.to_table()["id"].to_pylist()) == list(range(640))
    txn = ds.get_transactions(2)
    # pylance shows ReserveFragments as a BaseOperation.
    names = [type(x.operation).__name__ for x in txn if x is not None]
    assert len(names) == 2 and "Rewrite" in names


def test_compaction_preserves_values_after_deletes(tmp_path):
    db = lancedb_cpp.connect(tmp_path)
    rows = [
        {"id": i, "s": None if i % 3 == 0 else ("" if i % 3 == 1 else f"v{i}"),
         "b": None if i % 5 == 0 else bytes([i % 256]) * (i % 3),
         "l": None if i % 4 == 0 else [i] * (i % 4 - 1)}
        for i in range(300)
    ]
    schema = pa.schema([("id", pa.int64()), ("s", pa.string()), ("b", pa.binary()),
                        ("l", pa.list_(pa.int64()))])
    t = db.create_table("t", pa.Table.from_pylist(rows[:100], schema=schema))
    t.add(pa.Table.from_pylist(rows[100:200], schema=schema))
    t.add(pa.Table.from_pylist(rows[200:], schema=schema))
    t.delete("id % 7 = 0")
    expected = t.to_arrow().sort_by("id")
    stats = t.optimize()
    assert stats.compaction.fragments_removed == 3 and stats.compaction.fragments_added == 1
    assert stats.prune.old_versions_removed == 0
    assert t.to_arrow().sort_by("id") == expected
    import lance
    assert lance.dataset(t.uri).to_table().sort_by("id") == expected


def test_prune_keeps_latest_and_tagged(tmp_path):
    from datetime import timedelta

    db = lancedb_cpp.connect(tmp_path)
    t = db.create_table("t", pa.table({"id": [1]}))
    t.add(pa.table({"id": [2]}))
    t.add(pa.table({"id": [3]}))
    t.tags.create("keep", 2)
    t.compact_files()
    stats = t.cleanup_old_versions(timedelta(0), error_if_tagged_old_versions=False)
    assert stats.old_versions_removed == 3 and stats.bytes_removed > 0
    assert [v["version"] for v in t.list_versions()] == [2, 5]
    t.checkout("keep")
    assert sorted(t.to_arrow()["id"].to_pylist()) == [1, 2]
    t.checkout_latest()
    assert sorted(t.to_arrow()["id"].to_pylist()) == [1, 2, 3]
    import lance
    assert lance.dataset(t.uri, version=2).count_rows() == 2


def test_prune_refuses_tagged_old_versions_by_default(tmp_path):
    from datetime import timedelta

    db = lancedb_cpp.connect(tmp_path)
    t = db.create_table("t", pa.table({"id": [1]}))
    t.add(pa.table({"id": [2]}))
    t.add(pa.table({"id": [3]}))
    t.tags.create("keep", 1)
    with pytest.raises(ValueError, match=r"'keep' \(version 1\).*error_if_tagged_old_versions"):
        t.cleanup_old_versions(timedelta(0))
    with pytest.raises(ValueError, match="tagged"):
        t.optimize(cleanup_older_than=timedelta(0))
    assert [v["version"] for v in t.list_versions()][:3] == [1, 2, 3]  # nothing removed
    stats = t.optimize(cleanup_older_than=timedelta(0), error_if_tagged_old_versions=False)
    assert stats.prune.old_versions_removed >= 2
    assert t.list_versions()[0]["version"] == 1
    import lance
    assert lance.dataset(t.uri, version="keep").count_rows() == 1


def test_prune_deletes_unreferenced_files_by_age(tmp_path):
    from datetime import timedelta

    db = lancedb_cpp.connect(tmp_path)
    t = db.create_table("t", pa.table({"id": [1, 2]}))
    data = tmp_path / "t.lance" / "data"
    old, young = data / "abandoned-old.lance", data / "abandoned-young.lance"
    old.write_bytes(b"x" * 10)
    young.write_bytes(b"y" * 5)
    now = datetime.datetime.now().timestamp()
    os.utime(old, (now - 8 * 86400, now - 8 * 86400))
    os.utime(young, (now - 3600, now - 3600))
    t.add(pa.table({"id": [3]}))
    stats = t.cleanup_old_versions(timedelta(0))
    assert not old.exists() and young.exists()
    assert stats.old_versions_removed == 1
    t.cleanup_old_versions(timedelta(0), delete_unverified=True)
    assert not young.exists()
    assert sorted(t.to_arrow()["id"].to_pylist()) == [1, 2, 3]


def test_table_level_new_table_storage_options(tmp_path):
    db = lancedb_cpp.connect(tmp_path)
    options = {
        "new_table_enable_stable_row_ids": "true",
        "new_table_data_storage_version": "stable",
        "new_table_enable_v2_manifest_paths": "false",
    }
    t = db.create_table("t", pa.table({"id": list(range(10))}), storage_options=options)
    plain = db.create_table("plain", pa.table({"id": list(range(10))}))
    versions = os.listdir(tmp_path / "t.lance" / "_versions")
    assert "1.manifest" in versions  # V1 manifest names
    assert "1.manifest" not in os.listdir(tmp_path / "plain.lance" / "_versions")
    t.delete("id < 5")
    t.add(pa.table({"id": list(range(100, 105))}))
    before = t.search().with_row_id(True).to_arrow().sort_by("id")
    t.update(where="id >= 5", values_sql={"id": "id + 1"})
    after = t.search().with_row_id(True).to_arrow().sort_by("id")
    assert after["_rowid"].to_pylist() == before["_rowid"].to_pylist()  # stable row ids
    e = db.create_table("e", schema=pa.schema([("id", pa.int64())]),
                        storage_options={"new_table_enable_stable_row_ids": True})
    assert e.count_rows() == 0
    with pytest.raises(ValueError, match="new_table_enable_stable_row_ids"):
        db.create_table("bad", pa.table({"id": [1]}),
                        storage_options={"new_table_enable_stable_row_ids": "maybe"})
    with pytest.raises(NotImplementedError, match="2.0"):
        db.create_table("v20", pa.table({"id": [1]}),
                        storage_options={"new_table_data_storage_version": "2.0"})
    assert sorted(db.list_tables().tables) == ["e", "plain", "t"]
    import lance
    ds = lance.dataset(t.uri)
    assert ds.data_storage_version == "2.2"
    theirs = ds.to_table(with_row_id=True).sort_by("id")
    assert theirs["_rowid"].to_pylist() == after["_rowid"].to_pylist()


def test_alter_columns_casts_nested_fields(tmp_path):
    db = lancedb_cpp.connect(tmp_path)
    schema = pa.schema([("id", pa.int64()),
                        ("s", pa.struct([("a", pa.int32()), ("b", pa.string())])),
                        ("l", pa.list_(pa.int32()))])
    rows = [{"id": i, "s": None if i % 4 == 0 else {"a": i * 1000, "b": f"b{i}"},
             "l": None if i % 3 == 0 else [i * 10 + k for k in range(i % 3)]} for i in range(12)]
    t = db.create_table("t", pa.Table.from_pylist(rows[:6], schema=schema))
    t.add(pa.Table.from_pylist(rows[6:], schema=schema))
    t.delete("id = 4")
    old_version = t.version
    old = t.to_arrow().sort_by("id")
    t.alter_columns({"path": "s.a", "data_type": pa.int64()},
                    {"path": "l", "data_type": pa.list_(pa.int64())})
    new_schema = pa.schema([("id", pa.int64()),
                            ("s", pa.struct([("a", pa.int64()), ("b", pa.string())])),
                            ("l", pa.list_(pa.int64()))])
    assert t.schema == new_schema
    expected = pa.Table.from_pylist([r for r in rows if r["id"] != 4], schema=new_schema)
    assert t.to_arrow().sort_by("id") == expected
    import lance
    assert lance.dataset(t.uri).to_table().sort_by("id") == expected
    assert lance.dataset(t.uri, version=old_version).to_table().sort_by("id") == old
    t.checkout(old_version)
    assert t.schema == schema and t.to_arrow().sort_by("id") == old
    t.checkout_latest()
    for bad in ({"path": "s.b", "data_type": pa.int32()},
                {"path": "s.a", "data_type": pa.float64()},
                {"path": "l", "data_type": pa.list_(pa.string())},
                {"path": "s.a", "data_type": pa.int8()}):
        version = t.version
        with pytest.raises(ValueError):
            t.alter_columns(bad)
        assert t.version == version and t.to_arrow().sort_by("id") == expected
    t.alter_columns({"path": "l", "data_type": pa.large_list(pa.int64())})  # as LanceDB allows
    large = expected.cast(pa.schema([("id", pa.int64()), new_schema.field("s"),
                                     ("l", pa.large_list(pa.int64()))]))
    assert t.to_arrow().sort_by("id") == large
    assert lance.dataset(t.uri).to_table().sort_by("id") == large


def test_stable_row_ids_survive_compaction_and_pylance_agrees(tmp_path):
    db = lancedb_cpp.connect(tmp_path, storage_options={"new_table_enable_stable_row_ids": "true"})
    t = db.create_table("t", pa.table({"id": list(range(20))}))
    t.add(pa.table({"id": list(range(20, 40))}))
    t.add(pa.table({"id": list(range(40, 60))}))
    t.delete("id % 3 = 0")
    before = t.search().with_row_id(True).to_arrow().sort_by("id")
    stats = t.compact_files()
    assert stats.fragments_added == 1
    after = t.search().with_row_id(True).to_arrow().sort_by("id")
    assert after == before
    import lance
    ds = lance.dataset(t.uri)
    theirs = ds.to_table(columns=["id"], with_row_id=True).sort_by("id")
    assert theirs["_rowid"].to_pylist() == before["_rowid"].to_pylist()
    # Update keeps the ids (as Lance: the new rows carry the old ids).
    t.update(where="id < 30", values_sql={"id": "id + 1000"})
    t.update(where="id >= 1000", values_sql={"id": "id - 1000"})
    after_update = t.search().with_row_id(True).to_arrow().sort_by("id")
    assert after_update["_rowid"].to_pylist() == before["_rowid"].to_pylist()
    assert after_update["id"].to_pylist() == before["id"].to_pylist()
    ds = lance.dataset(t.uri)
    assert sorted(ds.to_table(with_row_id=True)["_rowid"].to_pylist()) == sorted(
        before["_rowid"].to_pylist()
    )


@pytest.mark.parametrize("interval", [None, datetime.timedelta(0)])
def test_read_consistency_interval(tmp_path, interval):
    writer = lancedb_cpp.connect(tmp_path).create_table("t", pa.table({"id": [1]}))
    reader = lancedb_cpp.connect(tmp_path, read_consistency_interval=interval).open_table("t")
    writer.add(pa.table({"id": [2]}))
    if interval is None:
        assert reader.count_rows() == 1  # sees other writers only after checkout_latest
        reader.checkout_latest()
    assert reader.count_rows() == 2
    # Writes always apply to the latest version, whatever the handle read.
    writer.add(pa.table({"id": [3]}))
    r = reader.merge_insert("id").when_not_matched_insert_all().execute(pa.table({"id": [3, 4]}))
    assert r.num_inserted_rows == 1 and reader.count_rows() == 4


def test_alter_columns_cast_matches_lancedb(tmp_path):
    import lancedb
    data = pa.table({"id": pa.array(range(6), pa.int32()), "x": [i / 4 for i in range(6)],
                     "s": [str(i) for i in range(6)]})
    tables = []
    for mod, sub in ((lancedb_cpp, "cpp"), (lancedb, "oracle")):
        t = mod.connect(tmp_path / sub).create_table("t", data)
        t.delete("id = 1")
        t.alter_columns({"path": "id", "data_type": pa.int64()}, {"path": "x", "data_type": pa.float32()})
        tables.append(t)
    ours, theirs = tables
    assert ours.schema == theirs.schema
    assert ours.to_arrow().sort_by("id") == theirs.to_arrow().sort_by("id")
    with pytest.raises(ValueError, match="cannot cast"):
        ours.alter_columns({"path": "s", "data_type": pa.list_(pa.int32())})
    import lance
    assert lance.dataset(ours.uri).to_table().sort_by("id") == ours.to_arrow().sort_by("id")


def test_reader_of_a_pruned_version_fails_clearly_then_recovers(tmp_path):
    db = lancedb_cpp.connect(tmp_path)
    t = db.create_table("t", pa.table({"id": [1]}))
    t.add(pa.table({"id": [2]}))
    t.update(where="id = 1", values={"id": 10})
    reader = lancedb_cpp.connect(tmp_path).open_table("t")
    reader.checkout(1)
    t.compact_files()
    stats = t.cleanup_old_versions(datetime.timedelta(0))
    assert stats.old_versions_removed == 4
    with pytest.raises(OSError, match="No such file"):
        reader.to_arrow()
    reader.checkout_latest()
    assert sorted(reader.to_arrow()["id"].to_pylist()) == [2, 10]


def _merge_steps(mod, path):
    """The same merge() program on `mod` (lancedb or lancedb_cpp): results and errors."""
    db = mod.connect(str(path))
    t = db.create_table("t", pa.table({"x": [1, 2, 3, 4], "y": ["a", "b", "c", "d"]}))
    t.add(pa.table({"x": [5], "y": ["e"]}))  # a second fragment
    out = []
    for other, left_on, right_on in [
        (pa.table({"x": [3, 1, 9], "z": ["C", "A", "Z"]}), "x", None),
        (pa.table({"x": [1, 1], "w": [1, 2]}), "x", None),  # repeated key: the last row wins
        (pd.DataFrame({"k": [2], "u": [2.5]}), "x", "k"),
        (pa.table({"k": [1], "w": [1]}), "x", "k"),  # w exists already
        (pa.table({"x": [1], "y": ["q"]}), "x", None),
        (pa.table({"q": [1], "v": [1]}), "nope", None),
        (pa.table({"x": ["2"], "s": [2.5]}), "x", None),
    ]:
        try:
            t.merge(other, left_on, right_on)
            out.append(("ok", t.version, t.to_arrow().to_pydict()))
        except Exception as e:  # noqa: BLE001 - the error is the result compared
            msg = str(e).split(", /home")[0]  # LanceDB appends its Rust source location
            out.append((type(e).__name__, msg, t.version))
    return out


def test_merge_equals_lancedb(tmp_path):
    import lancedb

    assert _merge_steps(lancedb_cpp, tmp_path / "ours") == _merge_steps(lancedb, tmp_path / "theirs")


def test_update_and_delete_take_expressions_like_lancedb(tmp_path):
    import lancedb
    from lancedb.expr import col as their_col

    from lancedb_cpp.expr import col

    results = []
    for mod, c in ((lancedb_cpp, col), (lancedb, their_col)):
        t = mod.connect(str(tmp_path / mod.__name__)).create_table(
            "t", pa.table({"x": [1, 2, 3], "y": [1.0, 2.0, 3.0]})
        )
        r1 = t.update(where=c("x") == 2, values={"y": 20.0})
        r2 = t.update(where=c("x") > 1, values_sql={"y": "y * 2"})
        r3 = t.delete(c("x") == 1)
        results.append((r1.rows_updated, r2.rows_updated, r3.num_deleted_rows, t.version,
                        sorted(t.to_arrow().to_pylist(), key=lambda r: r["x"])))  # fmt: skip
    assert results[0] == results[1]
