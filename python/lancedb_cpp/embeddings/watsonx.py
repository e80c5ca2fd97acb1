# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``watsonx``: IBM watsonx.ai embeddings over the ``ibm_watsonx_ai`` SDK, as LanceDB's
``WatsonxEmbeddings``. Credentials: `api_key` or ``WATSONX_API_KEY``; scope: exactly one of
`project_id` / `space_id`, or when neither is given ``WATSONX_PROJECT_ID`` /
``WATSONX_SPACE_ID``."""

from __future__ import annotations

import os
from functools import cached_property
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np

from .utils import attempt_import_or_raise
from .base import TextEmbeddingFunction
from .openai import _without_clients
from .registry import register

DEFAULT_WATSONX_URL = "https://us-south.ml.cloud.ibm.com"

# The models offered for new tables (model_names()), with their dimensions.
CURRENT_MODELS: Dict[str, int] = {
    "ibm/granite-embedding-278m-multilingual": 768,
    "ibm/slate-125m-english-rtrvr-v2": 768,
    "ibm/slate-30m-english-rtrvr-v2": 384,
    "intfloat/multilingual-e5-large": 1024,
}

# Every known model: the current ones, a deprecated one and the names of earlier releases
# (tables that stored them must still open).
MODELS_DIMS: Dict[str, int] = {
    **CURRENT_MODELS,
    "sentence-transformers/all-minilm-l6-v2": 384,
    "ibm/slate-125m-english-rtrvr": 768,
    "ibm/slate-30m-english-rtrvr": 384,
    "sentence-transformers/all-minilm-l12-v2": 384,
}


def resolve_scope(
    project_id: Optional[str], space_id: Optional[str], owner: str
) -> Tuple[str, str]:
    """The ``(keyword, value)`` naming the project or space of a watsonx call: the explicit
    one, else the environment's; exactly one must be set (ValueError otherwise)."""
    if project_id is None and space_id is None:
        project_id = os.environ.get("WATSONX_PROJECT_ID")
        space_id = os.environ.get("WATSONX_SPACE_ID")
    if project_id and space_id:
        raise ValueError("Provide either `project_id` or `space_id`, not both.")
    if not project_id and not space_id:
        raise ValueError(
            "Either WATSONX_PROJECT_ID or WATSONX_SPACE_ID must be set. Pass one as an "
            f"argument to {owner} or set the corresponding environment variable."
        )
    return ("project_id", project_id) if project_id else ("space_id", space_id)


def watsonx_credentials(module: Any, api_key: Optional[str], url: Optional[str], owner: str):
    """``ibm_watsonx_ai.Credentials`` from `api_key` (or ``WATSONX_API_KEY``) and `url`."""
    api_key = api_key or os.environ.get("WATSONX_API_KEY")
    if not api_key:
        raise ValueError(
            "WATSONX_API_KEY not set. Either set it in your environment or pass it as "
            f"`api_key` argument to {owner}."
        )
    return module.Credentials(api_key=api_key, url=url or DEFAULT_WATSONX_URL)


@register("watsonx")
class WatsonxEmbeddings(TextEmbeddingFunction):
    """Embeddings from the IBM watsonx.ai API.

    Parameters
    ----------
    name : str, default "ibm/slate-125m-english-rtrvr"
        The model (this default is kept so that tables stored without a name reopen with the
        same model; new tables should name one, e.g. "ibm/granite-embedding-278m-multilingual").
    api_key : str, optional
        A ``$var:`` reference; falls back to ``WATSONX_API_KEY``.
    project_id, space_id : str, optional
        The scope (exactly one).
    url : str, optional
        The service, default "https://us-south.ml.cloud.ibm.com".
    params : dict, optional
        Passed to ``Embeddings`` (e.g. ``{"truncate_input_tokens": 512}``).
    """

    name: str = "ibm/slate-125m-english-rtrvr"
    api_key: Optional[str] = None
    project_id: Optional[str] = None
    space_id: Optional[str] = None
    url: Optional[str] = None
    params: Optional[Dict] = None

    @staticmethod
    def sensitive_keys() -> List[str]:
        return ["api_key"]

    @staticmethod
    def model_names() -> List[str]:
        """The models offered for new tables (the legacy names are left out)."""
        return list(CURRENT_MODELS)

    def ndims(self) -> int:
        if self.name not in MODELS_DIMS:
            raise ValueError(
                f"Unknown model '{self.name}'. Available models: {list(CURRENT_MODELS)}"
            )
        return MODELS_DIMS[self.name]

    def generate_embeddings(
        self, texts: Union[List[str], np.ndarray], *args: Any, **kwargs: Any
    ) -> List[List[float]]:
        return self._watsonx_client.embed_documents(texts=list(texts), *args, **kwargs)

    @cached_property
    def _watsonx_client(self) -> Any:
        sdk = attempt_import_or_raise("ibm_watsonx_ai")
        foundation_models = attempt_import_or_raise("ibm_watsonx_ai.foundation_models")
        credentials = watsonx_credentials(sdk, self.api_key, self.url, "WatsonxEmbeddings")
        scope, scope_id = resolve_scope(self.project_id, self.space_id, "WatsonxEmbeddings")
        kwargs: Dict[str, Any] = {"model_id": self.name, "credentials": credentials}
        if self.params:
            kwargs["params"] = self.params
        kwargs[scope] = scope_id
        return foundation_models.Embeddings(**kwargs)

    def __getstate__(self) -> dict:
        return _without_clients(super().__getstate__(), "_watsonx_client")
