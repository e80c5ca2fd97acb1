# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Namespaces (``lancedb.namespace``): ``connect_namespace("dir", {"root": path})`` opens a
database through LanceDB's directory namespace: nested namespaces of tables, recorded in the
Lance table ``<root>/__manifest`` (see _namespace_dir.py), so that LanceDB and lancedb_cpp
list and open each other's namespaced tables. Other namespace implementations ("rest", custom
classes) are not supported."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any, Dict, List, Optional, Tuple

from ._namespace_dir import (  # noqa: F401 (as lance_namespace)
    CreateNamespaceResponse,
    DescribeNamespaceResponse,
    DropNamespaceResponse,
    ListNamespacesResponse,
)
from ._unsupported import reject_unsupported

# Names LanceDB's namespace module has too.
from .db import DBConnection, ListTablesResponse, Session  # noqa: F401
from .embeddings import EmbeddingFunctionConfig  # noqa: F401
from .exceptions import (  # noqa: F401 (as lance_namespace.errors)
    NamespaceAlreadyExistsError,
    NamespaceNotEmptyError,
    NamespaceNotFoundError,
    TableNotFoundError,
)
from .job import AsyncJob, Job  # noqa: F401
from .materialized_view import AsyncMaterializedView, MaterializedView  # noqa: F401
from .pydantic import LanceModel  # noqa: F401
from .sql import AsyncQuery as AsyncSqlQuery  # noqa: F401
from .table import LanceTable, Table  # noqa: F401
from .util import validate_table_name  # noqa: F401

# The largest `k` a namespace query_table request carries (an i32 in the namespace protocol):
# an unlimited read asks for this many rows.
_MAX_QUERY_K = 2**31 - 1

# The directory namespace's properties; both modes must stay on (V1 listing + V2 manifest).
_DIR_PROPERTIES = ("root", "manifest_enabled", "dir_listing_enabled")


def _dir_root(impl: str, properties: Dict[str, str]) -> tuple:
    """The root and storage options of a "dir" namespace; NotImplementedError for another
    implementation or a property the engine does not honour."""
    if impl != "dir":
        raise NotImplementedError(
            f"namespace_client_impl {impl!r} is not supported by lancedb_cpp; only 'dir' "
            "(the directory namespace) is"
        )
    if not isinstance(properties, dict) or "root" not in properties:
        raise ValueError('The "dir" namespace needs the property "root": the database directory')
    storage: Dict[str, str] = {}
    for key, value in properties.items():
        if key.startswith("storage."):
            storage[key[len("storage."):]] = value
        elif key not in _DIR_PROPERTIES:
            raise NotImplementedError(f"directory namespace property {key!r} is not supported")
        elif key != "root" and str(value).lower() != "true":
            raise NotImplementedError(
                f"directory namespace property {key}={value!r} is not supported (only true)"
            )
    return str(properties["root"]), storage


class LanceNamespaceDBConnection(DBConnection):
    """A database opened through a namespace (``connect_namespace``): the tables of the root
    namespace are `<name>.lance` directories recorded in the manifest too; child namespaces
    hold the other tables. Safe to share between threads."""

    _registers_root_tables = True

    def __init__(
        self,
        namespace_client: Any = None,
        *,
        read_consistency_interval: Optional[timedelta] = None,
        storage_options: Optional[Dict[str, str]] = None,
        session: Optional[Session] = None,
        namespace_client_pushdown_operations: Optional[List[str]] = None,
        namespace_client_impl: Optional[str] = None,
        namespace_client_properties: Optional[Dict[str, str]] = None,
        _inner: Any = None,
    ):
        reject_unsupported(
            "connect_namespace",
            namespace_client=(namespace_client, None),
            session=(session, None),
            namespace_client_pushdown_operations=(namespace_client_pushdown_operations or None,
                                                  None),
        )
        root, storage = _dir_root(namespace_client_impl, namespace_client_properties)
        options = dict(storage_options or {})
        options.update(storage)
        super().__init__(
            root,
            read_consistency_interval=read_consistency_interval,
            storage_options=options or None,
            _inner=_inner,
        )
        self._namespace_client_impl = namespace_client_impl
        self._namespace_client_properties = dict(namespace_client_properties)
        self._uri = f"namespace://{namespace_client_impl}"

    def serialize(self) -> str:
        """The connection's settings as JSON, in LanceDB's format."""
        interval = self.read_consistency_interval
        return json.dumps(
            {
                "connection_type": "namespace",
                "namespace_client_impl": self._namespace_client_impl,
                "namespace_client_properties": self._namespace_client_properties,
                "namespace_client_pushdown_operations": [],
                "storage_options": self.storage_options or None,
                "read_consistency_interval_seconds": None
                if interval is None
                else interval.total_seconds(),
            }
        )

    def drop_database(self) -> None:
        raise NotImplementedError("drop_database is deprecated, use drop_all_tables instead")

    def _namespace_client_config(self) -> Tuple[str, Dict[str, str]]:
        return self._namespace_client_impl, dict(self._namespace_client_properties)


def _async_class():
    cls = globals().get("_ASYNC_CLASS")
    if cls is not None:
        return cls
    from ._async import AsyncConnection

    class AsyncLanceNamespaceDBConnection(AsyncConnection):
        """A database opened through a namespace, for use with ``await``
        (``connect_namespace_async``); every method runs the sync one on a worker thread."""

        def __init__(
            self,
            namespace_client: Any = None,
            *,
            read_consistency_interval: Optional[timedelta] = None,
            storage_options: Optional[Dict[str, str]] = None,
            session: Optional[Session] = None,
            namespace_client_pushdown_operations: Optional[List[str]] = None,
            namespace_client_impl: Optional[str] = None,
            namespace_client_properties: Optional[Dict[str, str]] = None,
            _inner: Any = None,
        ):
            if isinstance(namespace_client, LanceNamespaceDBConnection):
                super().__init__(namespace_client)
                return
            super().__init__(
                LanceNamespaceDBConnection(
                    namespace_client,
                    read_consistency_interval=read_consistency_interval,
                    storage_options=storage_options,
                    session=session,
                    namespace_client_pushdown_operations=namespace_client_pushdown_operations,
                    namespace_client_impl=namespace_client_impl,
                    namespace_client_properties=namespace_client_properties,
                    _inner=_inner,
                )
            )

        async def create_table(
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
        ):
            """See the sync method of the same name."""
            import asyncio

            from ._async import AsyncTable

            table = await asyncio.to_thread(
                self._conn().create_table,
                name,
                data,
                schema,
                mode,
                exist_ok,
                on_bad_vectors,
                fill_value,
                embedding_functions,
                namespace_path=namespace_path,
                storage_options=storage_options,
                data_storage_version=data_storage_version,
                enable_v2_manifest_paths=enable_v2_manifest_paths,
            )
            return AsyncTable(table)

        def serialize(self) -> str:
            return self._conn().serialize()

        async def table_names(self, page_token: Optional[str] = None, limit: int = 10, *,
                              namespace_path: Optional[List[str]] = None) -> List[str]:
            """Sorted table names after `page_token`, at most `limit` (deprecated:
            list_tables)."""
            return await super().table_names(
                namespace_path=namespace_path, start_after=page_token, limit=limit
            )

        async def drop_table(self, name: str, namespace_path: Optional[List[str]] = None,
                             ignore_missing: bool = False) -> None:
            """See the sync method of the same name."""
            await super().drop_table(name, namespace_path=namespace_path,
                                     ignore_missing=ignore_missing)

        async def namespace_exists(self, namespace_id: List[str]) -> bool:
            """See the sync method of the same name."""
            import asyncio

            return await asyncio.to_thread(self._conn().namespace_exists, namespace_id)

        async def table_exists(self, table_id: List[str]) -> bool:
            """See the sync method of the same name."""
            import asyncio

            return await asyncio.to_thread(self._conn().table_exists, table_id)

    AsyncLanceNamespaceDBConnection.__module__ = __name__
    globals()["_ASYNC_CLASS"] = AsyncLanceNamespaceDBConnection
    return AsyncLanceNamespaceDBConnection


def connect_namespace(
    namespace_client_impl: str,
    namespace_client_properties: Dict[str, str],
    *,
    read_consistency_interval: Optional[timedelta] = None,
    storage_options: Optional[Dict[str, str]] = None,
    session: Optional[Session] = None,
    namespace_client_pushdown_operations: Optional[List[str]] = None,
) -> LanceNamespaceDBConnection:
    """Connect to a database through a namespace: ``connect_namespace("dir", {"root": path})``
    (the directory namespace LanceDB writes). Properties: "root" (required), "storage.<key>"
    (a storage option); "manifest_enabled" and "dir_listing_enabled" may only be "true".
    Other implementations, sessions and pushdown operations raise NotImplementedError."""
    return LanceNamespaceDBConnection(
        read_consistency_interval=read_consistency_interval,
        storage_options=storage_options,
        session=session,
        namespace_client_pushdown_operations=namespace_client_pushdown_operations,
        namespace_client_impl=namespace_client_impl,
        namespace_client_properties=namespace_client_properties,
    )


def connect_namespace_async(
    namespace_client_impl: str,
    namespace_client_properties: Dict[str, str],
    *,
    read_consistency_interval: Optional[timedelta] = None,
    storage_options: Optional[Dict[str, str]] = None,
    session: Optional[Session] = None,
    namespace_client_pushdown_operations: Optional[List[str]] = None,
) -> "AsyncLanceNamespaceDBConnection":
    """As ``connect_namespace`` (a sync function), returning a connection for use with
    ``await``:

    >>> import lancedb_cpp as lancedb
    >>> db = lancedb.connect_namespace_async("dir", {"root": "/path/to/db"})
    >>> async def use_db():
    ...     tables = await db.table_names()
    """
    conn = connect_namespace(
        namespace_client_impl,
        namespace_client_properties,
        read_consistency_interval=read_consistency_interval,
        storage_options=storage_options,
        session=session,
        namespace_client_pushdown_operations=namespace_client_pushdown_operations,
    )
    return _async_class()(conn)


_LAZY_NAMES = {
    "AsyncConnection": "_async",
    "AsyncTable": "_async",
    "AsyncRecordBatchReader": "_async_query",
}


def __getattr__(name: str):
    if name == "AsyncLanceNamespaceDBConnection":
        cls = _async_class()
        globals()[name] = cls
        return cls
    if name in _LAZY_NAMES:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY_NAMES[name]}", __package__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AsyncLanceNamespaceDBConnection",
    "LanceNamespaceDBConnection",
    "connect_namespace",
    "connect_namespace_async",
]
