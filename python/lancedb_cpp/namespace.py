# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Namespaces (``lancedb.namespace``): not supported yet; the names exist and raise
NotImplementedError."""

from ._not_yet import unsupported_class, unsupported_function

_FEATURE = "namespaces (connect_namespace)"
LanceNamespaceDBConnection = unsupported_class("LanceNamespaceDBConnection", _FEATURE)
AsyncLanceNamespaceDBConnection = unsupported_class("AsyncLanceNamespaceDBConnection", _FEATURE)
connect_namespace = unsupported_function("connect_namespace", _FEATURE)
connect_namespace_async = unsupported_function("connect_namespace_async", _FEATURE)

__all__ = [
    "AsyncLanceNamespaceDBConnection",
    "LanceNamespaceDBConnection",
    "connect_namespace",
    "connect_namespace_async",
]
