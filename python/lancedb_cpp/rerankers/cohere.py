# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``CohereReranker``: the Cohere Rerank API over the ``cohere`` client, as LanceDB's."""

from __future__ import annotations

import os
from functools import cached_property
from typing import Any, Optional

import pyarrow as pa
from packaging.version import Version

from ..embeddings.utils import attempt_import_or_raise
from ._scoring import ScoringReranker

__all__ = ["CohereReranker"]


class CohereReranker(ScoringReranker):
    """Rerank with Cohere (https://docs.cohere.com/docs/rerank-guide).

    Parameters
    ----------
    model_name : str, default "rerank-english-v3.0"
    column : str, default "text"
        The column sent as the documents.
    top_n : int, optional
        Keep only the n best rows (all by default).
    return_score : str, default "relevance"
    api_key : str, optional
        Used when ``COHERE_API_KEY`` is not set.
    """

    def __init__(
        self,
        model_name: str = "rerank-english-v3.0",
        column: str = "text",
        top_n: Optional[int] = None,
        return_score: str = "relevance",
        api_key: Optional[str] = None,
    ):
        super().__init__(return_score)
        self.model_name = model_name
        self.column = column
        self.top_n = top_n
        self.api_key = api_key

    def __str__(self) -> str:
        return f"CohereReranker(model_name={self.model_name})"

    @cached_property
    def _client(self) -> Any:
        cohere = attempt_import_or_raise("cohere")
        version = getattr(cohere, "__version__", None)
        if version is not None and Version(version) < Version("0.5.0"):
            raise ValueError(f"cohere version must be at least 0.5.0, found {version}")
        if os.environ.get("COHERE_API_KEY") is None and self.api_key is None:
            raise ValueError(
                "COHERE_API_KEY not set. Either set it in your environment or pass it as "
                "`api_key` argument to the CohereReranker."
            )
        return cohere.Client(os.environ.get("COHERE_API_KEY") or self.api_key)

    def _rerank(self, result_set: pa.Table, query: str) -> pa.Table:
        result_set = self._handle_empty_results(result_set)
        if len(result_set) == 0:
            return result_set
        response = self._client.rerank(
            query=query, documents=self._documents(result_set), top_n=self.top_n,
            model=self.model_name,
        )  # fmt: skip
        results = response.results
        return self._take_scored(
            result_set, [r.index for r in results], [r.relevance_score for r in results]
        )
