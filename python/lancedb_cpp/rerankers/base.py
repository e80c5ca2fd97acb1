# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""The ``Reranker`` interface of ``lancedb.rerankers``.

A reranker turns the result tables of a search into one table ordered by a
``_relevance_score`` (float32, higher is better). Hybrid search hands it the vector results
(``_rowid``, ``_distance``, user columns) and the full-text results (``_rowid``, ``_score``, user
columns), already normalized by the query builder; ``.rerank()`` on a vector or full-text query
hands it that query's results alone.

Subclasses written for LanceDB work unchanged: they call ``super().__init__(return_score)``,
read ``self.score``, and may use ``merge_results``, ``_merge_and_keep_scores``,
``_keep_relevance_score``, ``_deduplicate`` and ``_handle_empty_results``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Dict, List, Optional, Union

import pyarrow as pa
import pyarrow.compute as pc

ROW_ID = "_rowid"
DISTANCE = "_distance"
SCORE = "_score"
RELEVANCE = "_relevance_score"

_RETURN_SCORES = ("relevance", "all")


def _as_table_list(results: Any) -> List[pa.Table]:
    """The result tables of `results` (a table, a query builder, or a list of either), as the
    multivector rerankers accept them; query builders are executed with ``to_arrow()``."""
    if not isinstance(results, list):
        results = [results]
    if not results:
        return []
    first_type = type(results[0])
    if any(not isinstance(r, first_type) for r in results):
        raise ValueError("All elements in vector_results should be of the same type")
    if first_type.__name__ == "LanceVectorQueryBuilder":
        return [r.to_arrow() for r in results]
    if not issubclass(first_type, pa.Table):
        raise ValueError(
            "vector_results should be a list of pa.Table or LanceVectorQueryBuilder"
        )
    return list(results)


def _row_id_required() -> ValueError:
    return ValueError(
        "'_rowid' is required for deduplication. add _rowid to search results like this: "
        "`search().with_row_id(True)`"
    )


class Reranker(ABC):
    """Base class of every reranker.

    Parameters
    ----------
    return_score : str, default "relevance"
        ``"relevance"``: the result keeps only ``_relevance_score``; ``"all"``: it also keeps
        the ``_distance`` and ``_score`` of the searches the row came from.
    """

    def __init__(self, return_score: str = "relevance"):
        if return_score not in _RETURN_SCORES:
            raise ValueError("score must be either 'relevance' or 'all'")
        self.score = return_score
        # pa.concat_tables arguments that unify differing schemas (pyarrow >= 14).
        self._concat_tables_args: Dict[str, Any] = {"promote_options": "default"}

    def __str__(self) -> str:
        return type(self).__name__

    # The three entry points --------------------------------------------------------------

    @abstractmethod
    def rerank_hybrid(
        self, query: str, vector_results: pa.Table, fts_results: pa.Table
    ) -> pa.Table:
        """Fuse the vector and full-text results of a hybrid search into one table with a
        ``_relevance_score`` column, best first. Every reranker implements it."""

    def rerank_vector(self, query: str, vector_results: pa.Table) -> pa.Table:
        """Rerank the results of a vector search; optional, the default raises
        NotImplementedError."""
        raise NotImplementedError(f"{type(self).__name__} does not implement rerank_vector")

    def rerank_fts(self, query: str, fts_results: pa.Table) -> pa.Table:
        """Rerank the results of a full-text search; optional, the default raises
        NotImplementedError."""
        raise NotImplementedError(f"{type(self).__name__} does not implement rerank_fts")

    def rerank_multivector(
        self,
        vector_results: Union[List[pa.Table], List[Any], pa.Table],
        query: Optional[str] = None,
        deduplicate: bool = False,
    ) -> pa.Table:
        """Rerank the concatenated results of several vector searches with ``rerank_vector``;
        with `deduplicate`, keep the first row of each ``_rowid``."""
        tables = _as_table_list(vector_results)
        combined = pa.concat_tables(tables, **self._concat_tables_args)
        reranked = self.rerank_vector(query, combined)
        if deduplicate:
            if ROW_ID not in combined.column_names:
                raise _row_id_required()
            reranked = self._deduplicate(reranked)
        return reranked

    # Helpers for subclasses --------------------------------------------------------------

    def merge_results(self, vector_results: pa.Table, fts_results: pa.Table) -> pa.Table:
        """The vector rows followed by the full-text rows, schemas unified, keeping only the
        first row of each ``_rowid`` (scores are not combined: a row found by both searches
        keeps its vector columns and a null ``_score``)."""
        combined = pa.concat_tables([vector_results, fts_results], **self._concat_tables_args)
        return self._deduplicate(combined)

    def _deduplicate(self, table: pa.Table) -> pa.Table:
        """`table` without the repeated ``_rowid`` rows: the first row of each id stays, in
        its place."""
        row_ids = table.column(ROW_ID)
        if table.num_rows == 0:
            return table
        # pc.unique lists the ids in order of first appearance; index_in finds that first
        # appearance in the column.
        first = pc.index_in(pc.unique(row_ids), value_set=row_ids.combine_chunks())
        if len(first) == table.num_rows:
            return table
        keep = pc.sort_indices(first)
        return table.take(pc.take(first, keep))

    def _merge_and_keep_scores(self, vector_results: pa.Table, fts_results: pa.Table) -> pa.Table:
        """Merge the two result sets by ``_rowid`` keeping both scores: a row in both searches
        gets its full-text ``_score`` next to its ``_distance``; a row in one only has a null
        in the other's score. Vector rows come first; the schema is inferred from the values
        (as LanceDB builds it from Python rows)."""
        if DISTANCE not in fts_results.column_names:
            fts_results = fts_results.append_column(
                DISTANCE, pa.nulls(fts_results.num_rows, pa.float32())
            )
        if SCORE not in vector_results.column_names:
            vector_results = vector_results.append_column(
                SCORE, pa.nulls(vector_results.num_rows, pa.float32())
            )
        rows: Dict[Any, Dict[str, Any]] = {}
        for row in vector_results.to_pylist():
            rows[row[ROW_ID]] = row
        for row in fts_results.to_pylist():
            existing = rows.get(row[ROW_ID])
            if existing is None:
                rows[row[ROW_ID]] = row
            else:
                existing[SCORE] = row[SCORE]
        return pa.Table.from_pylist(list(rows.values()))

    def _keep_relevance_score(self, combined_results: pa.Table) -> pa.Table:
        """With ``return_score="relevance"``, drop ``_score`` and ``_distance``."""
        if self.score != "relevance":
            return combined_results
        drop = [c for c in (SCORE, DISTANCE) if c in combined_results.column_names]
        return combined_results.drop_columns(drop) if drop else combined_results

    def _handle_empty_results(self, results: pa.Table) -> pa.Table:
        """An empty `results` gains an empty float32 ``_relevance_score`` column."""
        if len(results) > 0:
            return results
        return results.append_column(RELEVANCE, pa.array([], type=pa.float32()))

    # Shared by the score-fusing rerankers ------------------------------------------------

    def _with_relevance(self, combined: pa.Table, scores: List[float]) -> pa.Table:
        """`combined` with `scores` as its float32 ``_relevance_score``, best first (ties keep
        their order), trimmed to the relevance score unless ``return_score="all"``."""
        combined = combined.append_column(RELEVANCE, pa.array(scores, type=pa.float32()))
        combined = combined.sort_by([(RELEVANCE, "descending")])
        return self._keep_relevance_score(combined)


def _row_ids(results: Optional[pa.Table]) -> list:
    """The ``_rowid`` values of `results`, or none for a missing or empty table (which may
    lack the column)."""
    if results is None or len(results) == 0:
        return []
    return results.column(ROW_ID).to_pylist()
