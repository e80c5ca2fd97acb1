# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``WatsonxReranker``: the IBM watsonx.ai rerank API over the ``ibm_watsonx_ai`` SDK
(``Rerank.generate``), as LanceDB's; credentials and scope as ``WatsonxEmbeddings``."""

from __future__ import annotations

from functools import cached_property
from typing import Any, Dict, Optional

import pyarrow as pa

from ..embeddings.watsonx import DEFAULT_WATSONX_URL, resolve_scope, watsonx_credentials
from ..embeddings.utils import attempt_import_or_raise
from ._scoring import ScoringReranker

__all__ = ["WatsonxReranker", "DEFAULT_WATSONX_URL"]


class WatsonxReranker(ScoringReranker):
    """Rerank with watsonx.ai.

    Parameters
    ----------
    model_name : str, default "cross-encoder/ms-marco-minilm-l-12-v2"
    column : str, default "text"
    top_n : int, optional
        Keep only the n best rows.
    return_score : str, default "relevance"
    api_key : str, optional
        Falls back to ``WATSONX_API_KEY``.
    project_id, space_id : str, optional
        The scope: exactly one, explicit or from ``WATSONX_PROJECT_ID`` /
        ``WATSONX_SPACE_ID`` (read only when neither is given).
    url : str, optional
        The service, default "https://us-south.ml.cloud.ibm.com".
    truncate_input_tokens : int, optional
        Truncate each input to this many tokens.
    """

    def __init__(
        self,
        model_name: str = "cross-encoder/ms-marco-minilm-l-12-v2",
        column: str = "text",
        top_n: Optional[int] = None,
        return_score: str = "relevance",
        api_key: Optional[str] = None,
        project_id: Optional[str] = None,
        space_id: Optional[str] = None,
        url: Optional[str] = None,
        truncate_input_tokens: Optional[int] = None,
    ):
        super().__init__(return_score)
        self.model_name = model_name
        self.column = column
        self.top_n = top_n
        self.api_key = api_key
        self.project_id = project_id
        self.space_id = space_id
        self.url = url
        self.truncate_input_tokens = truncate_input_tokens

    def __str__(self) -> str:
        return f"WatsonxReranker(model_name={self.model_name})"

    @cached_property
    def _client(self) -> Any:
        sdk = attempt_import_or_raise("ibm_watsonx_ai")
        foundation_models = attempt_import_or_raise("ibm_watsonx_ai.foundation_models")
        credentials = watsonx_credentials(sdk, self.api_key, self.url, "WatsonxReranker")
        scope, scope_id = resolve_scope(self.project_id, self.space_id, "WatsonxReranker")
        return foundation_models.Rerank(
            model_id=self.model_name, credentials=credentials, **{scope: scope_id}
        )

    def _build_params(self) -> Dict[str, Any]:
        """The ``params`` of ``Rerank.generate``."""
        return_options: Dict[str, Any] = {"inputs": True}
        if self.top_n is not None:
            return_options["top_n"] = self.top_n
        params: Dict[str, Any] = {"return_options": return_options}
        if self.truncate_input_tokens is not None:
            params["truncate_input_tokens"] = self.truncate_input_tokens
        return params

    def _rerank(self, result_set: pa.Table, query: str) -> pa.Table:
        result_set = self._handle_empty_results(result_set)
        if len(result_set) == 0:
            return result_set
        response = self._client.generate(
            query=query, inputs=self._documents(result_set), params=self._build_params()
        )
        results = response["results"]
        return self._take_scored(
            result_set, [r["index"] for r in results], [r["score"] for r in results]
        )
