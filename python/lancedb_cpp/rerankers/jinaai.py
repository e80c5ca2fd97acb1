# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``JinaReranker``: the Jina Rerank API over HTTP with ``requests``, as LanceDB's."""

from __future__ import annotations

import os
from functools import cached_property
from typing import Any, Optional

import pyarrow as pa

from ._scoring import ScoringReranker

__all__ = ["JinaReranker"]

API_URL = "https://api.jina.ai/v1/rerank"


class JinaReranker(ScoringReranker):
    """Rerank with Jina (https://jina.ai/rerank).

    Parameters
    ----------
    model_name : str, default "jina-reranker-v2-base-multilingual"
    column : str, default "text"
    top_n : int, optional
        Keep only the n best rows.
    return_score : str, default "relevance"
    api_key : str, optional
        Used when ``JINA_API_KEY`` is not set.
    """

    def __init__(
        self,
        model_name: str = "jina-reranker-v2-base-multilingual",
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
        return f"JinaReranker(model_name={self.model_name})"

    @cached_property
    def _client(self) -> Any:
        import requests

        if os.environ.get("JINA_API_KEY") is None and self.api_key is None:
            raise ValueError(
                "JINA_API_KEY not set. Either set it in your environment or pass it as "
                "`api_key` argument to the JinaReranker."
            )
        self.api_key = self.api_key or os.environ.get("JINA_API_KEY")
        self._session = requests.Session()
        self._session.headers.update(
            {"Authorization": f"Bearer {self.api_key}", "Accept-Encoding": "identity"}
        )
        return self._session

    def _rerank(self, result_set: pa.Table, query: str) -> pa.Table:
        result_set = self._handle_empty_results(result_set)
        if len(result_set) == 0:
            return result_set
        response = self._client.post(
            API_URL,
            json={
                "query": query,
                "documents": self._documents(result_set),
                "model": self.model_name,
                "top_n": self.top_n,
            },
        ).json()
        if "results" not in response:
            raise RuntimeError(response["detail"])
        results = response["results"]
        return self._take_scored(
            result_set, [r["index"] for r in results], [r["relevance_score"] for r in results]
        )
