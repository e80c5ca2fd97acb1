# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Namespaces (``lancedb.namespace``): connections through a namespace service
(``connect_namespace``) are not supported yet; the names exist, with LanceDB's parameters,
and raise NotImplementedError naming the feature."""

from __future__ import annotations

from datetime import timedelta
from typing import Dict, List, Optional

from . import _not_yet as nyi
from ._not_yet import not_yet, unsupported_class

# Names LanceDB's namespace module has too.
from .db import DBConnection, Session  # noqa: F401
from .embeddings import EmbeddingFunctionConfig  # noqa: F401
from .job import AsyncJob, Job  # noqa: F401
from .materialized_view import AsyncMaterializedView, MaterializedView  # noqa: F401
from .pydantic import LanceModel  # noqa: F401
from .sql import AsyncQuery as AsyncSqlQuery  # noqa: F401
from .table import LanceTable, Table  # noqa: F401
from .util import validate_table_name  # noqa: F401

LanceNamespaceDBConnection = unsupported_class(
    "LanceNamespaceDBConnection", nyi.NAMESPACES, __name__
)
AsyncLanceNamespaceDBConnection = unsupported_class(
    "AsyncLanceNamespaceDBConnection", nyi.NAMESPACES, __name__
)


@not_yet(nyi.NAMESPACES)
def connect_namespace(
    namespace_client_impl: str,
    namespace_client_properties: Dict[str, str],
    *,
    read_consistency_interval: Optional[timedelta] = None,
    storage_options: Optional[Dict[str, str]] = None,
    session: Optional[Session] = None,
    namespace_client_pushdown_operations: Optional[List[str]] = None,
) -> LanceNamespaceDBConnection:
    """Connect to a database through a namespace service."""


@not_yet(nyi.NAMESPACES)
def connect_namespace_async(
    namespace_client_impl: str,
    namespace_client_properties: Dict[str, str],
    *,
    read_consistency_interval: Optional[timedelta] = None,
    storage_options: Optional[Dict[str, str]] = None,
    session: Optional[Session] = None,
    namespace_client_pushdown_operations: Optional[List[str]] = None,
) -> AsyncLanceNamespaceDBConnection:
    """Connect to a database through a namespace service, for use with ``await``."""


_LAZY_NAMES = {
    "AsyncConnection": "_async",
    "AsyncTable": "_async",
    "AsyncRecordBatchReader": "_async_query",
}


def __getattr__(name: str):
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
