# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""The remote client (lancedb_cpp/remote/): requests it sends for each operation (paths,
query strings, headers, JSON and Arrow bodies) and how it reads answers, retries and reports
errors, against a small HTTP server of this file on 127.0.0.1 (a port of its own per test)."""

import asyncio
import http.server
import json
import pickle
import threading
import uuid
from datetime import timedelta
from urllib.parse import parse_qsl, urlsplit

import pyarrow as pa
import pytest

import lancedb_cpp
from lancedb_cpp.remote import ClientConfig
from lancedb_cpp.remote.errors import HttpError, RetryError

import requests  # noqa: F401,E402  (the remote client's HTTP library: a dependency)

ID_SCHEMA = {"fields": [{"name": "id", "type": {"type": "int64"}, "nullable": False}]}
VECTOR_SCHEMA = {
    "fields": [
        {"name": "id", "type": {"type": "int64"}, "nullable": False},
        {"name": "text", "type": {"type": "string"}, "nullable": True},
        {
            "name": "vector",
            "type": {
                "type": "fixed_size_list",
                "fields": [{"name": "item", "type": {"type": "float"}, "nullable": True}],
                "length": 2,
            },
            "nullable": True,
        },
    ]
}


class Request:
    """One request the server received."""

    def __init__(self, handler):
        parts = urlsplit(handler.path)
        self.method = handler.command
        self.path = parts.path
        self.query = parse_qsl(parts.query)
        self.headers = {k.lower(): v for k, v in handler.headers.items()}
        length = int(handler.headers.get("Content-Length") or 0)
        self.body = handler.rfile.read(length) if length else b""

    def json(self):
        return json.loads(self.body)

    def arrow(self):
        return pa.ipc.open_stream(pa.py_buffer(self.body)).read_all()


def arrow_file(table):
    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


class MockServer:
    """Answers each request with the first route whose (method, path) matches: a function of
    the Request giving (status, headers dict, body bytes or JSON-able value)."""

    def __init__(self):
        self.requests = []
        self.routes = {}
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def handle_one(self):
                request = Request(self)
                server.requests.append(request)
                route = server.routes.get((request.method, request.path))
                if route is None:
                    status, headers, body = 404, {}, b"no route"
                else:
                    status, headers, body = route(request)
                if not isinstance(body, bytes):
                    body = json.dumps(body).encode()
                    headers = {"Content-Type": "application/json", **headers}
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = handle_one

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def route(self, method, path, answer):
        """`answer`: a function of the request, or a fixed (status, headers, body)."""
        self.routes[(method, path)] = answer if callable(answer) else (lambda _r: answer)

    def describe(self, name="t", schema=ID_SCHEMA, version=1, headers=None):
        body = {"version": version, "schema": schema}
        self.route("POST", f"/v1/table/{name}/describe/", (200, headers or {}, body))

    def answer_query(self, table, name="t"):
        self.route(
            "POST",
            f"/v1/table/{name}/query/",
            (200, {"Content-Type": "application/vnd.apache.arrow.file"}, arrow_file(table)),
        )

    def sent(self, path):
        return [r for r in self.requests if r.path == path]

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = MockServer()
    yield s
    s.close()


def connect(server, **config):
    config.setdefault("retry_config", {"retries": 2, "backoff_factor": 0, "backoff_jitter": 0})
    config.setdefault("timeout_config", {"connect_timeout": 2, "read_timeout": 5})
    return lancedb_cpp.connect(
        "db://mydb", api_key="secret", host_override=server.url, client_config=config
    )


def open_t(server, db=None, schema=ID_SCHEMA, headers=None):
    server.describe(schema=schema, headers=headers)
    return (db if db is not None else connect(server)).open_table("t")


# Connection -----------------------------------------------------------------------------------


def test_table_names_sends_lancedb_headers(server):
    server.route("GET", "/v1/table/", (200, {}, {"tables": ["a", "b"]}))
    db = connect(server)
    assert repr(db) == "RemoteConnect(name=mydb)"
    with pytest.warns(DeprecationWarning):
        assert db.table_names(limit=5) == ["a", "b"]
    (request,) = server.requests
    assert request.query == [("limit", "5")]
    assert request.headers["x-api-key"] == "secret"
    assert request.headers["x-lancedb-database"] == "mydb"
    assert request.headers["user-agent"] == f"LanceDB-Python-Client/{lancedb_cpp.__version__}"
    assert uuid.UUID(request.headers["x-request-id"]).version == 4


def test_list_tables_pages_through_the_namespace_route(server):
    server.route("GET", "/v1/namespace/$/table/list",
                 lambda r: (200, {}, {"tables": ["a"], "page_token": "a"}))  # fmt: skip
    page = connect(server).list_tables(page_token="x", limit=1)
    assert page.tables == ["a"] and page.page_token == "a"
    assert server.requests[0].query == [("limit", "1"), ("page_token", "x")]


def test_extra_headers_header_provider_and_delimiter(server):
    from lancedb_cpp.remote.header import StaticHeaderProvider

    server.route("GET", "/v1/table/", (200, {}, {"tables": []}))
    db = connect(
        server,
        extra_headers={"x-one": "1", "x-two": "static"},
        header_provider=StaticHeaderProvider({"x-two": "dynamic"}),
        id_delimiter=".",
        user_id="u-7",
    )
    with pytest.warns(DeprecationWarning):
        db.table_names()
    headers = server.requests[0].headers
    assert headers["x-one"] == "1" and headers["x-two"] == "dynamic"
    assert headers["x-lancedb-user-id"] == "u-7"
    assert ("delimiter", ".") in server.requests[0].query


def test_client_config_coercion():
    db = lancedb_cpp.connect("db://mydb", api_key="k", client_config={
        "retry_config": {"retries": 7}, "timeout_config": {"read_timeout": 3}})  # fmt: skip
    assert isinstance(db.client_config, ClientConfig)
    assert db.client_config.retry_config.retries == 7
    assert db.client_config.timeout_config.read_timeout == timedelta(seconds=3)
    assert json.loads(db.serialize())["client_config"]["timeout_config"]["read_timeout"] == 3


def test_cloud_host_and_missing_api_key(monkeypatch):
    monkeypatch.delenv("LANCEDB_API_KEY", raising=False)
    with pytest.raises(ValueError, match="api_key is required"):
        lancedb_cpp.connect("db://mydb")
    with pytest.raises(ValueError, match="DNS labels"):
        lancedb_cpp.connect("db://" + "x" * 70, api_key="k")
    db = lancedb_cpp.connect("db://mydb", api_key="k", region="eu-west-1")
    assert db._client.host == "https://mydb.eu-west-1.api.lancedb.com"


# Tables ---------------------------------------------------------------------------------------


def test_create_table_sends_an_arrow_stream(server):
    server.route("POST", "/v1/table/t/create/", (200, {}, {}))
    table = connect(server).create_table("t", [{"id": 1}, {"id": 2}])
    (request,) = server.requests
    assert request.query == [("mode", "create")]
    assert request.headers["content-type"] == "application/vnd.apache.arrow.stream"
    assert request.arrow().column("id").to_pylist() == [1, 2]
    assert repr(table) == "RemoteTable(mydb.t)"


def test_create_table_modes_and_already_exists(server):
    server.route("POST", "/v1/table/t/create/", (400, {}, b"Table t already exists"))
    db = connect(server)
    with pytest.raises(ValueError, match="already exists"):
        db.create_table("t", schema=pa.schema([pa.field("id", pa.int64())]))
    server.describe()
    table = db.create_table("t", [{"id": 1}], exist_ok=True)
    assert table.name == "t"
    assert server.sent("/v1/table/t/create/")[-1].query == [("mode", "exist_ok")]
    assert server.sent("/v1/table/t/describe/")


def test_open_table_describes_once_and_reports_missing_tables(server):
    db = connect(server)
    table = open_t(server, db)
    assert table.schema == pa.schema([pa.field("id", pa.int64(), nullable=False)])
    assert len(server.sent("/v1/table/t/describe/")) == 1  # the open seeded the schema
    db.open_table("t")  # a cached table: no describe
    assert len(server.sent("/v1/table/t/describe/")) == 1
    with pytest.raises(ValueError, match="Table 'missing' was not found") as info:
        db.open_table("missing")
    assert isinstance(info.value.__cause__, HttpError)
    assert info.value.__cause__.status_code == 404


def test_drop_and_rename(server):
    server.route("POST", "/v1/table/t/drop/", (200, {}, b""))
    server.route("POST", "/v1/table/t/rename/", (200, {}, b""))
    db = connect(server)
    db.rename_table("t", "u", new_namespace_path=["ns"])
    assert server.requests[-1].json() == {"new_table_name": "u", "new_namespace": ["ns"]}
    db.drop_table("t")
    assert server.requests[-1].path == "/v1/table/t/drop/"


# Reads ----------------------------------------------------------------------------------------


def test_count_rows(server):
    server.route("POST", "/v1/table/t/count_rows/", (200, {}, 42))
    table = open_t(server)
    assert table.count_rows() == 42
    assert table.count_rows("id > 1") == 42
    bodies = [r.json() for r in server.sent("/v1/table/t/count_rows/")]
    assert bodies == [{"version": None}, {"predicate": "id > 1", "version": None}]


def test_plain_query_body_and_results(server):
    table = open_t(server)
    server.answer_query(pa.table({"id": [1, 2]}))
    rows = table.search().where("id > 0").select(["id"]).limit(2).offset(1).to_list()
    assert rows == [{"id": 1}, {"id": 2}]
    assert server.sent("/v1/table/t/query/")[0].json() == {
        "version": None, "prefilter": True, "offset": 1, "k": 2, "filter": "id > 0",
        "columns": ["id"], "vector": [],
    }  # fmt: skip
    table.head(3)
    assert server.sent("/v1/table/t/query/")[1].json() == {
        "version": None, "prefilter": True, "k": 3, "vector": []}  # fmt: skip


def test_vector_query_body(server):
    table = open_t(server, schema=VECTOR_SCHEMA)
    server.answer_query(pa.table({"id": [1], "_distance": pa.array([0.5], pa.float32())}))
    result = (
        table.search([1, 2], vector_column_name="vector")
        .distance_type("cosine")
        .limit(3)
        .nprobes(7)
        .refine_factor(2)
        .where("id > 0", prefilter=False)
        .with_row_id(True)
        .to_arrow()
    )
    assert result.column("id").to_pylist() == [1]
    assert server.sent("/v1/table/t/query/")[0].json() == {
        "version": None, "prefilter": False, "k": 3, "filter": "id > 0", "with_row_id": True,
        "distance_type": "cosine", "nprobes": 7, "minimum_nprobes": 7, "maximum_nprobes": 7,
        "lower_bound": None, "upper_bound": None, "ef": None, "refine_factor": 2,
        "vector_column": "vector", "vector": [1.0, 2.0],
    }  # fmt: skip


@pytest.mark.parametrize("server_version", [None, "0.2.0"])
def test_several_query_vectors(server, server_version):
    headers = {"phalanx-version": server_version} if server_version else {}
    table = open_t(server, schema=VECTOR_SCHEMA, headers=headers)

    def answer(request):
        vectors = request.json()["vector"]
        if server_version:  # one request carries both vectors; the server numbers them
            data = pa.table({"id": [1, 2], "query_index": pa.array([0, 1], pa.int32())})
        else:
            assert len(vectors) == 2 and not isinstance(vectors[0], list)
            data = pa.table({"id": [int(vectors[0])]})
        return 200, {"Content-Type": "application/vnd.apache.arrow.file"}, arrow_file(data)

    server.route("POST", "/v1/table/t/query/", answer)
    result = table.search([[1, 2], [3, 4]]).limit(1).to_arrow()
    assert sorted(result.column("query_index").to_pylist()) == [0, 1]
    assert len(server.sent("/v1/table/t/query/")) == (1 if server_version else 2)


def test_full_text_query_body(server):
    table = open_t(server, schema=VECTOR_SCHEMA)
    server.answer_query(pa.table({"id": [1], "_score": pa.array([1.5], pa.float32())}))
    table.search("hello", query_type="fts", fts_columns="text").limit(4).to_arrow()
    assert server.sent("/v1/table/t/query/")[0].json() == {
        "version": None, "prefilter": True, "k": 4,
        "full_text_query": {"columns": ["text"], "query": "hello"}, "vector": [],
    }  # fmt: skip


def test_query_accepts_stream_framing_and_rejects_other_types(server):
    table = open_t(server)
    sink = pa.BufferOutputStream()
    data = pa.table({"id": [5]})
    with pa.ipc.new_stream(sink, data.schema) as writer:
        writer.write_table(data)
    stream = {"Content-Type": "application/vnd.apache.arrow.stream"}
    server.route("POST", "/v1/table/t/query/", (200, stream, sink.getvalue().to_pybytes()))
    assert table.query().to_list() == [{"id": 5}]
    server.route("POST", "/v1/table/t/query/", (200, {"Content-Type": "text/csv"}, b"id\n5"))
    with pytest.raises(HttpError, match="Content-Type"):
        table.query().to_list()


# Writes ---------------------------------------------------------------------------------------


def test_add_sends_rows_of_the_table_schema(server):
    server.route("POST", "/v1/table/t/insert/", (200, {}, {"version": 3}))
    table = open_t(server)
    result = table.add([{"id": 7}])
    assert result.version == 3
    (request,) = server.sent("/v1/table/t/insert/")
    assert request.query == []
    assert request.arrow().schema == pa.schema([pa.field("id", pa.int64(), nullable=False)])
    table.add([{"id": 8}], mode="overwrite")
    assert server.sent("/v1/table/t/insert/")[1].query == [("mode", "overwrite")]
    # Reads after a write ask for at least the version it made.
    server.route("POST", "/v1/table/t/count_rows/", (200, {}, 1))
    table.count_rows()
    assert server.sent("/v1/table/t/count_rows/")[0].headers["x-lancedb-min-version"] == "3"
    # write_parallelism is checked as LanceDB checks it; a refused one sends nothing.
    with pytest.raises(ValueError, match="write_parallelism must be greater than 0"):
        table.add([{"id": 9}], write_parallelism=0)
    assert len(server.sent("/v1/table/t/insert/")) == 2
    table.add([{"id": 9}], write_parallelism=2)
    assert len(server.sent("/v1/table/t/insert/")) == 3


def test_delete_and_update(server):
    server.route("POST", "/v1/table/t/delete/", (200, {}, {"num_deleted_rows": 2, "version": 4}))
    server.route("POST", "/v1/table/t/update/", (200, {}, b""))
    table = open_t(server)
    deleted = table.delete("id < 3")
    assert (deleted.num_deleted_rows, deleted.version) == (2, 4)
    assert server.sent("/v1/table/t/delete/")[0].json() == {"predicate": "id < 3"}
    updated = table.update(where="id = 1", values={"id": 10})
    assert (updated.rows_updated, updated.version) == (0, 0)  # an empty answer (old servers)
    assert server.sent("/v1/table/t/update/")[0].json() == {
        "updates": [["id", "10"]], "predicate": "id = 1"}  # fmt: skip
    table.update(values_sql={"id": "id + 1"})
    assert server.sent("/v1/table/t/update/")[1].json() == {
        "updates": [["id", "id + 1"]], "predicate": None}  # fmt: skip


def test_merge_insert_query_string_and_body(server):
    server.route("POST", "/v1/table/t/merge_insert/", (200, {}, {
        "version": 5, "num_inserted_rows": 1, "num_updated_rows": 2}))  # fmt: skip
    table = open_t(server)
    result = (
        table.merge_insert("id")
        .when_matched_update_all(where="target.id > 0")
        .when_not_matched_insert_all()
        .use_index(False)
        .execute([{"id": 1}, {"id": 2}, {"id": 3}], timeout=timedelta(seconds=2))
    )
    assert (result.version, result.num_inserted_rows, result.num_updated_rows) == (5, 1, 2)
    (request,) = server.sent("/v1/table/t/merge_insert/")
    assert request.query == [
        ("on", "id"), ("when_matched_update_all", "true"),
        ("when_matched_update_all_filt", "target.id > 0"),
        ("when_not_matched_insert_all", "true"), ("when_not_matched_by_source_delete", "false"),
        ("use_index", "false"),
    ]  # fmt: skip
    assert request.headers["x-request-timeout-ms"] == "2000"
    assert request.arrow().column("id").to_pylist() == [1, 2, 3]


def test_checkout_pins_reads_and_refuses_writes(server):
    server.route("POST", "/v1/table/t/count_rows/", (200, {}, 5))
    table = open_t(server)
    table.checkout(1)
    assert server.sent("/v1/table/t/describe/")[-1].json() == {"version": 1}
    table.count_rows()
    assert server.sent("/v1/table/t/count_rows/")[-1].json() == {"version": 1}
    with pytest.raises(NotImplementedError, match="fixed at version 1"):
        table.delete("true")
    table.checkout_latest()
    table.count_rows()
    assert server.sent("/v1/table/t/count_rows/")[-1].json() == {"version": None}


# Retries and errors -----------------------------------------------------------------------------


def test_retry_after_503_keeps_the_request_id(server):
    answers = iter([(503, {}, b"busy"), (200, {}, {"tables": ["t"]})])
    server.route("GET", "/v1/table/", lambda r: next(answers))
    with pytest.warns(DeprecationWarning):
        assert connect(server).table_names() == ["t"]
    first, second = server.requests
    assert first.headers["x-request-id"] == second.headers["x-request-id"]


def test_retry_error_after_the_retries(server):
    server.route("GET", "/v1/table/", (503, {}, b"still busy"))
    with pytest.raises(RetryError) as info, pytest.warns(DeprecationWarning):
        connect(server).table_names()
    error = info.value
    assert len(server.requests) == 2  # retries=2: the second failure spends the budget
    assert (error.request_failures, error.max_request_failures) == (2, 2)
    assert error.status_code == 503
    assert error.request_id == server.requests[0].headers["x-request-id"]
    assert str(error).startswith(f"Hit retry limit for request_id={error.request_id}")
    assert isinstance(error.__cause__, HttpError)
    assert "503 Service Unavailable: still busy" in str(error.__cause__)


def test_http_error_is_not_retried(server):
    server.route("POST", "/v1/table/t/count_rows/", (400, {}, b"bad predicate"))
    table = open_t(server)
    with pytest.raises(HttpError) as info:
        table.count_rows("nonsense")
    assert info.value.status_code == 400
    assert str(info.value) == (
        f"Http error: (request_id={info.value.request_id}) 400 Bad Request: bad predicate"
    )
    assert len(server.sent("/v1/table/t/count_rows/")) == 1


def test_writes_are_sent_again_on_retry_statuses(server):
    answers = iter([(429, {}, b"slow down"), (200, {}, {"version": 2})])
    server.route("POST", "/v1/table/t/insert/", lambda r: next(answers))
    table = open_t(server)
    assert table.add([{"id": 1}]).version == 2
    first, second = server.sent("/v1/table/t/insert/")
    assert first.body == second.body


def test_connection_refused_is_a_retry_error():
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    db = lancedb_cpp.connect("db://mydb", api_key="k", host_override=f"http://127.0.0.1:{port}",
                             client_config={"retry_config": {"connect_retries": 1,
                                                             "backoff_factor": 0}})  # fmt: skip
    with pytest.raises(RetryError) as info, pytest.warns(DeprecationWarning):
        db.table_names()
    assert (info.value.connect_failures, info.value.max_connect_failures) == (1, 1)


# Indices, pickling, async -----------------------------------------------------------------------


def test_index_requests(server):
    from lancedb_cpp.index import FTS, BTree, IvfPq

    server.route("POST", "/v1/table/t/create_index/", (200, {}, b""))
    listed = {"index_name": "id_idx", "columns": ["id"], "index_type": "BTREE"}
    server.route("POST", "/v1/table/t/index/list/", (200, {}, {"indexes": [listed]}))
    server.route("POST", "/v1/table/t/index/id_idx/stats/", (200, {}, {
        "num_indexed_rows": 3, "num_unindexed_rows": 0, "index_type": "BTREE"}))  # fmt: skip
    table = open_t(server, schema=VECTOR_SCHEMA)
    table.create_index("vector", config=IvfPq(distance_type="cosine", num_partitions=4))
    table.create_index("id", config=BTree(), name="id_idx")
    table.create_index("text", config=FTS(block_size=256))
    bodies = [r.json() for r in server.sent("/v1/table/t/create_index/")]
    assert bodies[0] == {
        "column": "vector", "index_type": "IVF_PQ", "metric_type": "cosine", "num_partitions": 4,
        "sample_rate": 256, "max_iterations": 50, "num_bits": 8,
    }  # fmt: skip
    assert bodies[1] == {"column": "id", "name": "id_idx", "index_type": "BTREE"}
    assert bodies[2]["index_type"] == "FTS" and bodies[2]["block_size"] == 256
    assert [i.name for i in table.list_indices()] == ["id_idx"]
    assert table.index_stats("id_idx").num_indexed_rows == 3
    assert table.index_stats("other") is None  # a 404
    table.wait_for_index(["id_idx"], timedelta(seconds=5))
    with pytest.raises(RuntimeError, match=r'timed out waiting for indices: \["nope"\] after 1s'):
        table.wait_for_index(["nope"], timedelta(seconds=1))


def test_remote_table_pickles_with_its_connection(server):
    server.route("POST", "/v1/table/t/count_rows/", (200, {}, 9))
    table = open_t(server)
    restored = pickle.loads(pickle.dumps(table))
    assert restored.count_rows() == 9
    assert restored.name == "t"


def test_async_connection(server):
    server.route("GET", "/v1/table/", (200, {}, {"tables": ["t"]}))
    server.route("POST", "/v1/table/t/count_rows/", (200, {}, 11))
    server.describe()

    async def run():
        db = await lancedb_cpp.connect_async(
            "db://mydb", api_key="secret", host_override=server.url,
            client_config={"retry_config": {"retries": 0}},
        )  # fmt: skip
        assert await db.table_names() == ["t"]
        table = await db.open_table("t")
        return await table.count_rows()

    assert asyncio.run(run()) == 11


def test_async_queries_run_on_the_server(server):
    server.route("GET", "/v1/table/", (200, {}, {"tables": ["t"]}))
    server.describe(schema=VECTOR_SCHEMA)
    server.answer_query(pa.table({"id": [3]}))

    async def run():
        db = await lancedb_cpp.connect_async(
            "db://mydb", api_key="secret", host_override=server.url
        )
        assert repr(db) == f"RemoteDatabase(host={server.url})"
        assert await db.table_names(limit=3) == ["t"]
        table = await db.open_table("t")
        assert repr(table) == "RemoteTable(t)"
        plain = await table.query().where("id = 3").limit(1).to_arrow()
        vector = await table.query().nearest_to([1.0, 2.0]).limit(2).to_arrow()
        return plain, vector

    plain, vector = asyncio.run(run())
    assert plain.column("id").to_pylist() == vector.column("id").to_pylist() == [3]
    assert server.sent("/v1/table/")[0].query == [("limit", "3")]
    bodies = [r.json() for r in server.sent("/v1/table/t/query/")]
    assert bodies[0]["filter"] == "id = 3" and bodies[0]["vector"] == []
    assert bodies[1]["vector"] == [1.0, 2.0] and bodies[1]["k"] == 2


def test_read_freshness_headers(server):
    server.route("POST", "/v1/table/t/count_rows/", (200, {"x-lancedb-version": "6"}, 1))
    table = open_t(server)
    assert table.count_rows() == 1
    table.count_rows()
    headers = server.sent("/v1/table/t/count_rows/")[1].headers
    assert headers["x-lancedb-min-read-version"] == "6"
    assert "x-lancedb-min-timestamp" not in headers
    table.checkout_latest()
    table.count_rows()
    headers = server.sent("/v1/table/t/count_rows/")[2].headers
    assert "x-lancedb-min-read-version" not in headers
    assert headers["x-lancedb-min-timestamp"].endswith("+00:00")


def test_server_jobs(server):
    pages = {None: {"jobs": [{"job_id": "j1", "table": "t", "job_type": "create_index",
                              "state": "in_progress", "created_at_millis": 5}],
                    "page_token": "p2"},
             "p2": {"jobs": [{"job_id": "j2", "table": "t", "job_type": "drop_table",
                              "state": "succeeded", "created_at_millis": 6}]}}  # fmt: skip
    server.route("POST", "/v1/jobs/list", lambda r: (200, {}, pages[r.json().get("page_token")]))
    states = iter(["IN_PROGRESS", "FAILED"])

    def describe(request):
        if request.json()["job_id"] != "j1":
            return 404, {}, b""
        failure = {"phase": "build", "message": "out of memory"}
        return 200, {}, {"job_id": "j1", "job_state": next(states), "failure": failure}

    server.route("POST", "/v1/jobs/describe", describe)
    known = lambda r: (200, {}, {}) if r.json()["job_id"] == "j1" else (404, {}, b"")  # noqa
    server.route("POST", "/v1/jobs/cancel", known)
    db = connect(server)
    assert [(j.job_id, j.state) for j in db.list_jobs()] == [("j1", "running"), ("j2", "finished")]
    assert db.get_job("j1").state == "running"
    assert db.get_job("nope") is None
    assert db.cancel_job("j1") is True and db.cancel_job("nope") is False
    with pytest.raises(lancedb_cpp.exceptions.JobFailedError,
                       match=r"Job j1 failed: out of memory \(in build\)"):  # fmt: skip
        db.open_job("j1").wait(timeout=timedelta(seconds=5))


def test_create_index_async_and_drop_table_async(server):
    from lancedb_cpp.index import BTree

    server.route("POST", "/v1/table/t/create_index/", (200, {}, {"job_id": "j9"}))
    server.route("POST", "/v1/jobs/describe", (200, {}, {"job_state": "DONE"}))
    server.route("POST", "/v1/table/t/drop/", (202, {}, {"job_id": "j10"}))
    table = open_t(server)
    job = table.create_index_async("id", config=BTree())
    assert job.id == "j9" and job.status() == "finished"
    job.wait()
    drop = table._conn.drop_table_async("t")
    assert drop.id == "j10"


def test_clone_table(server):
    server.route("POST", "/v1/table/copy/clone", (200, {"phalanx-version": "0.3.0"}, {}))
    table = connect(server).clone_table("copy", "s3://bucket/t.lance", source_version=4)
    assert table.name == "copy" and table._server_version == (0, 3, 0)
    assert server.requests[0].json() == {
        "source_location": "s3://bucket/t.lance",
        "source_version": 4,
        "is_shallow": True,
    }
    server.route("POST", "/v1/table/copy/clone", (201, {}, b"odd"))
    with pytest.raises(HttpError, match="Failed to clone table: odd"):
        connect(server).clone_table("copy", "s3://bucket/t.lance")


def test_schema_evolution(server):
    for action in ("add_columns", "alter_columns", "drop_columns", "update_field_metadata"):
        server.route("POST", f"/v1/table/t/{action}/", (200, {}, {"version": 8}))
    table = open_t(server)
    assert table.add_columns({"double": "id * 2"}).version == 8
    table.add_columns(computed={"triple": "id * 3"})
    table.alter_columns({"path": "id", "rename": "key", "data_type": pa.int32(),
                         "nullable": True})  # fmt: skip
    table.drop_columns(["double"])
    table.update_field_metadata({"path": "id", "metadata": {"k": "v"}})
    bodies = {r.path.split("/")[4]: r.json() for r in server.requests if "describe" not in r.path}
    assert bodies["add_columns"] == {"new_columns": [{"name": "triple", "computed": "id * 3"}]}
    altered = {"path": "id", "rename": "key", "data_type": {"type": "int32"}, "nullable": True}
    assert bodies["alter_columns"] == {"alterations": [altered]}
    assert bodies["drop_columns"] == {"columns": ["double"]}
    assert bodies["update_field_metadata"] == {
        "updates": [{"path": "id", "metadata": {"k": "v"}, "replace": False}]}  # fmt: skip
    with pytest.raises(NotImplementedError, match="Only SQL expressions"):
        table.add_columns(pa.field("x", pa.int64()))


def test_json_schema_round_trip():
    from lancedb_cpp.remote._schema_json import field_to_json, schema_from_json

    schema = pa.schema([
        pa.field("v", pa.list_(pa.field("item", pa.float16()), 4)),
        pa.field("s", pa.struct([pa.field("a", pa.large_string()), pa.field("b", pa.date32())])),
        pa.field("t", pa.timestamp("us", "UTC"), nullable=False),
        pa.field("d", pa.dictionary(pa.int32(), pa.string())),
        pa.field("n", pa.decimal128(10, 2), metadata={"k": "v"}),
        pa.field("l", pa.large_list(pa.int8())),
    ])  # fmt: skip
    assert schema_from_json({"fields": [field_to_json(f) for f in schema]}) == schema


def _scenario(lib):
    """The requests one library sends for a run of table operations."""
    server = MockServer()
    try:
        server.describe(schema=VECTOR_SCHEMA, headers={"phalanx-version": "0.3.0"})
        for action, answer in [
            ("count_rows", 3), ("insert", {"version": 2}), ("update", {"version": 4}),
            ("delete", {"num_deleted_rows": 1, "version": 3}), ("merge_insert", {"version": 5}),
            ("create_index", {}), ("index/list", {"indexes": []}), ("restore", {}),
            ("add_columns", {"version": 6}), ("explain_plan", "plan"),
        ]:  # fmt: skip
            server.route("POST", f"/v1/table/t/{action}/", (200, {}, answer))
        result = pa.table({"id": [1], "_rowoffset": pa.array([1], pa.uint64())})
        server.answer_query(result)
        db = lib.connect("db://dev", api_key="k", host_override=server.url,
                         client_config={"retry_config": {"retries": 0}})  # fmt: skip
        t = db.open_table("t")
        row = {"id": 1, "text": "x", "vector": [1.0, 2.0]}
        t.count_rows("id > 1")
        t.add([row])
        t.delete("id = 1")
        t.update(where="id = 2", values={"text": "y"})
        t.merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(
            [row], timeout=timedelta(seconds=3)
        )
        t.search().where("id > 1").select(["id"]).limit(4).offset(1).to_arrow()
        t.search([1, 2], vector_column_name="vector").distance_type("dot").distance_range(
            0.1, 0.9
        ).ef(30).nprobes(3).refine_factor(2).where("id > 0", prefilter=False).to_arrow()
        t.search([1, 2]).minimum_nprobes(4).maximum_nprobes(0).bypass_vector_index().to_arrow()
        t.search("hello world", query_type="fts", fts_columns="text").limit(3).to_arrow()
        t.search(lib.query.MatchQuery("a", "text", fuzziness=1), query_type="fts").to_arrow()
        t.take_offsets([2, 1]).select(["id"]).to_arrow()
        t.take_row_ids([5, 6]).to_arrow()
        t.search([1, 2]).explain_plan(True)
        t.create_index("vector", config=lib.index.IvfPq(num_partitions=2, num_sub_vectors=1))
        t.create_index("vector", config=lib.index.HnswSq(distance_type="cosine"))
        t.create_index("text", config=lib.index.FTS(with_position=True, block_size=256))
        t.create_index("id", config=lib.index.Bitmap(), name="by_id")
        t.list_indices()
        t.add_columns({"z": "id + 1"})
        t.checkout_latest()
        t.delete("id = 2")
        t.restore()
    finally:
        server.close()
    sent = []
    for r in server.requests:
        if r.path.endswith("/describe/"):
            continue
        headers = {k: v for k, v in r.headers.items()
                   if k in ("content-type", "x-lancedb-min-version", "x-lancedb-min-read-version",
                            "x-request-timeout-ms", "x-api-key", "x-lancedb-database")}  # fmt: skip
        headers["x-lancedb-min-timestamp"] = "x-lancedb-min-timestamp" in r.headers
        body = r.json() if headers.get("content-type") == "application/json" else None
        sent.append((r.method, r.path, r.query, headers, body))
    return sent


def test_requests_match_lancedb():
    import lancedb
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _scenario(lancedb)
        ours = _scenario(lancedb_cpp)
    assert len(ours) == len(theirs)
    for mine, real in zip(ours, theirs):
        assert mine == real


def _errors(lib):
    """What one library raises for a run of failing requests (ids and ports normalized)."""
    import re

    def norm(text):
        text = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "ID", text)
        return re.sub(r"127\.0\.0\.1:\d+", "HOST", text)

    server = MockServer()
    server.describe(schema=VECTOR_SCHEMA)
    out = []
    try:
        db = lib.connect("db://dev", api_key="k", host_override=server.url, client_config={
            "retry_config": {"retries": 2, "backoff_factor": 0, "backoff_jitter": 0}})  # fmt: skip
        table = db.open_table("t")
        row = {"id": 1, "text": "a", "vector": [1.0, 2.0]}
        cases = [
            ("count_rows", 404, b"nope", lambda: table.count_rows()),
            ("count_rows", 400, b'{"error": "bad"}', lambda: table.count_rows()),
            ("count_rows", 500, b"boom", lambda: table.count_rows()),
            ("count_rows", 409, b"conflict", lambda: table.count_rows()),
            ("insert", 503, b"busy", lambda: table.add([row])),
            ("insert", 400, b"bad data", lambda: table.add([row])),
            ("query", 500, b"qboom", lambda: table.search([1, 2]).to_arrow()),
            ("index/x/drop", 404, b"", lambda: table.drop_index("x")),
        ]
        for action, status, body, call in cases:
            server.route("POST", f"/v1/table/t/{action}/", (status, {}, body))
            before = len(server.requests)
            try:
                call()
                out.append((action, status, "no error"))
                continue
            except Exception as e:  # noqa: BLE001 - the error is what is compared
                kind = "ValueError" if isinstance(e, ValueError) else type(e).__name__
                cause = e.__cause__ if type(e).__name__ == "RetryError" else None
                out.append((action, status, kind, norm(str(e)), getattr(e, "status_code", None),
                            None if cause is None else norm(str(cause)),
                            len(server.requests) - before))  # fmt: skip
        server.route("POST", "/v1/table/n/create/", (400, {}, b"Table n already exists"))
        with pytest.raises(ValueError) as info:
            db.create_table("n", [{"id": 1}])
        out.append(("create", str(info.value)))
    finally:
        server.close()
    return out


def test_errors_match_lancedb():
    import lancedb
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _errors(lancedb_cpp) == _errors(lancedb)


def test_tokenize_with_the_listed_index_options(server):
    details = {"base_tokenizer": "simple", "language": "English", "stem": True,
               "lower_case": True, "remove_stop_words": True}  # fmt: skip
    listed = [
        {"index_name": "text_idx", "columns": ["text"], "index_type": "FTS",
         "index_details": json.dumps(details), "created_at": 1000},
        {"index_name": "id_idx", "columns": ["id"], "index_type": "BTREE"},
    ]  # fmt: skip
    server.route("POST", "/v1/table/t/index/list/", (200, {}, {"indexes": listed}))
    table = open_t(server, schema=VECTOR_SCHEMA)
    indices = table.list_indices()
    assert [i.index_type for i in indices] == ["FTS", "BTree"]
    assert indices[0].index_details == details
    assert indices[0].created_at.timestamp() == 1.0
    tokens = table.tokenize("The Running dogs", column="text")
    assert [(t.text, t.position) for t in tokens] == [("run", 0), ("dog", 1)]
    assert table.tokenize("dogs", index_name="text_idx")[0].text == "dog"
    with pytest.raises(ValueError, match="does not have a full text search index"):
        table.tokenize("x", column="id")
    with pytest.raises(ValueError, match="exactly one"):
        table.tokenize("x")


def test_proxy_from_the_environment(server, monkeypatch):
    """Requests go through HTTP_PROXY as reqwest sends them (the mock server is the proxy)."""
    server.route("GET", "/v1/namespace/$/table/list", (200, {}, {"tables": ["via-proxy"]}))
    for name in ("NO_PROXY", "no_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", server.url)
    monkeypatch.setenv("http_proxy", server.url)
    db = lancedb_cpp.connect("db://mydb", api_key="k", host_override="http://db.invalid")
    assert db.list_tables().tables == ["via-proxy"]
    assert server.requests[0].headers["host"] == "db.invalid"


def test_namespace_client_is_a_rest_namespace_on_the_same_host(server):
    import lance_namespace  # noqa: F401
    server.route("GET", "/v1/namespace/%24/list", (200, {}, {"namespaces": ["a"]}))
    ns = connect(server).namespace_client()
    assert type(ns).__name__ == "RestNamespace"
    from lance_namespace import ListNamespacesRequest

    assert list(ns.list_namespaces(ListNamespacesRequest(id=[])).namespaces) == ["a"]
    headers = server.requests[0].headers
    assert headers["x-api-key"] == "secret" and headers["x-lancedb-database"] == "mydb"


def test_refresh_column_async_is_a_backfill_job(server):
    server.route("POST", "/v1/table/t/backfill_column", (200, {}, {"job_id": "b1"}))
    server.route("POST", "/v1/jobs/describe", (200, {}, {"job_state": "succeeded"}))
    server.route("POST", "/v1/table/t/count_rows/", (200, {}, 2))
    table = open_t(server)
    job = table.refresh_column_async("doubled")
    assert job.id == "b1"
    assert server.sent("/v1/table/t/backfill_column")[0].json() == {"column": "doubled"}
    job.wait()
    table.count_rows()
    assert "x-lancedb-min-timestamp" in server.sent("/v1/table/t/count_rows/")[0].headers
    with pytest.raises(NotImplementedError, match="refresh_column_async"):
        table.refresh_column("doubled")


def test_async_full_text_search_keeps_its_columns(server):
    server.describe(schema=VECTOR_SCHEMA)
    server.answer_query(pa.table({"id": [1], "_score": pa.array([1.0], pa.float32())}))

    async def run():
        db = await lancedb_cpp.connect_async(
            "db://mydb", api_key="secret", host_override=server.url
        )
        table = await db.open_table("t")
        return await (await table.search("hi", query_type="fts", fts_columns="text")).to_arrow()

    asyncio.run(run())
    body = server.sent("/v1/table/t/query/")[0].json()
    assert body["full_text_query"] == {"columns": ["text"], "query": "hi"}
    assert "fast_search" not in body


def test_oauth_client_credentials(server):
    from urllib.parse import parse_qs

    from lancedb_cpp.remote import OAuthConfig

    discovery = {"token_endpoint": f"{server.url}/token"}
    server.route("GET", "/issuer/.well-known/openid-configuration", (200, {}, discovery))
    server.route("POST", "/token", (200, {}, {"access_token": "tok-1", "expires_in": 3600}))
    server.route("GET", "/v1/table/", (200, {}, {"tables": ["t"]}))
    config = OAuthConfig(issuer_url=f"{server.url}/issuer", client_id="app",
                         client_secret="shh", scopes=["api://x/.default", "other"])  # fmt: skip

    async def run():
        db = await lancedb_cpp.connect_async("db://mydb", host_override=server.url,
                                             oauth_config=config)  # fmt: skip
        return await db.table_names(), await db.table_names()

    assert asyncio.run(run()) == (["t"], ["t"])
    paths = [r.path for r in server.requests]
    assert paths == ["/issuer/.well-known/openid-configuration", "/token", "/v1/table/",
                     "/v1/table/"]  # fmt: skip
    form = parse_qs(server.requests[1].body.decode())
    assert form == {"grant_type": ["client_credentials"], "client_id": ["app"],
                    "client_secret": ["shh"], "scope": ["api://x/.default other"]}  # fmt: skip
    for request in server.requests[2:]:
        assert request.headers["authorization"] == "Bearer tok-1"
        assert "x-api-key" not in request.headers
        assert request.headers["x-lancedb-credential-type"] == "oidc"
    with pytest.raises(ValueError, match="cannot both be set"):
        asyncio.run(lancedb_cpp.connect_async("db://mydb", api_key="k", oauth_config=config))
    insecure = OAuthConfig(issuer_url="http://example.com", client_id="a", client_secret="s",
                           scopes=["x"])  # fmt: skip
    with pytest.raises(ValueError, match="must use https"):
        asyncio.run(lancedb_cpp.connect_async("db://mydb", oauth_config=insecure))
