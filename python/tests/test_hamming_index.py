# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Binary vectors (fixed_size_list<uint8>) indexed with hamming distance: IVF_FLAT and
IVF_HNSW_FLAT, trained by k-modes (bitwise-majority centroids), searched by popcount.

Oracles: numpy brute force (popcount of xor) and the real LanceDB, which allows hamming with
IVF_FLAT / IVF_HNSW_FLAT on uint8 vectors only and raises RuntimeError for the other index types
and for other distances on uint8 vectors."""

import lancedb as real_lancedb
import numpy as np
import pyarrow as pa
import pytest
from lancedb import index as real_index

import lancedb_cpp
from lancedb_cpp import index as cpp_index

NUM_BYTES = 16  # 128 bits
NUM_ROWS = 3000
NUM_CENTERS = 20
K = 10


def binary_rows(seed=0, n=NUM_ROWS, flip=0.08):
    """Rows near NUM_CENTERS random bit patterns (each bit flipped with probability `flip`)."""
    rng = np.random.default_rng(seed)
    centers = rng.integers(0, 256, (NUM_CENTERS, NUM_BYTES), dtype=np.uint8)
    bits = np.unpackbits(centers[rng.integers(0, NUM_CENTERS, n)], axis=1)
    bits ^= (rng.random(bits.shape) < flip).astype(np.uint8)
    return np.packbits(bits, axis=1)


def as_table(vectors):
    return pa.table({
        "id": np.arange(len(vectors)),
        "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), NUM_BYTES),
    })  # fmt: skip


def hamming(vectors, query):
    return np.unpackbits(vectors ^ query, axis=1).sum(axis=1)


@pytest.fixture(scope="module")
def data():
    rows = binary_rows(n=NUM_ROWS + 40)  # queries: 40 more rows near the same centers
    return rows[:NUM_ROWS], rows[NUM_ROWS:]


def open_table(module, tmp_path, vectors, name="t"):
    db = module.connect(tmp_path / module.__name__)
    return db.create_table(name, as_table(vectors))


def search(table, query, nprobes, k=K):
    r = table.search(query).nprobes(nprobes).limit(k).to_arrow()
    return r["id"].to_pylist(), r["_distance"].to_pylist()


@pytest.mark.parametrize("index_type", ["IVF_FLAT", "IVF_HNSW_FLAT"])
def test_all_partitions_probed_is_brute_force(tmp_path, data, index_type):
    vectors, queries = data
    table = open_table(lancedb_cpp, tmp_path, vectors)
    table.create_index(metric="hamming", vector_column_name="vector", index_type=index_type,
                       num_partitions=16)
    stats = table.index_stats("vector_idx")
    assert stats.distance_type == "hamming"
    assert stats.num_indexed_rows == NUM_ROWS
    for q in queries:
        ids, distances = search(table, q, nprobes=16)
        truth = hamming(vectors, q)
        expected = np.sort(truth)[:K].astype(float).tolist()
        if index_type == "IVF_FLAT":
            assert distances == expected  # exact: every partition scanned
        else:
            assert len(set(distances) ^ set(expected)) <= 2  # HNSW: approximate, but close
        assert [float(truth[i]) for i in ids] == distances


def test_recall_at_fewer_probes(tmp_path, data):
    vectors, queries = data
    table = open_table(lancedb_cpp, tmp_path, vectors)
    table.create_index("vector", config=cpp_index.IvfFlat(distance_type="hamming",
                                                          num_partitions=16))
    hits = 0
    for q in queries:
        ids, _ = search(table, q, nprobes=4)  # a quarter of the partitions
        truth = hamming(vectors, q)
        kth = np.sort(truth)[K - 1]
        hits += sum(truth[i] <= kth for i in ids)
    assert hits / (K * len(queries)) >= 0.9


def test_same_distances_as_lancedb(tmp_path, data):
    """Both engines' indices answer with every partition probed: the same (exact) distances,
    and, at a few probes, both find the clustered neighbours."""
    vectors, queries = data
    ours = open_table(lancedb_cpp, tmp_path, vectors)
    theirs = open_table(real_lancedb, tmp_path, vectors)
    for table, module in ((ours, cpp_index), (theirs, real_index)):
        table.create_index("vector", config=module.IvfFlat(distance_type="hamming",
                                                           num_partitions=16))
    for q in queries[:10]:
        assert search(ours, q, 16)[1] == search(theirs, q, 16)[1]
        # distance_type given explicitly, and a refine step: the same rows.
        a = ours.search(q).distance_type("hamming").nprobes(16).refine_factor(2).limit(K)
        b = theirs.search(q).distance_type("hamming").nprobes(16).refine_factor(2).limit(K)
        assert a.to_arrow()["_distance"].to_pylist() == b.to_arrow()["_distance"].to_pylist()


def test_prefilter_and_appended_rows(tmp_path, data):
    vectors, queries = data
    table = open_table(lancedb_cpp, tmp_path, vectors)
    table.create_index(metric="hamming", vector_column_name="vector", index_type="IVF_FLAT",
                       num_partitions=8)
    q = vectors[3]
    ids, distances = search(table, q, nprobes=8)
    assert ids[0] == 3 and distances[0] == 0.0
    r = table.search(q).nprobes(8).where("id != 3", prefilter=True).limit(K).to_arrow()
    assert 3 not in r["id"].to_pylist()
    # Rows added after the build are found (searched exactly), and again after optimize.
    table.add(pa.table({
        "id": np.array([NUM_ROWS]),
        "vector": pa.FixedSizeListArray.from_arrays(pa.array(q), NUM_BYTES),
    }))  # fmt: skip
    assert sorted(search(table, q, nprobes=1)[0][:2]) == [3, NUM_ROWS]
    table.optimize()
    assert table.index_stats("vector_idx").num_unindexed_rows == 0
    assert sorted(search(table, q, nprobes=1)[0][:2]) == [3, NUM_ROWS]


def test_hamming_on_float_vectors_is_a_clear_error(tmp_path):
    db = lancedb_cpp.connect(tmp_path)
    rng = np.random.default_rng(0)
    table = db.create_table("f", pa.table({
        "vector": pa.FixedSizeListArray.from_arrays(
            pa.array(rng.standard_normal(500 * 8).astype(np.float32)), 8),
    }))  # fmt: skip
    with pytest.raises(ValueError, match="hamming needs uint8 vectors"):
        table.create_index(metric="hamming", vector_column_name="vector", index_type="IVF_FLAT",
                           num_partitions=4)
    assert table.list_indices() == []


@pytest.mark.parametrize("index_type,message", [
    ("IVF_PQ", "PQ builder: unsupported data type: UInt8"),
    ("IVF_HNSW_PQ", "PQ builder: unsupported data type: UInt8"),
    ("IVF_SQ", "SQ builder: unsupported data type: UInt8"),
    ("IVF_HNSW_SQ", "SQ builder: unsupported data type: UInt8"),
])  # fmt: skip
def test_other_index_types_reject_binary_vectors_as_lancedb(tmp_path, data, index_type, message):
    vectors, _ = data
    for module in (lancedb_cpp, real_lancedb):
        table = open_table(module, tmp_path, vectors[:600])
        with pytest.raises(RuntimeError, match=message):
            table.create_index(metric="hamming", vector_column_name="vector",
                               index_type=index_type, num_partitions=4, num_sub_vectors=4)
        assert table.list_indices() == []


@pytest.mark.parametrize("metric", ["l2", "cosine", "dot"])
def test_binary_vectors_take_hamming_only_as_lancedb(tmp_path, data, metric):
    vectors, _ = data
    for module in (lancedb_cpp, real_lancedb):
        table = open_table(module, tmp_path, vectors[:600])
        with pytest.raises(RuntimeError):
            table.create_index(metric=metric, vector_column_name="vector", index_type="IVF_FLAT",
                               num_partitions=4)
        assert table.list_indices() == []
