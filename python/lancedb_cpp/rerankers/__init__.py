# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``lancedb.rerankers`` for lancedb_cpp.

The rank- and score-fusion rerankers (``RRFReranker``, ``LinearCombinationReranker``,
``MRRReranker``) and the ``Reranker`` base class for custom rerankers behave as LanceDB's.
The rerankers backed by a hosted API (``CohereReranker``, ``JinaReranker``, ``OpenaiReranker``,
``VoyageAIReranker``, ``WatsonxReranker``) call it over the provider's client, and those that run
a model (``CrossEncoderReranker``, ``ColbertReranker``, ``AnswerdotaiRerankers``) need its
package and weights; a missing package raises ImportError naming it, as in LanceDB.
"""

from .answerdotai import AnswerdotaiRerankers
from .base import Reranker
from .cohere import CohereReranker
from .colbert import ColbertReranker
from .cross_encoder import CrossEncoderReranker
from .jinaai import JinaReranker
from .linear_combination import LinearCombinationReranker
from .mrr import MRRReranker
from .openai import OpenaiReranker
from .rrf import RRFReranker
from .voyageai import VoyageAIReranker
from .watsonx import WatsonxReranker

__all__ = [
    "Reranker",
    "CrossEncoderReranker",
    "CohereReranker",
    "LinearCombinationReranker",
    "OpenaiReranker",
    "ColbertReranker",
    "JinaReranker",
    "RRFReranker",
    "AnswerdotaiRerankers",
    "VoyageAIReranker",
    "MRRReranker",
    "WatsonxReranker",
]
