# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Merge insert on a remote table: lancedb_cpp's builder, executed as one ``merge_insert/``
request (the new rows as an Arrow IPC stream, the merge in the query string, as LanceDB)."""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

from .._evolution import LanceMergeInsertBuilder, MergeResult
from .client import REQUEST_TIMEOUT_HEADER


class RemoteMergeInsertBuilder(LanceMergeInsertBuilder):
    """``RemoteTable.merge_insert(on)``."""

    def __init__(self, table: Any, on: Any):
        super().__init__(table, on)
        self._use_index = True
        self._use_lsm: Optional[bool] = None

    def use_index(self, use_index: bool) -> "RemoteMergeInsertBuilder":
        """Whether the server may use an index on the key (default True)."""
        self._use_index = bool(use_index)
        return self

    def use_lsm(self, enable: bool) -> "RemoteMergeInsertBuilder":
        """Route the merge through the table's LSM write path (sent only when set)."""
        self._use_lsm = bool(enable)
        return self

    def _params(self) -> List[Tuple[str, str]]:
        if not self._on:
            raise ValueError("Invalid input, MergeInsertBuilder missing required 'on' field")
        if len(self._on) > 1:
            raise NotImplementedError(
                "LanceDBError: not supported: MergeInsertBuilder only supports a single 'on' "
                "column"
            )
        flag = lambda value: "true" if value else "false"  # noqa: E731
        params = [("on", self._on[0]), ("when_matched_update_all", flag(self._update_all))]
        if self._update_where is not None:
            params.append(("when_matched_update_all_filt", self._update_where))
        params.append(("when_not_matched_insert_all", flag(self._insert_all)))
        params.append(("when_not_matched_by_source_delete", flag(self._delete_by_source)))
        if self._delete_condition is not None:
            params.append(("when_not_matched_by_source_delete_filt", self._delete_condition))
        if not self._use_index:
            params.append(("use_index", "false"))
        if self._use_lsm is not None:
            params.append(("use_lsm", flag(self._use_lsm)))
        return params

    def execute(
        self,
        new_data: Any,
        on_bad_vectors: str = "error",
        fill_value: float = 0.0,
        timeout: Optional[Any] = None,
    ) -> MergeResult:
        """Send the merge; `timeout` (seconds or timedelta) goes to the server as
        ``x-request-timeout-ms``."""
        from .. import _data
        from .db import ipc_stream

        table = self._table
        table._check_mutable()
        reader = _data.sanitize(
            new_data, table.schema, on_bad_vectors, fill_value, blob_strings=False
        )
        params = self._params()
        data = reader.read_all()
        headers = {}
        if timeout is not None:
            seconds = timeout.total_seconds() if hasattr(timeout, "total_seconds") else timeout
            headers[REQUEST_TIMEOUT_HEADER] = str(int(float(seconds) * 1000))
        answer = (
            table._write(
                "merge_insert/", ipc_stream(data), params + table._branch_params(), headers
            )
            or {}
        )
        result = MergeResult(
            version=int(answer.get("version", 0)),
            num_updated_rows=int(answer.get("num_updated_rows", 0)),
            num_inserted_rows=int(answer.get("num_inserted_rows", 0)),
            num_deleted_rows=int(answer.get("num_deleted_rows", 0)),
            num_attempts=int(answer.get("num_attempts", 0)),
            num_rows=int(answer.get("num_rows", 0)),
        )
        table._track_write(result.version)
        return result
