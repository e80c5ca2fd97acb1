# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""lancedb.util and the row-width estimates of lancedb.scannable, compared with the installed
lancedb on the same inputs."""

import pathlib
import traceback

import lancedb.scannable as real_scannable
import lancedb.util as real
import pyarrow as pa
import pytest

import lancedb_cpp.scannable as scannable
import lancedb_cpp.util as ours


def _outcome(call):
    try:
        return "ok", call()
    except Exception as err:  # noqa: BLE001  (compared with the oracle's)
        return "error", "".join(traceback.format_exception_only(type(err), err)).strip()


def _same(name, *args, module_a=ours, module_b=real):
    mine = _outcome(lambda: getattr(module_a, name)(*args))
    theirs = _outcome(lambda: getattr(module_b, name)(*args))
    assert mine == theirs, (name, args)
    return mine


URIS = [
    "relative/path", "/abs/path", "file:///abs/path", "s3://bucket/p", "s3a://bucket/p",
    "s3n://b/p", "gs://b/p", "az://b/p?x=1", "memory://", "c:\\windows\\path", "db://remote",
]  # fmt: skip


@pytest.mark.parametrize("uri", URIS)
def test_uri_scheme_and_location(uri):
    _same("get_uri_scheme", uri)
    _same("get_uri_location", uri)


@pytest.mark.parametrize(
    "base", ["relative/path/", "/abs", "file:///abs/", "s3://bucket", "s3://b/p/?v=1", "gs://b/"]
)
def test_join_uri(base):
    assert _same("join_uri", base, "a", "t.lance")[0] == "ok"


def test_join_uri_keeps_a_path():
    base = pathlib.Path("/base")
    assert ours.join_uri(base, "t.lance") == real.join_uri(base, "t.lance") == base / "t.lance"


@pytest.mark.parametrize("flatten", [None, False, True, 1, 2, 0, -1])
def test_flatten_columns(flatten):
    table = pa.table({"id": [1], "s": [{"a": {"b": 1}, "c": 2}]})
    mine = _outcome(lambda: ours.flatten_columns(table, flatten).column_names)
    theirs = _outcome(lambda: real.flatten_columns(table, flatten).column_names)
    assert mine == theirs


SCHEMAS = {
    "one": pa.schema([("id", pa.int64()), ("vector", pa.list_(pa.float32(), 2))]),
    "two": pa.schema([("a", pa.list_(pa.float32(), 2)), ("b", pa.list_(pa.float16(), 3))]),
    "nested": pa.schema(
        [("id", pa.int64()), ("img", pa.struct([("my-embedding", pa.list_(pa.float32(), 4))]))]
    ),
    "multivector": pa.schema([("mv", pa.list_(pa.list_(pa.float32(), 8)))]),
    "uint8": pa.schema([("v", pa.list_(pa.uint8(), 16)), ("w", pa.list_(pa.int8(), 16))]),
    "none": pa.schema([("id", pa.int64()), ("l", pa.large_list(pa.list_(pa.float32(), 2)))]),
}


@pytest.mark.parametrize("name", sorted(SCHEMAS))
@pytest.mark.parametrize("dim", [None, 2, 3, 4])
def test_inf_vector_column_query(name, dim):
    _same("inf_vector_column_query", SCHEMAS[name], dim)


@pytest.mark.parametrize(
    "query_type, query",
    [("vector", [1.0, 2.0]), ("vector", [[1.0, 2.0, 3.0]]), ("fts", "hello"), ("auto", None),
     ("hybrid", None)],
)  # fmt: skip
def test_infer_vector_column_name(query_type, query):
    _same("infer_vector_column_name", SCHEMAS["two"], query_type, query, None)
    assert ours.infer_vector_column_name(SCHEMAS["two"], query_type, query, "x") == "x"


@pytest.mark.parametrize(
    "dtype",
    [pa.list_(pa.float32(), 2), pa.list_(pa.uint8(), 2), pa.list_(pa.int8(), 2),
     pa.list_(pa.list_(pa.float64(), 3)), pa.large_list(pa.list_(pa.float32(), 2)), pa.int64()],
)  # fmt: skip
def test_is_vector_column(dtype):
    _same("is_vector_column", dtype)
    _same("infer_vector_column_dim", dtype)


def test_deprecated_warns_every_call():
    @ours.deprecated
    def old():
        return 7

    for _ in range(2):
        with pytest.warns(DeprecationWarning, match="old is deprecated"):
            assert old() == 7


def test_add_note():
    err = ValueError("boom")
    ours.add_note(err, "more")
    assert "more" in "".join(traceback.format_exception(err))


WIDTH_SCHEMAS = [
    pa.schema([("a", pa.int64()), ("b", pa.bool_()), ("c", pa.string())]),
    pa.schema([("v", pa.list_(pa.float32(), 768)), ("t", pa.list_(pa.float32(), 768))]),
    pa.schema([("s", pa.struct([("x", pa.int32()), ("y", pa.list_(pa.float16(), 4))]))]),
    pa.schema([("d", pa.dictionary(pa.int32(), pa.string())), ("f", pa.binary(16))]),
    pa.schema([("l", pa.list_(pa.float32()))]),
]


@pytest.mark.parametrize("schema", WIDTH_SCHEMAS)
def test_scan_bounds_as_lancedb(schema):
    for name in ("_estimate_bytes_per_row", "_bounded_scanner_kwargs"):
        _same(name, schema, module_a=scannable, module_b=real_scannable)


def test_scan_bounds_use_a_sample_of_variable_lists():
    schema = pa.schema([("id", pa.string()), ("vec", pa.list_(pa.float32()))])
    sample = pa.table({"id": ["a", "b"], "vec": [[0.0] * 1024, None]})
    for name in ("_estimate_bytes_per_row", "_bounded_scanner_kwargs"):
        mine = _same(name, schema, sample, module_a=scannable, module_b=real_scannable)
        assert mine[1]  # the sample reveals a wide row
    constants = ["_PA_DEFAULT_BATCH_ROWS", "_SAMPLE_ROWS", "_VARIABLE_WIDTH_ESTIMATE",
                 "_WIDE_BATCH_READAHEAD", "_WIDE_FRAGMENT_READAHEAD"]  # fmt: skip
    assert [getattr(scannable, c) for c in constants] == [
        getattr(real_scannable, c) for c in constants
    ]


def test_to_scannable_takes_registered_types():
    class Rows:
        def __init__(self, n):
            self.n = n

    @scannable.to_scannable.register(Rows)
    def _(data):
        return scannable.to_scannable(pa.table({"i": list(range(data.n))}))

    assert scannable.to_scannable(Rows(3)).num_rows == 3
