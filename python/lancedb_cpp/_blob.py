# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Blob columns (Lance blob v2, ``lancedb.blob()``; legacy ``lance-encoding:blob`` columns are
read too): coercing input on ``add``, the descriptor/bytes views of query results, and the
fetch API (``fetch_blobs``, ``fetch_blob_ranges``, ``fetch_blob_files`` and ``BlobFile``).
The engine returns descriptors from scans and queries; payloads are read only when fetched."""

from __future__ import annotations

import io
import re
from typing import TYPE_CHECKING, Any, Iterable, List, Optional, Sequence, Tuple, Union

import pyarrow as pa

from .schema import blob_v2_column_paths, is_blob_like_field, is_blob_v2_field

if TYPE_CHECKING:
    from .table import Table

ROW_ID_FIELD_NAME = "_lance_row_id"
_URI_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


# Writing --------------------------------------------------------------------------------------


def _storage_type(field: pa.Field) -> pa.DataType:
    t = field.type
    return t.storage_type if isinstance(t, pa.ExtensionType) else t


def _coerce_column(column: pa.Array, field: pa.Field, coerce_strings: bool) -> pa.Array:
    """`column` as the storage of blob v2 `field` (wrapped in its extension type). URIs are
    checked against the table's registered base paths by the engine when it writes them."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    storage = _storage_type(field)
    n = len(column)
    source = column.type
    if isinstance(source, pa.ExtensionType):
        column = column.storage
        source = column.type
    mask = column.is_null() if column.null_count else None
    children = {}
    if pa.types.is_null(source) or _is_binary(source):
        data = column if pa.types.is_large_binary(source) else column.cast(pa.large_binary())
        children["data"] = data
    elif coerce_strings and (pa.types.is_string(source) or pa.types.is_large_string(source)):
        children["uri"] = column.cast(pa.utf8())
    elif pa.types.is_struct(source) and source.get_field_index("data") >= 0:
        for name in ("data", "uri", "position", "size"):
            if source.get_field_index(name) >= 0:
                children[name] = column.field(name)
    else:
        raise ValueError(
            f"Invalid input, cannot write {source} to blob column '{field.name}': give bytes, "
            "a URI string, or lancedb blob structs"
        )
    arrays = []
    for f in storage:
        value = children.get(f.name)
        arrays.append(pa.nulls(n, f.type) if value is None else value.cast(f.type))
    struct = pa.StructArray.from_arrays(arrays, fields=list(storage), mask=mask)
    if isinstance(field.type, pa.ExtensionType):
        return pa.ExtensionArray.from_storage(field.type, struct)
    return struct


def _is_binary(t: pa.DataType) -> bool:
    return (
        pa.types.is_binary(t)
        or pa.types.is_large_binary(t)
        or (hasattr(pa.types, "is_binary_view") and pa.types.is_binary_view(t))
    )


def coerce_blob_reader(
    reader: pa.RecordBatchReader,
    target: pa.Schema,
    *,
    coerce_strings: bool = True,
) -> pa.RecordBatchReader:
    """Coerce the blob v2 columns of `reader` to `target`'s blob fields (bytes -> inline data,
    strings -> external URIs when `coerce_strings`). The data is read here, so that a bad
    value raises before anything is written."""
    blob_names = [f.name for f in target if is_blob_v2_field(f)]
    if not any(n in reader.schema.names for n in blob_names):
        return reader
    table = reader.read_all()
    for name in blob_names:
        if name not in table.column_names:
            continue
        field = target.field(name)
        coerced = _coerce_column(table[name], field, coerce_strings)
        index = table.schema.get_field_index(name)
        table = table.set_column(index, pa.field(name, field.type, field.nullable, field.metadata), coerced)
    return table.to_reader()


# Reading --------------------------------------------------------------------------------------


def blob_column_kind(schema: pa.Schema, column: str) -> str:
    """"v2", or raise LanceDB's ValueError for a missing, legacy or non-blob column."""
    if column not in schema.names:
        raise ValueError(f"Invalid input, no column named '{column}' in this table")
    field = schema.field(column)
    if is_blob_v2_field(field):
        return "v2"
    if is_blob_like_field(field):
        raise ValueError(
            f"Invalid input, column '{column}' is a legacy blob column; blob APIs require blob "
            'v2 columns (ARROW:extension:name = "lance.blob.v2")'
        )
    raise ValueError(f"Invalid input, column '{column}' is not a blob column")


def row_ids_of(row_ids: Union[Sequence[int], pa.Table], column: str) -> List[int]:
    """Row ids as LanceDB accepts them: a list, or a query result carrying ``_rowid`` or a
    ``_lance_row_id`` member in a blob descriptor."""
    if isinstance(row_ids, pa.Table):
        if "_rowid" in row_ids.column_names:
            return row_ids["_rowid"].to_pylist()
        for name in row_ids.column_names:
            col = row_ids[name].combine_chunks()
            if pa.types.is_struct(col.type) and col.type.get_field_index(ROW_ID_FIELD_NAME) >= 0:
                return col.field(ROW_ID_FIELD_NAME).to_pylist()
        raise ValueError(
            f"query result has no '_rowid' column and no '{ROW_ID_FIELD_NAME}' field on blob "
            f"column '{column}'. Pass fresh blob query results, call .with_row_id(True), or "
            "pass a list of row ids."
        )
    if isinstance(row_ids, (pa.Array, pa.ChunkedArray)):
        raise ValueError(
            "pass a query table with _rowid, not a column array "
            "(use fetch_blobs('image', hits), not fetch_blobs('image', hits['image']))"
        )
    return [int(r) for r in row_ids]


def fetch(inner: Any, column: str, row_ids: List[int]) -> pa.LargeBinaryArray:
    """The payloads of `column` at `row_ids` (the engine; legacy columns allowed)."""
    from .table import _stream_to_reader

    table = _stream_to_reader(inner.fetch_blobs(column, row_ids)).read_all()
    return table.column(0).combine_chunks()


def stash_row_ids(tbl: pa.Table, blob_columns: Iterable[str]) -> pa.Table:
    """Move ``_rowid`` into a ``_lance_row_id`` member of each blob v2 descriptor (what
    LanceDB returns when the caller did not ask for row ids)."""
    present = [c for c in blob_columns if c in tbl.column_names]
    if "_rowid" not in tbl.column_names or not present:
        return tbl
    row_ids = tbl["_rowid"].combine_chunks().cast(pa.uint64())
    for name in present:
        col = tbl[name].combine_chunks()
        children = [col.field(i) for i in range(col.type.num_fields)] + [row_ids]
        fields = list(col.type) + [pa.field(ROW_ID_FIELD_NAME, pa.uint64(), nullable=False)]
        mask = col.is_null() if col.null_count else None
        new = pa.StructArray.from_arrays(children, fields=fields, mask=mask)
        index = tbl.schema.get_field_index(name)
        tbl = tbl.set_column(index, tbl.schema.field(index).with_type(new.type), new)
    return tbl.drop_columns(["_rowid"])


def stash_auto_row_ids(tbl: pa.Table, blob_paths: Iterable[str]) -> pa.Table:
    """LanceDB's name for stash_row_ids, with its errors: the result must carry ``_rowid`` and
    one of the blob v2 columns `blob_paths` names (top-level columns here)."""
    if "_rowid" not in tbl.column_names:
        raise ValueError("query result has no '_rowid' column to hide")
    paths = list(blob_paths)
    nested = [p for p in paths if "." in p and p.split(".")[0] in tbl.column_names]
    if nested:
        raise NotImplementedError(
            f"stash_auto_row_ids: nested blob columns ({', '.join(nested)}) are not supported "
            "by lancedb_cpp")
    if not any(p in tbl.column_names for p in paths):
        raise ValueError("query result has no blob v2 column to carry a row id")
    return stash_row_ids(tbl, paths)


def read_row_ids_from_hits(hits: pa.Table, blob_column: str) -> List[int]:
    """LanceDB's name for row_ids_of on a query result."""
    return row_ids_of(hits, blob_column)


def strip_row_ids(tbl: pa.Table) -> pa.Table:
    """Remove the ``_lance_row_id`` members stashed in blob descriptors."""
    for index, field in enumerate(tbl.schema):
        t = field.type
        if pa.types.is_struct(t) and t.get_field_index(ROW_ID_FIELD_NAME) >= 0:
            col = tbl.column(index).combine_chunks()
            keep = [i for i in range(t.num_fields) if t.field(i).name != ROW_ID_FIELD_NAME]
            mask = col.is_null() if col.null_count else None
            new = pa.StructArray.from_arrays(
                [col.field(i) for i in keep], fields=[t.field(i) for i in keep], mask=mask
            )
            tbl = tbl.set_column(index, pa.field(field.name, new.type, field.nullable), new)
    return tbl


_V2_DESCRIPTOR = ["kind", "position", "size", "blob_id", "blob_uri"]
_V1_DESCRIPTOR = ["position", "size"]


def looks_like_descriptor(t: pa.DataType, v2_only: bool) -> bool:
    """Whether `t` has the shape of a blob descriptor (v2, or with `v2_only` False also
    legacy)."""
    if not pa.types.is_struct(t):
        return False
    names = [f.name for f in t if f.name != ROW_ID_FIELD_NAME]
    return names == _V2_DESCRIPTOR or (not v2_only and names == _V1_DESCRIPTOR)


def blob_columns_in(tbl: pa.Table, table_schema: pa.Schema) -> List[str]:
    """The blob columns (either kind) of the table that `tbl` carries as descriptors."""
    return [
        f.name
        for f in table_schema
        if is_blob_like_field(f) and f.name in tbl.column_names
        and pa.types.is_struct(tbl.schema.field(f.name).type)
    ]


def result_to_pandas(
    table: "Table", tbl: pa.Table, blob_mode: str, row_ids: Optional[List[int]], **kwargs: Any
) -> "Any":
    """`tbl` (holding blob descriptors of rows `row_ids`) as pandas: descriptors
    ("descriptions"), bytes ("bytes") or lazy BlobFile handles ("lazy", None for a null
    blob)."""
    columns = blob_columns_in(tbl, table.schema)
    tbl = strip_row_ids(tbl)
    if not columns or row_ids is None or blob_mode == "descriptions":
        return tbl.to_pandas(**kwargs)
    lazy = {}
    for name in columns:
        index = tbl.schema.get_field_index(name)
        if blob_mode == "bytes":
            values = fetch(table._inner, name, row_ids)
            tbl = tbl.set_column(index, pa.field(name, pa.large_binary()), values)
        else:
            sizes = _descriptor_sizes(tbl[name].combine_chunks())
            lazy[name] = [
                None if size is None else BlobFile(table._inner, name, rid, size)
                for rid, size in zip(row_ids, sizes)
            ]
    df = tbl.to_pandas(**kwargs)
    for name, files in lazy.items():
        df[name] = pd_object_column(files)
    return df


def pd_object_column(values: List[Any]) -> Any:
    import numpy as np

    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def descriptor_sizes(table: "Table", column: str, row_ids: List[int]) -> List[Optional[int]]:
    """Payload sizes of `column` at `row_ids` from its descriptors (no payload is read):
    None for a null blob, -1 for an external object whose size is known once read."""
    unique = sorted(set(row_ids))
    if not unique:
        return []
    found = table.take_row_ids(unique).select([column]).with_row_id(True).to_arrow()
    sizes = dict(zip(found["_rowid"].to_pylist(), _descriptor_sizes(found[column].combine_chunks())))
    missing = [r for r in unique if r not in sizes]
    if missing:
        raise ValueError(f"Invalid input, row id {missing[0]} is not in this version")
    return [sizes[r] for r in row_ids]


def _descriptor_sizes(col: pa.StructArray) -> List[Optional[int]]:
    sizes = col.field("size").to_pylist()
    valid = col.is_valid().to_pylist()
    kinds = col.field("kind").to_pylist() if col.type.get_field_index("kind") >= 0 else None
    out: List[Optional[int]] = []
    for i, ok in enumerate(valid):
        if not ok:
            out.append(None)
        elif kinds is not None and kinds[i] == 3 and sizes[i] == 0:
            out.append(-1)  # an external object read whole: its size is known once read
        else:
            out.append(sizes[i])
    return out


# Lazy files -----------------------------------------------------------------------------------


class BlobFile(io.RawIOBase):
    """Seekable lazy handle on one blob, from ``Table.fetch_blob_files`` (or a lazy
    ``to_pandas``). The payload is read on the first ``read``/``read_range``, not when the
    handle is opened."""

    def __init__(self, inner: Any, column: str, row_id: int, size: int) -> None:
        super().__init__()
        self._inner = inner
        self._column = column
        self._row_id = row_id
        self._size = size
        self._data: Optional[bytes] = None
        self._pos = 0

    def _load(self) -> bytes:
        if self.closed:
            raise ValueError("I/O operation on closed blob file")
        if self._data is None:
            value = fetch(self._inner, self._column, [self._row_id])[0].as_py()
            self._data = value if value is not None else b""
            self._size = len(self._data)
        return self._data

    async def aread(self) -> bytes:
        return self.readall()

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def size(self) -> int:
        if self._size < 0:
            self._load()
        return self._size

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_SET:
            pos = offset
        elif whence == io.SEEK_CUR:
            pos = self._pos + offset
        elif whence == io.SEEK_END:
            pos = self.size() + offset
        else:
            raise ValueError(f"invalid whence: {whence}")
        if pos < 0:
            raise ValueError(f"negative seek position {pos}")
        self._pos = pos
        return pos

    def readall(self) -> bytes:
        data = self._load()
        out = data[self._pos :]
        self._pos = max(self._pos, len(data))
        return out

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            return self.readall()
        data = self._load()
        out = data[self._pos : self._pos + size]
        self._pos += len(out)
        return out

    def readinto(self, b: Any) -> int:
        view = memoryview(b).cast("B")
        chunk = self.read(len(view))
        view[: len(chunk)] = chunk
        return len(chunk)

    def read_range(self, offset: int, length: int) -> bytes:
        data = self._load()
        if offset < 0 or length < 0 or offset + length > len(data):
            raise ValueError(
                f"Invalid input, blob range [{offset}, {offset + length}) exceeds blob size "
                f"{len(data)}"
            )
        return data[offset : offset + length]

    def __repr__(self) -> str:
        return f"<BlobFile size={self.size()}>"


def fetch_ranges(
    inner: Any, column: str, requests: Iterable[Tuple[int, int, int]]
) -> pa.LargeBinaryArray:
    """Byte ranges ``(row_id, offset, length)`` of blobs, in request order; null for a null
    blob. ValueError for a range past the end of its blob."""
    requests = [(int(r), int(o), int(n)) for r, o, n in requests]
    unique = sorted({r for r, _, _ in requests})
    payloads = dict(zip(unique, fetch(inner, column, unique).to_pylist())) if unique else {}
    out: List[Optional[bytes]] = []
    for i, (row_id, offset, length) in enumerate(requests):
        data = payloads[row_id]
        if data is None:
            out.append(None)
            continue
        if offset < 0 or length < 0 or offset + length > len(data):
            raise ValueError(
                f"Invalid input, Blob range request {i} for row {row_id} is invalid: blob "
                f"range end {offset + length} exceeds blob size {len(data)}"
            )
        out.append(data[offset : offset + length])
    return pa.array(out, type=pa.large_binary())


__all__ = ["BlobFile", "blob_v2_column_paths"]
