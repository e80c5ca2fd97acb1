# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Names of LanceDB features lancedb_cpp does not have yet: they exist, with LanceDB's
parameters, so that code written for LanceDB imports and binds; using them raises
NotImplementedError naming the feature.

* ``@not_yet("feature")`` on a function or method (sync or async; for a property, on its
  getter) keeps its signature, checks the arguments as Python would (TypeError) and raises
  NotImplementedError. Every decorated callable is recorded in ``STUBS``.
* ``unsupported_class(name, feature)`` is a whole class whose construction raises.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Dict, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

# "module.Qualified.name" of every @not_yet callable -> its feature.
STUBS: Dict[str, str] = {}

# Class attribute naming the feature of a whole-class stub (its instances cannot exist).
MARKER = "__lancedb_cpp_not_yet__"


def not_yet_error(name: str, feature: str) -> NotImplementedError:
    """The error a stub raises: names the API and the feature."""
    return NotImplementedError(f"{name} is not supported by lancedb_cpp yet ({feature})")


def not_yet(feature: str) -> Callable[[F], F]:
    """Decorate a function whose body is not built: calling it raises NotImplementedError
    naming `feature` (after a TypeError for arguments its signature does not accept)."""

    def decorate(fn: F) -> F:
        signature = inspect.signature(fn)
        name = f"{fn.__qualname__}()"

        if inspect.iscoroutinefunction(fn):

            async def stub(*args: Any, **kwargs: Any) -> Any:
                signature.bind(*args, **kwargs)
                raise not_yet_error(name, feature)

        else:

            def stub(*args: Any, **kwargs: Any) -> Any:
                signature.bind(*args, **kwargs)
                raise not_yet_error(name, feature)

        functools.update_wrapper(stub, fn)
        doc = f"Not supported by lancedb_cpp yet ({feature}): raises NotImplementedError."
        stub.__doc__ = doc if not fn.__doc__ else f"{fn.__doc__.strip()}\n\n{doc}"
        STUBS[f"{fn.__module__}.{fn.__qualname__}"] = feature
        return stub  # type: ignore[return-value]

    return decorate


def unsupported_class(name: str, feature: str, module: str = __name__) -> type:
    """A class whose construction raises NotImplementedError naming `feature`."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        raise not_yet_error(name, feature)

    return type(
        name,
        (),
        {
            "__init__": __init__,
            "__doc__": f"Not supported by lancedb_cpp yet ({feature}).",
            "__module__": module,
            # Generic in LanceDB (Job[T] ...): subscripting gives the class back.
            "__class_getitem__": classmethod(lambda cls, item: cls),
            MARKER: feature,
        },
    )


# The features, named once so that sync and async stubs say the same.
NAMESPACES = "namespaces"
MATERIALIZED_VIEWS = "materialized views"
FUNCTIONS = "functions (UDFs)"
SQL = "SQL queries"
CLONES = "table clones"
BRANCHES = "branches"
LSM = "LSM write buffers"
SESSIONS = "sessions (shared caches)"
REMOTE = "remote databases (LanceDB Cloud)"
PREWARM = "prewarm_data (LanceDB supports it on remote tables only)"


def check_no_lsm_write_spec(native_table: Any, message: str) -> None:
    """NotImplementedError(`message`, as LanceDB words it) when LanceDB gave the table an LSM
    write spec (its MemWAL index): rows buffered in the LSM tiers have no row id and are
    invisible to permutations, computed-column refreshes and view refreshes, which LanceDB
    refuses on such a table; so does lancedb_cpp."""
    from . import _native

    for index in _native.list_indices(native_table):
        if index["name"] == "__lance_mem_wal" or index.get("type_url", "").endswith(
            "MemWalIndexDetails"
        ):
            raise NotImplementedError(f"LanceDBError: not supported: {message}")
