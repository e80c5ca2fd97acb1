# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``gte-text``: GTE models through sentence-transformers (deprecated in LanceDB in favour of
``sentence-transformers`` with a GTE model), as LanceDB's ``GteEmbeddings``. The MLX variant
(``mlx=True``, Apple silicon) is not supported by lancedb_cpp."""

from __future__ import annotations

import warnings
from typing import Any, List, Union

import numpy as np

from .utils import attempt_import_or_raise
from .base import TextEmbeddingFunction
from .registry import register
from .utils import weak_lru


@register("gte-text")
class GteEmbeddings(TextEmbeddingFunction):
    """A GTE model (https://huggingface.co/thenlper/gte-large) run by sentence-transformers.

    Parameters
    ----------
    name : str, default "thenlper/gte-large"
    device : str, default "cpu"
    normalize : bool, default True
    mlx : bool, default False
        LanceDB's MLX model; lancedb_cpp raises NotImplementedError for it.
    """

    name: str = "thenlper/gte-large"
    device: str = "cpu"
    normalize: bool = True
    mlx: bool = False

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        warnings.warn(
            "GTE embeddings as a standalone embedding function are deprecated. Use the "
            "'sentence-transformers' embedding function with a GTE model instead.",
            DeprecationWarning,
            stacklevel=3,
        )
        if self.mlx:
            raise NotImplementedError(
                "GteEmbeddings(mlx=True) is not supported by lancedb_cpp (LanceDB's MLX GTE "
                "model); use mlx=False or the 'sentence-transformers' embedding function"
            )
        self._ndims = None

    @property
    def embedding_model(self) -> Any:
        return self.get_embedding_model()

    def ndims(self) -> int:
        if self._ndims is None:
            self._ndims = len(self.generate_embeddings(["foo"])[0])
        return self._ndims

    def generate_embeddings(self, texts: Union[List[str], np.ndarray]) -> list:
        return self.embedding_model.encode(
            list(texts), convert_to_numpy=True, normalize_embeddings=self.normalize
        ).tolist()

    @weak_lru(maxsize=1)
    def get_embedding_model(self) -> Any:
        sentence_transformers = attempt_import_or_raise(
            "sentence_transformers", "sentence-transformers"
        )
        return sentence_transformers.SentenceTransformer(self.name, device=self.device)
