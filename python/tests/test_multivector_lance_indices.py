# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Vector indices on multivector columns (list<fixed_size_list<float>>) cross both ways with the
real LanceDB 0.39: lancedb_cpp writes every index type in LanceDB's layout (one row per row
vector, under the row's id; float16 / float32 / float64 vectors), LanceDB lists them, searches
them with our results and extends them, and our optimize() extends and compacts them; ours
searches LanceDB's with its results. Results are compared with the tie-tolerant comparison of
test_lancedb_vector_indices (a row's MaxSim distance sums several float distances, so rows may
differ by an ulp)."""

import datetime
import warnings

import lancedb as real_lancedb
import numpy as np
import pyarrow as pa
import pytest
from lancedb import index as real_index
from test_lancedb_reads_our_vector_indices import file_layout, index_dir, index_files
from test_lancedb_vector_indices import assert_same_ranking
from test_multivector import DIM, _rows, _table_data

import lancedb_cpp
from lancedb_cpp import index as cpp_index

TYPES = ["IVF_FLAT", "IVF_PQ", "IVF_SQ", "IVF_RQ", "IVF_HNSW_SQ", "IVF_HNSW_PQ", "IVF_HNSW_FLAT"]
LIST_TYPES = {"IVF_FLAT": "IvfFlat", "IVF_PQ": "IvfPq", "IVF_SQ": "IvfSq", "IVF_RQ": "IvfRq",
              "IVF_HNSW_SQ": "IvfHnswSq", "IVF_HNSW_PQ": "IvfHnswPq",
              "IVF_HNSW_FLAT": "IvfHnswFlat"}  # fmt: skip
VALUE_TYPES = [pa.float32(), pa.float16(), pa.float64()]
NUM_ROWS = 400


def config(module, index_type, seed=3):
    kwargs = {"distance_type": "cosine", "num_partitions": 4}
    if seed is not None:  # LanceDB's training takes no seed
        kwargs["seed"] = seed
    return {
        "IVF_FLAT": lambda: module.IvfFlat(**kwargs),
        "IVF_PQ": lambda: module.IvfPq(num_sub_vectors=2, **kwargs),
        "IVF_SQ": lambda: module.IvfSq(**kwargs),
        "IVF_RQ": lambda: module.IvfRq(num_bits=2, **kwargs),
        "IVF_HNSW_SQ": lambda: module.HnswSq(**kwargs),
        "IVF_HNSW_PQ": lambda: module.HnswPq(num_sub_vectors=2, **kwargs),
        "IVF_HNSW_FLAT": lambda: module.HnswFlat(**kwargs),
    }[index_type]()


def data(start, n, seed, value_type):
    table = _table_data(_rows(n, seed=seed), value_type)
    return table.set_column(0, "id", pa.array(np.arange(start, start + n, dtype=np.int64)))


def queries(seed, n=6):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((int(rng.integers(1, 4)), DIM)).astype(np.float32)
            for _ in range(n)]  # fmt: skip


def assert_same_results(path, seed, refine=True):
    """Both engines' searches of table `t` at `path`, several nprobes (and a refine step)."""
    theirs = real_lancedb.connect(path).open_table("t")
    ours = lancedb_cpp.connect(path).open_table("t")
    settings = [(1, None), (2, None), (4, None)] + ([(2, 2)] if refine else [])
    for q in queries(seed):
        for nprobes, refine_factor in settings:
            results = []
            for table in (ours, theirs):
                s = table.search(q, vector_column_name="vector").nprobes(nprobes).limit(10)
                if refine_factor:
                    s = s.refine_factor(refine_factor)
                r = s.to_arrow()
                results += [r["id"].to_pylist(), np.array(r["_distance"].to_pylist())]
            assert_same_ranking(*results)


@pytest.mark.parametrize("value_type", VALUE_TYPES, ids=str)
@pytest.mark.parametrize("index_type", TYPES)
def test_lancedb_uses_and_extends_our_index(tmp_path, index_type, value_type):
    ours = lancedb_cpp.connect(tmp_path).create_table("t", data(0, NUM_ROWS, 1, value_type))
    ours.create_index("vector", config=config(cpp_index, index_type))
    theirs = real_lancedb.connect(tmp_path).open_table("t")
    (info,) = theirs.list_indices()
    assert (info.index_type, info.columns) == (LIST_TYPES[index_type], ["vector"])
    assert ours.list_indices()[0].index_details == info.index_details
    stats = theirs.index_stats("vector_idx")
    assert (stats.index_type, stats.distance_type) == (index_type, "cosine")
    assert (stats.num_indexed_rows, stats.num_unindexed_rows) == (NUM_ROWS, 0)
    plan = theirs.search(queries(1)[0], vector_column_name="vector").explain_plan()
    assert "MultivectorScoring" in plan and "ANNSubIndex" in plan, plan
    assert_same_results(tmp_path, seed=2)
    # LanceDB's optimize() extends our index; ours extends it again and compacts it.
    theirs.add(data(NUM_ROWS, 50, 2, value_type))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs.optimize(cleanup_older_than=datetime.timedelta(0))
    stats = theirs.index_stats("vector_idx")
    assert (stats.num_indexed_rows, stats.num_unindexed_rows) == (NUM_ROWS + 50, 0)
    assert_same_results(tmp_path, seed=3, refine=False)
    ours = lancedb_cpp.connect(tmp_path).open_table("t")
    ours.add(data(NUM_ROWS + 50, 50, 3, value_type))
    ours.delete("id % 5 = 0")
    ours.optimize()
    stats = real_lancedb.connect(tmp_path).open_table("t").index_stats("vector_idx")
    assert (stats.num_indexed_rows, stats.num_unindexed_rows) == ((NUM_ROWS + 100) * 4 // 5, 0)
    assert_same_results(tmp_path, seed=4, refine=False)


@pytest.mark.parametrize("value_type", VALUE_TYPES, ids=str)
@pytest.mark.parametrize("index_type", TYPES)
def test_our_files_have_lancedbs_layout(tmp_path, index_type, value_type):
    ours = lancedb_cpp.connect(tmp_path / "ours").create_table("t", data(0, NUM_ROWS, 1,
                                                                        value_type))  # fmt: skip
    ours.create_index("vector", config=config(cpp_index, index_type))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = real_lancedb.connect(tmp_path / "theirs").create_table(
            "t", data(0, NUM_ROWS, 1, value_type))
        theirs.create_index("vector", config=config(real_index, index_type, seed=None))
    assert file_layout(index_dir(tmp_path / "ours")) == file_layout(index_dir(tmp_path / "theirs"))


@pytest.mark.parametrize("index_type", TYPES)
def test_seeded_builds_write_identical_files(tmp_path, index_type):
    for name in ("a", "b"):
        table = lancedb_cpp.connect(tmp_path / name).create_table(
            "t", data(0, NUM_ROWS, 1, pa.float32()))
        table.create_index("vector", config=config(cpp_index, index_type, seed=9))
    assert index_files(tmp_path / "a") == index_files(tmp_path / "b")


@pytest.mark.parametrize("index_type", TYPES)
def test_lancedbs_index_searched_and_extended_as_lancedb(tmp_path, index_type):
    """LanceDB's multivector indices: ours searches them with LanceDB's results (an HNSW
    partition hands on each row once, the nearest of its vectors), and our optimize() extends
    and compacts them for LanceDB."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = real_lancedb.connect(tmp_path).create_table("t", data(0, NUM_ROWS, 1,
                                                                       pa.float32()))  # fmt: skip
        theirs.create_index("vector", config=config(real_index, index_type, seed=None))
    assert_same_results(tmp_path, seed=5)
    ours = lancedb_cpp.connect(tmp_path).open_table("t")
    ours.add(data(NUM_ROWS, 50, 2, pa.float32()))
    ours.delete("id % 7 = 0")
    ours.optimize()
    stats = real_lancedb.connect(tmp_path).open_table("t").index_stats("vector_idx")
    assert stats.num_unindexed_rows == 0
    assert stats.num_indexed_rows == sum(1 for i in range(NUM_ROWS + 50) if i % 7)
    assert_same_results(tmp_path, seed=6, refine=False)


def test_ef_below_the_rows_each_query_vector_fetches_is_an_error(tmp_path):
    """A multivector search fetches limit * 10 rows per query vector from an HNSW index: an ef
    below that is LanceDB's error, in both engines."""
    table = lancedb_cpp.connect(tmp_path).create_table("t", data(0, NUM_ROWS, 1, pa.float32()))
    table.create_index("vector", config=config(cpp_index, "IVF_HNSW_SQ"))
    theirs = real_lancedb.connect(tmp_path).open_table("t")
    for t in (table, theirs):
        with pytest.raises(RuntimeError, match="ef must be greater than or equal to k"):
            t.search(queries(7)[0], vector_column_name="vector").ef(40).limit(10).to_arrow()
        assert len(t.search(queries(7)[0], vector_column_name="vector").ef(100).limit(10)
                   .to_arrow()) == 10  # fmt: skip
