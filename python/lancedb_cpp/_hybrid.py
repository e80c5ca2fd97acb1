# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""What a query does with a reranker once its searches have run.

A hybrid query runs a vector search (``_rowid``, ``_distance``) and a full-text search
(``_rowid``, ``_score``) and then calls `combine_hybrid_results`: both scores are min-max
normalized to [0, 1] (or first replaced by ranks with ``norm="rank"``), the reranker fuses the
two tables, the original ``_distance`` and ``_score`` values are put back, and the
``[offset, offset + limit)`` window is cut from the fused rows. A vector or full-text query
with ``.rerank()`` hands its results to `rerank_vector_results` / `rerank_fts_results`, which
normalize nothing. `check_rerank_args` and `check_vector_rerank_args` hold the checks of the
builders' ``rerank()`` methods.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .rerankers.base import DISTANCE, RELEVANCE, ROW_ID, SCORE, Reranker
from .rerankers.rrf import RRFReranker
from .rerankers.util import check_reranker_result

__all__ = [
    "NORMALIZE_METHODS",
    "check_rerank_args",
    "check_reranker_result",
    "check_vector_rerank_args",
    "combine_hybrid_results",
    "is_reranker",
    "normalize_scores",
    "rank_column",
    "rerank_fts_results",
    "rerank_vector_results",
]

NORMALIZE_METHODS = ("rank", "score")


# Normalization -------------------------------------------------------------------------------


def normalize_scores(scores: Any, invert: bool = False) -> Any:
    """Min-max normalize `scores` (an Arrow array or chunked array) to [0, 1] with Arrow
    compute: ``(x - min) / (max - min)``. A constant column becomes all 0 (it stays as it is
    when the constant is 0); nulls stay null. With `invert`, return ``1 - x``. The type is
    kept (float32 stays float32)."""
    if len(scores) == 0:
        return scores
    bounds = pc.min_max(scores)
    low, high = bounds["min"], bounds["max"]
    spread = pc.subtract(high, low)
    if pc.equal(spread, pa.scalar(0.0)).as_py():
        # every value is the same: all 0, without a division by zero
        if not pc.equal(high, pa.scalar(0.0)).as_py():
            scores = pc.subtract(scores, low)
    else:
        scores = pc.divide(pc.subtract(scores, low), spread)
    if invert:
        scores = pc.subtract(1, scores)
    return scores


def rank_column(results: pa.Table, column: str, ascending: bool = True) -> pa.Table:
    """`results` with `column` replaced by the float32 rank (1 = smallest value with
    `ascending`) of each row. Ties are ordered by numpy's default argsort, as LanceDB's; the
    hybrid query ranks ``_score`` ascending too (1 = lowest BM25 score), as LanceDB does."""
    if len(results) == 0:
        return results
    values = results.column(column).to_numpy()
    order = np.argsort(values)
    if not ascending:
        order = order[::-1]
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = np.arange(1, len(order) + 1)
    return results.set_column(
        results.column_names.index(column), column, pa.array(ranks, type=pa.float32())
    )


def _normalize_column(results: pa.Table, column: str):
    """(`results` with `column` normalized, the original column, the ``_rowid`` column)."""
    i = results.column_names.index(column)
    original = results.column(i)
    normalized = results.set_column(i, results.schema.field(i), normalize_scores(original))
    return normalized, original, results.column(ROW_ID)


def _restore_column(results: pa.Table, column: str, original, original_row_ids) -> pa.Table:
    """Put back the pre-normalization values of `column` by ``_rowid`` (null for a row the
    search did not return)."""
    positions = pc.index_in(
        results.column(ROW_ID), value_set=original_row_ids.combine_chunks(), skip_nulls=True
    )
    return results.set_column(
        results.column_names.index(column), column, pc.take(original, positions)
    )


# Hybrid fusion -------------------------------------------------------------------------------


def _empty_hybrid_result(
    vector_results: pa.Table, fts_results: pa.Table, with_row_ids: bool
) -> pa.Table:
    """No rows from either search: the union of both schemas plus ``_relevance_score``."""
    schema = pa.unify_schemas([vector_results.schema, fts_results.schema])
    empty = pa.table({f.name: pa.array([], type=f.type) for f in schema})
    empty = empty.append_column(RELEVANCE, pa.array([], type=pa.float32()))
    if not with_row_ids and ROW_ID in empty.column_names:
        empty = empty.drop_columns([ROW_ID])
    return empty


def combine_hybrid_results(
    fts_results: pa.Table,
    vector_results: pa.Table,
    *,
    norm: Optional[str] = None,
    fts_query: Any = None,
    reranker: Optional[Reranker] = None,
    limit: Optional[int] = None,
    offset: Optional[int] = None,
    with_row_ids: bool = True,
) -> pa.Table:
    """Fuse the two searches of a hybrid query, as LanceDB's hybrid query does.

    Parameters
    ----------
    fts_results : pa.Table
        The full-text search's rows, with ``_rowid`` and ``_score`` (when not empty).
    vector_results : pa.Table
        The vector search's rows, with ``_rowid`` and ``_distance`` (when not empty).
    norm : {"score", "rank", None}
        ``"rank"`` replaces ``_distance`` and ``_score`` by their ascending float32 ranks
        before normalizing; anything else normalizes the scores themselves.
    fts_query : str or FullTextQuery
        Passed to ``reranker.rerank_hybrid`` as its query.
    reranker : Reranker, default RRFReranker()
    limit : int or None
        Rows kept after `offset`; None keeps them all.
    offset : int or None
        Fused rows skipped first.
    with_row_ids : bool
        Keep ``_rowid``; the caller that drops it itself (LanceDB's builder) passes True.

    Returns the reranker's table, its ``_distance`` / ``_score`` columns (when it kept them)
    holding the searches' original values again. Raises TypeError / ValueError when the
    reranker returns something else than a table with ``_relevance_score``.
    """
    if reranker is None:
        reranker = RRFReranker()
    if norm == "rank":
        vector_results = rank_column(vector_results, DISTANCE)
        fts_results = rank_column(fts_results, SCORE)

    if vector_results.num_rows == 0 and fts_results.num_rows == 0:
        # nothing to rerank (an empty side may even lack _rowid)
        return _empty_hybrid_result(vector_results, fts_results, with_row_ids)

    # Normalize each non-empty side to [0, 1]; the full-text score keeps its direction
    # (higher = better) so that a reranker returning all scores can keep it.
    original_distance = original_score = None
    if vector_results.num_rows > 0:
        vector_results, original_distance, distance_row_ids = _normalize_column(
            vector_results, DISTANCE
        )
    if fts_results.num_rows > 0:
        fts_results, original_score, score_row_ids = _normalize_column(fts_results, SCORE)

    results = reranker.rerank_hybrid(fts_query, vector_results, fts_results)
    check_reranker_result(results)

    if original_distance is not None and DISTANCE in results.column_names:
        results = _restore_column(results, DISTANCE, original_distance, distance_row_ids)
    if original_score is not None and SCORE in results.column_names:
        results = _restore_column(results, SCORE, original_score, score_row_ids)

    results = results.slice(offset or 0, limit)
    if not with_row_ids:
        results = results.drop_columns([ROW_ID])
    return results


# Reranking one search ------------------------------------------------------------------------


def rerank_vector_results(reranker: Reranker, query: Optional[str], results: pa.Table) -> pa.Table:
    """A vector query's ``.rerank()``: ``reranker.rerank_vector(query, results)``, checked.
    The distances are passed as they are (no normalization)."""
    reranked = reranker.rerank_vector(query, results)
    check_reranker_result(reranked)
    return reranked


def rerank_fts_results(reranker: Reranker, query: Any, results: pa.Table) -> pa.Table:
    """A full-text query's ``.rerank()``: ``reranker.rerank_fts(query, results)``, checked.
    The scores are passed as they are (no normalization)."""
    reranked = reranker.rerank_fts(query, results)
    check_reranker_result(reranked)
    return reranked


# The builders' rerank() checks -------------------------------------------------------------


def is_reranker(obj: Any) -> bool:
    """A lancedb_cpp Reranker, or a reranker of the real LanceDB (both take and return
    pyarrow tables)."""
    if isinstance(obj, Reranker):
        return True
    return any(
        c.__name__ == "Reranker" and c.__module__.startswith("lancedb.rerankers")
        for c in type(obj).__mro__
    )


def check_rerank_args(reranker: Any, normalize: str = "score") -> None:
    """The checks of the hybrid builder's ``rerank(reranker, normalize)``, with LanceDB's
    ValueErrors. (A reranker with ``score == "all"`` also makes the builder return
    ``_rowid``.)"""
    if normalize not in NORMALIZE_METHODS:
        raise ValueError("normalize must be 'rank' or 'score'.")
    if reranker and not is_reranker(reranker):
        raise ValueError("reranker must be an instance of Reranker class.")


def check_vector_rerank_args(
    reranker: Any, str_query: Optional[str], query_string: Optional[str] = None
) -> str:
    """The checks of the vector builder's ``rerank(reranker, query_string)``: the query text
    the reranker will get (`query_string`, else the text the search was made with,
    `str_query`), with LanceDB's ValueErrors when there is none or it is not a string."""
    if str_query is None and query_string is None:
        raise ValueError(
            "The query used for vector search is not a string. In this case, the reranker "
            "query needs to be specified explicitly."
        )
    if query_string is not None and not isinstance(query_string, str):
        raise ValueError("Reranking currently only supports string queries")
    return query_string if query_string is not None else str_query
