# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""lancedb_cpp: LanceDB's Python API over the lancedb-cpp engine.

``import lancedb_cpp as lancedb`` and use it as LanceDB: ``connect`` a database, create and
open tables, add, query, delete, update and time-travel. Tables are Lance datasets that
LanceDB and pylance read and write too.
"""

from __future__ import annotations

import os
from datetime import timedelta
from typing import Any, Dict, List, Optional, Union

from . import _native, exceptions
from .common import URI, sanitize_uri
from .expr import Expr, col, func, lit
from ._unsupported import reject_unsupported
from .db import DBConnection, LanceDBConnection, ListTablesResponse, Session
from .job import AsyncJob, Job
from .materialized_view import (
    AsyncMaterializedView,
    MaterializedView,
    MaterializedViewDefinition,
)
from .namespace import (
    AsyncLanceNamespaceDBConnection,
    LanceNamespaceDBConnection,
    connect_namespace,
    connect_namespace_async,
)
from .query import LanceEmptyQueryBuilder, LanceQueryBuilder, LanceTakeQueryBuilder
from .remote import RemoteDBConnection
from .schema import blob, vector
from .sql import AsyncQuery as AsyncSqlQuery
from .sql import Query as SqlQuery
from .sql import QueryDescription
from .table import AddResult, DeleteResult, LanceTable, LsmWriteSpec, Table, UpdateResult
from ._async import AsyncConnection, AsyncTable, connect_async
from . import pydantic  # noqa: F401  (lancedb.pydantic)
from . import embeddings  # noqa: F401  (lancedb.embeddings)

__version__ = _native.__version__

# LanceDB names its native extension module ``lancedb._lancedb``; ours (whose API is our own)
# answers to that name too, e.g. for tools that inspect the extension's file.
_lancedb = _native
__import__("sys").modules[__name__ + "._lancedb"] = _native


class FtsToken:
    """One token of ``tokenize()``: its text and its position among the query's tokens."""

    __slots__ = ("text", "position")

    def __init__(self, text: str, position: int):
        self.text = text
        self.position = position

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, FtsToken)
            and self.text == other.text
            and self.position == other.position
        )

    def __repr__(self) -> str:
        return f'FtsToken(text="{self.text}", position={self.position})'


def tokenize(
    query: str,
    *,
    base_tokenizer: str = "simple",
    language: str = "English",
    max_token_length: Optional[int] = 40,
    lower_case: bool = True,
    stem: bool = True,
    remove_stop_words: bool = True,
    custom_stop_words: Optional[List[str]] = None,
    ascii_folding: bool = True,
    ngram_min_length: int = 3,
    ngram_max_length: int = 3,
    prefix_only: bool = False,
) -> List[FtsToken]:
    """Tokenize a full-text query as an FTS index built with these options would (the same
    options as :class:`lancedb_cpp.index.FTS`); no index needed."""
    from ._index import analysis_kwargs
    from .index import FTS

    config = FTS(
        base_tokenizer=base_tokenizer,
        language=language,
        max_token_length=max_token_length,
        lower_case=lower_case,
        stem=stem,
        remove_stop_words=remove_stop_words,
        custom_stop_words=custom_stop_words,
        ascii_folding=ascii_folding,
        ngram_min_length=ngram_min_length,
        ngram_max_length=ngram_max_length,
        prefix_only=prefix_only,
    )
    pairs = _native.tokenize(query, **analysis_kwargs(config))
    return [FtsToken(text, position) for text, position in pairs]

__all__ = [
    "AddResult",
    "AsyncConnection",
    "AsyncJob",
    "AsyncLanceNamespaceDBConnection",
    "AsyncMaterializedView",
    "AsyncSqlQuery",
    "AsyncTable",
    "BlobType",
    "DBConnection",
    "DeleteResult",
    "Expr",
    "FtsToken",
    "Job",
    "LanceDBConnection",
    "LanceEmptyQueryBuilder",
    "LanceNamespaceDBConnection",
    "LanceQueryBuilder",
    "LanceTable",
    "LanceTakeQueryBuilder",
    "ListTablesResponse",
    "LsmWriteSpec",
    "MaterializedView",
    "MaterializedViewDefinition",
    "QueryDescription",
    "RemoteDBConnection",
    "Session",
    "SqlQuery",
    "Table",
    "URI",
    "UpdateResult",
    "blob",
    "col",
    "connect",
    "connect_async",
    "connect_namespace",
    "connect_namespace_async",
    "exceptions",
    "func",
    "lit",
    "sanitize_uri",
    "tokenize",
    "vector",
]


def connect(
    uri: Union[str, "os.PathLike[str]"],
    *,
    api_key: Optional[str] = None,
    region: str = "us-east-1",
    host_override: Optional[str] = None,
    sql_host_override: Optional[str] = None,
    read_consistency_interval: Optional[timedelta] = None,
    request_thread_pool: Any = None,
    client_config: Any = None,
    storage_options: Optional[Dict[str, str]] = None,
    session: Any = None,
    manifest_enabled: bool = False,
    namespace_client_impl: Optional[str] = None,
    namespace_client_properties: Optional[Dict[str, str]] = None,
    namespace_client_pushdown_operations: Optional[List[str]] = None,
    **kwargs: Any,
) -> DBConnection:
    """Connect to a LanceDB database.

    Parameters
    ----------
    uri: str or Path
        A local directory (created on first write), ``memory://name``,
        ``s3://bucket/prefix`` (AWS S3 or an S3-compatible store; docs/object-storage.md), or
        ``db://name`` for a remote database (with `api_key`, `region`, `host_override`,
        `client_config`; see docs/remote.md).
    read_consistency_interval: timedelta, optional
        None (default): a table handle sees other writers' versions only after
        ``checkout_latest()``; ``timedelta(0)``: before every read; otherwise at most that
        often.
    storage_options: dict, optional
        LanceDB's ``new_table_*`` keys (``new_table_enable_stable_row_ids``,
        ``new_table_data_storage_version``, ``new_table_enable_v2_manifest_paths``); for an
        ``s3://`` URI also LanceDB's object-store keys (``aws_access_key_id``,
        ``aws_secret_access_key``, ``aws_session_token``, ``aws_region``, ``aws_endpoint``,
        ``allow_http``, ``timeout``, ...; an unknown one raises ValueError). Other keys raise
        NotImplementedError.

    The other parameters of ``lancedb.connect`` (sessions, namespaces) are not supported for
    local databases: anything but their defaults raises NotImplementedError. Unknown keyword
    arguments raise ValueError, as in LanceDB.

    Returns
    -------
    DBConnection
    """
    uri = os.fspath(uri)
    if uri.startswith("db://"):  # a remote database: lancedb_cpp/remote/db.py
        from .remote.db import connect_remote

        return connect_remote(uri, api_key, region, host_override, sql_host_override,
                              read_consistency_interval, request_thread_pool, client_config,
                              storage_options, **kwargs)  # fmt: skip
    reject_unsupported(
        "connect",
        api_key=(api_key, None),
        region=(region, "us-east-1"),
        host_override=(host_override, None),
        sql_host_override=(sql_host_override, None),
        request_thread_pool=(request_thread_pool, None),
        client_config=(client_config, None),
        session=(session, None),
        manifest_enabled=(manifest_enabled, False),
        namespace_client_impl=(namespace_client_impl, None),
        namespace_client_properties=(namespace_client_properties, None),
        namespace_client_pushdown_operations=(namespace_client_pushdown_operations, None),
    )
    if kwargs:
        raise ValueError(f"Unknown keyword arguments: {kwargs}")
    return DBConnection(
        uri,
        read_consistency_interval=read_consistency_interval,
        storage_options=storage_options,
    )


def __getattr__(name: str):
    # BlobType is the class registered for lance.blob.v2: pylance's when it is installed (as in
    # LanceDB), resolved on first use so that importing lancedb_cpp does not import pylance.
    if name == "BlobType":
        from .schema import resolve_blob_type

        return resolve_blob_type()
    if name == "deserialize_conn":  # lancedb.deserialize_conn (remote/db.py)
        from .remote.db import deserialize_conn

        return deserialize_conn
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
