# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Errors and reprs a LanceDB user sees, compared with the installed lancedb on the same
table: nprobes bounds, query types, missing versions, empty branch names, connection and
table reprs (sync and async), closed async handles."""

import asyncio

import lancedb
import numpy as np
import pyarrow as pa
import pytest

import lancedb_cpp

QUERY = [0.1] * 8


def make_table(mod, path):
    rng = np.random.default_rng(7)
    vectors = rng.random((300, 8), dtype=np.float32).tolist()
    data = pa.table({"vector": pa.array(vectors, pa.list_(pa.float32(), 8)), "id": range(300)})
    db = mod.connect(path)
    return db, db.create_table("t", data)


def outcome(call):
    """What a call gave: ('ok', type name) or (exception type name, message)."""
    try:
        return ("ok", type(call()).__name__)
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return (type(e).__name__, str(e))


CASES = {
    "min_nprobes_zero": lambda t: t.search(QUERY).minimum_nprobes(0).to_list(),
    "min_above_default_max": lambda t: t.search(QUERY).minimum_nprobes(30).to_list(),
    "max_below_min": lambda t: t.search(QUERY).minimum_nprobes(10).maximum_nprobes(5).to_list(),
    "max_zero_is_unbounded": lambda t: t.search(QUERY).maximum_nprobes(0).to_list(),
    "min_equal_max": lambda t: t.search(QUERY).minimum_nprobes(4).maximum_nprobes(4).to_list(),
    "unknown_query_type": lambda t: t.search(QUERY, query_type="foo"),
    "missing_version": lambda t: t.checkout(999),
    "empty_branch_name": lambda t: t.branches.checkout(""),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_sync_outcomes_as_lancedb(tmp_path, case):
    _, ours = make_table(lancedb_cpp, tmp_path / "ours")
    _, theirs = make_table(lancedb, tmp_path / "theirs")
    got, want = outcome(lambda: CASES[case](ours)), outcome(lambda: CASES[case](theirs))
    assert got == want
    if case != "max_zero_is_unbounded" and case != "min_equal_max":
        assert got[0] == "ValueError"  # the cases are errors in LanceDB; the oracle must agree


def test_sync_reprs_as_lancedb(tmp_path):
    db_ours, ours = make_table(lancedb_cpp, tmp_path / "d")
    want = f"LanceTable(name='t', _conn=LanceDBConnection(uri='{tmp_path / 'd'}'))"
    assert repr(ours) == want
    assert repr(db_ours).startswith("LanceDBConnection(")
    db_theirs, theirs = make_table(lancedb, tmp_path / "e")
    assert repr(theirs) == want.replace("/d'", "/e'")
    assert type(db_theirs).__name__ == "LanceDBConnection"


async def async_story(mod, path):
    seen = []
    db = await mod.connect_async(path)
    seen.append(repr(db).replace(str(path), "D"))
    t = await db.open_table("t")
    seen.append(repr(t).replace(str(path), "D"))
    try:
        await t.search("x", query_type="foo")
    except Exception as e:  # noqa: BLE001
        seen.append((type(e).__name__, str(e)))
    t.close()
    seen.append(repr(t))
    try:
        await t.count_rows()
    except Exception as e:  # noqa: BLE001
        seen.append((type(e).__name__, str(e)))
    db.close()
    seen.append(repr(db))
    return seen


def test_async_reprs_and_closed_handles_as_lancedb(tmp_path):
    make_table(lancedb_cpp, tmp_path / "ours")
    make_table(lancedb, tmp_path / "theirs")
    got = asyncio.run(async_story(lancedb_cpp, tmp_path / "ours"))
    want = asyncio.run(async_story(lancedb, tmp_path / "theirs"))
    assert got == want
    assert got[0] == "ListingDatabase(uri=D, read_consistency_interval=None)"
    assert got[-2] == ("RuntimeError", "Table t is closed")


def _fts_table(mod, path):
    return mod.connect(path).create_table("t", pa.table({"text": ["la route", "le café"]}))


FTS_CASES = {
    "unknown_language": lambda m, t: t.create_index("text", config=m.index.FTS(language="klingon")),
    "lowercase_language": lambda m, t: t.create_index("text", config=m.index.FTS(language="french")),
    "unknown_base_tokenizer": lambda m, t: t.create_index(
        "text", config=m.index.FTS(base_tokenizer="nope")
    ),
    "stop_word_not_str": lambda m, t: t.create_index(
        "text", config=m.index.FTS(custom_stop_words=["a", 1])
    ),
    "tokenize_unknown_language": lambda m, t: m.tokenize("the lance", language="klingon"),
    "tokenize_stop_word_not_str": lambda m, t: m.tokenize("a b", custom_stop_words=["a", 42]),
    "tokenize_stop_words_str": lambda m, t: m.tokenize("a b", custom_stop_words="a"),
    "french_ok": lambda m, t: t.create_index("text", config=m.index.FTS(language="French")),
}


@pytest.mark.parametrize("case", sorted(FTS_CASES))
def test_fts_option_errors_as_lancedb(tmp_path, case):
    def run(mod):
        table = _fts_table(mod, tmp_path / mod.__name__)
        try:
            FTS_CASES[case](mod, table)
            return ("ok",), [i.index_type for i in table.list_indices()]
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            return (type(e).__name__, str(e), getattr(e, "__notes__", None)), table.list_indices()

    got, want = run(lancedb_cpp), run(lancedb)
    assert got == want
    assert (want[0][0] == "ok") == (case == "french_ok")


def test_async_optimize_stats_render_as_lancedb(tmp_path):
    async def run(mod):
        db = await mod.connect_async(tmp_path / mod.__name__)
        table = await db.create_table("t", data=[{"x": [1]}])
        await table.add(data=[{"x": [2]}])
        stats = await table.optimize()
        return str(stats), repr(stats), stats.compaction.fragments_removed

    got, want = asyncio.run(run(lancedb_cpp)), asyncio.run(run(lancedb))
    assert got == want
    assert want[2] == 2


@pytest.mark.parametrize("kind", ["btree", "bitmap_legacy", "ivf_pq", "fts"])
def test_existing_index_name_without_replace_as_lancedb(tmp_path, kind):
    """replace=False on an existing index name: LanceDB's RuntimeError, nothing committed."""

    def run(mod):
        rng = np.random.default_rng(5)
        data = pa.table({
            "id": range(300),
            "text": [f"w{i % 9}" for i in range(300)],
            "vector": pa.array(rng.random((300, 8), dtype=np.float32).tolist(), pa.list_(pa.float32(), 8)),
        })  # fmt: skip
        t = mod.connect(tmp_path / mod.__name__).create_table("t", data)
        make = {
            "btree": lambda replace: t.create_index("id", config=mod.index.BTree(), replace=replace),
            "bitmap_legacy": lambda replace: t.create_scalar_index("id", index_type="BITMAP",
                                                                   replace=replace),
            "ivf_pq": lambda replace: t.create_index(
                "vector", config=mod.index.IvfPq(num_partitions=2, num_sub_vectors=2),
                replace=replace),
            "fts": lambda replace: t.create_index("text", config=mod.index.FTS(), replace=replace),
        }[kind]  # fmt: skip
        make(True)
        version = t.version
        try:
            make(False)
            outcome = ("ok",)
        except Exception as e:  # noqa: BLE001
            # LanceDB's message ends with the Rust source location of the check
            outcome = (type(e).__name__, str(e).split(", /")[0])
        return outcome, t.version - version

    got, want = run(lancedb_cpp), run(lancedb)
    assert got == want
    assert want[0][0] == "RuntimeError" and want[1] == 0


@pytest.mark.parametrize("dim, num_sub_vectors", [(8, None), (16, None), (24, None), (4, None),
                                                  (40, None), (24, 3), (8, 1), (8, 4)])  # fmt: skip
def test_four_bit_pq_sub_vectors_as_lancedb(tmp_path, dim, num_sub_vectors):
    """4-bit PQ codes go two to a byte: an odd default number of sub-vectors is rounded up, an
    odd choice refused (LanceDB's RuntimeError); the index LanceDB would build otherwise."""
    import lance

    def run(mod):
        rng = np.random.default_rng(dim)
        vectors = pa.FixedSizeListArray.from_arrays(
            pa.array(rng.random(dim * 300, dtype=np.float32)), dim
        )
        path = tmp_path / mod.__name__
        t = mod.connect(path).create_table("t", pa.table({"id": range(300), "vector": vectors}))
        config = mod.index.IvfPq(num_bits=4, num_sub_vectors=num_sub_vectors, num_partitions=2)
        try:
            t.create_index("vector", config=config)
        except Exception as e:  # noqa: BLE001
            return (type(e).__name__, str(e).split(", /")[0]), t.version
        stats = lance.dataset(str(path / "t.lance")).stats.index_stats("vector_idx")
        return ("ok", stats["indices"][0]["sub_index"]["num_sub_vectors"]), t.version

    got, want = run(lancedb_cpp), run(lancedb)
    if want[0][0] == "ValueError":  # the dimension check: the same error, worded by us
        assert got[0][0] == "ValueError" and got[1] == want[1]
    else:
        assert got == want
    assert (want[0][0] == "ok") == (dim != 40 and num_sub_vectors in (None, 4))


def test_getitems_and_normalize_scores_as_lancedb(tmp_path):
    import random

    import pyarrow.compute as pc

    random.seed(3)
    offsets = [5, 2, 117, 2] + random.sample(range(200), 10)
    got_want = []
    for mod in (lancedb_cpp, lancedb):
        t = mod.connect(tmp_path / mod.__name__).create_table("t", pa.table({"idx": range(100)}))
        t.add(pa.table({"idx": range(100, 200)}))
        got_want.append(t.__getitems__(offsets))
    assert got_want[0] == got_want[1] == pa.table({"idx": offsets})
    for scores in ([0.1, 0.4], [2.0, 10.0, 20.0], [0.0, 0.0, 0.0], [3.0, 3.0], []):
        for invert in (False, True):
            arr = pa.array(scores, pa.float64())
            ours = lancedb_cpp.table.LanceHybridQueryBuilder._normalize_scores(arr, invert)
            theirs = lancedb.table.LanceHybridQueryBuilder._normalize_scores(arr, invert)
            assert pc.all(pc.equal(ours, theirs)).as_py() in (True, None)
            assert ours.to_pylist() == theirs.to_pylist()


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_text_vector_query_without_embedding_function_as_lancedb(tmp_path, kind):
    import traceback

    def run(mod):
        path = tmp_path / mod.__name__
        mod.connect(path).create_table("t", pa.table({"vector": [[1.0, 2.0]], "text": ["a"]}))

        async def search_async():
            t = await (await mod.connect_async(path)).open_table("t")
            await t.search("0.1", query_type="vector")

        try:
            if kind == "sync":
                mod.connect(path).open_table("t").search("0.1", query_type="vector").to_list()
            else:
                asyncio.run(search_async())
            return ("ok",)
        except Exception as e:  # noqa: BLE001
            return "".join(traceback.format_exception_only(type(e), e)).strip()

    got, want = run(lancedb_cpp), run(lancedb)
    assert got == want
    assert want.startswith("ValueError")


def test_label_list_item_types_as_lancedb(tmp_path):
    """Which list columns take a LABEL_LIST index: the same as LanceDB's (and Lance's words)."""
    import datetime

    item = pa.struct([pa.field("tag", pa.string())])
    cols = {
        "i64": pa.array([[1]], pa.list_(pa.int64())), "u8": pa.array([[1]], pa.list_(pa.uint8())),
        "s": pa.array([["a"]], pa.list_(pa.string())),
        "ls": pa.array([["a"]], pa.list_(pa.large_string())),
        "b": pa.array([[True]], pa.list_(pa.bool_())),
        "bin": pa.array([[b"a"]], pa.list_(pa.binary())),
        "ll": pa.array([[1]], pa.large_list(pa.int64())),
        "f32": pa.array([[1.0]], pa.list_(pa.float32())),
        "d": pa.array([[datetime.date(2020, 1, 1)]], pa.list_(pa.date32())),
        "st": pa.array([[{"tag": "a"}]], pa.list_(item)), "n": pa.array([1], pa.int64()),
    }  # fmt: skip

    def run(mod):
        t = mod.connect(tmp_path / mod.__name__).create_table("t", pa.table(cols))
        out = {}
        for c in cols:
            try:
                t.create_index(c, config=mod.index.LabelList())
                out[c] = "ok"
            except ValueError as e:
                assert f"A LabelList index cannot be created on the field `{c}`" in str(e)
                out[c] = "refused"
        return out

    got, want = run(lancedb_cpp), run(lancedb)
    assert got == want
    assert want["f32"] == "refused" and want["i64"] == "ok"


def test_namespace_errors_are_lance_namespaces_as_lancedb(tmp_path):
    """LanceDB raises lance_namespace's errors for namespace operations: except clauses
    written against them catch ours (which keep their built-in bases too)."""
    from lance_namespace.errors import NamespaceNotEmptyError, TableNotFoundError

    for mod in (lancedb_cpp, lancedb):
        db = mod.connect(tmp_path / mod.__name__)
        db.create_namespace(["child"])
        db.create_table("tbl", schema=pa.schema([pa.field("id", pa.int64())]),
                        namespace_path=["child"])  # fmt: skip
        with pytest.raises(TableNotFoundError, match=r"child\$missing"):
            db.open_table("missing", namespace_path=["child"])
        with pytest.raises(NamespaceNotEmptyError):
            db.drop_namespace(["child"])
    with pytest.raises(ValueError):
        lancedb_cpp.connect(tmp_path / "lancedb_cpp").open_table("missing", namespace_path=["child"])
