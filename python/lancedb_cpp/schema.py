# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Schema helpers, as ``lancedb.schema``: ``vector(dim)`` is the Arrow type of a vector column;
the ``*blob*`` functions find Lance blob columns in a schema (a ``lance.blob.v2`` extension
field, or a binary field marked ``lance-encoding:blob``). Writing blob columns is not
supported yet: ``blob()`` raises NotImplementedError."""

from __future__ import annotations

from typing import Callable, List, Tuple

import pyarrow as pa

from . import _not_yet as nyi
from ._not_yet import not_yet, unsupported_class

__all__ = [
    "BlobType",
    "blob",
    "blob_column_paths",
    "blob_v2_column_paths",
    "is_blob_like_field",
    "is_blob_v2_field",
    "row_addressable_blob_v2_paths",
    "schema_has_blob_field",
    "vector",
]

_BLOB_V2_EXTENSION = "lance.blob.v2"
_BLOB_V1_KEY = "lance-encoding:blob"
_EXTENSION_NAME_KEY = "ARROW:extension:name"


def vector(dimension: int, value_type: pa.DataType = pa.float32()) -> pa.DataType:
    """The type of a vector column: ``fixed_size_list<value_type>[dimension]``."""
    return pa.list_(value_type, dimension)


# The Arrow extension type of blob v2 columns: not built yet, constructing it raises.
BlobType = unsupported_class("BlobType", nyi.BLOBS, __name__)


@not_yet(nyi.BLOBS)
def blob(name: str, nullable: bool = True) -> pa.Field:
    """A Lance blob v2 column field."""


def _metadata(field: pa.Field, key: str):
    metadata = field.metadata or {}
    value = metadata.get(key.encode(), metadata.get(key))
    return value.decode() if isinstance(value, bytes) else value


def is_blob_v2_field(field: pa.Field) -> bool:
    """Whether `field` is a blob v2 column (the extension type, or its name in metadata)."""
    if isinstance(field.type, pa.ExtensionType) and (
        field.type.extension_name == _BLOB_V2_EXTENSION
    ):
        return True
    return _metadata(field, _EXTENSION_NAME_KEY) == _BLOB_V2_EXTENSION


def is_blob_like_field(field: pa.Field) -> bool:
    """Whether `field` is a blob column of either kind (v2, or legacy
    ``lance-encoding:blob=true``)."""
    return is_blob_v2_field(field) or _metadata(field, _BLOB_V1_KEY) == "true"


def _blob_paths(schema: pa.Schema, is_blob: Callable[[pa.Field], bool]) -> List[Tuple[str, bool]]:
    """(dot path, inside a list?) of every field `is_blob` accepts, depth first."""
    found: List[Tuple[str, bool]] = []

    def visit(fields, prefix: str, in_list: bool) -> None:
        for field in fields:
            path = f"{prefix}.{field.name}" if prefix else field.name
            kind = field.type
            if is_blob(field):
                found.append((path, in_list))
            elif pa.types.is_struct(kind):
                visit(kind, path, in_list)
            elif (
                pa.types.is_list(kind)
                or pa.types.is_large_list(kind)
                or pa.types.is_fixed_size_list(kind)
            ):
                visit([kind.value_field], path, True)

    visit(schema, "", False)
    return found


def blob_column_paths(schema: pa.Schema) -> List[str]:
    """Dot paths of the blob columns of either kind."""
    return [path for path, _ in _blob_paths(schema, is_blob_like_field)]


def blob_v2_column_paths(schema: pa.Schema) -> List[str]:
    """Dot paths of the blob v2 columns."""
    return [path for path, _ in _blob_paths(schema, is_blob_v2_field)]


def row_addressable_blob_v2_paths(schema: pa.Schema) -> List[str]:
    """Dot paths of the blob v2 columns holding one blob per row (not inside a list)."""
    return [path for path, in_list in _blob_paths(schema, is_blob_v2_field) if not in_list]


def schema_has_blob_field(schema: pa.Schema) -> bool:
    """Whether the schema has a blob column of either kind."""
    return bool(blob_column_paths(schema))
