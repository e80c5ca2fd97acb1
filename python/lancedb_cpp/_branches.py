# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Branches of a table, cherry-picks between them, and table clones (LanceDB's
``Table.branches``, ``Table.current_branch``, ``DBConnection.open_table(branch=...)`` and
``DBConnection.clone_table``).

A branch is a Lance branch: ``{table}/tree/{name}/`` with its metadata in
``{table}/_refs/branches/``, so pylance (``LanceDataset.create_branch``,
``checkout_version((branch, version))``) and LanceDB open ours and we open theirs. Unlike
LanceDB's open-source build, which refuses ``diff`` and ``cherry_pick`` on local tables, they
work here: ``cherry_pick`` replays the branch's commits onto the branch it was created from and
reports a conflict (``status="failed"``) instead of raising.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Dict, Optional

from . import _native

if TYPE_CHECKING:  # pragma: no cover
    from ._async import AsyncTable
    from .db import DBConnection
    from .table import Table


def _check_name(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} must be a string, got {type(value).__name__}")
    if what == "branch name" and not value:
        # LanceDB's words; an empty name never means the main branch.
        raise ValueError("Invalid input, branch name must be a non-empty string")
    return value


def _check_version(value: Any, what: str) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{what} must be a non-negative integer, got {value!r}")
    return int(value)


def _wrap(table: "Table", inner: Any, version: Optional[int]) -> "Table":
    """A handle of the same kind as `table` on `inner` (pinned to `version` when given)."""
    from .table import Table

    handle = Table(table._conn, table.name, _inner=inner)
    handle._namespace = table._namespace
    if version is not None:
        handle._pinned = version
    return handle


class Branches:
    """A table's branches (``Table.branches``): isolated, writable lines of history created
    from a version of another branch. ``"main"`` (or ``""``) names the main branch."""

    def __init__(self, parent: "Table"):
        self._table = parent

    def list(self) -> Dict[str, Dict[str, Any]]:
        """Every branch: ``{name: {"parent_branch", "parent_version", "manifest_size"}}``
        (``parent_branch`` is None for main), as LanceDB lists them."""
        return {
            name: {
                "parent_branch": parent,
                "parent_version": parent_version,
                "manifest_size": manifest_size,
            }
            for name, (parent, parent_version, _created, manifest_size) in _native.list_branches(
                self._table._inner
            ).items()
        }

    def create(
        self,
        name: str,
        from_ref: Optional[str] = None,
        from_version: Optional[int] = None,
    ) -> "Table":
        """Create branch `name` from the latest version of main, or of the branch `from_ref`
        (a tag when no branch has that name), or from its version `from_version`, and return a
        writable handle on it. ValueError for a bad name, an existing branch or an unknown
        source."""
        name = _check_name(name, "branch name")
        if from_ref is not None:
            from_ref = _check_name(from_ref, "from_ref")
        from_version = _check_version(from_version, "from_version")
        return _wrap(
            self._table,
            _native.create_branch(self._table._inner, name, from_ref, from_version),
            None,
        )

    def checkout(self, name: str, version: Optional[int] = None) -> "Table":
        """A handle on branch `name`: at its latest version (writable), or read-only at
        `version`."""
        name = _check_name(name, "branch name")
        version = _check_version(version, "version")
        return _wrap(
            self._table, _native.checkout_branch(self._table._inner, name, version), version
        )

    def delete(self, name: str) -> None:
        """Delete branch `name` and its files (ValueError while a tag points into it, another
        branch was created from it, or this handle is on it)."""
        _native.delete_branch(self._table._inner, _check_name(name, "branch name"))

    def diff(self, from_branch: str) -> Dict[str, Any]:
        """How `from_branch` differs from this handle's branch, which it was created from:
        LanceDB's BranchDiff (camelCase keys: fromBranch, parentVersion, mainVersion,
        branchVersion, baseMoved, rowCountMain, rowCountBranch, rowSummary, addedColumns,
        removedColumns, changedColumns, addedIndexes, removedIndexes, errors)."""
        from_branch = _check_name(from_branch, "from_branch")
        return json.loads(_native.diff_branch(self._table._inner, from_branch))

    def cherry_pick(self, from_branch: str, dry_run: bool = False) -> Dict[str, Any]:
        """Replay the commits `from_branch` made since it was created onto this handle's
        branch. Returns LanceDB's CherryPickResult: ``status`` is "ready" (dry run: it would
        apply), "cherryPicked" (applied; ``mainVersionAfter`` is the new version), "failed"
        (a conflict, described in ``diff["errors"]``; nothing was committed) or
        "notImplemented"; plus ``diff`` and ``preview`` (``promotedColumns``). A failure does
        not raise."""
        from_branch = _check_name(from_branch, "from_branch")
        if not isinstance(dry_run, bool):
            raise ValueError(f"dry_run must be a bool, got {dry_run!r}")
        if not dry_run:
            self._table._check_writable()
        result = json.loads(_native.cherry_pick(self._table._inner, from_branch, dry_run))
        return result


class AsyncBranches:
    """A table's branches, for use with ``await`` (``AsyncTable.branches``)."""

    def __init__(self, table: "Table"):
        self._sync = Branches(table)

    async def list(self) -> Dict[str, Dict[str, Any]]:
        from ._async import _to_thread

        return await _to_thread(self._sync.list)

    async def create(
        self,
        name: str,
        from_ref: Optional[str] = None,
        from_version: Optional[int] = None,
    ) -> "AsyncTable":
        from ._async import AsyncTable, _to_thread

        return AsyncTable(await _to_thread(self._sync.create, name, from_ref, from_version))

    async def checkout(self, name: str, version: Optional[int] = None) -> "AsyncTable":
        from ._async import AsyncTable, _to_thread

        return AsyncTable(await _to_thread(self._sync.checkout, name, version))

    async def delete(self, name: str) -> None:
        from ._async import _to_thread

        await _to_thread(self._sync.delete, name)

    async def diff(self, from_branch: str) -> Dict[str, Any]:
        from ._async import _to_thread

        return await _to_thread(self._sync.diff, from_branch)

    async def cherry_pick(self, from_branch: str, dry_run: bool = False) -> Dict[str, Any]:
        from ._async import _to_thread

        return await _to_thread(self._sync.cherry_pick, from_branch, dry_run)


def current_branch(table: "Table") -> Optional[str]:
    """The branch `table` is on; None for main."""
    return _native.current_branch(table._inner)


def checkout_tag(table: "Table", tag: str) -> None:
    """Pin `table` to the version `tag` names, on the tag's branch."""
    _native.checkout_tag(table._inner, _check_name(tag, "tag"))
    table._pinned = table._inner.version()


def open_table(
    conn: "DBConnection", name: str, branch: Optional[str], version: Optional[int]
) -> "Table":
    """``open_table(name, branch=..., version=...)``: a handle on that branch ("main" or ""
    for main), read-only when `version` is given."""
    from .table import Table

    branch = _check_name(branch, "branch")
    version = _check_version(version, "version")
    table = Table(conn, name, _inner=_native.open_branch(conn._inner, name, branch, version))
    if version is not None:
        table._pinned = version
    return table


def clone_table(
    conn: "DBConnection",
    target_table_name: str,
    source_uri: Any,
    source_version: Optional[int] = None,
    source_tag: Optional[str] = None,
    is_shallow: bool = True,
) -> "Table":
    """``clone_table``: a new table `target_table_name` from the Lance dataset at
    `source_uri` (its latest version, `source_version` or the version of `source_tag`). A
    shallow clone references the source's files and is registered in the source so that its
    cleanup keeps them; a deep clone copies them."""
    import os

    from .table import Table

    target_table_name = _check_name(target_table_name, "target_table_name")
    if isinstance(source_uri, os.PathLike):
        source_uri = os.fspath(source_uri)
    source_uri = _check_name(source_uri, "source_uri")
    source_version = _check_version(source_version, "source_version")
    if source_tag is not None:
        source_tag = _check_name(source_tag, "source_tag")
    if source_version is not None and source_tag is not None:
        raise ValueError("Invalid input, Cannot specify both source_version and source_tag")
    if not isinstance(is_shallow, bool):
        raise ValueError(f"is_shallow must be a bool, got {is_shallow!r}")
    inner = _native.clone_table(
        conn._inner, target_table_name, source_uri, source_version, source_tag, is_shallow
    )
    return Table(conn, target_table_name, _inner=inner)
