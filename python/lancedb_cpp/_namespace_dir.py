# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""The directory namespace: LanceDB's catalog of nested namespaces and their tables, kept in
the database root as the Lance table ``__manifest`` (the layout of Lance's directory namespace,
which LanceDB's ``connect_namespace("dir", ...)`` and ``connect`` read and write).

On-disk layout (one row per object, read and written through the engine):

- ``object_id``: the path of the object joined with ``$`` (``ns1$ns2$table``), the primary
  key (field metadata ``lance-schema:unenforced-primary-key:position = 0``);
- ``object_type``: ``"namespace"`` or ``"table"``;
- ``location``: a table's dataset directory under the root: ``<name>.lance`` for a table of
  the root namespace, ``<8 hex digits>_<object_id>`` for a table of a child namespace;
- ``metadata``: a namespace's properties as a JSON object (null when it has none);
- ``base_objects``: ``list<string>``, reserved (kept as read).

The root namespace has no row. Every change rewrites the whole manifest as one new version
committed exactly on top of the version it read (an overwrite with an expected version); when
another writer committed first, the change is read and applied again. Table data is written
before its row is committed and deleted after its row is removed, so a failure never leaves a
row without a table.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

import pyarrow as pa

from .exceptions import (
    CommitConflictError,
    NamespaceAlreadyExistsError,
    NamespaceNotEmptyError,
    NamespaceNotFoundError,
    TableNotFoundError,
)

MANIFEST = "__manifest"
DELIMITER = "$"
_NAMESPACE = "namespace"
_TABLE = "table"
_COMMIT_ATTEMPTS = 20
_NAME = re.compile(r"[A-Za-z0-9_.\-]+")

MANIFEST_SCHEMA = pa.schema(
    [
        pa.field(
            "object_id",
            pa.string(),
            nullable=False,
            metadata={"lance-schema:unenforced-primary-key:position": "0"},
        ),
        pa.field("object_type", pa.string(), nullable=False),
        pa.field("location", pa.string()),
        pa.field("metadata", pa.string()),
        pa.field("base_objects", pa.list_(pa.field("object_id", pa.string()))),
    ]
)


@dataclass
class ListNamespacesResponse:
    """One page of child namespace names; pass ``page_token`` back for the next page (None:
    done)."""

    namespaces: List[str] = field(default_factory=list)
    page_token: Optional[str] = None


@dataclass
class CreateNamespaceResponse:
    """The properties of the namespace created (None when it has none)."""

    properties: Optional[Dict[str, str]] = None
    transaction_id: Optional[str] = None


@dataclass
class DropNamespaceResponse:
    """The properties of the namespace dropped (None when it had none or did not exist)."""

    properties: Optional[Dict[str, str]] = None
    transaction_id: Optional[List[str]] = None


@dataclass
class DescribeNamespaceResponse:
    """A namespace's properties (None when it has none; ``{}`` for the root)."""

    properties: Optional[Dict[str, str]] = None


# Validation -----------------------------------------------------------------------------------


def check_path(namespace_path: Optional[List[str]], what: str = "namespace") -> List[str]:
    """`namespace_path` as a list of valid names (None: the root, ``[]``); ValueError naming the
    bad component otherwise. Names follow the table-name rule (letters, digits, ``_``, ``-``,
    ``.``; not ``.`` or ``..``), so that no name can leave the root or contain the delimiter."""
    if namespace_path is None:
        return []
    if isinstance(namespace_path, str) or not isinstance(namespace_path, (list, tuple)):
        raise ValueError(
            f"{what} path must be a list of names, got {type(namespace_path).__name__} "
            f"{namespace_path!r}"
        )
    path = list(namespace_path)
    for part in path:
        check_name(part, "namespace")
    return path


def check_name(name: Any, kind: str) -> str:
    """ValueError unless `name` is a valid namespace or table name."""
    if not isinstance(name, str):
        raise ValueError(f"Invalid {kind} name {name!r}: it must be a string")
    if not name:
        raise ValueError(f'Invalid {kind} name (""): {kind} names cannot be empty strings')
    if name in (".", ".."):
        raise ValueError(f'Invalid {kind} name ("{name}"): it cannot be "." or ".."')
    if not _NAME.fullmatch(name):
        raise ValueError(
            f'Invalid {kind} name ("{name}"): {kind} names can only contain alphanumeric '
            "characters, underscores, hyphens, and periods"
        )
    return name


def _normalize(value: Optional[str], allowed: Tuple[str, ...], what: str) -> Optional[str]:
    if value is None:
        return None
    normalized = str(value).lower().replace("existok", "exist_ok")
    if normalized not in allowed:
        raise ValueError(
            f"Invalid {what} {value!r}: expected one of " + ", ".join(repr(a) for a in allowed)
        )
    return normalized


def object_id(path: List[str]) -> str:
    return DELIMITER.join(path)


def _describe(path: List[str]) -> str:
    return object_id(path) if path else "root namespace"


def _properties(metadata: Optional[str]) -> Optional[Dict[str, str]]:
    if metadata is None:
        return None
    parsed = json.loads(metadata)
    return {str(k): str(v) for k, v in parsed.items()}


# The catalog ----------------------------------------------------------------------------------


class _Snapshot:
    """The manifest's rows at one version, by object id (sorted)."""

    def __init__(self, rows: List[Dict[str, Any]], schema: pa.Schema, version: Optional[int]):
        self.rows = {row["object_id"]: row for row in rows}
        self.schema = schema
        self.version = version  # None: no manifest yet

    def get(self, oid: str, kind: str) -> Optional[Dict[str, Any]]:
        row = self.rows.get(oid)
        return row if row is not None and row["object_type"] == kind else None

    def children(self, path: List[str], kind: str) -> List[str]:
        prefix = object_id(path) + DELIMITER if path else ""
        names = []
        for oid, row in self.rows.items():
            if row["object_type"] != kind or not oid.startswith(prefix):
                continue
            rest = oid[len(prefix):]
            if rest and DELIMITER not in rest:
                names.append(rest)
        return sorted(names)

    def descendants(self, path: List[str]) -> List[str]:
        prefix = object_id(path) + DELIMITER
        return sorted(oid for oid in self.rows if oid.startswith(prefix))


def page(names: List[str], page_token: Optional[str], limit: Optional[int]):
    """The names after `page_token`, at most `limit`, and the next page's token (the last name
    of this page when more follow, else None)."""
    if limit is not None and limit <= 0:
        return [], None  # as LanceDB's list_tables
    after = [n for n in names if not page_token or n > page_token]
    if limit is None or len(after) <= limit:
        return after, None
    return after[:limit], after[limit - 1]


class DirectoryCatalog:
    """The namespaces and namespaced tables of one database root, over an engine connection
    (``_native.Connection``). Safe to share between threads and processes: every change is
    committed against the manifest version it read."""

    def __init__(self, native: Any):
        self._native = native

    # Manifest I/O ---------------------------------------------------------------------------

    def snapshot(self) -> _Snapshot:
        from .table import _stream_to_reader

        try:
            handle = self._native.open_table_at(MANIFEST, MANIFEST)
        except ValueError as e:
            if "was not found" not in str(e):
                raise
            return _Snapshot([], MANIFEST_SCHEMA, None)
        table = _stream_to_reader(handle.scan()).read_all()
        return _Snapshot(table.to_pylist(), table.schema, handle.version())

    def _commit(self, snap: _Snapshot) -> None:
        rows = [snap.rows[oid] for oid in sorted(snap.rows)]
        data = pa.Table.from_pylist(rows, schema=snap.schema)
        if snap.version is None:
            self._native.create_table_at(MANIFEST, MANIFEST, data, "create")
        else:
            handle = self._native.open_table_at(MANIFEST, MANIFEST)
            handle.add(data, "overwrite", snap.version)

    def mutate(self, change: Callable[[_Snapshot], Any]) -> Any:
        """Apply `change` (which edits the snapshot's rows in place and returns a result, or
        raises to abandon) to the newest manifest and commit it; read and apply again when
        another writer committed first."""
        for _ in range(_COMMIT_ATTEMPTS):
            snap = self.snapshot()
            result, changed = change(snap)
            if not changed:
                return result
            try:
                self._commit(snap)
                return result
            except CommitConflictError as e:
                if not e.retryable:
                    raise
            except ValueError as e:  # another writer created the manifest first
                if snap.version is not None or "already exists" not in str(e):
                    raise
        raise CommitConflictError(
            f"Too much contention on the namespace manifest: gave up after {_COMMIT_ATTEMPTS} "
            "attempts; retry later"
        )

    # Namespaces -----------------------------------------------------------------------------

    def require_namespace(self, snap: _Snapshot, path: List[str]) -> None:
        if path and snap.get(object_id(path), _NAMESPACE) is None:
            raise NamespaceNotFoundError(f"Namespace not found: {object_id(path)}")

    def create_namespace(self, path: List[str], mode: Optional[str], properties) -> Any:
        mode = _normalize(mode, ("create", "exist_ok", "overwrite"), "create namespace mode")
        props = None if properties is None else {str(k): str(v) for k, v in properties.items()}
        oid = object_id(path)

        def change(snap: _Snapshot):
            if not path:
                if mode == "exist_ok":
                    return CreateNamespaceResponse(properties={}), False
                raise NamespaceAlreadyExistsError("Namespace already exists: root namespace")
            if len(path) > 1 and snap.get(object_id(path[:-1]), _NAMESPACE) is None:
                raise NamespaceNotFoundError(
                    f"Namespace not found: parent namespace '{object_id(path[:-1])}'"
                )
            existing = snap.rows.get(oid)
            if existing is not None and existing["object_type"] != _NAMESPACE:
                raise NamespaceAlreadyExistsError(
                    f"Cannot create namespace {oid}: a table has that identifier"
                )
            if existing is not None and mode in (None, "create"):
                raise NamespaceAlreadyExistsError(f"Namespace already exists: {oid}")
            if existing is not None and mode == "exist_ok":
                return CreateNamespaceResponse(_properties(existing["metadata"])), False
            metadata = json.dumps(props, separators=(",", ":")) if props else None
            row = dict(existing or {}) or {k: None for k in snap.schema.names}
            row.update(object_id=oid, object_type=_NAMESPACE, metadata=metadata)
            snap.rows[oid] = row
            return CreateNamespaceResponse(properties=props or None), True

        return self.mutate(change)

    def list_namespaces(self, path: List[str], page_token, limit) -> ListNamespacesResponse:
        snap = self.snapshot()
        self.require_namespace(snap, path)
        names, token = page(snap.children(path, _NAMESPACE), page_token, limit)
        return ListNamespacesResponse(namespaces=names, page_token=token)

    def describe_namespace(self, path: List[str]) -> DescribeNamespaceResponse:
        if not path:
            return DescribeNamespaceResponse(properties={})
        row = self.snapshot().get(object_id(path), _NAMESPACE)
        if row is None:
            raise NamespaceNotFoundError(f"Namespace not found: {object_id(path)}")
        return DescribeNamespaceResponse(properties=_properties(row["metadata"]))

    def namespace_exists(self, path: List[str]) -> bool:
        return not path or self.snapshot().get(object_id(path), _NAMESPACE) is not None

    def drop_namespace(self, path: List[str], mode: Optional[str], behavior: Optional[str]):
        mode = _normalize(mode, ("skip", "fail"), "drop namespace mode")
        behavior = _normalize(behavior, ("restrict", "cascade"), "drop namespace behavior")
        if not path:
            raise ValueError("Invalid input: Root namespace cannot be dropped")
        oid = object_id(path)
        doomed: List[str] = []

        def change(snap: _Snapshot):
            doomed.clear()
            row = snap.get(oid, _NAMESPACE)
            if row is None:
                if mode == "skip":
                    return DropNamespaceResponse(), False
                raise NamespaceNotFoundError(f"Namespace not found: {oid}")
            inside = snap.descendants(path)
            if inside and behavior != "cascade":
                raise NamespaceNotEmptyError(
                    f"Namespace not empty: '{oid}' (contains {len(inside)} child objects); "
                    "drop them first or pass behavior='cascade'"
                )
            for child in inside:
                gone = snap.rows.pop(child)
                if gone["object_type"] == _TABLE and gone["location"]:
                    doomed.append(gone["location"])
            del snap.rows[oid]
            return DropNamespaceResponse(properties=_properties(row["metadata"])), True

        response = self.mutate(change)
        for location in doomed:  # unreachable now: a failure here only leaves files behind
            self._drop_location(location)
        return response

    # Tables ---------------------------------------------------------------------------------

    def table_row(self, path: List[str], name: str) -> Optional[Dict[str, Any]]:
        return self.snapshot().get(object_id(path + [name]), _TABLE)

    def list_tables(self, path: List[str], page_token, limit, extra=()) -> Tuple[List[str], Any]:
        snap = self.snapshot()
        self.require_namespace(snap, path)
        names = sorted(set(snap.children(path, _TABLE)) | set(extra))
        return page(names, page_token, limit)

    def open_table(self, path: List[str], name: str, version: Optional[int]) -> Any:
        row = self.table_row(path, name)
        if row is None:
            raise TableNotFoundError(f"Table not found: {object_id(path + [name])}")
        return self._native.open_table_at(row["location"], name, version)

    def create_table(self, path: List[str], name: str, mode: str,
                     write: Callable[[str, str], Any]) -> Any:
        """Create (or, per `mode`, open or overwrite) table `name` of child namespace `path`:
        `write(location, native_mode)` writes its dataset, in a new directory of its own; the
        row is committed after it (and the directory deleted when that fails)."""
        assert path, "root tables are created as <name>.lance by the connection"
        oid = object_id(path + [name])
        snap = self.snapshot()
        self.require_namespace(snap, path)
        if oid in snap.rows and snap.rows[oid]["object_type"] != _TABLE:
            raise ValueError(f"Cannot create table {oid}: a namespace has that identifier")
        row = snap.get(oid, _TABLE)
        if row is not None:
            if mode == "create":
                raise ValueError(f"Table '{name}' already exists")
            return write(row["location"], mode)
        location = f"{secrets.token_hex(4)}_{oid}"
        inner = write(location, "create")

        def change(snap: _Snapshot):
            self.require_namespace(snap, path)
            if oid in snap.rows:
                raise ValueError(f"Table '{name}' already exists")
            row = {k: None for k in snap.schema.names}
            row.update(object_id=oid, object_type=_TABLE, location=location)
            snap.rows[oid] = row
            return None, True

        try:
            self.mutate(change)
        except BaseException:
            self._drop_location(location)
            raise
        return inner

    def register_table(self, path: List[str], name: str, location: str) -> None:
        """Add the row of an existing dataset (a root table created by directory listing)."""
        oid = object_id(path + [name])

        def change(snap: _Snapshot):
            if oid in snap.rows:
                return None, False
            row = {k: None for k in snap.schema.names}
            row.update(object_id=oid, object_type=_TABLE, location=location)
            snap.rows[oid] = row
            return None, True

        self.mutate(change)

    def drop_table(self, path: List[str], name: str) -> bool:
        """Remove the table's row, then its dataset; False when there is no such row."""
        oid = object_id(path + [name])
        found: List[str] = []

        def change(snap: _Snapshot):
            row = snap.get(oid, _TABLE)
            if row is None:
                return None, False
            found.append(row["location"])
            del snap.rows[oid]
            return None, True

        self.mutate(change)
        for location in found[-1:]:
            self._drop_location(location)
        return bool(found)

    def _drop_location(self, location: str) -> None:
        try:
            self._native.drop_table_at(location)
        except ValueError:
            pass  # already gone, or a location that is not one directory under the root
