# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``sentence-transformers``: embeddings of a sentence-transformers model, run locally (needs
the ``sentence-transformers`` package and the model's weights), as LanceDB's
``SentenceTransformerEmbeddings``."""

from __future__ import annotations

from typing import Any, List, Union

import numpy as np

from .utils import attempt_import_or_raise
from .base import TextEmbeddingFunction
from .registry import register
from .utils import weak_lru


@register("sentence-transformers")
class SentenceTransformerEmbeddings(TextEmbeddingFunction):
    """A sentence-transformers model (https://huggingface.co/sentence-transformers).

    Parameters
    ----------
    name : str, default "all-MiniLM-L6-v2"
    device : str, default "cpu"
    normalize : bool, default True
        Normalize the embeddings to unit length.
    trust_remote_code : bool, default True
    """

    name: str = "all-MiniLM-L6-v2"
    device: str = "cpu"
    normalize: bool = True
    trust_remote_code: bool = True

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._ndims = None

    @property
    def embedding_model(self) -> Any:
        """The loaded model (once per process and configuration)."""
        return self.get_embedding_model()

    def ndims(self) -> int:
        if self._ndims is None:
            self._ndims = len(self.generate_embeddings("foo")[0])
        return self._ndims

    def generate_embeddings(self, texts: Union[List[str], np.ndarray]) -> list:
        if isinstance(texts, str):
            texts = [texts]
        return self.embedding_model.encode(
            list(texts), convert_to_numpy=True, normalize_embeddings=self.normalize
        ).tolist()

    @weak_lru(maxsize=1)
    def get_embedding_model(self) -> Any:
        """``sentence_transformers.SentenceTransformer`` of this name, device and trust."""
        sentence_transformers = attempt_import_or_raise(
            "sentence_transformers", "sentence-transformers"
        )
        return sentence_transformers.SentenceTransformer(
            self.name, device=self.device, trust_remote_code=self.trust_remote_code
        )
