# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Manifest naming: tables created with V1 names (by LanceDB or lancedb_cpp), migrated to V2
by lancedb_cpp, then read by LanceDB and pylance at every version; an interrupted migration."""

import asyncio
import os
import shutil

import lance
import lancedb
import pyarrow as pa
import pytest

import lancedb_cpp

V1 = {"new_table_enable_v2_manifest_paths": "false"}


def manifests(path):
    return sorted(n for n in os.listdir(os.path.join(path, "_versions")) if n.endswith(".manifest"))


def v2_name(version):
    return f"{2**64 - 1 - version:020d}.manifest"


def make_v1_table_with_lancedb(tmp_path):
    real = lancedb.connect(str(tmp_path))
    t = real.create_table("t", pa.table({"id": [1, 2]}), storage_options=V1)
    t.add(pa.table({"id": [3]}))
    t.tags.create("first", 1)
    return os.path.join(str(tmp_path), "t.lance")


def test_migrate_table_written_by_lancedb(tmp_path):
    path = make_v1_table_with_lancedb(tmp_path)
    assert manifests(path) == ["1.manifest", "2.manifest"]
    t = lancedb_cpp.connect(tmp_path).open_table("t")
    assert t.uses_v2_manifest_paths() is False
    t.migrate_v2_manifest_paths()
    assert t.uses_v2_manifest_paths() is True
    assert manifests(path) == [v2_name(2), v2_name(1)]
    t.migrate_v2_manifest_paths()  # a no-op
    assert manifests(path) == [v2_name(2), v2_name(1)]

    real = lancedb.connect(str(tmp_path)).open_table("t")
    assert real.uses_v2_manifest_paths() is True
    assert [v["version"] for v in real.list_versions()] == [1, 2]
    assert real.to_arrow()["id"].to_pylist() == [1, 2, 3]
    real.checkout("first")
    assert real.to_arrow()["id"].to_pylist() == [1, 2]
    assert lance.dataset(path, version=1).to_table()["id"].to_pylist() == [1, 2]

    # New versions get V2 names; both libraries read them and time travel still works.
    t.add(pa.table({"id": [4]}))
    assert manifests(path) == [v2_name(3), v2_name(2), v2_name(1)]
    assert lancedb.connect(str(tmp_path)).open_table("t").to_arrow()["id"].to_pylist() == [
        1, 2, 3, 4]
    t.checkout(1)
    assert t.to_arrow()["id"].to_pylist() == [1, 2]
    t.checkout_latest()
    t.restore(2)
    assert lance.dataset(path).to_table()["id"].to_pylist() == [1, 2, 3]


def test_create_with_v1_names_agrees_with_lancedb(tmp_path):
    db = lancedb_cpp.connect(tmp_path)
    a = db.create_table("a", pa.table({"id": [1]}), storage_options=V1)
    with pytest.warns(DeprecationWarning):
        b = db.create_table("b", pa.table({"id": [1]}), enable_v2_manifest_paths=False)
    c = db.create_table("c", pa.table({"id": [1]}))
    real = lancedb.connect(str(tmp_path))
    for t in (a, b, c):
        assert t.uses_v2_manifest_paths() == real.open_table(t.name).uses_v2_manifest_paths()
    assert [a.uses_v2_manifest_paths(), b.uses_v2_manifest_paths(),
            c.uses_v2_manifest_paths()] == [False, False, True]
    assert manifests(os.path.join(str(tmp_path), "a.lance")) == ["1.manifest"]


def test_migrate_refused_while_checked_out(tmp_path):
    path = make_v1_table_with_lancedb(tmp_path)
    t = lancedb_cpp.connect(tmp_path).open_table("t")
    t.checkout(1)
    # LanceDB: "Invalid input, table cannot be modified when a specific version is checked out"
    with pytest.raises(ValueError, match="checked out"):
        t.migrate_v2_manifest_paths()
    assert manifests(path) == ["1.manifest", "2.manifest"]


def test_async_and_memory(tmp_path):
    make_v1_table_with_lancedb(tmp_path)

    async def run():
        adb = await lancedb_cpp.connect_async(tmp_path)
        at = await adb.open_table("t")
        before = await at.uses_v2_manifest_paths()
        await at.migrate_manifest_paths_v2()
        await at.migrate_v2_manifest_paths()
        return before, await at.uses_v2_manifest_paths()

    assert asyncio.run(run()) == (False, True)
    assert lancedb.connect(str(tmp_path)).open_table("t").uses_v2_manifest_paths()
    m = lancedb_cpp.connect("memory://paths").create_table("m", pa.table({"id": [1]}),
                                                           storage_options=V1)
    m.add(pa.table({"id": [2]}))
    assert m.uses_v2_manifest_paths() is False
    m.migrate_v2_manifest_paths()
    assert m.uses_v2_manifest_paths() is True
    m.checkout(1)
    assert m.to_arrow()["id"].to_pylist() == [1]


def test_interrupted_migration_stays_readable_and_finishes(tmp_path):
    path = make_v1_table_with_lancedb(tmp_path)
    lancedb.connect(str(tmp_path)).open_table("t").add(pa.table({"id": [4]}))
    # What a crash leaves: version 1 moved, version 2 copied but its original not yet deleted,
    # version 3 not reached.
    vdir = os.path.join(path, "_versions")
    os.rename(os.path.join(vdir, "1.manifest"), os.path.join(vdir, v2_name(1)))
    shutil.copy(os.path.join(vdir, "2.manifest"), os.path.join(vdir, v2_name(2)))
    os.remove(os.path.join(vdir, "latest_version_hint.json"))
    with pytest.raises(Exception, match="multiple manifest naming schemes"):
        lance.dataset(path)  # LanceDB refuses it until the migration is rerun

    t = lancedb_cpp.connect(tmp_path).open_table("t")
    assert t.to_arrow()["id"].to_pylist() == [1, 2, 3, 4]
    assert [v["version"] for v in t.list_versions()] == [1, 2, 3]
    for version, ids in [(1, [1, 2]), (2, [1, 2, 3]), ("first", [1, 2])]:
        t.checkout(version)
        assert t.to_arrow()["id"].to_pylist() == ids
    t.checkout_latest()
    t.migrate_v2_manifest_paths()
    assert manifests(path) == [v2_name(3), v2_name(2), v2_name(1)]
    real = lancedb.connect(str(tmp_path)).open_table("t")
    assert [v["version"] for v in real.list_versions()] == [1, 2, 3]
    real.checkout(1)
    assert real.to_arrow()["id"].to_pylist() == [1, 2]
