# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Input data as a re-readable source (``lancedb.scannable``).

``to_scannable(data)`` describes any data ``Table.add`` takes as a ``Scannable``: its schema,
its row count when known, and a factory of RecordBatchReaders. ``rescannable`` is False for
one-shot sources (a RecordBatchReader, a dataset Scanner, an iterator), whose factory must be
called once. ``to_arrow(data)`` converts one object (batch, table, list of rows or of
LanceModels, pandas or polars DataFrame) to a pyarrow Table. Both are
``functools.singledispatch`` functions: ``to_scannable.register(MyType)`` adds a type.

Datasets (pyarrow and Lance) are scanned with bounded memory, as LanceDB does: pyarrow's
scanner keeps ``batch_readahead + fragment_readahead`` batches of 131,072 rows in flight,
which for wide rows (embeddings) is many GiB; when the estimated in-flight size exceeds
``_SCAN_MEMORY_BUDGET_BYTES``, batches are cut to about ``_TARGET_BATCH_BYTES`` and read-ahead
drops to ``_WIDE_BATCH_READAHEAD`` / ``_WIDE_FRAGMENT_READAHEAD``. The row width comes from
the schema, refined by a sample of ``_SAMPLE_ROWS`` rows for variable-length lists.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import singledispatch
from typing import Any, Callable, Iterator, Optional

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

from .pydantic import LanceModel

__all__ = ["LanceModel", "Scannable", "to_arrow", "to_scannable"]

_SCAN_MEMORY_BUDGET_BYTES = 1024 * 1024 * 1024  # in-flight bytes a dataset scan aims at
_TARGET_BATCH_BYTES = 16 * 1024 * 1024  # bytes per batch for wide rows
_MIN_BATCH_ROWS = 512
# pyarrow's scanner defaults (ScanOptions); a bounded scan never exceeds them.
_PA_DEFAULT_BATCH_ROWS = 131_072
_PA_DEFAULT_BATCH_READAHEAD = 16
_PA_DEFAULT_FRAGMENT_READAHEAD = 4
# Read-ahead for wide rows: pyarrow keeps that many row groups resident.
_WIDE_BATCH_READAHEAD = 2
_WIDE_FRAGMENT_READAHEAD = 1
# The width assumed for a value of variable size (string, binary, list without a sample).
_VARIABLE_WIDTH_ESTIMATE = 128
# Rows sampled from a dataset to measure its variable-length lists.
_SAMPLE_ROWS = 10


@dataclass
class Scannable:
    schema: pa.Schema
    num_rows: Optional[int]
    reader: Callable[[], pa.RecordBatchReader]  # a new reader per call, if rescannable
    rescannable: bool = True


# ---------------------------------------------------------------------------------------------
# Row width and bounded dataset scans


def _observed_list_length(sample: Any) -> Optional[int]:
    """The mean number of values per row of a list sample (at least 1); None when the
    sample is empty or all null."""
    if sample is None or len(sample) == 0:
        return None
    mean = pc.mean(pc.list_value_length(sample)).as_py()
    return None if mean is None else max(1, round(mean))


def _estimate_field_width(dtype: pa.DataType, sample: Optional[Any] = None) -> int:
    """Estimated bytes of one value of `dtype` (`sample`: values of it, for list lengths)."""
    if pa.types.is_fixed_size_list(dtype):
        return dtype.list_size * _estimate_field_width(dtype.value_type)
    if pa.types.is_struct(dtype):
        return sum(
            _estimate_field_width(
                dtype.field(i).type, None if sample is None else pc.struct_field(sample, [i])
            )
            for i in range(dtype.num_fields)
        )
    if pa.types.is_dictionary(dtype):
        return _estimate_field_width(dtype.value_type)
    if pa.types.is_fixed_size_binary(dtype):
        return dtype.byte_width
    if pa.types.is_boolean(dtype):
        return 1
    if pa.types.is_list(dtype) or pa.types.is_large_list(dtype):
        length = _observed_list_length(sample)
        if length is not None:
            return length * _estimate_field_width(dtype.value_type)
    try:  # fixed-width scalars have a bit width; variable-width types raise
        return max(1, dtype.bit_width // 8)
    except (ValueError, AttributeError):
        return _VARIABLE_WIDTH_ESTIMATE


def _estimate_bytes_per_row(schema: pa.Schema, sample: Optional[pa.Table] = None) -> int:
    """Estimated bytes of one row of `schema` (at least 1), refined by a sample table."""
    return max(
        1,
        sum(
            _estimate_field_width(
                f.type,
                sample.column(f.name)
                if sample is not None and f.name in sample.column_names
                else None,
            )
            for f in schema
        ),
    )


def _sample_head(head: Callable[..., pa.Table]) -> Optional[pa.Table]:
    """A few rows from a dataset's ``head`` (read with small batches and no read-ahead), or
    None when there are none or they cannot be read."""
    try:
        sample = head(
            _SAMPLE_ROWS, batch_size=_SAMPLE_ROWS, batch_readahead=1, fragment_readahead=1
        )
    except Exception:  # best effort: the scan then goes by the schema alone
        return None
    return sample if sample.num_rows > 0 else None


def _bounded_scanner_kwargs(schema: pa.Schema, sample: Optional[pa.Table] = None) -> dict:
    """Scanner options that keep a scan of `schema` near the memory budget: {} (pyarrow's
    defaults) when they already do, else a smaller batch size and read-ahead."""
    bytes_per_row = _estimate_bytes_per_row(schema, sample)
    in_flight = (
        _PA_DEFAULT_BATCH_ROWS
        * bytes_per_row
        * (_PA_DEFAULT_BATCH_READAHEAD + _PA_DEFAULT_FRAGMENT_READAHEAD)
    )
    if in_flight <= _SCAN_MEMORY_BUDGET_BYTES:
        return {}
    rows = max(_MIN_BATCH_ROWS, _TARGET_BATCH_BYTES // bytes_per_row)
    batch_size = min(_PA_DEFAULT_BATCH_ROWS, rows)
    return {
        "batch_size": batch_size,
        "batch_readahead": _WIDE_BATCH_READAHEAD,
        "fragment_readahead": _WIDE_FRAGMENT_READAHEAD,
    }


def _of_dataset(data: Any) -> Scannable:
    """A pyarrow or Lance dataset: rescannable, each reader a new bounded scan."""
    kwargs = _bounded_scanner_kwargs(data.schema, _sample_head(data.head))
    return Scannable(
        schema=data.schema,
        num_rows=data.count_rows(),
        reader=lambda: data.scanner(**kwargs).to_reader(),
    )


# ---------------------------------------------------------------------------------------------
# to_arrow


def _module_of(obj: Any) -> str:
    return type(obj).__module__.split(".")[0]


@singledispatch
def to_arrow(data: Any) -> pa.Table:
    """One data object as a pyarrow Table."""
    if _module_of(data) == "pandas" and type(data).__name__ == "DataFrame":
        return pa.Table.from_pandas(data, preserve_index=False).replace_schema_metadata(None)
    if _module_of(data) == "polars" and type(data).__name__ == "DataFrame":
        return data.to_arrow()
    raise NotImplementedError(f"to_arrow not implemented for type {type(data)}")


@to_arrow.register(pa.Table)
def _arrow_of_table(data: pa.Table) -> pa.Table:
    return data


@to_arrow.register(pa.RecordBatch)
def _arrow_of_batch(data: pa.RecordBatch) -> pa.Table:
    return pa.Table.from_batches([data])


@to_arrow.register(list)
def _arrow_of_list(data: list) -> pa.Table:
    if not data:
        raise ValueError("Cannot create table from empty list without a schema")
    if isinstance(data[0], LanceModel):
        from .pydantic import model_to_dict

        schema = type(data[0]).to_arrow_schema()
        return pa.Table.from_pylist([model_to_dict(m) for m in data], schema=schema)
    return pa.Table.from_pylist(data)


# ---------------------------------------------------------------------------------------------
# to_scannable


def _of_table(table: pa.Table) -> Scannable:
    return Scannable(schema=table.schema, num_rows=table.num_rows, reader=table.to_reader)


@singledispatch
def to_scannable(data: Any) -> Scannable:
    """`data` as a Scannable (ValueError for a single dict or LanceModel: pass a list)."""
    module, kind = _module_of(data), type(data).__name__
    if module in ("pandas", "polars") and kind == "DataFrame":
        return _of_table(to_arrow(data))
    if module == "polars" and kind == "LazyFrame":
        return _of_table(data.collect().to_arrow())
    if module == "lance" and kind == "LanceDataset":
        return _of_dataset(data)
    if hasattr(data, "__iter__"):
        return _of_iterator(iter(data))
    raise NotImplementedError(f"to_scannable not implemented for type {type(data)}")


@to_scannable.register(pa.RecordBatchReader)
def _scannable_of_reader(data: pa.RecordBatchReader) -> Scannable:
    return Scannable(data.schema, None, lambda: data, rescannable=False)


@to_scannable.register(pa.RecordBatch)
def _scannable_of_batch(data: pa.RecordBatch) -> Scannable:
    return Scannable(
        data.schema, data.num_rows, lambda: pa.RecordBatchReader.from_batches(data.schema, [data])
    )


@to_scannable.register(pa.Table)
def _scannable_of_table(data: pa.Table) -> Scannable:
    return _of_table(data)


@to_scannable.register(ds.Dataset)
def _scannable_of_dataset(data: ds.Dataset) -> Scannable:
    return _of_dataset(data)


@to_scannable.register(ds.Scanner)
def _scannable_of_scanner(data: ds.Scanner) -> Scannable:
    return Scannable(data.projected_schema, None, data.to_reader, rescannable=False)


@to_scannable.register(list)
def _scannable_of_list(data: list) -> Scannable:
    return _of_table(to_arrow(data))


@to_scannable.register(dict)
def _scannable_of_dict(data: dict) -> Scannable:
    raise ValueError(
        "Cannot create or add rows from a single dictionary. Use a list of dictionaries "
        "instead."
    )


@to_scannable.register(LanceModel)
def _scannable_of_model(data: LanceModel) -> Scannable:
    raise ValueError("Cannot add a single LanceModel to a table. Use a list.")


def _of_iterator(items: Iterator[Any]) -> Scannable:
    first = next(items, None)
    if first is None:
        raise ValueError("Cannot create table from empty iterator")
    head = to_arrow(first)
    schema = head.schema

    def batches() -> Iterator[pa.RecordBatch]:
        yield from head.to_batches()
        for item in items:
            table = to_arrow(item)
            if table.schema != schema:
                try:
                    table = table.cast(schema)
                except pa.lib.ArrowInvalid:
                    raise ValueError(
                        "Input iterator yielded a batch with schema that does not match the "
                        f"schema of other batches.\nExpected:\n{schema}\nGot:\n{table.schema}"
                    ) from None
            yield from table.to_batches()

    reader = pa.RecordBatchReader.from_batches(schema, batches())
    return Scannable(schema, None, lambda: reader, rescannable=False)
