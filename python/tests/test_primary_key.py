# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""set_unenforced_primary_key against LanceDB 0.39 on the same data: the field metadata it
records, the versions it commits, its errors (types and messages) and the tables crossing
between the engines."""

import asyncio
import re

import lance
import lancedb
import pyarrow as pa
import pytest

import lancedb_cpp

KEY = b"lance-schema:unenforced-primary-key:position"

SCHEMA = pa.schema([
    pa.field("id", pa.int64(), nullable=False),
    pa.field("k", pa.string(), nullable=False),
    pa.field("n", pa.int32()),
    pa.field("f", pa.float64(), nullable=False),
    pa.field("fb", pa.binary(4), nullable=False),
    pa.field("s", pa.struct([pa.field("a", pa.int32(), nullable=False),
                             pa.field("b", pa.int32())]), nullable=False),
    pa.field("ns", pa.struct([pa.field("a", pa.int32(), nullable=False)])),
])  # fmt: skip


def data():
    return pa.table({
        "id": [1, 2, 3], "k": ["a", "b", "c"], "n": [1, None, 3], "f": [1.0, 2.0, 3.0],
        "fb": [b"aaaa", b"bbbb", b"cccc"],
        "s": [{"a": 1, "b": 1}, {"a": 2, "b": None}, {"a": 3, "b": 3}],
        "ns": [{"a": 1}, None, {"a": 3}],
    }, schema=SCHEMA)  # fmt: skip


def key_fields(schema):
    """Dot paths of the fields carrying the primary-key metadata, with its value."""
    out = {}

    def walk(field, prefix):
        path = prefix + field.name
        if field.metadata and KEY in field.metadata:
            out[path] = field.metadata[KEY]
        if pa.types.is_struct(field.type):
            for child in field.type:
                walk(child, path + ".")

    for field in schema:
        walk(field, "")
    return out


def outcome(table, columns):
    try:
        table.set_unenforced_primary_key(columns)
    except Exception as e:  # noqa: BLE001 - the exception itself is compared
        # LanceDB prints a nested type's children in Rust's Debug form ("Struct([Field {...")
        # where lancedb_cpp names the type only.
        return type(e), re.sub(r"dtype (\w+)\(.*\) which", r"dtype \1 which", str(e))
    return None, key_fields(table.schema), table.version


def both(tmp_path):
    ours = lancedb_cpp.connect(tmp_path / "ours").create_table("t", data())
    theirs = lancedb.connect(tmp_path / "theirs").create_table("t", data())
    return ours, theirs


@pytest.mark.parametrize(
    "columns",
    ["id", "k", ("fb",), ["s.a"], "f", "nope", [], ["k", "id"], ["id", "id"], "s", "s.nope"],
)
def test_first_key_as_lancedb(tmp_path, columns):
    ours, theirs = both(tmp_path)
    assert outcome(ours, columns) == outcome(theirs, columns)
    assert key_fields(ours.schema) == key_fields(theirs.schema)


@pytest.mark.parametrize("columns", ["n", "s.b", "ns.a"])
def test_nullable_key_is_a_runtime_error_as_lancedb(tmp_path, columns):
    ours, theirs = both(tmp_path)
    with pytest.raises(RuntimeError, match="must not be nullable"):
        theirs.set_unenforced_primary_key(columns)
    with pytest.raises(RuntimeError, match="Primary key column and all its ancestors must not be "
                                           "nullable"):  # fmt: skip
        ours.set_unenforced_primary_key(columns)
    assert ours.version == 1
    assert key_fields(ours.schema) == {}


@pytest.mark.parametrize("second", ["id", "k", "nope", ["a", "b"], []])
def test_a_key_once_set_cannot_change(tmp_path, second):
    ours, theirs = both(tmp_path)
    ours.set_unenforced_primary_key("id")
    theirs.set_unenforced_primary_key("id")
    assert outcome(ours, second) == outcome(theirs, second)
    assert ours.version == theirs.version == 2


def test_key_crosses_between_engines(tmp_path):
    ours = lancedb_cpp.connect(tmp_path).create_table("t", data())
    ours.set_unenforced_primary_key("s.a")
    # pylance and LanceDB read the key lancedb_cpp recorded
    assert key_fields(lance.dataset(ours.uri).schema) == {"s.a": b"1"}
    theirs = lancedb.connect(tmp_path).open_table("t")
    with pytest.raises(ValueError, match="already set"):
        theirs.set_unenforced_primary_key("id")
    # it survives writes of both engines
    theirs.add(data())
    ours.add(data())
    ours.delete("id = 2")
    assert key_fields(ours.schema) == {"s.a": b"1"}
    assert key_fields(lancedb.connect(tmp_path).open_table("t").schema) == {"s.a": b"1"}

    # and a key LanceDB set is seen by lancedb_cpp
    other = lancedb.connect(tmp_path).create_table("u", data())
    other.set_unenforced_primary_key("fb")
    mine = lancedb_cpp.connect(tmp_path).open_table("u")
    assert key_fields(mine.schema) == {"fb": b"1"}
    with pytest.raises(ValueError, match="already set"):
        mine.set_unenforced_primary_key("id")


def test_async_twin(tmp_path):
    async def run():
        db = await lancedb_cpp.connect_async(tmp_path)
        t = await db.create_table("t", data())
        await t.set_unenforced_primary_key(["k"])
        with pytest.raises(ValueError, match="compound primary keys are not supported"):
            await t.set_unenforced_primary_key(["k", "id"])
        return key_fields(await t.schema()), await t.version()

    assert asyncio.run(run()) == ({"k": b"1"}, 2)


def test_read_only_handle_writes_nothing(tmp_path):
    t = lancedb_cpp.connect(tmp_path).create_table("t", data())
    t.add(data())
    t.checkout(1)
    with pytest.raises(ValueError):
        t.set_unenforced_primary_key("id")
    t.checkout_latest()
    assert t.version == 2
    assert key_fields(t.schema) == {}


def test_namespace_client_as_lancedb(tmp_path):
    from lance_namespace import ListTablesRequest, TableExistsRequest

    db = lancedb_cpp.connect(tmp_path)
    db.create_table("a", data())
    db.create_table("b", data())
    client = db.namespace_client()
    assert client is db.namespace_client()  # made once per connection
    theirs = lancedb.connect(tmp_path).namespace_client()
    assert type(client) is type(theirs)
    assert client.namespace_id() == theirs.namespace_id()
    assert sorted(client.list_tables(ListTablesRequest(id=[])).tables) == ["a", "b"]
    client.table_exists(TableExistsRequest(id=["a"]))

    async def run():
        adb = await lancedb_cpp.connect_async(tmp_path)
        return (await adb.namespace_client()).namespace_id()

    assert asyncio.run(run()) == theirs.namespace_id()

    ns = lancedb_cpp.connect_namespace("dir", {"root": str(tmp_path / "ns")})
    ns.create_table("c", data())
    assert ns.namespace_client().list_tables(ListTablesRequest(id=[])).tables == ["c"]

    with pytest.raises(NotImplementedError, match="memory://"):
        lancedb_cpp.connect("memory://x").namespace_client()
