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
