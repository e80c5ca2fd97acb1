# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""How a Permutation pickles its base table (for DataLoader worker processes): a table on disk
as its location and name, to be reopened; an in-memory table as its data, to be rebuilt."""

from __future__ import annotations

from typing import Any, Dict

import pyarrow as pa

from ._permutation_reader import sync_table


def memory_table(name: str, data: pa.Table) -> Any:
    """`data` as table `name` of a new in-memory database of its own (every memory://
    connection is its own database; its memory goes with the last reference to the table)."""
    from . import connect

    return connect("memory://").create_table(name, data)


def table_to_pickle_state(table: Any) -> Dict[str, Any]:
    """What reopens `table` in another process."""
    table = sync_table(table)
    connection = getattr(table, "_conn", None)
    if connection is None:
        raise ValueError(f"Cannot pickle table of type {type(table)!r}")
    if connection.uri.startswith("memory://"):
        return {"kind": "memory", "name": table.name, "data": table.to_arrow()}
    return {
        "kind": "local",
        "name": table.name,
        "namespace": list(getattr(table, "namespace", [])),
        "uri": connection._inner.uri,  # the database root (also of a namespace connection)
        "storage_options": getattr(connection, "storage_options", None),
    }


def table_from_pickle_state(state: Dict[str, Any]) -> Any:
    """The table `state` (from table_to_pickle_state) describes."""
    from . import connect

    kind = state["kind"]
    if kind == "memory":
        return memory_table(state["name"], state["data"])
    if kind == "local":
        db = connect(state["uri"], storage_options=state["storage_options"])
        return db.open_table(state["name"], namespace_path=state.get("namespace") or None)
    raise ValueError(f"Unknown table pickle state kind: {kind}")
