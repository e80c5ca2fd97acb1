# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""The input-data steps of LanceDB's ``lancedb.table`` module, with LanceDB's names and
behaviour: turning data into a reader (``_into_pyarrow_reader``), embedding source columns
(``_append_vector_columns``), the ``on_bad_vectors`` policy (``_handle_bad_vectors``),
inferring a schema for new tables (``_infer_target_schema``), casting to a target schema
(``_cast_to_target_schema``) and their compositions ``_sanitize_data`` and
``sanitize_create_table``.

Every step is lazy: it returns a RecordBatchReader that transforms batches as they are read
(``_infer_target_schema`` reads the first batch only), so a large input is never held whole.
``Table.add`` and ``create_table`` (``_data.sanitize``) use the same steps for embedding and
bad vectors, so the helpers and the write paths behave as one.
"""

from __future__ import annotations

import inspect
from typing import Any, Dict, List, Optional, Tuple, Type, Union

import pyarrow as pa
import pyarrow.compute as pc

VECTOR_COLUMN_NAME = "vector"
ON_BAD_VECTORS = ("error", "drop", "fill", "null")

__all__ = [
    "_append_vector_columns",
    "_cast_to_target_schema",
    "_fill_bad_vector_values",
    "_handle_bad_vectors",
    "_infer_target_schema",
    "_into_pyarrow_reader",
    "_merge_metadata",
    "_sanitize_data",
    "has_nan_values",
    "sanitize_create_table",
]


# ---------------------------------------------------------------------------------------------
# Small helpers


def _is_list_like(data_type: pa.DataType) -> bool:
    return (
        pa.types.is_list(data_type)
        or pa.types.is_large_list(data_type)
        or pa.types.is_fixed_size_list(data_type)
    )


def _merge_metadata(*metadata_dicts: Optional[dict]) -> Dict[bytes, bytes]:
    """One metadata dict from several (later ones win), keys and values as bytes."""
    merged: Dict[bytes, bytes] = {}
    for metadata in metadata_dicts:
        for key, value in (metadata or {}).items():
            key = key.encode("utf-8") if isinstance(key, str) else key
            value = value.encode("utf-8") if isinstance(value, str) else value
            merged[key] = value
    return merged


def _name_suggests_vector_column(field_name: str) -> bool:
    """A column named like a vector: its name contains "vector" or "embedding" (any case)."""
    lower = field_name.lower()
    return "vector" in lower or "embedding" in lower


def _peek_reader(
    reader: pa.RecordBatchReader,
) -> Tuple[Optional[pa.RecordBatch], pa.RecordBatchReader]:
    """The first batch (None for an empty reader) and a reader that still yields them all."""
    try:
        first = reader.read_next_batch()
    except StopIteration:
        return None, pa.RecordBatchReader.from_batches(reader.schema, [])

    def batches():
        yield first
        yield from reader

    return first, pa.RecordBatchReader.from_batches(reader.schema, batches())


def _modal_list_size(arr: Union[pa.Array, pa.ChunkedArray]) -> Optional[int]:
    """The most common list length (the smallest on ties); None when every entry is null."""
    modes = pc.mode(pc.list_value_length(arr))
    if len(modes) == 0:
        return None
    return modes[0].as_py()["mode"]


def _infer_vector_dim(arr: Union[pa.Array, pa.ChunkedArray]) -> Optional[int]:
    """The most common non-zero list length; None for non-lists and when there is none."""
    if not _is_list_like(arr.type):
        return None
    lengths = pc.list_value_length(arr)
    lengths = pc.filter(lengths, pc.greater(lengths, 0))
    if len(lengths) == 0:
        return None
    return pc.mode(lengths)[0].as_py()["mode"]


def has_nan_values(arr: Union[pa.Array, pa.ChunkedArray]) -> pa.BooleanArray:
    """Per list entry: does it hold a NaN (null entries: False)."""
    if isinstance(arr, pa.ChunkedArray):
        values = pa.chunked_array([chunk.flatten() for chunk in arr.chunks], arr.type.value_type)
    else:
        values = arr.flatten()
    if pa.types.is_float16(values.type):  # pyarrow has no is_nan for float16
        values = values.cast(pa.float32())
    nan = pc.fill_null(pc.is_nan(values), False)
    parents = pc.list_parent_indices(arr)
    nan_rows = pc.unique(pc.filter(parents, nan)).cast(pa.int64())
    return pc.is_in(pa.array(range(len(arr)), pa.int64()), nan_rows)


def _validate_metadata(metadata: dict) -> None:
    """ValueError unless every metadata value is valid UTF-8 (nested dicts too)."""
    for key, value in metadata.items():
        if isinstance(value, bytes):
            try:
                value.decode("utf8")
            except UnicodeDecodeError:
                raise ValueError(
                    f"Metadata key {key} is not valid utf8. "
                    "Consider base64 encode for generic binary metadata."
                ) from None
        elif isinstance(value, dict):
            _validate_metadata(value)


def _validate_schema(schema: pa.Schema) -> None:
    if schema.metadata is not None:
        _validate_metadata(schema.metadata)


# ---------------------------------------------------------------------------------------------
# Input conversion


def _into_pyarrow_reader(data: Any, schema: Optional[pa.Schema] = None) -> pa.RecordBatchReader:
    """Any supported input as a RecordBatchReader, its types as the data has them (rows are
    inferred; `schema` types only an empty list). See ``_data.to_reader``."""
    from . import _data

    if isinstance(data, list) and not data:
        if schema is None:
            raise ValueError("Cannot create table from empty list without a schema")
        return pa.Table.from_pylist([], schema=schema).to_reader()
    return _data.to_reader(data, None)


def _iterator_to_reader(data: Any) -> pa.RecordBatchReader:
    """An iterator of supported inputs as one reader; later items are cast to the first's
    schema (ValueError when they cannot be)."""
    from . import _data

    return _data._iterator_reader(data, None)


# ---------------------------------------------------------------------------------------------
# Embedding functions


def _append_vector_columns(
    reader: pa.RecordBatchReader,
    schema: Optional[pa.Schema] = None,
    *,
    metadata: Optional[dict] = None,
    error_type: Type[Exception] = ValueError,
) -> pa.RecordBatchReader:
    """Fill the vector column of each embedding function (named in `schema`'s metadata and
    `metadata`) from its source column: a missing vector column is added (typed by `schema`,
    else ``fixed_size_list<float32>[ndims]``), and a batch whose vector column is all null is
    embedded. An embedding of the wrong length becomes null, for the bad-vector policy."""
    from .embeddings import EmbeddingFunctionRegistry

    merged = _merge_metadata(None if schema is None else schema.metadata, metadata)
    functions = EmbeddingFunctionRegistry.get_instance().parse_functions(merged)
    if not functions:
        return reader

    fields = list(reader.schema)
    for vector_column, conf in functions.items():
        if vector_column in reader.schema.names:
            continue
        if schema is not None and vector_column in schema.names:
            fields.append(schema.field(vector_column))
        else:
            dtype = pa.list_(pa.float32(), conf.function.ndims())
            fields.append(pa.field(vector_column, dtype, nullable=True))
    out_schema = pa.schema(fields, metadata=reader.schema.metadata)

    def embed(batch: pa.RecordBatch, vector_column: str, conf: Any) -> pa.Array:
        if conf.source_column not in batch.schema.names:
            raise error_type(
                f"Invalid input: column '{conf.source_column}' (the source of the "
                f"embedding column '{vector_column}') is missing from the data"
            )
        source = batch.column(batch.schema.get_field_index(conf.source_column))
        vectors = conf.function.compute_source_embeddings_with_retry(source)
        if len(vectors) != len(source):
            raise error_type(
                f"Invalid input: the embedding function for '{vector_column}' returned "
                f"{len(vectors)} embeddings for {len(source)} rows"
            )
        ndims = conf.function.ndims()
        rows = [v if v is not None and len(v) == ndims else None for v in vectors]
        return pa.array(rows, type=out_schema.field(vector_column).type)

    def batches():
        for batch in reader:
            for vector_column, conf in functions.items():
                field = out_schema.field(vector_column)
                index = batch.schema.get_field_index(vector_column)
                if index < 0:
                    batch = batch.append_column(field, embed(batch, vector_column, conf))
                elif batch.column(index).null_count == batch.num_rows:
                    batch = batch.set_column(index, field, embed(batch, vector_column, conf))
            yield batch

    return pa.RecordBatchReader.from_batches(out_schema, batches())


# ---------------------------------------------------------------------------------------------
# Bad vectors


def _find_vector_columns(
    reader_schema: pa.Schema, target_schema: Optional[pa.Schema], metadata: Optional[dict]
) -> List[dict]:
    """The columns the bad-vector policy applies to, each as {name, expected_dim,
    expected_value_type}. Without a target: a float list named "vector", or a float
    fixed-size list of 10 or more values. With one: target float-list columns that are
    embedding outputs, named "vector" (or "embedding" when fixed size), or whose input is a
    float fixed-size list of 10 or more values."""
    columns = []
    if target_schema is None:
        for field in reader_schema:
            floats = _is_list_like(field.type) and pa.types.is_floating(field.type.value_type)
            named = floats and field.name == VECTOR_COLUMN_NAME
            wide = (
                floats and pa.types.is_fixed_size_list(field.type) and field.type.list_size >= 10
            )
            if named or wide:
                columns.append(
                    {"name": field.name, "expected_dim": None, "expected_value_type": None}
                )
        return columns

    from .embeddings import EmbeddingFunctionRegistry

    active = _merge_metadata(target_schema.metadata, metadata)
    embedded = set(EmbeddingFunctionRegistry.get_instance().parse_functions(active))
    for field in target_schema:
        if field.name not in reader_schema.names:
            continue
        if not (_is_list_like(field.type) and pa.types.is_floating(field.type.value_type)):
            continue
        source = reader_schema.field(field.name).type
        fixed = pa.types.is_fixed_size_list(field.type)
        named = (
            field.name in embedded
            or field.name == VECTOR_COLUMN_NAME
            or (field.name == "embedding" and fixed)
        )
        wide = (
            pa.types.is_fixed_size_list(source)
            and pa.types.is_floating(source.value_type)
            and source.list_size >= 10
        )
        if named or wide:
            columns.append(
                {
                    "name": field.name,
                    "expected_dim": field.type.list_size if fixed else None,
                    "expected_value_type": field.type.value_type,
                }
            )
    return columns


def _vector_output_type(field: pa.Field, column: dict) -> pa.DataType:
    """The type a vector column has after the policy: integer (or null) values become the
    target's value type, a fixed-size list of the wrong size a variable list."""
    if not _is_list_like(field.type):
        return field.type
    value_type = field.type.value_type
    if column["expected_value_type"] is not None and (
        pa.types.is_null(value_type) or pa.types.is_integer(value_type)
    ):
        return pa.list_(column["expected_value_type"])
    dim = column["expected_dim"]
    if dim is not None and pa.types.is_fixed_size_list(field.type) and field.type.list_size != dim:
        return pa.list_(value_type)
    return field.type


def _vector_output_schema(reader_schema: pa.Schema, columns: List[dict]) -> pa.Schema:
    by_name = {c["name"]: c for c in columns}
    fields = []
    for field in reader_schema:
        column = by_name.get(field.name)
        dtype = field.type if column is None else _vector_output_type(field, column)
        fields.append(pa.field(field.name, dtype, field.nullable, field.metadata))
    return pa.schema(fields, metadata=reader_schema.metadata)


def _bad_vectors_message(name: str, what: str) -> str:
    return (
        f"Vector column '{name}' {what}. Set on_bad_vectors='drop' to remove them, "
        "set on_bad_vectors='fill' and fill_value=<value> to replace them, "
        "or set on_bad_vectors='null' to replace them with null."
    )


def _handle_bad_vector_column(
    data: pa.RecordBatch,
    vector_column_name: str,
    on_bad_vectors: str = "error",
    fill_value: float = 0.0,
    expected_dim: Optional[int] = None,
    expected_value_type: Optional[pa.DataType] = None,
    error_type: Type[Exception] = ValueError,
) -> pa.RecordBatch:
    """Apply the policy to one column of one batch. A vector is bad when it holds a NaN, is
    null, or its length is not the dimension (`expected_dim`, else the fixed size, else the
    batch's most common non-zero length; with none, nothing is checked)."""
    position = data.schema.get_field_index(vector_column_name)
    vectors = data.column(position)
    if not _is_list_like(vectors.type):
        return data
    if (
        expected_dim is not None
        and pa.types.is_fixed_size_list(vectors.type)
        and vectors.type.list_size != expected_dim
    ):
        vectors = vectors.cast(pa.list_(vectors.type.value_field))
        data = data.set_column(position, vector_column_name, vectors)
    if expected_value_type is not None and pa.types.is_integer(vectors.type.value_type):
        vectors = vectors.cast(pa.list_(expected_value_type))
        data = data.set_column(position, vector_column_name, vectors)

    if pa.types.is_floating(vectors.type.value_type):
        has_nan = has_nan_values(vectors)
    else:
        has_nan = pa.array([False] * len(vectors))
    if expected_dim is not None:
        dim = expected_dim
    elif pa.types.is_fixed_size_list(vectors.type):
        dim = vectors.type.list_size
    else:
        dim = _infer_vector_dim(vectors)
        if dim is None:
            return data
    # A null vector counts as one of the wrong dimension (Kleene or: true or null is true).
    wrong_dim = pc.or_kleene(pc.is_null(vectors), pc.not_equal(pc.list_value_length(vectors), dim))
    any_wrong_dim = bool(pc.any(wrong_dim).as_py())
    if not (any_wrong_dim or pc.any(has_nan).as_py()):
        return data.set_column(position, vector_column_name, vectors)

    bad = pc.or_(has_nan, wrong_dim)
    if on_bad_vectors == "error":
        what = "has variable length vectors" if any_wrong_dim else "has NaNs"
        raise error_type(_bad_vectors_message(vector_column_name, what))
    if on_bad_vectors == "null":
        vectors = pc.if_else(bad, pa.scalar(None, vectors.type), vectors)
    elif on_bad_vectors == "drop":
        data = data.filter(pc.invert(bad))
        vectors = data.column(position)
    elif on_bad_vectors == "fill":
        if fill_value is None:
            raise ValueError("`fill_value` must not be None if `on_bad_vectors` is 'fill'")
        vectors = _fill_bad_vector_values(vectors, dim, fill_value)
    else:
        raise ValueError(f"Invalid value for on_bad_vectors: {on_bad_vectors}")
    return data.set_column(position, vector_column_name, vectors)


def _fill_bad_vector_values(
    arr: Union[pa.Array, pa.ChunkedArray], dim: int, fill_value: float
) -> pa.Array:
    """Each vector cut or padded to `dim` values, with padding, NaNs and null vectors
    replaced by `fill_value`; values that were null stay null. Keeps `arr`'s type."""
    # One contiguous array whose offsets start at 0 (also for a slice): the mask below is
    # built on its offsets and values.
    if not isinstance(arr, pa.ChunkedArray):
        arr = pa.chunked_array([arr])
    arr = arr.combine_chunks()
    # The values and a parallel "was null" mask, both cut/padded to `dim` per row: a padded
    # slot is null in the mask, a value that was null is True.
    sliced = pc.list_slice(arr, 0, dim, return_fixed_size_list=True)
    parent_nulls = arr.is_null()
    was_null = pc.is_null(arr.values)
    if pa.types.is_fixed_size_list(arr.type):
        mask = pa.FixedSizeListArray.from_arrays(was_null, arr.type.list_size, mask=parent_nulls)
    else:
        offsets = arr.offsets
        cls = pa.LargeListArray if pa.types.is_large_list(arr.type) else pa.ListArray
        mask = cls.from_arrays(offsets, was_null, mask=parent_nulls)
    sliced_mask = pc.list_slice(mask, 0, dim, return_fixed_size_list=True)
    needs_fill = pc.is_null(sliced_mask.values)
    values = sliced.values
    if pa.types.is_floating(values.type):
        check = values.cast(pa.float32()) if pa.types.is_float16(values.type) else values
        needs_fill = pc.or_kleene(needs_fill, pc.is_nan(check))
    filled = pc.if_else(needs_fill, pa.scalar(fill_value).cast(values.type), values)
    return pa.FixedSizeListArray.from_arrays(filled, dim).cast(arr.type)


def _handle_bad_vectors(
    reader: pa.RecordBatchReader,
    on_bad_vectors: str = "error",
    fill_value: float = 0.0,
    target_schema: Optional[pa.Schema] = None,
    metadata: Optional[dict] = None,
    *,
    error_type: Type[Exception] = ValueError,
) -> pa.RecordBatchReader:
    """Apply `on_bad_vectors` ("error", "drop", "fill" with `fill_value`, or "null") to the
    vector columns (see _find_vector_columns), batch by batch. With a target schema whose
    vector column has no fixed size, the dimension is that of the first batch that has one
    (and stays fixed from then on). `error_type` is what "error" raises."""
    columns = _find_vector_columns(reader.schema, target_schema, metadata)
    if not columns:
        return reader
    output_schema = _vector_output_schema(reader.schema, columns)

    def batches():
        for batch in reader:
            unlocked = []
            for column in columns:
                dim = column["expected_dim"]
                if target_schema is not None and dim is None:
                    dim = _infer_vector_dim(batch.column(column["name"]))
                    unlocked.append(column)
                batch = _handle_bad_vector_column(
                    batch,
                    column["name"],
                    on_bad_vectors=on_bad_vectors,
                    fill_value=fill_value,
                    expected_dim=dim,
                    expected_value_type=column["expected_value_type"],
                    error_type=error_type,
                )
            # Lock the dimension once every column of the batch has had its rows dropped.
            for column in unlocked:
                if column["expected_dim"] is None:
                    column["expected_dim"] = _infer_vector_dim(batch.column(column["name"]))
            if not batch.schema.equals(output_schema, check_metadata=True):
                cast = pa.Table.from_batches([batch]).cast(output_schema).combine_chunks()
                batch = pa.RecordBatch.from_arrays(
                    [c.chunk(0) if c.num_chunks else pa.array([], c.type) for c in cast.columns],
                    schema=output_schema,
                )
            yield batch

    return pa.RecordBatchReader.from_batches(output_schema, batches())


# ---------------------------------------------------------------------------------------------
# Target schema


def _infer_target_schema(
    reader: pa.RecordBatchReader,
) -> Tuple[pa.Schema, pa.RecordBatchReader]:
    """The schema a new table gets for data without one: variable lists of numbers whose name
    suggests a vector become fixed-size lists of their most common length (in the first
    batch) of float32, or of uint8 for integers all within 0..255. Returns the schema and a
    reader that still yields every batch."""
    schema = reader.schema
    first: Optional[pa.RecordBatch] = None
    peeked = False
    for i, field in enumerate(schema):
        variable = pa.types.is_list(field.type) or pa.types.is_large_list(field.type)
        if not (variable and _name_suggests_vector_column(field.name)):
            continue
        value_type = field.type.value_type
        if not (pa.types.is_floating(value_type) or pa.types.is_integer(value_type)):
            continue
        if not peeked:
            first, reader = _peek_reader(reader)
            peeked = True
        if first is None:
            continue
        column = first.column(i)
        dim = _modal_list_size(column)
        if dim is None:  # every vector of the first batch is null: nothing to infer from
            continue
        if pa.types.is_floating(value_type):
            target = pa.list_(pa.float32(), dim)
        else:
            bounds = pc.min_max(column.flatten())
            lo, hi = bounds["min"].as_py(), bounds["max"].as_py()
            small = (lo is None or lo >= 0) and (hi is None or hi <= 255)
            target = pa.list_(pa.uint8() if small else pa.float32(), dim)
        schema = schema.set(i, pa.field(field.name, target, nullable=field.nullable))
    return schema, reader


def _field_extension_name(field: pa.Field) -> Optional[str]:
    name = getattr(field.type, "extension_name", None)
    if name is not None:
        return name
    metadata = field.metadata or {}
    name = metadata.get(b"ARROW:extension:name") or metadata.get("ARROW:extension:name")
    return name.decode() if isinstance(name, bytes) else name


def _align_field_types(fields: List[pa.Field], target_fields: List[pa.Field]) -> List[pa.Field]:
    """`fields` (in their order) with the target's types, nested included; nullability stays
    the input's, field metadata is the target's. ValueError for a field the target lacks."""
    by_name = {f.name: f for f in target_fields}
    aligned = []
    for field in fields:
        target = by_name.get(field.name)
        if target is None:
            raise ValueError(f"Field '{field.name}' not found in target schema")
        aligned.append(_align_field(field, target))
    return aligned


def _align_child(child: pa.Field, target_child: pa.Field) -> pa.Field:
    # A list's or map's children align by position and take the target's names.
    return _align_field(child, target_child).with_name(target_child.name)


def _align_field(field: pa.Field, target: pa.Field) -> pa.Field:
    if _field_extension_name(target) == "lance.json":
        # JSON text stays text labelled arrow.json: Lance itself encodes it as JSONB.
        if _field_extension_name(field) == "arrow.json":
            return field
        if pa.types.is_string(field.type) or pa.types.is_large_string(field.type):
            return pa.field(
                field.name, field.type, field.nullable, {"ARROW:extension:name": "arrow.json"}
            )
    ttype, ftype = target.type, field.type
    if pa.types.is_struct(ttype) and pa.types.is_struct(ftype):
        dtype = pa.struct(_align_field_types(list(ftype), list(ttype)))
    elif pa.types.is_list(ttype) and _is_list_like(ftype):
        dtype = pa.list_(_align_child(ftype.value_field, ttype.value_field))
    elif pa.types.is_large_list(ttype) and _is_list_like(ftype):
        dtype = pa.large_list(_align_child(ftype.value_field, ttype.value_field))
    elif pa.types.is_fixed_size_list(ttype) and _is_list_like(ftype):
        dtype = pa.list_(_align_child(ftype.value_field, ttype.value_field), ttype.list_size)
    elif pa.types.is_map(ttype) and pa.types.is_map(ftype):
        dtype = pa.map_(
            _align_child(ftype.key_field, ttype.key_field),
            _align_child(ftype.item_field, ttype.item_field),
            keys_sorted=ttype.keys_sorted,
        )
    else:
        dtype = ttype
    return pa.field(field.name, dtype, field.nullable, target.metadata)


def _infer_subschema(schema: List[pa.Field], reference_fields: List[pa.Field]) -> List[pa.Field]:
    """`schema`'s fields (in order) as the reference has them; structs keep only the children
    the input has. ValueError for a field the reference lacks."""
    by_name = {f.name: f for f in reference_fields}
    fields = []
    for field in schema:
        reference = by_name.get(field.name)
        if reference is None:
            raise ValueError("Unexpected field in schema: {}".format(field))
        if pa.types.is_struct(reference.type) and pa.types.is_struct(field.type):
            children = _infer_subschema(list(field.type), list(reference.type))
            fields.append(pa.field(field.name, pa.struct(children), reference.nullable))
        else:
            fields.append(reference)
    return fields


def _cast_to_target_schema(
    reader: pa.RecordBatchReader, target_schema: pa.Schema, allow_subschema: bool = False
) -> pa.RecordBatchReader:
    """Cast the reader's columns (kept in their order) to the target's types. The input must
    have every target column unless `allow_subschema`; it may never have others."""
    if reader.schema.equals(target_schema, check_metadata=True):
        return reader
    fields = _align_field_types(list(reader.schema), list(target_schema))
    if len(fields) != len(target_schema):
        if not allow_subschema:
            raise ValueError("Input table has different number of columns than target schema")
        fields = _infer_subschema(list(reader.schema), fields)
    schema = pa.schema(fields, metadata=target_schema.metadata)

    def batches():
        for batch in reader:
            cast = pa.Table.from_batches([batch]).cast(schema).to_batches()
            if cast:
                yield pa.RecordBatch.from_arrays(cast[0].columns, schema=schema)

    return pa.RecordBatchReader.from_batches(schema, batches())


# ---------------------------------------------------------------------------------------------
# Compositions


def _sanitize_data(
    data: Any,
    target_schema: Optional[pa.Schema] = None,
    metadata: Optional[dict] = None,
    on_bad_vectors: str = "error",
    fill_value: float = 0.0,
    *,
    allow_subschema: bool = False,
) -> pa.RecordBatchReader:
    """`data` as a reader of `target_schema` (or of the inferred schema): embedding columns
    filled (functions named in `metadata` and the target's metadata), bad vectors handled,
    `metadata` merged into the schema, columns cast. With `allow_subschema` the data may
    lack target columns (they stay absent)."""
    reader = _into_pyarrow_reader(data, target_schema)
    reader = _append_vector_columns(reader, target_schema, metadata=metadata)
    # Before the cast, so that vectors of the wrong length are fixed before they become
    # fixed-size lists.
    reader = _handle_bad_vectors(
        reader,
        on_bad_vectors=on_bad_vectors,
        fill_value=fill_value,
        target_schema=target_schema,
        metadata=metadata,
    )
    if target_schema is None:
        target_schema, reader = _infer_target_schema(reader)
    if metadata:
        target_schema = target_schema.with_metadata(
            _merge_metadata(target_schema.metadata, metadata)
        )
    _validate_schema(target_schema)
    return _cast_to_target_schema(reader, target_schema, allow_subschema)


def sanitize_create_table(
    data: Any,
    schema: Any,
    metadata: Optional[dict] = None,
    on_bad_vectors: str = "error",
    fill_value: float = 0.0,
) -> Tuple[Any, pa.Schema]:
    """The (data, schema) ``create_table`` writes: `schema` may be a LanceModel class;
    `metadata` (embedding functions) is merged into the schema and the data's schema, and
    defaults to the schema's own. Without data, the data is an empty table of `schema`."""
    from .pydantic import LanceModel

    if inspect.isclass(schema) and issubclass(schema, LanceModel):
        schema = schema.to_arrow_schema()
    if data is not None:
        if metadata is None and schema is not None:
            metadata = schema.metadata
        data = _sanitize_data(
            data, schema, metadata=metadata, on_bad_vectors=on_bad_vectors, fill_value=fill_value
        )
        schema = data.schema
    elif schema is not None:
        data = pa.Table.from_batches([], schema=schema)
    if schema is None:
        if data is None:
            raise ValueError("Either data or schema must be provided")
        schema = data.schema
    if metadata:
        merged = _merge_metadata(schema.metadata, metadata)
        schema = schema.with_metadata(merged)
        if isinstance(data, pa.Table):
            data = data.replace_schema_metadata(merged)
        elif isinstance(data, pa.RecordBatchReader):
            data = pa.RecordBatchReader.from_batches(schema, data)
    return data, schema
