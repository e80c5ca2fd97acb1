# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Type aliases and small helpers shared by the API, as ``lancedb.common``."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, List, Optional, Union

import numpy as np
import pyarrow as pa

__all__ = [
    "DATA",
    "URI",
    "VEC",
    "VECTOR_COLUMN_NAME",
    "Credential",
    "data_to_reader",
    "sanitize_uri",
    "validate_schema",
]

VEC = Union[list, np.ndarray, pa.Array, pa.ChunkedArray]
URI = Union[str, Path]
DATA = Union[List[dict], "Any", pa.Table, Iterable[pa.RecordBatch]]
VECTOR_COLUMN_NAME = "vector"


class Credential(str):
    """A string holding a secret (an API key)."""


def sanitize_uri(uri: URI) -> str:
    """The URI as a string."""
    return str(uri)


def data_to_reader(data: Any, schema: Optional[pa.Schema] = None) -> pa.RecordBatchReader:
    """Any data ``Table.add`` accepts (list of dicts, pandas, pyarrow, batches) as a
    RecordBatchReader, cast to `schema` when given."""
    from ._data import to_reader

    return to_reader(data, schema)


def validate_schema(schema: pa.Schema) -> None:
    """Check that a schema can back a table: a ValueError for an empty schema or duplicate
    column names."""
    if len(schema) == 0:
        raise ValueError("Schema must have at least one field")
    names = [f.name for f in schema]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValueError(f"Schema has duplicate field names: {', '.join(dupes)}")
