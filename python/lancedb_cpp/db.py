# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""DBConnection: LanceDB's sync connection API over the native engine."""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Dict, Iterator, List, Optional, Tuple

from . import _data, _native
from . import _not_yet as nyi
from ._not_yet import not_yet
from ._namespace_dir import (
    CreateNamespaceResponse,
    DescribeNamespaceResponse,
    DirectoryCatalog,
    DropNamespaceResponse,
    ListNamespacesResponse,
    check_name,
    check_path,
)
from ._unsupported import reject_unsupported
from .common import data_to_reader, sanitize_uri, validate_schema  # noqa: F401 (as LanceDB)
from .embeddings import EmbeddingFunctionRegistry  # noqa: F401 (as LanceDB)
from .functions import FunctionVersion, UdfDefinition
from .job import AsyncJob, Job  # noqa: F401 (as LanceDB)
from .materialized_view import (  # noqa: F401 (as LanceDB)
    AsyncMaterializedView,
    MaterializedView,
    SelectArg,
    normalize_select,
)
from .sql import AsyncQuery as AsyncSqlQuery  # noqa: F401 (as LanceDB)
from .sql import Query as SqlQuery
from .sql import QueryDescription
from .table import LanceTable, Table  # noqa: F401 (as LanceDB)
from .util import get_uri_scheme, validate_table_name  # noqa: F401 (as LanceDB)

# Sessions (caches shared between connections) are not built yet: constructing one raises.
Session = nyi.unsupported_class("Session", nyi.SESSIONS, __name__)

# The storage options the engine honours for a table; local and memory:// storage take no
# others. An s3:// connection also takes the object-store keys (docs/object-storage.md), which
# the engine validates at connect.
_STORAGE_OPTIONS = (
    "new_table_enable_stable_row_ids",
    "new_table_data_storage_version",
    "new_table_enable_v2_manifest_paths",
)


@dataclass
class ListTablesResponse:
    """One page of table names; pass ``page_token`` back to get the next page (None: done)."""

    tables: List[str] = field(default_factory=list)
    page_token: Optional[str] = None


def _check_namespace(namespace_path: Optional[List[str]], what: str = "this operation") -> None:
    if namespace_path:
        raise NotImplementedError(
            f"{what} supports only the root namespace (namespace_path=[]), got {namespace_path!r}"
        )


def _storage_options(
    options: Optional[Dict[str, Any]], uri: Optional[str] = None
) -> Dict[str, str]:
    """The options as strings; NotImplementedError for a key the engine does not honour.
    With the ``uri`` of an s3:// connection every key goes to the engine, which rejects
    unknown ones (ValueError)."""
    strings = {str(k): _option_string(v) for k, v in (options or {}).items()}
    if uri is not None and str(uri).startswith("s3://"):
        return strings
    for key in strings:
        if key not in _STORAGE_OPTIONS:
            where = (
                "a table takes only the new_table_* keys; give object-store options to connect()"
                if uri is None
                else "local and memory:// storage take only " + ", ".join(_STORAGE_OPTIONS)
            )
            raise NotImplementedError(
                f"storage option {key!r} is not supported by lancedb_cpp ({where})"
            )
    return strings


def _option_string(value: Any) -> str:
    # LanceDB users write allow_http=True as often as "true".
    return str(value).lower() if isinstance(value, bool) else str(value)


class DBConnection:
    """A database: a directory (or ``memory://``) holding one Lance dataset per table, and
    child namespaces of tables (LanceDB's directory namespace, see _namespace_dir.py). Safe to
    share between threads."""

    # Whether tables of the root namespace are recorded in the namespace manifest too (as
    # LanceDB's connect_namespace("dir") does; its connect() only lists the directory).
    _registers_root_tables = False

    def __init__(
        self,
        uri: str,
        *,
        read_consistency_interval: Optional[timedelta] = None,
        storage_options: Optional[Dict[str, str]] = None,
        session: Any = None,
        manifest_enabled: bool = False,
        namespace_client_properties: Optional[Dict[str, str]] = None,
        _inner: Any = None,
    ):
        reject_unsupported(
            "connect",
            session=(session, None),
            manifest_enabled=(manifest_enabled, False),
            namespace_client_properties=(namespace_client_properties, None),
        )
        if read_consistency_interval is not None and not isinstance(
            read_consistency_interval, timedelta
        ):
            raise ValueError("read_consistency_interval must be a datetime.timedelta or None")
        seconds = (
            None
            if read_consistency_interval is None
            else read_consistency_interval.total_seconds()
        )
        options = _storage_options(storage_options, str(uri))
        self._inner = _native.connect(uri, seconds, options) if _inner is None else _inner
        self._uri = uri
        self._read_consistency_interval = read_consistency_interval
        self.storage_options = storage_options

    @property
    def uri(self) -> str:
        """The database location as given to ``connect``."""
        return self._uri

    @property
    def read_consistency_interval(self) -> Optional[timedelta]:
        """How often tables check for other writers' versions (None: only on checkout_latest)."""
        return self._read_consistency_interval

    @property
    def session(self) -> Any:
        """The session given to ``connect``: always None (sessions are not supported)."""
        return None

    @classmethod
    def from_inner(cls, inner: Any, read_consistency_interval: Optional[timedelta] = None):
        """A connection over an engine connection handle (``DBConnection._inner``)."""
        return cls(inner.uri, read_consistency_interval=read_consistency_interval, _inner=inner)

    def serialize(self) -> str:
        """The connection's settings as JSON, in LanceDB's format."""
        interval = self._read_consistency_interval
        return json.dumps(
            {
                "connection_type": "local",
                "uri": self._uri,
                "storage_options": self.storage_options,
                "manifest_enabled": False,
                "namespace_client_properties": None,
                "read_consistency_interval_seconds": None
                if interval is None
                else interval.total_seconds(),
            }
        )

    def __repr__(self) -> str:
        # LanceDB's: this class is its LanceDBConnection.
        name = "LanceDBConnection" if type(self) is DBConnection else type(self).__name__
        return f"{name}(uri={self._uri!r})"

    @property
    def _catalog(self) -> DirectoryCatalog:
        return DirectoryCatalog(self._inner)

    def _wrap(self, name: str, inner: Any, path: List[str]) -> Table:
        table = Table(self, name, _inner=inner)
        table._namespace = tuple(path)
        return table

    # Listing --------------------------------------------------------------------------------

    def table_names(
        self,
        page_token: Optional[str] = None,
        limit: int = 10,
        *,
        namespace_path: Optional[List[str]] = None,
    ) -> List[str]:
        """Sorted table names after `page_token`, at most `limit` (deprecated: list_tables)."""
        warnings.warn(
            "table_names() is deprecated, use list_tables() instead",
            DeprecationWarning,
            stacklevel=2,
        )
        path = check_path(namespace_path)
        if limit is not None and limit <= 0:
            return []  # as LanceDB
        if path or self._registers_root_tables:
            return self.list_tables(path, page_token, limit or None).tables
        return self._inner.table_names(page_token or "", limit or 0)

    def list_tables(
        self,
        namespace_path: Optional[List[str]] = None,
        page_token: Optional[str] = None,
        limit: Optional[int] = None,
    ) -> ListTablesResponse:
        """One page of the sorted table names of a namespace (None or ``[]``: the root), with
        the token of the next page: the last name of this page, None when there are no more.
        Walking the pages visits every table once. NamespaceNotFoundError for a missing
        namespace."""
        path = check_path(namespace_path)
        if limit is not None and limit <= 0:
            return ListTablesResponse(tables=[], page_token=None)  # as LanceDB
        if path or self._registers_root_tables:
            # A root table is listed from its `.lance` directory and from the manifest.
            extra = self._inner.table_names("", 0) if not path else ()
            tables, token = self._catalog.list_tables(path, page_token, limit, extra)
            return ListTablesResponse(tables=tables, page_token=token)
        tables, token = self._inner.list_tables(page_token or "", limit)
        return ListTablesResponse(tables=tables, page_token=token or None)

    def _all_table_names(self) -> Iterator[str]:
        token = None
        while True:
            page = self.list_tables(page_token=token)
            yield from page.tables
            token = page.page_token
            if not token:
                return

    def __len__(self) -> int:
        return sum(1 for _ in self._all_table_names())

    def __contains__(self, name: str) -> bool:
        return name in self._all_table_names()

    def __getitem__(self, name: str) -> Table:
        return self.open_table(name)

    # Tables ---------------------------------------------------------------------------------

    def create_table(
        self,
        name: str,
        data: Any = None,
        schema: Any = None,
        mode: str = "create",
        exist_ok: bool = False,
        on_bad_vectors: str = "error",
        fill_value: float = 0.0,
        embedding_functions: Any = None,
        *,
        namespace_path: Optional[List[str]] = None,
        storage_options: Optional[Dict[str, str]] = None,
        data_storage_version: Optional[str] = None,
        enable_v2_manifest_paths: Optional[bool] = None,
    ) -> Table:
        """Create a table from `data` (list of dicts, DataFrame, Arrow data ...) and/or a
        `schema`. mode "create" fails if the table exists (unless `exist_ok`, which opens
        it); "overwrite" replaces its content. `storage_options` override the connection's for
        this table; their ``new_table_*`` keys (``new_table_enable_stable_row_ids``,
        ``new_table_data_storage_version``, ``new_table_enable_v2_manifest_paths``) set how a
        new table is created and are not passed on to storage. `data_storage_version` and
        `enable_v2_manifest_paths` are LanceDB's older spellings of the last two.
        With `namespace_path`, the table goes in that namespace (which must exist)."""
        path = check_path(namespace_path)
        if path:
            check_name(name, "table")
        if mode not in ("create", "overwrite"):
            raise ValueError(f"mode must be 'create' or 'overwrite', got {mode!r}")
        if data is None and schema is None:
            raise ValueError("Either data or schema must be provided")
        native_mode = "exist_ok" if (mode == "create" and exist_ok) else mode
        target = None if schema is None else _data.to_schema(schema)
        metadata = None
        if embedding_functions:
            # As LanceDB: explicit configurations replace those a LanceModel schema names.
            from .embeddings import EmbeddingFunctionRegistry

            metadata = EmbeddingFunctionRegistry.get_instance().get_table_metadata(
                embedding_functions
            )
            if target is not None:
                target = _with_embedding_metadata(target, metadata)
        options = _storage_options(storage_options)
        if data_storage_version is not None:
            warnings.warn(
                "setting data_storage_version directly on create_table is deprecated; use "
                "storage_options={'new_table_data_storage_version': ...}",
                DeprecationWarning,
                stacklevel=2,
            )
            options["new_table_data_storage_version"] = str(data_storage_version)
        if enable_v2_manifest_paths is not None:
            warnings.warn(
                "setting enable_v2_manifest_paths directly on create_table is deprecated; use "
                "storage_options={'new_table_enable_v2_manifest_paths': ...}",
                DeprecationWarning,
                stacklevel=2,
            )
            options["new_table_enable_v2_manifest_paths"] = (
                "true" if enable_v2_manifest_paths else "false"
            )
        if path:
            self._catalog.require_namespace(self._catalog.snapshot(), path)
        reader = None
        if data is not None:
            reader = _data.sanitize(data, target, on_bad_vectors, fill_value, metadata=metadata)

        def write(location: Optional[str], write_mode: str) -> Any:
            if location is None:  # the root namespace: <name>.lance
                if reader is None:
                    return self._inner.create_empty_table(name, target, write_mode, options)
                return self._inner.create_table(name, reader, write_mode, options)
            if reader is None:
                return self._inner.create_empty_table_at(
                    location, name, target, write_mode, options
                )
            return self._inner.create_table_at(location, name, reader, write_mode, options)

        if path:
            inner = self._catalog.create_table(path, name, native_mode, write)
        else:
            inner = write(None, native_mode)
            if self._registers_root_tables:
                self._catalog.register_table([], name, f"{name}.lance")
        return self._wrap(name, inner, path)

    def open_table(
        self,
        name: str,
        *,
        namespace_path: Optional[List[str]] = None,
        storage_options: Optional[Dict[str, str]] = None,
        index_cache_size: Optional[int] = None,
        branch: Optional[str] = None,
        version: Optional[int] = None,
    ) -> Table:
        """Open a table at its latest version, or read-only at `version`; with `branch`, on
        that branch ("main" or "" for main). Not supported (NotImplementedError unless None):
        `storage_options` (a table is opened with its connection's). `index_cache_size` is
        deprecated and has no effect, as in LanceDB 0.39 (a DeprecationWarning says so).
        With `namespace_path`, the table of that namespace (TableNotFoundError, a ValueError,
        when it has none of that name)."""
        path = check_path(namespace_path)
        reject_unsupported(
            "open_table",
            storage_options=(storage_options or None, None),
        )
        if index_cache_size is not None:
            warnings.warn(
                "index_cache_size is deprecated. Use session-level cache configuration "
                "instead. Create a Session with custom cache sizes and pass it to "
                "lancedb.connect().",
                DeprecationWarning,
                stacklevel=2,
            )
        if path:
            if branch is not None:
                raise NotImplementedError("open_table(branch=...) supports only the root namespace")
            table = self._wrap(name, self._catalog.open_table(path, name, version), path)
            if version is not None:
                table._pinned = int(version)
            return table
        if branch is None and self._registers_root_tables:
            row = self._catalog.table_row([], name)
            if row is not None and row["location"] != f"{name}.lance":
                table = self._wrap(name, self._catalog.open_table([], name, version), [])
                if version is not None:
                    table._pinned = int(version)
                return table
        if branch is not None:
            from . import _branches

            return _branches.open_table(self, name, branch, version)
        table = Table(self, name, _inner=self._inner.open_table(name, version))
        if version is not None:
            table._pinned = int(version)
        return table

    def rename_table(
        self,
        cur_name: str,
        new_name: str,
        cur_namespace_path: Optional[List[str]] = None,
        new_namespace_path: Optional[List[str]] = None,
    ) -> None:
        """Not supported for local databases, as in LanceDB OSS."""
        raise NotImplementedError("rename_table is not supported in LanceDB OSS")

    def drop_table(
        self, name: str, namespace_path: Optional[List[str]] = None, ignore_missing: bool = False
    ) -> None:
        """Delete a table (of the namespace `namespace_path`) and all its versions; ValueError
        when it does not exist, unless `ignore_missing`."""
        path = check_path(namespace_path)
        if path:
            check_name(name, "table")
            if not self._catalog.drop_table(path, name) and not ignore_missing:
                raise ValueError(f"Table '{name}' was not found")
            return
        registered = self._registers_root_tables and self._catalog.drop_table([], name)
        try:
            self._inner.drop_table(name)
        except ValueError:
            if not (ignore_missing or registered):
                raise

    def drop_all_tables(self, namespace_path: Optional[List[str]] = None) -> None:
        """Delete every table (of the namespace `namespace_path`)."""
        path = check_path(namespace_path)
        if path or self._registers_root_tables:
            for name in self.list_tables(path).tables:
                self.drop_table(name, path, ignore_missing=True)
            if path:
                return
        self._inner.drop_all_tables()

    def drop_database(self) -> None:
        """Deprecated alias of drop_all_tables()."""
        self.drop_all_tables()

    def clone_table(
        self,
        target_table_name: str,
        source_uri: str,
        *,
        target_namespace_path: Optional[List[str]] = None,
        source_version: Optional[int] = None,
        source_tag: Optional[str] = None,
        is_shallow: bool = True,
    ) -> Table:
        """Create table `target_table_name` as a clone of the Lance dataset at `source_uri`
        (its latest version, `source_version`, or the version `source_tag` names). A shallow
        clone references the source's files through base paths (Lance's Clone operation) and
        is registered in the source, whose cleanup then keeps those files; a deep clone
        (``is_shallow=False``) copies them. Writes to either never change the other."""
        from . import _branches

        _check_namespace(target_namespace_path, "clone_table")
        return _branches.clone_table(
            self, target_table_name, source_uri, source_version, source_tag, is_shallow
        )

    # Not built yet (each raises NotImplementedError naming its feature) ----------------------

    def drop_table_async(self, name: str, namespace_path: Optional[List[str]] = None) -> Job:
        """Start dropping table `name` on a background thread; a Job whose ``wait()``
        returns None once it is gone. A missing table raises here (ValueError)."""
        from . import _computed

        return Job(_computed.drop_table_async(self, name, namespace_path))

    # Namespaces -----------------------------------------------------------------------------

    def list_namespaces(
        self,
        namespace_path: Optional[List[str]] = None,
        page_token: Optional[str] = None,
        limit: Optional[int] = None,
    ) -> ListNamespacesResponse:
        """One page of the sorted names of the child namespaces of `namespace_path` (None or
        ``[]``: the root), with the token of the next page (the last name of this page; None
        when there are no more). NamespaceNotFoundError for a missing namespace."""
        return self._catalog.list_namespaces(check_path(namespace_path), page_token, limit)

    def create_namespace(
        self,
        namespace_path: List[str],
        mode: Optional[str] = None,
        properties: Optional[Dict[str, str]] = None,
    ) -> CreateNamespaceResponse:
        """Create the namespace `namespace_path` (its parent must exist) with `properties`.
        `mode` (any case): "create" (the default: NamespaceAlreadyExistsError when it exists),
        "exist_ok" (keep the existing one) or "overwrite" (replace its properties)."""
        return self._catalog.create_namespace(check_path(namespace_path), mode, properties)

    def drop_namespace(
        self,
        namespace_path: List[str],
        mode: Optional[str] = None,
        behavior: Optional[str] = None,
    ) -> DropNamespaceResponse:
        """Drop the namespace `namespace_path`. `mode` (any case): "fail" (the default:
        NamespaceNotFoundError when missing) or "skip". `behavior`: "restrict" (the default:
        NamespaceNotEmptyError, and nothing dropped, when it holds tables or namespaces) or
        "cascade" (drop them too)."""
        return self._catalog.drop_namespace(check_path(namespace_path), mode, behavior)

    def describe_namespace(self, namespace_path: List[str]) -> DescribeNamespaceResponse:
        """The properties of namespace `namespace_path` (NamespaceNotFoundError when missing)."""
        return self._catalog.describe_namespace(check_path(namespace_path))

    def namespace_exists(self, namespace_id: List[str]) -> bool:
        """Whether the namespace `namespace_id` exists (the root always does)."""
        return self._catalog.namespace_exists(check_path(namespace_id))

    def table_exists(self, table_id: List[str]) -> bool:
        """Whether the table `table_id` (its namespace path followed by its name) exists."""
        ident = check_path(table_id, "table")
        if not ident:
            raise ValueError("table_id must name a table: [*namespace_path, table_name]")
        try:
            self.open_table(ident[-1], namespace_path=ident[:-1])
            return True
        except ValueError:
            return False

    def namespace_client(self) -> Any:
        """The namespace client equivalent to this connection, as LanceDB returns it: Lance's
        directory namespace (pylance's ``lance.namespace.DirectoryNamespace``, through
        ``lance_namespace.connect``) over the same root with the same storage options;
        for a ``connect_namespace`` connection, the namespace behind it. Made once per
        connection. Needs the ``pylance`` package."""
        cached = getattr(self, "_cached_namespace_client", None)
        if cached is not None:
            return cached
        impl, properties = self._namespace_client_config()
        try:
            import lance.namespace  # noqa: F401  (registers the "dir" implementation)
            from lance_namespace import connect as namespace_connect
        except ImportError as e:
            raise ImportError("Please install pylance to use namespace_client()") from e
        self._cached_namespace_client = namespace_connect(impl, properties)
        return self._cached_namespace_client

    def _namespace_client_config(self) -> Tuple[str, Dict[str, str]]:
        """The implementation name and properties of ``namespace_client``."""
        if str(self._uri).startswith("memory://"):
            raise NotImplementedError(
                "namespace_client of a memory:// database: pylance cannot open it"
            )
        properties = {"root": str(self._uri)}
        for key, value in (self.storage_options or {}).items():
            properties[f"storage.{key}"] = str(value)
        return "dir", properties

    def create_materialized_view(
        self,
        name: str,
        source: str,
        *,
        select: SelectArg = None,
        where: Optional[str] = None,
        limit: Optional[int] = None,
    ) -> MaterializedView:
        """Define a materialized view named ``name`` over the table ``source``.

        The view is created empty, with the query recorded in its schema metadata;
        ``view.refresh()`` computes the rows. The view is a normal table: it can be queried,
        indexed and searched, and it appears in ``table_names``. The source table must have
        stable row ids (create it with the ``new_table_enable_stable_row_ids`` storage option).

        `select`: column names, ``(alias, SQL expression)`` pairs or a dict of the same
        (default: every source column, expanded now). `where`: SQL predicate on source rows.
        `limit`: at most this many rows, in materialization order (<= 2**63 - 1). Invalid
        input raises before anything is written.

        Examples
        --------
        >>> import lancedb
        >>> db = lancedb.connect(
        ...     "./.lancedb",
        ...     storage_options={"new_table_enable_stable_row_ids": "true"},
        ... )
        >>> data = [{"name": "ada", "age": 36}, {"name": "kid", "age": 7}]
        >>> table = db.create_table("people", data)
        >>> view = db.create_materialized_view(
        ...     "adults",
        ...     "people",
        ...     select=["name", ("shout", "upper(name)")],
        ...     where="age >= 18",
        ... )
        >>> result = view.refresh()
        >>> result.rows_written
        1
        """
        from .materialized_view import create_view

        return MaterializedView(create_view(self, name, source, select, where, limit))

    def open_materialized_view(self, name: str) -> MaterializedView:
        """Open the materialized view named ``name``; ValueError when the table does not
        exist or is not a materialized view."""
        view = MaterializedView(self.open_table(name))
        view.definition  # noqa: B018 - raises for a table that is no view
        return view

    def list_materialized_views(self) -> List[str]:
        """The names of the materialized views in this database (found by reading every
        table's schema)."""
        from .materialized_view import view_names

        return view_names(self)

    @not_yet(nyi.FUNCTIONS)
    def create_function(self, definition: UdfDefinition) -> FunctionVersion:
        """Register a Python UDF."""

    @not_yet(nyi.FUNCTIONS)
    def create_function_async(self, definition: UdfDefinition) -> Job:
        """Register a Python UDF; a Job."""

    @not_yet(nyi.FUNCTIONS)
    def get_function(self, name: str, *, version: str) -> FunctionVersion:
        """A registered UDF."""

    @not_yet(nyi.FUNCTIONS)
    def list_functions(self) -> List[FunctionVersion]:
        """The registered UDFs."""

    @not_yet(nyi.FUNCTIONS)
    def drop_function(self, name: str, *, version: str) -> bool:
        """Remove a registered UDF."""

    def open_job(self, job_id: str) -> Job:
        """The job `job_id` this connection started (``refresh_column_async``,
        ``create_index_async``, ``drop_table_async``); JobNotFoundError when it has none."""
        from .job import AsyncJob, _registry

        return Job(AsyncJob(_registry(self).get(job_id)))

    def list_jobs(self) -> List[Any]:
        """The jobs this connection started, oldest first, as ``JobInfo`` (job_id, table,
        job_type, state, created_at_millis)."""
        from .job import _registry

        return _registry(self).list()

    def cancel_job(self, job_id: str) -> bool:
        """Ask job `job_id` to stop: True when it was running, False when it had already
        ended; JobNotFoundError for an unknown id."""
        from .job import _registry

        return _registry(self).get(job_id).cancel()

    @not_yet(nyi.SQL)
    def execute_query(
        self, query: str, *, default_namespace_path: Optional[List[str]] = None
    ) -> Any:
        """Run a SQL query; a RecordBatchReader."""

    @not_yet(nyi.SQL)
    def execute_query_async(
        self, query: str, *, default_namespace_path: Optional[List[str]] = None
    ) -> SqlQuery:
        """Submit a SQL query; a handle to it."""

    @not_yet(nyi.SQL)
    def describe_query(self, query_id: Any) -> QueryDescription:
        """Describe a submitted SQL query."""


LanceDBConnection = DBConnection


def _with_embedding_metadata(schema: Any, metadata: dict) -> Any:
    """`schema` with the embedding metadata added (as LanceDB, no column is added)."""
    merged = dict(schema.metadata or {})
    merged.update({k.encode() if isinstance(k, str) else k: v for k, v in metadata.items()})
    return schema.with_metadata(merged)


_ASYNC_NAMES = ("AsyncConnection", "AsyncTable")


def __getattr__(name: str):
    # The async classes (LanceDB has them here too) load on first use: _async imports this module.
    if name in _ASYNC_NAMES:
        from . import _async

        return getattr(_async, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
