# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``cohere``: Cohere's embedding API over the ``cohere`` client, as LanceDB's
``CohereEmbeddingFunction``. The key is read from ``COHERE_API_KEY``; one client is shared by
every instance (the class attribute ``client``)."""

from __future__ import annotations

import os
from typing import Any, ClassVar, List, Union

import numpy as np

from .utils import attempt_import_or_raise
from .base import TextEmbeddingFunction
from .registry import register
from .utils import TEXT, api_key_not_found_help

_DIMS = {
    "embed-english-v3.0": 1024,
    "embed-multilingual-v3.0": 1024,
    "embed-english-light-v2.0": 1024,
    "embed-english-light-v3.0": 384,
    "embed-multilingual-light-v3.0": 384,
    "embed-english-v2.0": 4096,
    "embed-multilingual-v2.0": 768,
}


@register("cohere")
class CohereEmbeddingFunction(TextEmbeddingFunction):
    """Embeddings from the Cohere API (https://docs.cohere.com/docs/embeddings).

    Parameters
    ----------
    name : str, default "embed-multilingual-v2.0"
        The model: embed-english-v3.0, embed-multilingual-v3.0, embed-english-light-v3.0,
        embed-multilingual-light-v3.0, embed-english-v2.0, embed-english-light-v2.0,
        embed-multilingual-v2.0.
    source_input_type : str, default "search_document"
        The input type of the stored column.
    query_input_type : str, default "search_query"
        The input type of queries.
    """

    name: str = "embed-multilingual-v2.0"
    source_input_type: str = "search_document"
    query_input_type: str = "search_query"
    client: ClassVar = None

    def ndims(self) -> int:
        if self.name not in _DIMS:
            raise ValueError(f"Model {self.name} not supported")
        return _DIMS[self.name]

    def compute_query_embeddings(self, query: str, *args: Any, **kwargs: Any) -> list:
        return self.compute_source_embeddings(query, input_type=self.query_input_type)

    def compute_source_embeddings(self, texts: TEXT, *args: Any, **kwargs: Any) -> list:
        input_type = kwargs.get("input_type") or self.source_input_type
        return self.generate_embeddings(self.sanitize_input(texts), input_type=input_type)

    def generate_embeddings(
        self, texts: Union[List[str], np.ndarray], *args: Any, **kwargs: Any
    ) -> list:
        """One embedding per text; keywords (``input_type``) go to ``Client.embed``."""
        self._init_client()
        response = CohereEmbeddingFunction.client.embed(
            texts=list(texts), model=self.name, **kwargs
        )
        return list(response.embeddings)

    def _init_client(self) -> None:
        cohere = attempt_import_or_raise("cohere")
        if CohereEmbeddingFunction.client is None:
            if os.environ.get("COHERE_API_KEY") is None:
                api_key_not_found_help("cohere")
            CohereEmbeddingFunction.client = cohere.Client(os.environ["COHERE_API_KEY"])
