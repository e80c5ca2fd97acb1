# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""LanceDB's async API (``connect_async``, ``AsyncConnection``, ``AsyncTable``) over the sync
one: every call runs the sync ``DBConnection`` / ``Table`` method on a worker thread
(``asyncio.to_thread``). The engine releases the GIL while it works, so awaited calls run in
parallel and never block the event loop. Query builders are in _async_query.py.

Features the sync API lacks raise NotImplementedError, as there.
"""

from __future__ import annotations

import asyncio
import os
from datetime import timedelta
from typing import Any, Dict, Iterable, List, Optional, Union

import pyarrow as pa

from ._async_query import (  # noqa: F401 - re-exported
    AsyncFTSQuery,
    AsyncHybridQuery,
    AsyncQuery,
    AsyncQueryBase,
    AsyncRecordBatchReader,
    AsyncTakeQuery,
    AsyncVectorQuery,
    wrap_sync_query,
)
from . import _not_yet as nyi
from ._not_yet import not_yet
from ._unsupported import reject_unsupported
from ._vector import LanceVectorQueryBuilder
from .db import DBConnection, ListTablesResponse
from .table import Table

_to_thread = asyncio.to_thread


def _not_supported(what: str) -> NotImplementedError:
    return NotImplementedError(f"{what} is not supported by lancedb_cpp")


async def connect_async(
    uri: Union[str, "os.PathLike[str]"],
    *,
    api_key: Optional[str] = None,
    region: str = "us-east-1",
    host_override: Optional[str] = None,
    sql_host_override: Optional[str] = None,
    read_consistency_interval: Optional[timedelta] = None,
    client_config: Any = None,
    storage_options: Optional[Dict[str, str]] = None,
    session: Any = None,
    manifest_enabled: bool = False,
    namespace_client_properties: Optional[Dict[str, str]] = None,
    oauth_config: Any = None,
) -> "AsyncConnection":
    """Connect to a LanceDB database, as ``connect`` does, for use with ``await``.

    Takes the parameters of ``lancedb.connect_async``; those ``connect`` does not support
    (sessions, namespaces; OAuth for local databases) raise NotImplementedError unless left at
    their defaults. ``db://`` URIs are remote databases (``oauth_config`` too: docs/remote.md).
    """
    from . import connect

    if oauth_config is not None and os.fspath(uri).startswith("db://"):  # remote/oauth.py
        from .remote.db import connect_remote

        conn = await _to_thread(connect_remote, os.fspath(uri), api_key, region, host_override,
                                sql_host_override, read_consistency_interval, None,
                                client_config, storage_options, oauth_config=oauth_config)
        return conn._async_class(conn)
    reject_unsupported("connect_async", oauth_config=(oauth_config, None))
    conn = await _to_thread(
        connect,
        uri,
        api_key=api_key,
        region=region,
        host_override=host_override,
        sql_host_override=sql_host_override,
        read_consistency_interval=read_consistency_interval,
        client_config=client_config,
        storage_options=storage_options,
        session=session,
        manifest_enabled=manifest_enabled,
        namespace_client_properties=namespace_client_properties,
    )
    # A remote connection has an async class of its own (lancedb_cpp/remote/db.py).
    return getattr(conn, "_async_class", AsyncConnection)(conn)


class _Closable:
    """An async handle over a sync object: a context manager whose ``close()`` makes later
    calls raise RuntimeError."""

    _open = True
    _kind = "Handle"

    def __enter__(self):
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    def is_open(self) -> bool:
        """False once ``close()`` was called."""
        return self._open

    def close(self) -> None:
        """Close the handle; later calls raise RuntimeError."""
        self._open = False

    def _checked(self, inner: Any) -> Any:
        if not self._open:
            if self._kind == "Table":  # LanceDB's words
                raise RuntimeError(f"Table {self._inner.name} is closed")
            raise RuntimeError(f"{self._kind} is closed")
        return inner


def _infer_vector_column(table: Any, query: Any) -> str:
    """The vector column a vector search of `query` without a column name uses."""
    from .util import infer_vector_column_name

    return infer_vector_column_name(table.schema, "vector", query, None)


def _text_is_hybrid(table: Table, vector_column: Optional[str]) -> bool:
    """Whether LanceDB's async ``search("text")`` would be hybrid on `table`: the (named, or
    the only) embedding function's source column has an FTS index."""
    funcs = table.embedding_functions
    if vector_column is not None:
        conf = funcs.get(vector_column)
    elif len(funcs) == 1:
        conf = next(iter(funcs.values()))
    else:
        return False
    if conf is None:
        return False
    return any(
        idx.index_type == "FTS" and list(idx.columns) == [conf.source_column]
        for idx in table.list_indices()
    )


def _interval_text(interval: Any) -> str:
    """A read-consistency interval as LanceDB's reprs print it: None, or seconds ('5s',
    '0.5s')."""
    if interval is None:
        return "None"
    secs = interval.total_seconds() if hasattr(interval, "total_seconds") else float(interval)
    text = repr(float(secs))
    return (text[:-2] if text.endswith(".0") else text) + "s"


class AsyncConnection(_Closable):
    """An open database, for use with ``await``; obtain one from ``connect_async``."""

    def __init__(self, connection: DBConnection):
        self._inner = connection
        self._open = True

    @property
    def uri(self) -> str:
        """The database location as given to ``connect_async``."""
        return self._inner.uri

    def __repr__(self) -> str:
        # LanceDB's: the database's own description while open.
        if not self._open:
            return "ClosedConnection"
        rci = _interval_text(self._inner.read_consistency_interval)
        return f"ListingDatabase(uri={self._inner.uri}, read_consistency_interval={rci})"

    _kind = "Connection"

    def _conn(self) -> DBConnection:
        return self._checked(self._inner)

    async def get_read_consistency_interval(self) -> Optional[timedelta]:
        """How often tables check for other writers' versions (None: never)."""
        return self._conn().read_consistency_interval

    # Namespaces -------------------------------------------------------------------------------

    async def list_namespaces(self, namespace_path: Optional[List[str]] = None,
                              page_token: Optional[str] = None, limit: Optional[int] = None):
        """See the sync method of the same name."""
        return await _to_thread(self._conn().list_namespaces, namespace_path, page_token, limit)

    async def create_namespace(self, namespace_path: List[str], mode: Optional[str] = None,
                               properties: Optional[Dict[str, str]] = None):
        """See the sync method of the same name."""
        return await _to_thread(self._conn().create_namespace, namespace_path, mode, properties)

    async def drop_namespace(self, namespace_path: List[str], mode: Optional[str] = None,
                             behavior: Optional[str] = None):
        """See the sync method of the same name."""
        return await _to_thread(self._conn().drop_namespace, namespace_path, mode, behavior)

    async def describe_namespace(self, namespace_path: List[str]):
        """See the sync method of the same name."""
        return await _to_thread(self._conn().describe_namespace, namespace_path)

    async def namespace_client(self):
        """See the sync method of the same name."""
        return await _to_thread(self._conn().namespace_client)

    # Tables -----------------------------------------------------------------------------------

    async def list_tables(
        self,
        namespace_path: Optional[List[str]] = None,
        page_token: Optional[str] = None,
        limit: Optional[int] = None,
    ) -> ListTablesResponse:
        """One page of sorted table names, with the token of the next page."""
        return await _to_thread(self._conn().list_tables, namespace_path, page_token, limit)

    async def table_names(
        self,
        *,
        namespace_path: Optional[List[str]] = None,
        start_after: Optional[str] = None,
        limit: Optional[int] = None,
    ) -> Iterable[str]:
        """Sorted table names (of namespace `namespace_path`) after `start_after`, at most
        `limit` (None: all)."""
        conn = self._conn()
        if limit is not None and limit <= 0:
            return []
        page = await _to_thread(conn.list_tables, namespace_path, start_after, limit)
        return page.tables

    async def create_table(
        self,
        name: str,
        data: Any = None,
        schema: Any = None,
        mode: Optional[str] = None,
        exist_ok: Optional[bool] = None,
        on_bad_vectors: Optional[str] = None,
        fill_value: Optional[float] = None,
        storage_options: Optional[Dict[str, str]] = None,
        *,
        namespace_path: Optional[List[str]] = None,
        embedding_functions: Any = None,
        location: Optional[str] = None,
        namespace_client: Any = None,
    ) -> "AsyncTable":
        """Create a table from `data` and/or `schema` (see ``DBConnection.create_table``)."""
        reject_unsupported(
            "create_table",
            location=(location, None),
            namespace_client=(namespace_client, None),
        )
        conn = self._conn()
        table = await _to_thread(
            conn.create_table,
            name,
            data,
            schema,
            mode="create" if mode is None else mode,
            exist_ok=bool(exist_ok),
            on_bad_vectors="error" if on_bad_vectors is None else on_bad_vectors,
            fill_value=0.0 if fill_value is None else fill_value,
            embedding_functions=embedding_functions,
            namespace_path=namespace_path,
            storage_options=storage_options,
        )
        return AsyncTable(table)

    async def open_table(
        self,
        name: str,
        *,
        namespace_path: Optional[List[str]] = None,
        storage_options: Optional[Dict[str, str]] = None,
        index_cache_size: Optional[int] = None,
        location: Optional[str] = None,
        namespace_client: Any = None,
        managed_versioning: Optional[bool] = None,
        branch: Optional[str] = None,
        version: Optional[int] = None,
    ) -> "AsyncTable":
        """Open a table (ValueError when it does not exist)."""
        reject_unsupported(
            "open_table",
            location=(location, None),
            namespace_client=(namespace_client, None),
            managed_versioning=(managed_versioning, None),
        )
        conn = self._conn()
        table = await _to_thread(
            conn.open_table,
            name,
            namespace_path=namespace_path,
            storage_options=storage_options,
            index_cache_size=index_cache_size,
            branch=branch,
            version=version,
        )
        return AsyncTable(table)

    async def clone_table(self, target_table_name: str, source_uri: str, *,
                          target_namespace_path: Optional[List[str]] = None,
                          source_version: Optional[int] = None,
                          source_tag: Optional[str] = None,
                          is_shallow: bool = True) -> "AsyncTable":
        """Clone the Lance dataset at `source_uri` as table `target_table_name` (see the sync
        method of the same name)."""
        table = await _to_thread(
            self._conn().clone_table,
            target_table_name,
            source_uri,
            target_namespace_path=target_namespace_path,
            source_version=source_version,
            source_tag=source_tag,
            is_shallow=is_shallow,
        )
        return AsyncTable(table)

    async def rename_table(self, cur_name: str, new_name: str,
                           cur_namespace_path: Optional[List[str]] = None,
                           new_namespace_path: Optional[List[str]] = None):
        raise NotImplementedError("rename_table is not supported in LanceDB OSS")

    async def drop_table(self, name: str, *, namespace_path: Optional[List[str]] = None,
                         ignore_missing: bool = False) -> None:
        """Delete a table and all its versions (ValueError when missing, unless
        `ignore_missing`)."""
        await _to_thread(self._conn().drop_table, name, namespace_path, ignore_missing)

    async def drop_all_tables(self, namespace_path: Optional[List[str]] = None) -> None:
        """Delete every table."""
        await _to_thread(self._conn().drop_all_tables, namespace_path)

    async def drop_database(self) -> None:
        """Deprecated alias of drop_all_tables()."""
        await self.drop_all_tables()

    # Cloud-only features (not supported) ------------------------------------------------------

    async def drop_table_async(self, name: str, *, namespace_path: Optional[List[str]] = None):
        """Start dropping table `name`; an AsyncJob (see the sync method of the same name)."""
        from . import _computed

        return _computed.drop_table_async(self._conn(), name, namespace_path)

    async def create_materialized_view(self, name: str, source: str, *, select: Any = None,
                                       where: Optional[str] = None,
                                       limit: Optional[int] = None):
        """See the sync method of the same name."""
        from .materialized_view import AsyncMaterializedView

        view = await _to_thread(
            self._conn().create_materialized_view, name, source, select=select, where=where,
            limit=limit,
        )
        return AsyncMaterializedView(AsyncTable(view.table))

    async def open_materialized_view(self, name: str):
        """See the sync method of the same name."""
        from .materialized_view import AsyncMaterializedView

        view = await _to_thread(self._conn().open_materialized_view, name)
        return AsyncMaterializedView(AsyncTable(view.table))

    async def list_materialized_views(self):
        """See the sync method of the same name."""
        return await _to_thread(self._conn().list_materialized_views)

    async def open_job(self, job_id: str):
        """The job `job_id` this connection started, as an AsyncJob."""
        return self._conn().open_job(job_id)._inner

    async def list_jobs(self):
        """The jobs this connection started (see the sync method of the same name)."""
        return self._conn().list_jobs()

    async def cancel_job(self, job_id: str):
        """Ask job `job_id` to stop (see the sync method of the same name)."""
        return self._conn().cancel_job(job_id)

    @not_yet(nyi.FUNCTIONS)
    async def create_function_async(self, definition: Any):
        """See the sync method of the same name."""

    @not_yet(nyi.FUNCTIONS)
    async def get_function(self, name: str, *, version: str):
        """See the sync method of the same name."""

    @not_yet(nyi.FUNCTIONS)
    async def list_functions(self):
        """See the sync method of the same name."""

    @not_yet(nyi.FUNCTIONS)
    async def drop_function(self, name: str, *, version: str):
        """See the sync method of the same name."""

    @not_yet(nyi.SQL)
    async def execute_query(self, query: str, *,
                            default_namespace_path: Optional[List[str]] = None):
        """See the sync method of the same name."""

    @not_yet(nyi.SQL)
    async def execute_query_async(self, query: str, *,
                                  default_namespace_path: Optional[List[str]] = None):
        """See the sync method of the same name."""

    @not_yet(nyi.SQL)
    async def describe_query(self, query_id: Any):
        """See the sync method of the same name."""


class AsyncTags:
    """A table's tags, for use with ``await``."""

    def __init__(self, table: Table):
        self._table = table

    async def list(self) -> Dict[str, Any]:
        return await _to_thread(lambda: self._table.tags.list())

    async def get_version(self, tag: str) -> int:
        return await _to_thread(lambda: self._table.tags.get_version(tag))

    async def create(self, tag: str, version: int) -> None:
        await _to_thread(lambda: self._table.tags.create(tag, version))

    async def delete(self, tag: str) -> None:
        await _to_thread(lambda: self._table.tags.delete(tag))

    async def update(self, tag: str, version: int) -> None:
        await _to_thread(lambda: self._table.tags.update(tag, version))


class AsyncMergeInsertBuilder:
    """``await table.merge_insert("id").when_matched_update_all()
    .when_not_matched_insert_all().execute(data)``: the sync builder, run on a worker
    thread."""

    def __init__(self, inner: Any):
        self._inner = inner

    def when_matched_update_all(self, *, where: Any = None) -> "AsyncMergeInsertBuilder":
        self._inner.when_matched_update_all(where=where)
        return self

    def when_not_matched_insert_all(self) -> "AsyncMergeInsertBuilder":
        self._inner.when_not_matched_insert_all()
        return self

    def when_not_matched_by_source_delete(
        self, condition: Any = None
    ) -> "AsyncMergeInsertBuilder":
        self._inner.when_not_matched_by_source_delete(condition)
        return self

    def use_index(self, use_index: bool) -> "AsyncMergeInsertBuilder":
        self._inner.use_index(use_index)
        return self

    def use_lsm(self, enable: bool) -> "AsyncMergeInsertBuilder":
        """See LanceMergeInsertBuilder.use_lsm (True raises NotImplementedError)."""
        self._inner.use_lsm(enable)
        return self

    def validate_single_shard(self, validate_single_shard: bool) -> "AsyncMergeInsertBuilder":
        """See LanceMergeInsertBuilder.validate_single_shard (no effect here)."""
        self._inner.validate_single_shard(validate_single_shard)
        return self

    async def execute(
        self,
        new_data: Any,
        on_bad_vectors: str = "error",
        fill_value: float = 0.0,
        timeout: Optional[timedelta] = None,
    ):
        """Run the merge; a MergeResult."""
        return await _to_thread(self._inner.execute, new_data, on_bad_vectors, fill_value, timeout)


def _is_vector_type(t: pa.DataType) -> bool:
    if pa.types.is_fixed_size_list(t) or pa.types.is_list(t) or pa.types.is_large_list(t):
        v = t.value_type
        return pa.types.is_floating(v) or pa.types.is_uint8(v) or _is_vector_type(v)
    return False


class AsyncTable(_Closable):
    """A table, for use with ``await``; obtain one from ``AsyncConnection.create_table`` or
    ``open_table``. Wraps a sync ``Table``."""

    def __init__(
        self,
        table: Table,
        *,
        namespace_path: Optional[List[str]] = None,
        namespace_client: Any = None,
        pushdown_operations: Optional[set] = None,
        route_pushdown_to_rust: bool = False,
    ):
        reject_unsupported(
            "AsyncTable",
            namespace_path=(namespace_path or None, None),
            namespace_client=(namespace_client, None),
            pushdown_operations=(pushdown_operations or None, None),
            route_pushdown_to_rust=(route_pushdown_to_rust, False),
        )
        self._inner = table
        self._open = True

    def __repr__(self) -> str:
        # LanceDB's: the native table's description while open.
        if not self._open:
            return f"ClosedTable({self._inner.name})"
        conn = getattr(self._inner, "_conn", None)
        rci = _interval_text(getattr(conn, "read_consistency_interval", None))
        return f"NativeTable({self._inner.name}, uri={self._inner.uri}, read_consistency_interval={rci})"

    _kind = "Table"

    def _t(self) -> Table:
        return self._checked(self._inner)

    async def _run(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        return await _to_thread(fn, *args, **kwargs)

    # Basics -----------------------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The table's name."""
        return self._inner.name

    async def schema(self) -> pa.Schema:
        """The table's Arrow schema."""
        return await self._run(lambda: self._t().schema)

    async def embedding_functions(self) -> Dict[str, Any]:
        """The table's embedding function configurations, by vector column."""
        return await self._run(lambda: self._t().embedding_functions)

    async def count_rows(self, filter: Optional[str] = None) -> int:
        """Count the rows, or those where the SQL `filter` is true."""
        return await self._run(self._t().count_rows, filter)

    async def head(self, n: int = 5) -> pa.Table:
        """The first `n` rows."""
        return await self.query().limit(n).to_arrow()

    def query(self) -> AsyncQuery:
        """Start a query (plain scan; ``nearest_to`` / ``nearest_to_text`` for searches)."""
        return AsyncQuery(self._t().query(), self)

    async def to_lance(self, **kwargs: Any):
        """The table as a pylance LanceDataset (see Table.to_lance)."""
        return await self._run(self._t().to_lance, **kwargs)

    async def to_pandas(self, blob_mode: str = "lazy", **kwargs: Any):
        """All rows as a pandas DataFrame."""
        return await self._run(self._t().to_pandas, blob_mode, **kwargs)

    async def to_arrow(self) -> pa.Table:
        """All rows as a pyarrow Table."""
        return await self._run(self._t().to_arrow)

    async def uri(self) -> str:
        """The location of the table's dataset."""
        return self._t().uri

    async def stats(self) -> Dict[str, Any]:
        """Sizes and counts of the version this handle reads (see Table.stats)."""
        return await self._run(self._t().stats)

    async def initial_storage_options(self) -> Optional[Dict[str, str]]:
        """The storage options the table was opened with: None (see Table)."""
        return self._t().initial_storage_options()

    async def latest_storage_options(self) -> Optional[Dict[str, str]]:
        """The storage options in force now: None (see Table)."""
        return self._t().latest_storage_options()

    # Indices ----------------------------------------------------------------------------------

    async def create_index(
        self,
        column: str,
        *,
        replace: Optional[bool] = None,
        config: Any = None,
        wait_timeout: Optional[timedelta] = None,
        name: Optional[str] = None,
        train: bool = True,
    ) -> None:
        """Build an index on `column` (see ``Table.create_index``); without `config`, a
        vector column gets IVF_PQ and any other column a BTree, as in LanceDB."""
        table = self._t()
        if config is None:
            field = table.schema.field(column)  # KeyError for a missing column
            if not _is_vector_type(field.type):
                from .index import BTree

                config = BTree()
        await self._run(
            table.create_index,
            column,
            replace=True if replace is None else replace,
            config=config,
            wait_timeout=wait_timeout,
            name=name,
            train=train,
        )

    async def create_index_async(self, column: str, *, replace: Optional[bool] = None,
                                 config: Any = None, wait_timeout: Optional[timedelta] = None,
                                 name: Optional[str] = None, train: bool = True):
        """Start building an index; an AsyncJob (see ``Table.create_index_async``)."""
        from . import _computed

        options = dict(config=config, replace=replace, wait_timeout=wait_timeout, name=name,
                       train=train)  # fmt: skip
        return _computed.create_index_async(self._t(), column, options)

    async def drop_index(self, name: str) -> None:
        """Remove an index."""
        await self._run(self._t().drop_index, name)

    async def prewarm_index(self, name: str) -> None:
        """See the sync method of the same name."""
        await self._run(self._t().prewarm_index, name)

    @not_yet(nyi.PREWARM)
    async def prewarm_data(self, columns: Optional[List[str]] = None) -> None:
        """See the sync method of the same name."""

    async def wait_for_index(
        self, index_names: Iterable[str], timeout: timedelta = timedelta(seconds=300)
    ) -> None:
        """Return once the indices exist and cover every row."""
        await self._run(self._t().wait_for_index, index_names, timeout)

    async def list_indices(self) -> Iterable[Any]:
        """The table's indices (IndexConfig)."""
        return await self._run(self._t().list_indices)

    async def index_stats(self, index_name: str) -> Optional[Any]:
        """Statistics of an index, or None."""
        return await self._run(self._t().index_stats, index_name)

    async def tokenize(self, query: str, *, column: Optional[str] = None,
                       index_name: Optional[str] = None):
        """See the sync method of the same name."""
        return await self._run(self._t().tokenize, query, column=column, index_name=index_name)

    # Writes -----------------------------------------------------------------------------------

    async def add(
        self,
        data: Any,
        *,
        mode: Optional[str] = "append",
        on_bad_vectors: Optional[str] = None,
        fill_value: Optional[float] = None,
        progress: Any = None,
        write_parallelism: Optional[int] = None,
        allow_external_blob_outside_bases: bool = False,
    ):
        """Add rows with ``mode`` "append" or "overwrite"; an AddResult."""
        return await self._run(
            self._t().add,
            data,
            mode="append" if mode is None else mode,
            on_bad_vectors="error" if on_bad_vectors is None else on_bad_vectors,
            fill_value=0.0 if fill_value is None else fill_value,
            progress=progress,
            write_parallelism=write_parallelism,
            allow_external_blob_outside_bases=allow_external_blob_outside_bases,
        )

    def merge_insert(self, on: Union[str, Iterable[str]]) -> AsyncMergeInsertBuilder:
        """Start a merge insert keyed on `on`; finish with ``await ....execute(data)``."""
        on = on if isinstance(on, str) else list(on)
        return AsyncMergeInsertBuilder(self._t().merge_insert(on))

    async def delete(self, where: Any):
        """Delete the rows where the predicate is true; a DeleteResult."""
        return await self._run(self._t().delete, where)

    async def update(
        self,
        updates: Optional[Dict[str, Any]] = None,
        *,
        where: Optional[Any] = None,
        updates_sql: Optional[Dict[str, str]] = None,
    ):
        """Set columns (Python `updates` or SQL `updates_sql`) where `where` is true; an
        UpdateResult."""
        if hasattr(where, "to_sql"):
            where = where.to_sql()
        return await self._run(self._t().update, where, updates, values_sql=updates_sql)

    # Schema evolution -------------------------------------------------------------------------

    async def add_columns(self, transforms: Any = None, *, computed: Optional[Dict[str, str]] = None):
        """Add columns from SQL expressions or all-null fields, or declare `computed` columns
        (see ``Table.add_columns``); an AddColumnsResult."""
        return await self._run(self._t().add_columns, transforms, computed=computed)

    async def refresh_column(self, column: str):
        """Fill a computed column's unfilled rows; a RefreshColumnResult(rows_filled,
        version) (see ``Table.refresh_column``)."""
        return await self._run(self._t().refresh_column, column)

    async def refresh_column_async(self, column: str):
        """Start filling a computed column; an AsyncJob whose ``wait()`` returns a
        ``lancedb.functions.RefreshColumnResult`` (see ``Table.refresh_column_async``)."""
        from . import _computed

        return _computed.refresh_column_async(self._t(), column)

    async def alter_columns(self, *alterations: Dict[str, Any]):
        """Rename columns or change their nullability; an AlterColumnsResult."""
        return await self._run(self._t().alter_columns, *alterations)

    async def update_field_metadata(self, *updates: Dict[str, Any]):
        """Change field metadata; an UpdateFieldMetadataResult."""
        return await self._run(self._t().update_field_metadata, *updates)

    async def replace_field_metadata(self, field_name: str, new_metadata: Dict[str, str]):
        """Replace the metadata of one field."""
        return await self.update_field_metadata(
            {"path": field_name, "metadata": dict(new_metadata), "replace": True}
        )

    async def drop_columns(self, columns: Iterable[str]):
        """Drop columns; a DropColumnsResult."""
        return await self._run(self._t().drop_columns, list(columns))

    # Queries ----------------------------------------------------------------------------------

    async def search(
        self,
        query: Any = None,
        vector_column_name: Optional[str] = None,
        query_type: str = "auto",
        ordering_field_name: Optional[str] = None,
        fts_columns: Optional[Union[str, List[str]]] = None,
    ) -> AsyncQueryBase:
        """Start a vector, full-text or hybrid search (see ``Table.search``). As in LanceDB,
        ``query_type="auto"`` with a text query makes a hybrid query when the text's
        embedding source column has an FTS index."""
        if query_type not in ("auto", "vector", "fts", "hybrid"):
            raise ValueError(f"Unknown query type: '{query_type}'")  # LanceDB's words
        table = self._t()
        if query_type == "auto" and isinstance(query, str) and _text_is_hybrid(
            table, vector_column_name
        ):
            query_type = "hybrid"
        if query_type == "vector" and isinstance(query, str) and (
            table._embedding_config(vector_column_name) is None
        ):
            # LanceDB's async search words this error (and its note) its own way.
            column = vector_column_name or _infer_vector_column(table, query)
            error = ValueError(f"Column '{column}' has no registered embedding function.")
            configs = table.embedding_functions
            error.add_note(
                f"Embedding functions are registered for columns: {list(configs)}"
                if configs else "No embedding functions are registered for any columns."
            )  # fmt: skip
            raise error
        inner = table.search(query, vector_column_name, query_type,  # keywords: as query.py
                             ordering_field_name=ordering_field_name, fts_columns=fts_columns)
        return wrap_sync_query(inner, self)

    def vector_search(self, query_vector: Any) -> AsyncVectorQuery:
        """Start a nearest-neighbour search for `query_vector`."""
        return AsyncVectorQuery(LanceVectorQueryBuilder(self._t(), query_vector), self)

    def take_offsets(self, offsets: List[int]) -> AsyncTakeQuery:
        """A query for the rows at these offsets."""
        return AsyncTakeQuery(self._t().take_offsets(offsets), self)

    def take_row_ids(self, row_ids: List[int]) -> AsyncTakeQuery:
        """A query for the rows with these row ids."""
        return AsyncTakeQuery(self._t().take_row_ids(row_ids), self)

    # Versions ---------------------------------------------------------------------------------

    async def version(self) -> int:
        """The version this handle reads."""
        return await self._run(lambda: self._t().version)

    async def list_versions(self) -> List[Dict[str, Any]]:
        """Every version, oldest first."""
        return await self._run(self._t().list_versions)

    async def checkout(self, version: Union[int, str]) -> None:
        """Pin this handle to a version or tag (read-only until checkout_latest)."""
        await self._run(self._t().checkout, version)

    async def checkout_latest(self) -> None:
        """Follow the newest version again."""
        await self._run(self._t().checkout_latest)

    async def restore(self, version: Optional[Union[int, str]] = None) -> None:
        """Make `version` (or the checked-out one) the newest version."""
        await self._run(self._t().restore, version)

    @property
    def tags(self) -> AsyncTags:
        """The table's tags."""
        return AsyncTags(self._t())

    @property
    def branches(self) -> "AsyncBranches":
        """The table's branches (see ``Table.branches``), for use with ``await``."""
        from ._branches import AsyncBranches

        return AsyncBranches(self._t())

    def current_branch(self) -> Optional[str]:
        """The branch this handle is on; None for main."""
        return self._t().current_branch()

    async def optimize(
        self,
        *,
        cleanup_older_than: Optional[timedelta] = None,
        delete_unverified: bool = False,
        retrain: bool = False,
    ):
        """Compact, clean up old versions and extend indices; an OptimizeStats."""
        return await self._run(
            self._t().optimize,
            cleanup_older_than=cleanup_older_than,
            delete_unverified=delete_unverified,
            retrain=retrain,
        )

    async def uses_v2_manifest_paths(self) -> bool:
        """Whether manifests use Lance's V2 naming (see Table.uses_v2_manifest_paths)."""
        return await self._run(self._t().uses_v2_manifest_paths)

    async def migrate_manifest_paths_v2(self) -> None:
        """Rename the manifests to Lance's V2 scheme (see Table.migrate_v2_manifest_paths)."""
        await self._run(self._t().migrate_v2_manifest_paths)

    async def migrate_v2_manifest_paths(self) -> None:
        """The sync API's name of migrate_manifest_paths_v2."""
        await self.migrate_manifest_paths_v2()

    # Blobs -------------------------------------------------------------------------------------

    async def blob_columns(self) -> List[str]:
        """The names of the blob v2 columns."""
        return await self._run(self._t().blob_columns)

    async def fetch_blobs(self, column: str, row_ids: Any):
        """See the sync method of the same name."""
        return await self._run(self._t().fetch_blobs, column, row_ids)

    async def fetch_blob_ranges(self, column: str, requests: Any):
        """See the sync method of the same name."""
        return await self._run(self._t().fetch_blob_ranges, column, list(requests))

    async def fetch_blob_files(self, column: str, row_ids: Any):
        """See the sync method of the same name."""
        return await self._run(self._t().fetch_blob_files, column, row_ids)

    # Primary keys; LSM (not supported) ------------------------------------------------------------

    async def set_unenforced_primary_key(self, columns: Union[str, Iterable[str]]) -> None:
        """See the sync method of the same name."""
        return await self._run(self._t().set_unenforced_primary_key, columns)

    @not_yet(nyi.LSM)
    async def set_lsm_write_spec(self, spec: Any) -> None:
        """See the sync method of the same name."""

    @not_yet(nyi.LSM)
    async def unset_lsm_write_spec(self) -> None:
        """See the sync method of the same name."""

    @not_yet(nyi.LSM)
    async def get_lsm_write_spec(self):
        """See the sync method of the same name."""

    @not_yet(nyi.LSM)
    async def checkpoint_lsm(self) -> None:
        """See the sync method of the same name."""

    @not_yet(nyi.LSM)
    async def flush_lsm(self) -> None:
        """See the sync method of the same name."""

    @not_yet(nyi.LSM)
    async def compact_lsm(self) -> None:
        """See the sync method of the same name."""

    @not_yet(nyi.LSM)
    async def get_lsm_stats(self, *, include_generation_rows: bool = False):
        """See the sync method of the same name."""

    @not_yet(nyi.LSM)
    async def close_lsm_writers(self) -> None:
        """See the sync method of the same name."""


__all__ = [
    "AsyncConnection",
    "AsyncFTSQuery",
    "AsyncHybridQuery",
    "AsyncMergeInsertBuilder",
    "AsyncQuery",
    "AsyncQueryBase",
    "AsyncRecordBatchReader",
    "AsyncTable",
    "AsyncTags",
    "AsyncTakeQuery",
    "AsyncVectorQuery",
    "connect_async",
]
