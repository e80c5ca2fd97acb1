# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""The embedding functions and rerankers that call a hosted API, run over their providers'
real Python clients against a small fake of each provider's HTTP API on 127.0.0.1 (started
by the test), and compared with LanceDB's classes on the same inputs where LanceDB can run
them (both against the same fake)."""

from __future__ import annotations

import json
import pickle
import sys
import threading
import types
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Tuple

import numpy as np
import pyarrow as pa
import pytest

import lancedb as lance_db
import lancedb.embeddings as theirs
import lancedb_cpp
import lancedb_cpp.embeddings as ours
from lancedb_cpp import rerankers as cpp_rerankers

# (method, path) -> handler(body) -> (status, json reply)
Route = Callable[[Dict[str, Any]], Tuple[int, Any]]


class FakeProvider:
    """An HTTP server on 127.0.0.1 answering JSON requests from `routes`; it records each
    request as (path, headers, body)."""

    def __init__(self) -> None:
        self.routes: Dict[Tuple[str, str], Route] = {}
        self.requests: List[Tuple[str, Dict[str, str], Any]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else None
                path = self.path.split("?")[0]
                fake.requests.append((path, {k.lower(): v for k, v in self.headers.items()}, body))
                route = fake.routes.get((self.command, path))
                status, reply = route(body) if route else (404, {"detail": f"no route {path}"})
                payload = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_POST = do_GET = _serve

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def route(self, method: str, path: str, handler: Route) -> None:
        self.routes[(method, path)] = handler

    def bodies(self, path: str) -> List[Any]:
        return [body for p, _, body in self.requests if p == path]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake():
    server = FakeProvider()
    yield server
    server.close()


def vector_of(text: str, dim: int = 4) -> List[float]:
    """A deterministic vector for a text (what every fake returns)."""
    return [float(len(text)), float(sum(map(ord, text)) % 97), float(dim), 1.0][:dim] + [
        0.5
    ] * max(0, dim - 4)


def score_of(query: str, doc: str) -> float:
    """A deterministic relevance: the share of the query's words in the document."""
    words = query.split()
    return sum(w in doc.split() for w in words) / max(len(words), 1)


def both(name: str):
    """Our class and LanceDB's registered under `name`."""
    return ours.get_registry().get(name), theirs.get_registry().get(name)


# OpenAI -------------------------------------------------------------------------------------


def openai_embeddings(body):
    texts = body["input"]
    if any("bad" in t for t in texts):
        return 400, {"error": {"message": "bad input", "type": "invalid_request_error"}}
    dim = body.get("dimensions") or 4
    data = [
        {"object": "embedding", "index": i, "embedding": vector_of(t, dim)}
        for i, t in enumerate(texts)
    ]
    usage = {"prompt_tokens": 1, "total_tokens": 1}
    return 200, {"object": "list", "data": data, "model": body["model"], "usage": usage}


def test_openai_embeddings_over_client(fake, monkeypatch):
    fake.route("POST", "/v1/embeddings", openai_embeddings)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    results = []
    for cls in both("openai"):
        func = cls.create(name="text-embedding-3-small", dim=4, base_url=f"{fake.url}/v1",
                          max_retries=0)  # fmt: skip
        assert func.ndims() == 4
        # empty and missing texts get None, the others their vectors, in place
        results.append(func.compute_source_embeddings(["hello", "", "world", None]))
        results.append(func.compute_query_embeddings("hello"))
    assert results[0] == results[2] == [vector_of("hello"), None, vector_of("world"), None]
    assert results[1] == results[3] == [vector_of("hello")]
    bodies = fake.bodies("/v1/embeddings")
    assert bodies[0]["input"] == ["hello", "world"]
    assert bodies[0]["model"] == "text-embedding-3-small" and bodies[0]["dimensions"] == 4
    assert all(h.get("authorization") == "Bearer sk-fake" for p, h, _ in fake.requests)


def test_openai_bad_request_gives_none_and_auth_error_raises(fake, monkeypatch):
    fake.route("POST", "/v1/embeddings", openai_embeddings)
    func = ours.get_registry().get("openai").create(base_url=f"{fake.url}/v1", max_retries=0)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    assert func.generate_embeddings(["a bad text", "fine"]) == [None, None]
    fake.route("POST", "/v1/embeddings", lambda body: (401, {"error": {"message": "no"}}))
    import openai

    with pytest.raises(openai.AuthenticationError):
        ours.get_registry().get("openai").create(base_url=f"{fake.url}/v1").generate_embeddings(
            ["x"]
        )
    with pytest.raises(ValueError, match="Unknown model name"):
        ours.get_registry().get("openai").create(name="nope").ndims()


def test_openai_table_round_trip_with_variables(fake, monkeypatch, tmp_path):
    """A table whose function takes its key from a registry variable: vectors on add and on
    search come from the API; reopening rebuilds the function from the stored $var."""
    fake.route("POST", "/v1/embeddings", openai_embeddings)
    registry = ours.get_registry()
    registry.set_var("emb_test_openai_key", "sk-from-var")
    func = registry.get("openai").create(
        name="text-embedding-3-small", dim=4, api_key="$var:emb_test_openai_key",
        base_url=f"{fake.url}/v1",
    )  # fmt: skip
    db = lancedb_cpp.connect(tmp_path)
    conf = ours.EmbeddingFunctionConfig(source_column="text", vector_column="vector",
                                        function=func)  # fmt: skip
    schema = pa.schema([pa.field("text", pa.string()),
                        pa.field("vector", pa.list_(pa.float32(), 4))])  # fmt: skip
    table = db.create_table("t", schema=schema, embedding_functions=[conf])
    table.add([{"text": "alpha"}, {"text": "beta"}])
    stored = table.to_arrow().column("vector").to_pylist()
    assert np.allclose(stored, [vector_of("alpha"), vector_of("beta")])
    metadata = json.loads(table.schema.metadata[b"embedding_functions"])
    assert metadata[0]["model"]["api_key"] == "$var:emb_test_openai_key"
    reopened = lancedb_cpp.connect(tmp_path).open_table("t")
    hit = reopened.search("beta").limit(1).to_list()[0]
    assert hit["text"] == "beta"
    assert {h["authorization"] for _, h, _ in fake.requests} == {"Bearer sk-from-var"}

    # LanceDB reads the same metadata into the same function
    parsed = theirs.EmbeddingFunctionRegistry.get_instance()
    theirs.get_registry().set_var("emb_test_openai_key", "sk-from-var")
    functions = parsed.parse_functions(reopened.schema.metadata)
    assert functions["vector"].function.api_key == "sk-from-var"


def test_openai_sensitive_key_and_pickle(fake, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    with pytest.raises(ValueError, match="Sensitive key 'api_key'"):
        ours.get_registry().get("openai").create(api_key="sk-literal")
    func = ours.get_registry().get("openai").create(base_url=f"{fake.url}/v1")
    func._openai_client  # noqa: B018 - creates the cached client
    restored = pickle.loads(pickle.dumps(func))
    assert restored.base_url == f"{fake.url}/v1" and "_openai_client" not in restored.__dict__


# Ollama -------------------------------------------------------------------------------------


def test_ollama_over_client(fake):
    fake.route("POST", "/api/embed", lambda body: (200, {
        "model": body["model"], "embeddings": [vector_of(t, 3) for t in body["input"]],
    }))  # fmt: skip
    outputs = []
    for cls in both("ollama"):
        func = cls.create(name="nomic-embed-text", host=fake.url, keep_alive="5m")
        assert func.ndims() == 3
        outputs.append(func.compute_source_embeddings(pa.array(["a", "bb"])))
    assert [list(v) for v in outputs[0]] == [list(v) for v in outputs[1]]
    assert [list(v) for v in outputs[0]] == [vector_of("a", 3), vector_of("bb", 3)]
    body = fake.bodies("/api/embed")[-1]
    assert body["model"] == "nomic-embed-text" and body["keep_alive"] == "5m"
    func = ours.get_registry().get("ollama").create(host=fake.url)
    func._ollama_client  # noqa: B018
    restored = pickle.loads(pickle.dumps(func))
    assert restored.host == fake.url and "_ollama_client" not in restored.__dict__


# Voyage AI ----------------------------------------------------------------------------------


@pytest.fixture
def voyage(fake, monkeypatch):
    """Voyage's fake API; the client's tokenizer (downloaded from the Hugging Face hub in
    real use) is replaced by a local whitespace tokenizer."""
    import voyageai
    from tokenizers import Tokenizer, models, pre_tokenizers

    def tokenizer(self, model):
        tok = Tokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
        return tok

    monkeypatch.setattr(voyageai.Client, "tokenizer", tokenizer)
    monkeypatch.setattr(voyageai.util, "get_default_base_url", lambda key: f"{fake.url}/v1")
    monkeypatch.setattr(voyageai._base, "get_default_base_url", lambda key: f"{fake.url}/v1",
                        raising=False)  # fmt: skip
    monkeypatch.setenv("VOYAGE_API_KEY", "pa-fake")
    for module in (ours, theirs):
        module.get_registry().get("voyageai").client = None

    def embeddings(body):
        data = [{"object": "embedding", "index": i, "embedding": vector_of(t)}
                for i, t in enumerate(body["input"])]  # fmt: skip
        return 200, {"object": "list", "data": data, "model": body["model"],
                     "usage": {"total_tokens": 3}}  # fmt: skip

    def rerank(body):
        scored = sorted(
            ({"index": i, "relevance_score": score_of(body["query"], d)}
             for i, d in enumerate(body["documents"])),
            key=lambda r: -r["relevance_score"],
        )[: body.get("top_k") or None]  # fmt: skip
        return 200, {"object": "list", "data": scored, "model": body["model"],
                     "usage": {"total_tokens": 3}}  # fmt: skip

    fake.route("POST", "/v1/embeddings", embeddings)
    fake.route("POST", "/v1/rerank", rerank)
    yield fake
    for module in (ours, theirs):
        module.get_registry().get("voyageai").client = None


def test_voyageai_over_client(voyage):
    outputs = []
    for cls in both("voyageai"):
        func = cls.create(name="voyage-3-lite")
        assert func.ndims() == 512
        outputs.append(func.compute_source_embeddings(pa.array(["one two", "three"])))
        outputs.append(func.compute_query_embeddings("four"))
        cls.client = None
    # a list too (LanceDB's refuses one: "Input type <class 'list'> not allowed")
    func = ours.get_registry().get("voyageai").create(name="voyage-3-lite")
    assert len(func.compute_source_embeddings(["one two", "three"])) == 2
    assert [list(map(float, v)) for v in outputs[0]] == [vector_of("one two"), vector_of("three")]
    assert [list(map(float, v)) for v in outputs[1]] == [vector_of("four")]
    assert [[list(map(float, v)) for v in o] for o in outputs[:2]] == [
        [list(map(float, v)) for v in o] for o in outputs[2:]
    ]
    bodies = voyage.bodies("/v1/embeddings")
    assert bodies[0]["input"] == ["one two", "three"] and bodies[0]["input_type"] == "document"
    assert bodies[1]["input"] == ["four"] and bodies[1]["input_type"] == "query"
    assert bodies[0] == bodies[2] and bodies[1] == bodies[3]
    assert {h["authorization"] for _, h, _ in voyage.requests} == {"Bearer pa-fake"}


def test_voyageai_batches_by_token_limit(voyage, monkeypatch):
    import lancedb_cpp.embeddings.voyageai as module

    monkeypatch.setitem(module.VOYAGE_TOTAL_TOKEN_LIMITS, "voyage-3", 4)
    func = ours.get_registry().get("voyageai").create(name="voyage-3")
    texts = ["a b", "c d", "e", "f g h i j", "k"]
    vectors = func.compute_source_embeddings(pa.chunked_array([texts]))
    assert len(vectors) == 5
    # 2+2 tokens fill a batch; the 5-token text is a batch of its own
    assert [b["input"] for b in voyage.bodies("/v1/embeddings")] == [
        ["a b", "c d"], ["e"], ["f g h i j"], ["k"]
    ]
    with pytest.raises(ValueError, match="Each input should be str"):
        func.compute_source_embeddings(pa.array([b"x"]))
    with pytest.raises(ValueError, match="not supported"):
        ours.get_registry().get("voyageai").create(name="voyage-9").ndims()


def test_voyageai_missing_key(monkeypatch):
    monkeypatch.delenv("VOYAGE_API_KEY", raising=False)
    ours.get_registry().get("voyageai").client = None
    func = ours.get_registry().get("voyageai").create(name="voyage-3")
    with pytest.raises(ValueError, match="VOYAGEAI_API_KEY"):
        func.compute_query_embeddings("x")


# Cohere -------------------------------------------------------------------------------------


@pytest.fixture
def cohere_fake(fake, monkeypatch):
    import cohere

    # The client takes its base URL from CO_API_URL when it is imported; point the default
    # of the (already imported) client at the fake.
    monkeypatch.setitem(cohere.Client.__init__.__kwdefaults__, "base_url", fake.url)
    monkeypatch.setenv("COHERE_API_KEY", "co-fake")
    for module in (ours, theirs):
        monkeypatch.setattr(module.get_registry().get("cohere"), "client", None)

    def embed(body):
        return 200, {"id": "1", "response_type": "embeddings_floats", "texts": body["texts"],
                     "embeddings": [vector_of(t) for t in body["texts"]], "meta": {}}  # fmt: skip

    def rerank(body):
        scored = sorted(
            ({"index": i, "relevance_score": score_of(body["query"], d)}
             for i, d in enumerate(body["documents"])),
            key=lambda r: -r["relevance_score"],
        )[: body.get("top_n") or None]  # fmt: skip
        return 200, {"id": "1", "results": scored, "meta": {}}

    fake.route("POST", "/v1/embed", embed)
    fake.route("POST", "/v1/rerank", rerank)
    return fake


def test_cohere_embeddings_over_client(cohere_fake):
    outputs = []
    for cls in both("cohere"):
        func = cls.create(name="embed-english-light-v3.0")
        assert func.ndims() == 384
        outputs.append(func.compute_source_embeddings(["x", "yy"]))
        outputs.append(func.compute_query_embeddings("zzz"))
    assert outputs[0] == outputs[2] == [vector_of("x"), vector_of("yy")]
    assert outputs[1] == outputs[3] == [vector_of("zzz")]
    bodies = cohere_fake.bodies("/v1/embed")
    assert [b["input_type"] for b in bodies] == ["search_document", "search_query"] * 2
    with pytest.raises(ValueError, match="not supported"):
        ours.get_registry().get("cohere").create(name="embed-x").ndims()


# Gemini -------------------------------------------------------------------------------------


def test_gemini_over_client(fake, monkeypatch):
    def batch(body):
        return 200, {"embeddings": [
            {"values": vector_of(r["content"]["parts"][-1]["text"])} for r in body["requests"]
        ]}  # fmt: skip

    fake.route("POST", "/v1/models/gemini-embedding-001:batchEmbedContents", batch)
    monkeypatch.setenv("GOOGLE_API_KEY", "g-fake")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", fake.url)
    func = ours.get_registry().get("gemini-text").create(dim=4)
    texts = [f"t{i}" for i in range(150)]
    vectors = func.compute_source_embeddings(texts)
    assert [list(v) for v in vectors] == [vector_of(t) for t in texts]
    assert func.compute_query_embeddings("q")[0].tolist() == vector_of("q")
    requests = fake.bodies("/v1/models/gemini-embedding-001:batchEmbedContents")
    assert [len(r["requests"]) for r in requests] == [100, 50, 1]
    first = requests[0]["requests"][0]
    assert first["content"]["parts"] == [{"text": "Embedding of a document"}, {"text": "t0"}]
    assert first["taskType"] == "RETRIEVAL_DOCUMENT" and first["outputDimensionality"] == 4
    assert requests[2]["requests"][0]["taskType"] == "RETRIEVAL_QUERY"
    headers = [h for p, h, _ in fake.requests]
    assert all(f"lancedb/{lancedb_cpp.__version__}" in h["x-goog-api-client"] for h in headers)
    assert all(h["x-goog-api-key"] == "g-fake" for h in headers)
    restored = pickle.loads(pickle.dumps(func))  # the cached client is left out
    assert restored.dim == 4 and "client" not in restored.__dict__


def test_gemini_missing_key(monkeypatch):
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    with pytest.raises(ValueError, match="GOOGLE_API_KEY"):
        ours.get_registry().get("gemini-text").create().client  # noqa: B018


# Jina ---------------------------------------------------------------------------------------


def test_jina_over_http(fake, monkeypatch):
    def embeddings(body):
        # answer out of order: the function sorts by index
        data = [{"index": i, "embedding": vector_of(json.dumps(x))}
                for i, x in enumerate(body["input"])][::-1]  # fmt: skip
        return 200, {"data": data}

    fake.route("POST", "/v1/embeddings", embeddings)
    import lancedb.embeddings.jinaai as their_module

    import lancedb_cpp.embeddings.jinaai as our_module

    outputs = []
    for module, registry in ((our_module, ours), (their_module, theirs)):
        monkeypatch.setattr(module, "API_URL", f"{fake.url}/v1/embeddings")
        monkeypatch.setattr(module.JinaEmbeddings, "_session", None)
        func = registry.get_registry().get("jina").create(api_key="$var:jina_key:jk-fake")
        outputs.append(func.compute_source_embeddings(["a", "b"]))
        outputs.append(func.compute_query_embeddings("c"))
        outputs.append(func.compute_source_embeddings([b"\x89PNG fake bytes", "d"]))
    assert outputs[:3] == outputs[3:]
    assert outputs[0] == [vector_of('"a"'), vector_of('"b"')]
    bodies = fake.bodies("/v1/embeddings")
    assert bodies[0] == {"input": ["a", "b"], "model": "jina-clip-v1"}
    # as soon as one input is an image, every input is a dict
    assert bodies[2]["input"][1] == {"text": "d"} and "image" in bodies[2]["input"][0]
    assert {h["authorization"] for _, h, _ in fake.requests} == {"Bearer jk-fake"}
    fake.route("POST", "/v1/embeddings", lambda body: (200, {"detail": "quota"}))
    with pytest.raises(RuntimeError, match="quota"):
        ours.get_registry().get("jina").create().compute_query_embeddings("x")


# Bedrock ------------------------------------------------------------------------------------


def test_bedrock_over_boto3(fake, monkeypatch):
    def invoke(body):
        if "texts" in body:
            return 200, {"embeddings": [vector_of(body["texts"][0])]}
        return 200, {"embedding": vector_of(body["inputText"])}

    fake.route("POST", "/model/amazon.titan-embed-text-v1/invoke", invoke)
    fake.route("POST", "/model/cohere.embed-english-v3/invoke", invoke)
    monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", fake.url)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDFAKE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fake-secret")
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    titan = ours.get_registry().get("bedrock-text").create()
    assert titan.ndims() == 1536
    assert titan.compute_source_embeddings(["a", "bc"]) == [vector_of("a"), vector_of("bc")]
    cohere = ours.get_registry().get("bedrock-text").create(name="cohere.embed-english-v3")
    assert cohere.compute_query_embeddings("q") == [vector_of("q")]
    assert fake.bodies("/model/amazon.titan-embed-text-v1/invoke")[0] == {"inputText": "a"}
    assert fake.bodies("/model/cohere.embed-english-v3/invoke")[0] == {
        "input_type": "search_query", "texts": ["q"]
    }
    fake.route("POST", "/model/amazon.titan-embed-text-v1/invoke", lambda b: (403, {}))
    with pytest.raises(ValueError, match="Error raised by boto3 client"):
        titan.generate_embeddings(["x"])


# watsonx (the SDK is not installable next to this project's pandas: a stand-in module) ------


@pytest.fixture
def watsonx_sdk(monkeypatch):
    calls: Dict[str, Any] = {}

    class Embeddings:
        def __init__(self, **kwargs):
            calls["embeddings"] = kwargs

        def embed_documents(self, texts):
            return [vector_of(t, 3) for t in texts]

    class Rerank:
        def __init__(self, **kwargs):
            calls["rerank"] = kwargs

        def generate(self, query, inputs, params):
            calls["generate"] = params
            results = sorted(
                ({"index": i, "score": score_of(query, d)} for i, d in enumerate(inputs)),
                key=lambda r: -r["score"],
            )
            top = params["return_options"].get("top_n")
            return {"results": results[:top] if top else results}

    sdk = types.ModuleType("ibm_watsonx_ai")
    sdk.Credentials = lambda **kwargs: ("credentials", kwargs)
    foundation = types.ModuleType("ibm_watsonx_ai.foundation_models")
    foundation.Embeddings, foundation.Rerank = Embeddings, Rerank
    sdk.foundation_models = foundation
    monkeypatch.setitem(sys.modules, "ibm_watsonx_ai", sdk)
    monkeypatch.setitem(sys.modules, "ibm_watsonx_ai.foundation_models", foundation)
    for name in ("WATSONX_API_KEY", "WATSONX_PROJECT_ID", "WATSONX_SPACE_ID"):
        monkeypatch.delenv(name, raising=False)
    return calls


def test_watsonx_embeddings_and_scope(watsonx_sdk, monkeypatch):
    monkeypatch.setenv("WATSONX_API_KEY", "wx-key")
    monkeypatch.setenv("WATSONX_SPACE_ID", "env-space")
    func = ours.get_registry().get("watsonx").create(
        name="ibm/slate-30m-english-rtrvr-v2", project_id="p1", params={"truncate": 1}
    )
    assert func.ndims() == 384
    assert func.compute_source_embeddings(["a", "b"]) == [vector_of("a", 3), vector_of("b", 3)]
    assert watsonx_sdk["embeddings"] == {
        "model_id": "ibm/slate-30m-english-rtrvr-v2", "params": {"truncate": 1},
        "project_id": "p1",
        "credentials": ("credentials", {"api_key": "wx-key",
                                        "url": "https://us-south.ml.cloud.ibm.com"}),
    }  # fmt: skip
    monkeypatch.setenv("WATSONX_PROJECT_ID", "env-project")
    with pytest.raises(ValueError, match="not both"):
        ours.WatsonxEmbeddings()._watsonx_client  # noqa: B018
    assert ours.get_registry().get("watsonx").create().name == "ibm/slate-125m-english-rtrvr"


# Rerankers ----------------------------------------------------------------------------------

DOCS = ["red apple pie", "green apple", "blue sky", "apple pie recipe", "car"]


def vector_results() -> pa.Table:
    return pa.table({
        "text": DOCS[:3], "_distance": pa.array([0.1, 0.2, 0.3], pa.float32()),
        "_rowid": pa.array([0, 1, 2], pa.uint64()),
    })  # fmt: skip


def fts_results() -> pa.Table:
    return pa.table({
        "text": DOCS[1:], "_score": pa.array([3.0, 2.0, 1.5, 1.0], pa.float32()),
        "_rowid": pa.array([1, 2, 3, 4], pa.uint64()),
    })  # fmt: skip


def run_all(reranker) -> List[pa.Table]:
    return [
        reranker.rerank_vector("apple pie", vector_results()),
        reranker.rerank_fts("apple pie", fts_results()),
        reranker.rerank_hybrid("apple pie", vector_results(), fts_results()),
    ]


def assert_same(ours_tables: List[pa.Table], theirs_tables: List[pa.Table]) -> None:
    for a, b in zip(ours_tables, theirs_tables):
        assert a.column_names == b.column_names
        assert a.to_pylist() == b.to_pylist()


@pytest.mark.parametrize("return_score", ["relevance", "all"])
def test_cohere_reranker_matches_lancedb(cohere_fake, return_score):
    from lancedb.rerankers import CohereReranker as Theirs

    ours_r = cpp_rerankers.CohereReranker(top_n=3, return_score=return_score)
    theirs_r = Theirs(top_n=3, return_score=return_score)
    mine = run_all(ours_r)
    assert_same(mine, run_all(theirs_r))
    assert mine[0]["text"].to_pylist() == ["red apple pie", "green apple", "blue sky"]
    assert mine[0]["_relevance_score"].to_pylist() == [1.0, 0.5, 0.0]
    assert len(mine[2]) == 3 and str(ours_r) == "CohereReranker(model_name=rerank-english-v3.0)"
    body = cohere_fake.bodies("/v1/rerank")[0]
    assert body["model"] == "rerank-english-v3.0" and body["top_n"] == 3


def test_voyageai_reranker_matches_lancedb(voyage):
    from lancedb.rerankers import VoyageAIReranker as Theirs

    mine = run_all(cpp_rerankers.VoyageAIReranker("rerank-2", top_n=2))
    assert_same(mine, run_all(Theirs("rerank-2", top_n=2)))
    assert mine[1]["text"].to_pylist() == ["apple pie recipe", "green apple"]
    body = voyage.bodies("/v1/rerank")[0]
    assert body["top_k"] == 2 and body["truncation"] is True and body["model"] == "rerank-2"


def test_jina_reranker_matches_lancedb(fake, monkeypatch):
    import lancedb.rerankers.jinaai as their_module

    import lancedb_cpp.rerankers.jinaai as our_module

    def rerank(body):
        scored = sorted(
            ({"index": i, "relevance_score": score_of(body["query"], d)}
             for i, d in enumerate(body["documents"])),
            key=lambda r: -r["relevance_score"],
        )  # fmt: skip
        return 200, {"results": scored}

    fake.route("POST", "/v1/rerank", rerank)
    for module in (our_module, their_module):
        monkeypatch.setattr(module, "API_URL", f"{fake.url}/v1/rerank")
    monkeypatch.setenv("JINA_API_KEY", "jk")
    assert_same(run_all(cpp_rerankers.JinaReranker(return_score="all")),
                run_all(their_module.JinaReranker(return_score="all")))  # fmt: skip
    assert {h["authorization"] for _, h, _ in fake.requests} == {"Bearer jk"}
    fake.route("POST", "/v1/rerank", lambda body: (200, {"detail": "bad model"}))
    with pytest.raises(RuntimeError, match="bad model"):
        cpp_rerankers.JinaReranker().rerank_fts("x", fts_results())


def test_openai_reranker_matches_lancedb(fake, monkeypatch):
    def chat(body):
        docs = body["messages"][1]["content"].split("Docs: ", 1)[1]
        query = body["messages"][1]["content"].split("Query: ", 1)[1].split(" Docs: ")[0]
        docs = eval(docs)  # noqa: S307 - the Python list repr the reranker sends
        content = json.dumps({"documents": [
            {"content": d, "relevance_score": score_of(query, d)} for d in docs
        ]})  # fmt: skip
        return 200, {
            "id": "c", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
        }  # fmt: skip

    fake.route("POST", "/v1/chat/completions", chat)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{fake.url}/v1")
    from lancedb.rerankers import OpenaiReranker as Theirs

    mine = run_all(cpp_rerankers.OpenaiReranker())
    assert_same(mine, run_all(Theirs()))
    assert mine[0]["_relevance_score"].to_pylist() == [1.0, 0.5, 0.0]
    body = fake.bodies("/v1/chat/completions")[0]
    assert body["response_format"] == {"type": "json_object"} and body["temperature"] == 0


def test_watsonx_reranker(watsonx_sdk, monkeypatch):
    monkeypatch.setenv("WATSONX_API_KEY", "k")
    reranker = cpp_rerankers.WatsonxReranker(space_id="s", top_n=2, truncate_input_tokens=64)
    table = reranker.rerank_fts("apple pie", fts_results())
    assert table["text"].to_pylist() == ["apple pie recipe", "green apple"]
    assert watsonx_sdk["rerank"]["space_id"] == "s"
    assert watsonx_sdk["generate"] == {"return_options": {"inputs": True, "top_n": 2},
                                       "truncate_input_tokens": 64}  # fmt: skip
    with pytest.raises(ValueError, match="WATSONX_PROJECT_ID or WATSONX_SPACE_ID"):
        cpp_rerankers.WatsonxReranker()._client  # noqa: B018


def test_hybrid_search_with_hosted_reranker(cohere_fake, tmp_path):
    db = lancedb_cpp.connect(tmp_path)
    table = db.create_table("t", [
        {"text": d, "vector": [float(i), 1.0]} for i, d in enumerate(DOCS)
    ])  # fmt: skip
    table.create_fts_index("text")
    rows = (table.search(query_type="hybrid").vector([0.0, 1.0]).text("apple pie")
            .rerank(cpp_rerankers.CohereReranker()).limit(3).to_list())  # fmt: skip
    assert [r["text"] for r in rows][:2] == ["red apple pie", "apple pie recipe"]
    assert rows[0]["_relevance_score"] == 1.0


# Missing packages ---------------------------------------------------------------------------


@pytest.mark.parametrize("make, package", [
    (lambda: cpp_rerankers.CrossEncoderReranker(), "torch"),
    (lambda: cpp_rerankers.ColbertReranker(), "rerankers"),
    (lambda: cpp_rerankers.AnswerdotaiRerankers(), "rerankers"),
    (lambda: ours.get_registry().get("sentence-transformers").create().ndims(),
     "sentence-transformers"),
    (lambda: ours.get_registry().get("instructor").create().ndims(), "InstructorEmbedding"),
    (lambda: ours.get_registry().get("huggingface").create(), "transformers"),
    (lambda: ours.get_registry().get("colbert").create(), "transformers"),
])  # fmt: skip
def test_model_providers_name_the_missing_package(make, package, monkeypatch):
    for module in ("torch", "rerankers", "sentence_transformers", "InstructorEmbedding",
                   "transformers"):  # fmt: skip
        monkeypatch.setitem(sys.modules, module, None)  # import fails, installed or not
    with pytest.raises(ImportError, match=f"Please install {package}"):
        make()


def test_model_providers_run_the_installed_package(monkeypatch):
    """With the package present (a stand-in model here), the function runs it."""
    encoded = []

    class SentenceTransformer:
        def __init__(self, name, device, trust_remote_code):
            self.args = (name, device, trust_remote_code)

        def encode(self, texts, convert_to_numpy, normalize_embeddings):
            encoded.append((texts, normalize_embeddings))
            return np.array([vector_of(t, 3) for t in texts])

    module = types.ModuleType("sentence_transformers")
    module.SentenceTransformer = SentenceTransformer
    monkeypatch.setitem(sys.modules, "sentence_transformers", module)
    func = ours.get_registry().get("sentence-transformers").create(name="tiny", normalize=False)
    assert func.ndims() == 3
    assert func.compute_source_embeddings(["ab", "c"]) == [vector_of("ab", 3), vector_of("c", 3)]
    assert func.embedding_model.args == ("tiny", "cpu", True)
    assert encoded[-1] == (["ab", "c"], False)


def test_lancedb_names_aliases_and_modules():
    """Every LanceDB provider is registered under LanceDB's name and lives in the module of
    LanceDB's name (patching ``lancedb.embeddings.<module>.x`` works the same)."""
    checked = 0
    for name in theirs.__all__:
        their_cls = getattr(theirs, name)
        alias = getattr(their_cls, "__embedding_function_registry_alias__", None)
        if alias is None:
            continue
        cls = getattr(ours, name)
        assert ours.get_registry().get(alias) is cls
        assert cls.__module__.rsplit(".", 1)[1] == their_cls.__module__.rsplit(".", 1)[1]
        checked += 1
    assert checked == 17
    assert lance_db.__version__


class FakeTensor:
    """Enough of a torch tensor for the image models' arithmetic (numpy underneath)."""

    def __init__(self, array):
        self.array = np.asarray(array, dtype=np.float32)

    def to(self, device):
        return self

    def unsqueeze(self, axis):
        return FakeTensor(np.expand_dims(self.array, axis))

    def norm(self, dim, keepdim):
        return FakeTensor(np.linalg.norm(self.array, axis=dim, keepdims=keepdim))

    def __itruediv__(self, other):
        self.array = self.array / other.array
        return self

    def cpu(self):
        return self

    def numpy(self):
        return self.array


def test_open_clip_runs_the_installed_package(monkeypatch, tmp_path):
    pil_image = pytest.importorskip("PIL.Image")
    created = {}

    class Model:
        def to(self, device):
            created["device"] = device

        def encode_text(self, tokens):
            return FakeTensor([[3.0, 4.0]])

        def encode_image(self, pixels):
            return FakeTensor([[pixels.array.mean() + 1.0, 0.0]])

    open_clip = types.ModuleType("open_clip")
    open_clip.create_model_and_transforms = lambda name, pretrained: (
        created.setdefault("model", (name, pretrained)) and Model(), None,
        lambda img: FakeTensor(np.asarray(img, dtype=np.float32)),
    )  # fmt: skip
    open_clip.get_tokenizer = lambda name: (lambda texts: FakeTensor([[len(t)] for t in texts]))
    torch = types.ModuleType("torch")
    torch.no_grad = __import__("contextlib").nullcontext
    monkeypatch.setitem(sys.modules, "open_clip", open_clip)
    monkeypatch.setitem(sys.modules, "torch", torch)
    func = ours.get_registry().get("open-clip").create(batch_size=2)
    assert created["model"] == ("ViT-B-32", "laion2b_s34b_b79k")
    assert func.ndims() == 2
    assert func.compute_query_embeddings("cat")[0].tolist() == pytest.approx([0.6, 0.8])
    path = tmp_path / "red.png"
    pil_image.new("RGB", (2, 2), (255, 0, 0)).save(path)
    vectors = func.compute_source_embeddings([str(path), path.as_uri(), path.read_bytes()])
    assert [v.tolist() for v in vectors] == [[1.0, 0.0]] * 3
    with pytest.raises(TypeError, match="OpenClip supports str or PIL Image"):
        func.compute_query_embeddings(3)
    with pytest.raises(NotImplementedError, match="Only local and http"):
        func.compute_source_embeddings("s3://bucket/cat.png")


@pytest.mark.parametrize("alias, package", [
    ("open-clip", "open-clip"), ("siglip", "transformers"), ("colpali", "torch"),
])  # fmt: skip
def test_image_models_name_the_missing_package(alias, package, monkeypatch):
    for module in ("open_clip", "transformers", "torch"):
        monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(ImportError, match=f"Please install {package}"):
        ours.get_registry().get(alias).create()


def test_imagebind_names_the_missing_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "imagebind", None)
    func = ours.get_registry().get("imagebind").create()
    assert func.ndims() == 1024
    with pytest.raises(ImportError, match="Please install imagebind"):
        func.compute_query_embeddings("a dog")
