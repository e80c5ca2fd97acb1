# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Helpers of ``lancedb.util``: URIs, table names, vector columns, SQL literals, imports."""

from __future__ import annotations

import functools
import importlib
import pathlib
import re
import warnings
from typing import Any, Optional, Tuple, Union
from urllib.parse import urlparse

import pyarrow as pa
import pyarrow.fs as pa_fs

from .table import value_to_sql  # noqa: F401  (re-exported, as lancedb.util)

__all__ = [
    "add_note",
    "attempt_import_or_raise",
    "deprecated",
    "flatten_columns",
    "fs_from_uri",
    "get_uri_location",
    "get_uri_scheme",
    "inf_vector_column_query",
    "infer_vector_column_dim",
    "infer_vector_column_name",
    "is_vector_column",
    "join_uri",
    "native_validate_table_name",
    "safe_import_adlfs",
    "validate_table_name",
    "value_to_sql",
]

_TABLE_NAME = re.compile(r"[A-Za-z0-9_.\-]+")


def get_uri_scheme(uri: str) -> str:
    """The scheme of `uri`: "s3", "gs", "memory", ...; "file" for local paths (also Windows
    drive letters)."""
    parsed = urlparse(str(uri))
    scheme = parsed.scheme
    if not scheme or len(scheme) == 1:  # no scheme, or a drive letter
        return "file"
    return scheme


def get_uri_location(uri: str) -> str:
    """The location part of `uri` without its scheme: "bucket/path" for "s3://bucket/path",
    the path for local URIs."""
    parsed = urlparse(str(uri))
    if not parsed.scheme or len(parsed.scheme) == 1:
        return str(uri)
    if parsed.scheme == "file":
        return parsed.path
    return parsed.netloc + parsed.path


def join_uri(base: Union[str, pathlib.Path], *parts: str) -> str:
    """Join path parts to a local path or a URI."""
    if get_uri_scheme(str(base)) == "file":
        return str(pathlib.Path(base, *parts))
    out = str(base).rstrip("/")
    for part in parts:
        out += "/" + part.strip("/")
    return out


def validate_table_name(name: str) -> None:
    """ValueError unless `name` is a valid table name."""
    if not name:
        raise ValueError(f'Invalid table name ("{name}"): Table names cannot be empty strings')
    if not _TABLE_NAME.fullmatch(name):
        raise ValueError(
            f'Invalid table name ("{name}"): Table names can only contain alphanumeric '
            "characters, underscores, hyphens, and periods"
        )


def native_validate_table_name(table_name: str) -> None:
    """ValueError unless `table_name` is a valid table name (as validate_table_name)."""
    validate_table_name(table_name)


def safe_import_adlfs() -> Any:
    """The ``adlfs`` module (Azure storage for fsspec), or None when it is not installed."""
    try:
        import adlfs
    except ImportError:
        return None
    return adlfs


def is_vector_column(data_type: pa.DataType) -> bool:
    """A fixed-size list of numbers, or a list of such (multivector)."""
    if pa.types.is_fixed_size_list(data_type):
        return pa.types.is_integer(data_type.value_type) or pa.types.is_floating(
            data_type.value_type
        )
    if pa.types.is_list(data_type) or pa.types.is_large_list(data_type):
        return is_vector_column(data_type.value_type)
    return False


def infer_vector_column_dim(data_type: pa.DataType) -> Optional[int]:
    """The dimension of a vector column type, None for other types."""
    if pa.types.is_fixed_size_list(data_type):
        return data_type.list_size
    if pa.types.is_list(data_type) or pa.types.is_large_list(data_type):
        return infer_vector_column_dim(data_type.value_type)
    return None


def inf_vector_column_query(schema: pa.Schema, dim: Optional[int] = None) -> str:
    """The single vector column of `schema` (of dimension `dim` when given); ValueError when
    there is none or several."""
    names = [
        f.name
        for f in schema
        if is_vector_column(f.type) and (dim is None or infer_vector_column_dim(f.type) == dim)
    ]
    if not names:
        raise ValueError("There is no vector column in the data. Please specify the vector column.")
    if len(names) > 1:
        raise ValueError(
            f"Schema has more than one vector column: {names}. Please specify the vector column "
            "name for vector search"
        )
    return names[0]


def infer_vector_column_name(
    schema: pa.Schema, query_type: str, query: Optional[Any], vector_column_name: Optional[str]
) -> Optional[str]:
    """The vector column a query searches: `vector_column_name` when given, else the single
    vector column of the query's dimension (None for full-text and plain queries)."""
    if vector_column_name is not None:
        return vector_column_name
    if query_type == "fts" or query is None or isinstance(query, str):
        return None
    dim = len(query) if hasattr(query, "__len__") else None
    if dim is not None and len(query) and hasattr(query[0], "__len__"):
        dim = len(query[0])
    return inf_vector_column_query(schema, dim)


def flatten_columns(tbl: pa.Table, flatten: Union[int, bool, None] = None) -> pa.Table:
    """Flatten struct columns: all levels with True, `flatten` levels with an int."""
    if flatten is True:
        while any(pa.types.is_struct(f.type) for f in tbl.schema):
            tbl = tbl.flatten()
    elif isinstance(flatten, int) and flatten > 0:
        for _ in range(flatten):
            tbl = tbl.flatten()
    return tbl


def attempt_import_or_raise(module: str, mitigation: Optional[str] = None) -> Any:
    """Import `module`, or raise ImportError saying what to install."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(f"Please install {mitigation or module}") from e


def deprecated(func: Any) -> Any:
    """Decorator: calling `func` warns that it is deprecated."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        warnings.warn(
            f"Function {func.__name__} is deprecated and will be removed in a future version",
            category=DeprecationWarning,
            stacklevel=2,
        )
        return func(*args, **kwargs)

    return wrapper


def add_note(base_exception: BaseException, note: str) -> None:
    """Attach `note` to an exception (shown in its traceback)."""
    if hasattr(base_exception, "add_note"):
        base_exception.add_note(note)
    else:  # pragma: no cover - Python < 3.11
        base_exception.args = base_exception.args + (note,)


def fs_from_uri(uri: str) -> Tuple[pa_fs.FileSystem, str]:
    """A pyarrow filesystem and the path inside it for `uri`."""
    return pa_fs.FileSystem.from_uri(uri)
