# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Exceptions raised by lancedb_cpp beyond Python's built-in ones."""

from __future__ import annotations


class CommitConflictError(OSError):
    """A write conflicted with a concurrent writer and changed nothing.

    A subclass of :class:`OSError`, which LanceDB raises for commit conflicts, so that
    ``except OSError`` keeps working. ``retryable`` is True when running the same write again
    on the newest version can succeed (it was preempted, or contention outlasted its time
    limit), False when it cannot (another writer overwrote or restored the table, or changed
    the same configuration).
    """

    def __init__(self, message: str = "", retryable: bool = True):
        super().__init__(message)
        self.retryable = retryable


class MissingValueError(ValueError):
    """A required value was not given (e.g. a context window size)."""


class MissingColumnError(KeyError):
    """A named column is not in the DataFrame."""

    def __init__(self, column_name: str):
        super().__init__(column_name)
        self.column_name = column_name

    def __str__(self) -> str:
        return f"Error: Column '{self.column_name}' does not exist in the DataFrame object"


class JobFailedError(RuntimeError):
    """A background job ended in the failed state."""


class JobCancelledError(RuntimeError):
    """A background job was cancelled."""


class JobNotFoundError(ValueError):
    """No job has the requested id."""


class NamespaceNotFoundError(RuntimeError):
    """No namespace has the given path (LanceDB raises a RuntimeError, or lance_namespace's
    error of this name)."""

    code = 1


class NamespaceAlreadyExistsError(RuntimeError):
    """A namespace with the given path already exists."""

    code = 2


class NamespaceNotEmptyError(RuntimeError):
    """The namespace holds tables or namespaces: drop them first, or drop it with
    ``behavior="cascade"``."""

    code = 3


class TableNotFoundError(ValueError):
    """No table of the namespace has the given name (a ValueError, as LanceDB's
    "Table ... was not found")."""

    code = 4
