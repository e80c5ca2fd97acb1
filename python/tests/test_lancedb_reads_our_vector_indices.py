# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Vector indices lancedb_cpp builds, in the layout LanceDB builds (docs/format/lance-vector-index.md),
used by the real LanceDB 0.39: it lists them with their type and counts, its searches over them
return our rows with our distances (1e-4; the tie-tolerant comparison of
test_lancedb_vector_indices), its optimize() extends them, and so does ours. A seed gives
byte-identical index files. On float16 and float64 columns the files hold the column's type
(centroids, PQ codebook, FLAT vectors) as LanceDB's do."""

import datetime
import json
import os
import warnings

import lancedb as real_lancedb
import numpy as np
import pyarrow as pa
import pytest
from lance.file import LanceFileReader
from lancedb import index as real_index
from test_lancedb_vector_indices import DIM, NUM_ROWS, assert_same_results, rows
from test_lancedb_vector_indices import build as lancedb_build

import lancedb_cpp
from lancedb_cpp import index as cpp_index

HNSW_TYPES = ["IVF_HNSW_SQ", "IVF_HNSW_PQ", "IVF_HNSW_FLAT"]
RQ_TYPES = ["IVF_RQ", "IVF_RQ3", "IVF_RQ8"]  # 1, 3 and 8 bits a dimension
# Every type is written in LanceDB's layout on float16 / float64 columns too.
IVF_TYPES = ["IVF_FLAT", "IVF_PQ", "IVF_PQ4", "IVF_SQ"]
TYPES = IVF_TYPES + HNSW_TYPES + RQ_TYPES
METRICS = ["l2", "cosine", "dot"]
LIST_TYPES = {"IVF_FLAT": "IvfFlat", "IVF_PQ": "IvfPq", "IVF_PQ4": "IvfPq", "IVF_SQ": "IvfSq",
              "IVF_HNSW_SQ": "IvfHnswSq", "IVF_HNSW_PQ": "IvfHnswPq",
              "IVF_HNSW_FLAT": "IvfHnswFlat", "IVF_RQ": "IvfRq", "IVF_RQ3": "IvfRq",
              "IVF_RQ8": "IvfRq"}  # fmt: skip


def config(module, index_type, metric, seed=3):
    kwargs = {"distance_type": metric, "num_partitions": 8}
    if seed is not None:  # LanceDB's training takes no seed
        kwargs["seed"] = seed
    if index_type in HNSW_TYPES:
        kwargs["num_partitions"] = 4
        if index_type == "IVF_HNSW_SQ":
            return module.HnswSq(**kwargs)
        if index_type == "IVF_HNSW_PQ":
            return module.HnswPq(num_sub_vectors=4, **kwargs)
        return module.HnswFlat(**kwargs)
    if index_type in RQ_TYPES:
        return module.IvfRq(num_bits=int(index_type[6:] or 1), **kwargs)
    if index_type == "IVF_FLAT":
        return module.IvfFlat(**kwargs)
    if index_type == "IVF_PQ":
        return module.IvfPq(num_sub_vectors=4, **kwargs)
    if index_type == "IVF_PQ4":
        return module.IvfPq(num_sub_vectors=8, num_bits=4, **kwargs)
    return module.IvfSq(**kwargs)


def typed_rows(start, n, seed, value_type=pa.float32()):
    """rows() with vectors of `value_type`."""
    table = rows(start, n, seed)
    flat = table["vector"].combine_chunks().flatten().cast(value_type)
    return table.set_column(2, "vector", pa.FixedSizeListArray.from_arrays(flat, DIM))


def build(path, index_type, metric, seed=3, value_type=pa.float32()):
    """A table written and indexed by lancedb_cpp."""
    table = lancedb_cpp.connect(path).create_table("t", typed_rows(0, NUM_ROWS, 1, value_type))
    table.create_index("vector", config=config(cpp_index, index_type, metric, seed))
    return table


def index_files(path):
    """The index files of table `t` at `path`, by name relative to the index directory."""
    root = os.path.join(path, "t.lance", "_indices")
    out = {}
    for uuid in sorted(os.listdir(root)):
        for name in sorted(os.listdir(os.path.join(root, uuid))):
            with open(os.path.join(root, uuid, name), "rb") as f:
                out.setdefault(name, []).append(f.read())
    return out


STAT_FIELDS = ["num_indexed_rows", "num_unindexed_rows", "index_type", "distance_type", "num_indices"]


def assert_same_stats(ours, theirs):
    for field in STAT_FIELDS:
        assert getattr(ours, field) == getattr(theirs, field), field


def lancedb_type(index_type):
    renamed = {"IVF_PQ4": "IVF_PQ", "IVF_RQ3": "IVF_RQ", "IVF_RQ8": "IVF_RQ"}
    return renamed.get(index_type, index_type)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("index_type", TYPES)
def test_lancedb_lists_and_searches_our_index(tmp_path, index_type, metric):
    build(tmp_path, index_type, metric)
    theirs = real_lancedb.connect(tmp_path).open_table("t")
    ours = lancedb_cpp.connect(tmp_path).open_table("t")
    (info,) = theirs.list_indices()
    assert info.index_type == LIST_TYPES[index_type]
    assert info.columns == ["vector"]
    stats = theirs.index_stats("vector_idx")
    assert stats.index_type == lancedb_type(index_type)
    assert stats.distance_type == metric
    assert (stats.num_indexed_rows, stats.num_unindexed_rows, stats.num_indices) == (NUM_ROWS, 0, 1)
    assert_same_stats(ours.index_stats("vector_idx"), stats)
    assert [i.index_type for i in ours.list_indices()] == [info.index_type]
    assert ours.list_indices()[0].index_details == info.index_details
    if index_type in RQ_TYPES:  # as LanceDB records its IVF_RQ indices
        assert info.index_version == 2
        assert info.index_details["compression"] == {
            "type": "rq", "num_bits": int(index_type[6:] or 1), "rotation_type": "fast"}
    assert_same_results(tmp_path, metric)
    bounds = {"l2": (25.0, 32.0), "cosine": (0.4, 0.9), "dot": (-12.0, -6.0)}[metric]
    assert_same_results(tmp_path, metric, seed=11, distance_range=bounds)
    if index_type in HNSW_TYPES:
        assert_same_results(tmp_path, metric, seed=12, ef=40)
        assert_same_results(tmp_path, metric, seed=13, where="id % 3 = 0")
    # LanceDB uses the index (no exact scan of the indexed rows).
    plan = theirs.search(np.zeros(DIM, dtype=np.float32)).distance_type(metric).explain_plan()
    assert "ANNSubIndex" in plan or "ANNIvfPartition" in plan, plan


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("index_type", TYPES)
def test_optimize_by_either_engine_extends_our_index(tmp_path, index_type, metric):
    build(tmp_path, index_type, metric)
    theirs = real_lancedb.connect(tmp_path).open_table("t")
    theirs.add(rows(NUM_ROWS, 300, seed=2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs.optimize(cleanup_older_than=datetime.timedelta(0))
    assert theirs.index_stats("vector_idx").num_unindexed_rows == 0
    assert_same_results(tmp_path, metric, seed=12)
    # Ours extends the index LanceDB extended, LanceDB reads the result.
    ours = lancedb_cpp.connect(tmp_path).open_table("t")
    ours.add(rows(NUM_ROWS + 300, 200, seed=3))
    ours.optimize()
    stats = real_lancedb.connect(tmp_path).open_table("t").index_stats("vector_idx")
    assert (stats.num_indexed_rows, stats.num_unindexed_rows) == (NUM_ROWS + 500, 0)
    assert_same_stats(ours.index_stats("vector_idx"), stats)
    assert_same_results(tmp_path, metric, seed=13)
    ours.delete("id % 5 = 0")
    assert_same_results(tmp_path, metric, seed=14)


@pytest.mark.parametrize("index_type", TYPES)
def test_our_optimize_then_lancedbs(tmp_path, index_type):
    table = build(tmp_path, index_type, "l2")
    table.add(rows(NUM_ROWS, 300, seed=2))
    table.optimize()
    theirs = real_lancedb.connect(tmp_path).open_table("t")
    assert theirs.index_stats("vector_idx").num_indexed_rows == NUM_ROWS + 300
    assert theirs.index_stats("vector_idx").num_unindexed_rows == 0
    assert_same_results(tmp_path, "l2", seed=15)
    theirs.add(rows(NUM_ROWS + 300, 100, seed=4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs.optimize(cleanup_older_than=datetime.timedelta(0))
    assert theirs.index_stats("vector_idx").num_unindexed_rows == 0
    assert_same_results(tmp_path, "l2", seed=16)


@pytest.mark.parametrize("index_type", TYPES)
def test_seeded_builds_write_identical_files(tmp_path, index_type):
    build(tmp_path / "a", index_type, "cosine", seed=9)
    build(tmp_path / "b", index_type, "cosine", seed=9)
    first, second = index_files(tmp_path / "a"), index_files(tmp_path / "b")
    assert sorted(first) == ["auxiliary.idx", "index.idx"]
    assert first == second
    build(tmp_path / "c", index_type, "cosine", seed=10)
    assert index_files(tmp_path / "c")["index.idx"] != first["index.idx"]


def test_lancedbs_index_on_our_table_and_ours_on_theirs_agree(tmp_path):
    """Our IVF_PQ beside LanceDB's on the same rows: both engines rank each index alike."""
    build(tmp_path, "IVF_PQ", "l2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        real_lancedb.connect(tmp_path).open_table("t").create_index(
            "vector", config=real_index.IvfPq(num_partitions=8, num_sub_vectors=4), replace=True)
    assert_same_results(tmp_path, "l2", seed=17)


@pytest.mark.parametrize("index_type", HNSW_TYPES + RQ_TYPES)
def test_our_compaction_remaps_our_index_for_lancedb(tmp_path, index_type):
    """Our optimize() compacts away deleted rows: the kept rows' codes (and factors) move to
    their new addresses, the graphs of the HNSW partitions that lost rows are rebuilt (as Lance
    rebuilds them), and both engines search the remapped index alike; LanceDB's optimize then
    extends it."""
    table = build(tmp_path, index_type, "cosine")
    table.add(rows(NUM_ROWS, 300, seed=2))
    table.delete("id % 7 = 0")
    table.optimize()
    live = table.count_rows()
    theirs = real_lancedb.connect(tmp_path).open_table("t")
    stats = theirs.index_stats("vector_idx")
    assert (stats.num_indexed_rows, stats.num_unindexed_rows) == (live, 0)
    assert_same_stats(table.index_stats("vector_idx"), stats)
    assert_same_results(tmp_path, "cosine", seed=18)
    theirs.add(rows(NUM_ROWS + 300, 100, seed=4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs.optimize(cleanup_older_than=datetime.timedelta(0))
    assert theirs.index_stats("vector_idx").num_unindexed_rows == 0
    assert_same_results(tmp_path, "cosine", seed=19)


@pytest.mark.parametrize("index_type", HNSW_TYPES + ["IVF_RQ", "IVF_RQ3"])
def test_our_optimize_extends_and_compacts_lancedbs_index(tmp_path, index_type):
    """An IVF_HNSW_* or IVF_RQ index LanceDB built: our optimize() compacts it (the graphs of
    partitions that lost rows rebuilt) and adds the new rows (encoded with its rotation; grown
    graphs rebuilt with its m and ef_construction), in Lance's layout, which LanceDB then
    searches as we do."""
    lancedb_build(tmp_path, index_type, "l2")
    ours = lancedb_cpp.connect(tmp_path).open_table("t")
    ours.add(rows(NUM_ROWS, 300, seed=2))
    ours.delete("id % 7 = 0")
    ours.optimize()
    stats = real_lancedb.connect(tmp_path).open_table("t").index_stats("vector_idx")
    assert (stats.num_indexed_rows, stats.num_unindexed_rows) == (ours.count_rows(), 0)
    assert stats.index_type == lancedb_type(index_type)
    assert_same_stats(ours.index_stats("vector_idx"), stats)
    assert_same_results(tmp_path, "l2", seed=20)


def read_varint(buf, i):
    """The varint at `buf[i:]` and the offset after it."""
    value, shift = 0, 0
    while True:
        value |= (buf[i] & 0x7F) << shift
        shift += 7
        i += 1
        if buf[i - 1] < 0x80:
            return value, i


def read_fields(buf):
    """The (field number, value) pairs of a protobuf message: ints for varints, bytes for
    length-delimited and fixed64 fields (the wire types of Lance's IVF and Tensor messages)."""
    out, i = [], 0
    while i < len(buf):
        key, i = read_varint(buf, i)
        wire = key & 7
        if wire == 0:
            value, i = read_varint(buf, i)
        elif wire == 1:
            value, i = buf[i:i + 8], i + 8
        elif wire == 2:
            n, i = read_varint(buf, i)
            value, i = buf[i:i + n], i + n
        else:
            raise AssertionError(f"wire type {wire}")
        out.append((key >> 3, value))
    return out


def global_buffer(path, index):
    with open(path, "rb") as f:
        data = f.read()
    b = LanceFileReader(str(path)).metadata().global_buffers[index]
    return data[b.position:b.position + b.size]


def tensor_layout(tensor):
    """A Tensor message's (data type, shape, number of data bytes)."""
    fields = read_fields(tensor)
    shape = []
    for k, v in fields:
        if k == 2 and isinstance(v, bytes):  # packed varints
            i = 0
            while i < len(v):
                n, i = read_varint(v, i)
                shape.append(n)
        elif k == 2:
            shape.append(v)
    data = [v for k, v in fields if k == 3]
    return ([v for k, v in fields if k == 1] or [0])[0], shape, len(data[0]) if data else 0


def file_layout(index_dir):
    """What of the two index files describes their types: the schemas (names, types,
    nullability), the metadata keys and storage_metadata's keys, the centroids tensor and the
    tensors of auxiliary.idx's other global buffers (the PQ codebook)."""
    out = {}
    for name in ["index.idx", "auxiliary.idx"]:
        path = index_dir / name
        schema = LanceFileReader(str(path)).metadata().schema
        meta = {k.decode(): v.decode() for k, v in (schema.metadata or {}).items()}
        storage = json.loads(json.loads(meta.get("storage_metadata", '["{}"]'))[0])
        out[name] = {
            "fields": [(f.name, str(f.type), f.nullable) for f in schema],
            "metadata": sorted(meta),
            "storage_metadata": sorted(storage),
            "lance:index": meta.get("lance:index"),
        }
    ivf = read_fields(global_buffer(index_dir / "index.idx", 1))
    out["centroids"] = tensor_layout(dict(ivf)[4])
    num_buffers = len(LanceFileReader(str(index_dir / "auxiliary.idx")).metadata().global_buffers)
    out["codebook"] = [tensor_layout(global_buffer(index_dir / "auxiliary.idx", i))
                       for i in range(2, num_buffers)]  # fmt: skip
    return out


def index_dir(path):
    """The directory of the index of table `t` at `path` (its one segment)."""
    (info,) = real_lancedb.connect(path).open_table("t").list_indices()
    return path / "t.lance" / "_indices" / info.index_uuid


HALF_AND_DOUBLE = [pa.float16(), pa.float64()]


@pytest.mark.parametrize("value_type", HALF_AND_DOUBLE, ids=str)
@pytest.mark.parametrize("index_type", TYPES)
def test_half_and_double_indices_in_lancedbs_layout(tmp_path, index_type, value_type):
    """Our index files on a float16 / float64 column have the layout of LanceDB's on the same
    table: the same column types, metadata and tensor types and shapes."""
    build(tmp_path / "ours", index_type, "l2", value_type=value_type)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = real_lancedb.connect(tmp_path / "theirs").create_table(
            "t", typed_rows(0, NUM_ROWS, 1, value_type))
        theirs.create_index("vector", config=config(real_index, index_type, "l2", seed=None))
    ours, expected = file_layout(index_dir(tmp_path / "ours")), file_layout(
        index_dir(tmp_path / "theirs"))
    assert ours == expected
    tensor_type = {"halffloat": 1, "double": 3}[str(value_type)]
    parts = 4 if index_type in HNSW_TYPES else 8  # config()
    assert ours["centroids"] == (tensor_type, [parts, DIM], parts * DIM * value_type.bit_width // 8)


@pytest.mark.parametrize("value_type", HALF_AND_DOUBLE, ids=str)
@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("index_type", TYPES)
def test_lancedb_searches_our_half_and_double_indices(tmp_path, index_type, metric, value_type):
    build(tmp_path, index_type, metric, value_type=value_type)
    theirs = real_lancedb.connect(tmp_path).open_table("t")
    ours = lancedb_cpp.connect(tmp_path).open_table("t")
    stats = theirs.index_stats("vector_idx")
    assert (stats.index_type, stats.distance_type) == (lancedb_type(index_type), metric)
    assert (stats.num_indexed_rows, stats.num_unindexed_rows) == (NUM_ROWS, 0)
    assert_same_stats(ours.index_stats("vector_idx"), stats)
    assert_same_results(tmp_path, metric)
    plan = theirs.search(np.zeros(DIM, dtype=np.float32)).distance_type(metric).explain_plan()
    assert "ANNSubIndex" in plan or "ANNIvfPartition" in plan, plan


@pytest.mark.parametrize("value_type", HALF_AND_DOUBLE, ids=str)
@pytest.mark.parametrize("index_type", TYPES)
def test_optimize_extends_our_half_and_double_indices(tmp_path, index_type, value_type):
    build(tmp_path, index_type, "l2", value_type=value_type)
    theirs = real_lancedb.connect(tmp_path).open_table("t")
    theirs.add(typed_rows(NUM_ROWS, 300, 2, value_type))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs.optimize(cleanup_older_than=datetime.timedelta(0))
    assert theirs.index_stats("vector_idx").num_unindexed_rows == 0
    assert_same_results(tmp_path, "l2", seed=12)
    ours = lancedb_cpp.connect(tmp_path).open_table("t")
    ours.add(typed_rows(NUM_ROWS + 300, 200, 3, value_type))
    ours.optimize()
    stats = real_lancedb.connect(tmp_path).open_table("t").index_stats("vector_idx")
    assert (stats.num_indexed_rows, stats.num_unindexed_rows) == (NUM_ROWS + 500, 0)
    assert_same_results(tmp_path, "l2", seed=13)
    ours.delete("id % 5 = 0")
    ours.optimize()  # compaction: the index is remapped, in the column's type
    assert_same_results(tmp_path, "l2", seed=14)
    assert file_layout(index_dir(tmp_path))["centroids"][0] == {"halffloat": 1, "double": 3}[
        str(value_type)]


@pytest.mark.parametrize("value_type", HALF_AND_DOUBLE, ids=str)
@pytest.mark.parametrize("index_type", TYPES)
def test_seeded_half_and_double_builds_write_identical_files(tmp_path, index_type, value_type):
    build(tmp_path / "a", index_type, "cosine", seed=9, value_type=value_type)
    build(tmp_path / "b", index_type, "cosine", seed=9, value_type=value_type)
    assert index_files(tmp_path / "a") == index_files(tmp_path / "b")


def test_legacy_ivf_rq_takes_lancedbs_default_width(tmp_path):
    """The legacy create_index(index_type="IVF_RQ") builds 8-bit codes, as LanceDB's (its
    num_bits defaults to 8), on float32 vectors; LanceDB searches the index as we do."""
    table = lancedb_cpp.connect(tmp_path).create_table("t", rows(0, NUM_ROWS, seed=1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table.create_index(metric="l2", vector_column_name="vector", index_type="IVF_RQ",
                           num_partitions=8)
    (info,) = real_lancedb.connect(tmp_path).open_table("t").list_indices()
    assert info.index_details["compression"]["num_bits"] == 8
    assert_same_results(tmp_path, "l2", seed=21)
