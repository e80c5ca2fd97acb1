# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Weighted reciprocal rank, ``lancedb.rerankers.MRRReranker``."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Union

import numpy as np
import pyarrow as pa

from .base import ROW_ID, Reranker, _as_table_list, _row_id_required, _row_ids


def _reciprocal_ranks(ids: list) -> Dict[Any, float]:
    """``1 / rank`` of each id (ranks from 1; a repeated id keeps its last rank)."""
    return {row_id: 1.0 / rank for rank, row_id in enumerate(ids, start=1)}


class MRRReranker(Reranker):
    """Mean reciprocal rank: a row scores ``weight_vector / vector_rank +
    weight_fts / fts_rank``, a missing rank counting 0.

    Parameters
    ----------
    weight_vector, weight_fts : float, default 0.5
        Weights of the two searches, each in [0, 1], summing to 1.
    return_score : str, default "relevance"
        ``"relevance"`` or ``"all"`` (see ``Reranker``).
    """

    def __init__(
        self,
        weight_vector: float = 0.5,
        weight_fts: float = 0.5,
        return_score: str = "relevance",
    ):
        if not 0.0 <= weight_vector <= 1.0:
            raise ValueError("weight_vector must be between 0.0 and 1.0")
        if not 0.0 <= weight_fts <= 1.0:
            raise ValueError("weight_fts must be between 0.0 and 1.0")
        if abs(weight_vector + weight_fts - 1.0) > 1e-6:
            raise ValueError("weight_vector + weight_fts must equal 1.0")
        super().__init__(return_score)
        self.weight_vector = weight_vector
        self.weight_fts = weight_fts

    def __str__(self) -> str:
        return f"MRRReranker(weight_vector={self.weight_vector}, weight_fts={self.weight_fts})"

    def rerank_hybrid(
        self, query: str, vector_results: pa.Table, fts_results: pa.Table
    ) -> pa.Table:
        vector_rr = _reciprocal_ranks(_row_ids(vector_results))
        fts_rr = _reciprocal_ranks(_row_ids(fts_results))
        combined = self.merge_results(vector_results, fts_results)
        scores = [
            self.weight_vector * vector_rr.get(row_id, 0.0)
            + self.weight_fts * fts_rr.get(row_id, 0.0)
            for row_id in combined.column(ROW_ID).to_pylist()
        ]
        return self._with_relevance(combined, scores)

    def rerank_multivector(
        self,
        vector_results: Union[List[pa.Table], List[Any], pa.Table],
        query: Optional[str] = None,
        deduplicate: bool = True,
    ) -> pa.Table:
        """Each vector search is one ranking system: a row scores the sum of its reciprocal
        ranks divided by the number of searches (rows are always deduplicated)."""
        if not isinstance(vector_results, pa.Table) and not vector_results:
            raise ValueError("vector_results must not be empty")
        tables = _as_table_list(vector_results)
        if any(ROW_ID not in t.column_names for t in tables):
            raise _row_id_required()
        ranks: Dict[Any, List[float]] = {}
        for table in tables:
            for rank, row_id in enumerate(table.column(ROW_ID).to_pylist(), start=1):
                ranks.setdefault(row_id, []).append(1.0 / rank)
        systems = len(tables)
        combined = self._deduplicate(pa.concat_tables(tables, **self._concat_tables_args))
        scores = [
            float(np.sum(ranks[row_id])) / systems
            for row_id in combined.column(ROW_ID).to_pylist()
        ]
        return self._with_relevance(combined, scores)
