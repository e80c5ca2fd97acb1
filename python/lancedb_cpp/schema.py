# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Schema helpers, as ``lancedb.schema``: ``vector(dim)`` is the Arrow type of a vector column.
Blob columns are not supported yet (issue #15)."""

from __future__ import annotations

import pyarrow as pa

__all__ = ["vector"]


def vector(dimension: int, value_type: pa.DataType = pa.float32()) -> pa.DataType:
    """The type of a vector column: ``fixed_size_list<value_type>[dimension]``."""
    return pa.list_(value_type, dimension)
