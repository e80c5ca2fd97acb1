# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``AnswerdotaiRerankers``: the models of the ``rerankers`` library (AnswerDotAI), run
locally (needs ``rerankers`` and the model's weights), as LanceDB's. The model loads when
the reranker is created."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from ..embeddings.utils import attempt_import_or_raise
from ._scoring import ScoringReranker
from .base import RELEVANCE

__all__ = ["AnswerdotaiRerankers"]


class AnswerdotaiRerankers(ScoringReranker):
    """Score each row with a ``rerankers.Reranker``; best first.

    Parameters
    ----------
    model_type : str, default "colbert"
    model_name : str, default "answerdotai/answerai-colbert-small-v1"
    column : str, default "text"
    return_score : str, default "relevance"
    **kwargs
        Passed to ``rerankers.Reranker`` (e.g. ``device``).
    """

    _sort_by_relevance = True

    def __init__(
        self,
        model_type: str = "colbert",
        model_name: str = "answerdotai/answerai-colbert-small-v1",
        column: str = "text",
        return_score: str = "relevance",
        **kwargs: Any,
    ):
        super().__init__(return_score)
        self.column = column
        rerankers = attempt_import_or_raise("rerankers")
        self.model_name = model_name
        self.model_type = model_type
        self.reranker = rerankers.Reranker(model_name=model_name, model_type=model_type, **kwargs)

    def __str__(self) -> str:
        return f"AnswerdotaiRerankers(model_type={self.model_type}, model_name={self.model_name})"

    def _rerank(self, result_set: pa.Table, query: str) -> pa.Table:
        result_set = self._handle_empty_results(result_set)
        if len(result_set) == 0:
            return result_set
        docs = self._documents(result_set)
        doc_ids = list(range(len(docs)))
        ranked = self.reranker.rank(query, docs, doc_ids=doc_ids)
        scores = [ranked.get_result_by_docid(i).score for i in doc_ids]
        return result_set.append_column(RELEVANCE, pa.array(scores, type=pa.float32()))
