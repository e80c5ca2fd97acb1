# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Full-text search from Python against the real LanceDB on the same data: top-10 rows and
``_score`` of every query kind, with and without filters, on indices built by either engine
(each opens the other's); appends, deletes, updates, optimize and compaction against a fresh
index; hybrid search fused as LanceDB fuses it; tokenize(); bad input."""

import random

import lancedb as real_lancedb
import numpy as np
import pyarrow as pa
import pytest
from lancedb.query import BooleanQuery as RealBoolean
from lancedb.query import BoostQuery as RealBoost
from lancedb.query import MatchQuery as RealMatch
from lancedb.query import MultiMatchQuery as RealMultiMatch
from lancedb.query import Occur as RealOccur
from lancedb.query import PhraseQuery as RealPhrase

import lancedb_cpp as lancedb
from lancedb_cpp.index import FTS
from lancedb_cpp.query import BooleanQuery, BoostQuery, MatchQuery, MultiMatchQuery, Occur
from lancedb_cpp.query import PhraseQuery

# English words whose analysis is the same in both engines (checked by a test below).
WORDS = (
    "apple banana cherry dog lazy quick brown fox jumps over the river stone light night green "
    "garden house houses running runs runner table chair window door music song dance happy "
    "sad blue red yellow orange purple black white small large big little old young new city "
    "town village country world earth water fire air wind rain snow sun moon star sky cloud "
    "tree forest flower grass leaf root seed fruit bread cheese milk coffee tea sugar salt book "
    "paper letter word story poem author reader write read speak listen teacher student school "
    "class lesson answer question number count math science history art painting picture "
    "camera phone computer keyboard mouse screen data table query index vector search engine "
    "fast slow quickly slowly and or not with without under above near far between"
).split()


def make_rows(start, n, seed, dim=8):
    rng = random.Random(seed)
    weights = [1.0 / (i + 1) for i in range(len(WORDS))]  # Zipf-like
    texts, titles = [], []
    for i in range(start, start + n):
        if i % 37 == 11:
            texts.append(None)
        else:
            texts.append(" ".join(rng.choices(WORDS, weights, k=rng.randint(1, 25))))
        titles.append(" ".join(rng.choices(WORDS, weights, k=rng.randint(1, 4))))
    vectors = np.random.default_rng(seed).random((n, dim), dtype=np.float32)
    return pa.table(
        {
            "id": pa.array(range(start, start + n), pa.int64()),
            "text": pa.array(texts, pa.utf8()),
            "title": pa.array(titles, pa.utf8()),
            "n": pa.array([i % 5 for i in range(start, start + n)], pa.int64()),
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), dim),
        }
    )


def both_tables(tmp_path, data, **fts):
    ours = lancedb.connect(str(tmp_path / "ours")).create_table("t", data)
    real = real_lancedb.connect(str(tmp_path / "real")).create_table("t", data)
    for column in ("text", "title"):
        opts = dict(fts)
        if column == "title":
            opts.pop("with_position", None)
        ours.create_fts_index(column, **opts)
        real.create_fts_index(column, **opts)
    return ours, real


def rows_of(result):
    ids = result.column("id").to_pylist()
    scores = result.column("_score").to_pylist()
    return list(zip(ids, scores))


def assert_same(ours, real, context=""):
    """The same rows with the same scores (within 1e-4), best first. Rows tied with the last
    returned score may differ (either engine may cut a tie anywhere)."""
    o, r = rows_of(ours), rows_of(real)
    assert len(o) == len(r), f"{context}: {len(o)} rows, LanceDB {len(r)}: {o} vs {r}"
    for (_, os_), (_, rs) in zip(o, r):
        assert os_ == pytest.approx(rs, abs=1e-4), f"{context}: {o} vs {r}"
    if not r:
        return
    last = r[-1][1]
    above_o = {i: s for i, s in o if s > last + 1e-4}
    above_r = {i: s for i, s in r if s > last + 1e-4}
    assert above_o.keys() == above_r.keys(), f"{context}: {o} vs {r}"
    for i, s in above_o.items():
        assert s == pytest.approx(above_r[i], abs=1e-4), f"{context}: row {i}: {o} vs {r}"


def test_vocabulary_analyzes_the_same_in_both_engines():
    for word in WORDS:
        ours = [(t.text, t.position) for t in lancedb.tokenize(word)]
        real = [(t.text, t.position) for t in real_lancedb.tokenize(word)]
        assert ours == real, word


QUERIES = [
    ("match", lambda m: m.MatchQuery("lazy dog", "text")),
    ("match-and", lambda m: m.MatchQuery("lazy dog", "text", operator="AND")),
    ("match-boost", lambda m: m.MatchQuery("river stone", "text", boost=2.5)),
    ("match-repeat", lambda m: m.MatchQuery("apple apple banana", "text")),
    ("fuzzy", lambda m: m.MatchQuery("gardn rivr", "text", fuzziness=1)),
    ("fuzzy-prefix", lambda m: m.MatchQuery("hapy", "text", fuzziness=2, prefix_length=1)),
    ("phrase", lambda m: m.PhraseQuery("lazy dog", "text")),
    ("phrase-slop", lambda m: m.PhraseQuery("apple banana", "text", slop=2)),
    ("multi", lambda m: m.MultiMatchQuery("apple music", ["text", "title"], boosts=[1.0, 3.0])),
    (
        "boolean",
        lambda m: m.BooleanQuery(
            [
                (m.Occur.MUST, m.MatchQuery("apple", "text")),
                (m.Occur.SHOULD, m.MatchQuery("banana", "text")),
                (m.Occur.MUST_NOT, m.MatchQuery("cherry", "text")),
            ]
        ),
    ),
    ("boost", lambda m: m.BoostQuery(m.MatchQuery("apple", "text"), m.MatchQuery("dog", "text"))),
]


class _Ours:
    MatchQuery, PhraseQuery, MultiMatchQuery = MatchQuery, PhraseQuery, MultiMatchQuery
    BooleanQuery, BoostQuery, Occur = BooleanQuery, BoostQuery, Occur


class _Real:
    MatchQuery, PhraseQuery, MultiMatchQuery = RealMatch, RealPhrase, RealMultiMatch
    BooleanQuery, BoostQuery, Occur = RealBoolean, RealBoost, RealOccur


def real_query(real, q, where=None, prefilter=True, limit=10):
    b = real.search(q, query_type="fts").limit(limit)
    if where is not None:
        b = b.where(where, prefilter=prefilter)
    return b.select(["id"]).to_arrow()


def our_query(ours, q, where=None, prefilter=True, limit=10):
    b = ours.search(q, query_type="fts").limit(limit)
    if where is not None:
        b = b.where(where, prefilter=prefilter)
    return b.select(["id"]).to_arrow()


@pytest.mark.parametrize("name,make", QUERIES, ids=[q[0] for q in QUERIES])
@pytest.mark.parametrize("where", [None, "n = 2", "n < 3 AND id > 100"])
def test_query_kinds_equal_lancedb(tmp_path, name, make, where):
    ours, real = both_tables(tmp_path, make_rows(0, 800, 1), with_position=True)
    assert_same(
        our_query(ours, make(_Ours), where),
        real_query(real, make(_Real), where),
        f"{name} where={where}",
    )


def test_selecting_score_and_row_id(tmp_path):
    ours, real = both_tables(tmp_path, make_rows(0, 200, 11))
    o = ours.search("apple", query_type="fts").select(["id", "_score"]).with_row_id(True)
    r = real.search("apple", query_type="fts").select(["id", "_score"]).with_row_id(True)
    o, r = o.to_arrow(), r.to_arrow()
    assert sorted(o.column_names) == sorted(r.column_names)
    assert_same(o, r, "select _score")
    # One fragment: the row id is the row's offset, here its id.
    assert o.column("_rowid").to_pylist() == o.column("id").to_pylist()
    assert r.column("_rowid").to_pylist() == r.column("id").to_pylist()


def test_plain_strings_quoted_phrases_and_postfilter_equal_lancedb(tmp_path):
    ours, real = both_tables(tmp_path, make_rows(0, 600, 2), with_position=True)
    for q in ["quick brown fox", '"lazy dog"', "the", "zebra unicorn"]:
        o = ours.search(q, query_type="fts", fts_columns="text").select(["id"]).to_arrow()
        r = real.search(q, query_type="fts", fts_columns="text").select(["id"]).to_arrow()
        assert_same(o, r, q)
    o = our_query(ours, "apple", "n = 1", prefilter=False, limit=5)
    r = real_query(real, "apple", "n = 1", prefilter=False, limit=5)
    assert_same(o, r, "postfilter")


def test_each_engine_reads_the_others_index(tmp_path):
    data = make_rows(0, 700, 3)
    ours_db = lancedb.connect(str(tmp_path / "a"))
    ours_db.create_table("t", data).create_fts_index("text", with_position=True)
    real_db = real_lancedb.connect(str(tmp_path / "b"))
    real_db.create_table("t", data).create_fts_index("text", with_position=True)
    # LanceDB opens lancedb-cpp's index and lancedb-cpp opens LanceDB's.
    theirs_on_ours = real_lancedb.connect(str(tmp_path / "a")).open_table("t")
    ours_on_theirs = lancedb.connect(str(tmp_path / "b")).open_table("t")
    assert [i.index_type for i in theirs_on_ours.list_indices()] == ["FTS"]
    assert [i.index_type for i in ours_on_theirs.list_indices()] == ["FTS"]
    queries = [(q, q) for q in ["lazy dog", '"quick brown"', "apple music river"]]
    queries += [(make(_Ours), make(_Real)) for name, make in QUERIES if name != "multi"]
    for ours_q, real_q in queries:
        expected = real_query(real_db.open_table("t"), real_q)
        assert_same(our_query(ours_on_theirs, ours_q), expected, f"ours on LanceDB's: {ours_q}")
        assert_same(real_query(theirs_on_ours, real_q), expected, f"LanceDB on ours: {real_q}")
    stats = theirs_on_ours.index_stats("text_idx")
    assert stats.num_indexed_rows == 700 and stats.index_type == "FTS"


def test_maintenance_equals_a_fresh_index(tmp_path):
    ours, real = both_tables(tmp_path, make_rows(0, 500, 4))
    for t in (ours, real):
        t.add(make_rows(500, 150, 5))
        t.delete("id % 9 = 4")
        t.update(where="id % 13 = 6", values={"text": "dog dog lazy garden"})
    # Before optimize: appended rows are searched exactly, deleted rows never come back.
    for q in ["dog", "lazy garden", "apple"]:
        assert_same(our_query(ours, q), real_query(real, q), f"unindexed rows: {q}")
    ours.optimize()
    real.optimize()
    fresh_db = lancedb.connect(str(tmp_path / "fresh"))
    fresh = fresh_db.create_table("t", ours.to_arrow())
    fresh.create_fts_index("text")
    fresh.create_fts_index("title")
    for q in ["dog", "lazy garden", "apple"]:
        assert_same(our_query(ours, q), our_query(fresh, q), f"after optimize: {q}")
        assert_same(our_query(ours, q), real_query(real, q), f"after optimize vs LanceDB: {q}")
    assert ours.index_stats("text_idx").num_unindexed_rows == 0


def test_stable_row_ids(tmp_path):
    db = lancedb.connect(str(tmp_path / "s"))
    t = db.create_table(
        "t", make_rows(0, 300, 6), storage_options={"new_table_enable_stable_row_ids": "true"}
    )
    t.create_fts_index("text")
    t.delete("id < 50")
    t.add(make_rows(300, 50, 7))
    # An updated row keeps its id: its old text must not match, and it comes back once.
    t.update(where="id >= 50 AND id < 60", values={"text": "zebra zebra"})
    zebra = t.search("zebra", query_type="fts").limit(100).select(["id"]).to_arrow()
    assert sorted(zebra.column("id").to_pylist()) == list(range(50, 60))
    for word in ["dog", "apple", "river"]:
        ids = t.search(word, query_type="fts").limit(1000).select(["id"]).to_arrow()
        assert not any(50 <= i < 60 for i in ids.column("id").to_pylist()), word
    t.optimize()
    fresh = lancedb.connect(str(tmp_path / "f")).create_table("t", t.to_arrow())
    fresh.create_fts_index("text")
    for q in ["dog lazy", "apple"]:
        assert_same(our_query(t, q), our_query(fresh, q), q)


def test_tokenize_cases_equal_lancedb():
    cases = [
        ("The quick brown foxes are running quickly", {}),
        ("Café naïve résumé Über ÆSIR straße", {}),
        ("having does very over all through", {}),
        ("THE Quick", {"lower_case": False}),
        ("hello world", {"base_tokenizer": "ngram"}),
        ("hello world", {"base_tokenizer": "ngram", "ngram_min_length": 2, "prefix_only": True}),
        ("日本語のテキスト 中文文本", {"base_tokenizer": "icu"}),
        ("a" * 39 + " " + "b" * 40 + " " + "é" * 20, {}),
        ("a" * 60, {"max_token_length": None}),
        ("hello, world! C++ U.S.A. 3.14", {"base_tokenizer": "whitespace"}),
        ("Raw Text Here", {"base_tokenizer": "raw"}),
        ("the dog and the cat", {"custom_stop_words": ["dog"]}),
        ("the dog and the cat", {"custom_stop_words": []}),
        ("les chiens mangent", {"language": "French"}),
    ]
    for text, opts in cases:
        ours = [(t.text, t.position) for t in lancedb.tokenize(text, **opts)]
        real = [(t.text, t.position) for t in real_lancedb.tokenize(text, **opts)]
        assert ours == real, (text, opts)


def test_hybrid_search_equals_lancedb(tmp_path):
    from lancedb.rerankers import LinearCombinationReranker as RealLinear

    from lancedb_cpp.rerankers import LinearCombinationReranker

    ours, real = both_tables(tmp_path, make_rows(0, 400, 8))
    v = [0.5] * 8
    for make_ours, make_real in [(None, None), (LinearCombinationReranker, RealLinear)]:
        qo = ours.search(query_type="hybrid").vector(v).text("apple dog").limit(7)
        qr = real.search(query_type="hybrid").vector(v).text("apple dog").limit(7)
        if make_ours is not None:
            qo = qo.rerank(make_ours(weight=0.6))
            qr = qr.rerank(make_real(weight=0.6))
        o = qo.select(["id"]).to_arrow()
        r = qr.select(["id"]).to_arrow()
        assert o.column("id").to_pylist() == r.column("id").to_pylist()
        assert np.allclose(
            o.column("_relevance_score").to_numpy(), r.column("_relevance_score").to_numpy(),
            atol=1e-6,
        )


def test_custom_reranker_gets_both_result_sets(tmp_path):
    from lancedb_cpp.rerankers import Reranker

    calls = []

    class Recorder(Reranker):
        def rerank_hybrid(self, query, vector_results, fts_results):
            calls.append((query, vector_results, fts_results))
            merged = self.merge_results(vector_results, fts_results)
            return merged.append_column(
                "_relevance_score", pa.array([1.0] * merged.num_rows, pa.float32())
            )

    t = lancedb.connect(str(tmp_path / "c")).create_table("t", make_rows(0, 200, 9))
    t.create_fts_index("text")
    out = (
        t.search(query_type="hybrid").vector([0.1] * 8).text("apple").rerank(Recorder())
        .limit(5).to_arrow()
    )  # fmt: skip
    assert len(calls) == 1
    query, vectors, texts = calls[0]
    assert query == "apple"
    assert "_distance" in vectors.column_names and "_rowid" in vectors.column_names
    assert "_score" in texts.column_names and texts.num_rows > 0
    assert out.num_rows == 5 and "_relevance_score" in out.column_names


def test_bad_input_is_a_clear_error_and_writes_nothing(tmp_path):
    t = lancedb.connect(str(tmp_path / "e")).create_table("t", make_rows(0, 50, 10))
    version = t.version
    with pytest.raises(ValueError, match="string column"):
        t.create_fts_index("n")
    with pytest.raises(ValueError, match="jieba"):
        t.create_index("text", config=FTS(base_tokenizer="jieba"))
    with pytest.raises(ValueError, match="Klingon"):
        t.create_fts_index("text", language="Klingon")
    with pytest.raises(ValueError, match="exceeds worker memory limit"):
        t.create_index("text", config=FTS(memory_limit=0))
    with pytest.raises(ValueError, match="single field"):
        t.create_fts_index(["text", "title"])
    assert t.version == version and t.list_indices() == []
    with pytest.raises(ValueError, match="INVERTED index"):
        t.search("dog", query_type="fts").to_arrow()
    t.create_fts_index("text")
    with pytest.raises(ValueError, match="with_position"):
        t.search('"lazy dog"', query_type="fts").to_arrow()
    with pytest.raises(ValueError, match="empty"):
        t.search("", query_type="fts").to_arrow()
    with pytest.raises(ValueError, match="string column"):
        t.search(MatchQuery("dog", "n")).to_arrow()
    with pytest.raises(RuntimeError, match="already exists"):  # as LanceDB
        t.create_fts_index("text", replace=False)
    with pytest.raises(NotImplementedError, match="block_size=256"):
        t.create_fts_index("text", block_size=256, replace=True)


def test_build_memory_limit_and_workers_split_partitions_with_the_same_results(tmp_path):
    import glob

    data = make_rows(0, 40000, 12)
    small = lancedb.connect(str(tmp_path / "small")).create_table("t", data)
    small.create_index("text", config=FTS(memory_limit=1, num_workers=2))
    default = lancedb.connect(str(tmp_path / "default")).create_table("t", data)
    default.create_index("text", config=FTS())
    parts = glob.glob(str(tmp_path / "small" / "t.lance" / "_indices" / "*" / "part_*_docs.lance"))
    assert len(parts) >= 2, parts
    for q in ["dog", "lazy garden", "apple music river"]:
        assert_same(our_query(small, q), our_query(default, q), q)
    # The build options are not stored: LanceDB reads the same index details either way.
    real = real_lancedb.connect(str(tmp_path / "small")).open_table("t")
    assert real.list_indices()[0].index_type == "FTS"
    assert_same(real_query(real, "lazy garden"), our_query(default, "lazy garden"), "LanceDB")
