# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""LanceDB's rerankers that call a hosted API or run a model. lancedb_cpp does not implement
them: the names exist so that imports written for LanceDB resolve, and creating one raises
NotImplementedError (so does creating a subclass of one)."""

from __future__ import annotations

from typing import Any, NoReturn

import pyarrow as pa

from .base import Reranker


class _HostedReranker(Reranker):
    # A whole-class stub (see lancedb_cpp._not_yet): no instance can exist.
    __lancedb_cpp_not_yet__ = "hosted/model rerankers"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _unsupported(type(self))

    def rerank_hybrid(
        self, query: str, vector_results: pa.Table, fts_results: pa.Table
    ) -> pa.Table:
        _unsupported(type(self))


def _unsupported(cls: type) -> NoReturn:
    # Name the LanceDB class, also for a user subclass of it.
    name = next(
        (c.__name__ for c in cls.__mro__ if c.__module__ == __name__ and c is not _HostedReranker),
        cls.__name__,
    )
    raise NotImplementedError(
        f"{name} is not supported by lancedb_cpp: hosted/model rerankers (remote APIs and "
        "local models) are not supported by lancedb_cpp; use RRFReranker, "
        "LinearCombinationReranker, MRRReranker or a Reranker subclass of your own"
    )


class CrossEncoderReranker(_HostedReranker):
    """Not supported by lancedb_cpp (runs a sentence-transformers cross-encoder model)."""


class AnswerdotaiRerankers(_HostedReranker):
    """Not supported by lancedb_cpp (runs a model through the ``rerankers`` library)."""


class ColbertReranker(AnswerdotaiRerankers):
    """Not supported by lancedb_cpp (runs a ColBERT model)."""


class CohereReranker(_HostedReranker):
    """Not supported by lancedb_cpp (calls the Cohere rerank API)."""


class JinaReranker(_HostedReranker):
    """Not supported by lancedb_cpp (calls the Jina rerank API)."""


class OpenaiReranker(_HostedReranker):
    """Not supported by lancedb_cpp (calls the OpenAI API)."""


class VoyageAIReranker(_HostedReranker):
    """Not supported by lancedb_cpp (calls the Voyage AI rerank API)."""


class WatsonxReranker(_HostedReranker):
    """Not supported by lancedb_cpp (calls the IBM watsonx.ai API)."""
