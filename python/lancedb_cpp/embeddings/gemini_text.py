# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``gemini-text``: Google Gemini embeddings over the ``google-genai`` client, as LanceDB's
``GeminiText``. The key is read from ``GOOGLE_API_KEY``."""

from __future__ import annotations

import os
from functools import cached_property
from typing import Any, List, Optional, Union

import numpy as np
from pydantic import ConfigDict

from .utils import attempt_import_or_raise
from .base import TextEmbeddingFunction
from .openai import _without_clients
from .registry import register
from .utils import TEXT, api_key_not_found_help

# Texts per embed_content request.
EMBEDDING_BATCH_SIZE = 100

# The title the API wants with a retrieval_document text.
_DOCUMENT_TITLE = "Embedding of a document"


@register("gemini-text")
class GeminiText(TextEmbeddingFunction):
    """Embeddings from Google's Gemini API (https://ai.google.dev/gemini-api/docs/embeddings).

    Parameters
    ----------
    name : str, default "gemini-embedding-001"
        The model.
    dim : int, optional
        The output dimension (default 768).
    query_task_type : str, default "retrieval_query"
        The task type of queries.
    source_task_type : str, default "retrieval_document"
        The task type of the stored column (each text is sent with a document title).
    """

    name: str = "gemini-embedding-001"
    dim: Optional[int] = None
    query_task_type: str = "retrieval_query"
    source_task_type: str = "retrieval_document"

    model_config = ConfigDict(ignored_types=(cached_property,))

    def ndims(self) -> int:
        return self.dim or 768

    def compute_query_embeddings(self, query: str, *args: Any, **kwargs: Any) -> list:
        return self.compute_source_embeddings(query, task_type=self.query_task_type)

    def compute_source_embeddings(self, texts: TEXT, *args: Any, **kwargs: Any) -> list:
        task_type = kwargs.get("task_type") or self.source_task_type
        return self.generate_embeddings(self.sanitize_input(texts), task_type=task_type)

    def generate_embeddings(
        self, texts: Union[List[str], np.ndarray], *args: Any, **kwargs: Any
    ) -> List[np.ndarray]:
        """One embedding per text, requested EMBEDDING_BATCH_SIZE texts at a time; the task
        type comes from the keyword ``task_type`` (none by default)."""
        from google.genai import types

        task_type = kwargs.get("task_type")
        if task_type == "retrieval_document":
            contents = [{"parts": [{"text": _DOCUMENT_TITLE}, {"text": t}]} for t in texts]
        else:
            contents = [{"parts": [{"text": t}]} for t in texts]
        config_kwargs: dict = {"output_dimensionality": self.ndims()}
        if task_type:
            config_kwargs["task_type"] = task_type.upper()
        config = types.EmbedContentConfig(**config_kwargs)
        embeddings: List[np.ndarray] = []
        for start in range(0, len(contents), EMBEDDING_BATCH_SIZE):
            response = self.client.models.embed_content(
                model=self.name,
                contents=contents[start : start + EMBEDDING_BATCH_SIZE],
                config=config,
            )
            embeddings.extend(np.array(e.values) for e in response.embeddings)
        return embeddings

    @cached_property
    def client(self) -> Any:
        """The ``google.genai.Client`` (made on first use from ``GOOGLE_API_KEY``)."""
        attempt_import_or_raise("google.genai", "google-genai")
        if not os.environ.get("GOOGLE_API_KEY"):
            api_key_not_found_help("google")
        from google import genai

        from .. import __version__

        return genai.Client(
            api_key=os.environ.get("GOOGLE_API_KEY"),
            http_options={"headers": {"x-goog-api-client": f"lancedb/{__version__}"}},
        )

    def __getstate__(self) -> dict:
        return _without_clients(super().__getstate__(), "client")
