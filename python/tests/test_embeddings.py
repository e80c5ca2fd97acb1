# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""lancedb_cpp.embeddings: the schema metadata is byte-for-byte LanceDB's, vectors are computed
on add / merge_insert and for string and hybrid searches, tables move between the engines,
bad input fails as in LanceDB with nothing written. The embedding function is a deterministic
hash, registered under the same alias in both registries (no network, no model)."""

import hashlib
import warnings
from typing import List

import pyarrow as pa
import pytest

import lancedb_cpp
import lancedb_cpp.embeddings as ours
import lancedb_cpp.pydantic as ours_pydantic

import lancedb  # the oracle
import lancedb.embeddings as theirs
import lancedb.pydantic as theirs_pydantic

ALIAS = "cpp-test-hash"
BAD_ALIAS = "cpp-test-bad-dim"


def _hash_vector(text, dim: int) -> List[float]:
    digest = hashlib.sha256(str(text).encode("utf-8")).digest()
    return [b / 255.0 for b in digest[:dim]]


def _define(module):
    """The same test functions, registered in `module`'s registry."""

    @module.register(ALIAS)
    class HashEmbeddings(module.TextEmbeddingFunction):
        dim: int = 8

        def ndims(self) -> int:
            return self.dim

        def generate_embeddings(self, texts):
            return [_hash_vector(t, self.dim) for t in texts]

    @module.register(BAD_ALIAS)
    class WrongDimEmbeddings(module.TextEmbeddingFunction):
        def ndims(self) -> int:
            return 8

        def generate_embeddings(self, texts):
            return [[1.0] * (3 if t == "bad" else 8) for t in texts]

    return HashEmbeddings


_define(ours)
_define(theirs)

WORDS = [{"id": i, "text": t} for i, t in enumerate(
    ["hello world", "goodbye world", "greetings friend", "lance database", "vector search"]
)]


def _func(module, **kwargs):
    return module.get_registry().get(ALIAS).create(**kwargs)


def _conf(module, vector="vector", source="text", **kwargs):
    return module.EmbeddingFunctionConfig(
        vector_column=vector, source_column=source, function=_func(module, **kwargs)
    )


def _model(module, pyd):
    func = _func(module, dim=8)

    class Words(pyd.LanceModel):
        id: int
        text: str = func.SourceField()
        vector: pyd.Vector(func.ndims()) = func.VectorField()

    return Words


@pytest.fixture
def oracle(tmp_path):
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    return lancedb.connect(tmp_path / "oracle")


# ---------------------------------------------------------------------------------------------
# Registry and metadata


def test_registry_api():
    registry = ours.get_registry()
    assert registry is ours.EmbeddingFunctionRegistry.get_instance()
    func = registry.get(ALIAS).create(dim=4)
    assert func.ndims() == 4
    assert func.safe_model_dump() == {"dim": 4}
    assert len(func.compute_query_embeddings("x")[0]) == 4
    conf = ours.EmbeddingFunctionConfig(vector_column="v", source_column="t", function=func)
    assert registry.get_table_metadata([conf]) == theirs.get_registry().get_table_metadata(
        [theirs.EmbeddingFunctionConfig(vector_column="v", source_column="t",
                                        function=_func(theirs, dim=4))]
    )
    assert registry.get_table_metadata([]) is None
    parsed = registry.parse_functions(registry.get_table_metadata([conf]))
    assert list(parsed) == ["v"] and parsed["v"].function == func
    assert registry.parse_functions(None) == {} and registry.parse_functions({}) == {}
    with pytest.raises(TypeError):
        registry.register("not-a-function")(int)
    with pytest.raises(ValueError, match="not created with"):
        registry.get(ALIAS)(dim=3).safe_model_dump()


def test_variables_and_sensitive_keys():
    registry = ours.get_registry()
    registry.set_var("cpp_test_dim", 5)
    func = registry.get(ALIAS).create(dim="$var:cpp_test_dim")
    assert func.ndims() == 5 and func.safe_model_dump() == {"dim": "$var:cpp_test_dim"}
    assert registry.get(ALIAS).create(dim="$var:cpp_unset:3").ndims() == 3
    with pytest.raises(ValueError, match="not found"):
        registry.get(ALIAS).create(dim="$var:cpp_unset")
    with pytest.raises(ValueError):
        registry.set_var("a:b", "x")


def test_create_table_metadata_equals_lancedb(db, oracle):
    a = db.create_table("t", WORDS, embedding_functions=[_conf(ours, "vec", dim=8)])
    b = oracle.create_table("t", WORDS, embedding_functions=[_conf(theirs, "vec", dim=8)])
    assert a.schema.metadata[b"embedding_functions"] == b.schema.metadata[b"embedding_functions"]
    assert a.schema.metadata == b.schema.metadata
    assert a.schema.equals(b.schema)
    assert a.to_arrow().equals(b.to_arrow())


def test_schema_only_create_table_metadata_equals_lancedb(db, oracle):
    schema = pa.schema([pa.field("text", pa.utf8())])
    a = db.create_table("t", schema=schema, embedding_functions=[_conf(ours)])
    b = oracle.create_table("t", schema=schema, embedding_functions=[_conf(theirs)])
    assert a.schema.equals(b.schema, check_metadata=True)


def test_pydantic_model_metadata_equals_lancedb(db, oracle):
    ours_model, theirs_model = _model(ours, ours_pydantic), _model(theirs, theirs_pydantic)
    assert ours_model.to_arrow_schema().equals(theirs_model.to_arrow_schema(), check_metadata=True)
    confs = ours_model.parse_embedding_functions()
    assert [(c.source_column, c.vector_column) for c in confs] == [("text", "vector")]
    a = db.create_table("t", schema=ours_model)
    b = oracle.create_table("t", schema=theirs_model)
    assert a.schema.equals(b.schema, check_metadata=True)
    assert list(a.embedding_functions) == ["vector"]


# ---------------------------------------------------------------------------------------------
# Writes


def test_add_and_merge_insert_compute_vectors(db, oracle):
    results = []
    for conn, module in ((db, ours), (oracle, theirs)):
        table = conn.create_table("t", WORDS[:2], embedding_functions=[_conf(module)])
        table.add(WORDS[2:4])
        table.add(pa.table({"id": [9], "text": ["from arrow"]}))
        (table.merge_insert("id").when_matched_update_all().when_not_matched_insert_all()
         .execute([{"id": 0, "text": "changed"}, {"id": 4, "text": "vector search"}]))
        results.append(table.to_arrow().sort_by("id"))
    ours_rows, theirs_rows = results
    assert ours_rows.equals(theirs_rows)
    for row in ours_rows.to_pylist():
        assert row["vector"] == pytest.approx(_hash_vector(row["text"], 8))


def test_given_vectors_are_kept(db):
    table = db.create_table("t", WORDS[:1], embedding_functions=[_conf(ours)])
    table.add([{"id": 7, "text": "x", "vector": [0.5] * 8}])
    row = table.search().where("id = 7").to_list()[0]
    assert row["vector"] == [0.5] * 8


# ---------------------------------------------------------------------------------------------
# Searches


def test_string_search_embeds_the_query(db, oracle):
    a = db.create_table("t", WORDS, embedding_functions=[_conf(ours)])
    b = oracle.create_table("t", WORDS, embedding_functions=[_conf(theirs)])
    for query in ("lance database", "something else"):
        got = a.search(query).limit(3).to_arrow()
        want = b.search(query).limit(3).to_arrow()
        assert got.column("id").to_pylist() == want.column("id").to_pylist()
        assert got.column("_distance").to_pylist() == pytest.approx(
            want.column("_distance").to_pylist()
        )
    assert a.search("lance database").limit(1).to_list()[0]["_distance"] == 0
    explicit = a.search("vector search", query_type="vector").limit(1).to_list()
    assert explicit[0]["text"] == "vector search"
    a.create_fts_index("text")
    assert a.search("world", query_type="fts").limit(5).to_arrow().num_rows == 2


def test_search_on_a_named_vector_column(db):
    table = db.create_table("t", WORDS, embedding_functions=[_conf(ours, "vec")])
    assert table.search("greetings friend").limit(1).to_list()[0]["id"] == 2
    assert table.search("greetings friend", vector_column_name="vec").limit(1).to_list()[0][
        "id"] == 2


def test_hybrid_search_embeds_the_query(db, oracle):
    a = db.create_table("t", WORDS, embedding_functions=[_conf(ours)])
    b = oracle.create_table("t", WORDS, embedding_functions=[_conf(theirs)])
    a.create_fts_index("text")
    b.create_fts_index("text")
    got = a.search("goodbye world", query_type="hybrid").limit(3).to_arrow()
    want = b.search("goodbye world", query_type="hybrid").limit(3).to_arrow()
    assert got.column("id").to_pylist() == want.column("id").to_pylist()
    assert got.column("id").to_pylist()[0] == 1
    assert got.column("_relevance_score").to_pylist() == pytest.approx(
        want.column("_relevance_score").to_pylist()
    )


def test_string_query_without_embedding_function_needs_fts(db):
    table = db.create_table("t", [{"text": "a", "vector": [1.0, 2.0]}])
    with pytest.raises(ValueError, match="No embedding function"):
        table.search("a", query_type="vector")
    assert table.embedding_functions == {}


# ---------------------------------------------------------------------------------------------
# Across engines


def test_lancedb_table_reopens_in_lancedb_cpp(tmp_path):
    theirs_db = lancedb.connect(tmp_path)
    theirs_db.create_table("t", schema=_model(theirs, theirs_pydantic)).add(WORDS[:3])
    table = lancedb_cpp.connect(tmp_path).open_table("t")
    confs = table.embedding_functions
    assert list(confs) == ["vector"] and confs["vector"].source_column == "text"
    assert isinstance(confs["vector"].function, ours.get_registry().get(ALIAS))
    table.add(WORDS[3:])
    assert table.search("vector search").limit(1).to_list()[0]["id"] == 4
    reopened = lancedb.connect(tmp_path).open_table("t")
    assert reopened.search("lance database").limit(1).to_list()[0]["id"] == 3


def test_lancedb_cpp_table_reopens_in_lancedb(tmp_path):
    lancedb_cpp.connect(tmp_path).create_table(
        "t", WORDS[:3], embedding_functions=[_conf(ours, "vec")]
    )
    table = lancedb.connect(tmp_path).open_table("t")
    assert list(table.embedding_functions) == ["vec"]
    table.add(WORDS[3:])
    assert table.search("vector search").limit(1).to_list()[0]["id"] == 4
    again = lancedb_cpp.connect(tmp_path).open_table("t")
    assert again.search("hello world").limit(1).to_list()[0]["id"] == 0


def test_async_table_embedding_functions(tmp_path):
    import asyncio

    lancedb_cpp.connect(tmp_path).create_table("t", WORDS, embedding_functions=[_conf(ours)])

    async def main():
        conn = await lancedb_cpp.connect_async(tmp_path)
        return await (await conn.open_table("t")).embedding_functions()

    assert list(asyncio.run(main())) == ["vector"]


# ---------------------------------------------------------------------------------------------
# LanceDB's documented example, unchanged but for the registered function's name


def _documented_example(lancedb, get_registry, LanceModel, Vector, uri):
    db = lancedb.connect(uri)
    func = get_registry().get(ALIAS).create()

    class Words(LanceModel):
        text: str = func.SourceField()
        vector: Vector(func.ndims()) = func.VectorField()

    table = db.create_table("words", schema=Words, mode="overwrite")
    table.add(
        [
            {"text": "hello world"},
            {"text": "goodbye world"}
        ]
    )

    query = "greetings"
    actual = table.search(query).limit(1).to_pydantic(Words)[0]
    return actual.text, table.schema


def test_documented_example(tmp_path):
    got = _documented_example(
        lancedb_cpp, ours.get_registry, ours_pydantic.LanceModel, ours_pydantic.Vector,
        tmp_path / "cpp",
    )
    want = _documented_example(
        lancedb, theirs.get_registry, theirs_pydantic.LanceModel, theirs_pydantic.Vector,
        tmp_path / "oracle",
    )
    assert got[0] == want[0]
    assert got[1].equals(want[1], check_metadata=True)


# ---------------------------------------------------------------------------------------------
# Bad input


def _error_types(action):
    try:
        action()
    except Exception as err:  # noqa: BLE001
        return err
    raise AssertionError("no error")


def test_unregistered_function_raises_key_error(tmp_path):
    metadata = {b"embedding_functions": b'[{"name": "cpp-nowhere", "model": {}, '
                b'"source_column": "text", "vector_column": "vector"}]'}
    schema = pa.schema([pa.field("text", pa.utf8())], metadata=metadata)
    lancedb_cpp.connect(tmp_path).create_table("t", schema=schema)
    ours_table = lancedb_cpp.connect(tmp_path).open_table("t")
    theirs_table = lancedb.connect(tmp_path).open_table("t")
    with pytest.raises(KeyError):
        ours_table.embedding_functions
    with pytest.raises(KeyError):
        theirs_table.embedding_functions
    with pytest.raises(KeyError):
        ours_table.add([{"text": "x"}])
    with pytest.raises(KeyError):
        ours.get_registry().get("cpp-nowhere")
    assert len(ours_table) == 0


def test_wrong_dimension_writes_nothing(db, oracle):
    errors = []
    for conn, module in ((db, ours), (oracle, theirs)):
        func = module.get_registry().get(BAD_ALIAS).create()
        conf = module.EmbeddingFunctionConfig(
            vector_column="vector", source_column="text", function=func
        )
        table = conn.create_table("t", [{"text": "good"}], embedding_functions=[conf])
        version = table.version
        errors.append(_error_types(lambda: table.add([{"text": "ok"}, {"text": "bad"}])))
        assert len(table) == 1 and table.version == version
        table.add([{"text": "ok"}, {"text": "bad"}], on_bad_vectors="drop")
        assert len(table) == 2
    ours_err, theirs_err = errors
    assert isinstance(ours_err, type(theirs_err))
    assert "variable length vectors" in str(ours_err)
    assert isinstance(ours_err, ValueError)  # as the bad vectors of a plain add


def test_missing_source_column_writes_nothing(db, oracle):
    errors = []
    for conn, module in ((db, ours), (oracle, theirs)):
        table = conn.create_table("t", WORDS, embedding_functions=[_conf(module, "vec")])
        version = table.version
        errors.append(_error_types(lambda: table.add([{"id": 10}])))
        assert len(table) == len(WORDS) and table.version == version
    ours_err, theirs_err = errors
    assert isinstance(ours_err, type(theirs_err))
    assert "text" in str(ours_err)


# ---------------------------------------------------------------------------------------------
# Retries


@ours.register("cpp-test-flaky")
class FlakyEmbeddings(ours.TextEmbeddingFunction):
    failures: int = 2

    def ndims(self) -> int:
        return 2

    def generate_embeddings(self, texts):
        calls = FLAKY_CALLS.append(1) or len(FLAKY_CALLS)
        if calls <= self.failures:
            raise ConnectionError("transient")
        return [[1.0, 0.0] for _ in texts]


FLAKY_CALLS: list = []


def test_transient_failures_are_retried(monkeypatch):
    import lancedb_cpp.embeddings.utils as utils

    sleeps = []
    monkeypatch.setattr(utils.time, "sleep", sleeps.append)
    FLAKY_CALLS.clear()
    func = ours.get_registry().get("cpp-test-flaky").create(failures=2)
    assert func.compute_source_embeddings_with_retry(["a"]) == [[1.0, 0.0]]
    assert len(sleeps) == 2 and sleeps[1] > sleeps[0] > 0
    FLAKY_CALLS.clear()
    func = ours.get_registry().get("cpp-test-flaky").create(failures=5, max_retries=1)
    with pytest.raises(Exception, match="Maximum number of retries"):
        func.compute_query_embeddings_with_retry("a")
    FLAKY_CALLS.clear()
    func = ours.get_registry().get("cpp-test-flaky").create(failures=0)
    assert func.compute_query_embeddings_with_retry("a") == [[1.0, 0.0]]


def test_rate_limiter_allows_max_calls_per_period(monkeypatch):
    from lancedb_cpp.embeddings.utils import RateLimiter

    calls = []
    limited = RateLimiter(max_calls=3, period=60.0)(lambda x: calls.append(x) or x)
    assert [limited(i) for i in range(3)] == [0, 1, 2]
    import lancedb_cpp.embeddings.utils as utils

    sleeps = []
    monkeypatch.setattr(utils.time, "sleep", sleeps.append)
    limited(3)
    assert len(sleeps) == 1 and 0 < sleeps[0] <= 60.0


def test_embedding_utils_behave_as_lancedb(tmp_path):
    import lancedb.embeddings.utils as real_utils
    import numpy as np

    from lancedb_cpp.embeddings import utils

    for mod in (real_utils, utils):
        wrap = mod.FunctionWrapper(lambda xs: [[float(len(x))] for x in xs]).batch_size(2)
        assert wrap(np.array(["a", "bb", "ccc"])) == [[1.0], [2.0], [3.0]]
        assert [list(b) for b in wrap.to_batches(np.arange(5))] == [[0, 1], [2, 3], [4]]

        calls = []

        @mod.retry(tries=3, delay=0, jitter=0)
        def flaky():
            calls.append(1)
            if len(calls) < 3:
                raise OSError("transient")
            return "ok"

        assert flaky() == "ok" and len(calls) == 3

        @mod.retry(tries=2, delay=0, jitter=0)
        def broken():
            raise OSError("always")

        with pytest.raises(OSError, match="always"):
            broken()

        class Foo:
            hits = 0

            @mod.weak_lru()
            def bar(self, x):
                Foo.hits += 1
                return x * 2

        foo = Foo()
        assert (foo.bar(2), foo.bar(2), foo.bar(3)) == (4, 4, 6) and Foo.hits == 2
        with pytest.raises(ImportError, match="Please install some-pkg"):
            mod.attempt_import_or_raise("no_such_module_xyz", "some-pkg")
        with pytest.raises(ValueError, match="Please set the OPENAI_API_KEY environment variable."):
            mod.api_key_not_found_help("openai")
        assert mod.is_flash_attn_2_available() is False
        with pytest.raises(ImportError, match="You need to install torch"):
            mod.create_import_stub("torch")()
    (tmp_path / "f.bin").write_bytes(b"payload")
    assert utils.url_retrieve((tmp_path / "f.bin").as_uri()) == b"payload"
