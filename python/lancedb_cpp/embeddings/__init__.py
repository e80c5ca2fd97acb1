# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Embedding functions (``lancedb.embeddings``): register a function, name it in a table's
schema (``create_table(..., embedding_functions=[...])`` or a LanceModel with
``func.SourceField()`` / ``func.VectorField()``), and vectors are computed on write and for
string searches. The hosted/model providers exist by name only (NotImplementedError)."""

from .base import EmbeddingFunction, EmbeddingFunctionConfig, TextEmbeddingFunction
from .providers import (
    BedRockText,
    CohereEmbeddingFunction,
    ColbertEmbeddings,
    ColPaliEmbeddings,
    GeminiText,
    GteEmbeddings,
    ImageBindEmbeddings,
    InstructorEmbeddingFunction,
    JinaEmbeddings,
    OllamaEmbeddings,
    OpenAIEmbeddings,
    OpenClipEmbeddings,
    SentenceTransformerEmbeddings,
    SigLipEmbeddings,
    TransformersEmbeddingFunction,
    VoyageAIEmbeddingFunction,
    WatsonxEmbeddings,
)
from .registry import EmbeddingFunctionRegistry, get_registry, register

__all__ = [
    "EmbeddingFunction",
    "EmbeddingFunctionConfig",
    "TextEmbeddingFunction",
    "EmbeddingFunctionRegistry",
    "get_registry",
    "register",
    "SentenceTransformerEmbeddings",
    "OpenAIEmbeddings",
    "OpenClipEmbeddings",
    "BedRockText",
    "CohereEmbeddingFunction",
    "GeminiText",
    "GteEmbeddings",
    "InstructorEmbeddingFunction",
    "JinaEmbeddings",
    "OllamaEmbeddings",
    "TransformersEmbeddingFunction",
    "ColbertEmbeddings",
    "VoyageAIEmbeddingFunction",
    "WatsonxEmbeddings",
    "ColPaliEmbeddings",
    "ImageBindEmbeddings",
    "SigLipEmbeddings",
]
