# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Arrow exchange through the PyCapsule interface, zero-copy both ways."""

import numpy as np
import pyarrow as pa
import pytest

import lancedb_cpp
from lancedb_cpp import _native

N = 1_000_000


def _big_table():
    ids = pa.array(np.arange(N, dtype=np.int64))
    values = pa.array(np.random.default_rng(7).random(N * 4, dtype=np.float32))
    vectors = pa.FixedSizeListArray.from_arrays(values, 4)
    return pa.table({"id": ids, "vector": vectors})


def test_million_rows_in_and_out_without_copies(db):
    table = _big_table()
    data_bytes = table.nbytes
    before = pa.total_allocated_bytes()
    t = db.create_table("big", table)
    t.add(table)
    grown_in = pa.total_allocated_bytes() - before
    # The engine reads the caller's buffers in place: pyarrow allocates nothing for them.
    assert grown_in < data_bytes / 20, grown_in
    before = pa.total_allocated_bytes()
    out = t.to_arrow()
    assert out.num_rows == 2 * N
    # Results are imported, not copied into pyarrow's pool.
    assert pa.total_allocated_bytes() - before < data_bytes / 20
    assert out.slice(N, 5).column("id").to_pylist() == [0, 1, 2, 3, 4]
    assert out.column("vector").chunk(0).values[:4] == table.column("vector").chunk(0).values[:4]


def test_output_buffers_are_shared_not_copied(db):
    t = db.create_table("t", pa.table({"a": pa.array(np.arange(1000, dtype=np.int64))}))
    reader = pa.RecordBatchReader.from_stream(t._inner.scan())
    batch = reader.read_next_batch()
    again = pa.RecordBatch.from_arrays([batch.column(0)], names=["a"])
    assert again.column(0).buffers()[1].address == batch.column(0).buffers()[1].address


def test_capsule_objects(db):
    t = db.create_table("t", [{"a": 1}])
    stream = t._inner.scan()
    assert isinstance(stream, _native.ArrowStream)
    table = pa.table(stream)
    assert table.column("a").to_pylist() == [1]
    with pytest.raises(ValueError, match="already consumed"):
        stream.__arrow_c_stream__()
    holder = t._inner.schema()
    assert pa.schema(holder) == t.schema
    # Inputs may be raw capsules or any __arrow_c_stream__ producer.
    capsule = pa.table({"a": [2]}).__arrow_c_stream__()
    assert t._inner.add(capsule, "append") == 2
    with pytest.raises(ValueError, match="already consumed"):
        t._inner.add(capsule, "append")
    with pytest.raises(TypeError):
        t._inner.add(42, "append")


class _Producer:
    """A foreign Arrow producer exposing only the PyCapsule protocol."""

    def __init__(self, table):
        self.table = table

    def __arrow_c_stream__(self, requested_schema=None):
        return self.table.__arrow_c_stream__(requested_schema)


def test_any_capsule_producer_and_generator_readers(db):
    source = pa.table({"a": [1, 2, 3]})
    t = db.create_table("t", _Producer(source))
    assert t.to_arrow() == source

    def gen():
        for i in range(3):
            yield pa.record_batch({"a": [i]})

    t.add(pa.RecordBatchReader.from_batches(source.schema, gen()))
    assert len(t) == 6


def test_generator_errors_surface_and_write_nothing(db):
    schema = pa.schema([("a", pa.int64())])
    t = db.create_table("t", schema=schema)

    def gen():
        yield pa.record_batch({"a": [1]})
        raise RuntimeError("producer failed")

    with pytest.raises(Exception, match="producer failed"):
        t.add(pa.RecordBatchReader.from_batches(schema, gen()))
    assert t.version == 1 and len(t) == 0


def test_to_batches_and_polars(db):
    t = db.create_table("t", pa.table({"a": list(range(5000))}))
    sizes = [b.num_rows for b in t.search().to_batches(1000)]
    assert sum(sizes) == 5000 and max(sizes) <= 1000
    import polars as pl
    assert t.search().to_polars().shape == (5000, 1)
    assert isinstance(t.to_polars(), pl.LazyFrame)
    t2 = db.create_table("from_polars", pl.DataFrame({"x": [1, 2]}))
    assert t2.to_arrow().column("x").to_pylist() == [1, 2]
