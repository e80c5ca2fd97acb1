# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Query builders, mirroring ``lancedb.query``: ``table.search()`` (a plain scan with filter,
projection, limit and offset) and ``table.take_offsets`` / ``table.take_row_ids``.

A builder is a value: each method records an option and returns the builder; ``to_arrow``,
``to_batches`` and friends run it. Results come back from the engine as an Arrow stream
imported zero-copy into pyarrow. Queries run to completion: a `timeout` other than None raises
NotImplementedError.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Union

import pyarrow as pa

from ._unsupported import reject_unsupported

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    import polars as pl

    from .table import Table


def _check_timeout(function: str, timeout: Optional[timedelta]) -> None:
    reject_unsupported(function, timeout=(timeout, None))


def _combine_where(old: Optional[str], new: str) -> str:
    if not isinstance(new, str):
        if hasattr(new, "to_sql"):
            new = new.to_sql()
        else:
            raise ValueError(f"where must be a SQL string, got {type(new).__name__}")
    return new if old is None else f"({old}) AND ({new})"


class LanceQueryBuilder:
    """Common options and outputs of every query."""

    def __init__(self, table: "Table"):
        self._table = table
        self._limit: Optional[int] = None
        self._offset: int = 0
        self._columns: Optional[Union[List[str], Dict[str, str]]] = None
        self._where: Optional[str] = None
        self._with_row_id: bool = False

    # Options --------------------------------------------------------------------------------

    def limit(self, limit: Optional[int]) -> "LanceQueryBuilder":
        """Return at most `limit` rows; None or 0 returns every row of a plain query."""
        if limit is None or limit <= 0:
            self._limit = None
        else:
            self._limit = int(limit)
        return self

    def offset(self, offset: Optional[int]) -> "LanceQueryBuilder":
        """Skip the first `offset` matching rows."""
        self._offset = 0 if offset is None or offset <= 0 else int(offset)
        return self

    def select(self, columns: Union[List[str], Dict[str, str]]) -> "LanceQueryBuilder":
        """Return these columns: a list of names, or a dict of alias to SQL expression."""
        if isinstance(columns, (list, tuple)):
            self._columns = list(columns)
        elif isinstance(columns, dict):
            self._columns = {
                k: (v.to_sql() if hasattr(v, "to_sql") else v) for k, v in columns.items()
            }
        else:
            raise ValueError("columns must be a list or a dictionary")
        return self

    def where(self, where: str, prefilter: bool = True) -> "LanceQueryBuilder":
        """Keep rows where the SQL predicate is true; repeated calls combine with AND.
        `prefilter` matters to vector queries only (as in LanceDB)."""
        self._where = _combine_where(self._where, where)
        return self

    def with_row_id(self, with_row_id: bool = True) -> "LanceQueryBuilder":
        """Append the ``_rowid`` column (uint64)."""
        self._with_row_id = bool(with_row_id)
        return self

    # Execution ------------------------------------------------------------------------------

    def _request(self, max_batch_length: Optional[int]) -> Dict[str, Any]:
        return {
            "filter": self._where,
            "columns": self._columns,
            "limit": self._limit,
            "offset": self._offset,
            "with_row_id": self._with_row_id,
            "max_batch_length": max_batch_length,
        }

    def to_batches(
        self, /, batch_size: Optional[int] = None, *, timeout: Optional[timedelta] = None
    ) -> pa.RecordBatchReader:
        """Run the query and stream the results as a pyarrow RecordBatchReader."""
        _check_timeout("to_batches", timeout)
        return self._table._execute(self._request(batch_size))

    def to_arrow(self, *, timeout: Optional[timedelta] = None) -> pa.Table:
        """Run the query and return the results as a pyarrow Table."""
        _check_timeout("to_arrow", timeout)
        return self.to_batches().read_all()

    def to_list(self, *, timeout: Optional[timedelta] = None) -> List[dict]:
        """Run the query and return a list of dicts, one per row."""
        _check_timeout("to_list", timeout)
        return self.to_arrow().to_pylist()

    def to_pandas(
        self, flatten: Optional[Union[int, bool]] = None, *, timeout: Optional[timedelta] = None
    ) -> "pd.DataFrame":
        """Run the query and return a pandas DataFrame; `flatten` flattens struct columns
        (True: all levels, n: n levels)."""
        _check_timeout("to_pandas", timeout)
        table = self.to_arrow()
        if flatten is True:
            while any(pa.types.is_struct(f.type) for f in table.schema):
                table = table.flatten()
        elif isinstance(flatten, int) and flatten > 0:
            for _ in range(flatten):
                table = table.flatten()
        return table.to_pandas()

    def to_df(self) -> "pd.DataFrame":
        """Deprecated alias of to_pandas()."""
        return self.to_pandas()

    def to_polars(self, *, timeout: Optional[timedelta] = None) -> "pl.DataFrame":
        """Run the query and return a polars DataFrame (requires polars)."""
        _check_timeout("to_polars", timeout)
        import polars as pl

        return pl.from_arrow(self.to_arrow())

    def output_schema(self) -> pa.Schema:
        """The schema the query returns, without running it."""
        return self._table._output_schema(self._request(None))

    def to_pydantic(self, model: type) -> list:
        """Run the query and build one `model` per row."""
        return [model(**row) for row in self.to_list()]

    def explain_plan(self, verbose: Optional[bool] = False) -> str:
        """The plan of the query as text, as LanceDB prints it: the reads, the scalar index
        lookups (``ScalarIndexQuery: query=[id = 5]@id_idx(BTree)``) and the filter left to
        evaluate (``refine_filter``); `verbose` adds the projection."""
        return self._table._explain(self._request(None), bool(verbose))

    def analyze_plan(self, distributed_metrics: str = "aggregate") -> str:
        """Run the query and return its plan with what each step did: rows the index lookups
        returned, fragments scanned, output rows and times. `distributed_metrics` concerns
        remote tables; locally only "aggregate" exists."""
        if distributed_metrics != "aggregate":
            raise NotImplementedError(
                f"analyze_plan(distributed_metrics={distributed_metrics!r}) applies to remote "
                "tables; local tables report 'aggregate' metrics only"
            )
        return self._table._analyze(self._request(None))


class LanceEmptyQueryBuilder(LanceQueryBuilder):
    """``table.search()`` without a query vector or text: a filtered, projected scan."""


class LanceTakeQueryBuilder(LanceQueryBuilder):
    """Rows by offset (``take_offsets``) or by row id (``take_row_ids``), in the order given."""

    def __init__(self, table: "Table", *, offsets=None, row_ids=None):
        super().__init__(table)
        self._offsets = None if offsets is None else [int(o) for o in offsets]
        self._row_ids = None if row_ids is None else [int(r) for r in row_ids]

    def _request(self, max_batch_length: Optional[int]) -> Dict[str, Any]:
        request = super()._request(max_batch_length)
        request["take_offsets"] = self._offsets
        request["take_row_ids"] = self._row_ids
        return request
