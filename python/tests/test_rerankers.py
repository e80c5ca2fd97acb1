# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""lancedb_cpp.rerankers and the hybrid fusion of lancedb_cpp._hybrid against the real LanceDB:
the same input tables go through LanceDB's rerankers and ``LanceHybridQueryBuilder`` (the
oracle) and through ours, and the outputs must be the same tables (row order, ``_rowid``,
columns, types, scores within 1e-6), errors the same types and messages."""

import inspect
import types
import warnings

import lancedb
import lancedb.rerankers as lance_rerankers
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from lancedb.query import LanceHybridQueryBuilder
from lancedb.rerankers.util import check_reranker_result as lance_check

import lancedb_cpp.rerankers as cpp_rerankers
from lancedb_cpp import _hybrid
from lancedb_cpp.rerankers.util import check_reranker_result as cpp_check

DIM = 4
WORDS = ["apple", "banana", "cherry", "delta", "echo", "fox"]


# Inputs ------------------------------------------------------------------------------------


def _rows(row_ids, seed):
    """User columns of the rows `row_ids` (as the searches return them)."""
    rng = np.random.default_rng(seed)
    n = len(row_ids)
    return {
        "id": pa.array([int(r) * 10 for r in row_ids], pa.int64()),
        "text": pa.array([" ".join(rng.choice(WORDS, 2)) + f" {r}" for r in row_ids]),
        "vector": pa.FixedSizeListArray.from_arrays(
            pa.array(rng.standard_normal(n * DIM).astype("float32")), DIM
        ),
    }


def vector_table(row_ids, distances, seed=0):
    cols = _rows(row_ids, seed)
    cols["_distance"] = pa.array(distances, pa.float32())
    cols["_rowid"] = pa.array(row_ids, pa.uint64())
    return pa.table(cols)


def fts_table(row_ids, scores, seed=0):
    cols = _rows(row_ids, seed)
    cols["_score"] = pa.array(scores, pa.float32())
    cols["_rowid"] = pa.array(row_ids, pa.uint64())
    return pa.table(cols)


def _vector_empty():
    return vector_table([], [])


def _fts_empty():
    return fts_table([], [])


# (vector results, full-text results) as the two searches of a hybrid query return them
SCENARIOS = {
    "overlap": lambda: (
        vector_table([4, 9, 1, 7, 3, 12], [0.11, 0.25, 0.4, 0.41, 0.9, 1.3]),
        fts_table([7, 20, 4, 15, 9], [5.5, 4.25, 3.0, 1.5, 0.75], seed=1),
    ),
    "disjoint": lambda: (
        vector_table([1, 2, 3], [0.2, 0.3, 0.5]),
        fts_table([10, 11, 12, 13], [3.0, 2.0, 1.5, 1.0], seed=2),
    ),
    "same_rows": lambda: (
        vector_table([5, 6, 7, 8], [0.1, 0.2, 0.3, 0.4]),
        fts_table([8, 7, 6, 5], [4.0, 3.0, 2.0, 1.0], seed=3),
    ),
    "ties": lambda: (
        vector_table([1, 2, 3, 4, 5, 6], [0.5, 0.5, 0.2, 0.2, 0.5, 0.9]),
        fts_table([6, 5, 30, 31, 2], [2.0, 2.0, 2.0, 1.0, 1.0], seed=4),
    ),
    "constant": lambda: (
        vector_table([1, 2, 3], [0.7, 0.7, 0.7]),
        fts_table([3, 4], [1.25, 1.25], seed=5),
    ),
    "zeros": lambda: (
        vector_table([1, 2], [0.0, 0.0]),
        fts_table([2, 3], [0.0, 0.0], seed=6),
    ),
    "single": lambda: (vector_table([42], [0.3]), fts_table([42], [2.5], seed=7)),
    "many": lambda: (
        vector_table(
            list(range(0, 80, 2)), np.sort(np.random.default_rng(8).random(40)).tolist()
        ),
        fts_table(
            list(range(0, 90, 3)),
            np.sort(np.random.default_rng(9).random(30) * 10)[::-1].tolist(),
            seed=8,
        ),
    ),
    "vector_empty": lambda: (
        _vector_empty(),
        fts_table([3, 1, 2], [4.0, 2.0, 1.0], seed=9),
    ),
    "fts_empty": lambda: (
        vector_table([3, 1, 2], [0.1, 0.2, 0.6]),
        _fts_empty(),
    ),
    "fts_empty_no_columns": lambda: (
        vector_table([3, 1, 2], [0.1, 0.2, 0.6]),
        pa.table({}),
    ),
    "both_empty": lambda: (_vector_empty(), _fts_empty()),
    "both_empty_no_columns": lambda: (pa.table({}), pa.table({})),
}

# Scenarios that LanceDB's rerankers themselves handle (a side without columns makes the
# linear combination fail in LanceDB too; see test_error_parity_missing_columns).
NONEMPTY = [s for s in SCENARIOS if "empty" not in s]
ONE_EMPTY = ["vector_empty", "fts_empty"]
BOTH_EMPTY = ["both_empty", "both_empty_no_columns"]

RERANKERS = {
    "rrf": lambda m, rs: m.RRFReranker(return_score=rs),
    "rrf_k1": lambda m, rs: m.RRFReranker(K=1, return_score=rs),
    "rrf_k2.5": lambda m, rs: m.RRFReranker(K=2.5, return_score=rs),
    "linear": lambda m, rs: m.LinearCombinationReranker(return_score=rs),
    "linear_w0": lambda m, rs: m.LinearCombinationReranker(weight=0.0, return_score=rs),
    "linear_w1": lambda m, rs: m.LinearCombinationReranker(weight=1, return_score=rs),
    "linear_w0.3_fill0.5": lambda m, rs: m.LinearCombinationReranker(
        weight=0.3, fill=0.5, return_score=rs
    ),
    "linear_fill0": lambda m, rs: m.LinearCombinationReranker(fill=0.0, return_score=rs),
    "linear_fill2": lambda m, rs: m.LinearCombinationReranker(
        weight=0.55, fill=2.0, return_score=rs
    ),
    "mrr": lambda m, rs: m.MRRReranker(return_score=rs),
    "mrr_0.8": lambda m, rs: m.MRRReranker(weight_vector=0.8, weight_fts=0.2, return_score=rs),
    "mrr_fts_only": lambda m, rs: m.MRRReranker(
        weight_vector=0.0, weight_fts=1.0, return_score=rs
    ),
}


# Comparison --------------------------------------------------------------------------------


def assert_same_table(ours, theirs):
    assert isinstance(ours, pa.Table), type(ours)
    assert isinstance(theirs, pa.Table)
    assert ours.column_names == theirs.column_names
    assert ours.schema.types == theirs.schema.types
    assert ours.num_rows == theirs.num_rows
    for name in theirs.column_names:
        a, b = ours.column(name), theirs.column(name)
        if pa.types.is_floating(b.type):
            a_np = a.to_numpy(zero_copy_only=False).astype("float64")
            b_np = b.to_numpy(zero_copy_only=False).astype("float64")
            np.testing.assert_allclose(a_np, b_np, rtol=0, atol=1e-6, equal_nan=True,
                                       err_msg=name)
            assert a.null_count == b.null_count, name
        else:
            assert a.to_pylist() == b.to_pylist(), name


def raises_same(ours, theirs):
    """Call both; they must raise the same exception type with the same message (runs of
    whitespace compared as one space: LanceDB's line-continued literals embed indentation)."""
    with pytest.raises(Exception) as expected:
        theirs()
    with pytest.raises(type(expected.value)) as got:
        ours()
    assert type(got.value) is type(expected.value)
    assert " ".join(str(got.value).split()) == " ".join(str(expected.value).split())
    return got.value


def lance_combine(fts, vec, **kw):
    return LanceHybridQueryBuilder._combine_hybrid_results(fts_results=fts, vector_results=vec,
                                                           **kw)


def cpp_combine(fts, vec, **kw):
    return _hybrid.combine_hybrid_results(fts, vec, **kw)


# The hybrid fusion -------------------------------------------------------------------------


@pytest.mark.parametrize("return_score", ["relevance", "all"])
@pytest.mark.parametrize("norm", ["score", "rank", None])
@pytest.mark.parametrize("reranker", list(RERANKERS))
@pytest.mark.parametrize("scenario", NONEMPTY + ONE_EMPTY + BOTH_EMPTY)
def test_combine_hybrid_results(scenario, reranker, norm, return_score):
    vec, fts = SCENARIOS[scenario]()
    kw = dict(norm=norm, fts_query="apple banana", limit=10, with_row_ids=True, offset=0)
    theirs = lance_combine(fts, vec, reranker=RERANKERS[reranker](lance_rerankers, return_score),
                           **kw)
    ours = cpp_combine(fts, vec, reranker=RERANKERS[reranker](cpp_rerankers, return_score), **kw)
    assert_same_table(ours, theirs)
    assert ours.schema.field("_relevance_score").type == pa.float32()


@pytest.mark.parametrize("reranker", ["rrf", "linear", "mrr"])
@pytest.mark.parametrize("with_row_ids", [True, False])
@pytest.mark.parametrize(
    "limit,offset",
    [(10, 0), (3, 0), (3, 2), (2, 5), (5, 100), (None, None), (None, 4), (4, None), (0, 0)],
)
@pytest.mark.parametrize("scenario", ["overlap", "many", "ties", "vector_empty", "fts_empty",
                                      "both_empty"])
def test_combine_offset_limit_rowids(scenario, limit, offset, with_row_ids, reranker):
    vec, fts = SCENARIOS[scenario]()
    kw = dict(norm="score", fts_query="q", limit=limit, with_row_ids=with_row_ids, offset=offset)
    theirs = lance_combine(fts, vec, reranker=RERANKERS[reranker](lance_rerankers, "all"), **kw)
    ours = cpp_combine(fts, vec, reranker=RERANKERS[reranker](cpp_rerankers, "all"), **kw)
    assert_same_table(ours, theirs)
    assert ("_rowid" in ours.column_names) == with_row_ids


def test_combine_default_reranker_is_rrf():
    vec, fts = SCENARIOS["overlap"]()
    theirs = lance_combine(fts, vec, norm="score", fts_query="q",
                           reranker=lance_rerankers.RRFReranker(), limit=5, with_row_ids=True)
    ours = _hybrid.combine_hybrid_results(fts, vec, limit=5)
    assert_same_table(ours, theirs)


def test_combine_restores_original_scores():
    vec, fts = SCENARIOS["overlap"]()
    ours = cpp_combine(fts, vec, norm="score", fts_query="q",
                       reranker=cpp_rerankers.LinearCombinationReranker(return_score="all"),
                       limit=None, offset=None, with_row_ids=True)
    dist = dict(zip(vec["_rowid"].to_pylist(), vec["_distance"].to_pylist()))
    score = dict(zip(fts["_rowid"].to_pylist(), fts["_score"].to_pylist()))
    for row in ours.select(["_rowid", "_distance", "_score"]).to_pylist():
        assert row["_distance"] == dist.get(row["_rowid"])
        assert row["_score"] == score.get(row["_rowid"])
    # the relevance is computed on the normalized scores: best vector row and best text row
    best = ours["_relevance_score"].to_pylist()
    assert best == sorted(best, reverse=True)


@pytest.mark.parametrize("scenario", ["many", "ties", "constant", "zeros"])
def test_normalize_and_rank_helpers(scenario):
    vec, fts = SCENARIOS[scenario]()
    for col, tbl in (("_distance", vec), ("_score", fts)):
        for invert in (False, True):
            theirs = LanceHybridQueryBuilder._normalize_scores(tbl[col], invert=invert)
            ours = _hybrid.normalize_scores(tbl[col], invert=invert)
            assert ours.type == theirs.type
            assert ours.to_pylist() == theirs.to_pylist()
        for ascending in (True, False):
            assert_same_table(_hybrid.rank_column(tbl, col, ascending),
                              LanceHybridQueryBuilder._rank(tbl, col, ascending))


@pytest.mark.parametrize(
    "values",
    [[3.0, 1.0, 2.0], [2.0, 2.0], [0.0, 0.0, 0.0], [1.0, None, 3.0], [None, None], [],
     [-1.5, 4.0, 0.25, 4.0]],
)
@pytest.mark.parametrize("dtype", [pa.float32(), pa.float64()])
def test_normalize_scores_edge_values(values, dtype):
    arr = pa.chunked_array([pa.array(values, dtype)])
    theirs = LanceHybridQueryBuilder._normalize_scores(arr)
    ours = _hybrid.normalize_scores(arr)
    assert ours.type == theirs.type
    assert ours.to_pylist() == theirs.to_pylist()


# Rerankers called directly ------------------------------------------------------------------


@pytest.mark.parametrize("return_score", ["relevance", "all"])
@pytest.mark.parametrize("reranker", list(RERANKERS))
@pytest.mark.parametrize("scenario", NONEMPTY + ONE_EMPTY)
def test_rerank_hybrid_direct(scenario, reranker, return_score):
    """Raw (unnormalized) tables straight into rerank_hybrid."""
    vec, fts = SCENARIOS[scenario]()
    theirs = RERANKERS[reranker](lance_rerankers, return_score).rerank_hybrid("q", vec, fts)
    ours = RERANKERS[reranker](cpp_rerankers, return_score).rerank_hybrid("q", vec, fts)
    assert_same_table(ours, theirs)


@pytest.mark.parametrize("reranker", ["rrf", "rrf_k1", "mrr", "mrr_0.8"])
@pytest.mark.parametrize("scenario", BOTH_EMPTY + ["fts_empty_no_columns"])
def test_rerank_hybrid_direct_empty(scenario, reranker):
    vec, fts = SCENARIOS[scenario]()
    try:
        theirs = RERANKERS[reranker](lance_rerankers, "relevance").rerank_hybrid("q", vec, fts)
    except Exception:
        raises_same(
            lambda: RERANKERS[reranker](cpp_rerankers, "relevance").rerank_hybrid("q", vec, fts),
            lambda: RERANKERS[reranker](lance_rerankers, "relevance").rerank_hybrid("q", vec,
                                                                                  fts),
        )
        return
    ours = RERANKERS[reranker](cpp_rerankers, "relevance").rerank_hybrid("q", vec, fts)
    assert_same_table(ours, theirs)


@pytest.mark.parametrize("name", ["RRFReranker", "LinearCombinationReranker", "MRRReranker"])
@pytest.mark.parametrize("method", ["rerank_vector", "rerank_fts"])
def test_single_search_rerank_not_implemented(name, method):
    vec, fts = SCENARIOS["overlap"]()
    table = vec if method == "rerank_vector" else fts
    err = raises_same(
        lambda: getattr(getattr(cpp_rerankers, name)(), method)("q", table),
        lambda: getattr(getattr(lance_rerankers, name)(), method)("q", table),
    )
    assert isinstance(err, NotImplementedError)
    for module in (cpp_rerankers, lance_rerankers):
        with pytest.raises(NotImplementedError):
            (_hybrid.rerank_vector_results if method == "rerank_vector"
             else _hybrid.rerank_fts_results)(getattr(module, name)(), "q", table)


@pytest.mark.parametrize("deduplicate", [True, False])
@pytest.mark.parametrize("reranker", ["rrf", "rrf_k1", "mrr"])
@pytest.mark.parametrize("return_score", ["relevance", "all"])
def test_rerank_multivector(reranker, deduplicate, return_score):
    tables = [
        vector_table([1, 2, 3, 4], [0.1, 0.2, 0.3, 0.4], seed=1),
        vector_table([3, 5, 1], [0.05, 0.5, 0.6], seed=2),
        vector_table([6, 3], [0.3, 0.35], seed=3),
    ]
    theirs = RERANKERS[reranker](lance_rerankers, return_score).rerank_multivector(
        tables, None, deduplicate)
    ours = RERANKERS[reranker](cpp_rerankers, return_score).rerank_multivector(
        tables, None, deduplicate)
    assert_same_table(ours, theirs)
    raises_same(
        lambda: RERANKERS[reranker](cpp_rerankers, return_score).rerank_multivector([]),
        lambda: RERANKERS[reranker](lance_rerankers, return_score).rerank_multivector([]),
    )
    no_rowid = [t.drop_columns(["_rowid"]) for t in tables]
    raises_same(
        lambda: RERANKERS[reranker](cpp_rerankers, return_score).rerank_multivector(no_rowid),
        lambda: RERANKERS[reranker](lance_rerankers, return_score).rerank_multivector(no_rowid),
    )
    raises_same(
        lambda: RERANKERS[reranker](cpp_rerankers, return_score).rerank_multivector(
            [tables[0], "x"]),
        lambda: RERANKERS[reranker](lance_rerankers, return_score).rerank_multivector(
            [tables[0], "x"]),
    )


# Constructors, names, errors ----------------------------------------------------------------


@pytest.mark.parametrize(
    "name,kwargs",
    [
        ("RRFReranker", {"K": 0}),
        ("RRFReranker", {"K": -3}),
        ("RRFReranker", {"return_score": "scores"}),
        ("LinearCombinationReranker", {"weight": -0.01}),
        ("LinearCombinationReranker", {"weight": 1.5}),
        ("LinearCombinationReranker", {"return_score": "none"}),
        ("MRRReranker", {"weight_vector": 1.2, "weight_fts": -0.2}),
        ("MRRReranker", {"weight_vector": 0.5, "weight_fts": 1.5}),
        ("MRRReranker", {"weight_vector": 0.3, "weight_fts": 0.3}),
        ("MRRReranker", {"return_score": "x"}),
    ],
)
def test_constructor_validation(name, kwargs):
    err = raises_same(lambda: getattr(cpp_rerankers, name)(**kwargs),
                      lambda: getattr(lance_rerankers, name)(**kwargs))
    assert isinstance(err, ValueError)


@pytest.mark.parametrize(
    "name,kwargs",
    [
        ("RRFReranker", {}),
        ("RRFReranker", {"K": 10}),
        ("RRFReranker", {"K": 2.5, "return_score": "all"}),
        ("LinearCombinationReranker", {}),
        ("LinearCombinationReranker", {"weight": 0.25, "fill": 0.5}),
        ("LinearCombinationReranker", {"weight": 1, "fill": 2}),
        ("MRRReranker", {}),
        ("MRRReranker", {"weight_vector": 0.7, "weight_fts": 0.3}),
        ("MRRReranker", {"weight_vector": 1.0, "weight_fts": 0.0}),
    ],
)
def test_str_and_attributes(name, kwargs):
    ours, theirs = getattr(cpp_rerankers, name)(**kwargs), getattr(lance_rerankers, name)(**kwargs)
    assert str(ours) == str(theirs)
    assert ours.score == theirs.score
    for attr in ("K", "weight", "fill", "weight_vector", "weight_fts"):
        assert getattr(ours, attr, None) == getattr(theirs, attr, None)
    assert isinstance(ours, cpp_rerankers.Reranker)


def test_exports():
    assert sorted(cpp_rerankers.__all__) == sorted(lance_rerankers.__all__)
    for name in lance_rerankers.__all__:
        assert issubclass(getattr(cpp_rerankers, name), cpp_rerankers.Reranker)
    with pytest.raises(TypeError):
        cpp_rerankers.Reranker()  # abstract, as LanceDB's


HOSTED = {
    "CrossEncoderReranker": "cross_encoder",
    "ColbertReranker": "colbert",
    "CohereReranker": "cohere",
    "JinaReranker": "jinaai",
    "OpenaiReranker": "openai",
    "VoyageAIReranker": "voyageai",
    "AnswerdotaiRerankers": "answerdotai",
    "WatsonxReranker": "watsonx",
}


@pytest.mark.parametrize("name", list(HOSTED))
def test_hosted_rerankers_live_in_lancedbs_modules(name):
    import importlib

    cls = getattr(cpp_rerankers, name)
    assert getattr(importlib.import_module(f"lancedb_cpp.rerankers.{HOSTED[name]}"), name) is cls
    theirs = getattr(lance_rerankers, name)
    assert list(inspect.signature(cls.__init__).parameters) == list(
        inspect.signature(theirs.__init__).parameters
    )


# Custom rerankers written for LanceDB -------------------------------------------------------


def make_recording_reranker(base):
    """A user reranker as LanceDB's guide writes one, on top of `base` (LanceDB's or our
    Reranker); it records every call."""

    class RecordingReranker(base):
        def __init__(self, boost=0.5, return_score="relevance"):
            super().__init__(return_score)
            self.boost = boost
            self.calls = []

        def _relevance(self, table):
            ids = table["id"].to_pylist()
            lengths = [len(t) for t in table["text"].to_pylist()]
            return pa.array([l + self.boost * (i % 7) for i, l in zip(ids, lengths)],
                            type=pa.float32())

        def rerank_hybrid(self, query, vector_results, fts_results):
            self.calls.append(("hybrid", query, vector_results, fts_results))
            if self.score == "all":
                combined = self._merge_and_keep_scores(vector_results, fts_results)
            else:
                combined = self.merge_results(vector_results, fts_results)
            combined = combined.append_column("_relevance_score", self._relevance(combined))
            combined = combined.sort_by([("_relevance_score", "descending")])
            return self._keep_relevance_score(combined)

        def rerank_vector(self, query, vector_results):
            self.calls.append(("vector", query, vector_results))
            out = vector_results.append_column("_relevance_score",
                                               self._relevance(vector_results))
            if self.score == "relevance":
                out = out.drop_columns(["_distance"])
            return out.sort_by([("_relevance_score", "descending")])

        def rerank_fts(self, query, fts_results):
            self.calls.append(("fts", query, fts_results))
            fts_results = self._handle_empty_results(fts_results)
            if fts_results.num_rows == 0:
                return fts_results
            out = fts_results.append_column("_relevance_score", self._relevance(fts_results))
            return self._keep_relevance_score(out.sort_by([("_relevance_score", "descending")]))

    return RecordingReranker


def _same_calls(ours, theirs):
    assert len(ours) == len(theirs)
    for call_a, call_b in zip(ours, theirs):
        assert call_a[:2] == call_b[:2]
        for a, b in zip(call_a[2:], call_b[2:]):
            assert_same_table(a, b)


@pytest.mark.parametrize("return_score", ["relevance", "all"])
@pytest.mark.parametrize("norm", ["score", "rank"])
@pytest.mark.parametrize("scenario", NONEMPTY + ONE_EMPTY + BOTH_EMPTY)
def test_custom_reranker_in_hybrid(scenario, norm, return_score):
    vec, fts = SCENARIOS[scenario]()
    theirs_rr = make_recording_reranker(lance_rerankers.Reranker)(return_score=return_score)
    ours_rr = make_recording_reranker(cpp_rerankers.Reranker)(return_score=return_score)
    kw = dict(norm=norm, fts_query="cherry", limit=4, with_row_ids=True, offset=1)
    theirs = lance_combine(fts, vec, reranker=theirs_rr, **kw)
    ours = cpp_combine(fts, vec, reranker=ours_rr, **kw)
    assert_same_table(ours, theirs)
    _same_calls(ours_rr.calls, theirs_rr.calls)
    if scenario in BOTH_EMPTY:
        assert ours_rr.calls == []
    else:
        assert len(ours_rr.calls) == 1
        kind, query, got_vec, got_fts = ours_rr.calls[0]
        assert (kind, query) == ("hybrid", "cherry")
        # the reranker sees normalized scores, in [0, 1]
        for tbl, col in ((got_vec, "_distance"), (got_fts, "_score")):
            if tbl.num_rows:
                assert 0.0 <= pc.min(tbl[col]).as_py() <= pc.max(tbl[col]).as_py() <= 1.0


@pytest.mark.parametrize("return_score", ["relevance", "all"])
def test_custom_reranker_single_search(return_score):
    vec, fts = SCENARIOS["overlap"]()
    theirs_rr = make_recording_reranker(lance_rerankers.Reranker)(return_score=return_score)
    ours_rr = make_recording_reranker(cpp_rerankers.Reranker)(return_score=return_score)
    assert_same_table(_hybrid.rerank_vector_results(ours_rr, "apple", vec),
                      theirs_rr.rerank_vector("apple", vec))
    assert_same_table(_hybrid.rerank_fts_results(ours_rr, "apple", fts),
                      theirs_rr.rerank_fts("apple", fts))
    assert_same_table(_hybrid.rerank_fts_results(ours_rr, "apple", _fts_empty()),
                      theirs_rr.rerank_fts("apple", _fts_empty()))
    _same_calls(ours_rr.calls, theirs_rr.calls)
    # the base class's rerank_multivector goes through rerank_vector
    tables = [vec, vector_table([4, 50], [0.0, 0.2], seed=11)]
    for dedup in (False, True):
        assert_same_table(ours_rr.rerank_multivector(tables, "q", dedup),
                          theirs_rr.rerank_multivector(tables, "q", dedup))


def test_custom_reranker_bad_results():
    vec, fts = SCENARIOS["overlap"]()

    def make(base, result):
        class Bad(base):
            def rerank_hybrid(self, query, vector_results, fts_results):
                return result(vector_results)

            def rerank_vector(self, query, vector_results):
                return result(vector_results)

        return Bad()

    kw = dict(norm="score", fts_query="q", limit=10, with_row_ids=True, offset=0)
    for result in (lambda t: t, lambda t: t.to_pandas(), lambda t: None,
                   lambda t: t.append_column("relevance", pa.array([1.0] * len(t)))):
        raises_same(lambda: cpp_combine(fts, vec, reranker=make(cpp_rerankers.Reranker, result),
                                        **kw),
                    lambda: lance_combine(fts, vec,
                                          reranker=make(lance_rerankers.Reranker, result), **kw))
        raises_same(
            lambda: _hybrid.rerank_vector_results(make(cpp_rerankers.Reranker, result), "q", vec),
            lambda: lance_check(make(lance_rerankers.Reranker, result).rerank_vector("q", vec)),
        )
    # a result without _rowid cannot have its scores restored (KeyError in both)
    drop = lambda t: t.drop_columns(["_rowid"]).append_column(  # noqa: E731
        "_relevance_score", pa.array([1.0] * len(t), pa.float32()))
    raises_same(lambda: cpp_combine(fts, vec, reranker=make(cpp_rerankers.Reranker, drop), **kw),
                lambda: lance_combine(fts, vec, reranker=make(lance_rerankers.Reranker, drop),
                                      **kw))


@pytest.mark.parametrize("value", [pa.table({"a": [1]}), pa.table({"_relevance_score": [1.0]}),
                                   {"_relevance_score": [1.0]}, None])
def test_check_reranker_result(value):
    try:
        lance_check(value)
    except Exception:
        raises_same(lambda: cpp_check(value), lambda: lance_check(value))
    else:
        cpp_check(value)


# Base-class helpers user rerankers rely on ----------------------------------------------------


@pytest.mark.parametrize("return_score", ["relevance", "all"])
@pytest.mark.parametrize("scenario", NONEMPTY + ONE_EMPTY)
def test_base_helpers(scenario, return_score):
    vec, fts = SCENARIOS[scenario]()

    class Plain:
        def rerank_hybrid(self, query, vector_results, fts_results):
            return self.merge_results(vector_results, fts_results)

    ours = type("P", (Plain, cpp_rerankers.Reranker), {})(return_score)
    theirs = type("P", (Plain, lance_rerankers.Reranker), {})(return_score)
    assert str(ours) == str(theirs) == "P"
    assert ours._concat_tables_args == theirs._concat_tables_args
    assert_same_table(ours.merge_results(vec, fts), theirs.merge_results(vec, fts))
    assert_same_table(ours._merge_and_keep_scores(vec, fts),
                      theirs._merge_and_keep_scores(vec, fts))
    both = pa.concat_tables([vec, fts], promote_options="default")
    assert_same_table(ours._deduplicate(both), theirs._deduplicate(both))
    assert_same_table(ours._keep_relevance_score(both), theirs._keep_relevance_score(both))
    assert_same_table(ours._handle_empty_results(vec), theirs._handle_empty_results(vec))
    assert_same_table(ours._handle_empty_results(_vector_empty()),
                      theirs._handle_empty_results(_vector_empty()))


def test_deduplicate_keeps_first_in_place():
    t = pa.table({"_rowid": pa.array([5, 3, 5, 7, 3, 9, 9], pa.uint64()),
                  "x": list(range(7))})
    ours = cpp_rerankers.RRFReranker()._deduplicate(t)
    assert ours["x"].to_pylist() == [0, 1, 3, 5]
    assert_same_table(ours, lance_rerankers.RRFReranker()._deduplicate(t))


# The builders' rerank() checks ---------------------------------------------------------------


@pytest.mark.parametrize(
    "reranker_name,normalize",
    [(None, "bad"), ("RRFReranker", "Score"), ("string", "score"), ("object", "rank")],
)
def test_check_rerank_args(reranker_name, normalize):
    def pick(module):
        if reranker_name == "string":
            return "rrf"
        if reranker_name == "object":
            return object()
        return None if reranker_name is None else getattr(module, reranker_name)()

    raises_same(
        lambda: _hybrid.check_rerank_args(pick(cpp_rerankers), normalize),
        lambda: LanceHybridQueryBuilder.rerank(types.SimpleNamespace(), pick(lance_rerankers),
                                               normalize),
    )


def test_check_rerank_args_accepts_rerankers():
    for normalize in ("score", "rank"):
        _hybrid.check_rerank_args(cpp_rerankers.RRFReranker(), normalize)
        _hybrid.check_rerank_args(lance_rerankers.MRRReranker(), normalize)
        _hybrid.check_rerank_args(make_recording_reranker(cpp_rerankers.Reranker)(), normalize)


def test_check_vector_rerank_args():
    from lancedb.query import LanceVectorQueryBuilder

    def lance_rerank(str_query, query_string):
        stub = types.SimpleNamespace(_str_query=str_query, with_row_id=lambda *_: None)
        LanceVectorQueryBuilder.rerank(stub, lance_rerankers.RRFReranker(), query_string)
        return stub._str_query

    for str_query, query_string in ((None, None), (None, 3), ("a", ["b"])):
        raises_same(
            lambda: _hybrid.check_vector_rerank_args(cpp_rerankers.RRFReranker(), str_query,
                                                     query_string),
            lambda: lance_rerank(str_query, query_string),
        )
    for str_query, query_string in (("a", None), (None, "b"), ("a", "b")):
        assert _hybrid.check_vector_rerank_args(
            cpp_rerankers.RRFReranker(), str_query, query_string
        ) == lance_rerank(str_query, query_string)


# End to end on LanceDB's own search results ---------------------------------------------------


@pytest.fixture(scope="module")
def lance_table(tmp_path_factory):
    warnings.filterwarnings("ignore")
    db = lancedb.connect(tmp_path_factory.mktemp("rerank_oracle"))
    rng = np.random.default_rng(0)
    n = 200
    data = pa.table({
        "id": pa.array(np.arange(n), pa.int64()),
        "text": [" ".join(rng.choice(WORDS, 3)) for _ in range(n)],
        "vector": pa.FixedSizeListArray.from_arrays(
            pa.array(rng.standard_normal(n * DIM).astype("float32")), DIM),
    })
    table = db.create_table("t", data)
    table.create_fts_index("text")
    return table


@pytest.mark.parametrize("norm", ["score", "rank"])
@pytest.mark.parametrize("reranker", ["rrf", "linear", "linear_w0.3_fill0.5", "mrr"])
@pytest.mark.parametrize("text,where", [("apple cherry", None), ("fox", "id < 50"),
                                        ("nothingmatches", None), ("delta", "id < 0")])
@pytest.mark.parametrize("limit,offset", [(10, 0), (5, 3)])
def test_matches_lancedb_hybrid_query(lance_table, norm, reranker, text, where, limit, offset):
    """LanceDB's hybrid query against our fusion of the same two sub-query results."""
    q = np.random.default_rng(1).standard_normal(DIM).astype("float32")
    hybrid = (lance_table.search(query_type="hybrid").vector(q).text(text)
              .rerank(RERANKERS[reranker](lance_rerankers, "relevance"), normalize=norm)
              .limit(limit).offset(offset))
    vec_q = lance_table.search(q).with_row_id(True).limit(limit + offset)
    fts_q = lance_table.search(text, query_type="fts").with_row_id(True).limit(limit + offset)
    if where:
        hybrid, vec_q, fts_q = hybrid.where(where), vec_q.where(where), fts_q.where(where)
    theirs = hybrid.to_arrow()
    ours = _hybrid.combine_hybrid_results(
        fts_q.to_arrow(), vec_q.to_arrow(), norm=norm, fts_query=text,
        reranker=RERANKERS[reranker](cpp_rerankers, "relevance"), limit=limit, offset=offset,
        with_row_ids=False,
    )
    assert_same_table(ours, theirs)
