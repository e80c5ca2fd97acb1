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
from typing import Any, Iterable, Iterator, List, Optional, Tuple

import pyarrow as pa
import pyarrow.compute as pc

from . import _sanitize
from ._sanitize import ON_BAD_VECTORS, VECTOR_COLUMN_NAME  # noqa: F401  (used by table.py)


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
    dataset = _dataset_reader(data)
    if dataset is not None:
        return dataset
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


def _is_dataset(data: Any) -> bool:
    """A pyarrow or Lance dataset or scanner (read through its scanner, as LanceDB does)."""
    import pyarrow.dataset as ds

    if isinstance(data, (ds.Dataset, ds.Scanner)):
        return True
    return type(data).__module__.split(".")[0] == "lance" and type(data).__name__ in (
        "LanceDataset",
        "LanceScanner",
    )


def _dataset_reader(data: Any) -> Optional[pa.RecordBatchReader]:
    """A reader over a pyarrow/Lance dataset (its scanner bounded for wide rows, see
    scannable.to_scannable) or scanner; None for other data."""
    if not _is_dataset(data):
        return None
    if hasattr(data, "to_reader"):  # a scanner: read once
        return data.to_reader()
    from .scannable import to_scannable

    return to_scannable(data).reader()


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
    if _is_dataset(data):
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
# Peeking, casting, missing columns


def _peek(reader: pa.RecordBatchReader) -> Tuple[Optional[pa.RecordBatch], pa.RecordBatchReader]:
    """Read the first batch and return it with a reader that still yields every batch."""
    return _sanitize._peek_reader(reader)


def _relaxed(schema: Optional[pa.Schema]) -> Optional[pa.Schema]:
    """`schema` with its top-level fixed-size lists as variable lists: rows are built with it,
    so that a vector of the wrong length reaches the bad-vector policy (or the final cast's
    error) instead of failing the row conversion."""
    if schema is None:
        return None
    fields = [
        f.with_type(pa.list_(f.type.value_field)) if pa.types.is_fixed_size_list(f.type) else f
        for f in schema
    ]
    return pa.schema(fields, metadata=schema.metadata)


def _item_named_type(dtype: pa.DataType) -> pa.DataType:
    if pa.types.is_struct(dtype):
        return pa.struct([f.with_type(_item_named_type(f.type)) for f in dtype])
    if pa.types.is_list(dtype) or pa.types.is_large_list(dtype) or pa.types.is_fixed_size_list(
        dtype
    ):
        child = dtype.value_field
        child = child.with_name("item").with_type(_item_named_type(child.type))
        if pa.types.is_fixed_size_list(dtype):
            return pa.list_(child, dtype.list_size)
        return pa.large_list(child) if pa.types.is_large_list(dtype) else pa.list_(child)
    return dtype


def _item_named(schema: pa.Schema) -> pa.Schema:
    """`schema` with every list's child named "item", as Lance stores it (Parquet files name
    it "element"; the final cast renames the data's too)."""
    fields = [f.with_type(_item_named_type(f.type)) for f in schema]
    return pa.schema(fields, metadata=schema.metadata)


def _rows_reader(data: Any, target: Optional[pa.Schema]) -> Optional[pa.RecordBatchReader]:
    """Rows (a list of dicts) written to `target`, built with `_relaxed(target)`; a vector
    column that is None in every row gets Arrow's null type, as LanceDB infers it, so the
    bad-vector policy leaves it alone. None for other data."""
    if target is None or not isinstance(data, list) or not data or not isinstance(data[0], dict):
        return None
    table = _from_pylist(data, _relaxed(target))
    for i, field in enumerate(table.schema):
        column = table.column(i)
        fixed = field.name in target.names and pa.types.is_fixed_size_list(
            target.field(field.name).type
        )
        if fixed and column.null_count == len(column):
            table = table.set_column(i, field.with_type(pa.null()), pa.nulls(len(column)))
    return table.to_reader()


def _cast_to(reader: pa.RecordBatchReader, target: pa.Schema) -> pa.RecordBatchReader:
    """Reorder and cast the reader's columns to `target` (same set of names). A value that
    does not cast raises InvalidInputError naming the column, when its batch is read."""
    source = reader.schema
    order = [source.get_field_index(f.name) for f in target]
    same_types = all(_same_type(source.field(i).type, f.type) for i, f in zip(order, target))
    if same_types and source.equals(target, check_metadata=False):
        if source.metadata == target.metadata:
            return reader

    def cast(column: pa.Array, field: pa.Field) -> pa.Array:
        if _same_type(column.type, field.type):
            return column
        try:
            return column.cast(field.type)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as err:
            raise InvalidInputError(
                f"Cannot cast the data to the table schema: field '{field.name}' from "
                f"{column.type} to {field.type}: {err}"
            ) from None

    def gen():
        for batch in reader:
            columns = [cast(batch.column(i), f) for i, f in zip(order, target)]
            yield pa.RecordBatch.from_arrays(columns, schema=target)

    if not same_types:
        for i, f in zip(order, target):
            if not _castable(source.field(i).type, f.type):
                raise ValueError(
                    f"Cannot cast field '{f.name}' from {source.field(i).type} to {f.type}"
                )
    return pa.RecordBatchReader.from_batches(target, gen())


def _same_type(a: pa.DataType, b: pa.DataType) -> bool:
    # pyarrow's type equality ignores the names of list children; the native engine does not.
    return a == b and str(a) == str(b)


def _castable(src: pa.DataType, dst: pa.DataType) -> bool:
    try:
        pa.array([], type=src).cast(dst)
        return True
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        return False


def _with_missing_columns(reader: pa.RecordBatchReader, target: pa.Schema) -> pa.RecordBatchReader:
    """Add all-null columns for nullable target fields the input lacks."""
    missing = [f for f in target if f.name not in reader.schema.names]
    required = [f.name for f in missing if not f.nullable]
    if required:
        # Lance's error for an append without a non-nullable column
        raise RuntimeError(
            "lance error: Append with different schema: fields did not match, "
            f"missing=[{', '.join(required)}], unexpected=[]"
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


def _reject_nan_vectors(reader: pa.RecordBatchReader) -> pa.RecordBatchReader:
    """As LanceDB's Table.add: a NaN in a top-level fixed-size list of floats raises
    InvalidInputError (whatever the column's name; nulls are fine)."""
    columns = [
        i
        for i, f in enumerate(reader.schema)
        if pa.types.is_fixed_size_list(f.type) and pa.types.is_floating(f.type.value_type)
    ]
    if not columns:
        return reader

    def gen():
        for batch in reader:
            for i in columns:
                nan = _sanitize.has_nan_values(batch.column(i))
                if pc.any(nan).as_py():
                    row = pc.index(nan, True).as_py()
                    raise InvalidInputError(
                        f"Vector column contains NaN values (column "
                        f"'{batch.schema.field(i).name}', row {row})"
                    )
            yield batch

    return pa.RecordBatchReader.from_batches(reader.schema, gen())


# ---------------------------------------------------------------------------------------------
# Embedding functions and the whole pipeline


def embedding_configs(metadata: Optional[dict]) -> dict:
    """The embedding function configurations named in schema metadata, by vector column."""
    if not metadata:
        return {}
    from .embeddings import EmbeddingFunctionRegistry

    return EmbeddingFunctionRegistry.get_instance().parse_functions(metadata)


def sanitize(
    data: Any,
    target: Optional[pa.Schema] = None,
    on_bad_vectors: str = "error",
    fill_value: float = 0.0,
    *,
    allow_missing: bool = False,
    metadata: Optional[dict] = None,
    blob_strings: bool = True,
    reject_nan_vectors: bool = False,
    subset: bool = False,
) -> pa.RecordBatchReader:
    """Convert `data` into a reader whose schema is `target` (or the inferred schema), with
    LanceDB's steps (lancedb_cpp._sanitize): embedding functions named in `metadata` (default:
    the target's schema metadata) fill their vector columns, `on_bad_vectors` applies to the
    vector columns, and `metadata` is stored in the result's schema.

    `allow_missing` is Table.add's append: nullable columns the data lacks are added as
    nulls, and, as in LanceDB, with on_bad_vectors="error" and no embedding function the
    policy is not applied (null vectors are accepted; a vector of the wrong length fails the
    cast). `reject_nan_vectors` (Table.add) rejects NaNs in every fixed-size float list.
    `subset` (merge_insert): the data may have a subset of the target's columns, which the
    result keeps (cast to the target's types, in the target's order).
    The first batch is converted before this returns, so that its errors raise here, with
    their own types, before a write starts."""
    if on_bad_vectors not in ON_BAD_VECTORS:
        raise ValueError(
            f"Invalid value for on_bad_vectors: {on_bad_vectors!r}; "
            f"expected one of {', '.join(ON_BAD_VECTORS)}"
        )
    reader = _rows_reader(data, target) or to_reader(data, _relaxed(target))
    if target is not None:
        extra = [n for n in reader.schema.names if n not in target.names]
        if extra:
            raise ValueError(
                f"Invalid input, field '{extra[0]}' does not exist in table schema"
            )
    if metadata is None and target is not None:
        metadata = target.metadata
    configs = embedding_configs(_sanitize._merge_metadata(
        None if target is None else target.metadata, metadata
    ))
    reader = _sanitize._append_vector_columns(
        reader, target, metadata=metadata, error_type=InvalidInputError
    )
    if not (allow_missing and on_bad_vectors == "error" and not configs):
        reader = _sanitize._handle_bad_vectors(
            reader,
            on_bad_vectors,
            fill_value,
            target_schema=target,
            metadata=metadata,
            error_type=InvalidInputError,
        )
    if target is None:
        target, reader = _sanitize._infer_target_schema(reader)
        target = _item_named(target)
        if metadata:
            target = target.with_metadata(_sanitize._merge_metadata(target.metadata, metadata))
        _sanitize._validate_schema(target)
    elif subset and set(reader.schema.names) < set(target.names):
        present = set(reader.schema.names)
        target = pa.schema([f for f in target if f.name in present], metadata=target.metadata)
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
    if reject_nan_vectors:
        reader = _reject_nan_vectors(reader)
    if configs:
        # Embed everything before the write starts, so that a failing embedding (or a bad
        # vector it returns) raises its own error here and nothing is written.
        return reader.read_all().to_reader()
    _, reader = _peek(reader)
    return reader
