# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Namespaces: LanceDB's directory namespace (``connect_namespace("dir", {"root": ...})``),
nested namespaces of tables recorded in ``<root>/__manifest``. LanceDB 0.39 is the oracle: it
lists and opens the namespaces and tables lancedb_cpp writes, and the reverse."""

import asyncio
import os
import threading

import lancedb
import pyarrow as pa
import pytest

import lancedb_cpp
from lancedb_cpp.exceptions import (
    NamespaceAlreadyExistsError,
    NamespaceNotEmptyError,
    NamespaceNotFoundError,
    TableNotFoundError,
)


def _data(value):
    return pa.table({"id": pa.array([value, value + 1], pa.int64()), "s": ["a", "b"]})


def _rows(table):
    return sorted(table.to_arrow().to_pylist(), key=lambda r: r["id"])


def _walk(list_page, limit):
    """Every name of a paged listing, and the pages' tokens."""
    names, tokens, token = [], [], None
    for _ in range(100):
        response = list_page(token, limit)
        items = getattr(response, "tables", None)
        if items is None:
            items = response.namespaces
        names += items
        tokens.append(response.page_token)
        if response.page_token is not None:
            assert response.page_token == items[-1], "the token is the page's last name"
        token = response.page_token
        if not token:
            return names, tokens
    raise AssertionError("paging did not end")


def _manifest_version(root):
    import lance

    return lance.dataset(os.path.join(root, "__manifest")).version


@pytest.fixture
def root(tmp_path):
    return str(tmp_path / "db")


def test_nested_create_list_drop_with_pagination(root):
    db = lancedb_cpp.connect_namespace("dir", {"root": root})
    db.create_namespace(["prod"])
    db.create_namespace(["prod", "analytics"], properties={"owner": "ana"})
    tables = ["t3", "t0", "t6", "t1", "t5", "t2", "t4"]
    for i, name in enumerate(tables):
        db.create_table(name, _data(i), namespace_path=["prod", "analytics"])
    children = ["n4", "n1", "n3", "n0", "n2"]
    for name in children:
        db.create_namespace(["prod", "analytics", name])

    names, tokens = _walk(
        lambda token, limit: db.list_tables(["prod", "analytics"], token, limit), 3
    )
    assert names == sorted(tables) and tokens == ["t2", "t5", None]
    names, tokens = _walk(
        lambda token, limit: db.list_namespaces(["prod", "analytics"], token, limit), 2
    )
    assert names == sorted(children) and tokens == ["n1", "n3", None]
    assert db.list_namespaces().namespaces == ["prod"]
    assert db.list_namespaces(["prod"]).namespaces == ["analytics"]
    assert db.list_tables(["prod"]).tables == []
    assert db.list_tables().tables == []
    assert db.table_names(namespace_path=["prod", "analytics"], page_token="t4", limit=2) == [
        "t5",
        "t6",
    ]
    assert db.describe_namespace(["prod", "analytics"]).properties == {"owner": "ana"}

    # LanceDB walks the same pages.
    real = lancedb.connect_namespace("dir", {"root": root})
    names, _ = _walk(lambda token, limit: real.list_tables(["prod", "analytics"], token, limit), 3)
    assert names == sorted(tables)
    names, _ = _walk(
        lambda token, limit: real.list_namespaces(["prod", "analytics"], token, limit), 2
    )
    assert names == sorted(children)

    table = db.open_table("t5", namespace_path=["prod", "analytics"])
    assert (table.name, table.namespace, table.id) == ("t5", ["prod", "analytics"],
                                                       "prod$analytics$t5")
    assert _rows(table) == _data(4).to_pylist()

    for name in tables[:3]:
        db.drop_table(name, namespace_path=["prod", "analytics"])
    assert db.list_tables(["prod", "analytics"]).tables == sorted(tables[3:])
    for name in children:
        db.drop_namespace(["prod", "analytics", name])
    db.drop_all_tables(namespace_path=["prod", "analytics"])
    db.drop_namespace(["prod", "analytics"])
    db.drop_namespace(["prod"])
    assert db.list_namespaces().namespaces == []
    assert sorted(os.listdir(root)) == ["__manifest"], "dropped tables leave no directory"
    assert real.list_namespaces().namespaces == []


def test_lancedb_lists_and_opens_our_namespaced_tables(root):
    db = lancedb_cpp.connect_namespace("dir", {"root": root})
    db.create_table("top", _data(0))
    db.create_namespace(["a"], properties={"k": "v"})
    db.create_namespace(["a", "b"])
    db.create_table("t1", _data(10), namespace_path=["a"])
    db.create_table("t2", _data(20), namespace_path=["a", "b"])
    db.create_table("empty", schema=_data(0).schema, namespace_path=["a", "b"])

    real = lancedb.connect_namespace("dir", {"root": root})
    assert real.list_namespaces().namespaces == ["a"]
    assert real.list_namespaces(["a"]).namespaces == ["b"]
    assert real.describe_namespace(["a"]).properties == {"k": "v"}
    assert real.list_tables().tables == ["top"]
    assert real.list_tables(["a"]).tables == ["t1"]
    assert real.list_tables(["a", "b"]).tables == ["empty", "t2"]
    assert _rows(real.open_table("t1", namespace_path=["a"])) == _data(10).to_pylist()
    assert _rows(real.open_table("t2", namespace_path=["a", "b"])) == _data(20).to_pylist()
    assert real.open_table("empty", namespace_path=["a", "b"]).count_rows() == 0
    assert _rows(real.open_table("top")) == _data(0).to_pylist()
    # LanceDB writes to our table, drops one, and we see both.
    real.open_table("t1", namespace_path=["a"]).add(_data(30))
    real.drop_table("t2", namespace_path=["a", "b"])
    assert db.open_table("t1", namespace_path=["a"]).count_rows() == 4
    assert db.list_tables(["a", "b"]).tables == ["empty"]
    # A plain LanceDB connection sees the root table.
    assert lancedb.connect(root).list_tables().tables == ["top"]


def test_we_list_and_open_lancedb_namespaced_tables(root):
    real = lancedb.connect_namespace("dir", {"root": root})
    real.create_table("top", _data(0))
    real.create_namespace(["x"], properties={"team": "ml"})
    real.create_namespace(["x", "y"])
    real.create_table("t1", _data(10), namespace_path=["x"])
    real.create_table("t2", _data(20), namespace_path=["x", "y"])

    db = lancedb_cpp.connect_namespace("dir", {"root": root})
    assert db.list_namespaces().namespaces == ["x"]
    assert db.list_namespaces(["x"]).namespaces == ["y"]
    assert db.describe_namespace(["x"]).properties == {"team": "ml"}
    assert db.list_tables().tables == ["top"]
    assert db.list_tables(["x"]).tables == ["t1"]
    assert db.list_tables(["x", "y"]).tables == ["t2"]
    assert _rows(db.open_table("t2", namespace_path=["x", "y"])) == _data(20).to_pylist()
    assert db.namespace_exists(["x", "y"]) and not db.namespace_exists(["y"])
    assert db.table_exists(["x", "t1"]) and not db.table_exists(["x", "t2"])
    # We write to and drop LanceDB's tables; LanceDB sees it.
    db.open_table("t1", namespace_path=["x"]).add(_data(30))
    db.drop_table("t2", namespace_path=["x", "y"])
    db.drop_namespace(["x", "y"])
    db.drop_table("top")
    assert real.open_table("t1", namespace_path=["x"]).count_rows() == 4
    assert real.list_namespaces(["x"]).namespaces == []
    assert real.list_tables().tables == []


def test_dropping_a_non_empty_namespace_needs_cascade(root):
    db = lancedb_cpp.connect_namespace("dir", {"root": root})
    db.create_namespace(["a"])
    db.create_namespace(["a", "b"])
    db.create_table("t", _data(0), namespace_path=["a", "b"])
    before = sorted(os.listdir(root))
    version = _manifest_version(root)
    for behavior in (None, "restrict", "RESTRICT"):
        with pytest.raises(NamespaceNotEmptyError, match="'a'.*cascade"):
            db.drop_namespace(["a"], behavior=behavior)
    with pytest.raises(NamespaceNotEmptyError, match="a\\$b"):
        db.drop_namespace(["a", "b"])
    assert sorted(os.listdir(root)) == before and _manifest_version(root) == version
    assert db.list_tables(["a", "b"]).tables == ["t"]
    real = lancedb.connect_namespace("dir", {"root": root})
    assert real.list_namespaces(["a"]).namespaces == ["b"]
    assert real.open_table("t", namespace_path=["a", "b"]).count_rows() == 2

    response = db.drop_namespace(["a"], behavior="cascade")
    assert response.properties is None
    assert db.list_namespaces().namespaces == [] and not db.namespace_exists(["a", "b"])
    assert sorted(os.listdir(root)) == ["__manifest"]
    assert real.list_namespaces().namespaces == []


@pytest.mark.parametrize(
    "bad", ["", ".", "..", "/", "a/b", "../x", "a\\b", "a$b", "a b", "x/../../y"]
)
def test_names_that_could_escape_the_root_are_rejected(root, bad):
    db = lancedb_cpp.connect_namespace("dir", {"root": root})
    db.create_namespace(["ok"])
    before = sorted(os.listdir(root))
    version = _manifest_version(root)
    calls = [
        lambda: db.create_table(bad, _data(0), namespace_path=["ok"]),
        lambda: db.create_table("t", _data(0), namespace_path=[bad]),
        lambda: db.create_table("t", _data(0), namespace_path=["ok", bad]),
        lambda: db.create_namespace([bad]),
        lambda: db.create_namespace(["ok", bad]),
        lambda: db.open_table("t", namespace_path=[bad]),
        lambda: db.drop_table("t", namespace_path=[bad]),
        lambda: db.drop_namespace([bad]),
        lambda: db.list_tables([bad]),
        lambda: db.list_namespaces([bad]),
        lambda: db.describe_namespace(["ok", bad]),
    ]
    for call in calls:
        with pytest.raises(ValueError, match="Invalid (table|namespace) name"):
            call()
    assert sorted(os.listdir(root)) == before, "a rejected name writes nothing"
    assert _manifest_version(root) == version
    assert not os.path.exists(os.path.join(os.path.dirname(root), "y"))


def test_namespace_path_must_be_a_list(root):
    db = lancedb_cpp.connect_namespace("dir", {"root": root})
    with pytest.raises(ValueError, match="list of names"):
        db.create_namespace("prod")
    assert not os.path.exists(root)


def test_modes_and_missing_namespaces(root):
    db = lancedb_cpp.connect_namespace("dir", {"root": root})
    assert db.create_namespace(["a"], properties={"k": "1"}).properties == {"k": "1"}
    with pytest.raises(NamespaceAlreadyExistsError, match="Namespace already exists: a"):
        db.create_namespace(["a"])
    assert db.create_namespace(["a"], mode="exist_ok", properties={"k": "2"}).properties == {
        "k": "1"
    }
    assert db.create_namespace(["a"], mode="OVERWRITE", properties={"k": "3"}).properties == {
        "k": "3"
    }
    assert db.describe_namespace(["a"]).properties == {"k": "3"}
    assert db.describe_namespace([]).properties == {}
    with pytest.raises(ValueError, match="Invalid create namespace mode 'bogus'"):
        db.create_namespace(["b"], mode="bogus")
    with pytest.raises(NamespaceAlreadyExistsError, match="root namespace"):
        db.create_namespace([])
    with pytest.raises(NamespaceNotFoundError, match="parent namespace 'nope'"):
        db.create_namespace(["nope", "child"])
    with pytest.raises(NamespaceNotFoundError, match="Namespace not found: missing"):
        db.describe_namespace(["missing"])
    with pytest.raises(NamespaceNotFoundError):
        db.list_tables(["missing"])
    with pytest.raises(NamespaceNotFoundError):
        db.list_namespaces(["missing"])
    with pytest.raises(NamespaceNotFoundError, match="missing"):
        db.drop_namespace(["missing"])
    assert db.drop_namespace(["missing"], mode="skip").properties is None
    with pytest.raises(ValueError, match="Invalid drop namespace mode"):
        db.drop_namespace(["a"], mode="bogus")
    with pytest.raises(ValueError, match="Invalid drop namespace behavior"):
        db.drop_namespace(["a"], behavior="bogus")
    with pytest.raises(ValueError, match="Root namespace cannot be dropped"):
        db.drop_namespace([])
    assert db.list_namespaces().namespaces == ["a"]

    before = sorted(os.listdir(root))
    with pytest.raises(NamespaceNotFoundError, match="missing"):
        db.create_table("t", _data(0), namespace_path=["missing"])
    assert sorted(os.listdir(root)) == before, "nothing written for a missing namespace"
    with pytest.raises(TableNotFoundError, match="a\\$zz"):
        db.open_table("zz", namespace_path=["a"])
    with pytest.raises(ValueError, match="Table 'zz' was not found"):
        db.drop_table("zz", namespace_path=["a"])
    db.drop_table("zz", namespace_path=["a"], ignore_missing=True)

    db.create_table("t", _data(0), namespace_path=["a"])
    with pytest.raises(ValueError, match="Table 't' already exists"):
        db.create_table("t", _data(5), namespace_path=["a"])
    assert db.create_table("t", _data(5), namespace_path=["a"], exist_ok=True).count_rows() == 2
    replaced = db.create_table("t", _data(7), namespace_path=["a"], mode="overwrite")
    assert _rows(replaced) == _data(7).to_pylist()
    assert _rows(db.open_table("t", namespace_path=["a"], version=1)) == _data(0).to_pylist()
    with pytest.raises(NamespaceAlreadyExistsError, match="a table has that identifier"):
        db.create_namespace(["a", "t"])


def test_plain_connections_have_namespaces_too(tmp_path):
    root = str(tmp_path / "db")
    db = lancedb_cpp.connect(root)
    db.create_table("top", _data(0))
    db.create_namespace(["n"])
    db.create_table("inner", _data(1), namespace_path=["n"])
    assert db.list_tables().tables == ["top"]
    assert db.list_tables(["n"]).tables == ["inner"]
    real = lancedb.connect(root)
    assert real.list_namespaces().namespaces == ["n"]
    assert real.list_tables(namespace_path=["n"]).tables == ["inner"]
    memory = lancedb_cpp.connect("memory://namespaces")
    memory.create_namespace(["m"])
    memory.create_table("t", _data(2), namespace_path=["m"])
    assert memory.list_tables(["m"]).tables == ["t"]
    assert memory.open_table("t", namespace_path=["m"]).count_rows() == 2


def test_async_api(root):
    async def run():
        db = lancedb_cpp.connect_namespace_async("dir", {"root": root})
        await db.create_namespace(["a"], properties={"k": "v"})
        await db.create_namespace(["a", "b"])
        for name in ["t2", "t0", "t1"]:
            await db.create_table(name, _data(0), namespace_path=["a"])
        page = await db.list_tables(["a"], limit=2)
        assert (page.tables, page.page_token) == (["t0", "t1"], "t1")
        assert (await db.list_tables(["a"], page_token="t1")).tables == ["t2"]
        assert await db.table_names(namespace_path=["a"], page_token="t0") == ["t1", "t2"]
        assert (await db.list_namespaces(["a"])).namespaces == ["b"]
        assert (await db.describe_namespace(["a"])).properties == {"k": "v"}
        assert await db.namespace_exists(["a", "b"]) and await db.table_exists(["a", "t0"])
        table = await db.open_table("t1", namespace_path=["a"])
        assert await table.count_rows() == 2
        with pytest.raises(NamespaceNotEmptyError):
            await db.drop_namespace(["a"])
        await db.drop_table("t0", ["a"])
        assert (await db.list_tables(["a"])).tables == ["t1", "t2"]
        await db.drop_namespace(["a"], behavior="cascade")
        assert (await db.list_namespaces()).namespaces == []

        plain = await lancedb_cpp.connect_async(root)
        await plain.create_namespace(["p"])
        await plain.create_table("t", _data(3), namespace_path=["p"])
        assert await plain.table_names(namespace_path=["p"]) == ["t"]

    asyncio.run(run())
    real = lancedb.connect_namespace("dir", {"root": root})
    assert real.list_tables(["p"]).tables == ["t"]


def test_concurrent_writers_lose_no_namespace(root):
    db = lancedb_cpp.connect_namespace("dir", {"root": root})
    db.create_namespace(["base"])
    errors = []

    def create(i):
        try:
            other = lancedb_cpp.connect_namespace("dir", {"root": root})
            other.create_namespace(["base", f"n{i}"])
            other.create_table(f"t{i}", _data(i), namespace_path=["base"])
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=create, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert db.list_namespaces(["base"]).namespaces == [f"n{i}" for i in range(6)]
    assert db.list_tables(["base"]).tables == [f"t{i}" for i in range(6)]
    real = lancedb.connect_namespace("dir", {"root": root})
    assert real.list_tables(["base"]).tables == [f"t{i}" for i in range(6)]


def test_connect_namespace_arguments(root):
    db = lancedb_cpp.connect_namespace("dir", {"root": root})
    assert db.uri == "namespace://dir"
    assert '"connection_type": "namespace"' in db.serialize()
    with pytest.raises(NotImplementedError, match="'rest'"):
        lancedb_cpp.connect_namespace("rest", {"uri": "http://localhost:4099"})
    with pytest.raises(ValueError, match='"root"'):
        lancedb_cpp.connect_namespace("dir", {})
    with pytest.raises(NotImplementedError, match="manifest_enabled"):
        lancedb_cpp.connect_namespace("dir", {"root": root, "manifest_enabled": "false"})
    with pytest.raises(NotImplementedError, match="bogus"):
        lancedb_cpp.connect_namespace("dir", {"root": root, "bogus": "1"})
    with pytest.raises(NotImplementedError, match="namespace_client_pushdown_operations"):
        lancedb_cpp.connect_namespace(
            "dir", {"root": root}, namespace_client_pushdown_operations=["QueryTable"]
        )
    with pytest.raises(NotImplementedError, match="clone_table"):
        db.clone_table("c", root, target_namespace_path=["x"])
    assert not os.path.exists(root)


def test_a_namespaced_table_pickles_for_another_process(root):
    import pickle

    from lancedb_cpp.permutation import Permutation

    db = lancedb_cpp.connect_namespace("dir", {"root": root})
    db.create_namespace(["a"])
    table = db.create_table("t", _data(0), namespace_path=["a"])
    permutation = Permutation.identity(table)
    restored = pickle.loads(pickle.dumps(permutation))
    assert restored.num_rows == 2


def test_lance_table_opens_a_namespaced_table(root):
    db = lancedb_cpp.connect_namespace("dir", {"root": root})
    db.create_namespace(["a"])
    db.create_table("t", _data(0), namespace_path=["a"])
    table = lancedb_cpp.table.LanceTable(db, "t", namespace_path=["a"])
    assert (table.id, table.count_rows()) == ("a$t", 2)
    opened = lancedb_cpp.table.LanceTable.open(db, "t", namespace_path=["a"])
    assert opened.namespace == ["a"]
    with pytest.raises(ValueError, match="was not found"):
        lancedb_cpp.table.LanceTable(db, "t")  # not in the root namespace


def test_a_change_that_lost_a_race_is_applied_again(root):
    """The manifest is committed only on top of the version a change read: a writer that
    committed in between is kept, and the change is read and applied again."""
    from lancedb_cpp._namespace_dir import DirectoryCatalog

    db = lancedb_cpp.connect_namespace("dir", {"root": root})
    db.create_namespace(["first"])
    catalog = DirectoryCatalog(db._inner)
    calls = []

    def change(snap):
        calls.append(snap.version)
        if len(calls) == 1:  # another writer commits after this snapshot was read
            lancedb_cpp.connect_namespace("dir", {"root": root}).create_namespace(["rival"])
        row = {k: None for k in snap.schema.names}
        row.update(object_id="mine", object_type="namespace")
        snap.rows["mine"] = row
        return "done", True

    assert catalog.mutate(change) == "done"
    assert calls[1] == calls[0] + 1, "applied again on the rival's version"
    assert db.list_namespaces().namespaces == ["first", "mine", "rival"]
    assert lancedb.connect_namespace("dir", {"root": root}).list_namespaces().namespaces == [
        "first",
        "mine",
        "rival",
    ]
