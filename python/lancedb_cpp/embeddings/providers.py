# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""LanceDB's image embedding functions that lancedb_cpp does not implement, by name only.

Each class is registered under LanceDB's alias (a table naming it still parses up to
construction), but constructing one raises NotImplementedError. The text and hosted providers
live in their own modules (``openai``, ``voyageai``, ``sentence_transformers`` ...)."""

from __future__ import annotations

from typing import Any

from .base import EmbeddingFunction, TextEmbeddingFunction
from .registry import register


class _Unsupported:
    """Mixin: constructing the class raises NotImplementedError."""

    # A whole-class stub (see lancedb_cpp._not_yet): no instance can exist.
    __lancedb_cpp_not_yet__ = "hosted/model embeddings"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(
            f"{type(self).__name__}: hosted/model embeddings are not supported by lancedb_cpp "
            "(no network access or model weights); register your own EmbeddingFunction "
            "with lancedb_cpp.embeddings.register(...)"
        )

    def ndims(self) -> int:  # pragma: no cover - never constructed
        raise NotImplementedError

    def compute_query_embeddings(self, *args: Any, **kwargs: Any):  # pragma: no cover
        raise NotImplementedError

    def compute_source_embeddings(self, *args: Any, **kwargs: Any):  # pragma: no cover
        raise NotImplementedError

    def generate_embeddings(self, *args: Any, **kwargs: Any):  # pragma: no cover
        raise NotImplementedError


def _stub(class_name: str, alias: str, text: bool = True) -> type:
    base = TextEmbeddingFunction if text else EmbeddingFunction
    cls = type(class_name, (_Unsupported, base), {"__module__": __name__})
    return register(alias)(cls)


ColPaliEmbeddings = _stub("ColPaliEmbeddings", "colpali", text=False)
ImageBindEmbeddings = _stub("ImageBindEmbeddings", "imagebind", text=False)
