# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Lance's JSON encoding of Arrow schemas, as the REST protocol carries them (the ``schema`` of
``describe/``): ``{"fields": [{"name", "type": {"type": name, "fields"?, "length"?},
"nullable", "metadata"?}], "metadata"?}``."""

from __future__ import annotations

from typing import Any, Dict

import pyarrow as pa

_SIMPLE = {
    "null": pa.null(),
    "bool": pa.bool_(),
    "int8": pa.int8(),
    "int16": pa.int16(),
    "int32": pa.int32(),
    "int64": pa.int64(),
    "uint8": pa.uint8(),
    "uint16": pa.uint16(),
    "uint32": pa.uint32(),
    "uint64": pa.uint64(),
    "halffloat": pa.float16(),
    "float": pa.float32(),
    "double": pa.float64(),
    "string": pa.string(),
    "large_string": pa.large_string(),
    "binary": pa.binary(),
    "large_binary": pa.large_binary(),
    "string_view": pa.string_view(),
    "binary_view": pa.binary_view(),
    "date32:day": pa.date32(),
    "date64:ms": pa.date64(),
}


def data_type_from_json(spec: Dict[str, Any]) -> pa.DataType:
    """The Arrow type of a JSON data type."""
    name = spec["type"].lower()
    if name in _SIMPLE:
        return _SIMPLE[name]
    children = [field_from_json(f) for f in spec.get("fields") or []]
    if name == "list":
        return pa.list_(children[0])
    if name == "large_list":
        return pa.large_list(children[0])
    if name == "fixed_size_list":
        return pa.list_(children[0], int(spec["length"]))
    if name == "fixed_size_binary":
        return pa.binary(int(spec["length"]))
    if name == "struct":
        return pa.struct(children)
    parts = name.split(":")
    if parts[0] in ("time32", "time64"):
        return (pa.time32 if parts[0] == "time32" else pa.time64)(parts[1])
    if parts[0] == "timestamp":
        tz = parts[2] if len(parts) > 2 and parts[2] != "-" else None
        if tz is not None:
            tz = spec["type"].split(":", 2)[2]  # keep the zone's case
        return pa.timestamp(parts[1], tz)
    if parts[0] == "duration":
        return pa.duration(parts[1])
    if parts[0] == "decimal":
        bits, precision, scale = int(parts[1]), int(parts[2]), int(parts[3])
        return (pa.decimal256 if bits == 256 else pa.decimal128)(precision, scale)
    if parts[0] == "dict":
        value = data_type_from_json({"type": parts[1]})
        key = data_type_from_json({"type": parts[2]})
        ordered = len(parts) > 3 and parts[3] == "true"
        return pa.dictionary(key, value, ordered)
    raise ValueError(f"Unsupported data type in the table's JSON schema: {spec['type']!r}")


def field_from_json(spec: Dict[str, Any]) -> pa.Field:
    metadata = spec.get("metadata") or None
    return pa.field(
        spec["name"],
        data_type_from_json(spec["type"]),
        nullable=bool(spec.get("nullable", True)),
        metadata=metadata,
    )


def schema_from_json(spec: Dict[str, Any]) -> pa.Schema:
    """The Arrow schema of a JSON schema."""
    fields = [field_from_json(f) for f in spec.get("fields") or []]
    return pa.schema(fields, metadata=spec.get("metadata") or None)


def data_type_to_json(dtype: pa.DataType) -> Dict[str, Any]:
    """The JSON data type of an Arrow type (alter_columns' ``data_type``)."""
    if isinstance(dtype, pa.ExtensionType):
        dtype = dtype.storage_type
    for name, simple in _SIMPLE.items():
        if dtype == simple:
            return {"type": name}
    if pa.types.is_fixed_size_list(dtype):
        return {"type": "fixed_size_list", "fields": [field_to_json(dtype.value_field)],
                "length": dtype.list_size}  # fmt: skip
    if pa.types.is_large_list(dtype):
        return {"type": "large_list", "fields": [field_to_json(dtype.value_field)]}
    if pa.types.is_list(dtype):
        return {"type": "list", "fields": [field_to_json(dtype.value_field)]}
    if pa.types.is_fixed_size_binary(dtype):
        return {"type": "fixed_size_binary", "length": dtype.byte_width}
    if pa.types.is_struct(dtype):
        return {"type": "struct", "fields": [field_to_json(f) for f in dtype]}
    if pa.types.is_timestamp(dtype):
        return {"type": f"timestamp:{dtype.unit}:{dtype.tz or '-'}"}
    if pa.types.is_time32(dtype) or pa.types.is_time64(dtype):
        return {"type": f"{'time32' if pa.types.is_time32(dtype) else 'time64'}:{dtype.unit}"}
    if pa.types.is_duration(dtype):
        return {"type": f"duration:{dtype.unit}"}
    if pa.types.is_decimal(dtype):
        bits = 256 if pa.types.is_decimal256(dtype) else 128
        return {"type": f"decimal:{bits}:{dtype.precision}:{dtype.scale}"}
    if pa.types.is_dictionary(dtype):
        value = data_type_to_json(dtype.value_type)["type"]
        key = data_type_to_json(dtype.index_type)["type"]
        return {"type": f"dict:{value}:{key}:{'true' if dtype.ordered else 'false'}"}
    raise ValueError(f"Invalid input, no JSON encoding of the data type {dtype}")


def field_to_json(field: pa.Field) -> Dict[str, Any]:
    out: Dict[str, Any] = {
        "name": field.name, "type": data_type_to_json(field.type), "nullable": field.nullable
    }  # fmt: skip
    if field.metadata:
        out["metadata"] = {k.decode(): v.decode() for k, v in field.metadata.items()}
    return out
