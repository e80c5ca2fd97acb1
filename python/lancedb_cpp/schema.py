# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Schema helpers, as ``lancedb.schema``: ``vector(dim)`` is the Arrow type of a vector column;
``blob(name)`` declares a Lance blob v2 column (``BlobType``, the ``lance.blob.v2`` extension);
the ``*blob*`` functions find blob columns in a schema (a ``lance.blob.v2`` extension field, or
a binary field marked ``lance-encoding:blob``)."""

from __future__ import annotations

import importlib.util
from typing import Callable, List, Tuple

import pyarrow as pa


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


_BLOB_STORAGE = pa.struct(
    [
        pa.field("data", pa.large_binary()),
        pa.field("uri", pa.utf8()),
        pa.field("position", pa.uint64()),
        pa.field("size", pa.uint64()),
    ]
)


class BlobType(pa.ExtensionType):
    """The Arrow extension type of blob v2 columns (``lance.blob.v2``): storage
    ``struct<data: large_binary, uri: utf8, position: uint64, size: uint64>``. A row holds
    either inline bytes (``data``) or an external ``uri`` (with an optional byte range)."""

    def __init__(self, storage_type: pa.DataType = _BLOB_STORAGE) -> None:
        pa.ExtensionType.__init__(self, storage_type, _BLOB_V2_EXTENSION)

    def __arrow_ext_serialize__(self) -> bytes:
        return b""

    @classmethod
    def __arrow_ext_deserialize__(cls, storage_type: pa.DataType, serialized: bytes) -> "BlobType":
        if not pa.types.is_struct(storage_type) or [f.name for f in storage_type][:2] != [
            "data",
            "uri",
        ]:
            raise TypeError(f"lance.blob.v2 storage must be struct<data, uri, ...>, got {storage_type}")
        return cls(storage_type)

    def __reduce__(self):
        return type(self).__arrow_ext_deserialize__, (self.storage_type, b"")


_resolved_blob_type = None


def resolve_blob_type() -> type:
    """The class of ``lance.blob.v2`` in this process, registered with pyarrow: pylance's
    ``lance.blob.BlobType`` when pylance is installed (LanceDB and pylance insist on it),
    else ``BlobType`` above. pylance is imported on first use only."""
    global _resolved_blob_type
    if _resolved_blob_type is None:
        cls = BlobType
        if importlib.util.find_spec("lance") is not None:
            from lance.blob import BlobType as cls  # noqa: F811 (registers itself)
        else:
            try:
                pa.register_extension_type(BlobType())
            except pa.ArrowKeyError:
                pass
        _resolved_blob_type = cls
    return _resolved_blob_type


def blob(name: str, nullable: bool = True) -> pa.Field:
    """A Lance blob v2 column field named `name` (the ``lance.blob.v2`` extension type). The
    table needs Lance file format 2.2 (the default). Adding ``bytes`` stores them as blobs; a
    ``str`` is an external URI."""
    return pa.field(name, resolve_blob_type()(), nullable=nullable)


def with_blob_types(schema: pa.Schema) -> pa.Schema:
    """`schema` with its blob v2 fields as the registered extension type (a schema imported
    before the type was registered holds them as plain structs with the extension's
    metadata)."""
    if not any(_metadata(f, _EXTENSION_NAME_KEY) == _BLOB_V2_EXTENSION for f in schema):
        return schema
    cls = resolve_blob_type()
    fields = []
    for f in schema:
        if _metadata(f, _EXTENSION_NAME_KEY) == _BLOB_V2_EXTENSION:
            metadata = {
                k: v for k, v in (f.metadata or {}).items()
                if not k.startswith(b"ARROW:extension:")
            }
            f = pa.field(f.name, cls.__arrow_ext_deserialize__(f.type, b""), f.nullable,
                         metadata or None)
        fields.append(f)
    return pa.schema(fields, metadata=schema.metadata)


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
