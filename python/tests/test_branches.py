# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Branches, cherry-picks and table clones, with pylance 12 and LanceDB 0.39 as oracles both
ways: they open our branches and clones, and we open theirs."""

import asyncio
import datetime
import os

import pyarrow as pa
import pytest

import lance
import lancedb
import lancedb_cpp

ROWS = [{"id": i, "s": f"v{i}"} for i in range(10)]
MORE = [{"id": i, "s": f"v{i}"} for i in range(10, 15)]
CLEAN = dict(cleanup_older_than=datetime.timedelta(0), delete_unverified=True)


def ids(table):
    return sorted(table.to_arrow()["id"].to_pylist())


def lance_ids(ds):
    return sorted(ds.to_table()["id"].to_pylist())


@pytest.fixture
def table(tmp_path):
    """A lancedb_cpp table at version 2 (fragments 0 and 1)."""
    t = lancedb_cpp.connect(tmp_path).create_table("t", ROWS)
    t.add(MORE)
    return t


# Branches ----------------------------------------------------------------------------------


def test_branch_writes_stay_on_their_side_and_pylance_agrees(tmp_path, table):
    exp = table.branches.create("exp")
    assert (exp.version, exp.current_branch(), table.current_branch()) == (2, "exp", None)
    exp.add([{"id": 100, "s": "b"}])
    exp.delete("id < 3")
    exp.update(where="id = 5", values={"s": "branch"})
    table.add([{"id": 200, "s": "m"}])
    assert ids(exp) == list(range(3, 15)) + [100]
    assert ids(table) == list(range(15)) + [200]
    ds = lance.dataset(str(tmp_path / "t.lance"))
    listed = ds.branches.list()["exp"]
    assert table.branches.list() == {
        "exp": {key: listed[key] for key in ("parent_branch", "parent_version", "manifest_size")}
    }
    assert (listed["parent_branch"], listed["parent_version"]) == (None, 2)
    on_branch = ds.checkout_version(("exp", None))
    assert on_branch.version == exp.version == 5
    assert lance_ids(on_branch) == ids(exp)
    assert on_branch.to_table(filter="id = 5")["s"].to_pylist() == ["branch"]
    assert lance_ids(ds) == ids(table)
    assert lance_ids(ds.checkout_version(("exp", 2))) == list(range(15))
    # Reopened through the connection, and in LanceDB.
    db = lancedb_cpp.connect(tmp_path)
    assert ids(db.open_table("t", branch="exp")) == ids(exp)
    assert ids(db.open_table("t", branch="main")) == ids(table) == ids(db.open_table("t", branch=""))
    theirs = lancedb.connect(tmp_path).open_table("t", branch="exp")
    assert sorted(theirs.to_arrow()["id"].to_pylist()) == ids(exp)
    assert theirs.current_branch() == "exp"
    assert lancedb.connect(tmp_path).open_table("t").branches.list()["exp"]["parent_version"] == 2


def test_branch_listing_matches_lancedb(tmp_path):
    ours = lancedb_cpp.connect(tmp_path / "a").create_table("t", ROWS)
    theirs = lancedb.connect(tmp_path / "b").create_table("t", ROWS)
    for t in (ours, theirs):
        t.add(MORE)
        t.branches.create("exp", from_version=1).add(MORE)
        t.branches.create("nested", from_ref="exp")
        t.branches.create("x/y")
    got, want = ours.branches.list(), theirs.branches.list()
    assert got.keys() == want.keys()
    for name in want:
        assert {**got[name], "manifest_size": 0} == {**want[name], "manifest_size": 0}, name
    assert [ids(t.branches.checkout("nested")) for t in (ours, theirs)] == [
        list(range(10)) + list(range(10, 15))
    ] * 2


def test_we_open_branches_pylance_and_lancedb_made(tmp_path):
    # pylance: a branch with an append, a delete and an index, a nested branch.
    ds = lance.write_dataset(pa.Table.from_pylist(ROWS), str(tmp_path / "p.lance"))
    b = ds.create_branch("feature/x")
    b.insert(pa.Table.from_pylist(MORE))
    b = ds.checkout_version(("feature/x", None))
    b.delete("id = 1")
    b = ds.checkout_version(("feature/x", None))
    b.create_scalar_index("id", "BTREE")
    ds.create_branch("child", ("feature/x", None))
    db = lancedb_cpp.connect(tmp_path)
    t = db.open_table("p", branch="feature/x")
    assert ids(t) == lance_ids(ds.checkout_version(("feature/x", None)))
    assert [i.name for i in t.list_indices()] == ["id_idx"]
    assert t.count_rows("id = 12") == 1
    assert ids(db.open_table("p", branch="child")) == ids(t)
    assert ids(db.open_table("p")) == list(range(10))
    assert sorted(db.open_table("p").branches.list()) == ["child", "feature/x"]
    # LanceDB: a branch written on.
    theirs = lancedb.connect(tmp_path).create_table("l", ROWS)
    tb = theirs.branches.create("exp")
    tb.add(MORE)
    tb.delete("id = 0")
    mine = db.open_table("l").branches.checkout("exp")
    assert ids(mine) == sorted(tb.to_arrow()["id"].to_pylist())
    assert mine.version == tb.version
    # Ours written on a LanceDB branch: LanceDB sees it.
    mine.add([{"id": 99, "s": "ours"}])
    assert lancedb.connect(tmp_path).open_table("l", branch="exp").count_rows("id = 99") == 1
    assert theirs.count_rows("id = 99") == 0


def test_branches_from_tags_versions_and_branches_with_tags_into_them(tmp_path, table):
    table.tags.create("first", 1)
    assert ids(table.branches.create("from_tag", from_ref="first")) == list(range(10))
    assert ids(table.branches.create("from_version", from_version=1)) == list(range(10))
    exp = table.branches.create("exp")
    exp.add([{"id": 100, "s": "b"}])
    child = table.branches.create("exp/child", from_ref="exp")
    assert table.branches.list()["exp/child"]["parent_branch"] == "exp"
    assert ids(child) == ids(exp)
    assert ids(table.branches.create("old_exp", from_ref="exp", from_version=2)) == list(range(15))
    # A tag pointing into a branch, created on our side, seen by LanceDB.
    exp.tags.create("on_exp", 3)
    assert table.tags.list()["on_exp"]["version"] == 3
    theirs = lancedb.connect(tmp_path).open_table("t")
    theirs.checkout("on_exp")
    assert (theirs.current_branch(), theirs.version) == ("exp", 3)
    table.checkout("on_exp")
    assert (table.current_branch(), table.version, len(table)) == ("exp", 3, 16)
    with pytest.raises(ValueError, match="cannot be modified"):
        table.add([{"id": 1, "s": "x"}])
    # A tag LanceDB made on a branch, checked out here.
    tb = lancedb.connect(tmp_path).open_table("t", branch="exp")
    tb.tags.create("theirs_on_exp", 3)
    again = lancedb_cpp.connect(tmp_path).open_table("t")
    again.checkout("theirs_on_exp")
    assert again.current_branch() == "exp"
    assert again.tags.get_version("theirs_on_exp") == 3


def test_writes_and_maintenance_on_a_branch_never_change_main(tmp_path, table):
    table.create_scalar_index("id")
    exp = table.branches.create("exp")
    before = (table.version, ids(table), [i.name for i in table.list_indices()])
    exp.add(MORE)
    exp.delete("id = 3")
    exp.update(where="id = 4", values={"s": "x"})
    exp.merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(
        [{"id": 4, "s": "merged"}, {"id": 300, "s": "new"}]
    )
    exp.create_scalar_index("s", index_type="BITMAP")
    exp.optimize(**CLEAN)
    assert exp.count_rows("s = 'merged'") == 1
    assert exp.count_rows("id = 12") == 2
    table.checkout_latest()
    assert (table.version, ids(table), [i.name for i in table.list_indices()]) == before
    assert lance_ids(lance.dataset(str(tmp_path / "t.lance"))) == before[1]


def test_cleaning_main_keeps_what_branches_read(tmp_path, table):
    exp = table.branches.create("exp")
    want = ids(exp)
    table.delete("id = 0")
    table.optimize(**CLEAN)  # compacts both fragments, then removes every old version
    assert ids(lancedb_cpp.connect(tmp_path).open_table("t", branch="exp")) == want
    assert lance_ids(lance.dataset(str(tmp_path / "t.lance")).checkout_version(("exp", None))) == want
    # pylance cleaning main keeps them too (it honours branches as we do).
    lance.dataset(str(tmp_path / "t.lance")).cleanup_old_versions(
        older_than=datetime.timedelta(0), delete_unverified=True
    )
    assert ids(lancedb_cpp.connect(tmp_path).open_table("t", branch="exp")) == want


def test_bad_branch_input_raises_and_writes_nothing(tmp_path, table):
    for bad in ["", "main", "/x", "x/", "a..b", "../up", "a b", "x.lock", "a//b"]:
        with pytest.raises(ValueError):
            table.branches.create(bad)
    for kwargs in [{"from_ref": "nope"}, {"from_version": 99}, {"from_ref": "first"}]:
        with pytest.raises(ValueError):
            table.branches.create("x", **kwargs)
    with pytest.raises(ValueError):
        table.branches.create("x", from_version=-1)
    assert not (tmp_path / "t.lance" / "_refs").exists()
    assert not (tmp_path / "t.lance" / "tree").exists()
    with pytest.raises(ValueError, match="not found"):
        table.branches.checkout("nope")
    with pytest.raises(ValueError, match="not found"):
        table.branches.delete("nope")
    with pytest.raises(ValueError, match="not found"):
        lancedb_cpp.connect(tmp_path).open_table("t", branch="nope")
    table.branches.create("exp")
    with pytest.raises(ValueError, match="already exists"):
        table.branches.create("exp")
    with pytest.raises(ValueError, match="Version 99"):
        table.branches.checkout("exp", version=99)
    pinned = table.branches.checkout("exp", version=2)
    with pytest.raises(ValueError, match="cannot be modified"):
        pinned.add(ROWS)


def test_delete_branch(tmp_path, table):
    exp = table.branches.create("exp")
    exp.add(MORE)
    exp.branches.create("child", from_ref="exp")
    exp.tags.create("pin", 3)
    with pytest.raises(ValueError, match="branches 'child'"):
        table.branches.delete("exp")
    table.branches.delete("child")
    with pytest.raises(ValueError, match="tags 'pin'"):
        table.branches.delete("exp")
    table.tags.delete("pin")
    table.branches.delete("exp")
    assert table.branches.list() == {}
    assert not (tmp_path / "t.lance" / "tree" / "exp").exists()
    assert lance.dataset(str(tmp_path / "t.lance")).branches.list() == {}
    assert ids(table) == list(range(15))


# Diff and cherry-pick ------------------------------------------------------------------------

CHERRY_PICK_KEYS = {"status", "diff", "preview"}
DIFF_KEYS = {
    "fromBranch", "parentVersion", "mainVersion", "branchVersion", "baseMoved", "rowCountMain",
    "rowCountBranch", "rowSummary", "addedColumns", "removedColumns", "changedColumns",
    "addedIndexes", "removedIndexes", "errors",
}  # fmt: skip


def test_cherry_pick_ready_then_applied(tmp_path, table):
    exp = table.branches.create("exp")
    exp.add([{"id": 100, "s": "b"}, {"id": 101, "s": "b"}])
    exp.delete("id = 7")
    exp.update(where="id = 8", values={"s": "changed"})
    exp.add_columns({"twice": "id * 2"})
    table.delete("id = 1")  # main moved on without touching the same rows
    diff = table.branches.diff("exp")
    assert set(diff) == DIFF_KEYS
    assert (diff["fromBranch"], diff["parentVersion"], diff["mainVersion"]) == ("exp", 2, 3)
    assert (diff["branchVersion"], diff["baseMoved"], diff["errors"]) == (6, True, [])
    assert (diff["rowCountMain"], diff["rowCountBranch"]) == (14, 16)
    assert [c["name"] for c in diff["addedColumns"]] == ["twice"]
    dry = table.branches.cherry_pick("exp", dry_run=True)
    assert set(dry) == CHERRY_PICK_KEYS
    assert (dry["status"], dry["preview"]) == ("ready", {"promotedColumns": ["twice"]})
    assert table.version == 3
    done = table.branches.cherry_pick("exp")
    assert set(done) == CHERRY_PICK_KEYS | {"mainVersionAfter"}
    assert (done["status"], done["mainVersionAfter"], table.version) == ("cherryPicked", 7, 7)
    want = [i for i in range(15) if i not in (1, 7)] + [100, 101]
    assert ids(table) == want
    assert table.count_rows("s = 'changed'") == 1
    assert table.count_rows("twice = 200") == 1
    # Main does not depend on the branch any more; pylance and LanceDB read the result.
    table.branches.delete("exp")
    assert lance_ids(lance.dataset(str(tmp_path / "t.lance"))) == want
    theirs = lancedb.connect(tmp_path).open_table("t")
    assert (theirs.count_rows("twice = 14"), theirs.count_rows("twice = 16")) == (0, 1)


def test_conflicting_cherry_pick_fails_without_raising_or_committing(tmp_path, table):
    exp = table.branches.create("exp")
    exp.update(where="id = 3", values={"s": "branch"})
    table.update(where="id = 3", values={"s": "main"})
    files = sorted(os.listdir(tmp_path / "t.lance" / "data"))
    result = table.branches.cherry_pick("exp")
    assert result["status"] == "failed"
    assert "mainVersionAfter" not in result
    [error] = result["diff"]["errors"]
    assert error["code"] == "rowsChanged" and "same rows" in error["message"]
    assert table.version == 3
    assert sorted(os.listdir(tmp_path / "t.lance" / "data")) == files
    assert table.count_rows("s = 'main'") == 1
    # Other failures are reported the same way.
    table.branches.create("idle")
    assert table.branches.cherry_pick("idle")["diff"]["errors"][0]["code"] == "nothingToApply"
    child = exp.branches.create("child", from_ref="exp")
    child.add([{"id": 50, "s": "c"}])
    assert table.branches.cherry_pick("child")["diff"]["errors"][0]["code"] == "parentNotMain"
    assert exp.branches.cherry_pick("child")["status"] == "cherryPicked"
    assert exp.count_rows("id = 50") == 1
    with pytest.raises(ValueError, match="onto itself"):
        exp.branches.cherry_pick("exp")
    with pytest.raises(ValueError, match="not found"):
        table.branches.cherry_pick("nope")


def test_lancedb_refuses_local_cherry_picks_that_we_do(tmp_path):
    theirs = lancedb.connect(tmp_path).create_table("t", ROWS)
    theirs.branches.create("exp").add(MORE)
    with pytest.raises(NotImplementedError, match="Enterprise"):
        theirs.branches.cherry_pick("exp")
    ours = lancedb_cpp.connect(tmp_path).open_table("t")
    assert ours.branches.cherry_pick("exp")["status"] == "cherryPicked"
    theirs.checkout_latest()
    assert sorted(theirs.to_arrow()["id"].to_pylist()) == list(range(15))


# Clones ------------------------------------------------------------------------------------


def test_shallow_and_deep_clones_read_like_the_source_version(tmp_path, table):
    db = lancedb_cpp.connect(tmp_path)
    table.tags.create("first", 1)
    source = str(tmp_path / "t.lance")
    shallow = db.clone_table("shallow", source)
    deep = db.clone_table("deep", source, source_version=1, is_shallow=False)
    tagged = db.clone_table("tagged", source, source_tag="first")
    assert (shallow.version, deep.version, tagged.version) == (2, 1, 1)
    assert shallow.to_arrow() == table.to_arrow()
    assert deep.to_arrow() == tagged.to_arrow() == lance.dataset(source, version=1).to_table()
    assert not (tmp_path / "shallow.lance" / "data").exists()
    assert len(os.listdir(tmp_path / "deep.lance" / "data")) == 1
    # LanceDB's clone of the same source reads the same; each opens the other's clones.
    theirs = lancedb.connect(tmp_path)
    theirs.clone_table("by_lancedb", source)
    assert db.open_table("by_lancedb").to_arrow() == shallow.to_arrow()
    for name in ("shallow", "deep", "tagged"):
        assert theirs.open_table(name).to_arrow() == db.open_table(name).to_arrow()
    with pytest.raises(NotImplementedError):
        theirs.clone_table("deep_by_lancedb", source, is_shallow=False)


def test_clone_writes_and_cleanup_leave_the_other_side_intact(tmp_path, table):
    db = lancedb_cpp.connect(tmp_path)
    shallow = db.clone_table("c", tmp_path / "t.lance")
    shallow.add([{"id": 500, "s": "clone"}])
    shallow.delete("id = 2")
    table.delete("id = 9")
    assert (len(table), len(shallow)) == (14, 15)
    # Cleaning the source (compaction rewrote every fragment) keeps what the clone reads.
    table.optimize(**CLEAN)
    want = [i for i in range(15) if i != 2] + [500]
    assert ids(lancedb_cpp.connect(tmp_path).open_table("c")) == want
    assert sorted(lancedb.connect(tmp_path).open_table("c").to_arrow()["id"].to_pylist()) == want
    # Cleaning the clone never touches the source.
    shallow.optimize(**CLEAN)
    assert ids(table) == [i for i in range(15) if i != 9]
    # A deep clone outlives its source.
    deep = db.clone_table("d", tmp_path / "t.lance", is_shallow=False)
    db.drop_table("c")
    db.drop_table("t")
    assert ids(db.open_table("d")) == [i for i in range(15) if i != 9]
    deep.add([{"id": 7, "s": "again"}])
    assert len(deep) == 15


def test_lance_cleanup_does_not_know_shallow_clones(tmp_path, table):
    """Why clones are registered in their source: Lance's cleanup, which does not read the
    registry, removes files a shallow clone still reads (ours does not, see above)."""
    db = lancedb_cpp.connect(tmp_path)
    db.clone_table("c", str(tmp_path / "t.lance"))
    table.optimize()  # compaction only: the clone's files are now old
    lance.dataset(str(tmp_path / "t.lance")).cleanup_old_versions(
        older_than=datetime.timedelta(0), delete_unverified=True
    )
    with pytest.raises(OSError, match="NotFound"):
        db.open_table("c").to_arrow()


def test_bad_clones_raise_and_write_nothing(tmp_path, table):
    db = lancedb_cpp.connect(tmp_path)
    source = str(tmp_path / "t.lance")
    with pytest.raises(ValueError, match="both source_version and source_tag"):
        db.clone_table("c", source, source_version=1, source_tag="x")
    for kwargs in [{"source_version": 99}, {"source_tag": "nope"}]:
        with pytest.raises(ValueError):
            db.clone_table("c", source, **kwargs)
    with pytest.raises(ValueError, match="No Lance dataset"):
        db.clone_table("c", str(tmp_path / "nope.lance"))
    with pytest.raises(ValueError, match="already exists"):
        db.clone_table("t", source)
    with pytest.raises(ValueError):
        db.clone_table("../escape", source)
    with pytest.raises(NotImplementedError):
        db.clone_table("c", source, target_namespace_path=["ns"])
    assert db.list_tables().tables == ["t"]
    assert not (tmp_path / "c.lance").exists()


# Async -------------------------------------------------------------------------------------


def test_async_branches_and_clones(tmp_path, table):
    async def run():
        db = await lancedb_cpp.connect_async(tmp_path)
        t = await db.open_table("t")
        assert t.current_branch() is None
        exp = await t.branches.create("exp")
        assert exp.current_branch() == "exp"
        await exp.add([{"id": 100, "s": "a"}])
        assert list(await t.branches.list()) == ["exp"]
        opened = await db.open_table("t", branch="exp")
        assert await opened.count_rows() == 16
        pinned = await t.branches.checkout("exp", version=2)
        assert await pinned.count_rows() == 15
        assert (await t.branches.diff("exp"))["branchVersion"] == 3
        assert (await t.branches.cherry_pick("exp", dry_run=True))["status"] == "ready"
        assert (await t.branches.cherry_pick("exp"))["status"] == "cherryPicked"
        assert await t.count_rows() == 16
        await t.branches.delete("exp")
        clone = await db.clone_table("c", str(tmp_path / "t.lance"))
        assert await clone.count_rows() == 16

    asyncio.run(run())
