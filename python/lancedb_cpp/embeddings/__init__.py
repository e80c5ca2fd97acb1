# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Embedding functions (``lancedb.embeddings``): register a function, name it in a table's
schema (``create_table(..., embedding_functions=[...])`` or a LanceModel with
``func.SourceField()`` / ``func.VectorField()``), and vectors are computed on write and for
string searches. LanceDB's providers are here under its names and registry aliases: the hosted
ones call their provider over its Python client (installed separately: ``openai``, ``cohere``,
``voyageai``, ``google-genai``, ``ollama``, ``ibm-watsonx-ai``, ``boto3``, ``requests``), the
local models need their package and weights (``sentence-transformers``, ``InstructorEmbedding``,
``transformers``, ``open-clip-torch``, ``imagebind``, ``colpali_engine``); without the package, using one raises ImportError naming
it."""

from .base import EmbeddingFunction, EmbeddingFunctionConfig, TextEmbeddingFunction
from .registry import EmbeddingFunctionRegistry, get_registry, register
from .bedrock import BedRockText
from .cohere import CohereEmbeddingFunction
from .colpali import ColPaliEmbeddings
from .gemini_text import GeminiText
from .gte import GteEmbeddings
from .imagebind import ImageBindEmbeddings
from .instructor import InstructorEmbeddingFunction
from .jinaai import JinaEmbeddings
from .ollama import OllamaEmbeddings
from .openai import OpenAIEmbeddings
from .open_clip import OpenClipEmbeddings
from .sentence_transformers import SentenceTransformerEmbeddings
from .siglip import SigLipEmbeddings
from .transformers import ColbertEmbeddings, TransformersEmbeddingFunction
from .voyageai import VoyageAIEmbeddingFunction
from .watsonx import WatsonxEmbeddings

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
