# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``lancedb.remote.db``: a connection to a remote LanceDB database (``db://name``), speaking
LanceDB's REST protocol (docs/remote.md). ``lancedb_cpp.connect("db://...")`` returns one;
``connect_async`` wraps one in an AsyncConnection.

Thread-safety: a connection may be shared between threads (its table cache is locked, and its
HTTP client gives each thread its own session).
"""

from __future__ import annotations

import json
import logging
import threading
import time
import warnings
from datetime import timedelta
from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

import pyarrow as pa

from ..db import DBConnection, ListTablesResponse
from . import ClientConfig, RetryConfig, TimeoutConfig, TlsConfig
from .client import ARROW_STREAM_CONTENT_TYPE, RestClient, http_error

__all__ = ["RemoteDBConnection"]

# LanceDB keeps listed/opened tables for 5 minutes (an open_table hit sends no describe).
_TABLE_CACHE_TTL = 300.0


def parse_server_version(response: Any) -> Tuple[int, int, int]:
    """The ``phalanx-version`` of a response (missing: 0.1.0)."""
    text = response.headers.get("phalanx-version")
    if not text:
        return (0, 1, 0)
    core = text.strip().split("-", 1)[0].split("+", 1)[0]
    try:
        parts = [int(p) for p in core.split(".")]
    except ValueError:
        raise ValueError(f"Invalid input, unexpected character in server version {text!r}")
    return tuple((parts + [0, 0, 0])[:3])  # type: ignore[return-value]


def _seconds(value: Optional[timedelta]) -> Optional[float]:
    return None if value is None else value.total_seconds()


def _client_config_to_dict(config: ClientConfig) -> Dict[str, Any]:
    if config.header_provider is not None:
        raise ValueError(
            "Cannot serialize a remote connection with a header_provider. Use static "
            "api_key/extra_headers or provide a worker-side connection factory instead."
        )
    retry: RetryConfig = config.retry_config
    timeouts: Optional[TimeoutConfig] = config.timeout_config
    tls: Optional[TlsConfig] = config.tls_config
    return {
        "user_agent": config.user_agent,
        "retry_config": {
            "retries": retry.retries,
            "connect_retries": retry.connect_retries,
            "read_retries": retry.read_retries,
            "backoff_factor": retry.backoff_factor,
            "backoff_jitter": retry.backoff_jitter,
            "statuses": retry.statuses,
        },
        "timeout_config": (
            None
            if timeouts is None
            else {
                "timeout": _seconds(timeouts.timeout),
                "connect_timeout": _seconds(timeouts.connect_timeout),
                "read_timeout": _seconds(timeouts.read_timeout),
                "pool_idle_timeout": _seconds(timeouts.pool_idle_timeout),
            }
        ),
        "extra_headers": config.extra_headers,
        "id_delimiter": config.id_delimiter,
        "tls_config": (
            None
            if tls is None
            else {
                "cert_file": tls.cert_file,
                "key_file": tls.key_file,
                "ssl_ca_cert": tls.ssl_ca_cert,
                "assert_hostname": tls.assert_hostname,
            }
        ),
        "header_provider": None,
        "user_id": config.user_id,
    }


class _NotLocal:
    """The engine handle of a local connection, which a remote one lacks: every use raises."""

    def __getattr__(self, name: str) -> Any:
        raise NotImplementedError(
            f"{name} is not supported on remote connections by lancedb_cpp yet"
        )


class RemoteDBConnection(DBConnection):
    """A connection to a remote LanceDB database."""

    def __init__(
        self,
        db_url: str,
        api_key: str,
        region: str,
        host_override: Optional[str] = None,
        request_thread_pool: Any = None,
        client_config: Union[ClientConfig, Dict[str, Any], None] = None,
        connection_timeout: Optional[float] = None,
        read_timeout: Optional[float] = None,
        storage_options: Optional[Dict[str, str]] = None,
        read_consistency_interval: Optional[timedelta] = None,
        sql_host_override: Optional[str] = None,
    ):
        if isinstance(client_config, dict):
            client_config = ClientConfig(**client_config)
        elif client_config is None:
            client_config = ClientConfig()
        if request_thread_pool is not None:
            warnings.warn(
                "request_thread_pool is no longer used and will be removed in a future release.",
                DeprecationWarning,
                stacklevel=2,
            )
        if connection_timeout is not None:
            warnings.warn(
                "connection_timeout is deprecated and will be removed in a future release. "
                "Please use client_config.timeout_config.connect_timeout instead.",
                DeprecationWarning,
                stacklevel=2,
            )
            client_config.timeout_config.connect_timeout = timedelta(seconds=connection_timeout)
        if read_timeout is not None:
            warnings.warn(
                "read_timeout is deprecated and will be removed in a future release. "
                "Please use client_config.timeout_config.read_timeout instead.",
                DeprecationWarning,
                stacklevel=2,
            )
            client_config.timeout_config.read_timeout = timedelta(seconds=read_timeout)
        self._client = RestClient(
            db_url, api_key, region, host_override, client_config, storage_options
        )
        self.db_url = db_url
        self.api_key = api_key
        self.region = region
        self.host_override = host_override
        self.sql_host_override = sql_host_override
        self.storage_options = storage_options
        self.db_name = self._client.db_name
        self.client_config = client_config
        self._uri = db_url
        self._read_consistency_interval = read_consistency_interval
        self._inner = _NotLocal()
        self._cache: Dict[Tuple[Tuple[str, ...], str], Tuple[float, Tuple[int, int, int]]] = {}
        self._cache_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"RemoteConnect(name={self.db_name})"

    @property
    def _async_class(self) -> type:
        """The class ``connect_async`` wraps this connection in."""
        return _async_classes()[0]

    def serialize(self) -> str:
        """The connection's settings as JSON, in LanceDB's format (``deserialize_conn``)."""
        return json.dumps(
            {
                "connection_type": "remote",
                "db_url": self.db_url,
                "api_key": self.api_key,
                "region": self.region,
                "host_override": self.host_override,
                "sql_host_override": self.sql_host_override,
                "client_config": _client_config_to_dict(self.client_config),
                "storage_options": self.storage_options,
            }
        )

    # Helpers --------------------------------------------------------------------------------

    def _identifier(self, name: str, namespace_path: Optional[List[str]]) -> str:
        parts = list(namespace_path or []) + [name]
        return self._client.id_delimiter.join(parts)

    def _namespace_identifier(self, namespace_path: Optional[List[str]]) -> str:
        path = list(namespace_path or [])
        return self._client.id_delimiter.join(path) if path else self._client.id_delimiter

    def _remember(self, namespace_path, name: str, version: Tuple[int, int, int]) -> None:
        with self._cache_lock:
            self._cache[(tuple(namespace_path or []), name)] = (time.monotonic(), version)

    def _cached(self, namespace_path, name: str) -> Optional[Tuple[int, int, int]]:
        key = (tuple(namespace_path or []), name)
        with self._cache_lock:
            hit = self._cache.get(key)
            if hit is None:
                return None
            if time.monotonic() - hit[0] > _TABLE_CACHE_TTL:
                del self._cache[key]
                return None
            return hit[1]

    def _forget(self, namespace_path, name: str) -> None:
        with self._cache_lock:
            self._cache.pop((tuple(namespace_path or []), name), None)

    def _table(self, name: str, namespace_path, server_version, schema_json=None):
        from .table import RemoteTable

        return RemoteTable(
            self, name, list(namespace_path or []), server_version, describe=schema_json
        )

    def _list_page(self, path: str, namespace_path, page_token, limit) -> Dict[str, Any]:
        params: List[Tuple[str, Any]] = []
        if limit is not None:
            params.append(("limit", limit))
        if page_token is not None:
            params.append(("page_token", page_token))
        request_id, response = self._client.send("GET", path, params=params)
        response = self._client.check(request_id, response)
        version = parse_server_version(response)
        body = _json(request_id, response, "table list")
        for table in body.get("tables", []):
            self._remember(namespace_path, table, version)
        return body

    # Tables ---------------------------------------------------------------------------------

    def table_names(
        self,
        page_token: Optional[str] = None,
        limit: int = 10,
        *,
        namespace_path: Optional[List[str]] = None,
    ) -> Iterable[str]:
        """Table names after `page_token`, at most `limit` (deprecated: use list_tables)."""
        warnings.warn(
            "table_names() is deprecated, use list_tables() instead",
            DeprecationWarning,
            stacklevel=2,
        )
        return self._table_names(namespace_path, page_token, limit)

    def _table_names(self, namespace_path, start_after, limit) -> List[str]:
        if namespace_path:
            path = f"/v1/namespace/{self._namespace_identifier(namespace_path)}/table/list"
        else:
            path = "/v1/table/"
        return list(self._list_page(path, namespace_path, start_after, limit).get("tables", []))

    def list_tables(
        self,
        namespace_path: Optional[List[str]] = None,
        page_token: Optional[str] = None,
        limit: Optional[int] = None,
    ) -> ListTablesResponse:
        """One page of table names, with the token of the next page."""
        path = f"/v1/namespace/{self._namespace_identifier(namespace_path)}/table/list"
        body = self._list_page(path, namespace_path, page_token, limit)
        return ListTablesResponse(
            tables=list(body.get("tables", [])), page_token=body.get("page_token")
        )

    def open_table(
        self,
        name: str,
        *,
        namespace_path: Optional[List[str]] = None,
        storage_options: Optional[Dict[str, str]] = None,
        index_cache_size: Optional[int] = None,
        branch: Optional[str] = None,
        version: Optional[int] = None,
    ):
        """Open table `name` (its describe confirms it exists, unless it was listed or opened
        in the last five minutes); `branch` / `version` scope the handle."""
        if storage_options is not None:
            logging.info(
                "storage_options is ignored in LanceDb Cloud"
                " (storage is managed; set storage_options on connect() instead)"
            )
        if index_cache_size is not None:
            logging.info(
                "index_cache_size is ignored in LanceDb Cloud"
                " (there is no local cache to configure)"
            )
        server_version = self._cached(namespace_path, name)
        describe = None
        if server_version is None:
            client = self._client
            path = client.table_path(self._identifier(name, namespace_path), "describe/")
            request_id, response = client.send("POST", path)
            check_table_response(name, request_id, response, client)
            server_version = parse_server_version(response)
            try:
                describe = response.json()
            except ValueError:
                describe = None
            self._remember(namespace_path, name, server_version)
        table = self._table(name, namespace_path, server_version, describe)
        if branch is not None:
            table = table.branches.checkout(branch, version)
        elif version is not None:
            table.checkout(version)
        return table

    def create_table(
        self,
        name: str,
        data: Any = None,
        schema: Any = None,
        on_bad_vectors: str = "error",
        fill_value: float = 0.0,
        mode: Optional[str] = None,
        exist_ok: bool = False,
        embedding_functions: Any = None,
        *,
        namespace_path: Optional[List[str]] = None,
        storage_options: Optional[Dict[str, str]] = None,
        **_ignored: Any,
    ):
        """Create a table from `data` and/or `schema` (sent as an Arrow IPC stream);
        `mode` "create" (default), "overwrite" or "exist_ok"."""
        from .. import _data
        from ..util import validate_table_name

        if exist_ok and (mode == "create" or not mode):
            mode = "exist_ok"
        mode = mode or "create"
        if mode not in ("create", "overwrite", "exist_ok"):
            raise ValueError(f"Invalid mode {mode}")
        validate_table_name(name)
        if data is None and schema is None:
            raise ValueError("Either data or schema must be provided")
        target = None if schema is None else _data.to_schema(schema)
        if embedding_functions is not None:
            # As LanceDB: the configurations are not applied to remote tables (a LanceModel
            # schema's embedding metadata is).
            logging.warning(
                "embedding_functions is not yet supported on LanceDB Cloud."
                "Please vote https://github.com/lancedb/lancedb/issues/626 for this feature."
            )
        if data is not None:
            reader = _data.sanitize(data, target, on_bad_vectors, fill_value)
            table = reader.read_all()
        else:
            table = target.empty_table()
        body = ipc_stream(table)
        client = self._client
        path = client.table_path(self._identifier(name, namespace_path), "create/")
        request_id, response = client.send(
            "POST",
            path,
            params=[("mode", mode)],
            headers={"Content-Type": ARROW_STREAM_CONTENT_TYPE},
            body=body,
            retry=False,
        )
        if response.status_code == 400:
            text = response.text
            if "already exists" in text:
                if mode == "create":
                    raise ValueError(f"Table '{name}' already exists")
                if mode == "exist_ok":
                    return self.open_table(name, namespace_path=namespace_path)
                raise http_error(
                    request_id,
                    f"unexpected response from server for create mode overwrite: {text}",
                    400,
                )
            raise ValueError(f"Invalid input, {text}")
        client.check(request_id, response)
        version = parse_server_version(response)
        self._remember(namespace_path, name, version)
        return self._table(name, namespace_path, version)

    def drop_table(
        self, name: str, namespace_path: Optional[List[str]] = None, ignore_missing: bool = False
    ):
        """Drop table `name`."""
        client = self._client
        path = client.table_path(self._identifier(name, namespace_path), "drop/")
        request_id, response = client.send("POST", path, retry=False)
        if ignore_missing and response.status_code == 404:
            return
        client.check(request_id, response)
        self._forget(namespace_path, name)

    def rename_table(
        self,
        cur_name: str,
        new_name: str,
        cur_namespace_path: Optional[List[str]] = None,
        new_namespace_path: Optional[List[str]] = None,
    ):
        """Rename table `cur_name` to `new_name` (optionally into another namespace)."""
        body: Dict[str, Any] = {"new_table_name": new_name}
        if new_namespace_path:
            body["new_namespace"] = list(new_namespace_path)
        client = self._client
        path = client.table_path(self._identifier(cur_name, cur_namespace_path), "rename/")
        request_id, response = client.send("POST", path, json=body, retry=False)
        client.check(request_id, response)
        with self._cache_lock:
            hit = self._cache.pop((tuple(cur_namespace_path or []), cur_name), None)
            if hit is not None:
                self._cache[(tuple(new_namespace_path or []), new_name)] = hit

    def drop_all_tables(self, namespace_path: Optional[List[str]] = None):
        raise NotImplementedError  # as LanceDB's RemoteDBConnection

    def drop_database(self):
        raise NotImplementedError(
            "LanceDBError: not supported: Dropping databases is not supported in the remote API"
        )

    def clone_table(
        self,
        target_table_name: str,
        source_uri: str,
        *,
        target_namespace_path: Optional[List[str]] = None,
        source_version: Optional[int] = None,
        source_tag: Optional[str] = None,
        is_shallow: bool = True,
    ):
        """Clone the table at `source_uri` (a version or a tag of it) as `target_table_name`."""
        body: Dict[str, Any] = {"source_location": source_uri}
        if source_version is not None:
            body["source_version"] = int(source_version)
        if source_tag is not None:
            body["source_tag"] = source_tag
        body["is_shallow"] = bool(is_shallow)
        client = self._client
        identifier = self._identifier(target_table_name, target_namespace_path)
        path = f"/v1/table/{identifier}/clone"
        request_id, response = client.send("POST", path, json=body, retry=False)
        if response.status_code != 200:
            raise http_error(
                request_id, f"Failed to clone table: {response.text}", response.status_code
            )
        version = parse_server_version(response)
        self._remember(target_namespace_path, target_table_name, version)
        return self._table(target_table_name, target_namespace_path, version)

    # Jobs -----------------------------------------------------------------------------------

    def drop_table_async(self, name: str, namespace_path: Optional[List[str]] = None):
        """Drop table `name`; the server's cleanup job (done at once when it names none)."""
        from .job import RemoteJob

        client = self._client
        path = client.table_path(self._identifier(name, namespace_path), "drop/")
        request_id, response = client.send("POST", path, retry=False)
        client.check(request_id, response)
        self._forget(namespace_path, name)
        body = _json(request_id, response, "drop table")
        job_id = body.get("job_id") if isinstance(body, dict) else None
        if job_id is None and response.status_code == 202:
            raise http_error(
                request_id,
                "asynchronous drop-table response did not contain a valid job_id",
                202,
            )
        return RemoteJob(self, job_id)

    def _jobs_post(self, path: str, body: Dict[str, Any]) -> Tuple[str, Any]:
        return self._client.send("POST", path, json=body, retry=False)

    def list_jobs(self) -> List[Any]:
        """The server's jobs across the database's tables (``JobInfo``)."""
        from ..job import JobInfo
        from .job import job_state

        jobs: List[Any] = []
        token = None
        for _ in range(100):
            request_id, response = self._jobs_post(
                "/v1/jobs/list", {} if token is None else {"page_token": token}
            )
            body = _json(request_id, self._client.check(request_id, response), "jobs list")
            for job in body.get("jobs", []):
                jobs.append(
                    JobInfo(
                        job_id=job["job_id"],
                        table=job.get("table", ""),
                        job_type=job.get("job_type", ""),
                        state=job_state(job.get("state")),
                        created_at_millis=int(job.get("created_at_millis") or 0),
                    )
                )
            token = body.get("page_token")
            if not token:
                break
        return jobs

    def get_job(self, job_id: str) -> Optional[Any]:
        """The server's record of job `job_id` (``JobDescription``), None when unknown."""
        from ..job import JobDescription, JobFailureInfo
        from .job import job_state

        request_id, response = self._jobs_post("/v1/jobs/describe", {"job_id": job_id})
        if response.status_code == 404:
            return None
        body = _json(request_id, self._client.check(request_id, response), "job describe")
        failure = body.get("failure")
        return JobDescription(
            job_id=body.get("job_id", job_id),
            job_type=body.get("job_type", ""),
            state=job_state(body.get("job_state")),
            creation_ms=int(body.get("creation_ms") or 0),
            _spec_json=None if body.get("spec") is None else json.dumps(body["spec"]),
            _result_json=None if body.get("result") is None else json.dumps(body["result"]),
            failure=(
                None
                if failure is None
                else JobFailureInfo(
                    phase=failure.get("phase"),
                    message=failure.get("message"),
                    retryable=failure.get("retryable"),
                )
            ),
        )

    def cancel_job(self, job_id: str) -> bool:
        """Ask the server to stop job `job_id`: False when it knows no such job."""
        request_id, response = self._jobs_post("/v1/jobs/cancel", {"job_id": job_id})
        if response.status_code == 404:
            return False
        self._client.check(request_id, response)
        return True

    def job_history(self, job_id: Optional[str] = None) -> List[pa.RecordBatch]:
        """The events the server recorded for job `job_id` (every job when None)."""
        body = {} if job_id is None else {"job_id": job_id}
        request_id, response = self._jobs_post("/v1/jobs/query_events", body)
        self._client.check(request_id, response)
        if not response.content:
            return []
        return pa.ipc.open_stream(pa.py_buffer(response.content)).read_all().to_batches()

    def open_job(self, job_id: str):
        """A handle on the server's job `job_id`."""
        from .job import RemoteJob

        return RemoteJob(self, job_id)

    job = open_job

    def namespace_exists(self, namespace_id: List[str]) -> bool:
        raise NotImplementedError(
            "Namespace operations are not supported for this connection type"
        )  # LanceDB's RemoteDBConnection has no such check either

    def table_exists(self, table_id: List[str]) -> bool:
        raise NotImplementedError("Namespace operations are not supported for this connection type")

    # Local-only features ----------------------------------------------------------------------

    def create_materialized_view(
        self,
        name: str,
        source: str,
        *,
        select: Any = None,
        where: Optional[str] = None,
        limit: Optional[int] = None,
    ):
        raise NotImplementedError("materialized views are supported only on local databases")

    def open_materialized_view(self, name: str):
        raise NotImplementedError("materialized views are supported only on local databases")

    def list_materialized_views(self) -> List[str]:
        raise NotImplementedError("materialized views are supported only on local databases")

    def namespace_client(self):
        """A Lance REST namespace client (pylance's ``RestNamespace``) on the same host, with
        the connection's headers and TLS files, as LanceDB returns."""
        import lance_namespace

        client = self._client
        if client.header_provider is not None:
            raise NotImplementedError(
                "namespace_client() with a header_provider is not supported by lancedb_cpp yet"
            )
        properties = {"uri": client.host, "delimiter": client.id_delimiter}
        for key, value in client.headers.items():
            if key.lower() != "user-agent":
                properties[f"header.{key.lower()}"] = value
        tls = self.client_config.tls_config
        if tls is not None:
            for key in ("cert_file", "key_file", "ssl_ca_cert"):
                if getattr(tls, key):
                    properties[f"tls.{key}"] = getattr(tls, key)
            properties["tls.assert_hostname"] = "true" if tls.assert_hostname else "false"
        return lance_namespace.connect("rest", properties)

    # Namespaces -----------------------------------------------------------------------------

    def list_namespaces(
        self,
        namespace_path: Optional[List[str]] = None,
        page_token: Optional[str] = None,
        limit: Optional[int] = None,
    ):
        """Child namespaces of `namespace_path` (LanceDB's ListNamespacesResponse)."""
        from lance_namespace import ListNamespacesResponse

        params: List[Tuple[str, Any]] = []
        if limit is not None:
            params.append(("limit", limit))
        if page_token is not None:
            params.append(("page_token", page_token))
        path = f"/v1/namespace/{self._namespace_identifier(namespace_path)}/list"
        request_id, response = self._client.send("GET", path, params=params, retry=False)
        body = _json(request_id, self._client.check(request_id, response), "namespace list")
        return ListNamespacesResponse(
            namespaces=set(body.get("namespaces", [])), page_token=body.get("page_token")
        )

    def create_namespace(
        self,
        namespace_path: List[str],
        mode: Optional[str] = None,
        properties: Optional[Dict[str, str]] = None,
    ):
        """Create a namespace."""
        from lance_namespace import CreateNamespaceResponse

        body: Dict[str, Any] = {}
        if mode is not None:
            body["mode"] = mode
        if properties is not None:
            body["properties"] = properties
        path = f"/v1/namespace/{self._namespace_identifier(namespace_path)}/create"
        request_id, response = self._client.send("POST", path, json=body, retry=False)
        body = _json(request_id, self._client.check(request_id, response), "namespace create")
        return CreateNamespaceResponse(properties=body.get("properties"))

    def drop_namespace(
        self, namespace_path: List[str], mode: Optional[str] = None, behavior: Optional[str] = None
    ):
        """Drop a namespace."""
        from lance_namespace import DropNamespaceResponse

        body: Dict[str, Any] = {}
        if mode is not None:
            body["mode"] = mode
        if behavior is not None:
            body["behavior"] = behavior
        path = f"/v1/namespace/{self._namespace_identifier(namespace_path)}/drop"
        request_id, response = self._client.send("POST", path, json=body, retry=False)
        body = _json(request_id, self._client.check(request_id, response), "namespace drop")
        return DropNamespaceResponse(
            properties=body.get("properties"), transaction_id=body.get("transaction_id")
        )

    def describe_namespace(self, namespace_path: List[str]):
        """The properties of a namespace."""
        from lance_namespace import DescribeNamespaceResponse

        path = f"/v1/namespace/{self._namespace_identifier(namespace_path)}/describe"
        request_id, response = self._client.send("POST", path, json={}, retry=False)
        body = _json(request_id, self._client.check(request_id, response), "namespace describe")
        return DescribeNamespaceResponse(properties=body.get("properties"))

    async def close(self):
        """Close the connection (its HTTP sessions are released when it is collected)."""


def ipc_stream(table: pa.Table) -> bytes:
    """`table` as an Arrow IPC stream with LZ4 frame compression, as LanceDB sends data."""
    sink = pa.BufferOutputStream()
    options = pa.ipc.IpcWriteOptions(compression="lz4")
    with pa.ipc.new_stream(sink, table.schema, options=options) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def _json(request_id: str, response: Any, what: str) -> Any:
    text = response.text
    try:
        return json.loads(text) if text.strip() else {}
    except ValueError as e:
        raise http_error(request_id, f"Failed to parse {what} response: {e}") from None


def check_table_response(name: str, request_id: str, response: Any, client: RestClient) -> Any:
    """`response` when it succeeded; 404: ValueError "Table '<name>' was not found" (LanceDB's
    TableNotFound, its HttpError as the cause); other errors: HttpError."""
    if response.status_code == 404:
        from ..exceptions import TableNotFoundError

        cause = http_error(request_id, response.text, 404)
        raise TableNotFoundError(f"Table '{name}' was not found") from cause
    return client.check(request_id, response)


def connect_remote(
    uri: str,
    api_key: Optional[str],
    region: str,
    host_override: Optional[str],
    sql_host_override: Optional[str],
    read_consistency_interval: Optional[timedelta],
    request_thread_pool: Any,
    client_config: Any,
    storage_options: Optional[Dict[str, str]],
    oauth_config: Any = None,
    **kwargs: Any,
) -> RemoteDBConnection:
    """``lancedb_cpp.connect("db://...")``: the API key from `api_key` or LANCEDB_API_KEY;
    `kwargs` are LanceDB's deprecated ``connection_timeout`` / ``read_timeout``. With
    `oauth_config` (``connect_async``), an OAuth header provider (remote/oauth.py) instead of an
    API key."""
    import os

    if oauth_config is not None:
        if api_key is not None:
            raise ValueError(
                "Invalid input, api_key and oauth_config cannot both be set when connecting to "
                "LanceDb Cloud"
            )
        from .oauth import OAuthHeaderProvider

        if isinstance(client_config, dict):
            client_config = ClientConfig(**client_config)
        client_config = client_config if client_config is not None else ClientConfig()
        if client_config.header_provider is not None:
            raise ValueError(
                "Invalid input, oauth_config and client_config.header_provider cannot both be "
                "set when connecting to LanceDb Cloud"
            )
        client_config.header_provider = OAuthHeaderProvider(oauth_config)
        api_key = ""
    if api_key is None:
        api_key = os.environ.get("LANCEDB_API_KEY")
    if api_key is None:
        raise ValueError(f"api_key is required to connect to LanceDB cloud: {uri}")
    return RemoteDBConnection(
        uri,
        api_key,
        region,
        host_override,
        sql_host_override=sql_host_override,
        request_thread_pool=request_thread_pool,
        client_config=client_config,
        storage_options=storage_options,
        read_consistency_interval=read_consistency_interval,
        **kwargs,
    )


def deserialize_conn(data: str, *, for_worker: bool = False) -> DBConnection:
    """``lancedb.deserialize_conn``: the connection ``DBConnection.serialize()`` described
    (remote, local, or a directory namespace)."""
    parsed = json.loads(data)
    kind = parsed.get("connection_type")
    seconds = parsed.get("read_consistency_interval_seconds")
    interval = None if seconds is None else timedelta(seconds=seconds)
    if kind == "remote":
        return RemoteDBConnection(
            parsed["db_url"],
            parsed["api_key"],
            parsed.get("region", "us-east-1"),
            host_override=parsed.get("host_override"),
            sql_host_override=parsed.get("sql_host_override"),
            client_config=parsed.get("client_config"),
            storage_options=parsed.get("storage_options"),
        )
    if kind == "local":
        return DBConnection(
            parsed["uri"],
            read_consistency_interval=interval,
            storage_options=parsed.get("storage_options"),
        )
    if kind == "namespace":
        from ..namespace import connect_namespace

        properties = dict(parsed.get("namespace_client_properties") or {})
        if for_worker:
            prefix = "_lancedb_worker_"
            for key in [k for k in properties if k.startswith(prefix)]:
                properties[key[len(prefix) :]] = properties.pop(key)
        return connect_namespace(
            namespace_client_impl=parsed["namespace_client_impl"],
            namespace_client_properties=properties,
            read_consistency_interval=interval,
            storage_options=parsed.get("storage_options"),
        )
    raise ValueError(f"Unknown connection_type: {kind}")


def _async_classes():
    """The async connection and table classes of remote databases (made on first use:
    lancedb_cpp._async imports the table code)."""
    global _ASYNC
    if _ASYNC is not None:
        return _ASYNC
    from .._async import AsyncConnection, AsyncTable, _to_thread

    class AsyncRemoteTable(AsyncTable):
        """An AsyncTable over a RemoteTable."""

        def __repr__(self) -> str:
            if not self._open:
                return f"ClosedTable({self._inner.name})"
            return f"RemoteTable({self._inner.name})"

    class AsyncRemoteConnection(AsyncConnection):
        """``connect_async("db://...")``: an AsyncConnection over a RemoteDBConnection."""

        def __repr__(self) -> str:
            if not self._open:
                return "ClosedConnection"
            return f"RemoteDatabase(host={self._inner._client.host})"

        async def table_names(
            self,
            *,
            namespace_path: Optional[List[str]] = None,
            start_after: Optional[str] = None,
            limit: Optional[int] = None,
        ) -> Iterable[str]:
            """Table names after `start_after`, at most `limit` (``GET /v1/table/``)."""
            conn = self._conn()
            return await _to_thread(conn._table_names, namespace_path, start_after, limit)

        async def create_table(self, *args: Any, **kwargs: Any):
            table = await super().create_table(*args, **kwargs)
            table.__class__ = AsyncRemoteTable
            return table

        async def open_table(self, *args: Any, **kwargs: Any):
            table = await super().open_table(*args, **kwargs)
            table.__class__ = AsyncRemoteTable
            return table

    _ASYNC = (AsyncRemoteConnection, AsyncRemoteTable)
    return _ASYNC


_ASYNC = None
