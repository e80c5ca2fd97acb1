# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``VoyageAIReranker``: the Voyage AI rerank API over the ``voyageai`` client, as LanceDB's."""

from __future__ import annotations

import os
from functools import cached_property
from typing import Any, Optional

import pyarrow as pa

from ..embeddings.utils import attempt_import_or_raise
from ._scoring import ScoringReranker

__all__ = ["VoyageAIReranker"]


class VoyageAIReranker(ScoringReranker):
    """Rerank with Voyage AI (https://docs.voyageai.com/docs/reranker).

    Parameters
    ----------
    model_name : str
        rerank-2.5, rerank-2.5-lite, rerank-2, rerank-2-lite ...
    column : str, default "text"
    top_n : int, optional
        Keep only the n best rows (the API's ``top_k``).
    return_score : str, default "relevance"
    api_key : str, optional
        Used when ``VOYAGE_API_KEY`` is not set.
    truncation : bool, default True
    """

    def __init__(
        self,
        model_name: str,
        column: str = "text",
        top_n: Optional[int] = None,
        return_score: str = "relevance",
        api_key: Optional[str] = None,
        truncation: Optional[bool] = True,
    ):
        super().__init__(return_score)
        self.model_name = model_name
        self.column = column
        self.top_n = top_n
        self.api_key = api_key
        self.truncation = truncation

    def __str__(self) -> str:
        return f"VoyageAIReranker(model_name={self.model_name})"

    @cached_property
    def _client(self) -> Any:
        voyageai = attempt_import_or_raise("voyageai")
        if os.environ.get("VOYAGE_API_KEY") is None and self.api_key is None:
            raise ValueError(
                "VOYAGE_API_KEY not set. Either set it in your environment or pass it as "
                "`api_key` argument to the VoyageAIReranker."
            )
        return voyageai.Client(api_key=os.environ.get("VOYAGE_API_KEY") or self.api_key)

    def _rerank(self, result_set: pa.Table, query: str) -> pa.Table:
        result_set = self._handle_empty_results(result_set)
        if len(result_set) == 0:
            return result_set
        response = self._client.rerank(
            query=query, documents=self._documents(result_set), top_k=self.top_n,
            model=self.model_name, truncation=self.truncation,
        )  # fmt: skip
        results = response.results
        return self._take_scored(
            result_set, [r.index for r in results], [r.relevance_score for r in results]
        )
