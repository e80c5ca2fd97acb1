# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Table statistics (``Table.stats()``), as LanceDB 0.39 reports them.

``stats()`` returns a plain dict, as LanceDB's does (its annotation names the dataclasses below,
which it declares for the same shape; they are here for code that imports them)::

    {"total_bytes": int, "num_rows": int, "num_indices": int,
     "fragment_stats": {"num_fragments": int, "num_small_fragments": int,
                        "lengths": {"min", "max", "mean", "p25", "p50", "p75", "p99"}}}

``total_bytes`` counts the data files and index files whose sizes the manifest records (not
deletion files nor manifests); ``num_rows`` excludes deleted rows; ``lengths`` are the row
counts of the fragments, deleted rows included (percentiles pick elements n/4, n/2, 3n/4 and
99n/100 of the sorted counts; the mean is rounded down); a fragment of fewer than 100,000 rows
is small.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict

from . import _native


@dataclass
class FragmentSummaryStats:
    """The distribution of the fragments' row counts."""

    min: int
    max: int
    mean: int
    p25: int
    p50: int
    p75: int
    p99: int


@dataclass
class FragmentStatistics:
    """Fragment counts: all of them, the small ones, and their row counts."""

    num_fragments: int
    num_small_fragments: int
    lengths: FragmentSummaryStats


@dataclass
class TableStatistics:
    """Sizes and counts of a table (the shape of the dict ``stats()`` returns)."""

    total_bytes: int
    num_rows: int
    num_indices: int
    fragment_stats: FragmentStatistics


def table_stats(inner: Any) -> Dict[str, Any]:
    """LanceDB's stats() dict for the version the native table reads."""
    return _native.table_stats(inner)
