# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Handles to SQL queries (``lancedb.sql``): not supported by lancedb_cpp yet (LanceDB runs
them on remote databases only). The classes exist; constructing one raises
NotImplementedError."""

from __future__ import annotations

from ._not_yet import SQL, unsupported_class

AsyncQuery = unsupported_class("AsyncQuery", SQL, __name__)
Query = unsupported_class("Query", SQL, __name__)
QueryDescription = unsupported_class("QueryDescription", SQL, __name__)

__all__ = ["AsyncQuery", "Query", "QueryDescription"]
