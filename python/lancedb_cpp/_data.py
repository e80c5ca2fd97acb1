# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Turn user data into a pyarrow RecordBatchReader, as LanceDB does.

Accepted: a list of dicts, a list of pydantic models (typed by the model's schema), a list of
RecordBatches, a pandas or polars DataFrame, a pyarrow Table / RecordBatch /
RecordBatchReader, any object exposing ``__arrow_c_stream__``, and iterables of any of these.
Arrow inputs are passed through without copying their buffers; only columns that need a cast
or a bad-vector fix are rebuilt.

Schema inference follows LanceDB: list columns whose name mentions ``vector`` or
``embedding`` become ``fixed_size_list`` of their most common length (``float32``, or
``uint8`` for integers within 0..255); Python ints become int64, floats float64, str utf8,
dicts structs.
"""

from __future__ import annotations

import datetime
import decimal
import enum
import math
from collections import Counter
from typing import Any, Iterable, Iterator, List, Optional, Tuple

import pyarrow as pa
import pyarrow.compute as pc

ON_BAD_VECTORS = ("error", "drop", "fill", "null")
VECTOR_COLUMN_NAME = "vector"


# ---------------------------------------------------------------------------------------------
# Input conversion


def _is_pandas_df(data: Any) -> bool:
    mod = type(data).__module__
    return mod.startswith("pandas") and type(data).__name__ == "DataFrame"


def _is_polars(data: Any, name: str) -> bool:
    return type(data).__module__.startswith("polars") and type(data).__name__ == name


def _py_kind(value: Any) -> str:
    """A coarse type name for a Python value: values of different kinds cannot share a column."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "str"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "bytes"
    if isinstance(value, dict):
        return "dict"
    if isinstance(value, (list, tuple)) or type(value).__name__ == "ndarray":
        return "list"
    if isinstance(value, datetime.datetime):
        return "datetime"
    if isinstance(value, datetime.date):
        return "date"
    if isinstance(value, decimal.Decimal):
        return "decimal"
    return type(value).__name__


def _describe_mismatch(rows: List[dict], prefix: str = "") -> Optional[str]:
    """Find the first field whose values have incompatible Python types; describe it."""
    if not rows or not isinstance(rows[0], dict):
        return None
    for key in rows[0].keys():
        first_kind, first_row = None, None
        nested: List[dict] = []
        for i, row in enumerate(rows):
            if not isinstance(row, dict):
                return f"row {i} is a {type(row).__name__}, not a dict"
            value = row.get(key)
            if value is None:
                continue
            kind = _py_kind(value)
            if first_kind is None:
                first_kind, first_row = kind, i
            elif kind != first_kind:
                return (
                    f"field '{prefix}{key}' has mismatched types: row {first_row} has a "
                    f"{first_kind} ({type(rows[first_row][key]).__name__}), row {i} has a "
                    f"{kind} ({type(value).__name__}: {value!r:.40})"
                )
            if kind == "dict":
                nested.append(value)
        if nested:
            inner = _describe_mismatch(nested, prefix=f"{prefix}{key}.")
            if inner:
                return inner
    return None


def _widen_half(dtype: pa.DataType) -> pa.DataType:
    """`dtype` with float16 replaced by float32 (nested too): pyarrow builds float16 only from
    Python floats and np.float16, not from the other numpy scalars rows often hold."""
    if pa.types.is_float16(dtype):
        return pa.float32()
    if pa.types.is_fixed_size_list(dtype):
        return pa.list_(dtype.value_field.with_type(_widen_half(dtype.value_type)), dtype.list_size)
    if pa.types.is_list(dtype):
        return pa.list_(dtype.value_field.with_type(_widen_half(dtype.value_type)))
    if pa.types.is_large_list(dtype):
        return pa.large_list(dtype.value_field.with_type(_widen_half(dtype.value_type)))
    if pa.types.is_struct(dtype):
        return pa.struct([f.with_type(_widen_half(f.type)) for f in dtype])
    return dtype


def _table_from_pylist(rows: List[dict], schema: Optional[pa.Schema]) -> pa.Table:
    """``pa.Table.from_pylist``, also when `schema` has float16 fields and the rows hold numpy
    float32/float64 values for them (built as float32, then cast: rounded once to float16)."""
    if schema is None:
        return pa.Table.from_pylist(rows)
    wide = pa.schema([_row_field(f, rows) for f in schema], metadata=schema.metadata)
    if wide.equals(schema):
        return pa.Table.from_pylist(rows, schema=schema)
    table = pa.Table.from_pylist(rows, schema=wide)
    # Column by column (not Table.cast): a null in a non-nullable field is reported later, by
    # the caller's own check, as for any other field. Blob columns built from bytes or URI
    # strings stay so: the write coerces them to blob descriptors (_blob.coerce_blob_reader).
    columns = [
        column if field.type == wide_field.type or _is_blob_source(field, wide_field)
        else column.cast(field.type)
        for column, field, wide_field in zip(table.columns, schema, wide)
    ]
    fields = [w if _is_blob_source(f, w) else f for f, w in zip(schema, wide)]
    return pa.Table.from_arrays(columns, schema=pa.schema(fields, metadata=schema.metadata))


def _row_field(field: pa.Field, rows: List[dict]) -> pa.Field:
    """The field the rows' values for `field` are built as: float16 widened (_widen_half); a
    blob v2 column given bytes or strings (inline payloads or external URIs, as LanceDB
    accepts in rows) as binary or string."""
    from .schema import is_blob_v2_field

    if is_blob_v2_field(field):
        sample = next((r.get(field.name) for r in rows if r.get(field.name) is not None), None)
        if isinstance(sample, (bytes, bytearray, memoryview)):
            return field.with_type(pa.large_binary())
        if isinstance(sample, str):
            return field.with_type(pa.large_utf8())
        return field
    return field.with_type(_widen_half(field.type))


def _is_blob_source(field: pa.Field, built: pa.Field) -> bool:
    return built.type != field.type and (pa.types.is_large_binary(built.type)
                                         or pa.types.is_large_string(built.type))


def _from_pylist(rows: List[dict], schema: Optional[pa.Schema]) -> pa.Table:
    if rows and not isinstance(rows[0], dict):
        raise ValueError(
            f"Cannot create rows from a list of {type(rows[0]).__name__}; "
            "use a list of dictionaries"
        )
    try:
        if schema is not None:
            # Only the fields the rows have: the rest are checked (and filled) later.
            names = set(rows[0].keys()) if rows else set(schema.names)
            if names.issubset(schema.names):
                schema = pa.schema(
                    [f for f in schema if f.name in names], metadata=schema.metadata
                )
            else:  # unknown fields: infer, and let the caller name the unknown field
                schema = None
        return _table_from_pylist(rows, schema)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError) as err:
        detail = _describe_mismatch(rows)
        if detail:
            raise ValueError(f"Cannot convert the rows to Arrow: {detail}") from None
        raise ValueError(f"Cannot convert the rows to Arrow: {err}") from None


def _is_model(value: Any) -> bool:
    """A pydantic model instance (a LanceModel of ours or of LanceDB, or a plain BaseModel)."""
    return hasattr(value, "model_dump") and hasattr(type(value), "model_fields")


def _plain(value: Any) -> Any:
    """A dumped model value with Enum members replaced by their values (Arrow wants those)."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _model_schema(model: type) -> Optional[pa.Schema]:
    if hasattr(model, "to_arrow_schema"):
        return model.to_arrow_schema()
    from .pydantic import pydantic_to_schema

    try:
        return pydantic_to_schema(model)
    except TypeError:  # a field type with no Arrow mapping: infer from the values
        return None


def _from_models(models: List[Any], target: Optional[pa.Schema]) -> pa.Table:
    """Rows from pydantic model instances, typed by the first model's schema as LanceDB does
    (fields the table lacks or misses are reported by `sanitize`)."""
    for i, m in enumerate(models):
        if not _is_model(m):
            raise ValueError(
                f"Cannot mix pydantic models and {type(m).__name__} in the rows (row {i})"
            )
    model_type = type(models[0])
    schema = _model_schema(model_type)
    rows = [_plain(m.model_dump()) for m in models]
    if schema is None:
        return _from_pylist(rows, target)
    # Models of other classes: only the fields the first model's class has are kept, and a
    # non-nullable field they lack is an error below (LanceDB's Arrow null check).
    try:
        table = _table_from_pylist(rows, schema)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError) as err:
        raise ValueError(f"Cannot convert the {model_type.__name__} rows to Arrow: {err}") from None
    for field, column in zip(schema, table.columns):
        if not field.nullable and column.null_count:
            row = next(i for i, v in enumerate(column.is_null().to_pylist()) if v)
            raise InvalidInputError(
                f"Invalid input: column '{field.name}' is declared as non-nullable but row "
                f"{row} ({type(models[row]).__name__}) has no value for it"
            )
    return table


class InvalidInputError(ValueError, RuntimeError):
    """Rows that cannot be written to the table. Both a ValueError and a RuntimeError (what
    LanceDB raises for the same input, from its Rust layer)."""


def _single_reader(data: Any, schema: Optional[pa.Schema]) -> pa.RecordBatchReader:
    """Convert one non-iterator input to a reader."""
    if _is_model(data):
        raise ValueError("Cannot add a single LanceModel to a table. Use a list.")
    if isinstance(data, pa.RecordBatchReader):
        return data
    if isinstance(data, pa.Table):
        return data.to_reader()
    if isinstance(data, pa.RecordBatch):
        return pa.RecordBatchReader.from_batches(data.schema, [data])
    if isinstance(data, dict):
        raise ValueError(
            "Cannot create or add rows from a single dictionary. "
            "Use a list of dictionaries instead."
        )
    if isinstance(data, list):
        if not data:
            if schema is None:
                raise ValueError("Cannot create table from empty list without a schema")
            return pa.Table.from_pylist([], schema=schema).to_reader()
        if isinstance(data[0], pa.RecordBatch):
            return pa.Table.from_batches(data).to_reader()
        if _is_model(data[0]):
            return _from_models(data, schema).to_reader()
        return _from_pylist(data, schema).to_reader()
    if _is_pandas_df(data):
        table = pa.Table.from_pandas(data, preserve_index=False)
        meta = {k: v for k, v in (table.schema.metadata or {}).items() if k != b"pandas"}
        return table.replace_schema_metadata(meta or None).to_reader()
    if _is_polars(data, "DataFrame"):
        return data.to_arrow().to_reader()
    if _is_polars(data, "LazyFrame"):
        return data.collect().to_arrow().to_reader()
    if hasattr(data, "__arrow_c_stream__"):
        return pa.RecordBatchReader.from_stream(data)
    if hasattr(data, "__arrow_c_array__"):
        return pa.RecordBatchReader.from_batches(
            pa.record_batch(data).schema, [pa.record_batch(data)]
        )
    raise TypeError(
        f"Unknown data type {type(data)}. Supported types: list of dicts, pandas DataFrame, "
        "polars DataFrame, pyarrow Table/RecordBatch/RecordBatchReader, objects exposing "
        "__arrow_c_stream__, or iterables of these."
    )


def _iterator_reader(data: Iterable, schema: Optional[pa.Schema]) -> pa.RecordBatchReader:
    it = iter(data)
    try:
        first_item = next(it)
    except StopIteration:
        if schema is None:
            raise ValueError("Cannot create table from an empty iterator without a schema")
        return pa.Table.from_pylist([], schema=schema).to_reader()
    first = _single_reader(first_item, schema)
    first_schema = first.schema

    def gen() -> Iterator[pa.RecordBatch]:
        yield from first
        for item in it:
            for batch in _single_reader(item, schema):
                if not batch.schema.equals(first_schema):
                    try:
                        batch = pa.Table.from_batches([batch]).cast(first_schema).combine_chunks()
                        batch = batch.to_batches()[0] if batch.num_rows else None
                    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError):
                        raise ValueError(
                            "Input iterator yielded a batch with schema that does not match "
                            f"the schema of other batches.\nExpected:\n{first_schema}\n"
                            f"Got:\n{item.schema if hasattr(item, 'schema') else batch.schema}"
                        ) from None
                    if batch is None:
                        continue
                yield batch

    return pa.RecordBatchReader.from_batches(first_schema, gen())


def to_reader(data: Any, schema: Optional[pa.Schema] = None) -> pa.RecordBatchReader:
    """Convert any supported input to a RecordBatchReader (no copy for Arrow inputs)."""
    if _is_model(data):  # a model is iterable (over its fields): not rows
        return _single_reader(data, schema)
    if isinstance(data, (list, dict, pa.Table, pa.RecordBatch, pa.RecordBatchReader)):
        return _single_reader(data, schema)
    if _is_pandas_df(data) or _is_polars(data, "DataFrame") or _is_polars(data, "LazyFrame"):
        return _single_reader(data, schema)
    if hasattr(data, "__arrow_c_stream__") or hasattr(data, "__arrow_c_array__"):
        return _single_reader(data, schema)
    if isinstance(data, (str, bytes)):
        raise TypeError(f"Unknown data type {type(data)}")
    if isinstance(data, Iterable):
        return _iterator_reader(data, schema)
    return _single_reader(data, schema)


def to_schema(schema: Any) -> pa.Schema:
    """Accept a pa.Schema, a LanceModel class or anything exposing ``__arrow_c_schema__``."""
    if isinstance(schema, pa.Schema):
        return schema
    if hasattr(schema, "to_arrow_schema"):
        return schema.to_arrow_schema()
    if hasattr(schema, "__arrow_c_schema__"):
        return pa.schema(schema)
    raise TypeError(f"schema must be a pyarrow.Schema, got {type(schema).__name__}")


# ---------------------------------------------------------------------------------------------
# Peeking, inference, bad vectors, casting


def _peek(reader: pa.RecordBatchReader) -> Tuple[Optional[pa.RecordBatch], pa.RecordBatchReader]:
    """Read the first batch and return it with a reader that still yields every batch."""
    try:
        first = reader.read_next_batch()
    except StopIteration:
        return None, pa.RecordBatchReader.from_batches(reader.schema, [])

    def gen():
        yield first
        yield from reader

    return first, pa.RecordBatchReader.from_batches(reader.schema, gen())


def _is_list_like(t: pa.DataType) -> bool:
    return pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t)


def _is_var_list(t: pa.DataType) -> bool:
    return pa.types.is_list(t) or pa.types.is_large_list(t)


def _modal_length(column: pa.Array) -> Optional[int]:
    lengths = pc.list_value_length(column)
    lengths = pc.filter(lengths, pc.greater(lengths, 0))
    if len(lengths) == 0:
        return None
    counts = Counter(lengths.to_pylist())
    best = max(counts.values())
    return min(n for n, c in counts.items() if c == best)


def _name_suggests_vector(name: str) -> bool:
    lower = name.lower()
    return "vector" in lower or "embedding" in lower


def infer_schema(schema: pa.Schema, first: Optional[pa.RecordBatch]) -> pa.Schema:
    """LanceDB's target schema for data without one: vector-named lists become fixed size."""
    for i, field in enumerate(schema):
        if not (_name_suggests_vector(field.name) and _is_var_list(field.type)):
            continue
        if first is None:
            continue
        column = first.column(i)
        dim = _modal_length(column)
        if dim is None:
            continue
        value_type = field.type.value_type
        if pa.types.is_floating(value_type):
            target = pa.list_(pa.float32(), dim)
        elif pa.types.is_integer(value_type):
            values = pc.list_flatten(column)
            bounds = pc.min_max(values)
            lo, hi = bounds["min"].as_py(), bounds["max"].as_py()
            small = lo is None or (lo >= 0 and hi <= 255)
            target = pa.list_(pa.uint8() if small else pa.float32(), dim)
        else:
            continue
        schema = schema.set(i, pa.field(field.name, target, field.nullable, field.metadata))
    return schema


def _vector_columns(
    source: pa.Schema, target: Optional[pa.Schema]
) -> List[Tuple[str, Optional[int]]]:
    """The (name, expected dimension) of the columns whose vectors get checked."""
    found = []
    if target is None:
        for field in source:
            floating = _is_list_like(field.type) and pa.types.is_floating(field.type.value_type)
            named = floating and field.name == VECTOR_COLUMN_NAME
            wide = (
                floating
                and pa.types.is_fixed_size_list(field.type)
                and field.type.list_size >= 10
            )
            if named or wide:
                found.append((field.name, None))
        return found
    for field in target:
        if field.name not in source.names:
            continue
        if not (_is_list_like(field.type) and pa.types.is_floating(field.type.value_type)):
            continue
        src = source.field(field.name)
        named = field.name == VECTOR_COLUMN_NAME or (
            field.name == "embedding" and pa.types.is_fixed_size_list(field.type)
        )
        wide = (
            pa.types.is_fixed_size_list(src.type)
            and pa.types.is_floating(src.type.value_type)
            and src.type.list_size >= 10
        )
        if named or wide:
            dim = field.type.list_size if pa.types.is_fixed_size_list(field.type) else None
            found.append((field.name, dim))
    return found


def _row_has_nan(column: pa.Array) -> pa.Array:
    """Per row: does the vector contain a NaN (null rows: false)."""
    if not pa.types.is_floating(column.type.value_type):
        return pa.array([False] * len(column))
    flat = pc.list_flatten(column)
    values = flat.cast(pa.float32()) if pa.types.is_float16(flat.type) else flat
    nan = pc.fill_null(pc.is_nan(values), False)
    parents = pc.list_parent_indices(column)
    bad_rows = pc.unique(pc.filter(parents, nan))
    return pc.is_in(pa.array(range(len(column)), pa.int64()), bad_rows.cast(pa.int64()))


def _fill_vectors(column: pa.Array, bad: pa.Array, dim: int, fill_value: float) -> pa.Array:
    rows = column.to_pylist()
    mask = bad.to_pylist()
    fixed = []
    for row, is_bad in zip(rows, mask):
        if not is_bad:
            fixed.append(row)
            continue
        row = list(row or [])[:dim]
        row += [None] * (dim - len(row))
        fixed.append(
            [fill_value if (v is None or (isinstance(v, float) and math.isnan(v))) else v
             for v in row]
        )
    return pa.array(fixed, type=column.type)


def _fix_batch(
    batch: pa.RecordBatch,
    name: str,
    dim: int,
    on_bad_vectors: str,
    fill_value: float,
) -> pa.RecordBatch:
    index = batch.schema.get_field_index(name)
    column = batch.column(index)
    has_nan = _row_has_nan(column)
    lengths = pc.list_value_length(column)
    wrong_dim = pc.fill_null(pc.not_equal(lengths, dim), True)
    bad = pc.or_(has_nan, wrong_dim)
    if not pc.any(bad).as_py():
        return batch
    if on_bad_vectors == "error":
        what = "has variable length vectors" if pc.any(wrong_dim).as_py() else "has NaNs"
        raise InvalidInputError(
            f"Vector column '{name}' {what}. Set on_bad_vectors='drop' to remove them, "
            "set on_bad_vectors='fill' and fill_value=<value> to replace them, "
            "or set on_bad_vectors='null' to replace them with null."
        )
    if on_bad_vectors == "drop":
        return batch.filter(pc.invert(bad))
    if on_bad_vectors == "null":
        fixed = pc.if_else(bad, pa.scalar(None, column.type), column)
    else:
        if fill_value is None:
            raise ValueError("`fill_value` must not be None if `on_bad_vectors` is 'fill'")
        fixed = _fill_vectors(column, bad, dim, fill_value)
    return batch.set_column(index, batch.schema.field(index), fixed)


def _handle_bad_vectors(
    reader: pa.RecordBatchReader,
    target: Optional[pa.Schema],
    on_bad_vectors: str,
    fill_value: float,
    embedded: Optional[dict] = None,
) -> pa.RecordBatchReader:
    columns = _vector_columns(reader.schema, target)
    known = {name for name, _ in columns}
    for name, dim in (embedded or {}).items():
        if name in reader.schema.names and name not in known:
            columns.append((name, dim))
    if not columns:
        return reader
    first, reader = _peek(reader)
    if first is None:
        return reader
    dims = {}
    for name, dim in columns:
        src_type = reader.schema.field(name).type
        if dim is None and pa.types.is_fixed_size_list(src_type):
            dim = src_type.list_size
        if dim is None:
            dim = _modal_length(first.column(reader.schema.get_field_index(name)))
        if dim is not None:
            dims[name] = dim
    if not dims:
        return reader

    def gen():
        for batch in reader:
            for name, dim in dims.items():
                batch = _fix_batch(batch, name, dim, on_bad_vectors, fill_value)
            yield batch

    # Streamed, also with "error": a bad vector raises from the stream, which fails the write
    # before it commits, so nothing is written (and a large input is never held whole).
    return pa.RecordBatchReader.from_batches(reader.schema, gen())


def _cast_to(reader: pa.RecordBatchReader, target: pa.Schema) -> pa.RecordBatchReader:
    """Reorder and cast the reader's columns to `target` (same set of names)."""
    source = reader.schema
    if source.equals(target, check_metadata=False):
        if source.metadata == target.metadata:
            return reader
    order = [source.get_field_index(f.name) for f in target]
    same_types = all(source.field(i).type == f.type for i, f in zip(order, target))

    def gen():
        for batch in reader:
            columns = [batch.column(i) for i in order]
            if not same_types:
                try:
                    columns = [
                        c if c.type == f.type else c.cast(f.type) for c, f in zip(columns, target)
                    ]
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as err:
                    raise ValueError(f"Cannot cast the data to the table schema: {err}") from None
            yield pa.RecordBatch.from_arrays(columns, schema=target)

    if not same_types:
        for i, f in zip(order, target):
            if not _castable(source.field(i).type, f.type):
                raise ValueError(
                    f"Cannot cast field '{f.name}' from {source.field(i).type} to {f.type}"
                )
    return pa.RecordBatchReader.from_batches(target, gen())


def _castable(src: pa.DataType, dst: pa.DataType) -> bool:
    try:
        pa.array([], type=src).cast(dst)
        return True
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        return False


def _with_missing_columns(reader: pa.RecordBatchReader, target: pa.Schema) -> pa.RecordBatchReader:
    """Add all-null columns for nullable target fields the input lacks."""
    missing = [f for f in target if f.name not in reader.schema.names]
    for f in missing:
        if not f.nullable:
            raise InvalidInputError(
                f"Invalid input, the data is missing the non-nullable field '{f.name}'"
            )
    if not missing:
        return reader
    schema = reader.schema
    for f in missing:
        schema = schema.append(f)

    def gen():
        for batch in reader:
            columns = list(batch.columns) + [pa.nulls(batch.num_rows, f.type) for f in missing]
            yield pa.RecordBatch.from_arrays(columns, schema=schema)

    return pa.RecordBatchReader.from_batches(schema, gen())


# ---------------------------------------------------------------------------------------------
# Embedding functions


def embedding_configs(metadata: Optional[dict]) -> dict:
    """The embedding function configurations named in schema metadata, by vector column."""
    if not metadata:
        return {}
    from .embeddings import EmbeddingFunctionRegistry

    return EmbeddingFunctionRegistry.get_instance().parse_functions(metadata)


def _embedded_array(conf: Any, source: pa.Array, field: pa.Field) -> pa.Array:
    vectors = conf.function.compute_source_embeddings_with_retry(source)
    if len(vectors) != len(source):
        raise InvalidInputError(
            f"Invalid input: the embedding function for '{field.name}' returned "
            f"{len(vectors)} embeddings for {len(source)} rows"
        )
    ndims = conf.function.ndims()
    # A vector of the wrong dimension becomes null: the bad-vector policy deals with it.
    rows = [
        None if v is None or len(v) != ndims else [float(x) for x in v] for v in vectors
    ]
    return pa.array(rows, type=field.type)


def _append_embeddings(
    reader: pa.RecordBatchReader, target: Optional[pa.Schema], configs: dict
) -> pa.RecordBatchReader:
    """Fill each embedding function's vector column from its source column where the input
    lacks it (or has only nulls in a batch), as LanceDB does."""
    if not configs:
        return reader
    schema = reader.schema
    fields = {}
    for vector_column, conf in configs.items():
        if target is not None and vector_column in target.names:
            field = target.field(vector_column)
        elif vector_column in schema.names:
            field = schema.field(vector_column)
        else:
            field = pa.field(vector_column, pa.list_(pa.float32(), conf.function.ndims()))
        fields[vector_column] = field
        if vector_column not in schema.names:
            if conf.source_column not in schema.names:
                raise InvalidInputError(
                    f"Invalid input: column '{conf.source_column}' (the source of the "
                    f"embedding column '{vector_column}') is missing from the data"
                )
            schema = schema.append(field)
        elif schema.field(vector_column).type != field.type:
            schema = schema.set(schema.get_field_index(vector_column), field)

    def gen() -> Iterator[pa.RecordBatch]:
        for batch in reader:
            columns = {name: batch.column(i) for i, name in enumerate(batch.schema.names)}
            for vector_column, conf in configs.items():
                present = columns.get(vector_column)
                if present is not None and present.null_count < len(present):
                    continue
                if conf.source_column not in columns:
                    if present is not None:
                        continue
                    raise InvalidInputError(
                        f"Invalid input: column '{conf.source_column}' is missing"
                    )
                columns[vector_column] = _embedded_array(
                    conf, columns[conf.source_column], fields[vector_column]
                )
            arrays = []
            for field in schema:
                column = columns[field.name]
                if column.type != field.type:
                    column = column.cast(field.type)
                arrays.append(column)
            yield pa.RecordBatch.from_arrays(arrays, schema=schema)

    return pa.RecordBatchReader.from_batches(schema, gen())


def sanitize(
    data: Any,
    target: Optional[pa.Schema] = None,
    on_bad_vectors: str = "error",
    fill_value: float = 0.0,
    *,
    allow_missing: bool = False,
    metadata: Optional[dict] = None,
    blob_strings: bool = True,
) -> pa.RecordBatchReader:
    """Convert `data` into a reader whose schema is `target` (or the inferred schema).
    Embedding functions named in `metadata` (default: the target's schema metadata) fill
    their vector columns; `metadata` is stored in the result's schema."""
    if on_bad_vectors not in ON_BAD_VECTORS:
        raise ValueError(
            f"Invalid value for on_bad_vectors: {on_bad_vectors!r}; "
            f"expected one of {', '.join(ON_BAD_VECTORS)}"
        )
    reader = to_reader(data, target)
    if target is not None:
        extra = [n for n in reader.schema.names if n not in target.names]
        if extra:
            raise ValueError(
                f"Invalid input, field '{extra[0]}' does not exist in table schema"
            )
    if metadata is None and target is not None:
        metadata = target.metadata
    configs = embedding_configs(metadata)
    reader = _append_embeddings(reader, target, configs)
    embedded = {
        name: conf.function.ndims() for name, conf in configs.items()
    }
    reader = _handle_bad_vectors(reader, target, on_bad_vectors, fill_value, embedded)
    if target is None:
        first, reader = _peek(reader)
        target = infer_schema(reader.schema, first)
        if metadata:
            merged = dict(target.metadata or {})
            merged.update(metadata)
            target = target.with_metadata(merged)
    elif allow_missing:
        reader = _with_missing_columns(reader, target)
    else:
        from ._computed import with_computed_columns

        reader = with_computed_columns(reader, target)
    if len(reader.schema) != len(target):
        missing = [n for n in target.names if n not in reader.schema.names]
        raise ValueError(f"Invalid input, the data is missing the field '{missing[0]}'")
    # Blob v2 columns take bytes (inline payloads) and, unless `blob_strings` is False (as in
    # merge_insert), URI strings (external blobs).
    from ._blob import coerce_blob_reader

    reader = coerce_blob_reader(reader, target, coerce_strings=blob_strings)
    reader = _cast_to(reader, target)
    if configs:
        # Embed everything before the write starts, so that a failing embedding (or a bad
        # vector it returns) raises its own error here and nothing is written.
        reader = reader.read_all().to_reader()
    return reader
