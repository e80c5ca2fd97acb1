# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""The query builder options of LanceDB 0.39 beyond filter and projection — order_by,
with_row_address, with_fragments / fragment_ids, to_query_object, take_* with_row_id,
batch sizes, to_pandas(blob_mode) and use_lsm — sync and async, against LanceDB (and pylance
for row addresses and fragments) on the same multi-fragment table with deletions."""

import asyncio
import datetime as dt
import inspect
import math

import lance
import lancedb
import lancedb.query as lq
import pyarrow as pa
import pytest

import lancedb_cpp
from lancedb_cpp import _async_query, _fts, _vector
from lancedb_cpp import query as q
from lancedb_cpp._async import connect_async
from lancedb_cpp.query import ColumnOrdering

SCHEMA = pa.schema([
    pa.field("id", pa.int64()),
    pa.field("a", pa.int64()),
    pa.field("f", pa.float64()),
    pa.field("s", pa.utf8()),
    pa.field("b", pa.bool_()),
    pa.field("d", pa.date32()),
    pa.field("ts", pa.timestamp("us")),
    pa.field("l", pa.list_(pa.int64())),
    pa.field("st", pa.struct([pa.field("x", pa.int64()), pa.field("y", pa.utf8())])),
    pa.field("v", pa.list_(pa.float32(), 2)),
    pa.field("txt", pa.utf8()),
])  # fmt: skip
WORDS = ["apple", "banana", "cherry", "date"]
FLOATS = [1.5, math.nan, None, -0.0, 0.0, -math.inf, math.inf, 2.25]
STRINGS = [None, "b", "B", "\u00e9", "a", "ab", "b"]
LISTS = [[1, None], [1], None, [1, 2], [None], [], [0, 5]]
STRUCTS = [{"x": 1, "y": None}, {"x": None, "y": "a"}, {"x": 2, "y": "b"}, None,
           {"x": None, "y": None}, {"x": 1, "y": "a"}]  # fmt: skip
DELETED = {5, 14}


def rows(start, n):
    out = []
    for i in range(start, start + n):
        out.append({
            "id": i,
            "a": None if i % 5 == 2 else (i * 7) % 4,
            "f": FLOATS[i % len(FLOATS)],
            "s": STRINGS[i % len(STRINGS)],
            "b": [True, None, False][i % 3],
            "d": None if i % 6 == 1 else dt.date(2020, 1, 1) + dt.timedelta(days=(i * 3) % 5 - 2),
            "ts": None if i % 4 == 3 else dt.datetime(2021, 5, 5, 0, 0, i * 11 % 7),
            "l": LISTS[i % len(LISTS)],
            "st": STRUCTS[i % len(STRUCTS)],
            "v": [float(i % 9), float(i % 3)],
            "txt": f"{WORDS[i % 4]} {WORDS[(i * 3) % 4]} common",
        })  # fmt: skip
    return pa.Table.from_pylist(out, schema=SCHEMA)


def build(db):
    """Three fragments (ids 0-11, 12-20, 21-30), rows 5 and 14 deleted."""
    t = db.create_table("t", rows(0, 12))
    t.add(rows(12, 9))
    t.add(rows(21, 10))
    t.delete("id = 5 OR id = 14")
    return t


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    root = tmp_path_factory.mktemp("builders")
    ours = build(lancedb_cpp.connect(root / "ours"))
    theirs = build(lancedb.connect(root / "theirs"))
    ours.create_fts_index("txt")
    theirs.create_fts_index("txt")
    return ours, theirs, root


def run(coro):
    return asyncio.run(coro)


async def open_async(root):
    ours = await (await connect_async(root / "ours")).open_table("t")
    theirs = await (await lancedb.connect_async(root / "theirs")).open_table("t")
    return ours, theirs


def keys(table, columns):
    """The key values of each row (floats by their text: NaN comparable, -0.0 apart)."""

    def norm(v):
        return repr(v) if isinstance(v, float) else v

    cols = [table.column(c).to_pylist() if "." not in c else
            table.column(c.split(".")[0]).combine_chunks().field(c.split(".")[1]).to_pylist()
            for c in columns]  # fmt: skip
    return [tuple(norm(c[i]) for c in cols) for i in range(table.num_rows)]


def same_table(ours, theirs):
    """Equal schemas and values (NaN equal to NaN)."""
    return ours.schema == theirs.schema and keys(ours, ours.column_names) == keys(
        theirs, theirs.column_names
    )


def assert_same_order(ours, theirs, columns, whole=True):
    """The keys in the same order as LanceDB's, and ours stable: tied rows in scan (here id)
    order. LanceDB's sort does not keep ties in scan order across batches, so the rows of a
    tie cut by offset or limit may differ; the whole result (`whole`) has the same rows."""
    assert keys(ours, columns) == keys(theirs, columns)
    if whole:
        assert sorted(ours["id"].to_pylist()) == sorted(theirs["id"].to_pylist())
    k, ids = keys(ours, columns), ours["id"].to_pylist()
    for i in range(1, len(ids)):
        if k[i] == k[i - 1]:
            assert ids[i] > ids[i - 1], (columns, ids)


def orderings(spec, cls):
    return [cls(column_name=c, ascending=a, nulls_first=n) for c, a, n in spec]


# order_by --------------------------------------------------------------------------------


@pytest.mark.parametrize("column", ["a", "f", "s", "b", "d", "ts", "l", "st", "st.x", "v", "id"])
@pytest.mark.parametrize("ascending", [True, False])
@pytest.mark.parametrize("nulls_first", [True, False])
def test_order_by_every_type_matches_lancedb(tables, column, ascending, nulls_first):
    ours, theirs, _ = tables
    spec = [(column, ascending, nulls_first)]
    o = ours.search().order_by(orderings(spec, ColumnOrdering)).to_arrow()
    t = theirs.search().order_by(orderings(spec, lq.ColumnOrdering)).to_arrow()
    assert_same_order(o, t, [column])


@pytest.mark.parametrize(
    "spec, where, offset, limit",
    [
        ([("a", True, False)], None, None, 3),
        ([("a", False, True)], "id > 3", 2, 5),
        ([("a", True, False), ("s", False, True)], "id > 3", 2, 9),
        ([("b", False, False), ("f", True, True), ("id", False, False)], None, 4, None),
        ([("f", False, False)], "f IS NOT NULL", 1, 20),
    ],
)
def test_order_by_with_where_offset_limit_matches_lancedb(tables, spec, where, offset, limit):
    ours, theirs, _ = tables
    results = []
    for table, cls in ((ours, ColumnOrdering), (theirs, lq.ColumnOrdering)):
        b = table.search().order_by(orderings(spec, cls)).limit(limit).offset(offset)
        if where:
            b = b.where(where)
        results.append(b.select(["id", "a", "s", "b", "f"]).to_arrow())
    whole = offset is None and limit is None
    assert_same_order(results[0], results[1], [c for c, _, _ in spec], whole)


def test_order_by_accepts_dicts_and_none(tables):
    ours, theirs, _ = tables
    o = ours.search().order_by([{"column_name": "a", "ascending": False}]).limit(4).to_arrow()
    t = theirs.search().order_by([{"column_name": "a", "ascending": False}]).limit(4).to_arrow()
    assert_same_order(o, t, ["a"], whole=False)
    scan = ours.search().to_arrow()["id"]
    assert ours.search().order_by(None).to_arrow()["id"] == scan
    assert ours.search().order_by([]).to_arrow()["id"] == scan
    assert (ours.search().order_by([ColumnOrdering(column_name="a")]).order_by(None)
            .to_arrow()["id"] == scan)  # fmt: skip


def test_order_by_key_outside_the_selection(tables):
    # LanceDB 0.39 fails to plan this ("TakeExec requires ... _rowid"); the key is a table
    # column whatever is selected.
    ours, theirs, _ = tables
    got = ours.search().select(["id"]).order_by([ColumnOrdering(column_name="a")]).to_arrow()
    assert got.column_names == ["id"]
    full = ours.search().order_by([ColumnOrdering(column_name="a")]).to_arrow()
    assert got["id"] == full["id"]
    # An alias does not rename the key: LanceDB sorts by the table's column too.
    alias = {"a": "-a", "id": "id"}
    o = ours.search().select(alias).order_by([ColumnOrdering(column_name="a")]).to_arrow()
    t = theirs.search().select(alias).order_by([lq.ColumnOrdering(column_name="a")]).to_arrow()
    assert keys(o, ["a"]) == keys(t, ["a"])


@pytest.mark.parametrize("bad", ["nope", "_rowid", "a + 1"])
def test_order_by_unknown_column(tables, bad):
    ours, theirs, _ = tables
    with pytest.raises(ValueError, match="not found"):
        theirs.search().order_by([lq.ColumnOrdering(column_name=bad)]).to_arrow()
    with pytest.raises(ValueError, match=f"order_by: Column '{re_escape(bad)}' not found"):
        ours.search().order_by([ColumnOrdering(column_name=bad)]).to_arrow()
    with pytest.raises(ValueError, match="not found"):
        ours.search().order_by([ColumnOrdering(column_name=bad)]).output_schema()
    with pytest.raises(ValueError, match="not found"):
        ours.search([0.0, 0.0]).order_by([ColumnOrdering(column_name=bad)]).to_arrow()
    with pytest.raises(ValueError, match="not found"):
        ours.search("apple").order_by([ColumnOrdering(column_name=bad)]).to_arrow()


def re_escape(text):
    import re

    return re.escape(text)


def test_order_by_bad_arguments(tables):
    ours, _, _ = tables
    with pytest.raises(ValueError, match="order_by takes a list"):
        ours.search().order_by("a")
    with pytest.raises(ValueError):  # pydantic's ValidationError
        ours.search().order_by([{"ascending": True}])
    with pytest.raises(ValueError, match="order_by"):
        ours.search().order_by([ColumnOrdering(column_name="st.nope")]).to_arrow()
    with pytest.raises(ValueError, match="_distance"):
        ours.search([0.0, 0.0]).order_by([ColumnOrdering(column_name="_distance")]).to_arrow()


@pytest.mark.parametrize("limit, offset", [(5, None), (4, 3), (10, 2)])
def test_vector_order_by_sorts_the_nearest_rows(tables, limit, offset):
    ours, theirs, _ = tables
    spec = [("a", False, True), ("id", True, False)]
    o = ours.search([1.0, 1.0]).limit(limit).offset(offset)
    t = theirs.search([1.0, 1.0]).limit(limit).offset(offset)
    o = o.order_by(orderings(spec, ColumnOrdering)).to_arrow()
    t = t.order_by(orderings(spec, lq.ColumnOrdering)).to_arrow()
    assert o["id"] == t["id"]
    assert o["_distance"] == t["_distance"]


def test_vector_order_by_batch_and_postfilter(tables):
    ours, theirs, _ = tables
    spec = [("id", False, False)]
    two = [[0.0, 0.0], [8.0, 2.0]]
    o = ours.search(two).limit(3).order_by(orderings(spec, ColumnOrdering))
    t = theirs.search(two).limit(3).order_by(orderings(spec, lq.ColumnOrdering))
    o, t = o.to_arrow(), t.to_arrow()
    # Each query vector's rows are sorted on their own (LanceDB interleaves the queries).
    for qi in (0, 1):
        assert (o.filter(pa.compute.equal(o["query_index"], qi))["id"]
                == t.filter(pa.compute.equal(t["query_index"], qi))["id"])  # fmt: skip
    o = ours.search([0.0, 0.0]).limit(4).where("id > 0", prefilter=False)
    t = theirs.search([0.0, 0.0]).limit(4).where("id > 0", prefilter=False)
    o = o.order_by([ColumnOrdering(column_name="id", ascending=False)]).to_arrow()
    t = t.order_by([lq.ColumnOrdering(column_name="id", ascending=False)]).to_arrow()
    assert o["id"] == t["id"]


@pytest.mark.parametrize("limit, offset", [(5, None), (4, 3), (10, 2)])
def test_fts_order_by_sorts_the_best_rows(tables, limit, offset):
    ours, theirs, _ = tables
    o = ours.search("apple").limit(limit).offset(offset)
    t = theirs.search("apple").limit(limit).offset(offset)
    o = o.order_by([ColumnOrdering(column_name="id", ascending=False)]).to_arrow()
    t = t.order_by([lq.ColumnOrdering(column_name="id", ascending=False)]).to_arrow()
    assert o["id"] == t["id"]


def test_order_by_async_matches_lancedb(tables):
    _, _, root = tables

    async def main():
        ours, theirs = await open_async(root)
        spec = [("s", True, True), ("a", False, False)]
        o = ours.query().where("id < 25").order_by(orderings(spec, ColumnOrdering))
        t = theirs.query().where("id < 25").order_by(orderings(spec, lq.ColumnOrdering))
        o = await o.offset(1).limit(12).to_arrow()
        t = await t.offset(1).limit(12).to_arrow()
        assert_same_order(o, t, ["s", "a"], whole=False)
        by_id = [ColumnOrdering(column_name="id", ascending=False)]
        by_id_theirs = [lq.ColumnOrdering(column_name="id", ascending=False)]
        o = await ours.query().nearest_to([1.0, 1.0]).limit(4).order_by(by_id).to_arrow()
        t = await theirs.query().nearest_to([1.0, 1.0]).limit(4).order_by(by_id_theirs).to_arrow()
        assert o["id"] == t["id"]
        o = await ours.query().nearest_to_text("banana").order_by(by_id).to_arrow()
        t = await theirs.query().nearest_to_text("banana").order_by(by_id_theirs).to_arrow()
        assert o["id"] == t["id"]
        # order_by set before nearest_to carries over, as in LanceDB.
        o = await ours.query().order_by(by_id).nearest_to([1.0, 1.0]).limit(4).to_arrow()
        t = await theirs.query().order_by(by_id_theirs).nearest_to([1.0, 1.0]).limit(4).to_arrow()
        assert o["id"] == t["id"]

    run(main())


def test_hybrid_rejects_order_by_and_row_address(tables):
    ours, _, root = tables
    h = ours.search(query_type="hybrid").vector([1.0, 1.0]).text("apple")
    with pytest.raises(NotImplementedError, match="order_by is not supported on hybrid"):
        h.order_by([ColumnOrdering(column_name="id")]).to_arrow()
    h = ours.search(query_type="hybrid").vector([1.0, 1.0]).text("apple").with_row_address()
    with pytest.raises(NotImplementedError, match="with_row_address is not supported on hybrid"):
        h.to_arrow()

    async def main():
        t, _ = await open_async(root)
        hq = t.query().nearest_to([1.0, 1.0]).order_by([ColumnOrdering(column_name="id")])
        with pytest.raises(NotImplementedError, match="order_by"):
            await hq.nearest_to_text("apple").to_arrow()

    run(main())


# with_row_address --------------------------------------------------------------------------


def pylance_addresses(uri):
    """id -> (_rowid, _rowaddr) as pylance reads them."""
    t = lance.dataset(uri).to_table(columns=["id"], with_row_id=True, with_row_address=True)
    return dict(zip(t["id"].to_pylist(), zip(t["_rowid"].to_pylist(), t["_rowaddr"].to_pylist())))


def assert_addresses(result, expected):
    assert result.schema.field("_rowaddr").type == pa.uint64()
    assert result.num_rows > 0
    for i, a in zip(result["id"].to_pylist(), result["_rowaddr"].to_pylist()):
        assert a == expected[i][1], i


def test_row_address_matches_pylance(tables):
    ours, theirs, root = tables
    expected = pylance_addresses(ours.uri)
    assert expected == pylance_addresses(theirs.uri)  # the two tables are laid out alike
    plain = ours.search().with_row_id(True).with_row_address().to_arrow()
    assert plain.column_names[-2:] == ["_rowid", "_rowaddr"]
    assert plain.schema.field("_rowaddr").nullable  # as pylance reports it
    assert_addresses(plain, expected)
    filtered = ours.search().where("a = 1").select(["id"]).with_row_address()
    assert_addresses(filtered.to_arrow(), expected)
    assert_addresses(ours.search([3.0, 1.0]).limit(7).with_row_address().to_arrow(), expected)
    assert_addresses(ours.search("cherry").with_row_address().to_arrow(), expected)
    assert_addresses(ours.take_offsets([0, 9, 20]).with_row_address().to_arrow(), expected)
    assert_addresses(ours.take_row_ids([expected[23][0]]).with_row_address().to_arrow(), expected)
    ordered = ours.search().order_by([ColumnOrdering(column_name="s")]).with_row_address(True)
    assert_addresses(ordered.to_arrow(), expected)
    assert "_rowaddr" not in ours.search().with_row_address(False).to_arrow().column_names
    assert ours.search().with_row_address().output_schema().names[-1] == "_rowaddr"
    # LanceDB 0.39 takes the call but returns no _rowaddr column (docs/python.md).
    assert "_rowaddr" not in theirs.search().with_row_address(True).to_arrow().column_names

    async def main():
        t, lt = await open_async(root)
        assert_addresses(await t.query().with_row_address().to_arrow(), expected)
        vector = t.query().nearest_to([1.0, 2.0]).with_row_address()
        assert_addresses(await vector.to_arrow(), expected)
        assert_addresses(await t.take_offsets([3, 4]).with_row_address().to_arrow(), expected)
        assert "_rowaddr" not in (await lt.query().with_row_address().to_arrow()).column_names

    run(main())


def test_row_address_with_stable_row_ids(tmp_path):
    db = lancedb_cpp.connect(tmp_path, storage_options={"new_table_enable_stable_row_ids": "true"})
    t = build(db)
    t.update(where="id = 3", values={"a": 100})
    t.compact_files()
    expected = pylance_addresses(t.uri)
    assert any(rid != addr for rid, addr in expected.values())  # ids and addresses differ
    got = t.search().where("a >= 1").with_row_id(True).with_row_address().to_arrow()
    for row in got.select(["id", "_rowid", "_rowaddr"]).to_pylist():
        assert (row["_rowid"], row["_rowaddr"]) == expected[row["id"]]
    taken = t.take_row_ids([expected[3][0]], with_row_id=True).with_row_address().to_arrow()
    assert taken.to_pylist()[0]["id"] == 3 and taken["_rowaddr"][0].as_py() == expected[3][1]


# Fragments ---------------------------------------------------------------------------------


def test_fragment_ids_match_pylance(tables):
    ours, theirs, root = tables
    ds = lance.dataset(ours.uri)
    frags = ds.get_fragments()
    assert [f.fragment_id for f in frags] == [0, 1, 2]
    for chosen in ([1], [0, 2], []):
        picked = [f for f in frags if f.fragment_id in chosen]
        expected = ds.scanner(fragments=picked, filter="a > 0", columns=["id", "a"]).to_table()
        got = ours.search().fragment_ids(chosen).where("a > 0").select(["id", "a"]).to_arrow()
        assert got == expected
        by_objects = ours.search().with_fragments(picked).where("a > 0").select(["id", "a"])
        assert by_objects.to_arrow() == expected
    # Deleted rows stay out; ints work as fragments too; order_by and offsets apply inside.
    one = ours.search().with_fragments([1]).to_arrow()["id"].to_pylist()
    assert one == [i for i in range(12, 21) if i not in DELETED]
    top = ours.search().fragment_ids([0, 2]).limit(3)
    top = top.order_by([ColumnOrdering(column_name="id", ascending=False)])
    assert top.to_arrow()["id"].to_pylist() == [30, 29, 28]
    assert ours.search().with_fragments(frags[2]).to_arrow().num_rows == 10

    async def main():
        t, _ = await open_async(root)
        got = await t.query().fragment_ids([2]).select(["id"]).to_arrow()
        assert got["id"].to_pylist() == list(range(21, 31))
        got = await t.query().with_fragments([frags[0]]).select(["id"]).to_arrow()
        assert got["id"].to_pylist() == [i for i in range(12) if i not in DELETED]

    run(main())


def test_fragment_errors(tables):
    ours, theirs, _ = tables
    with pytest.raises(ValueError, match=r"fragment_ids not found in dataset: 7, 9"):
        ours.search().fragment_ids([9, 1, 7]).to_arrow()
    with pytest.raises(ValueError, match="cannot both be set"):
        ours.search().fragment_ids([1]).with_fragments([1]).to_arrow()
    for bad in ([-1], ["x"], [True]):
        with pytest.raises(ValueError, match="fragments must be"):
            ours.search().fragment_ids(bad).to_arrow()
    with pytest.raises(NotImplementedError, match="vector search"):
        ours.search([0.0, 0.0]).fragment_ids([1]).to_arrow()
    with pytest.raises(NotImplementedError, match="full-text search"):
        ours.search("apple").fragment_ids([1]).to_arrow()
    with pytest.raises(NotImplementedError, match="take_offsets"):
        ours.take_offsets([0]).fragment_ids([0]).to_arrow()
    # LanceDB 0.39 takes the call and scans every fragment (docs/python.md).
    assert theirs.search().fragment_ids([9]).to_arrow().num_rows == 29


# to_query_object ---------------------------------------------------------------------------


def dumps(ours, theirs):
    return ours.to_query_object().model_dump(), theirs.to_query_object().model_dump()


def same_dump(o, t):
    """Equal dumps; vectors of pyarrow arrays compared by value."""
    ov, tv = o.pop("vector"), t.pop("vector")
    assert o == t
    if isinstance(tv, list) and tv and isinstance(tv[0], pa.Array):
        assert [v.to_pylist() for v in ov] == [v.to_pylist() for v in tv]
        assert [v.type for v in ov] == [v.type for v in tv]
    else:
        assert ov == tv


def co(cls):
    return [cls(column_name="a", ascending=False, nulls_first=True)]


SYNC_CASES = [
    lambda t, m: t.search(),
    lambda t, m: t.search().where("id > 1").where("a < 3").select(["id"]).limit(3).offset(2)
    .with_row_id(True),
    lambda t, m: t.search().select({"x": "id * 2"}).limit(0).offset(0),
    lambda t, m: t.search().order_by(co(m)).with_row_address(True).fragment_ids([0]).use_lsm(False),
    lambda t, m: t.search().with_fragments([1, 2]).limit(None).offset(-3),
    lambda t, m: t.search().offset(None).limit(-1),
    lambda t, m: t.search([0.1, 0.2]),
    lambda t, m: t.search([[0.0, 0.0], [1.0, 1.0]]),
    lambda t, m: t.search([0.0, 0.0], vector_column_name="v").distance_type("cosine").nprobes(5)
    .refine_factor(2).ef(7).distance_range(0.1, 2).where("id > 0", prefilter=False)
    .bypass_vector_index().fast_search().limit(4).offset(1).order_by(co(m)),
    lambda t, m: t.search([0.0, 0.0]).minimum_nprobes(3).maximum_nprobes(0).with_row_id(False),
    lambda t, m: t.search("apple"),
    lambda t, m: t.search("apple", fts_columns="txt").phrase_query().limit(3).where("id > 2"),
    lambda t, m: t.search("apple").where("id > 2", prefilter=False).order_by(co(m)).fast_search(),
    lambda t, m: t.take_offsets([2, 1, 2]),
    lambda t, m: t.take_row_ids([2, 1, 2]).with_row_id().select(["id"]),
]  # fmt: skip


@pytest.mark.parametrize("case", range(len(SYNC_CASES)))
def test_to_query_object_matches_lancedb(tables, case):
    ours, theirs, _ = tables
    make = SYNC_CASES[case]
    o, t = dumps(make(ours, ColumnOrdering), make(theirs, lq.ColumnOrdering))
    same_dump(o, t)
    assert isinstance(make(ours, ColumnOrdering).to_query_object(), q.Query)


ASYNC_CASES = [
    lambda t, m: t.query(),
    lambda t, m: t.query().where("id > 1").where("a < 3").select(["id"]).limit(3).offset(2)
    .with_row_id(),
    lambda t, m: t.query().select({"x": "id * 2"}).limit(0).offset(0),
    lambda t, m: t.query().order_by(co(m)).with_row_address().fragment_ids([0]).use_lsm(False),
    lambda t, m: t.query().order_by([]),
    lambda t, m: t.query().nearest_to([0.1, 0.2]),
    lambda t, m: t.query().nearest_to([[0.0, 0.0], [1.0, 1.0]]),
    lambda t, m: t.query().nearest_to([0.0, 0.0]).column("v").distance_type("cosine").nprobes(5)
    .refine_factor(2).ef(7).distance_range(0.1, 2).where("id > 0").postfilter()
    .bypass_vector_index().fast_search().limit(4).offset(1).order_by(co(m)),
    lambda t, m: t.query().nearest_to([0.0, 0.0]).minimum_nprobes(3).maximum_nprobes(0),
    lambda t, m: t.query().where("a > 1").limit(3).nearest_to([0.0, 0.0]),
    lambda t, m: t.vector_search([0.0, 0.0]),
    lambda t, m: t.take_offsets([2, 1, 2]).with_row_id().select(["id"]),
    lambda t, m: t.take_row_ids([3, 3, 1]),
]  # fmt: skip


def test_to_query_object_async_matches_lancedb(tables):
    _, _, root = tables

    async def main():
        ours, theirs = await open_async(root)
        for make in ASYNC_CASES:
            o, t = dumps(make(ours, ColumnOrdering), make(theirs, lq.ColumnOrdering))
            same_dump(o, t)
        # LanceDB 0.39 panics describing async text queries; ours describes them as it
        # describes its structured full-text queries: postfilter and limit only when set.
        fts = ours.query().nearest_to_text("apple", columns="txt").limit(3).to_query_object()
        assert fts.full_text_query == q.FullTextSearchQuery(query="apple", columns=["txt"])
        assert fts.limit == 3 and fts.postfilter is None
        match = q.MatchQuery("apple", "txt")
        for t, mq in ((ours, match), (theirs, lq.MatchQuery("apple", "txt"))):
            described = (await t.search(mq)).to_query_object()
            assert described.postfilter is None and described.limit is None
        hybrid = ours.query().nearest_to([0.0, 0.0]).nearest_to_text("apple")
        with pytest.raises(NotImplementedError, match="hybrid"):
            hybrid.to_query_object()

    run(main())


def test_query_models_have_lancedbs_fields():
    assert list(q.Query.model_fields) == list(lq.Query.model_fields)
    assert list(q.FullTextSearchQuery.model_fields) == list(lq.FullTextSearchQuery.model_fields)
    ordering = {"column_name": "a", "ascending": False}
    assert q.ColumnOrdering(**ordering).model_dump() == lq.ColumnOrdering(**ordering).model_dump()
    for ours, theirs in ((q.Query, lq.Query), (q.ColumnOrdering, lq.ColumnOrdering)):
        for name, field in theirs.model_fields.items():
            assert ours.model_fields[name].default == field.default, name
    with pytest.raises(NotImplementedError, match="hybrid"):
        lancedb_cpp.connect("memory://qo").create_table("t", rows(0, 3)).search(
            query_type="hybrid").to_query_object()  # fmt: skip


# take_* with_row_id -----------------------------------------------------------------------


def test_take_with_row_id(tables):
    ours, theirs, root = tables
    # LanceDB's Table.take_offsets / take_row_ids declare with_row_id=False (LanceTable's
    # implementation lacks it; its builders' with_row_id() does the same).
    for name in ("take_offsets", "take_row_ids"):
        sig = inspect.signature(getattr(lancedb.table.Table, name))
        ours_sig = inspect.signature(getattr(lancedb_cpp.table.Table, name))
        assert ours_sig.parameters["with_row_id"] == sig.parameters["with_row_id"]
    got = ours.take_offsets([4, 0, 4], with_row_id=True).to_arrow()
    assert same_table(got, theirs.take_offsets([4, 0, 4]).with_row_id().to_arrow())
    assert "_rowid" not in ours.take_offsets([1]).to_arrow().column_names
    ids = got["_rowid"].to_pylist()
    assert same_table(ours.take_row_ids(ids, with_row_id=True).to_arrow(),
                      theirs.take_row_ids(ids).with_row_id().to_arrow())

    async def main():
        t, lt = await open_async(root)
        assert same_table(await t.take_offsets([4, 0]).with_row_id().to_arrow(),
                          await lt.take_offsets([4, 0]).with_row_id().to_arrow())

    run(main())


# Batches, pandas, lsm, timeout --------------------------------------------------------------


def batch_rows(reader):
    return [b.num_rows for b in reader]


def test_batch_size_is_honoured(tables):
    ours, theirs, root = tables
    # LanceDB cuts batches at fragment ends too ([7, 4, 7, 1, 7, 3]); both keep the maximum.
    assert max(batch_rows(theirs.search().to_batches(7))) == 7
    assert batch_rows(ours.search().to_batches(7)) == [7, 7, 7, 7, 1]
    assert batch_rows(ours.search().to_batches(0)) == [29]  # 0 and None: the default
    assert batch_rows(ours.search([1.0, 1.0]).limit(9).to_batches(4)) == batch_rows(
        theirs.search([1.0, 1.0]).limit(9).to_batches(4))  # fmt: skip
    assert batch_rows(ours.search("common").limit(20).to_batches(8)) == [8, 8, 4]
    ordered = ours.search().order_by([ColumnOrdering(column_name="a")])
    assert batch_rows(ordered.to_batches(10)) == [10, 10, 9]
    hybrid = ours.search(query_type="hybrid").vector([1.0, 1.0]).text("common").limit(5)
    assert batch_rows(hybrid.to_batches(2)) == [2, 2, 1]
    take = ours.take_offsets(list(range(5)))
    assert batch_rows(take.to_batches(max_batch_length=2)) == batch_rows(
        theirs.take_offsets(list(range(5))).to_batches(max_batch_length=2))  # fmt: skip
    for bad in (-1, 1.5, "3"):
        with pytest.raises(ValueError, match="batch_size must be a positive integer"):
            ours.search().to_batches(bad)
        with pytest.raises(ValueError, match="batch_size"):
            ours.search([1.0, 1.0]).to_batches(bad)
    with pytest.raises(ValueError, match="batch_size"):
        ours.search("common").to_batches(-2)

    async def main():
        t, lt = await open_async(root)
        reader = await t.query().to_batches(max_batch_length=4)
        assert [b.num_rows for b in await reader.read_all()] == [4] * 7 + [1]
        vector = lambda x: x.query().nearest_to([1.0, 1.0]).limit(9)  # noqa: E731
        ours_reader = await vector(t).to_batches(max_batch_length=4)
        theirs_reader = await vector(lt).to_batches(max_batch_length=4)
        assert [b.num_rows for b in await ours_reader.read_all()] == [
            b.num_rows for b in await theirs_reader.read_all()]  # fmt: skip
        with pytest.raises(ValueError, match="batch_size"):
            await t.query().to_batches(max_batch_length=-1)

    run(main())


def test_to_pandas_blob_mode(tables, tmp_path):
    ours, theirs, root = tables
    for blob_mode in ("lazy", "bytes", "descriptions"):
        got = ours.search().select(["id", "st"]).to_pandas(flatten=True, blob_mode=blob_mode)
        expected = theirs.search().select(["id", "st"]).to_pandas(flatten=True, blob_mode=blob_mode)
        assert got.equals(expected)
    with pytest.raises(ValueError, match="blob_mode must be one of"):
        ours.search().to_pandas(blob_mode="nope")
    assert ours.search().limit(2).to_pandas(types_mapper=None).shape == (2, 11)
    blobs = lancedb_cpp.connect(tmp_path).create_table(
        "b", schema=pa.schema([lancedb_cpp.blob("blob")]))
    blobs.add(pa.table({"blob": pa.array([b"x"], pa.large_binary())}))
    assert blobs.search().to_pandas().shape == (1, 1)
    assert blobs.search().to_pandas(blob_mode="bytes")["blob"].tolist() == [b"x"]
    got = blobs.take_offsets([0]).to_pandas(blob_mode="descriptions")["blob"].tolist()
    assert [d["size"] for d in got] == [1]  # test_blobs.py has the rest

    async def main():
        t, lt = await open_async(root)
        got = await t.query().select(["id", "st"]).to_pandas(flatten=1, blob_mode="bytes")
        expected = await lt.query().select(["id", "st"]).to_pandas(flatten=1, blob_mode="bytes")
        assert got.equals(expected)
        with pytest.raises(ValueError, match="blob_mode"):
            await t.query().to_pandas(blob_mode="nope")

    run(main())


def test_use_lsm_and_timeout(tables):
    ours, theirs, root = tables
    base_only = (ours.search().use_lsm(False).to_arrow(), theirs.search().use_lsm(False).to_arrow())
    assert same_table(*base_only)
    builders = (ours.search(), ours.search([1.0, 1.0]), ours.search("fig"), ours.take_offsets([1]))
    for builder in builders:
        with pytest.raises(NotImplementedError, match="use_lsm: LSM writes are not supported"):
            builder.use_lsm(True)
    # timeout: zero is always exceeded, in both engines; FTS and hybrid queries too.
    for name in ("plain", "fts", "hybrid"):
        runs = []
        for table in (ours, theirs):
            query = {
                "plain": lambda: table.search().where("id < 5"),
                "fts": lambda: table.search("fig"),
                "hybrid": lambda: table.search(query_type="hybrid").vector([1.0, 1.0]).text("fig"),
            }[name]
            with pytest.raises(RuntimeError, match="Query timeout after 0 ms"):
                query().to_arrow(timeout=dt.timedelta(0))
            runs.append(query().to_arrow(timeout=dt.timedelta(seconds=600)).num_rows)
        assert runs[0] == runs[1], name

    async def main():
        t, _ = await open_async(root)
        with pytest.raises(NotImplementedError, match="use_lsm"):
            t.query().use_lsm(True)
        with pytest.raises(NotImplementedError, match="use_lsm"):
            t.take_row_ids([0]).use_lsm(True)
        assert (await t.query().use_lsm(False).to_arrow()).num_rows == 29

    run(main())


# Signatures ----------------------------------------------------------------------------------

OURS = {
    "LanceQueryBuilder": q.LanceQueryBuilder,
    "LanceVectorQueryBuilder": _vector.LanceVectorQueryBuilder,
    "LanceFtsQueryBuilder": _fts.LanceFtsQueryBuilder,
    "LanceHybridQueryBuilder": _fts.LanceHybridQueryBuilder,
    "LanceEmptyQueryBuilder": q.LanceEmptyQueryBuilder,
    "LanceTakeQueryBuilder": q.LanceTakeQueryBuilder,
    "AsyncQueryBase": _async_query.AsyncQueryBase,
    "AsyncStandardQuery": _async_query.AsyncStandardQuery,
    "AsyncQuery": _async_query.AsyncQuery,
    "AsyncVectorQuery": _async_query.AsyncVectorQuery,
    "AsyncFTSQuery": _async_query.AsyncFTSQuery,
    "AsyncHybridQuery": _async_query.AsyncHybridQuery,
    "AsyncTakeQuery": _async_query.AsyncTakeQuery,
}


@pytest.mark.parametrize("name", sorted(OURS))
def test_every_lancedb_parameter_exists(name):
    theirs, ours = getattr(lq, name), OURS[name]
    for method, fn in inspect.getmembers(theirs, callable):
        if method.startswith("_"):
            continue
        mine = getattr(ours, method, None)
        assert mine is not None, f"{name}.{method} is missing"
        their_params = inspect.signature(fn).parameters
        my_params = inspect.signature(mine).parameters
        var_kw = any(p.kind == p.VAR_KEYWORD for p in my_params.values())
        for param in their_params:
            assert param in my_params or var_kw, f"{name}.{method} lacks {param}"
        assert inspect.iscoroutinefunction(fn) == inspect.iscoroutinefunction(mine), method
