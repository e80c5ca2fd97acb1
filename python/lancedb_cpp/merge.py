# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""The merge insert builder (``lancedb.merge``); obtain one from ``Table.merge_insert``."""

from __future__ import annotations

from ._evolution import LanceMergeInsertBuilder
from .expr import Expr

__all__ = ["Expr", "LanceMergeInsertBuilder"]
