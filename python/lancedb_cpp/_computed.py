# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Computed columns (``add_columns(computed=...)``, ``refresh_column``) and the operations
that run as jobs (``refresh_column_async``, ``create_index_async``, ``drop_table_async``).

The engine (C++ ``Table::AddComputedColumns`` / ``Table::RefreshColumn``) stores each
expression in its column's field metadata and fills the unfilled (NULL) rows on refresh; this
module checks the Python arguments, raises what LanceDB raises, and starts the jobs.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, List, Optional

from . import _native
from ._not_yet import check_no_lsm_write_spec
from .functions import RefreshColumnResult as RefreshColumnJobResult
from .job import AsyncJob, _start

if TYPE_CHECKING:
    from .table import Table

__all__ = ["RefreshColumnResult"]


@dataclass(frozen=True, repr=False)
class RefreshColumnResult:
    """What ``refresh_column`` did: `rows_filled` rows given a value, and `version`, the
    table's version after it (the version it read when no row needed a value). Shown as
    LanceDB shows it (those two fields); it also carries the refresh job's counts:
    `rows_failed` (rows whose expression failed, left unfilled), `rows_remaining` (rows a later
    refresh evaluates again), `source_version` (the version read) and `published_version` (None
    when nothing was committed)."""

    rows_filled: int
    version: int
    rows_failed: int = 0
    rows_remaining: int = 0
    source_version: Optional[int] = None
    published_version: Optional[int] = None

    @property
    def rows_assigned(self) -> int:
        """The job result's name of `rows_filled`."""
        return self.rows_filled

    def __repr__(self) -> str:
        return f"RefreshColumnResult(rows_filled={self.rows_filled}, version={self.version})"


class _NoConnection:
    """Holds the jobs of tables opened without a connection."""


_NO_CONNECTION = _NoConnection()


def _as_runtime_error(error: ValueError) -> RuntimeError:
    """LanceDB raises RuntimeError for a refresh or declaration its engine rejects (an unknown
    or non-computed column, a bad expression, a name in use)."""
    return RuntimeError(str(error))


def add_computed_columns(table: "Table", transforms: Any, computed: Any) -> Any:
    """See ``Table.add_columns(computed=...)``."""
    from ._evolution import AddColumnsResult

    if transforms:
        raise ValueError("add_columns cannot take both transforms and computed columns")
    if not isinstance(computed, dict):
        raise TypeError(
            f"computed must be a dict of column name to SQL expression, not "
            f"{type(computed).__name__}"
        )
    columns = []
    for name, sql in computed.items():
        if hasattr(sql, "to_sql"):
            sql = sql.to_sql()
        if not isinstance(name, str) or not isinstance(sql, str):
            raise TypeError(
                f"computed maps column names (str) to SQL expressions (str); got {name!r}: {sql!r}"
            )
        columns.append((name, sql))
    table._check_writable()
    check_no_lsm_write_spec(
        table._inner,
        "computed columns are not supported on a table with an LSM write spec: rows in "
        "un-compacted tiers are invisible to refresh",
    )
    try:
        version = _native.add_computed_columns(table._inner, columns)
    except ValueError as error:
        raise _as_runtime_error(error) from None
    return AddColumnsResult(version=version)


def with_computed_columns(reader: Any, table_schema: Any) -> Any:
    """`reader` (a pa.RecordBatchReader) with an all-NULL column appended for each computed
    column of `table_schema` it lacks: rows written without their computed values are unfilled
    (the next refresh fills them)."""
    import pyarrow as pa

    names = set(reader.schema.names)
    missing = [
        f for f in table_schema
        if f.name not in names and (f.metadata or {}).get(b"computed_column") == b"true"
    ]  # fmt: skip
    if not missing:
        return reader
    schema = pa.schema(list(reader.schema) + missing, metadata=reader.schema.metadata)

    def batches():
        for batch in reader:
            nulls = [pa.nulls(batch.num_rows, f.type) for f in missing]
            yield pa.RecordBatch.from_arrays(list(batch.columns) + nulls, schema=schema)

    return pa.RecordBatchReader.from_batches(schema, batches())


def _check_computed(table: "Table", column: str) -> None:
    """RuntimeError unless `column` is a computed column of `table` (what the engine says)."""
    if not isinstance(column, str):
        raise TypeError(f"column must be a str, not {type(column).__name__}")
    schema = table.schema
    if schema.get_field_index(column) < 0:
        raise RuntimeError(f"Column '{column}' was not found")
    metadata = schema.field(column).metadata or {}
    if metadata.get(b"computed_column") != b"true":
        raise RuntimeError(f"Column '{column}' is not a computed column")


def _refresh(table: "Table", column: str, token: Any = None) -> RefreshColumnJobResult:
    try:
        assigned, failed, remaining, source, published = _native.refresh_column(
            table._inner, column, token
        )
    except ValueError as error:
        raise _as_runtime_error(error) from None
    return RefreshColumnJobResult(
        rows_assigned=assigned,
        rows_failed=failed,
        rows_remaining=remaining,
        source_version=source,
        published_version=published,
    )


def refresh_column(table: "Table", column: str) -> RefreshColumnResult:
    """See ``Table.refresh_column``."""
    _check_computed(table, column)
    table._check_writable()
    result = _refresh(table, column)
    version = result.published_version
    return RefreshColumnResult(
        rows_filled=result.rows_assigned,
        version=version if version is not None else result.source_version,
        rows_failed=result.rows_failed,
        rows_remaining=result.rows_remaining,
        source_version=result.source_version,
        published_version=version,
    )


def _connection(table: "Table") -> Any:
    conn = getattr(table, "_conn", None)
    return conn if conn is not None else _NO_CONNECTION


def refresh_column_async(table: "Table", column: str) -> AsyncJob[RefreshColumnJobResult]:
    """See ``Table.refresh_column_async``: invalid input raises here, the refresh runs as a
    job."""
    _check_computed(table, column)
    table._check_writable()
    token = _native.CancelToken()
    return _start(
        _connection(table),
        "refresh_column",
        table.name,
        {"table": table.name, "column": column},
        lambda: _refresh(table, column, token),
        cancel=token,
        to_data=lambda r: r.model_dump(),
    )


def create_index_async(table: "Table", column: str, options: Dict[str, Any]) -> AsyncJob[None]:
    """See ``Table.create_index_async``: an unknown column raises here, the build runs as a
    job (as ``AsyncTable.create_index``)."""
    from ._async import AsyncTable

    if table.schema.get_field_index(column) < 0:
        names = ", ".join(table.schema.names)
        raise ValueError(f"Column '{column}' not found; columns are: {names}")
    table._check_writable()

    def work() -> None:
        asyncio.run(AsyncTable(table).create_index(column, **options))

    spec = {"table": table.name, "column": column}
    if options.get("name") is not None:
        spec["name"] = options["name"]
    return _start(_connection(table), "create_index", table.name, spec, work)


def drop_table_async(conn: Any, name: str, namespace_path: Optional[List[str]]) -> AsyncJob[None]:
    """See ``DBConnection.drop_table_async``: a missing table raises here, the drop runs as a
    job."""
    from .db import _check_namespace

    _check_namespace(namespace_path)
    if name not in conn:
        raise ValueError(f"Table '{name}' was not found")
    return _start(
        conn, "drop_table", name, {"table": name}, lambda: conn.drop_table(name, namespace_path)
    )
