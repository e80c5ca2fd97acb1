# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Reciprocal rank fusion, ``lancedb.rerankers.RRFReranker``."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Union

import pyarrow as pa

from .base import ROW_ID, Reranker, _as_table_list, _row_id_required, _row_ids


class RRFReranker(Reranker):
    """Reciprocal rank fusion: a row scores ``1 / (K + rank)`` in each result list it appears
    in (ranks start at 1), summed over the lists; the scores of the searches are ignored.

    Parameters
    ----------
    K : int, default 60
        The rank offset of the formula; must be positive.
    return_score : str, default "relevance"
        ``"relevance"`` or ``"all"`` (see ``Reranker``).
    """

    def __init__(self, K: int = 60, return_score: str = "relevance"):
        if K <= 0:
            raise ValueError("K must be greater than 0")
        super().__init__(return_score)
        self.K = K

    def __str__(self) -> str:
        return f"RRFReranker(K={self.K})"

    def _fused_scores(self, id_lists: List[list]) -> Dict[Any, float]:
        totals: Dict[Any, float] = {}
        for ids in id_lists:
            for rank, row_id in enumerate(ids, start=1):
                totals[row_id] = totals.get(row_id, 0.0) + 1 / (rank + self.K)
        return totals

    def rerank_hybrid(
        self, query: str, vector_results: pa.Table, fts_results: pa.Table
    ) -> pa.Table:
        totals = self._fused_scores([_row_ids(vector_results), _row_ids(fts_results)])
        combined = self.merge_results(vector_results, fts_results)
        scores = [totals[row_id] for row_id in combined.column(ROW_ID).to_pylist()]
        return self._with_relevance(combined, scores)

    def rerank_multivector(
        self,
        vector_results: Union[List[pa.Table], List[Any], pa.Table],
        query: Optional[str] = None,
        deduplicate: bool = True,
    ) -> pa.Table:
        """Fuse the results of several vector searches by their ranks (rows are always
        deduplicated by ``_rowid``)."""
        if not isinstance(vector_results, pa.Table) and not vector_results:
            raise ValueError("vector_results must not be empty")
        tables = _as_table_list(vector_results)
        if any(ROW_ID not in t.column_names for t in tables):
            raise _row_id_required()
        combined = pa.concat_tables(tables, **self._concat_tables_args)
        return self.rerank_hybrid(query, combined, pa.table({}))
