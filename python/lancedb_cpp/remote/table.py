# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``lancedb.remote.table``: a table of a remote database. Every operation is one or a few
requests of LanceDB's REST protocol (docs/remote.md); queries use lancedb_cpp's builders
(remote/query.py). Operations LanceDB does not offer on remote tables, and those lancedb_cpp
does not send yet, raise NotImplementedError.

Thread-safety: a handle may be shared between threads (its pinned version, branch and schema
cache change only through checkout / checkout_latest / restore, which are not meant to race
with reads).
"""

from __future__ import annotations

import json
import os
import threading
import time
import warnings
from datetime import timedelta
from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

import pyarrow as pa

from ..table import AddResult, DeleteResult, Table, UpdateResult, value_to_sql
from .client import ARROW_STREAM_CONTENT_TYPE, REQUEST_TIMEOUT_HEADER, http_error
from .db import check_table_response, ipc_stream, parse_server_version

__all__ = ["RemoteTable"]

_SCHEMA_CACHE_TTL = 30.0


class _NotLocal:
    """The engine handle of a local table, which a remote one lacks: every use raises."""

    def __getattr__(self, name: str) -> Any:
        raise NotImplementedError(f"{name} is not supported on remote tables by lancedb_cpp yet")


def _not_supported(what: str) -> NotImplementedError:
    return NotImplementedError(f"{what} is not supported on LanceDB cloud.")


class RemoteTable(Table):
    """A table of a remote database (``RemoteDBConnection.open_table``)."""

    def __init__(
        self,
        conn: Any,
        name: str,
        namespace_path: Optional[List[str]] = None,
        server_version: Tuple[int, int, int] = (0, 1, 0),
        *,
        describe: Optional[Dict[str, Any]] = None,
        branch: Optional[str] = None,
    ):
        self._conn = conn
        self._name = name
        self._namespace_path = list(namespace_path or [])
        self._server_version = tuple(server_version)
        self._inner = _NotLocal()
        self._version_pin: Optional[int] = None
        self._branch: Optional[str] = None if branch in (None, "", "main") else branch
        self._schema_cache: Optional[Tuple[float, pa.Schema, Optional[str]]] = None
        self._lock = threading.Lock()
        self._min_version: Optional[int] = None
        self._min_read_version: Optional[int] = None
        self._checkout_baseline: Any = None
        self._embedding_functions_override: Any = None
        self.db_name = conn.db_name
        if describe is not None:
            self._seed(describe, track=True)

    # Identity and pickling ------------------------------------------------------------------

    @property
    def _client(self):
        return self._conn._client

    @property
    def _identifier(self) -> str:
        return self._client.id_delimiter.join(self._namespace_path + [self._name])

    def _path(self, action: str) -> str:
        return self._client.table_path(self._identifier, action)

    @property
    def name(self) -> str:
        """The table's name."""
        return self._name

    @property
    def namespace(self) -> List[str]:
        """The namespace path of the table."""
        return list(self._namespace_path)

    @property
    def id(self) -> str:
        return self._identifier

    def __repr__(self) -> str:
        return f"RemoteTable({self.db_name}.{self._name})"

    def __len__(self) -> int:
        return self.count_rows()

    def __getstate__(self) -> Dict[str, Any]:
        return {
            "connection_state": self._conn.serialize(),
            "name": self._name,
            "namespace_path": self._namespace_path,
            "version": self._version_pin,
            "branch": self._branch,
            "server_version": self._server_version,
        }

    def __setstate__(self, state: Dict[str, Any]) -> None:
        from .db import RemoteDBConnection

        params = json.loads(state["connection_state"])
        conn = RemoteDBConnection(
            params["db_url"],
            params["api_key"],
            params.get("region", "us-east-1"),
            host_override=params.get("host_override"),
            sql_host_override=params.get("sql_host_override"),
            client_config=params.get("client_config"),
            storage_options=params.get("storage_options"),
        )
        self.__init__(
            conn,
            state["name"],
            state["namespace_path"],
            tuple(state.get("server_version") or (0, 1, 0)),
            branch=state.get("branch"),
        )
        self._version_pin = state.get("version")

    # Request helpers ------------------------------------------------------------------------

    def _version_body(self, **fields: Any) -> Dict[str, Any]:
        body: Dict[str, Any] = dict(fields)
        body["version"] = self._version_pin
        return self._with_branch(body)

    def _with_branch(self, body: Dict[str, Any]) -> Dict[str, Any]:
        if self._branch is not None:
            body["branch"] = self._branch
        return body

    def _branch_params(self) -> List[Tuple[str, Any]]:
        return [] if self._branch is None else [("branch", self._branch)]

    def _read_headers(self) -> Dict[str, str]:
        """LanceDB's read-freshness headers: at least the version of this handle's last write
        (``x-lancedb-min-version``) and of its last read (``x-lancedb-min-read-version``), and
        a snapshot no older than the read consistency interval or the last
        ``checkout_latest()`` (``x-lancedb-min-timestamp``)."""
        headers = {}
        with self._lock:
            min_version, min_read = self._min_version, self._min_read_version
            baseline = self._checkout_baseline
        if min_version is not None:
            headers["x-lancedb-min-version"] = str(min_version)
        interval = getattr(self._conn, "_read_consistency_interval", None)
        stamps = [] if baseline is None else [baseline]
        if interval is not None:
            now = time.time_ns()
            stamps.append(max(0, now - int(interval.total_seconds() * 1e9)))
        if stamps:
            headers["x-lancedb-min-timestamp"] = _rfc3339(max(stamps))
        if min_read is not None:
            headers["x-lancedb-min-read-version"] = str(min_read)
        return headers

    def _track_write(self, version: int) -> None:
        if version:
            with self._lock:
                self._min_version = max(self._min_version or 0, version)

    def _track_read(self, response: Any) -> None:
        """Fold the ``x-lancedb-version`` a read reflects into the read watermark."""
        try:
            version = int(response.headers.get("x-lancedb-version") or 0)
        except ValueError:
            return
        if version:
            with self._lock:
                self._min_read_version = max(self._min_read_version or 0, version)

    def _post(
        self,
        action: str,
        *,
        json_body: Any = None,
        read: bool = True,
        retry: bool = True,
        params: Optional[List[Tuple[str, Any]]] = None,
        headers: Optional[Dict[str, str]] = None,
        not_found: Optional[str] = None,
    ) -> Tuple[str, Any]:
        """POST a table route and check the response (404: TableNotFound). Unless `read` is
        False, the request carries the handle's freshness headers (LanceDB 0.39 sends them
        with every table request but the describe of ``checkout``)."""
        all_headers = dict(self._read_headers() if read else {})
        all_headers.update(headers or {})
        request_id, response = self._client.send(
            "POST", self._path(action), json=json_body, retry=retry, params=params,
            headers=all_headers or None,
        )  # fmt: skip
        if response.status_code in (400, 404, 422, 500):
            self._schema_cache = None
        check_table_response(not_found or self._name, request_id, response, self._client)
        return request_id, response

    def _post_json(self, action: str, **kwargs: Any) -> Any:
        request_id, response = self._post(action, **kwargs)
        text = response.text
        if not text.strip():
            return None
        try:
            return json.loads(text)
        except ValueError as e:
            raise http_error(request_id, f"Failed to parse {action} response: {e}") from None

    def _check_mutable(self) -> None:
        if self._version_pin is not None:
            raise NotImplementedError(
                "LanceDBError: not supported: Cannot mutate table reference fixed at version "
                f"{self._version_pin}. Call checkout_latest() to get a mutable table reference."
            )

    _check_writable = _check_mutable

    # Schema and versions --------------------------------------------------------------------

    def _seed(self, describe: Dict[str, Any], track: bool = False) -> None:
        from ._schema_json import schema_from_json

        try:
            schema = schema_from_json(describe["schema"])
        except (KeyError, TypeError, ValueError):
            return
        self._schema_cache = (time.monotonic(), schema, describe.get("location"))
        if track and describe.get("version"):  # the describe of open_table (as LanceDB)
            with self._lock:
                self._min_read_version = max(self._min_read_version or 0, int(describe["version"]))

    def _describe(self, version: Optional[int] = None, *, fresh: bool = True) -> Dict[str, Any]:
        body = self._with_branch({"version": version})
        name = self._name if version is None else f"{self._name} (version: {version})"
        data = self._post_json("describe/", json_body=body, read=fresh, not_found=name)
        if not isinstance(data, dict):
            raise http_error("", "Failed to parse table description")
        return data

    @property
    def schema(self) -> pa.Schema:
        """The table's Arrow schema (cached for 30 seconds, as LanceDB does)."""
        cached = self._schema_cache
        if cached is not None and time.monotonic() - cached[0] < _SCHEMA_CACHE_TTL:
            return cached[1]
        self._seed(self._describe(self._version_pin))
        if self._schema_cache is None:
            raise ValueError("Invalid input, the server described the table without a schema")
        return self._schema_cache[1]

    @property
    def version(self) -> int:
        """The version this handle reads (the latest unless checked out)."""
        return int(self._describe(self._version_pin)["version"])

    @property
    def uri(self) -> str:
        """The location the server reports for the table."""
        location = self._describe(self._version_pin).get("location")
        if location is None:
            raise NotImplementedError("the server did not report the table's location")
        return location

    @property
    def embedding_functions(self) -> Dict[str, Any]:
        """The table's embedding function configurations, by vector column."""
        if self._embedding_functions_override is not None:
            return self._embedding_functions_override
        from .. import _data

        return _data.embedding_configs(self.schema.metadata)

    @embedding_functions.setter
    def embedding_functions(self, value: Any) -> None:
        self._embedding_functions_override = value

    def checkout(self, version: Union[int, str]) -> None:
        """Pin the handle to `version` (or the version of a tag); reads see it, writes fail
        until ``checkout_latest()``."""
        if isinstance(version, str):
            data = self._post_json("tags/version/", json_body={"tag": version})
            version = int(data["version"])
            if data.get("branch") not in (None, "", "main"):
                self._branch = data["branch"]
        self._describe(int(version), fresh=False)
        with self._lock:
            self._version_pin = int(version)
            self._min_version = self._min_read_version = self._checkout_baseline = None
            self._schema_cache = None
        self._describe(self._version_pin)  # LanceDB reads the version back

    def checkout_latest(self) -> None:
        """Follow the latest version again; later reads see at least the latest version at
        the time of this call."""
        with self._lock:
            self._version_pin = None
            self._min_version = self._min_read_version = None
            self._checkout_baseline = time.time_ns()
            self._schema_cache = None

    def restore(self, version: Optional[Union[int, str]] = None) -> None:
        """Make the checked-out version (or `version`) the latest."""
        if version is not None:
            self.checkout(version)
        self._post("restore/", json_body=self._version_body())
        self.checkout_latest()

    def list_versions(self) -> List[Dict[str, Any]]:
        """Every version: dicts with "version", "timestamp" and "metadata"."""
        import datetime

        data = self._post_json("version/list/", read=True, params=self._branch_params()) or {}
        versions = []
        for v in data.get("versions", []):
            if v.get("timestamp") is not None:
                text = str(v["timestamp"]).replace("Z", "+00:00")
                stamp = datetime.datetime.fromisoformat(text)
            else:
                stamp = datetime.datetime.fromtimestamp(v["timestamp_millis"] / 1000.0)
            versions.append(
                {"version": v["version"], "timestamp": stamp, "metadata": v.get("metadata") or {}}
            )
        return versions

    @property
    def tags(self) -> "RemoteTags":
        """The table's tags."""
        return RemoteTags(self)

    @property
    def branches(self) -> "RemoteBranches":
        """The table's branches."""
        return RemoteBranches(self)

    def current_branch(self) -> Optional[str]:
        """The branch this handle is scoped to (None: main)."""
        return self._branch

    def _on_branch(self, branch: Optional[str], version: Optional[int] = None) -> "RemoteTable":
        table = RemoteTable(
            self._conn, self._name, self._namespace_path, self._server_version, branch=branch
        )
        table._embedding_functions_override = self._embedding_functions_override
        if version is not None:
            table.checkout(version)
        return table

    # Reads ----------------------------------------------------------------------------------

    def count_rows(self, filter: Optional[str] = None) -> int:
        """Count the rows, or those where the SQL `filter` is true."""
        if hasattr(filter, "to_sql"):
            filter = filter.to_sql()
        body = {"predicate": filter} if filter is not None else {}
        body = self._version_body(**body)
        request_id, response = self._post("count_rows/", json_body=body, read=True)
        self._track_read(response)
        try:
            return int(json.loads(response.text))
        except (ValueError, TypeError) as e:
            raise http_error(request_id, f"Failed to parse row count: {e}") from None

    def head(self, n: int = 5) -> pa.Table:
        """The first `n` rows."""
        return self.query().limit(n).to_arrow()

    def to_arrow(self) -> pa.Table:
        raise NotImplementedError("to_arrow() is not yet supported on LanceDB cloud.")

    def to_pandas(self, blob_mode: str = "lazy", **kwargs: Any):
        raise NotImplementedError("to_pandas() is not yet supported on LanceDB cloud.")

    def to_polars(self, batch_size: Optional[int] = None):
        raise NotImplementedError("to_polars() is not yet supported on LanceDB cloud.")

    def to_lance(self, **kwargs: Any):
        raise NotImplementedError("to_lance() is not supported on LanceDB cloud.")

    def stats(self) -> Dict[str, Any]:
        """The table's statistics (sizes, rows, fragments) as the server reports them."""
        body = self._with_branch({}) if self._branch is not None else None
        return self._post_json("stats/", json_body=body, read=True)

    def search(
        self,
        query: Any = None,
        vector_column_name: Optional[str] = None,
        query_type: str = "auto",
        fts_columns: Optional[Union[str, List[str]]] = None,
        fast_search: bool = False,
        *,
        ordering_field_name: Optional[str] = None,
    ):
        """Start a query (see ``Table.search``; LanceDB's RemoteTable has `fts_columns` where
        a local table has `ordering_field_name`, which it takes as a keyword only); it runs on
        the server."""
        from .query import as_remote

        builder = as_remote(
            super().search(query, vector_column_name, query_type, ordering_field_name, fts_columns)
        )
        if fast_search and hasattr(builder, "fast_search"):
            builder.fast_search()
        return builder

    def query(self):
        """Start a plain query; it runs on the server."""
        from .query import as_remote

        return as_remote(super().query())

    def take_offsets(self, offsets: Iterable[int], *, with_row_id: bool = False):
        from .query import as_remote

        return as_remote(super().take_offsets(offsets, with_row_id=with_row_id))

    def take_row_ids(self, row_ids: Iterable[int], *, with_row_id: bool = False):
        from .query import as_remote

        return as_remote(super().take_row_ids(row_ids, with_row_id=with_row_id))

    def _remote_builder(self, builder: Any) -> Any:
        """`builder` (one of lancedb_cpp's, made for this table) run on the server."""
        from .query import as_remote

        return as_remote(builder)

    def _run_query(self, body: Dict[str, Any], timeout: Optional[timedelta]) -> pa.Table:
        """POST a query body; its Arrow IPC answer (file framing, or stream by Content-Type)."""
        headers = {}
        if timeout is not None:
            headers[REQUEST_TIMEOUT_HEADER] = str(int(timeout.total_seconds() * 1000))
        request_id, response = self._post("query/", json_body=body, read=True, headers=headers)
        self._track_read(response)
        return read_arrow(request_id, response)

    def _explain_remote(self, body: Dict[str, Any], verbose: bool) -> str:
        return self._post_json(
            "explain_plan/", json_body={"verbose": verbose, "query": body}, read=True
        )

    def _analyze_remote(self, body: Dict[str, Any], distributed_metrics: str) -> str:
        params = []
        if distributed_metrics != "aggregate":
            params.append(("distributed_metrics", distributed_metrics))
        return self._post_json("analyze_plan/", json_body=body, read=True, params=params)

    def _execute(self, request: Dict[str, Any]) -> pa.RecordBatchReader:
        from .query import RemoteEmptyQueryBuilder

        builder = RemoteEmptyQueryBuilder(self)
        builder._where = request.get("filter")
        builder._columns = request.get("columns")
        builder._limit = request.get("limit")
        builder._offset = request.get("offset") or 0
        builder._with_row_id = bool(request.get("with_row_id"))
        return builder.to_batches()

    # Writes ---------------------------------------------------------------------------------

    def add(
        self,
        data: Any,
        mode: str = "append",
        on_bad_vectors: str = "error",
        fill_value: float = 0.0,
        progress: Any = None,
        write_parallelism: Optional[int] = None,
        allow_external_blob_outside_bases: bool = False,
    ) -> AddResult:
        """Add rows (sent as one Arrow IPC stream to ``insert/``); `mode` "append" or
        "overwrite". `write_parallelism` is checked as for local tables (the rows go in one
        request)."""
        from .. import _data
        from ..table import _check_write_parallelism

        _check_write_parallelism(write_parallelism)
        if mode not in ("append", "overwrite"):
            raise ValueError(f"mode must be 'append' or 'overwrite', got {mode!r}")
        self._check_mutable()
        current = self.schema
        reader = _data.sanitize(
            data,
            None if mode == "overwrite" else current,
            on_bad_vectors,
            fill_value,
            allow_missing=(mode == "append"),
            metadata=current.metadata,
            reject_nan_vectors=True,
        )
        body = ipc_stream(reader.read_all())
        params = [("mode", "overwrite")] if mode == "overwrite" else []
        data = self._write("insert/", body, params + self._branch_params(), {})
        if mode == "overwrite":
            self._schema_cache = None
        version = int((data or {}).get("version", 0))
        self._track_write(version)
        return AddResult(version=version)

    def _write(
        self, action: str, body: bytes, params: List[Tuple[str, Any]], headers: Dict[str, str]
    ) -> Any:
        """Send an Arrow write; the whole request is sent again (same retry budget) on a
        retry status or a failed connection, as LanceDB does for re-scannable input."""
        from .client import RetryCounter, _TransportError

        client = self._client
        # As LanceDB: the operation's retry budget has an id of its own; each attempt is a
        # request with a new id.
        counter = RetryCounter(client.retry_config, client.new_request_id())
        all_headers = {"Content-Type": ARROW_STREAM_CONTENT_TYPE}
        all_headers.update(self._read_headers())
        all_headers.update(headers)
        while True:
            request_id = client.new_request_id()
            try:
                response = client.send_once(
                    "POST", self._path(action), request_id, params=params, headers=all_headers,
                    body=body,
                )  # fmt: skip
            except _TransportError as e:
                # A connection that failed before the request was sent is safe to retry; a
                # failure while reading the answer is not (the write may have committed).
                if e.kind != "connect":
                    raise e.error from e.__cause__
                counter.connect_failed(e.source)
                time.sleep(counter.sleep_time())
                continue
            if response.status_code in client.retry_config.statuses:
                counter.request_failed(_response_error(request_id, response))
                time.sleep(counter.sleep_time())
                continue
            check_table_response(self._name, request_id, response, client)
            text = response.text
            if not text.strip():
                return None
            try:
                return json.loads(text)
            except ValueError as e:
                raise http_error(request_id, f"Failed to parse {action} response: {e}") from None

    def delete(self, where: str) -> DeleteResult:
        """Delete the rows where the SQL predicate is true."""
        self._check_mutable()
        if hasattr(where, "to_sql"):
            where = where.to_sql()
        data = self._post_json("delete/", json_body=self._with_branch({"predicate": where}))
        data = data or {}
        result = DeleteResult(
            num_deleted_rows=int(data.get("num_deleted_rows", 0)),
            version=int(data.get("version", 0)),
        )
        self._track_write(result.version)
        return result

    def update(
        self,
        where: Optional[str] = None,
        values: Optional[Dict[str, Any]] = None,
        *,
        values_sql: Optional[Dict[str, str]] = None,
    ) -> UpdateResult:
        """Set columns in the rows where `where` is true (every row when None)."""
        if values is not None and values_sql is not None:
            raise ValueError("Only one of values or values_sql can be provided")
        if values is None and values_sql is None:
            raise ValueError("Either values or values_sql must be provided")
        self._check_mutable()
        if hasattr(where, "to_sql"):
            where = where.to_sql()
        if values is not None:
            updates = [[k, value_to_sql(v)] for k, v in values.items()]
        else:
            updates = [[k, v.to_sql() if hasattr(v, "to_sql") else str(v)]
                       for k, v in values_sql.items()]  # fmt: skip
        data = self._post_json(
            "update/", json_body=self._with_branch({"updates": updates, "predicate": where})
        )
        data = data or {}
        result = UpdateResult(
            rows_updated=int(data.get("rows_updated", 0)), version=int(data.get("version", 0))
        )
        self._track_write(result.version)
        return result

    def merge_insert(self, on: Union[str, List[str]]):
        """Start a merge insert keyed on the column `on`; finish with ``.execute(data)``."""
        from .merge import RemoteMergeInsertBuilder

        return RemoteMergeInsertBuilder(self, on)

    # Schema evolution -----------------------------------------------------------------------

    def _evolve(self, action: str, body: Dict[str, Any]) -> int:
        self._check_mutable()
        data = self._post_json(action, json_body=self._with_branch(body)) or {}
        self._schema_cache = None
        version = int(data.get("version", 0))
        self._track_write(version)
        return version

    def add_columns(
        self,
        transforms: Any = None,
        read_columns: Optional[List[str]] = None,
        *,
        batch_size: Optional[int] = None,
        computed: Optional[Dict[str, str]] = None,
    ):
        """Add columns from SQL expressions (``{"name": "expression"}``), or computed columns
        (`computed`, evaluated by the server)."""
        from .._evolution import AddColumnsResult

        if computed:
            if transforms is not None:
                raise ValueError("Invalid input, give transforms or computed columns, not both")
            columns = [{"name": n, "computed": e} for n, e in computed.items()]
        elif isinstance(transforms, dict):
            columns = [{"name": n, "expression": e} for n, e in transforms.items()]
        else:
            raise NotImplementedError(
                "LanceDBError: not supported: Only SQL expressions are supported for adding "
                "columns"
            )
        return AddColumnsResult(version=self._evolve("add_columns/", {"new_columns": columns}))

    def alter_columns(self, *alterations: Dict[str, Any]):
        """Rename columns, change their types or nullability."""
        from .._evolution import AlterColumnsResult
        from ._schema_json import data_type_to_json

        body = []
        for alteration in alterations:
            value: Dict[str, Any] = {"path": alteration["path"]}
            if alteration.get("rename") is not None:
                value["rename"] = alteration["rename"]
            if alteration.get("data_type") is not None:
                value["data_type"] = data_type_to_json(alteration["data_type"])
            if alteration.get("nullable") is not None:
                value["nullable"] = bool(alteration["nullable"])
            body.append(value)
        return AlterColumnsResult(version=self._evolve("alter_columns/", {"alterations": body}))

    def drop_columns(self, columns: Iterable[str]):
        """Drop columns (dot paths for struct members)."""
        from .._evolution import DropColumnsResult

        names = [columns] if isinstance(columns, str) else list(columns)
        return DropColumnsResult(version=self._evolve("drop_columns/", {"columns": names}))

    def update_field_metadata(self, *updates: Dict[str, Any]):
        """Change field metadata: ``{"path", "metadata": {k: v or None}, "replace": False}``."""
        from .._evolution import UpdateFieldMetadataResult

        body = [
            {"path": u["path"], "metadata": dict(u["metadata"]), "replace": bool(u.get("replace"))}
            for u in updates
        ]
        return UpdateFieldMetadataResult(
            version=self._evolve("update_field_metadata/", {"updates": body})
        )

    # Maintenance LanceDB does not offer remotely ----------------------------------------------

    def optimize(
        self, *, cleanup_older_than: Optional[timedelta] = None, delete_unverified: bool = False
    ) -> None:
        """A no-op (with a warning), as on LanceDB Cloud: indices are optimized
        automatically."""
        warnings.warn(
            "optimize() is a no-op on LanceDB Cloud. Indices are optimized automatically.",
            stacklevel=2,
        )

    def compact_files(self, *args: Any, **kwargs: Any) -> None:
        """A no-op (with a warning), as on LanceDB Cloud."""
        warnings.warn(
            "compact_files() is a no-op on LanceDB Cloud. Tables are automatically compacted "
            "and optimized.",
            stacklevel=2,
        )

    def cleanup_old_versions(self, *args: Any, **kwargs: Any) -> None:
        """A no-op (with a warning), as on LanceDB Cloud."""
        warnings.warn(
            "cleanup_old_versions() is a no-op on LanceDB Cloud. Tables are automatically "
            "cleaned up and optimized.",
            stacklevel=2,
        )

    def set_unenforced_primary_key(self, columns: Union[str, Iterable[str]]) -> None:
        raise NotImplementedError(
            "LanceDBError: not supported: set_unenforced_primary_key is not supported on "
            "LanceDB cloud."
        )

    def uses_v2_manifest_paths(self) -> bool:
        raise NotImplementedError("uses_v2_manifest_paths() is not supported on the LanceDB Cloud")

    def migrate_v2_manifest_paths(self) -> None:
        raise NotImplementedError(
            "migrate_v2_manifest_paths() is not supported on the LanceDB Cloud"
        )

    def refresh_column_async(self, column: str):
        """Ask the server to backfill computed column `column`; its job (``backfill_column``).
        A successful wait makes later reads at least as fresh as the fill."""
        from .job import RemoteJob

        data = self._post_json("backfill_column", json_body=self._with_branch({"column": column}))
        job_id = data.get("job_id") if isinstance(data, dict) else None
        if not job_id:
            raise http_error("", "backfill_column response did not contain a job_id")
        table = self

        class BackfillJob(RemoteJob):
            def wait(self, timeout: Optional[timedelta] = None) -> Any:
                result = super().wait(timeout)
                if table._version_pin is None:
                    with table._lock:
                        table._checkout_baseline = time.time_ns()
                return result

        return BackfillJob(self._conn, job_id)

    def refresh_column(self, column: str):
        raise NotImplementedError(
            "refresh_column() is not supported on remote tables: use refresh_column_async() "
            "and wait for its job"
        )

    def optimize_indices(self, *, progress: Any = None) -> None:
        raise NotImplementedError(
            "optimize_indices() is not supported on LanceDB Cloud: indices are optimized "
            "automatically"
        )

    def merge(self, *args: Any, **kwargs: Any):
        raise NotImplementedError("merge() is not supported on remote tables")

    # LSM write path -------------------------------------------------------------------------

    def set_lsm_write_spec(self, spec: Any) -> None:
        raise NotImplementedError(
            "set_lsm_write_spec() on remote tables is not supported by lancedb_cpp yet"
        )

    def unset_lsm_write_spec(self) -> None:
        raise NotImplementedError(
            "unset_lsm_write_spec() on remote tables is not supported by lancedb_cpp yet"
        )

    def get_lsm_write_spec(self) -> Any:
        raise NotImplementedError(
            "get_lsm_write_spec() on remote tables is not supported by lancedb_cpp yet"
        )

    def close_lsm_writers(self) -> None:
        """A no-op, as on LanceDB Cloud (there are no local shard writers)."""

    def flush_lsm(self) -> None:
        """Seal the active memtables (the server answers 202)."""
        self._post("flush_lsm/", retry=False)

    def compact_lsm(self) -> None:
        """Start compacting sealed generations into the base table."""
        self._post("compact_lsm/", retry=False)

    def get_lsm_stats(self, *, include_generation_rows: bool = False) -> Optional[dict]:
        """The LSM write path's state, or None when it is not enabled."""
        data = self._post_json(
            "get_lsm_stats/",
            json_body={"include_generation_rows": bool(include_generation_rows)},
            read=True,
            retry=False,
        )
        return None if data is None else data.get("lsm_stats")

    def checkpoint_lsm(self) -> None:
        """Seal the memtables and wait until the L0 generations they held are compacted."""
        self.flush_lsm()
        stats = self.get_lsm_stats()
        targets = _lsm_targets(stats)
        if not targets:
            return
        delay = 0.1
        while True:
            self.compact_lsm()
            stats = self.get_lsm_stats()
            if all(_lsm_done(stats, shard, gen) for shard, gen in targets.items()):
                return
            time.sleep(delay)
            delay = min(delay * 2, 5.0)

    # Indices (remote/_index.py) -------------------------------------------------------------

    from ._index import (  # noqa: E402
        create_fts_index,
        create_index,
        create_index_async,
        create_scalar_index,
        drop_index,
        index_stats,
        list_indices,
        prewarm_index,
        tokenize,
        wait_for_index,
    )

    # Blob columns (remote/_blob.py) -----------------------------------------------------------

    def fetch_blobs(self, column: str, row_ids: Union[List[int], pa.Table]) -> pa.Array:
        """The payloads of blob v2 column `column` at `row_ids` (a list, or a query result
        carrying its row ids), as a LargeBinaryArray in that order."""
        from .. import _blob as local_blob
        from . import _blob

        _blob.require_blob_server(self, "fetch_blobs")
        return _blob.fetch_blobs(self, column, local_blob.row_ids_of(row_ids, column))

    def fetch_blob_files(self, column: str, row_ids: Union[List[int], pa.Table]) -> List[Any]:
        """Lazy, seekable file handles on the blobs of `column` at `row_ids` (None for a null
        blob); their bytes are read with HTTP range requests."""
        from .. import _blob as local_blob
        from . import _blob

        _blob.require_blob_server(self, "fetch_blob_files")
        return _blob.fetch_blob_files(self, column, local_blob.row_ids_of(row_ids, column))

    def _selected_blob_columns(self, columns: Any) -> List[str]:
        """The top-level blob v2 columns a query selecting `columns` returns."""
        from ..schema import row_addressable_blob_v2_paths

        blobs = [p for p in row_addressable_blob_v2_paths(self.schema) if "." not in p]
        if columns is None:
            return blobs
        names = list(columns.keys()) if isinstance(columns, dict) else list(columns)
        return [b for b in blobs if b in names]

    def fetch_blob_ranges(self, column: str, requests: Any) -> pa.Array:
        raise NotImplementedError("fetch_blob_ranges() is not supported on LanceDB Cloud")

    def prewarm_data(self, columns: Optional[List[str]] = None) -> None:
        """Ask the server to load these columns (all when None) into its page cache."""
        self._post("page_cache/prewarm/", json_body={"columns": list(columns or [])})


def _rfc3339(nanos: int) -> str:
    """A UTC time (nanoseconds since the epoch) as chrono's ``to_rfc3339`` prints it (0, 3, 6
    or 9 fractional digits, ``+00:00``)."""
    import datetime

    seconds, frac = divmod(nanos, 1_000_000_000)
    text = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%S"
    )
    if frac == 0:
        digits = ""
    elif frac % 1_000_000 == 0:
        digits = f".{frac // 1_000_000:03d}"
    elif frac % 1_000 == 0:
        digits = f".{frac // 1_000:06d}"
    else:
        digits = f".{frac:09d}"
    return f"{text}{digits}+00:00"


def _lsm_targets(stats: Optional[dict]) -> Dict[str, int]:
    targets = {}
    for bucket in (stats or {}).get("buckets", []):
        generations = bucket.get("generations") or []
        if generations:
            targets[bucket["shard_id"]] = max(g["generation"] for g in generations)
    return targets


def _lsm_done(stats: Optional[dict], shard: str, generation: int) -> bool:
    for bucket in (stats or {}).get("buckets", []):
        if bucket.get("shard_id") == shard:
            return all(g["generation"] > generation for g in bucket.get("generations") or [])
    return True


def _response_error(request_id: str, response: Any):
    from .client import response_error

    return response_error(request_id, response)


def read_arrow(request_id: str, response: Any) -> pa.Table:
    """The Arrow table of a response: IPC file framing, or stream framing when the
    Content-Type says so (missing: file)."""
    content_type = (response.headers.get("Content-Type") or "").split(";")[0].strip().lower()
    data = response.content
    if content_type in ("", "application/vnd.apache.arrow.file"):
        return pa.ipc.open_file(pa.py_buffer(data)).read_all()
    if content_type == "application/vnd.apache.arrow.stream":
        return pa.ipc.open_stream(pa.py_buffer(data)).read_all()
    raise http_error(
        request_id, f"Unsupported Content-Type for an Arrow response: {content_type!r}"
    )


class RemoteTags:
    """The tags of a remote table (``table.tags``)."""

    def __init__(self, table: RemoteTable):
        self._table = table

    def list(self) -> Dict[str, Any]:
        """Every tag: name -> {"version", "manifest_size", ...}."""
        data = self._table._post_json("tags/list/", read=True) or {}
        return {
            name: {
                "branch": t.get("branch"),
                "version": t["version"],
                "manifest_size": t.get("manifestSize"),
            }
            for name, t in data.items()
        }

    def get_version(self, tag: str) -> int:
        """The version `tag` points at."""
        return int(self._table._post_json("tags/version/", json_body={"tag": tag})["version"])

    def create(self, tag: str, version: int) -> None:
        body = self._table._with_branch({"tag": tag, "version": version})
        self._table._post("tags/create/", json_body=body)

    def delete(self, tag: str) -> None:
        self._table._post("tags/delete/", json_body={"tag": tag})

    def update(self, tag: str, version: int) -> None:
        body = self._table._with_branch({"tag": tag, "version": version})
        self._table._post("tags/update/", json_body=body)


class RemoteBranches:
    """The branches of a remote table (``table.branches``); handles they return are scoped to
    the branch."""

    def __init__(self, table: RemoteTable):
        self._table = table

    def list(self) -> Dict[str, Dict[str, Any]]:
        """Every branch: name -> {"parent_branch", "parent_version", "create_at",
        "manifest_size"}."""
        data = self._table._post_json("branches/list/", read=True) or {}
        return {
            name: {
                "parent_branch": b.get("parentBranch"),
                "parent_version": b.get("parentVersion"),
                "create_at": b.get("createAt"),
                "manifest_size": b.get("manifestSize"),
            }
            for name, b in (data.get("branches") or {}).items()
        }

    def create(
        self,
        name: str,
        version: Optional[Union[int, str]] = None,
        *,
        source_branch: Optional[str] = None,
    ) -> RemoteTable:
        """Create branch `name` from the current branch's latest version (or `version`, a
        version number or a tag) and return a handle scoped to it."""
        table = self._table
        body: Dict[str, Any] = {"name": name}
        from_branch = source_branch if source_branch is not None else table._branch
        if isinstance(version, str):
            tag = table._post_json("tags/version/", json_body={"tag": version})
            from_branch, version = tag.get("branch"), int(tag["version"])
        if from_branch not in (None, "", "main"):
            body["from_branch"] = from_branch
        if version is not None:
            body["from_version"] = int(version)
        request_id, response = table._client.send(
            "POST", table._path("branches/create/"), json=body, retry=False,
            headers=table._read_headers() or None,
        )  # fmt: skip
        if response.status_code == 409:
            raise ValueError(f"Branch '{name}' already exists")
        check_table_response(table._name, request_id, response, table._client)
        return table._on_branch(name)

    def checkout(self, name: str, version: Optional[int] = None) -> RemoteTable:
        """A handle scoped to branch `name` (main: "main" or ""), at `version` if given."""
        table = self._table
        if name in ("", "main"):
            return table._on_branch(None, version)
        if name not in self.list():
            raise ValueError(f"Branch '{name}' does not exist")
        return table._on_branch(name, version)

    def delete(self, name: str) -> None:
        self._table._post("branches/delete/", json_body={"name": name}, not_found=name)

    def diff(self, from_branch: str) -> Dict[str, Any]:
        return self._table._post_json(
            "branches/diff/", json_body={"from_branch": from_branch}, not_found=from_branch
        )

    def cherry_pick(self, from_branch: str, *, dry_run: bool = False) -> Dict[str, Any]:
        """Apply the branch's changes to main (or, with `dry_run`, report whether it could):
        the server's result, also when it answers 409 (a failed cherry-pick)."""
        table = self._table
        request_id, response = table._client.send(
            "POST", table._path("branches/cherry_pick/"),
            json={"from_branch": from_branch, "dry_run": bool(dry_run)}, retry=False,
            headers=table._read_headers() or None,
        )  # fmt: skip
        if response.status_code != 409:
            check_table_response(from_branch, request_id, response, table._client)
        result = response.json()
        if not dry_run and result.get("status") == "cherryPicked":
            table._schema_cache = None
        return result
