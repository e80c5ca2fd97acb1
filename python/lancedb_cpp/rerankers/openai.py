# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``OpenaiReranker``: a prompt-based reranker over an OpenAI chat model (experimental, as
LanceDB's): the model is asked for the documents with a relevance score each, in JSON."""

from __future__ import annotations

import json
import os
from functools import cached_property
from typing import Any, Optional

import pyarrow as pa

from ..embeddings.utils import attempt_import_or_raise
from ._scoring import ScoringReranker
from .base import RELEVANCE

__all__ = ["OpenaiReranker"]

_SYSTEM_PROMPT = (
    "You are an expert relevance ranker. Given a list of documents and a query, your job is "
    "to determine the relevance each document is for answering the query. Your output is "
    "JSON, which is a list of documents. Each document has two fields, content and "
    "relevance_score.  relevance_score is from 0.0 to 1.0 indicating the relevance of the "
    "text to the given query. Make sure to include all documents in the response."
)


class OpenaiReranker(ScoringReranker):
    """Rerank with an OpenAI chat model.

    Parameters
    ----------
    model_name : str, default "gpt-4-turbo-preview"
    column : str, default "text"
    return_score : str, default "relevance"
    api_key : str, optional
        Used when ``OPENAI_API_KEY`` is not set.

    The reply's documents replace the `column` values row by row (the model returns them in
    the order it was given them) and its scores become ``_relevance_score``; the result is
    sorted by score.
    """

    _sort_by_relevance = True

    def __init__(
        self,
        model_name: str = "gpt-4-turbo-preview",
        column: str = "text",
        return_score: str = "relevance",
        api_key: Optional[str] = None,
    ):
        super().__init__(return_score)
        self.model_name = model_name
        self.column = column
        self.api_key = api_key

    def __str__(self) -> str:
        return f"OpenaiReranker(model_name={self.model_name})"

    def _rerank(self, result_set: pa.Table, query: str) -> pa.Table:
        result_set = self._handle_empty_results(result_set)
        if len(result_set) == 0:
            return result_set
        docs = self._documents(result_set)
        response = self._client.chat.completions.create(
            model=self.model_name,
            response_format={"type": "json_object"},
            temperature=0,
            messages=[
                {"role": "system", "content": _SYSTEM_PROMPT},
                {"role": "user", "content": f"Query: {query} Docs: {docs}"},
            ],
        )
        results = json.loads(response.choices[0].message.content)["documents"]
        contents = [r["content"] for r in results]
        scores = [r["relevance_score"] for r in results]
        result_set = result_set.drop_columns([self.column])
        result_set = result_set.append_column(self.column, pa.array(contents, type=pa.string()))
        return result_set.append_column(RELEVANCE, pa.array(scores, type=pa.float32()))

    @cached_property
    def _client(self) -> Any:
        openai = attempt_import_or_raise("openai")
        if os.environ.get("OPENAI_API_KEY") is None and self.api_key is None:
            raise ValueError(
                "OPENAI_API_KEY not set. Either set it in your environment or pass it as "
                "`api_key` argument to the OpenaiReranker."
            )
        return openai.OpenAI(api_key=os.environ.get("OPENAI_API_KEY") or self.api_key)
