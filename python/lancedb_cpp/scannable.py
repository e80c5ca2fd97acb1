# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Input data as a re-readable source (``lancedb.scannable``).

``to_scannable(data)`` describes any data ``Table.add`` takes as a ``Scannable``: its schema,
its row count when known, and a factory of RecordBatchReaders. ``rescannable`` is False for
one-shot sources (a RecordBatchReader, a dataset Scanner, an iterator), whose factory must be
called once. ``to_arrow(data)`` converts one object (batch, table, list of rows or of
LanceModels, pandas or polars DataFrame) to a pyarrow Table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator, Optional

import pyarrow as pa
import pyarrow.dataset as ds

from .pydantic import LanceModel

__all__ = ["LanceModel", "Scannable", "to_arrow", "to_scannable"]


@dataclass
class Scannable:
    schema: pa.Schema
    num_rows: Optional[int]
    reader: Callable[[], pa.RecordBatchReader]  # a new reader per call, if rescannable
    rescannable: bool = True


def _module_of(obj: Any) -> str:
    return type(obj).__module__.split(".")[0]


def to_arrow(data: Any) -> pa.Table:
    """One data object as a pyarrow Table."""
    if isinstance(data, pa.Table):
        return data
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data])
    if isinstance(data, list):
        if not data:
            raise ValueError("Cannot create table from empty list without a schema")
        if isinstance(data[0], LanceModel):
            from .pydantic import model_to_dict

            schema = type(data[0]).to_arrow_schema()
            return pa.Table.from_pylist([model_to_dict(m) for m in data], schema=schema)
        return pa.Table.from_pylist(data)
    if _module_of(data) == "pandas" and type(data).__name__ == "DataFrame":
        return pa.Table.from_pandas(data, preserve_index=False).replace_schema_metadata(None)
    if _module_of(data) == "polars" and type(data).__name__ == "DataFrame":
        return data.to_arrow()
    raise NotImplementedError(f"to_arrow not implemented for type {type(data)}")


def _of_table(table: pa.Table) -> Scannable:
    return Scannable(schema=table.schema, num_rows=table.num_rows, reader=table.to_reader)


def to_scannable(data: Any) -> Scannable:
    """`data` as a Scannable (ValueError for a single dict or LanceModel: pass a list)."""
    if isinstance(data, pa.RecordBatchReader):
        return Scannable(data.schema, None, lambda: data, rescannable=False)
    if isinstance(data, pa.RecordBatch):
        return Scannable(
            data.schema,
            data.num_rows,
            lambda: pa.RecordBatchReader.from_batches(data.schema, [data]),
        )
    if isinstance(data, pa.Table):
        return _of_table(data)
    if isinstance(data, ds.Dataset):
        return Scannable(data.schema, data.count_rows(), lambda: data.scanner().to_reader())
    if isinstance(data, ds.Scanner):
        return Scannable(data.projected_schema, None, data.to_reader, rescannable=False)
    if isinstance(data, dict):
        raise ValueError(
            "Cannot create or add rows from a single dictionary. Use a list of dictionaries "
            "instead."
        )
    if isinstance(data, LanceModel):
        raise ValueError("Cannot add a single LanceModel to a table. Use a list.")
    if isinstance(data, list):
        return _of_table(to_arrow(data))
    module, kind = _module_of(data), type(data).__name__
    if module in ("pandas", "polars") and kind == "DataFrame":
        return _of_table(to_arrow(data))
    if module == "polars" and kind == "LazyFrame":
        return _of_table(data.collect().to_arrow())
    if module == "lance" and kind == "LanceDataset":
        return Scannable(data.schema, data.count_rows(), lambda: data.scanner().to_reader())
    if hasattr(data, "__iter__"):
        return _of_iterator(iter(data))
    raise NotImplementedError(f"to_scannable not implemented for type {type(data)}")


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
                    )
            yield from table.to_batches()

    reader = pa.RecordBatchReader.from_batches(schema, batches())
    return Scannable(schema, None, lambda: reader, rescannable=False)
