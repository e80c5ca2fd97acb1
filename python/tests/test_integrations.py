# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""The helper modules LanceDB ships and its users import: integrations.pyarrow (a table as a
PyArrow dataset, read by DuckDB), conftest (mock embedding functions), background_loop;
remote.errors; compared with the installed lancedb where it has the same."""

import asyncio

import duckdb
import lancedb
import lancedb.integrations.pyarrow as real_adapter
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import lancedb_cpp
from lancedb_cpp.background_loop import LOOP
from lancedb_cpp.integrations.pyarrow import PyarrowDatasetAdapter

DATA = pa.table({"x": [1, 2, 3, 4, 5], "y": [5, 6, 7, 8, 9], "s": ["a", "b", "c", "d", "e"]})


@pytest.fixture(params=["lancedb", "lancedb_cpp"])
def adapter(request, tmp_path):
    module, cls = ((lancedb, real_adapter.PyarrowDatasetAdapter) if request.param == "lancedb"
                   else (lancedb_cpp, PyarrowDatasetAdapter))
    return cls(module.connect(tmp_path).create_table("t", DATA))


def test_dataset_adapter_reads_as_lancedb(adapter):
    assert adapter.schema == DATA.schema
    assert adapter.count_rows() == 5 and adapter.count_rows("x > 2") == 3
    assert adapter.to_table() == DATA
    assert adapter.head(2) == DATA.slice(0, 2)
    assert adapter.to_batches().read_all() == DATA
    scan = adapter.scanner(columns=["y", "x"], filter="x >= 4")
    assert scan.projected_schema == pa.schema([DATA.schema.field("y"), DATA.schema.field("x")])
    assert scan.to_table() == pa.table({"y": [8, 9], "x": [4, 5]})
    assert adapter.scanner(batch_size=2).to_reader().read_next_batch().num_rows <= 2
    with pytest.raises(NotImplementedError):
        adapter.scanner(memory_pool=pa.default_memory_pool())


def test_duckdb_pushes_columns_and_filters_down(tmp_path):
    table = lancedb_cpp.connect(tmp_path).create_table("t", DATA)
    adapter = PyarrowDatasetAdapter(table)  # noqa: F841 (DuckDB finds it by name)
    connection = duckdb.connect()
    assert connection.sql("SELECT SUM(x) FROM adapter").fetchall() == [(15,)]
    # DuckDB hands the scanner a pyarrow.compute filter: it must be applied.
    assert connection.sql("SELECT SUM(x) FROM adapter WHERE y > 6").fetchall() == [(12,)]
    assert connection.sql("SELECT s FROM adapter WHERE s = 'b'").fetchall() == [("b",)]


def test_expression_filters_and_empty_tables(tmp_path):
    db = lancedb_cpp.connect(tmp_path)
    adapter = PyarrowDatasetAdapter(db.create_table("t", DATA))
    scan = adapter.scanner(columns=["s"], filter=pc.field("x") > 3)
    assert scan.to_table() == pa.table({"s": ["d", "e"]}) and scan.count_rows() == 2
    assert adapter.scanner(filter=pc.field("x") > 1).head(2)["x"].to_pylist() == [2, 3]
    with pytest.raises(TypeError, match="filter"):
        adapter.scanner(filter=3)
    empty = PyarrowDatasetAdapter(db.create_table("e", schema=pa.schema({"x": pa.int64()})))
    assert empty.count_rows() == 0 and empty.to_table().num_rows == 0
    assert empty.scanner().projected_schema == pa.schema({"x": pa.int64()})


def test_mock_embedding_functions_as_lancedb():
    import lancedb.conftest as real
    import lancedb_cpp.conftest as ours

    texts = ["hello world, again", "short", "abcdefghijkl"]
    for name in ("MockTextEmbeddingFunction", "MockNonNormTextEmbeddingFunction"):
        theirs = getattr(real, name).create().generate_embeddings(texts)
        mine = getattr(ours, name).create().generate_embeddings(texts)
        assert [list(map(float, v)) for v in mine] == [list(map(float, v)) for v in theirs]
    registry = lancedb_cpp.embeddings.get_registry()
    assert registry.get("test").create().ndims() == 10
    assert registry.get("nonnorm") is ours.MockNonNormTextEmbeddingFunction
    assert issubclass(registry.get("test-rate-limited"), ours.MockTextEmbeddingFunction)


def test_background_loop_runs_coroutines():
    async def add(a, b):
        await asyncio.sleep(0)
        return a + b

    assert LOOP.run(add(2, 3)) == 5

    async def fail():
        raise KeyError("k")

    with pytest.raises(KeyError):
        LOOP.run(fail())


def test_ensure_vector_query_as_lancedb():
    import lancedb.query as real

    import lancedb_cpp.query as ours

    for value in ([1.0, 2.0], [[1.0], [2.0]], pa.array([1.0]), [pa.array([1.0])], "text", 3):
        assert ours.ensure_vector_query(value) is real.ensure_vector_query(value)
    for bad in ([], [[]], 1.5):
        with pytest.raises(ValueError) as theirs:
            real.ensure_vector_query(bad)
        with pytest.raises(ValueError, match=str(theirs.value)):
            ours.ensure_vector_query(bad)


@pytest.mark.parametrize("errors", ["lancedb.remote.errors", "lancedb_cpp.remote.errors"])
def test_remote_errors_keep_their_fields_through_pickle(errors):
    import importlib
    import pickle

    mod = importlib.import_module(errors)
    retry = mod.RetryError("too many", "r1", 3, 1, 2, 5, 3, 3, status_code=503)
    for err in (mod.LanceDBClientError("bad", "r0"), mod.HttpError("missing", "r2", 404), retry):
        back = pickle.loads(pickle.dumps(err))
        assert type(back) is type(err) and str(back) == str(err)
        assert isinstance(back, RuntimeError) and isinstance(back, mod.LanceDBClientError)
        assert vars(back) == vars(err)
    assert retry.status_code == 503 and retry.max_request_failures == 5
    assert mod.LanceDBClientError("x", "r").status_code is None
