# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``ollama``: embeddings from an Ollama server over the ``ollama`` client, as LanceDB's
``OllamaEmbeddings``."""

from __future__ import annotations

from functools import cached_property
from typing import Any, List, Optional, Sequence, Union

import numpy as np

from .utils import attempt_import_or_raise
from .base import TextEmbeddingFunction
from .openai import _without_clients
from .registry import register


@register("ollama")
class OllamaEmbeddings(TextEmbeddingFunction):
    """Embeddings from an Ollama server (https://ollama.com/blog/embedding-models).

    Parameters
    ----------
    name : str, default "nomic-embed-text"
        The model, pulled on the server.
    host : str, default "http://localhost:11434"
        The server.
    options : dict, optional
        Model options (``ollama.Options``).
    keep_alive : float or str, optional
        How long the server keeps the model loaded.
    ollama_client_kwargs : dict, optional
        More arguments of ``ollama.Client``.
    """

    name: str = "nomic-embed-text"
    host: str = "http://localhost:11434"
    options: Optional[dict] = None
    keep_alive: Optional[Union[float, str]] = None
    ollama_client_kwargs: Optional[dict] = {}

    def ndims(self) -> int:
        """The dimension of the model's vectors (asks the server to embed one text)."""
        return len(self.generate_embeddings(["foo"])[0])

    def _compute_embedding(self, text: Sequence[str]) -> Sequence[Sequence[float]]:
        response = self._ollama_client.embed(
            model=self.name, input=list(text), options=self.options, keep_alive=self.keep_alive
        )
        return response.embeddings

    def generate_embeddings(self, texts: Union[List[str], np.ndarray]) -> list:
        return list(self._compute_embedding(texts))

    def __getstate__(self) -> dict:
        return _without_clients(super().__getstate__(), "_ollama_client")

    @cached_property
    def _ollama_client(self) -> Any:
        ollama = attempt_import_or_raise("ollama")
        return ollama.Client(host=self.host, **(self.ollama_client_kwargs or {}))
