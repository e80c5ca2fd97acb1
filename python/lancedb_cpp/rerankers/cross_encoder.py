# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``CrossEncoderReranker``: a sentence-transformers cross-encoder run locally (needs
``torch``, ``sentence-transformers`` and the model's weights), as LanceDB's."""

from __future__ import annotations

from functools import cached_property
from typing import Any, Optional

import pyarrow as pa

from ..embeddings.utils import attempt_import_or_raise
from ._scoring import ScoringReranker
from .base import RELEVANCE

__all__ = ["CrossEncoderReranker"]


class CrossEncoderReranker(ScoringReranker):
    """Score each (query, row) pair with a cross-encoder model; best first.

    Parameters
    ----------
    model_name : str, default "cross-encoder/ms-marco-TinyBERT-L-6"
    column : str, default "text"
    device : str, optional
        "cuda" when available, else "cpu".
    return_score : str, default "relevance"
    trust_remote_code : bool, default True
    """

    _sort_by_relevance = True

    def __init__(
        self,
        model_name: str = "cross-encoder/ms-marco-TinyBERT-L-6",
        column: str = "text",
        device: Optional[str] = None,
        return_score: str = "relevance",
        trust_remote_code: bool = True,
    ):
        super().__init__(return_score)
        torch = attempt_import_or_raise("torch")
        self.model_name = model_name
        self.column = column
        self.device = device
        self.trust_remote_code = trust_remote_code
        if self.device is None:
            self.device = "cuda" if torch.cuda.is_available() else "cpu"

    def __str__(self) -> str:
        return f"CrossEncoderReranker(model_name={self.model_name})"

    @cached_property
    def model(self) -> Any:
        """The loaded ``sentence_transformers.CrossEncoder``."""
        sbert = attempt_import_or_raise("sentence_transformers", "sentence-transformers")
        return sbert.CrossEncoder(
            self.model_name, device=self.device, trust_remote_code=self.trust_remote_code
        )

    def _rerank(self, result_set: pa.Table, query: str) -> pa.Table:
        result_set = self._handle_empty_results(result_set)
        if len(result_set) == 0:
            return result_set
        pairs = [[query, passage] for passage in self._documents(result_set)]
        scores = self.model.predict(pairs)
        return result_set.append_column(RELEVANCE, pa.array(scores, type=pa.float32()))
