# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""The parts of LanceDB's API surface that lancedb_cpp implements in pure Python (context,
dependencies, schema blob helpers, materialized view definitions, scannable, connection and
table helpers), compared with the installed lancedb on the same inputs."""

import asyncio
import json
import typing
from datetime import timedelta

import lancedb
import lancedb.context as real_context
import lancedb.materialized_view as real_mv
import lancedb.scannable as real_scannable
import lancedb.schema as real_schema
import pandas as pd
import pyarrow as pa
import pytest
from lancedb.table import LanceTable as RealLanceTable

import lancedb_cpp
import lancedb_cpp.context as context
import lancedb_cpp.dependencies as dependencies
import lancedb_cpp.exceptions as exceptions
import lancedb_cpp.materialized_view as mv
import lancedb_cpp.scannable as scannable
import lancedb_cpp.schema as schema
from lancedb_cpp.table import LanceTable

TOKENS = pd.DataFrame(
    {
        "token": ["The", "quick", "brown", "fox", "jumped", "over", "the", "lazy", "dog", "I",
                  "love", "sandwiches"],
        "document_id": [1] * 9 + [2] * 3,
    }
)  # fmt: skip


@pytest.mark.parametrize(
    "build",
    [
        lambda m: m.contextualize(TOKENS).window(3).stride(1).text_col("token"),
        lambda m: m.contextualize(TOKENS).window(7).stride(1).min_window_size(7).text_col("token"),
        lambda m: m.contextualize(TOKENS).window(4).stride(2).text_col("token"),
        lambda m: m.contextualize(TOKENS).window(6).stride(3).min_window_size(4)
        .text_col("token").groupby("document_id"),
        lambda m: m.contextualize(TOKENS).window(20).stride(5).text_col("token"),
    ],
)
def test_context_windows_as_lancedb(build):
    pd.testing.assert_frame_equal(build(context).to_pandas(), build(real_context).to_pandas())


def test_context_errors_as_lancedb():
    with pytest.raises(exceptions.MissingColumnError) as got:
        context.contextualize(TOKENS).window(2).stride(1).text_col("nope").to_pandas()
    with pytest.raises(lancedb.exceptions.MissingColumnError) as want:
        real_context.contextualize(TOKENS).window(2).stride(1).text_col("nope").to_pandas()
    assert str(got.value) == str(want.value)
    for build in [lambda m: m.contextualize(TOKENS).text_col("token").stride(1),
                  lambda m: m.contextualize(TOKENS).text_col("token").window(2)]:  # fmt: skip
        with pytest.raises(exceptions.MissingValueError) as got:
            build(context).to_pandas()
        with pytest.raises(lancedb.exceptions.MissingValueError) as want:
            build(real_context).to_pandas()
        assert str(got.value) == str(want.value)
    assert issubclass(exceptions.MissingColumnError, KeyError)
    assert issubclass(exceptions.JobFailedError, RuntimeError)
    assert issubclass(exceptions.JobNotFoundError, ValueError)


def test_dependencies_import_lazily():
    assert dependencies._PANDAS_AVAILABLE and dependencies._check_for_pandas(TOKENS)
    assert not dependencies._check_for_pandas([1])
    assert dependencies._check_for_numpy(TOKENS.values)
    assert dependencies.pandas.DataFrame is pd.DataFrame
    missing = dependencies._LazyModule("no_such_module_x", module_available=False)
    with pytest.raises(ModuleNotFoundError, match="requires 'no_such_module_x' module"):
        missing.thing
    assert missing.__name__ == "no_such_module_x"
    assert dependencies._TORCH_AVAILABLE is lancedb.dependencies._TORCH_AVAILABLE


def _blob_schemas():
    legacy = pa.field("b", pa.large_binary(), metadata={"lance-encoding:blob": "true"})
    v2 = pa.field("c", pa.large_binary(), metadata={"ARROW:extension:name": "lance.blob.v2"})
    return [
        pa.schema([("id", pa.int64())]),
        pa.schema([legacy, ("id", pa.int64())]),
        pa.schema([("s", pa.struct([v2, legacy])), ("l", pa.list_(v2)), v2]),
    ]


@pytest.mark.parametrize("s", _blob_schemas())
def test_blob_helpers_as_lancedb(s):
    for name in ["blob_column_paths", "blob_v2_column_paths", "row_addressable_blob_v2_paths",
                 "schema_has_blob_field"]:  # fmt: skip
        assert getattr(schema, name)(s) == getattr(real_schema, name)(s), name
    for f in s:
        assert schema.is_blob_like_field(f) == real_schema.is_blob_like_field(f)
        assert schema.is_blob_v2_field(f) == real_schema.is_blob_v2_field(f)


def test_materialized_view_definition_and_select_as_lancedb(tmp_path):
    for select in [None, "a", ["a", ("b2", "b + 1"), "we`ird"], {"x": "a * 2"}]:
        assert mv.normalize_select(select) == real_mv.normalize_select(select)
    stored = {
        "kind": "select", "source_table": "src", "filter": "a > 1", "limit": 5,
        "projections": [{"output": "a", "expression": "`a`"}], "inputs": ["a"],
    }  # fmt: skip
    metadata = {mv.DEFINITION_META_KEY: json.dumps(stored).encode()}
    conn = lancedb_cpp.connect(str(tmp_path))
    view = conn.create_table("v", pa.table({"a": [1]}).replace_schema_metadata(metadata))
    ours = mv.MaterializedView(view)
    assert ours.name == "v" and ours.table is view
    assert ours.definition == mv.MaterializedViewDefinition(
        source_table="src", projections=[("a", "`a`")], filter="a > 1", limit=5, inputs=["a"]
    )
    assert asyncio.run(mv.AsyncMaterializedView(
        lancedb_cpp.AsyncTable(view)).definition()) == ours.definition  # fmt: skip
    plain = conn.create_table("p", pa.table({"a": [1]}))
    with pytest.raises(ValueError, match="Table 'p' is not a materialized view"):
        mv.MaterializedView(plain).definition


@pytest.mark.parametrize(
    "data",
    [
        lambda: pa.table({"a": [1, 2]}),
        lambda: pa.record_batch({"a": [1, 2]}),
        lambda: [{"a": 1}, {"a": 2}],
        lambda: pd.DataFrame({"a": [1, 2]}),
        lambda: pa.table({"a": [1, 2]}).to_reader(),
        lambda: iter([pa.table({"a": [1]}), pa.table({"a": [2]})]),
    ],
)
def test_to_scannable_as_lancedb(data):
    ours, real = scannable.to_scannable(data()), real_scannable.to_scannable(data())
    assert (ours.schema, ours.num_rows, ours.rescannable) == (
        real.schema, real.num_rows, real.rescannable)  # fmt: skip
    assert ours.reader().read_all() == real.reader().read_all()


def test_to_scannable_errors_as_lancedb():
    for bad in [{"a": 1}, []]:
        with pytest.raises(ValueError) as got:
            scannable.to_scannable(bad)
        with pytest.raises(ValueError) as want:
            real_scannable.to_scannable(bad)
        assert str(got.value) == str(want.value)


def test_connection_helpers_as_lancedb(tmp_path):
    ours = lancedb_cpp.connect(str(tmp_path), read_consistency_interval=timedelta(seconds=2))
    real = lancedb.connect(str(tmp_path), read_consistency_interval=timedelta(seconds=2))
    assert json.loads(ours.serialize()) == json.loads(real.serialize())
    assert ours.session is None
    again = lancedb_cpp.db.LanceDBConnection.from_inner(ours._inner, timedelta(seconds=2))
    assert again.uri == ours.uri and again.read_consistency_interval == timedelta(seconds=2)
    with pytest.raises(NotImplementedError, match=r"connect\(session="):
        lancedb_cpp.db.LanceDBConnection(str(tmp_path), session=object())


def test_lance_table_constructors_as_lancedb(tmp_path):
    conn = lancedb_cpp.connect(str(tmp_path / "a"))
    real_conn = lancedb.connect(str(tmp_path / "b"))
    made = LanceTable.create(conn, "t", [{"id": 1}, {"id": 2}])
    RealLanceTable.create(real_conn, "t", [{"id": 1}, {"id": 2}])
    for table, real in [(LanceTable(conn, "t"), RealLanceTable(real_conn, "t")),
                        (LanceTable.open(conn, "t"), RealLanceTable.open(real_conn, "t"))]:  # fmt: skip
        assert table.to_arrow() == real.to_arrow() == made.to_arrow()
        assert (table.namespace, table.id) == (real.namespace, real.id)
        assert table.current_branch() == real.current_branch()
        assert table.initial_storage_options() == real.initial_storage_options()
        assert table.latest_storage_options() == real.latest_storage_options()
    with pytest.raises(ValueError) as got:
        LanceTable(conn, "nope")
    with pytest.raises(ValueError) as want:
        RealLanceTable(real_conn, "nope")
    assert str(got.value) == str(want.value)
    with pytest.raises(NotImplementedError, match=r"LanceTable\(location="):
        LanceTable(conn, "t", location="/elsewhere")
    wrapped = asyncio.run(LanceTable.from_inner(made._inner))
    assert wrapped.count_rows() == 2


def test_table_helpers_as_lancedb(tmp_path):
    conn = lancedb_cpp.connect(str(tmp_path / "a"))
    real_conn = lancedb.connect(str(tmp_path / "b"))
    data = pa.table({"id": [1, 2], "text": ["a", "b"]})
    table, real = conn.create_table("t", data), real_conn.create_table("t", data)
    for name in ["default", "raw", "whitespace", "en_stem", "fr_stem"]:
        assert LanceTable.infer_tokenizer_configs(name) == RealLanceTable.infer_tokenizer_configs(
            name
        )
    for t in (table, real):
        t.replace_field_metadata("text", {"k": "v"})
    assert table.schema.field("text").metadata == real.schema.field("text").metadata
    assert table.blob_columns() == real.blob_columns() == []
    for t in (table, real):
        assert repr(t.add_columns(computed={"x": "id + 1"})) == "AddColumnsResult(version=3)"
    assert table.schema == real.schema
    with pytest.raises(TypeError, match="keyword"):
        table.compact_files(1000)
    with pytest.raises(NotImplementedError, match=r"create_fts_index\(wait_timeout="):
        table.create_fts_index("text", wait_timeout=timedelta(seconds=1))
    table.create_fts_index("text", wait_timeout=None)
    builder = table.merge_insert("id").when_not_matched_insert_all()
    assert builder.use_lsm(False) is builder and builder.validate_single_shard(False) is builder
    with pytest.raises(NotImplementedError, match="LSM write buffers"):
        builder.use_lsm(True)
    builder.execute(pa.table({"id": [3], "text": ["c"]}))
    assert table.count_rows() == 3


def test_top_level_names(tmp_path):
    assert lancedb_cpp.vector(3) == lancedb.vector(3)
    assert lancedb_cpp.sanitize_uri(tmp_path) == lancedb.sanitize_uri(tmp_path)
    # Generic as in LanceDB: subscriptable.
    assert typing.get_origin(lancedb_cpp.Job[int]) is lancedb_cpp.Job
    assert typing.get_origin(lancedb.Job[int]) is lancedb.Job
    assert lancedb_cpp.blob("payload") == lancedb.blob("payload")
    with pytest.raises(NotImplementedError, match="sessions"):
        lancedb_cpp.Session()


@pytest.mark.parametrize("module", [lancedb, lancedb_cpp], ids=["lancedb", "lancedb_cpp"])
def test_every_memory_connection_is_its_own_database(module):
    first, second = module.connect("memory://"), module.connect("memory://")
    first.create_table("test", pa.table({"id": [1, 2]}))
    assert list(second.list_tables().tables) == []
    second.create_table("test", pa.table({"id": [7]}))  # no "already exists"
    assert first.open_table("test").count_rows() == 2
    assert second.open_table("test").to_arrow()["id"].to_pylist() == [7]
    named = module.connect("memory://same-name")
    named.create_table("t", pa.table({"id": [1]}))
    assert list(module.connect("memory://same-name").list_tables().tables) == []
