# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Materialized views (``lancedb.materialized_view``): tables defined by a query over a
source table. lancedb_cpp reads a view's definition (stored in its schema metadata under
``mv.definition``, as LanceDB writes it) but cannot create or refresh views yet: those raise
NotImplementedError."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import _not_yet as nyi
from ._not_yet import not_yet

DEFINITION_META_KEY = b"mv.definition"

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
        """The view as the table it is."""
        return self._table


class AsyncMaterializedView(_ViewHandle):
    """A materialized view, for use with ``await``: its table and its definition."""

    async def definition(self) -> MaterializedViewDefinition:
        """The query that defines the view, from its stored schema."""
        return _definition(await self._table.schema(), self.name)

    @not_yet(nyi.MATERIALIZED_VIEWS)
    async def refresh(self, *, full: bool = False, source_version: Optional[int] = None) -> Any:
        """Recompute the view from its source."""


class MaterializedView(_ViewHandle):
    """A materialized view: its table and its definition."""

    @property
    def definition(self) -> MaterializedViewDefinition:
        """The query that defines the view, from its stored schema."""
        return _definition(self._table.schema, self.name)

    @not_yet(nyi.MATERIALIZED_VIEWS)
    def refresh(self, *, full: bool = False, source_version: Optional[int] = None) -> Any:
        """Recompute the view from its source."""


__all__ = [
    "AsyncMaterializedView",
    "DEFINITION_META_KEY",
    "MaterializedView",
    "MaterializedViewDefinition",
    "SelectArg",
    "normalize_select",
]
