# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``lancedb.rerankers.util``: the check a query applies to what a reranker returned."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from .base import RELEVANCE


def check_reranker_result(result: Any) -> None:
    """Raise TypeError unless `result` is a pyarrow Table, ValueError unless it has a
    ``_relevance_score`` column (LanceDB's messages, which name rerank_hybrid whichever
    rerank method produced the result)."""
    if not isinstance(result, pa.Table):
        raise TypeError(f"rerank_hybrid must return a pyarrow.Table, got {type(result)}")
    if RELEVANCE not in result.column_names:
        # LanceDB's message, its missing space included
        raise ValueError(
            "rerank_hybrid must return a pyarrow.Table with a columnnamed `_relevance_score`"
        )
