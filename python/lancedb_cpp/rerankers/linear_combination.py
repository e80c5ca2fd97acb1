# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Weighted sum of the two normalized scores, ``lancedb.rerankers.LinearCombinationReranker``."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .base import DISTANCE, RELEVANCE, ROW_ID, SCORE, Reranker


def _float64(values) -> np.ndarray:
    """`values` (an Arrow column, nulls included) as float64 with NaN for nulls."""
    return np.asarray(pc.cast(values, pa.float64()).to_numpy(zero_copy_only=False), dtype=float)


class LinearCombinationReranker(Reranker):
    """``_relevance_score = weight * (1 - _distance) + (1 - weight) * _score`` on the
    normalized scores the hybrid query hands over. A row missing from one search takes
    `fill` as its distance or ``1 - fill`` as its score.

    When one search returned nothing, the other's rows are returned in their order with
    ``1 - _distance`` (vector) or ``_score`` (full-text) as the relevance score.

    Only hybrid results can be reranked with it.

    Parameters
    ----------
    weight : float, default 0.7
        Weight of the vector score, in [0, 1].
    fill : float, default 1.0
        The penalty of a row missing from one of the searches.
    return_score : str, default "relevance"
        ``"relevance"`` or ``"all"`` (see ``Reranker``).
    """

    def __init__(self, weight: float = 0.7, fill: float = 1.0, return_score: str = "relevance"):
        if weight < 0 or weight > 1:
            raise ValueError("weight must be between 0 and 1.")
        super().__init__(return_score)
        self.weight = weight
        self.fill = fill

    def __str__(self) -> str:
        return f"LinearCombinationReranker(weight={self.weight}, fill={self.fill})"

    def rerank_hybrid(
        self, query: str, vector_results: pa.Table, fts_results: pa.Table
    ) -> pa.Table:
        return self.merge_results(vector_results, fts_results, self.fill)

    def _invert_score(self, dist):
        """A distance as a relevance (and back)."""
        return 1 - dist

    def _combine_score(self, vector_score, fts_score):
        return self.weight * vector_score + (1 - self.weight) * fts_score

    def _one_side(self, results: pa.Table, relevance, missing: str) -> pa.Table:
        results = results.append_column(RELEVANCE, relevance)
        if self.score == "relevance":
            return self._keep_relevance_score(results)
        # "all": the absent search's score column, as NaN
        return results.append_column(
            missing, pa.array(np.full(results.num_rows, np.nan), type=pa.float32())
        )

    def merge_results(  # type: ignore[override]
        self, vector_results: pa.Table, fts_results: pa.Table, fill: float
    ) -> pa.Table:
        if len(vector_results) == 0:
            relevance = pc.cast(fts_results.column(SCORE), pa.float32())
            return self._one_side(fts_results, relevance, DISTANCE)
        if len(fts_results) == 0:
            relevance = pa.array(
                self._invert_score(_float64(vector_results.column(DISTANCE))), type=pa.float32()
            )
            return self._one_side(vector_results, relevance, SCORE)

        # Every vector row, then the full-text rows not found by the vector search.
        combined = pa.concat_tables([vector_results, fts_results], **self._concat_tables_args)
        combined = self._deduplicate(combined)
        row_ids = combined.column(ROW_ID)
        in_vector = pc.index_in(row_ids, value_set=vector_results.column(ROW_ID).combine_chunks())
        in_fts = pc.index_in(row_ids, value_set=fts_results.column(ROW_ID).combine_chunks())

        # A row found by both keeps its full-text score next to its distance.
        fts_score = pc.take(fts_results.column(SCORE), in_fts)
        if SCORE in combined.column_names:
            i = combined.column_names.index(SCORE)
            combined = combined.set_column(
                i, combined.schema.field(i), fts_score.cast(combined.schema.field(i).type)
            )

        found_in_vector = in_vector.is_valid().to_numpy(zero_copy_only=False)
        found_in_fts = in_fts.is_valid().to_numpy(zero_copy_only=False)
        distance = _float64(pc.take(vector_results.column(DISTANCE), in_vector))
        vector_score = np.where(
            found_in_vector, self._invert_score(distance), self._invert_score(fill)
        )
        text_score = np.where(found_in_fts, _float64(fts_score), 1 - fill)
        relevance = self._combine_score(vector_score, text_score)
        return self._with_relevance(combined, relevance)
