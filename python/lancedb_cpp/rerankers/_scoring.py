# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""The shape shared by the rerankers that score rows with a model or an API.

A subclass implements ``_rerank(result_set, query)``: the rows (possibly reordered or cut to
a top n) with a float32 ``_relevance_score``. The three entry points are built on it as in
LanceDB: hybrid search merges the two result sets (keeping both scores with
``return_score="all"``), vector and full-text search rerank their own rows; with
``return_score="relevance"`` the search scores are dropped. Subclasses whose ``_rerank``
keeps the input order set ``_sort_by_relevance`` to sort the result, best first."""

from __future__ import annotations

import pyarrow as pa

from .base import DISTANCE, RELEVANCE, SCORE, Reranker


class ScoringReranker(Reranker):
    """Base of the model and API rerankers (not exported)."""

    # Sort each result by _relevance_score (descending) after _rerank.
    _sort_by_relevance = False

    def _rerank(self, result_set: pa.Table, query: str) -> pa.Table:
        raise NotImplementedError  # pragma: no cover - every subclass implements it

    def _finish(self, results: pa.Table) -> pa.Table:
        if self._sort_by_relevance:
            return results.sort_by([(RELEVANCE, "descending")])
        return results

    def rerank_hybrid(
        self, query: str, vector_results: pa.Table, fts_results: pa.Table
    ) -> pa.Table:
        if self.score == "all":
            combined = self._merge_and_keep_scores(vector_results, fts_results)
        else:
            combined = self.merge_results(vector_results, fts_results)
        combined = self._rerank(combined, query)
        if self.score == "relevance":
            combined = self._keep_relevance_score(combined)
        return self._finish(combined)

    def rerank_vector(self, query: str, vector_results: pa.Table) -> pa.Table:
        results = self._rerank(vector_results, query)
        if self.score == "relevance":
            results = results.drop_columns([DISTANCE])
        return self._finish(results)

    def rerank_fts(self, query: str, fts_results: pa.Table) -> pa.Table:
        results = self._rerank(fts_results, query)
        if self.score == "relevance":
            results = results.drop_columns([SCORE])
        return self._finish(results)

    def _documents(self, result_set: pa.Table) -> list:
        return result_set[self.column].to_pylist()

    @staticmethod
    def _take_scored(result_set: pa.Table, indices: list, scores: list) -> pa.Table:
        """The rows at `indices` (the API's order) with `scores` as ``_relevance_score``."""
        result_set = result_set.take(list(indices))
        return result_set.append_column(RELEVANCE, pa.array(list(scores), type=pa.float32()))
