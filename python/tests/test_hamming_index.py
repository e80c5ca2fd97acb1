# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Binary vectors (fixed_size_list<uint8>) indexed with hamming distance: IVF_FLAT and
IVF_HNSW_FLAT, trained by k-modes (bitwise-majority centroids), searched by popcount.

Oracles: numpy brute force (popcount of xor) and the real LanceDB, which allows hamming with
IVF_FLAT / IVF_HNSW_FLAT on uint8 vectors only and raises RuntimeError for the other index types
and for other distances on uint8 vectors. IVF_FLAT hamming indices are in LanceDB's layout both
ways: ours searches LanceDB's with its results, LanceDB searches and extends ours. IVF_HNSW_FLAT
hamming indices too: ours searches LanceDB's with its results and extends and compacts them;
LanceDB searches ours with our results (its optimize() panics on any IVF_HNSW_FLAT hamming
index, its own included)."""

import datetime
import os
import warnings

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


def assert_same_hamming_results(path, vectors, queries, where=None):
    """Both engines' searches of table `t` at `path` (rows `vectors` by id) at several nprobes:
    the same rows in the same order with the same distances. Integer distances tie often; which
    of the rows tied at the last distance are kept is LanceDB's (one top-k heap for all probed
    partitions, fed their rows in storage order); every row is at the distance given."""
    theirs = real_lancedb.connect(path).open_table("t")
    ours = lancedb_cpp.connect(path).open_table("t")
    for q in queries:
        for nprobes, refine, k in [(1, None, K), (2, None, K), (2, None, 5), (4, None, K),
                                   (4, 2, K), (8, None, 12), (16, None, K)]:  # fmt: skip
            results = []
            for table in (theirs, ours):
                s = table.search(q).distance_type("hamming").nprobes(nprobes).limit(k)
                if refine:
                    s = s.refine_factor(refine)
                if where:
                    s = s.where(where, prefilter=True)
                r = s.to_arrow()
                results.append((r["id"].to_pylist(), r["_distance"].to_pylist()))
            assert results[1] == results[0], (nprobes, refine, k, results)
            for i, d in zip(*results[1]):
                assert hamming(vectors[i][None, :], q)[0] == d


def assert_same_graph_walks(path, queries):
    """Both engines' HNSW searches of table `t` at `path` at two breadths: the same rows, in the
    same order, at the same distances."""
    theirs = real_lancedb.connect(path).open_table("t")
    ours = lancedb_cpp.connect(path).open_table("t")
    for ef in (10, 40):
        for q in queries:
            want, got = (t.search(q).nprobes(2).ef(ef).limit(K).to_arrow()
                         for t in (theirs, ours))  # fmt: skip
            assert got["id"].to_pylist() == want["id"].to_pylist()
            assert got["_distance"].to_pylist() == want["_distance"].to_pylist()


def seeded_index_files(tmp_path, vectors, config):
    """The index files of two tables of `vectors` indexed by lancedb_cpp with `config`."""
    copies = []
    for name in ("a", "b"):
        table = lancedb_cpp.connect(tmp_path / name).create_table("t", as_table(vectors))
        table.create_index("vector", config=config)
        copies.append(index_file_bytes(tmp_path / name))
    return copies


def lancedb_indexed(path, vectors, config):
    """Table `t` of `vectors` at `path`, written and indexed with `config` by the real LanceDB."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = real_lancedb.connect(path).create_table("t", as_table(vectors))
        table.create_index("vector", config=config)
    return table


def add_rows(table, vectors, start):
    table.add(pa.table({
        "id": np.arange(start, start + len(vectors)),
        "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), NUM_BYTES),
    }))  # fmt: skip


def test_lancedb_built_index_searched_as_lancedb(tmp_path, data):
    """LanceDB's IVF_FLAT hamming index: ours probes it (no exact scan) with LanceDB's results,
    with rows appended after the build, deleted rows, and after either engine's optimize()."""
    vectors, queries = data
    more = binary_rows(seed=5, n=60)
    everything = np.concatenate([vectors, more])
    config = real_index.IvfFlat(distance_type="hamming", num_partitions=16)
    theirs = lancedb_indexed(tmp_path, vectors, config)
    ours = lancedb_cpp.connect(tmp_path).open_table("t")
    plan = ours.search(queries[0]).explain_plan()
    assert "ANNSubIndex" in plan and "KNNVectorDistance" not in plan, plan
    assert ours.index_stats("vector_idx").distance_type == "hamming"
    assert_same_hamming_results(tmp_path, everything, queries[:15])
    add_rows(theirs, more[:30], NUM_ROWS)  # not indexed: searched exactly
    assert_same_hamming_results(tmp_path, everything, queries[15:25])
    theirs.delete("id % 7 = 0")
    assert_same_hamming_results(tmp_path, everything, queries[25:35])
    assert_same_hamming_results(tmp_path, everything, queries[35:], where="id % 3 != 0")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs.optimize(cleanup_older_than=datetime.timedelta(0))
    assert theirs.index_stats("vector_idx").num_unindexed_rows == 0
    assert_same_hamming_results(tmp_path, everything, queries[:10])
    # Ours extends LanceDB's index; LanceDB reads the result.
    ours = lancedb_cpp.connect(tmp_path).open_table("t")
    add_rows(ours, more[30:], NUM_ROWS + 30)
    ours.optimize()
    stats = real_lancedb.connect(tmp_path).open_table("t").index_stats("vector_idx")
    assert (stats.num_unindexed_rows, stats.distance_type) == (0, "hamming")
    assert_same_hamming_results(tmp_path, everything, queries[10:20])


def test_lancedb_built_hnsw_index_searched_as_lancedb(tmp_path, data):
    """LanceDB's IVF_HNSW_FLAT hamming index: ours walks its graphs (no exact scan) with
    LanceDB's results, at several breadths, with prefilters (selective ones score the passing
    rows exactly), appended (by either engine) and deleted rows."""
    vectors, queries = data
    more = binary_rows(seed=7, n=40)
    everything = np.concatenate([vectors, more])
    config = real_index.HnswFlat(distance_type="hamming", num_partitions=4)
    theirs = lancedb_indexed(tmp_path, vectors, config)
    ours = lancedb_cpp.connect(tmp_path).open_table("t")
    plan = ours.search(queries[0]).explain_plan()
    assert "ANNSubIndex" in plan and "KNNVectorDistance" not in plan, plan
    stats = ours.index_stats("vector_idx")
    assert (stats.index_type, stats.distance_type) == ("IVF_HNSW_FLAT", "hamming")
    assert_same_hamming_results(tmp_path, everything, queries[:10])
    assert_same_graph_walks(tmp_path, queries[10:20])
    assert_same_hamming_results(tmp_path, everything, queries[20:25], where="id % 40 = 0")
    add_rows(theirs, more[:20], NUM_ROWS)
    theirs.delete("id % 7 = 0")
    assert_same_hamming_results(tmp_path, everything, queries[25:35])
    assert_same_hamming_results(tmp_path, everything, queries[35:], where="id % 3 != 0")
    # (LanceDB 0.39's optimize() panics on this index: "lance-12.0.0/src/index/vector/ivf.rs".)
    add_rows(ours, more[20:], NUM_ROWS + 20)
    assert_same_hamming_results(tmp_path, everything, queries[:10])


def index_file_bytes(path):
    root = os.path.join(path, "t.lance", "_indices")
    out = []
    for uuid in sorted(os.listdir(root)):
        for name in sorted(os.listdir(os.path.join(root, uuid))):
            with open(os.path.join(root, uuid, name), "rb") as f:
                out.append((name, f.read()))
    return out


def test_lancedb_searches_and_extends_our_index(tmp_path, data):
    """Our IVF_FLAT hamming index is in LanceDB's layout: LanceDB lists it, probes it with our
    results and extends it; seeded builds write the same bytes."""
    vectors, queries = data
    more = binary_rows(seed=6, n=40)
    everything = np.concatenate([vectors, more])
    ours = open_table(lancedb_cpp, tmp_path, vectors)
    path = tmp_path / lancedb_cpp.__name__
    ours.create_index("vector", config=cpp_index.IvfFlat(distance_type="hamming",
                                                         num_partitions=16, seed=4))  # fmt: skip
    theirs = real_lancedb.connect(path).open_table("t")
    (info,) = theirs.list_indices()
    assert (info.index_type, info.index_details["metric_type"]) == ("IvfFlat", "HAMMING")
    stats = theirs.index_stats("vector_idx")
    assert (stats.index_type, stats.distance_type) == ("IVF_FLAT", "hamming")
    assert (stats.num_indexed_rows, stats.num_unindexed_rows) == (NUM_ROWS, 0)
    plan = theirs.search(queries[0]).distance_type("hamming").explain_plan()
    assert "ANNIvfPartition" in plan, plan
    assert_same_hamming_results(path, everything, queries[:20])
    add_rows(theirs, more[:20], NUM_ROWS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs.optimize(cleanup_older_than=datetime.timedelta(0))
    assert theirs.index_stats("vector_idx").num_unindexed_rows == 0
    assert_same_hamming_results(path, everything, queries[20:])
    ours = lancedb_cpp.connect(path).open_table("t")
    add_rows(ours, more[20:], NUM_ROWS + 20)
    ours.delete("id % 11 = 0")
    ours.optimize()
    assert real_lancedb.connect(path).open_table("t").index_stats(
        "vector_idx").num_unindexed_rows == 0  # fmt: skip
    assert_same_hamming_results(path, everything, queries[:20])
    # Seeded: the same bytes.
    config = cpp_index.IvfFlat(distance_type="hamming", num_partitions=16, seed=4)
    copies = seeded_index_files(tmp_path, vectors, config)
    assert copies[0] == copies[1]
    assert [name for name, _ in copies[0]] == ["auxiliary.idx", "index.idx"]


def test_lancedb_searches_our_hnsw_index(tmp_path, data):
    """Our IVF_HNSW_FLAT hamming index is in LanceDB's layout: LanceDB lists it and walks its
    graphs with our results, before and after our optimize() extends and compacts it; seeded
    builds write the same bytes."""
    vectors, queries = data
    more = binary_rows(seed=8, n=40)
    everything = np.concatenate([vectors, more])
    ours = open_table(lancedb_cpp, tmp_path, vectors)
    path = tmp_path / lancedb_cpp.__name__
    config = cpp_index.HnswFlat(distance_type="hamming", num_partitions=4, seed=4)
    ours.create_index("vector", config=config)
    theirs = real_lancedb.connect(path).open_table("t")
    (info,) = theirs.list_indices()
    assert (info.index_type, info.index_details["metric_type"]) == ("IvfHnswFlat", "HAMMING")
    stats = theirs.index_stats("vector_idx")
    assert (stats.index_type, stats.distance_type) == ("IVF_HNSW_FLAT", "hamming")
    assert (stats.num_indexed_rows, stats.num_unindexed_rows) == (NUM_ROWS, 0)
    plan = theirs.search(queries[0]).distance_type("hamming").explain_plan()
    assert "ANNSubIndex" in plan, plan

    assert_same_hamming_results(path, everything, queries[:10])
    assert_same_graph_walks(path, queries[10:20])
    add_rows(ours, more, NUM_ROWS)
    ours.delete("id % 7 = 0")
    ours.optimize()
    stats = real_lancedb.connect(path).open_table("t").index_stats("vector_idx")
    assert (stats.num_indexed_rows, stats.num_unindexed_rows) == (
        sum(1 for i in range(len(everything)) if i % 7), 0)  # fmt: skip
    assert_same_hamming_results(path, everything, queries[20:30])
    assert_same_graph_walks(path, queries[30:])
    copies = seeded_index_files(tmp_path, vectors, config)
    assert copies[0] == copies[1]


def test_our_optimize_extends_and_compacts_lancedbs_hnsw_index(tmp_path, data):
    vectors, queries = data
    more = binary_rows(seed=9, n=40)
    everything = np.concatenate([vectors, more])
    config = real_index.HnswFlat(distance_type="hamming", num_partitions=4)
    theirs = lancedb_indexed(tmp_path, vectors, config)
    ours = lancedb_cpp.connect(tmp_path).open_table("t")
    add_rows(ours, more, NUM_ROWS)
    ours.delete("id % 5 = 0")
    ours.optimize()
    stats = real_lancedb.connect(tmp_path).open_table("t").index_stats("vector_idx")
    assert (stats.index_type, stats.num_unindexed_rows) == ("IVF_HNSW_FLAT", 0)
    assert stats.num_indexed_rows == sum(1 for i in range(len(everything)) if i % 5)
    assert_same_hamming_results(tmp_path, everything, queries[:20])
