# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""lancedb_cpp has every public name of LanceDB 0.39's Python package (the installed
``lancedb`` is the oracle), and every name of a feature lancedb_cpp has not built raises
NotImplementedError naming the feature.

What is compared, module by module (``lancedb.X`` against ``lancedb_cpp.X``):

* Public names of a module: the names in its ``__all__`` when it defines one; otherwise every
  name not starting with ``_`` whose object was defined in a ``lancedb`` module (its
  ``__module__`` starts with ``lancedb``), which takes in the names LanceDB re-exports from
  its other modules and leaves out sub-modules and third-party objects (typing aliases,
  pyarrow, ``timedelta`` ...). Each must exist in the lancedb_cpp module of the same name.
* Members of a class: the names not starting with ``_`` that a class of LanceDB's defines,
  itself or through a base class LanceDB defines (bases from pydantic, ``abc``, ``Enum`` ...
  are not compared). Each must be an attribute of our class (or a dataclass or pydantic
  field of it). A whole-class stub (``_not_yet.unsupported_class``: constructing it raises
  NotImplementedError) has no instances, so its members are not compared.
* Each class and function is compared once, in the module defining it (or else the first
  module above having it), and reported under LanceDB's name for it (``lancedb.table.Table``
  also for ``lancedb.Table``); every module having the name must have it too.
* Parameters of a callable (a function, a method, a class's constructor): every named
  parameter of LanceDB's signature must be a parameter of ours, by name; a ``*args`` or
  ``**kwargs`` of LanceDB's must be one of ours too. Ours may be only ``*args, **kwargs``
  where it is a whole-class stub. Callables whose signature Python cannot read (LanceDB's
  native classes) are compared by name only.

``ALLOWED`` lists what is deliberately left out, each entry with its reason; an entry that is
no longer needed fails the test too, so the list cannot rot.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import inspect
from typing import Any, Dict, List, Tuple

import pyarrow as pa
import pytest

import lancedb_cpp
from lancedb_cpp import _not_yet

MODULES = [
    "", "db", "table", "query", "index", "pydantic", "embeddings", "rerankers", "expr",
    "util", "common", "schema", "types", "dependencies", "exceptions", "context",
    "namespace", "permutation", "remote", "job", "materialized_view", "merge", "sql",
    "scannable",
]  # fmt: skip


def _reasons(reason: str, *names: str) -> Dict[str, str]:
    return {name: reason for name in names}


# Qualified LanceDB name (module.name, module.Class.member) -> why lancedb_cpp lacks it.
ALLOWED: Dict[str, str] = {
    **_reasons(
        "LanceDB's background asyncio loop that drives its Rust futures; lancedb_cpp's async "
        "API runs the sync one on worker threads and has no such loop",
        "lancedb.db.LOOP",
        "lancedb.table.LOOP",
        "lancedb.namespace.LOOP",
        "lancedb.permutation.LOOP",
        "lancedb.materialized_view.LOOP",
    ),
    **_reasons(
        "LanceDB-internal helper imported into the module, not API (data sanitizing, "
        "its native connect, its embedding thread pool, blob-mode plumbing)",
        "lancedb.db.lancedb_connect",
        "lancedb.db.sanitize_create_table",
        "lancedb.table.embedding_executor",
        "lancedb.table.peek_reader",
        "lancedb.table.strip_auto_row_ids",
        "lancedb.table.validate_blob_mode",
    ),
    "lancedb.expr.Expr.__init__": (
        "LanceDB's constructor wraps its Rust expression handle; expressions are built with "
        "col(), lit() and func(), as in LanceDB"
    ),
    "lancedb.table.Table.to_polars": (
        "our Table is LanceDB's LanceTable, whose to_polars(batch_size) takes no **kwargs "
        "either (only the abstract Table declares them)"
    ),
}

ALLOWED.update(
    _reasons(
        "helpers and plumbing of LanceDB's query module (its native event loop, blob-column "
        "handling, reranker checks, the native take builder's base and constructor taking a "
        "native query) that lancedb_cpp.query does not re-export yet",
        "lancedb.query.LanceTakeQueryBuilder.__init__",
        *[
            f"lancedb.query.{name}"
            for name in (
                "BaseQueryBuilder", "LOOP", "blob_auto_row_id_for_scan",
                "blob_v2_projection_sources", "check_reranker_result",
                "finalize_blob_query_table", "flatten_columns", "fts_query_to_json",
                "is_blob_like_field", "replace_v2_blob_columns_with_bytes",
                "replace_v2_blob_columns_with_bytes_sync", "schema_has_blob_field",
                "validate_blob_mode",
            )
        ],  # fmt: skip
    )
)


def _module_names(module: Any) -> Dict[str, Any]:
    """The public names of a LanceDB module (see the module docstring)."""
    names = getattr(module, "__all__", None)
    explicit = names is not None
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    out = {}
    for name in names:
        try:
            obj = getattr(module, name)
        except AttributeError:
            continue
        if not explicit:
            if inspect.ismodule(obj):
                continue
            if not (getattr(obj, "__module__", None) or "").startswith("lancedb"):
                continue
        out[name] = obj
    return out


def _class_members(cls: type) -> Dict[str, Any]:
    """Public members a LanceDB class defines, itself or through LanceDB base classes."""
    members: Dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        if not (getattr(klass, "__module__", "") or "").startswith("lancedb"):
            continue
        for name, value in vars(klass).items():
            if not name.startswith("_"):
                members[name] = value
    return members


def _is_stub_class(obj: Any) -> bool:
    return inspect.isclass(obj) and getattr(obj, "__lancedb_cpp_not_yet__", None) is not None


def _has_member(cls: type, name: str) -> bool:
    if hasattr(cls, name):
        return True
    if dataclasses.is_dataclass(cls) and name in {f.name for f in dataclasses.fields(cls)}:
        return True
    if name in (getattr(cls, "model_fields", None) or {}):
        return True
    return any(name in getattr(k, "__annotations__", {}) for k in cls.__mro__)


def _signature(obj: Any):
    try:
        return inspect.signature(obj)
    except (TypeError, ValueError):
        return None


def _param_problems(theirs: Any, ours: Any) -> List[str]:
    """What LanceDB's callable takes that ours does not."""
    sig_theirs, sig_ours = _signature(theirs), _signature(ours)
    if sig_theirs is None:
        return []
    if sig_ours is None:
        return ["our signature cannot be read"]
    ours_params = sig_ours.parameters
    kinds = {p.kind for p in ours_params.values()}
    problems = []
    for name, param in sig_theirs.parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            if param.kind not in kinds:
                stars = "*" if param.kind == param.VAR_POSITIONAL else "**"
                problems.append(f"{stars}{name}")
        elif name not in ours_params:
            problems.append(name)
    return problems


def _defining_name(obj: Any, fallback: str) -> str:
    """LanceDB's qualified name of a class or function: where it is defined."""
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    return f"{module}.{qualname}" if module and qualname else fallback


def _compare_callable(qualified: str, theirs: Any, ours: Any, out: List[str]) -> None:
    problems = _param_problems(theirs, ours)
    if problems:
        out.append(f"{qualified}: parameters missing {problems}")


def _compare_class(qualified: str, theirs: type, ours: Any, out: List[str]) -> None:
    if _is_stub_class(ours):
        return
    if not inspect.isclass(ours):
        out.append(f"{qualified}: ours is not a class ({type(ours).__name__})")
        return
    _compare_callable(f"{qualified}.__init__", theirs, ours, out)
    for name, value in _class_members(theirs).items():
        member = f"{qualified}.{name}"
        if not _has_member(ours, name):
            out.append(f"{member}: missing")
            continue
        if isinstance(value, (property, type)) or not (
            callable(value) or isinstance(value, (staticmethod, classmethod))
        ):
            continue
        ours_member = inspect.getattr_static(ours, name, None)
        if isinstance(ours_member, property) or ours_member is None:
            continue  # LanceDB's method is our property (or a field): checked by name only
        _compare_callable(member, getattr(theirs, name), getattr(ours, name), out)


def _import(short: str, package: str) -> Any:
    return importlib.import_module(package + (f".{short}" if short else ""))


def _homes() -> Dict[int, str]:
    """id of each LanceDB class and function -> the module (short name) that compares it:
    the module defining it when compared, else the first compared module having it. So a
    class re-exported by five modules is compared once, under its own name."""
    homes: Dict[int, str] = {}
    for short in MODULES:
        for obj in _module_names(_import(short, "lancedb")).values():
            if not callable(obj):
                continue
            defined_in = getattr(obj, "__module__", None)
            if defined_in == _import(short, "lancedb").__name__ or id(obj) not in homes:
                homes[id(obj)] = short
    return homes


_HOMES: Dict[int, str] = {}


def _surface_problems(short: str) -> List[str]:
    """Every LanceDB name of module `short` that lancedb_cpp lacks, qualified."""
    if not _HOMES:
        _HOMES.update(_homes())
    theirs = _import(short, "lancedb")
    try:
        ours = _import(short, "lancedb_cpp")
    except ImportError:
        return [f"{theirs.__name__}: module missing"]
    out: List[str] = []
    for name, obj in _module_names(theirs).items():
        qualified = f"{theirs.__name__}.{name}"
        if not hasattr(ours, name):
            out.append(f"{qualified}: missing")
            continue
        if _HOMES.get(id(obj)) != short:
            continue  # compared where it is at home
        mine = getattr(ours, name)
        if inspect.isclass(obj):
            _compare_class(_defining_name(obj, qualified), obj, mine, out)
        elif callable(obj) and not inspect.ismodule(obj):
            _compare_callable(_defining_name(obj, qualified), obj, mine, out)
    return out


def _allowed_key(problem: str) -> str:
    return problem.split(":", 1)[0]


@pytest.mark.parametrize("short", MODULES, ids=[m or "lancedb" for m in MODULES])
def test_module_surface(short):
    problems = _surface_problems(short)
    unexpected = [p for p in problems if _allowed_key(p) not in ALLOWED]
    assert not unexpected, "lancedb_cpp lacks LanceDB names:\n" + "\n".join(unexpected)


def test_allow_list_has_no_stale_entry():
    seen = set()
    for short in MODULES:
        seen.update(_allowed_key(p) for p in _surface_problems(short))
    stale = sorted(set(ALLOWED) - seen)
    assert not stale, "ALLOWED entries no longer needed:\n" + "\n".join(stale)


# ---- Stubs raise NotImplementedError naming their feature ----------------------------------

# Every @not_yet callable (lancedb_cpp._not_yet.STUBS), called with minimal arguments on a real
# object: (object, attribute, positional arguments, keyword arguments); arguments None means
# a property. The object is one of the fixture's (see _stub_targets) or a module.
_A, _T, _C = "atable", "table", "conn"
STUB_CALLS: Dict[str, Tuple[str, str, Any, Dict[str, Any]]] = {
    # connections, sync and async
    **{
        f"{cls}.{name}": (kind, name, args, kwargs)
        for cls, kind in (("db.DBConnection", _C), ("_async.AsyncConnection", "aconn"))
        for name, args, kwargs in [
            ("create_function_async", (None,), {}),
            ("describe_query", ("query-id",), {}),
            ("drop_function", ("f",), {"version": "1"}),
            ("execute_query", ("SELECT 1",), {}),
            ("execute_query_async", ("SELECT 1",), {}),
            ("get_function", ("f",), {"version": "1"}),
            ("list_functions", (), {}),
        ]
    },
    "db.DBConnection.create_function": (_C, "create_function", (None,), {}),
    # tables, sync and async
    **{
        f"{cls}.{name}": (kind, name, args, kwargs)
        for cls, kind in (("table.Table", _T), ("_async.AsyncTable", _A))
        for name, args, kwargs in [
            ("checkpoint_lsm", (), {}),
            ("close_lsm_writers", (), {}),
            ("compact_lsm", (), {}),
            ("flush_lsm", (), {}),
            ("get_lsm_stats", (), {}),
            ("get_lsm_write_spec", (), {}),
            ("prewarm_data", (), {}),
            ("set_lsm_write_spec", (None,), {}),
            ("unset_lsm_write_spec", (), {}),
        ]
    },
    # views, modules
}


@pytest.fixture(scope="module")
def stub_targets(tmp_path_factory):
    from lancedb_cpp._async import AsyncConnection, AsyncTable

    conn = lancedb_cpp.connect(str(tmp_path_factory.mktemp("stubs")))
    table = conn.create_table("t", pa.table({"id": [1, 2], "text": ["a b", "c"]}))
    atable = AsyncTable(table)
    return {
        _C: conn,
        "aconn": AsyncConnection(conn),
        _T: table,
        _A: atable,
        "namespace": importlib.import_module("lancedb_cpp.namespace"),
        "schema": importlib.import_module("lancedb_cpp.schema"),
    }


def _import_all() -> None:
    for short in MODULES:
        _import(short, "lancedb_cpp")


def test_every_stub_is_called_below():
    _import_all()
    registered = {key[len("lancedb_cpp.") :] for key in _not_yet.STUBS}
    assert registered == set(STUB_CALLS)


@pytest.mark.parametrize("key", sorted(STUB_CALLS))
def test_stub_raises_naming_its_feature(key, stub_targets):
    kind, attribute, args, kwargs = STUB_CALLS[key]
    feature = _not_yet.STUBS[f"lancedb_cpp.{key}"]
    target = stub_targets[kind]
    with pytest.raises(NotImplementedError) as raised:
        if attribute is None:  # a module-level function of the target
            module, name = key.rsplit(".", 1)
            result = getattr(importlib.import_module(f"lancedb_cpp.{module}"), name)(target)
        elif args is None:
            result = getattr(target, attribute)
        else:
            result = getattr(target, attribute)(*args, **kwargs)
        if inspect.iscoroutine(result):
            asyncio.run(result)
    assert feature in str(raised.value)
    assert "not supported by lancedb_cpp yet" in str(raised.value)


def test_stub_checks_its_arguments(stub_targets):
    """A stub has LanceDB's signature: a wrong call is a TypeError, as it would be there."""
    with pytest.raises(TypeError):
        stub_targets[_T].set_lsm_write_spec()
    with pytest.raises(TypeError):
        stub_targets[_C].get_function("f")  # version is required and keyword-only


def _stub_classes() -> List[Tuple[str, type]]:
    _import_all()
    found = {}
    for short in MODULES:
        module = _import(short, "lancedb_cpp")
        for name in dir(module):
            obj = getattr(module, name, None)
            if _is_stub_class(obj) and not inspect.isabstract(obj):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return sorted(found.items())


@pytest.mark.parametrize("name,cls", _stub_classes(), ids=[n for n, _ in _stub_classes()])
def test_stub_class_raises_naming_its_feature(name, cls):
    with pytest.raises(NotImplementedError) as raised:
        cls()
    assert getattr(cls, _not_yet.MARKER) in str(raised.value)
