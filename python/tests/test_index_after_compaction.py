# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Vector indices in lancedb-cpp's own layout (indices on float64 columns) are not
remapped by a compaction: their partitions keep the rows' old addresses. Searches must
skip those rows (the rewritten fragments are scanned exactly) and optimize() must not fail on
them. Before the fix both raised "Row address ... does not exist". The Lance-layout ones
(IVF_PQ, IVF_HNSW_SQ, IVF_RQ on float32 columns) are remapped and must search alike."""

import numpy as np
import pyarrow as pa
import pytest

import lancedb_cpp

DIM = 16


def _table(tmp_path, dtype):
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((3000, DIM)).astype(dtype)
    db = lancedb_cpp.connect(tmp_path)
    table = db.create_table("t", pa.table({
        "id": np.arange(3000),
        "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), DIM),
    }))  # fmt: skip
    return table, vectors


@pytest.mark.parametrize("index_type,dtype", [("IVF_HNSW_SQ", np.float32), ("IVF_RQ", np.float32),
                                              ("IVF_PQ", np.float64), ("IVF_PQ", np.float32),
                                              ("IVF_HNSW_SQ", np.float64),
                                              ("IVF_RQ", np.float64)])  # fmt: skip
def test_search_and_optimize_after_compaction(tmp_path, index_type, dtype):
    table, vectors = _table(tmp_path, dtype)
    table.create_index(metric="l2", index_type=index_type, num_partitions=2, num_sub_vectors=4)
    table.delete("id % 5 = 0")
    table.optimize()  # compacts (materializing the deletes), then extends the index
    assert table.count_rows() == 2400
    for i in (1, 2, 3):
        got = table.search(vectors[i]).nprobes(2).refine_factor(50).limit(5).to_arrow()
        ids = got["id"].to_pylist()
        assert ids[0] == i
        assert all(x % 5 != 0 for x in ids)
    # Every live row is still found by an exact search through the query path.
    exact = table.search(vectors[7]).bypass_vector_index().limit(3).to_arrow()["id"].to_pylist()
    assert exact[0] == 7
    table.add(pa.table({"id": [5000], "vector": pa.FixedSizeListArray.from_arrays(
        pa.array(vectors[11].astype(dtype)), DIM)}))  # fmt: skip
    table.optimize()
    got = table.search(vectors[11]).nprobes(2).refine_factor(50).limit(2).to_arrow()
    assert sorted(got["id"].to_pylist()) == [11, 5000]
