# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``lancedb.rerankers`` for lancedb_cpp.

The rank- and score-fusion rerankers (``RRFReranker``, ``LinearCombinationReranker``,
``MRRReranker``) and the ``Reranker`` base class for custom rerankers behave as LanceDB's.
The rerankers backed by a hosted API or a model (``CohereReranker``, ``CrossEncoderReranker``,
...) are exported under their names but raise NotImplementedError when created.
"""

from ._hosted import (
    AnswerdotaiRerankers,
    CohereReranker,
    ColbertReranker,
    CrossEncoderReranker,
    JinaReranker,
    OpenaiReranker,
    VoyageAIReranker,
    WatsonxReranker,
)
from .base import Reranker
from .linear_combination import LinearCombinationReranker
from .mrr import MRRReranker
from .rrf import RRFReranker

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
