# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``lancedb.integrations.pyarrow``: a table seen as a ``pyarrow.dataset.Dataset``, so that
tools that read PyArrow datasets (DuckDB, Polars, Acero) read it: ``PyarrowDatasetAdapter``
and the ``PyarrowScannerAdapter`` its ``scanner()`` returns.

Filters are SQL strings (run by the engine, with its indices) or ``pyarrow.compute``
expressions, which DuckDB pushes down; the latter are applied by PyArrow to the rows the engine
reads. ``batch_readahead`` and ``fragment_readahead`` tune PyArrow's own prefetching and have no
counterpart here, as in LanceDB they are accepted and have no effect; the options that would
change the result or where memory comes from (``fragment_scan_options``, ``memory_pool``,
``use_threads=False``) raise NotImplementedError."""

from typing import Any, Iterator, List, Optional, Tuple, Union

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

Filter = Union[str, pc.Expression]


def _sync(table: Any) -> Any:
    inner = getattr(table, "_table", None)  # an AsyncTable wraps the synchronous table
    return inner if inner is not None and hasattr(inner, "search") else table


class PyarrowScannerAdapter(ds.Scanner):
    """One scan of a table: `columns` (all when None), rows matching `filter`, batches of at
    most `batch_size` rows."""

    def __init__(
        self,
        table: Any,
        columns: Optional[List[str]] = None,
        filter: Optional[Filter] = None,
        batch_size: Optional[int] = None,
        batch_readahead: Optional[int] = None,
        fragment_readahead: Optional[int] = None,
        fragment_scan_options: Optional[Any] = None,
        use_threads: bool = True,
        memory_pool: Optional[Any] = None,
    ):
        if fragment_scan_options is not None:
            raise NotImplementedError("fragment_scan_options not supported")
        if use_threads is False:
            raise NotImplementedError("use_threads=False not supported")
        if memory_pool is not None:
            raise NotImplementedError("memory_pool not supported")
        if filter is not None and not isinstance(filter, (str, pc.Expression)):
            raise TypeError(f"filter must be a SQL string or a pyarrow.compute.Expression, "
                            f"not {type(filter).__name__}")
        if batch_size is not None and batch_size <= 0:
            raise ValueError("batch_size must be positive")
        self.table = _sync(table)
        self.columns = list(columns) if columns is not None else None
        self.filter = filter
        self.batch_size = batch_size

    # The rows, as a stream of batches.
    def _engine_batches(self, limit: Optional[int]) -> Iterator[pa.RecordBatch]:
        query = self.table.search()
        sql = self.filter if isinstance(self.filter, str) else None
        if sql is not None:
            query = query.where(sql, prefilter=True)
        if self.columns is not None and not isinstance(self.filter, pc.Expression):
            query = query.select(self.columns)
        pushed_limit = limit if not isinstance(self.filter, pc.Expression) else None
        rows = pushed_limit if pushed_limit is not None else self.table.count_rows(sql)
        if rows == 0:
            return iter(())
        query = query.limit(rows)
        return iter(query.to_batches(batch_size=self.batch_size))

    def _schema(self) -> pa.Schema:
        schema = self.table.schema
        if self.columns is None:
            return schema
        return pa.schema([schema.field(c) for c in self.columns], metadata=schema.metadata)

    def _batches(self, limit: Optional[int] = None) -> Iterator[pa.RecordBatch]:
        schema = self._schema()
        left = limit
        for batch in self._engine_batches(limit):
            if isinstance(self.filter, pc.Expression):
                kept = ds.dataset(pa.Table.from_batches([batch])).to_table(
                    columns=self.columns, filter=self.filter)
                parts = kept.to_batches()
            else:
                parts = [batch]
            for part in parts:
                if left is not None:
                    if left <= 0:
                        return
                    part = part.slice(0, left)
                    left -= part.num_rows
                if part.num_rows:
                    yield pa.RecordBatch.from_arrays(part.columns, schema=schema)

    def to_reader(self, *, limit: Optional[int] = None) -> pa.RecordBatchReader:
        if limit is not None and limit <= 0:
            raise ValueError("limit must be positive")
        return pa.RecordBatchReader.from_batches(self._schema(), self._batches(limit))

    @property
    def projected_schema(self) -> pa.Schema:
        return self._schema()

    def count_rows(self) -> int:
        if isinstance(self.filter, pc.Expression):
            return sum(b.num_rows for b in self._batches())
        return self.table.count_rows(self.filter)

    def head(self, num_rows: int) -> pa.Table:
        return self.to_reader(limit=num_rows).read_all()

    def to_table(self) -> pa.Table:
        return self.to_reader().read_all()

    def to_batches(self) -> pa.RecordBatchReader:
        return self.to_reader()

    def scan_batches(self) -> pa.RecordBatchReader:
        return self.to_reader()

    def take(self, indices: List[int]) -> pa.Table:
        return self.to_table().take(indices)

    def from_batches(self, **kwargs):
        raise NotImplementedError("PyarrowScannerAdapter scans a table; use pyarrow's Scanner")

    def from_dataset(self, **kwargs):
        raise NotImplementedError("PyarrowScannerAdapter scans a table; use pyarrow's Scanner")

    def from_fragment(self, **kwargs):
        raise NotImplementedError("PyarrowScannerAdapter scans a table; use pyarrow's Scanner")


class PyarrowDatasetAdapter(ds.Dataset):
    """A table (sync or async) as a ``pyarrow.dataset.Dataset`` over its current version."""

    def __init__(self, table: Any):
        self.table = _sync(table)

    @property
    def schema(self) -> pa.Schema:
        return self.table.schema

    def scanner(self, columns: Optional[List[str]] = None, filter: Optional[Filter] = None,
                batch_size: Optional[int] = None, batch_readahead: Optional[int] = None,
                fragment_readahead: Optional[int] = None,
                fragment_scan_options: Optional[Any] = None, use_threads: bool = True,
                memory_pool: Optional[Any] = None) -> PyarrowScannerAdapter:
        return PyarrowScannerAdapter(self.table, columns, filter, batch_size, batch_readahead,
                                     fragment_readahead, fragment_scan_options, use_threads,
                                     memory_pool)

    def count_rows(self, filter: Optional[Filter] = None) -> int:
        return self.scanner(filter=filter).count_rows()

    def head(self, num_rows: int, columns: Optional[List[str]] = None,
             filter: Optional[Filter] = None, **kwargs) -> pa.Table:
        return self.scanner(columns=columns, filter=filter, **kwargs).head(num_rows)

    def to_table(self, columns: Optional[List[str]] = None, filter: Optional[Filter] = None,
                 **kwargs) -> pa.Table:
        return self.scanner(columns=columns, filter=filter, **kwargs).to_table()

    def to_batches(self, columns: Optional[List[str]] = None, filter: Optional[Filter] = None,
                   **kwargs) -> pa.RecordBatchReader:
        return self.scanner(columns=columns, filter=filter, **kwargs).to_batches()

    def take(self, indices: List[int], columns: Optional[List[str]] = None,
             filter: Optional[Filter] = None, **kwargs) -> pa.Table:
        return self.scanner(columns=columns, filter=filter, **kwargs).take(indices)

    def sort_by(self, sorting: Union[str, List[Tuple[str, str]]]) -> ds.Dataset:
        return ds.dataset(self.to_table().sort_by(sorting))

    def get_fragments(self, filter: Optional[Filter] = None):
        raise NotImplementedError("a table's fragments are not PyArrow fragments")

    def join(self, *args, **kwargs):
        return ds.dataset(self.to_table()).join(*args, **kwargs)

    def join_asof(self, *args, **kwargs):
        return ds.dataset(self.to_table()).join_asof(*args, **kwargs)

    @property
    def partition_expression(self):
        raise NotImplementedError("a table has no partition expression")

    def replace_schema(self, schema: pa.Schema):
        raise NotImplementedError("replace_schema: change a table's schema with alter_columns")
