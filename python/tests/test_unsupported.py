# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Parameters of LanceDB's API that lancedb_cpp does not implement raise NotImplementedError
naming the parameter when given anything but their default; none is silently dropped, and an
engine error is never answered by some other operation."""

import inspect
import warnings
from datetime import timedelta

import pyarrow as pa
import pytest

import lancedb_cpp
from lancedb_cpp.index import IvfPq
from lancedb_cpp.table import Table

ROWS = [{"id": i, "vector": [float(i % 7), float(i % 5), 1.0, 0.5]} for i in range(300)]


@pytest.fixture
def table(db):
    return db.create_table("t", ROWS)


@pytest.mark.parametrize("kwargs, name", [
    ({"storage_options": {"new_table_enable_stable_row_ids": "true"}}, "storage_options"),
])  # index_cache_size is deprecated and ignored with a warning, as in LanceDB
    # (test_deprecations_as_lancedb.py)
def test_open_table_rejects(db, table, kwargs, name):
    with pytest.raises(NotImplementedError, match=rf"open_table\({name}="):
        db.open_table("t", **kwargs)
    # The defaults open the table.
    assert len(db.open_table("t", storage_options=None, index_cache_size=None)) == 300
    assert len(db.open_table("t", storage_options={})) == 300


def test_open_table_rejects_unknown_keywords(db, table):
    with pytest.raises(TypeError):
        db.open_table("t", no_such_option=1)


@pytest.mark.parametrize("kwargs, name", [
    ({"wait_timeout": timedelta(seconds=30)}, "wait_timeout"),
    ({"accelerator": "cuda"}, "accelerator"),
    ({"config": IvfPq(num_partitions=2, num_sub_vectors=2, accelerator="cuda")}, "accelerator"),
])
def test_create_index_rejects(table, kwargs, name):
    kwargs.setdefault("config", IvfPq(num_partitions=2, num_sub_vectors=2))
    with pytest.raises(NotImplementedError, match=rf"create_index\({name}="):
        table.create_index("vector", **kwargs)
    assert table.list_indices() == []
    table.create_index("vector", config=IvfPq(num_partitions=2, num_sub_vectors=2),
                       wait_timeout=None, index_cache_size=None)
    assert [i.name for i in table.list_indices()] == ["vector_idx"]


def test_legacy_create_index_passes_num_bits_to_ivf_rq(table):
    # A width LanceDB refuses is refused (with its message), not silently replaced.
    with pytest.raises(ValueError, match=r"IVF_RQ num_bits must be in 1..=9, got 10"):
        table.create_index(metric="l2", vector_column_name="vector", index_type="IVF_RQ",
                           num_partitions=2, num_bits=10)
    # As LanceDB: IVF_RQ on float32 vectors needs a dimension divisible by 8 (these have 4).
    with pytest.raises(ValueError, match="vector dimension must be divisible by 8 for IVF_RQ"):
        table.create_index(metric="l2", vector_column_name="vector", index_type="IVF_RQ",
                           num_partitions=2, num_bits=4)
    assert table.list_indices() == []


def test_add_rejects_unknown_keywords(table):
    with pytest.raises(TypeError):
        table.add(ROWS[:3], no_such_option=1)
    assert len(table) == 300


@pytest.mark.parametrize("kwargs, name", [
    ({"fts_columns": ["id"]}, "fts_columns"),
    ({"ordering_field_name": "id"}, "ordering_field_name"),
])
def test_search_rejects(table, kwargs, name):
    with pytest.raises(NotImplementedError, match=rf"search\({name}="):
        table.search(**kwargs)


@pytest.mark.parametrize("run", [
    lambda q, t: q.to_arrow(timeout=t),
    lambda q, t: q.to_batches(timeout=t),
    lambda q, t: q.to_list(timeout=t),
    lambda q, t: q.to_pandas(timeout=t),
    lambda q, t: q.to_polars(timeout=t),
])
@pytest.mark.parametrize("vector", [False, True])
def test_query_timeout_is_honoured(table, run, vector):
    """A timeout the query meets changes nothing; one it cannot meet (zero) raises LanceDB's
    RuntimeError, as LanceDB does for zero; a timeout that is not a timedelta, or is negative,
    fails as LanceDB's does."""
    def query():
        return table.search([1.0, 1.0, 1.0, 0.5]) if vector else table.search().where("id < 5")

    expected = query().to_arrow()
    got = run(query(), timedelta(seconds=600))
    got = got.read_all() if isinstance(got, pa.RecordBatchReader) else got
    rows = got.num_rows if hasattr(got, "num_rows") else len(got)
    assert rows == expected.num_rows
    with pytest.raises(RuntimeError, match=r"^lance error: .*Query timeout after 0 ms$"):
        got = run(query(), timedelta(0))
        if isinstance(got, pa.RecordBatchReader):
            got.read_all()
    with pytest.raises(TypeError, match="'int' object is not an instance of 'timedelta'"):
        run(query(), 5)
    with pytest.raises(ValueError, match="negative timedelta"):
        run(query(), timedelta(seconds=-1))


def test_query_without_timeout_runs(table):
    assert table.search().where("id < 5").to_arrow(timeout=None).num_rows == 5
    assert table.search([1.0, 1.0, 1.0, 0.5]).limit(3).to_list(timeout=None)[0]["_distance"] == 0


@pytest.mark.parametrize("kwargs, name", [
    ({"region": "eu-west-1"}, "region"),
    ({"session": object()}, "session"),
    ({"manifest_enabled": True}, "manifest_enabled"),
    ({"request_thread_pool": 4}, "request_thread_pool"),
    ({"namespace_client_properties": {"a": "b"}}, "namespace_client_properties"),
    ({"api_key": "sk-not-used"}, "api_key"),
])
def test_connect_rejects(tmp_path, kwargs, name):
    with pytest.raises(NotImplementedError, match=rf"connect\({name}="):
        lancedb_cpp.connect(tmp_path, **kwargs)


def test_connect_rejects_unknown_keywords_as_lancedb(tmp_path):
    with pytest.raises(ValueError, match="Unknown keyword arguments"):
        lancedb_cpp.connect(tmp_path, no_such_option=1)
    assert lancedb_cpp.connect(tmp_path, region="us-east-1", manifest_enabled=False) is not None


@pytest.mark.parametrize("where", ["connect", "create_table"])
def test_storage_options_the_engine_ignores_are_rejected(tmp_path, where):
    options = {"aws_access_key_id": "AKIA"}
    with pytest.raises(NotImplementedError, match="storage option 'aws_access_key_id'"):
        if where == "connect":
            lancedb_cpp.connect(tmp_path, storage_options=options)
        else:
            lancedb_cpp.connect(tmp_path).create_table("t", ROWS, storage_options=options)
    assert not (tmp_path / "t.lance").exists()


def test_create_table_honours_lancedbs_older_keywords(db, tmp_path):
    with pytest.warns(DeprecationWarning, match="enable_v2_manifest_paths"):
        db.create_table("v1", ROWS, enable_v2_manifest_paths=False)
    assert "1.manifest" in [p.name for p in (tmp_path / "cpp" / "v1.lance" / "_versions").iterdir()]
    with pytest.warns(DeprecationWarning, match="data_storage_version"):
        with pytest.raises(NotImplementedError, match="2.0"):
            db.create_table("v20", ROWS, data_storage_version="2.0")
    with pytest.warns(DeprecationWarning, match="data_storage_version"):
        assert len(db.create_table("v21", ROWS, data_storage_version="2.1")) == 300
    with pytest.warns(DeprecationWarning):
        assert len(db.create_table("v22", ROWS, data_storage_version="stable")) == 300
    with pytest.raises(TypeError):
        db.create_table("bad", ROWS, no_such_option=1)


@pytest.mark.parametrize("kwargs, name", [
    ({"max_bytes_per_file": 1 << 20}, "max_bytes_per_file"),
    ({"batch_size": 64}, "batch_size"),
    ({"defer_index_remap": True}, "defer_index_remap"),
    ({"compaction_mode": "try_binary_copy"}, "compaction_mode"),
    ({"excluded_fragment_ids": [0]}, "excluded_fragment_ids"),
])
def test_compact_files_rejects(table, kwargs, name):
    table.add(ROWS[:10])
    with pytest.raises(NotImplementedError, match=rf"compact_files\({name}="):
        table.compact_files(**kwargs)
    assert table.version == 2


def test_compact_files_takes_lances_options(table):
    table.add(ROWS[:10])
    with pytest.raises(TypeError):
        table.compact_files(no_such_option=1)
    stats = table.compact_files(target_rows_per_fragment=None, max_rows_per_group=None,
                                num_threads=1)
    assert (stats.fragments_removed, stats.fragments_added) == (2, 1)


def test_to_pandas_blob_mode(table):
    with pytest.raises(ValueError, match="blob_mode"):
        table.to_pandas(blob_mode="nope")
    # Without blob columns every mode reads the same, as in LanceDB.
    assert len(table.to_pandas(blob_mode="bytes")) == 300


class _QueryNotSupported:
    """Stands in for the native table: queries are NotSupported, a plain scan would work."""

    def query(self, **kwargs):
        raise NotImplementedError("query is not supported here")

    def query_schema(self, **kwargs):
        raise NotImplementedError("query is not supported here")

    def scan(self, *args):
        raise AssertionError("the query fell back to a scan")


def test_engine_not_supported_is_raised_not_answered_by_a_scan():
    table = Table(None, "t", _inner=_QueryNotSupported())
    with pytest.raises(NotImplementedError, match="query is not supported here"):
        table.search().limit(5).to_arrow()
    with pytest.raises(NotImplementedError, match="query is not supported here"):
        table.search().select(["id"]).output_schema()


def _pairs():
    import lancedb
    from lancedb.db import LanceDBConnection
    from lancedb.table import LanceTable

    return [
        (lancedb_cpp.connect, lancedb.connect),
        (lancedb_cpp.DBConnection.create_table, LanceDBConnection.create_table),
        (lancedb_cpp.DBConnection.open_table, LanceDBConnection.open_table),
        (Table.add, LanceTable.add),
        (Table.search, LanceTable.search),
        (Table.create_index, LanceTable.create_index),
        (Table.to_pandas, LanceTable.to_pandas),
        (Table.to_polars, LanceTable.to_polars),
    ]


def test_signatures_take_lancedbs_parameters_and_swallow_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        pairs = _pairs()
    for ours, theirs in pairs:
        mine = inspect.signature(ours).parameters
        for name, param in inspect.signature(theirs).parameters.items():
            if param.kind is inspect.Parameter.VAR_KEYWORD:
                continue
            assert name in mine, f"{ours.__qualname__} lacks LanceDB's parameter {name!r}"
        var_keyword = [p for p in mine.values() if p.kind is inspect.Parameter.VAR_KEYWORD]
        theirs_var = [p for p in inspect.signature(theirs).parameters.values()
                      if p.kind is inspect.Parameter.VAR_KEYWORD]
        assert len(var_keyword) <= len(theirs_var), f"{ours.__qualname__} takes **kwargs"


def test_polars_batch_size_is_honoured(table):
    import polars as pl
    frame = table.to_polars(batch_size=64)
    assert isinstance(frame, pl.LazyFrame)
    assert frame.collect().height == 300
