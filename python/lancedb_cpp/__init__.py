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
from typing import Any, Dict, Optional, Union

from . import _native, exceptions
from .db import DBConnection, LanceDBConnection, ListTablesResponse
from .query import LanceEmptyQueryBuilder, LanceQueryBuilder, LanceTakeQueryBuilder
from .table import AddResult, DeleteResult, LanceTable, Table, UpdateResult

__version__ = _native.__version__

__all__ = [
    "AddResult",
    "DBConnection",
    "DeleteResult",
    "LanceDBConnection",
    "LanceEmptyQueryBuilder",
    "LanceQueryBuilder",
    "LanceTable",
    "LanceTakeQueryBuilder",
    "ListTablesResponse",
    "Table",
    "UpdateResult",
    "connect",
    "exceptions",
]


def connect(
    uri: Union[str, "os.PathLike[str]"],
    *,
    read_consistency_interval: Optional[timedelta] = None,
    storage_options: Optional[Dict[str, str]] = None,
    **kwargs: Any,
) -> DBConnection:
    """Connect to a LanceDB database.

    Parameters
    ----------
    uri: str or Path
        A local directory (created on first write) or ``memory://name``.
    read_consistency_interval: timedelta, optional
        None (default): a table handle sees other writers' versions only after
        ``checkout_latest()``; ``timedelta(0)``: before every read; otherwise at most that
        often.
    storage_options: dict, optional
        Storage options (object-store keys and LanceDB's ``new_table_*`` keys).

    Returns
    -------
    DBConnection
    """
    uri = os.fspath(uri)
    if uri.startswith("db://"):
        raise NotImplementedError("LanceDB Cloud (db://) connections are not supported")
    for key in ("api_key", "host_override", "client_config", "namespace_client_impl"):
        if kwargs.get(key) is not None:
            raise NotImplementedError(f"connect({key}=...) is not supported")
    return DBConnection(
        uri,
        read_consistency_interval=read_consistency_interval,
        storage_options=storage_options,
    )
