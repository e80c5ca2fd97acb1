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


def _namespace_base(name: str) -> tuple:
    """lance_namespace's exception of `name` (what LanceDB raises for namespace errors), as an
    extra base class when lance_namespace is installed, so that ``except`` clauses written for
    LanceDB catch ours; nothing otherwise."""
    try:
        from lance_namespace import errors
    except ImportError:
        return ()
    base = getattr(errors, name, None)
    return (base,) if isinstance(base, type) and issubclass(base, Exception) else ()


class NamespaceNotFoundError(RuntimeError, *_namespace_base("NamespaceNotFoundError")):
    """No namespace has the given path (LanceDB raises a RuntimeError, or lance_namespace's
    error of this name)."""


class NamespaceAlreadyExistsError(RuntimeError, *_namespace_base("NamespaceAlreadyExistsError")):
    """A namespace with the given path already exists."""


class NamespaceNotEmptyError(RuntimeError, *_namespace_base("NamespaceNotEmptyError")):
    """The namespace holds tables or namespaces: drop them first, or drop it with
    ``behavior="cascade"``."""


class TableNotFoundError(ValueError, *_namespace_base("TableNotFoundError")):
    """No table of the namespace has the given name (a ValueError, as LanceDB's
    "Table ... was not found")."""


# lance_namespace's error codes where it is installed; its numbering otherwise.
for _cls, _code in ((NamespaceNotFoundError, 1), (NamespaceAlreadyExistsError, 2),
                    (NamespaceNotEmptyError, 3), (TableNotFoundError, 4)):  # fmt: skip
    if not hasattr(_cls, "code"):
        _cls.code = _code
