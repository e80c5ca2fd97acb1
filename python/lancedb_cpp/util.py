# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Helpers of ``lancedb.util``: URIs, table names, vector columns, SQL literals, imports."""

from __future__ import annotations

import functools
import importlib
import os
import pathlib
import re
import warnings
from typing import Any, List, Optional, Tuple, Union
from urllib.parse import urlparse

import pyarrow as pa
import pyarrow.fs as pa_fs

from .permutation import (  # noqa: F401  (re-exported, as lancedb.util)
    batch_to_tensor,
    batch_to_tensor_dict,
    batch_to_tensor_rows,
)
from .table import value_to_sql  # noqa: F401  (re-exported, as lancedb.util)

__all__ = [
    "add_note",
    "attempt_import_or_raise",
    "batch_to_tensor",
    "batch_to_tensor_dict",
    "batch_to_tensor_rows",
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
    "tbl_to_tensor",
    "validate_table_name",
    "value_to_sql",
]

_TABLE_NAME = re.compile(r"[A-Za-z0-9_.\-]+")


def get_uri_scheme(uri: str) -> str:
    """The scheme of `uri`: "s3" (also for "s3a" and "s3n"), "gs", "memory", ...; "file" for
    local paths (also Windows drive letters)."""
    scheme = urlparse(str(uri)).scheme
    if not scheme or len(scheme) == 1:  # no scheme, or a drive letter
        return "file"
    if scheme in ("s3a", "s3n"):
        return "s3"
    return scheme


def get_uri_location(uri: str) -> str:
    """The location part of `uri` without its scheme: "bucket/path" for "s3://bucket/path",
    the path for local URIs (a Windows path as given)."""
    parsed = urlparse(str(uri))
    if len(parsed.scheme) == 1:
        return str(uri)
    if not parsed.netloc:
        return parsed.path
    return parsed.netloc + parsed.path


def join_uri(base: Union[str, pathlib.Path], *parts: str) -> Union[str, pathlib.Path]:
    """Join path parts to a base: a ``pathlib.Path`` base gives a Path, a local path a
    string joined with the OS separator, a URI its path joined with "/" (query kept)."""
    if isinstance(base, pathlib.Path):
        return base.joinpath(*parts)
    base = str(base)
    if get_uri_scheme(base) == "file":
        return str(pathlib.Path(base, *parts))
    url = urlparse(base)
    path = "/".join(p.rstrip("/") for p in [url.path, *parts])
    return url._replace(path=path).geturl()


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


adlfs = safe_import_adlfs()


def is_vector_column(data_type: pa.DataType) -> bool:
    """A fixed-size list of floats or uint8, or a list of such (multivector)."""
    if pa.types.is_fixed_size_list(data_type):
        value_type = data_type.value_type
        return pa.types.is_floating(value_type) or pa.types.is_uint8(value_type)
    if pa.types.is_list(data_type):
        return is_vector_column(data_type.value_type)
    return False


def infer_vector_column_dim(data_type: pa.DataType) -> Optional[int]:
    """The dimension of a vector column type, None for other types."""
    if pa.types.is_fixed_size_list(data_type):
        return data_type.list_size
    if pa.types.is_list(data_type):
        return infer_vector_column_dim(data_type.value_type)
    return None


def _format_field_path(path: List[str]) -> str:
    """A nested field path as SQL names it: segments joined by ".", back-quoted unless they
    are letters, digits and underscores only."""

    def segment(name: str) -> str:
        if all(c.isalnum() or c == "_" for c in name):
            return name
        return "`" + name.replace("`", "``") + "`"

    return ".".join(segment(name) for name in path)


def _iter_vector_columns(field: pa.Field, path: List[str], dim: Optional[int] = None) -> List[str]:
    """The paths of the vector columns in `field` (itself or inside structs), of dimension
    `dim` when given."""
    field_path = [*path, field.name]
    if is_vector_column(field.type):
        if dim is None or infer_vector_column_dim(field.type) == dim:
            return [_format_field_path(field_path)]
        return []
    if pa.types.is_struct(field.type):
        found: List[str] = []
        for child in field.type:
            found.extend(_iter_vector_columns(child, field_path, dim))
        return found
    return []


def inf_vector_column_query(schema: pa.Schema, dim: Optional[int] = None) -> str:
    """The single vector column of `schema` (nested ones as dotted paths; of dimension `dim`
    when given); ValueError when there is none or several."""
    names: List[str] = []
    for field in schema:
        names.extend(_iter_vector_columns(field, [], dim))
    if len(names) > 1:
        raise ValueError(
            "Schema has more than one vector column. Please specify the vector column name "
            f"for vector search. Candidates: {names}"
        )
    if not names:
        raise ValueError(
            "There is no vector column in the data. Please specify the vector column name "
            "for vector search"
        )
    return names[0]


def _query_vector_dim(query: Optional[Any]) -> Optional[int]:
    """The dimension of a query vector (of the first one for several); None when unknown."""
    if query is None:
        return None
    if type(query).__name__ == "ndarray":
        return None if query.ndim == 0 else query.shape[-1]
    if isinstance(query, list) and query:
        first = query[0]
        if isinstance(first, (list, tuple)) or type(first).__name__ == "ndarray":
            return len(first)
        return len(query)
    return None


def infer_vector_column_name(
    schema: pa.Schema, query_type: str, query: Optional[Any], vector_column_name: Optional[str]
) -> Optional[str]:
    """The vector column a query searches: `vector_column_name` when given, else the single
    vector column of the query's dimension (None for full-text queries, and for plain scans
    without a query unless hybrid)."""
    if vector_column_name is not None:
        return vector_column_name
    if query_type == "fts":
        return None
    if query is None and query_type != "hybrid":
        return None
    return inf_vector_column_query(schema, dim=_query_vector_dim(query))


def flatten_columns(tbl: pa.Table, flatten: Union[int, bool, None] = None) -> pa.Table:
    """Flatten struct columns: all levels with True, `flatten` levels with a positive int,
    none with None or False (ValueError for an int below 1)."""
    if flatten is True:
        tbl = tbl.flatten()
        while any(pa.types.is_struct(f.type) for f in tbl.schema):
            tbl = tbl.flatten()
    elif isinstance(flatten, int) and not isinstance(flatten, bool):
        if flatten <= 0:
            raise ValueError(
                "Please specify a positive integer for flatten or the boolean value `True`"
            )
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
    """Decorator: every call of `func` warns (DeprecationWarning) that it is deprecated."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("always", DeprecationWarning)
            warnings.warn(
                f"Function {func.__name__} is deprecated and will be removed in a future "
                "version",
                category=DeprecationWarning,
                stacklevel=3,
            )
        return func(*args, **kwargs)

    return wrapper


def add_note(base_exception: BaseException, note: str) -> None:
    """Attach `note` to an exception (shown in its traceback; before Python 3.11, appended to
    a string message, else ValueError)."""
    if hasattr(base_exception, "add_note"):
        base_exception.add_note(note)
    elif base_exception.args and isinstance(base_exception.args[0], str):
        base_exception.args = (base_exception.args[0] + "\n" + note, *base_exception.args[1:])
    else:
        raise ValueError("Cannot add note to exception")


def tbl_to_tensor(tbl: pa.Table) -> Any:
    """The columns of a table (one chunk each) stacked into one torch tensor (zero-copy
    through DLPack); needs torch."""
    torch = attempt_import_or_raise("torch", "torch")

    def to_tensor(column: pa.ChunkedArray) -> Any:
        if column.num_chunks > 1:
            raise Exception("Single batch was too large to fit into a one-chunk table")
        return torch.from_dlpack(column.chunk(0))

    return torch.stack([to_tensor(tbl.column(i)) for i in range(tbl.num_columns)])


def fs_from_uri(uri: str) -> Tuple[pa_fs.FileSystem, str]:
    """A pyarrow filesystem and the path inside it for `uri`: S3 honours AWS_ENDPOINT (30 s
    timeouts), Azure ("az://") goes through adlfs when it is installed (account from
    AZURE_STORAGE_ACCOUNT_NAME / AZURE_STORAGE_ACCOUNT_KEY)."""
    scheme = get_uri_scheme(uri)
    if scheme == "s3":
        fs = pa_fs.S3FileSystem(
            endpoint_override=os.environ.get("AWS_ENDPOINT"),
            request_timeout=30,
            connect_timeout=30,
        )
        return fs, get_uri_location(uri)
    if scheme == "az" and adlfs is not None:
        az = adlfs.AzureBlobFileSystem(
            account_name=os.environ.get("AZURE_STORAGE_ACCOUNT_NAME"),
            account_key=os.environ.get("AZURE_STORAGE_ACCOUNT_KEY"),
        )
        return pa_fs.PyFileSystem(pa_fs.FSSpecHandler(az)), get_uri_location(uri)
    return pa_fs.FileSystem.from_uri(uri)
