# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Blob v2 columns of remote tables (servers of version 0.5.0 or newer): ``fetch_blobs/``
returns the payloads as an Arrow stream, ``GET blob/{column}/{row_id}/bytes`` serves byte
ranges (``Range`` / ``Content-Range``), which ``RemoteBlobFile`` reads lazily."""

from __future__ import annotations

import io
import re
from typing import Any, List, Optional, Tuple, Union
from urllib.parse import quote

import pyarrow as pa

from .client import http_error

_CONTENT_RANGE = re.compile(r"bytes\s+(\d+)-(\d+)/(\d+)")


def require_blob_server(table: Any, what: str) -> None:
    if table._server_version < (0, 5, 0):
        raise NotImplementedError(
            f"LanceDBError: not supported: {what} is not supported by this server "
            "(it needs a server of version 0.5.0 or newer)"
        )


def fetch_blobs(table: Any, column: str, row_ids: List[int]) -> pa.LargeBinaryArray:
    """The payloads of `column` at `row_ids`, in order (null for null blobs)."""
    from .table import read_arrow

    require_blob_server(table, "fetch_blobs")
    body = table._version_body(column=column, row_ids=list(row_ids))
    request_id, response = table._post("fetch_blobs/", json_body=body, read=True)
    result = read_arrow(request_id, response)
    values = result.column(0).combine_chunks() if result.num_columns else pa.array([])
    if len(values) != len(row_ids):
        raise http_error(
            request_id, f"fetch_blobs returned {len(values)} rows for {len(row_ids)} row ids"
        )
    if not pa.types.is_large_binary(values.type):
        values = values.cast(pa.large_binary())
    return values


def _blob_path(table: Any, column: str, row_id: int) -> str:
    return table._path(f"blob/{quote(column, safe='')}/{int(row_id)}/bytes")


def _get_range(table: Any, column: str, row_id: int, range_text: str) -> Tuple[int, Any]:
    params = []
    if table._version_pin is not None:
        params.append(("version", table._version_pin))
    params += table._branch_params()
    headers = dict(table._read_headers())
    headers["Range"] = range_text
    request_id, response = table._client.send(
        "GET", _blob_path(table, column, row_id), params=params, headers=headers
    )
    return request_id, response


def blob_size(table: Any, column: str, row_id: int) -> Optional[int]:
    """The size of a blob (None: a null blob), from a one-byte probe."""
    request_id, response = _get_range(table, column, row_id, "bytes=0-0")
    if response.status_code == 204:
        return None
    if response.status_code == 416:
        return 0
    table._client.check(request_id, response)
    match = _CONTENT_RANGE.match(response.headers.get("Content-Range", ""))
    if response.status_code != 206 or match is None:
        raise http_error(request_id, "blob probe answered without a byte range")
    return int(match.group(3))


def read_blob_range(table: Any, column: str, row_id: int, offset: int, length: int) -> bytes:
    """`length` bytes of a blob from `offset`."""
    if length <= 0:
        return b""
    end = offset + length - 1
    request_id, response = _get_range(table, column, row_id, f"bytes={offset}-{end}")
    table._client.check(request_id, response)
    if response.status_code != 206:
        raise http_error(request_id, "blob read answered without a partial response (206)")
    return response.content


class RemoteBlobFile(io.RawIOBase):
    """A seekable, read-only file over one remote blob; bytes are fetched as they are read."""

    def __init__(self, table: Any, column: str, row_id: int, size: int) -> None:
        super().__init__()
        self._table = table
        self._column = column
        self._row_id = row_id
        self._size = size
        self._pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def size(self) -> int:
        """The blob's size in bytes."""
        return self._size

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_SET:
            pos = offset
        elif whence == io.SEEK_CUR:
            pos = self._pos + offset
        elif whence == io.SEEK_END:
            pos = self._size + offset
        else:
            raise ValueError(f"invalid whence ({whence})")
        if pos < 0:
            raise ValueError(f"negative seek position {pos}")
        self._pos = pos
        return pos

    def read_range(self, offset: int, length: int) -> bytes:
        """`length` bytes from `offset` (fewer at the end of the blob)."""
        length = max(0, min(length, self._size - offset))
        return read_blob_range(self._table, self._column, self._row_id, offset, length)

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            size = self._size - self._pos
        data = self.read_range(self._pos, size)
        self._pos += len(data)
        return data

    def readall(self) -> bytes:
        return self.read(-1)

    def readinto(self, b: Any) -> int:
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)

    def __repr__(self) -> str:
        return f"RemoteBlobFile(column={self._column!r}, row_id={self._row_id}, size={self._size})"


def fetch_blob_files(table: Any, column: str, row_ids: List[int]) -> List[Optional[RemoteBlobFile]]:
    require_blob_server(table, "fetch_blob_files")
    files: List[Optional[RemoteBlobFile]] = []
    for row_id in row_ids:
        size = blob_size(table, column, row_id)
        files.append(None if size is None else RemoteBlobFile(table, column, row_id, size))
    return files
