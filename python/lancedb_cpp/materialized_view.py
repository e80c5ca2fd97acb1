# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Materialized views (``lancedb.materialized_view``): tables defined by a query over a
source table and maintained by refresh.

A view is an ordinary table holding the definition's columns plus ``__source_row_id`` (the
source row's stable id). Its schema metadata holds the definition (``mv.definition``, JSON as
LanceDB writes it) and, once refreshed, the source version it reflects (``mv.source_version``,
``mv.source_version_ts``, ``mv.view_version``, ``mv.refreshed_at_ms``).

A refresh reads the source at the target version and commits, in one commit on exactly the
view version it started from, the rows to remove, the rows to add and the new metadata (the
engine's ``Table::ReplaceRows``); a concurrent refresh that committed first makes it fail
with CommitConflictError and write nothing. The first refresh (and ``full=True``) rebuilds.
Later ones are incremental: the engine lists the source rows inserted, updated and deleted
since ``mv.source_version`` (``Table::ChangedRows``: stable row ids and per-row last-updated
versions; compaction and column additions change no row), and only those are recomputed. A
view with a ``limit`` is rebuilt when source rows were updated or deleted; history rewrites
(restore, overwrite), a target older than the view's source version, a changed input column,
a recreated source and drift (another commit on the view since its last refresh) also
rebuild, as in LanceDB."""

from __future__ import annotations

import json
import re
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import pyarrow as pa

DEFINITION_META_KEY = b"mv.definition"
SOURCE_VERSION_KEY = "mv.source_version"
SOURCE_TS_KEY = "mv.source_version_ts"
VIEW_VERSION_KEY = "mv.view_version"
SOURCE_ROW_ID = "__source_row_id"
MAX_LIMIT = 2**63 - 1

# What ``select`` of create_materialized_view takes: a column, a list of columns or
# (alias, expression) pairs, or {alias: expression}.
SelectArg = Union[str, Sequence[Union[str, Tuple[str, str]]], Dict[str, str], None]


@dataclass
class MaterializedViewDefinition:
    """The query that defines a materialized view."""

    source_table: str
    projections: List[Tuple[str, str]]  # (output column, SQL expression), in view order
    filter: Optional[str] = None
    limit: Optional[int] = None
    inputs: List[str] = field(default_factory=list)  # source columns read
    source_namespace: List[str] = field(default_factory=list)  # empty: the root namespace


def _definition(schema: Any, name: str) -> MaterializedViewDefinition:
    """The definition stored in a view's schema; ValueError for a table that is no view."""
    raw = (schema.metadata or {}).get(DEFINITION_META_KEY)
    if raw is None:
        raise ValueError(f"Table '{name}' is not a materialized view")
    stored = json.loads(raw)
    kind = stored.get("kind")
    if kind not in ("select", "namespaced_select"):
        raise NotImplementedError(
            f"materialized view '{name}' is defined by '{kind}', which lancedb_cpp cannot read"
        )
    return MaterializedViewDefinition(
        source_table=stored["source_table"],
        projections=[(p["output"], p["expression"]) for p in stored.get("projections", [])],
        filter=stored.get("filter"),
        limit=stored.get("limit"),
        inputs=stored.get("inputs", []),
        source_namespace=stored.get("source_namespace", []),
    )


def normalize_select(select: SelectArg) -> Optional[List[Tuple[str, str]]]:
    """`select` as (alias, expression) pairs: a bare column name projects itself, quoted
    with backticks (so any column name works); pairs and dict items are kept as given. A
    lone string is one column."""
    if select is None:
        return None
    if isinstance(select, str):
        select = [select]
    if isinstance(select, dict):
        return list(select.items())
    pairs = []
    for item in select:
        if isinstance(item, str):
            pairs.append((item, "`" + item.replace("`", "``") + "`"))
        else:
            alias, expression = item
            pairs.append((alias, expression))
    return pairs



class RefreshMaterializedViewResult:
    """What a refresh did: ``mode`` ("rebuild", "incremental" or "no_op"), the rows it wrote,
    the source version the view now reflects and the view's version."""

    def __init__(self, mode: str, rows_written: int, source_version: int, version: int):
        self.mode = mode
        self.rows_written = rows_written
        self.source_version = source_version
        self.version = version

    def __repr__(self) -> str:
        return (
            f"RefreshMaterializedViewResult(mode={self.mode}, rows_written={self.rows_written}, "
            f"source_version={self.source_version}, version={self.version})"
        )

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, RefreshMaterializedViewResult) and vars(self) == vars(other)


# Creation -----------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"'(?:[^']|'')*'"  # a string literal (skipped)
    r"|`((?:[^`]|``)+)`"  # a backtick-quoted identifier
    r'|"((?:[^"]|"")+)"'  # a double-quoted identifier
    r"|([A-Za-z_][A-Za-z0-9_]*)"  # a bare identifier
)


def _referenced_columns(expression: str, columns: List[str]) -> List[str]:
    """The columns of `columns` an SQL expression names (string literals skipped)."""
    found = []
    for m in _TOKEN.finditer(expression):
        if m.group(1) is not None:
            name = m.group(1).replace("``", "`")
        elif m.group(2) is not None:
            name = m.group(2).replace('""', '"')
        elif m.group(3) is not None:
            name = m.group(3)
        else:
            continue
        if name in columns:
            found.append(name)
    return found


def _check_limit(limit: Any) -> Optional[int]:
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise TypeError(f"view limit must be an int, got {type(limit).__name__}")
    if limit < 0:
        raise OverflowError(f"view limit must be non-negative, got {limit}")
    if limit > MAX_LIMIT:
        raise ValueError(
            f"Invalid input, view limit {limit} exceeds the maximum of {MAX_LIMIT}"
        )
    return limit


def _stored_definition(source: str, projections: List[Tuple[str, str]], where: Optional[str],
                       limit: Optional[int], inputs: List[str]) -> str:
    value: Dict[str, Any] = {
        "inputs": inputs,
        "kind": "select",
        "projections": [{"expression": e, "output": o} for o, e in projections],
        "source_table": source,
    }
    if where is not None:
        value["filter"] = where
    if limit is not None:
        value["limit"] = limit
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _uses_stable_row_ids(source: Any) -> bool:
    from . import _native

    try:
        version = source._inner.version()
        _native.changed_rows(source._inner, version, version)
        return True
    except ValueError as e:
        if "has no stable row ids" in str(e):
            return False
        raise


def _check_no_lsm(source: Any, name: str) -> None:
    from ._not_yet import check_no_lsm_write_spec

    check_no_lsm_write_spec(
        source,
        f"source table '{name}' has an LSM write spec or retained un-compacted rows: rows in "
        "un-compacted tiers are invisible to refresh",
    )


def create_view(conn: Any, name: str, source_name: str, select: SelectArg,
                where: Optional[str], limit: Optional[int]) -> Any:
    """Create the (empty) view table `name` over `source_name`; returns the sync Table.
    Validates everything before writing anything."""
    limit = _check_limit(limit)
    try:
        source = conn.open_table(source_name)
    except ValueError:
        raise ValueError(f"Table '{source_name}' was not found") from None
    _check_no_lsm(source._inner, source_name)
    if not _uses_stable_row_ids(source):
        raise ValueError(
            "Invalid input, materialized views require stable row ids on the source table; "
            f"create '{source_name}' with storage option new_table_enable_stable_row_ids=true"
        )
    columns = source.schema.names
    projections = normalize_select(select) or [
        (c, "`" + c.replace("`", "``") + "`") for c in columns
    ]
    seen = set()
    for output, _ in projections:
        if output == SOURCE_ROW_ID:
            raise ValueError(f"Invalid input, view column name '{SOURCE_ROW_ID}' is reserved")
        if output in seen:
            raise RuntimeError(f"Column '{output}' already exists")
        seen.add(output)
    native = source._inner
    if where is not None:
        try:
            native.query_schema(filter=where, limit=0)
        except Exception as e:  # noqa: BLE001 - re-raised with the view's context
            raise ValueError(f"Invalid input, invalid view filter: {e}") from None
    fields = []
    for output, expression in projections:
        try:
            got = pa.schema(native.query_schema(dynamic=[(output, expression)], limit=0))
        except Exception as e:  # noqa: BLE001
            raise RuntimeError(f"Invalid expression for column '{output}': {e}") from None
        fields.append(got.field(0))
    inputs = sorted(
        set(c for _, e in projections for c in _referenced_columns(e, columns))
        | set(_referenced_columns(where or "", columns))
    )
    fields.append(pa.field(SOURCE_ROW_ID, pa.uint64(), nullable=False))
    metadata = {
        "mv.definition": _stored_definition(source_name, projections, where, limit, inputs),
        "mv.incarnation": str(uuid.uuid4()),
    }
    return conn.create_table(name, schema=pa.schema(fields, metadata=metadata))


def view_names(conn: Any) -> List[str]:
    """The tables of `conn` whose schema holds a view definition."""
    names = []
    for name in conn._all_table_names():
        try:
            table = conn.open_table(name)
        except ValueError:
            continue  # dropped meanwhile
        if DEFINITION_META_KEY in (table.schema.metadata or {}):
            names.append(name)
    return names


# Refresh ------------------------------------------------------------------------------------


def _evaluate(source: Any, definition: MaterializedViewDefinition, schema: pa.Schema,
              row_ids: Optional[np.ndarray] = None, limit: Optional[int] = None) -> pa.Table:
    """The view rows of `source` (a native table at the target version): every matching row,
    or only those with stable ids `row_ids`, at most `limit`, as `schema`."""
    if row_ids is not None and len(row_ids) == 0:
        return schema.empty_table()
    if limit == 0:
        return schema.empty_table()
    stream = source.query(
        filter=definition.filter,
        dynamic=list(definition.projections),
        limit=limit,
        with_row_id=True,
        max_batch_length=8192,
        take_row_ids=None if row_ids is None else row_ids.tolist(),
    )
    table = pa.table(pa.RecordBatchReader.from_stream(stream).read_all())
    arrays = [table.column(f.name if f.name != SOURCE_ROW_ID else "_rowid") for f in schema]
    return pa.Table.from_arrays(
        [a.cast(f.type) for a, f in zip(arrays, schema)], schema=schema.remove_metadata()
    )


def _all_view_rows(view: Any) -> np.ndarray:
    """The row addresses of every row of the view's version."""
    stream = view.scan([SOURCE_ROW_ID], batch_size=65536, with_row_address=True)
    table = pa.table(pa.RecordBatchReader.from_stream(stream).read_all())
    return table.column("_rowaddr").to_numpy().astype(np.uint64, copy=False)


def _view_rows_of(view: Any, source_row_ids: np.ndarray) -> np.ndarray:
    """The row addresses of the view's rows made from the source rows `source_row_ids`: one
    pass over the view's ``__source_row_id`` in the engine."""
    from . import _native

    if len(source_row_ids) == 0:
        return np.empty(0, dtype=np.uint64)
    packed = np.ascontiguousarray(source_row_ids, dtype=np.uint64).tobytes()
    return np.frombuffer(
        _native.row_addresses_where_in(view, SOURCE_ROW_ID, packed), dtype=np.uint64
    )


def _check_source(source: Any, definition: MaterializedViewDefinition) -> None:
    """ValueError when the source lost stable row ids or a column the view reads."""
    from . import _native

    version = source.version()
    try:
        _native.changed_rows(source, version, version)
    except ValueError as e:
        if "has no stable row ids" not in str(e):
            raise
        raise ValueError(
            f"Invalid input, source table '{definition.source_table}' does not have stable row "
            "ids; it is not the table this view was declared over"
        ) from None
    names = pa.schema(source.schema()).names
    for column in definition.inputs:
        if column not in names:
            raise ValueError(
                f"Schema Error: source column '{column}' read by the view no longer exists "
                f"(dropped or renamed in '{definition.source_table}')"
            )


def _inputs_changed(conn: Any, definition: MaterializedViewDefinition, old: int,
                    new_schema: pa.Schema) -> bool:
    """Whether an input column of the view differs between source versions `old` and new."""
    try:
        old_schema = pa.schema(conn._inner.open_table(definition.source_table, old).schema())
    except Exception:  # noqa: BLE001 - the old version is gone: cannot compare
        return True
    for column in definition.inputs:
        a = old_schema.field(column) if column in old_schema.names else None
        b = new_schema.field(column) if column in new_schema.names else None
        if a is None or b is None or not a.equals(b):
            return True
    return False


def refresh_view(conn: Any, name: str, full: bool = False,
                 source_version: Optional[int] = None) -> RefreshMaterializedViewResult:
    """Refresh the view `name` of `conn` (see the module docstring)."""
    from . import _native
    from .exceptions import CommitConflictError

    if source_version is not None and (isinstance(source_version, bool) or source_version < 0):
        raise OverflowError(f"source_version must be non-negative, got {source_version}")
    view = conn._inner.open_table(name, None)
    read_version = view.version()
    snapshot = conn._inner.open_table(name, read_version)  # reads; `view` writes
    view_schema = pa.schema(snapshot.schema())
    definition = _definition(view_schema, name)
    metadata = {k.decode(): v.decode() for k, v in (view_schema.metadata or {}).items()}
    last = metadata.get(SOURCE_VERSION_KEY)
    last = None if last is None else int(last)
    try:
        source = conn._inner.open_table(definition.source_table, source_version)
    except ValueError as e:
        if source_version is None:
            raise
        # LanceDB raises RuntimeError for a source version that does not exist.
        raise RuntimeError(
            f"Cannot refresh materialized view '{name}' to version {source_version} of "
            f"'{definition.source_table}': {e}"
        ) from None
    target = source.version()
    if source_version is None:  # every read below sees this version, whatever commits next
        source = conn._inner.open_table(definition.source_table, target)
    _check_no_lsm(source, definition.source_table)
    _check_source(source, definition)
    # The watermark speaks only for the view state its refresh left behind (any other commit
    # on the view since, an index build included, is drift) and for the source incarnation
    # whose commit time it recorded (a source dropped and created again reuses versions).
    intact = metadata.get(VIEW_VERSION_KEY) == str(read_version)
    changes = None
    if intact and last is not None and last <= target:
        try:
            diff = _native.changed_rows(source, last, target)
        except ValueError:
            diff = None  # the watermark version is gone
        if diff is not None and metadata.get(SOURCE_TS_KEY) == str(diff[4]):
            if not full and last == target:
                return RefreshMaterializedViewResult("no_op", 0, target, read_version)
            if not diff[3]:
                changes = tuple(np.frombuffer(b, dtype=np.uint64) for b in diff[:3])
    rebuild = (
        full
        or changes is None
        or _inputs_changed(conn, definition, last, pa.schema(source.schema()))
        or (definition.limit is not None and (len(changes[1]) or len(changes[2])))
    )
    data_schema = pa.schema([f for f in view_schema])
    if rebuild:
        mode = "rebuild"
        removed = _all_view_rows(snapshot)
        rows = _evaluate(source, definition, data_schema, limit=definition.limit)
    else:
        mode = "incremental"
        inserted, updated, deleted = changes
        if definition.limit is not None:
            removed = np.empty(0, dtype=np.uint64)
            room = max(definition.limit - snapshot.count_rows(), 0)
            rows = _evaluate(source, definition, data_schema, row_ids=inserted, limit=room)
        else:
            # Two independent reads (the view's ids, the source's changed rows), both in the
            # engine without the GIL: run side by side.
            with ThreadPoolExecutor(max_workers=1) as pool:
                finding = pool.submit(
                    _view_rows_of, snapshot, np.concatenate([updated, deleted])
                )
                recompute = np.union1d(inserted, updated)
                rows = _evaluate(source, definition, data_schema, row_ids=recompute)
                removed = finding.result()
    metadata.update({
        SOURCE_VERSION_KEY: str(target),
        SOURCE_TS_KEY: str(_native.changed_rows(source, target, target)[5]),
        VIEW_VERSION_KEY: str(read_version + 1),
        "mv.refreshed_at_ms": str(int(time.time() * 1000)),
    })
    try:
        version = _native.replace_rows(
            view, read_version, np.ascontiguousarray(removed, dtype=np.uint64).tobytes(),
            rows.to_reader(), sorted(metadata.items()),
        )
    except CommitConflictError as e:
        raise CommitConflictError(
            f"Refresh of materialized view '{name}' conflicts with a concurrent write to the "
            f"view; nothing was written: {e}",
            retryable=True,
        ) from None
    return RefreshMaterializedViewResult(mode, rows.num_rows, target, version)


class _ViewHandle:
    """What both view handles share: the table the view is, and its name."""

    def __init__(self, table: Any):
        self._table = table

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"

    @property
    def name(self) -> str:
        return self._table.name

    @property
    def table(self) -> Any:
        """The view as the table it is. Queries, indexes and search all apply; writes are
        not blocked, but a rebuild replaces them."""
        return self._table


class AsyncMaterializedView(_ViewHandle):
    """A materialized view, for use with ``await``: its table and its definition."""

    async def definition(self) -> MaterializedViewDefinition:
        """The query that defines the view, from its stored schema."""
        return _definition(await self._table.schema(), self.name)

    async def refresh(self, *, full: bool = False,
                      source_version: Optional[int] = None) -> RefreshMaterializedViewResult:
        """Recompute the view from its source; see MaterializedView.refresh."""
        from ._async import _to_thread

        return await _to_thread(
            MaterializedView(self._table._inner).refresh, full=full, source_version=source_version
        )


class MaterializedView(_ViewHandle):
    """A materialized view: its table and its definition."""

    @property
    def definition(self) -> MaterializedViewDefinition:
        """The query that defines the view, from its stored schema."""
        return _definition(self._table.schema, self.name)

    def refresh(self, *, full: bool = False,
                source_version: Optional[int] = None) -> RefreshMaterializedViewResult:
        """Recompute the view from its source: incrementally when the source's changes
        since the last refresh can be reconciled row by row, else by a rebuild. ``full=True``
        forces a rebuild; ``source_version`` refreshes to that source version instead of the
        latest. Of two refreshes racing on one view one commits; the other raises
        CommitConflictError and writes nothing."""
        result = refresh_view(self._table._conn, self.name, full, source_version)
        if getattr(self._table, "_pinned", None) is None:
            self._table._inner.checkout_latest()
        return result


__all__ = [
    "AsyncMaterializedView",
    "DEFINITION_META_KEY",
    "MaterializedView",
    "MaterializedViewDefinition",
    "RefreshMaterializedViewResult",
    "SelectArg",
    "normalize_select",
]
