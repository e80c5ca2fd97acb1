# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``ColbertReranker``: a ColBERT model through the ``rerankers`` library, as LanceDB's."""

from __future__ import annotations

from typing import Any

from .answerdotai import AnswerdotaiRerankers

__all__ = ["ColbertReranker"]


class ColbertReranker(AnswerdotaiRerankers):
    """Rerank with ColBERT (``AnswerdotaiRerankers`` with ``model_type="colbert"``).

    Parameters
    ----------
    model_name : str, default "colbert-ir/colbertv2.0"
    column : str, default "text"
    return_score : str, default "relevance"
    **kwargs
        Passed to ``rerankers.Reranker`` (e.g. ``device``).
    """

    def __init__(
        self,
        model_name: str = "colbert-ir/colbertv2.0",
        column: str = "text",
        return_score: str = "relevance",
        **kwargs: Any,
    ):
        super().__init__(
            model_type="colbert", model_name=model_name, column=column,
            return_score=return_score, **kwargs,
        )  # fmt: skip
