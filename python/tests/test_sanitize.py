# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""LanceDB's input-data helpers of ``lancedb.table`` (lancedb_cpp._sanitize): the same
outputs, schemas and exceptions as the installed lancedb on the same inputs."""

import traceback

import lance
import lancedb.table as real
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.dataset as ds
import pytest
from lancedb.conftest import MockTextEmbeddingFunction as RealMock
from lancedb.embeddings import EmbeddingFunctionConfig as RealConfig
from lancedb.embeddings import EmbeddingFunctionRegistry as RealRegistry

import lancedb_cpp.table as ours
from lancedb_cpp.conftest import MockTextEmbeddingFunction as OurMock
from lancedb_cpp.embeddings import EmbeddingFunctionConfig as OurConfig
from lancedb_cpp.embeddings import EmbeddingFunctionRegistry as OurRegistry

POLICIES = ["error", "drop", "fill", "null"]


def _outcome(make):
    """("ok", table) or ("error", formatted exception)."""
    try:
        return "ok", make()
    except Exception as err:  # noqa: BLE001  (compared with the oracle's)
        return "error", "".join(traceback.format_exception_only(type(err), err)).strip()


def _both(name, *args, **kwargs):
    """Call helper `name` of lancedb_cpp.table and of lancedb.table; assert equal results."""
    mine = _outcome(lambda: _read(getattr(ours, name)(*args, **kwargs)))
    theirs = _outcome(lambda: _read(getattr(real, name)(*args, **kwargs)))
    assert mine == theirs
    return mine


def _read(result):
    if isinstance(result, pa.RecordBatchReader):
        table = result.read_all()
        return table.schema, table.to_pylist()
    if isinstance(result, pa.Array):
        return result.type, result.to_pylist()
    return result


def _reader(table):
    return table.to_reader()


JAGGED = pa.table(
    {"vector": pa.array([[1.0, 2.0], [3.0], [4.0, 5.0], [6.0, 7.0, 8.0], [None, 9.0], None])}
)
NANS = pa.table({"vector": pa.array([[1.0, float("nan")], [3.0, 4.0]])})


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("data", [JAGGED, NANS], ids=["jagged", "nan"])
def test_handle_bad_vectors_policies(policy, data):
    # Both readers must be fresh: each helper consumes its own.
    mine = _outcome(
        lambda: _read(ours._handle_bad_vectors(_reader(data), policy, fill_value=42.0))
    )
    theirs = _outcome(
        lambda: _read(real._handle_bad_vectors(_reader(data), policy, fill_value=42.0))
    )
    assert mine == theirs
    if policy == "error":
        assert mine[0] == "error" and mine[1].startswith("ValueError: Vector column 'vector'")


def test_handle_bad_vectors_with_target_schema_casts_integer_vectors():
    data = pa.table({"vector": [[1, 2, 3, 4], [5, 6]]})
    target = pa.schema([pa.field("vector", pa.list_(pa.float32(), 4))])
    for policy in POLICIES:
        mine = _outcome(lambda: _read(
            ours._handle_bad_vectors(_reader(data), policy, 0.5, target_schema=target)))
        theirs = _outcome(lambda: _read(
            real._handle_bad_vectors(_reader(data), policy, 0.5, target_schema=target)))
        assert mine == theirs, policy


def test_handle_bad_vectors_locks_the_dimension_of_a_list_target():
    # The target has no fixed size: the first batch with vectors decides (here the second).
    target = pa.schema([pa.field("vector", pa.list_(pa.float32()))])
    batches = [
        pa.record_batch({"vector": pa.array([[float("nan")] * 3], pa.list_(pa.float32()))}),
        pa.record_batch(
            {"vector": pa.array([[1.0, 2.0], [3.0, 4.0], [5.0]], pa.list_(pa.float32()))}
        ),
        pa.record_batch(
            {"vector": pa.array([[4.0, 5.0, 6.0], [7.0, 8.0]], pa.list_(pa.float32()))}
        ),
    ]

    def run(module):
        reader = pa.RecordBatchReader.from_batches(batches[0].schema, batches)
        return _read(module._handle_bad_vectors(reader, "drop", target_schema=target))

    mine, theirs = run(ours), run(real)
    assert mine == theirs
    assert [r["vector"] for r in mine[1]] == [[1.0, 2.0], [3.0, 4.0], [7.0, 8.0]]


@pytest.mark.parametrize(
    "arrow_type", [pa.list_(pa.float64()), pa.large_list(pa.float32()), pa.list_(pa.float16())]
)
def test_fill_bad_vector_values_on_a_slice(arrow_type):
    values = [[0.0, 0.0], [1.0, float("nan")], [2.0], None, [None, 3.0], [4.0, 5.0, 6.0], [9.0]]
    arr = pa.array(values, type=arrow_type).slice(1, 5)
    mine = _both("_fill_bad_vector_values", arr, dim=2, fill_value=42.0)
    assert mine[1][0] == arrow_type
    assert mine[1][1] == [[1.0, 42.0], [2.0, 42.0], [42.0, 42.0], [None, 3.0], [4.0, 5.0]]


def test_fill_bad_vector_values_fixed_size():
    arr = pa.array([[9.0, 9.0], [1.0, float("nan")], None], pa.list_(pa.float32(), 2)).slice(1)
    _both("_fill_bad_vector_values", arr, dim=2, fill_value=-1.0)


@pytest.mark.parametrize(
    "table",
    [
        pa.table({"vector": [[1.0, 2.0], [3.0], [4.0, 5.0]], "x": [1, 2, 3]}),
        pa.table({"img_embedding": [[1, 2], [3, 4]], "text_vector": [[-1, 300], [2, 2]]}),
        pa.table({"Vector": pa.array([[1.0]], pa.large_list(pa.float64())), "v": [[1.0]]}),
        pa.table(
            {"vector": pa.array([["a"]]), "tags_vector": pa.array([[None]], pa.list_(pa.int8()))}
        ),
        pa.table({"vec": pa.array([[1.0, 2.0]], pa.list_(pa.float64(), 2))}),
    ],
    ids=["modal-length", "integers", "large-list-any-case", "non-numeric", "fixed"],
)
def test_infer_target_schema(table):
    mine, _ = ours._infer_target_schema(_reader(table))
    theirs, _ = real._infer_target_schema(_reader(table))
    assert mine == theirs


def test_infer_target_schema_keeps_every_batch():
    batches = [pa.record_batch({"vector": [[1.0, 2.0]]}), pa.record_batch({"vector": [[3.0]]})]
    reader = pa.RecordBatchReader.from_batches(batches[0].schema, batches)
    schema, reader = ours._infer_target_schema(reader)
    assert schema.field("vector").type == pa.list_(pa.float32(), 2)
    assert reader.read_all().num_rows == 2


def test_cast_to_target_schema_subschema_and_structs():
    data = pa.table(
        {
            "id": pa.array([1], pa.int32()),
            "s": pa.array([{"a": 1}]),
            "vector": [[0.5, 1.5]],
            "m": pa.array([[("k", 1)]], pa.map_(pa.string(), pa.int64())),
        }
    )
    full = pa.schema(
        [
            pa.field("id", pa.int64()),
            pa.field("s", pa.struct([pa.field("a", pa.int8()), pa.field("b", pa.int8())])),
            pa.field("vector", pa.list_(pa.float32(), 2), metadata={"k": "v"}),
            pa.field("m", pa.map_(pa.string(), pa.int32())),
            pa.field("extra", pa.int64()),
        ]
    )
    fewer = pa.schema(list(full)[1:])  # lacks a column the data has: an error either way
    for target, allow in ((full, False), (full, True), (fewer, True)):
        mine = _outcome(lambda: _read(ours._cast_to_target_schema(_reader(data), target, allow)))
        theirs = _outcome(
            lambda: _read(real._cast_to_target_schema(_reader(data), target, allow))
        )
        assert mine == theirs
        assert mine[0] == ("ok" if allow and target is full else "error")


def _configs(module_registry, config, mock, columns):
    registry = module_registry.get_instance()
    registry.register("test")(mock)
    return registry.get_table_metadata(
        [config(source_column="text", vector_column=c, function=mock.create()) for c in columns]
    )


def test_sanitize_data_embeds_and_merges_metadata():
    target = pa.schema(
        [pa.field("text", pa.string()), pa.field("custom", pa.list_(pa.float32(), 10))],
        metadata={"note": "keep"},
    )
    data = pa.table({"text": ["bad", "good"], "custom": [[1.0] * 9, [2.0] * 10]})
    results = []
    for registry, config, mock, module in (
        (OurRegistry, OurConfig, OurMock, ours),
        (RealRegistry, RealConfig, RealMock, real),
    ):
        metadata = _configs(registry, config, mock, ["custom"])
        out = module._sanitize_data(
            data, target_schema=target, metadata=metadata, on_bad_vectors="drop"
        ).read_all()
        assert out.schema.metadata[b"note"] == b"keep"
        assert b"embedding_functions" in out.schema.metadata
        results.append(out.to_pylist())
    assert results[0] == results[1] and [r["text"] for r in results[0]] == ["good"]


def test_append_vector_columns_adds_missing_and_null_columns():
    results = []
    for registry, config, mock, module in (
        (OurRegistry, OurConfig, OurMock, ours),
        (RealRegistry, RealConfig, RealMock, real),
    ):
        metadata = _configs(registry, config, mock, ["vector"])
        missing = module._append_vector_columns(
            _reader(pa.table({"text": ["a", "b"]})), metadata=metadata
        ).read_all()
        schema = pa.schema([("text", pa.string()), ("vector", pa.list_(pa.float64(), 10))])
        nulls = pa.table({"text": ["a"], "vector": [None]}, schema=schema)
        filled = module._append_vector_columns(_reader(nulls), schema, metadata=metadata)
        results.append((missing.schema, missing.to_pylist(), filled.read_all().to_pylist()))
    assert results[0] == results[1]


def test_sanitize_create_table_overrides_embedding_metadata():
    results = []
    for registry, config, mock, module in (
        (OurRegistry, OurConfig, OurMock, ours),
        (RealRegistry, RealConfig, RealMock, real),
    ):
        old = _configs(registry, config, mock, ["old_vector"])
        new = _configs(registry, config, mock, ["custom"])
        schema = pa.schema(
            [("text", pa.string()), ("custom", pa.list_(pa.float32(), 10))],
            metadata=module._merge_metadata({"note": "x"}, old),
        )
        data, out_schema = module.sanitize_create_table(
            pa.table({"text": ["t"]}), schema, metadata=new, on_bad_vectors="drop"
        )
        funcs = registry.get_instance().parse_functions(out_schema.metadata)
        results.append((sorted(funcs), out_schema.metadata[b"note"], data.read_all().num_rows))
        empty, empty_schema = module.sanitize_create_table(None, schema)
        assert isinstance(empty, pa.Table) and empty.num_rows == 0
        assert empty_schema == schema
    assert results[0] == results[1] == (["custom"], b"x", 1)


def test_sanitize_data_is_lazy():
    schema = pa.schema([("a", pa.int32())])

    def batches():
        yield pa.record_batch([pa.array([1, 2], pa.int32())], schema=schema)
        raise ValueError("second batch")

    reader = ours._sanitize_data(pa.RecordBatchReader.from_batches(schema, batches()))
    assert next(reader).num_rows == 2
    with pytest.raises(ValueError, match="second batch"):
        next(reader)


def test_sanitize_data_validates_metadata_utf8():
    target = pa.schema([("a", pa.int64())], metadata={b"k": b"\xff"})
    mine = _outcome(lambda: _read(ours._sanitize_data(pa.table({"a": [1]}), target)))
    theirs = _outcome(lambda: _read(real._sanitize_data(pa.table({"a": [1]}), target)))
    assert mine == theirs and mine[0] == "error"


def _inputs(tmp_path):
    table = pa.table({"a": [1, 2], "b": ["x", "y"]})
    ds.write_dataset(table, tmp_path / "parquet", format="parquet")
    lance_ds = lance.write_dataset(table, tmp_path / "l.lance")
    return {
        "rows": table.to_pylist(),
        "batches": table.to_batches(),
        "reader": table.to_reader(),
        "iterator": iter(table.to_batches(max_chunksize=1)),
        "pandas": pd.DataFrame(table.to_pydict()),
        "polars": pl.DataFrame(table.to_pydict()),
        "polars-lazy": pl.LazyFrame(table.to_pydict()),
        "dataset": ds.dataset(tmp_path / "parquet", format="parquet"),
        "scanner": ds.dataset(tmp_path / "parquet", format="parquet").scanner(),
        "lance": lance_ds,
        "lance-scanner": lance_ds.scanner(),
    }


def test_into_pyarrow_reader_inputs(tmp_path):
    mine, theirs = _inputs(tmp_path / "ours"), _inputs(tmp_path / "theirs")
    for name in mine:
        a = ours._into_pyarrow_reader(mine[name]).read_all()
        b = real._into_pyarrow_reader(theirs[name]).read_all()
        assert a.equals(b), name
    for bad in ({"a": 1}, []):
        assert _outcome(lambda: ours._into_pyarrow_reader(bad))[1] == _outcome(
            lambda: real._into_pyarrow_reader(bad))[1]  # fmt: skip


def test_merge_metadata():
    assert ours._merge_metadata({"a": "1"}, None, {b"a": b"2", "b": b"3"}) == {
        b"a": b"2",
        b"b": b"3",
    }


def test_has_nan_values():
    half = pa.list_(pa.float16())
    arr = pa.chunked_array(
        [pa.array([[1.0, np.nan], None], half), pa.array([[2.0], [np.nan]], half)]
    )
    assert ours.has_nan_values(arr).to_pylist() == real.has_nan_values(arr).to_pylist()
