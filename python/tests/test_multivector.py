# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Multivector (late interaction, MaxSim) columns: ``list<fixed_size_list<float>>`` searched
with a list of query vectors, exactly and through IVF indices over the row vectors, compared
with the real LanceDB on the same tables and with a numpy brute force."""

import asyncio

import numpy as np
import pyarrow as pa
import pytest

import lancedb_cpp

DIM = 8


def _mv_type(value_type=pa.float32(), dim=DIM):
    return pa.list_(pa.list_(value_type, dim))


def _rows(n=400, seed=0, topics=0, dim=DIM):
    """Rows of 1 to 4 vectors; with `topics`, each row's vectors lie near one of `topics`
    centres (clustered data), else they are standard normal."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((max(topics, 1), dim)).astype(np.float32) * 3
    rows = []
    for _ in range(n):
        k = int(rng.integers(1, 5))
        base = centres[int(rng.integers(topics))] if topics else 0.0
        rows.append((base + rng.standard_normal((k, dim))).astype(np.float32))
    return rows


def _table_data(rows, value_type=pa.float32(), dim=DIM):
    return pa.table(
        {
            "id": pa.array(np.arange(len(rows), dtype=np.int64)),
            "vector": pa.array([r.tolist() for r in rows], type=_mv_type(value_type, dim)),
            "single": pa.array(
                [r[0].tolist() for r in rows], type=pa.list_(pa.float32(), dim)
            ),
        }
    )


def _brute_force(rows, query, metric, k):
    """(ids, distances) of the k nearest rows: the sum over the query vectors of the distance
    to the row's nearest vector (LanceDB's units: l2 squared, 1 - cos, 1 - x.y)."""
    q = np.asarray(query, dtype=np.float64)
    out = []
    for r in rows:
        r = np.asarray(r, dtype=np.float64)
        if metric == "l2":
            d = ((q[:, None, :] - r[None, :, :]) ** 2).sum(-1)
        elif metric == "dot":
            d = 1 - q @ r.T
        else:
            qn = q / np.linalg.norm(q, axis=1, keepdims=True)
            rn = r / np.linalg.norm(r, axis=1, keepdims=True)
            d = 1 - qn @ rn.T
        out.append(d.min(axis=1).sum())
    out = np.array(out)
    order = np.argsort(out, kind="stable")[:k]
    return order.tolist(), out[order]


@pytest.fixture
def pair(both):
    db, oracle = both
    rows = _rows()
    data = _table_data(rows)
    return rows, db.create_table("t", data), oracle.create_table("t", data)


def _same(ours, theirs):
    a, b = ours.to_arrow(), theirs.to_arrow()
    assert a.schema == b.schema
    assert a["id"].to_pylist() == b["id"].to_pylist()
    np.testing.assert_allclose(
        a["_distance"].to_numpy(), b["_distance"].to_numpy(), rtol=1e-4, atol=1e-4
    )
    return a


@pytest.mark.parametrize("metric", ["l2", "cosine", "dot"])
def test_flat_search_matches_lancedb_and_brute_force(pair, metric):
    rows, ours, theirs = pair
    query = np.random.default_rng(7).standard_normal((3, DIM)).astype(np.float32)
    for q in (query, query.tolist(), [v for v in query]):
        got = _same(
            ours.search(q, vector_column_name="vector").distance_type(metric).limit(10),
            theirs.search(q, vector_column_name="vector").distance_type(metric).limit(10),
        )
    assert "query_index" not in got.column_names  # the vectors are one query
    ids, distances = _brute_force(rows, query, metric, 10)
    assert got["id"].to_pylist() == ids
    np.testing.assert_allclose(got["_distance"].to_numpy(), distances, rtol=1e-4, atol=1e-4)


def test_single_vector_query_on_a_multivector_column(pair):
    rows, ours, theirs = pair
    q = rows[42][0]
    got = _same(
        ours.search(q, vector_column_name="vector").limit(5),
        theirs.search(q, vector_column_name="vector").limit(5),
    )
    assert got["id"][0].as_py() == 42
    assert got["_distance"][0].as_py() == pytest.approx(0.0, abs=1e-4)


def test_filters_selection_and_row_ids(pair):
    rows, ours, theirs = pair
    q = np.random.default_rng(8).standard_normal((2, DIM)).astype(np.float32)
    for post in (False, True):
        _same(
            ours.search(q, vector_column_name="vector")
            .where("id % 3 = 0", prefilter=not post)
            .select(["id"])
            .with_row_id(True)
            .limit(7),
            theirs.search(q, vector_column_name="vector")
            .where("id % 3 = 0", prefilter=not post)
            .select(["id"])
            .with_row_id(True)
            .limit(7),
        )


@pytest.mark.parametrize("value_type", [pa.float16(), pa.float64()])
def test_half_and_double_columns(both, value_type):
    db, oracle = both
    rows = _rows(200, seed=3)
    data = _table_data(rows, value_type)
    ours, theirs = db.create_table("t", data), oracle.create_table("t", data)
    q = np.random.default_rng(4).standard_normal((2, DIM)).astype(np.float32)
    _same(
        ours.search(q, vector_column_name="vector").distance_type("cosine"),
        theirs.search(q, vector_column_name="vector").distance_type("cosine"),
    )


def test_several_vectors_on_a_single_vector_column_are_a_batch(pair):
    # As LanceDB: against a single-vector column a list of vectors is a batch query.
    _, ours, theirs = pair
    q = np.random.default_rng(5).standard_normal((2, DIM)).astype(np.float32)
    a = ours.search(q, vector_column_name="single").limit(3).to_arrow()
    b = theirs.search(q, vector_column_name="single").limit(3).to_arrow()
    assert a.column_names == b.column_names
    assert a["query_index"].to_pylist() == b["query_index"].to_pylist()
    assert a["id"].to_pylist() == b["id"].to_pylist()


@pytest.mark.parametrize("index_type", ["IVF_FLAT", "IVF_PQ"])
def test_index_search_matches_lancedb(pair, index_type):
    # Probing every partition, an IVF_FLAT index gives each query vector its exact nearest
    # row vectors: the candidates and their MaxSim scores (estimated as LanceDB does for the
    # rows a query vector did not fetch) are then the same in both engines.
    rows, ours, theirs = pair
    for t in (ours, theirs):
        t.create_index(
            vector_column_name="vector", metric="cosine", index_type=index_type,
            num_partitions=4, num_sub_vectors=2,
        )
        assert t.list_indices()[0].index_type == index_type.title().replace("_", "")
        assert t.index_stats("vector_idx").num_indexed_rows == len(rows)
    q = np.random.default_rng(6).standard_normal((3, DIM)).astype(np.float32)
    if index_type == "IVF_FLAT":
        _same(
            ours.search(q, vector_column_name="vector").nprobes(4).limit(10),
            theirs.search(q, vector_column_name="vector").nprobes(4).limit(10),
        )
    # With a refine factor the distances are exact MaxSim distances.
    got = (
        ours.search(q, vector_column_name="vector").nprobes(4).refine_factor(5).limit(5).to_arrow()
    )
    ids, distances = _brute_force(rows, q, "cosine", len(rows))
    exact = dict(zip(ids, distances))
    np.testing.assert_allclose(
        got["_distance"].to_numpy(), [exact[i] for i in got["id"].to_pylist()], atol=1e-4
    )


@pytest.mark.parametrize("index_type", ["IVF_FLAT", "IVF_RQ"])
def test_lancedb_index_is_read(oracle, tmp_path, index_type):
    # A table LanceDB indexed (over the row vectors) searched by lancedb_cpp.
    rows = _rows(300, seed=11)
    theirs = oracle.create_table("t", _table_data(rows))
    theirs.create_index(
        vector_column_name="vector", metric="cosine", index_type=index_type, num_partitions=4
    )
    ours = lancedb_cpp.connect(tmp_path / "oracle").open_table("t")
    q = np.random.default_rng(12).standard_normal((2, DIM)).astype(np.float32)
    _same(
        ours.search(q, vector_column_name="vector").nprobes(4),
        theirs.search(q, vector_column_name="vector").nprobes(4),
    )


@pytest.mark.parametrize(
    "index_type,refine_factor",
    [("IVF_FLAT", None), ("IVF_SQ", None), ("IVF_HNSW_SQ", None), ("IVF_PQ", 2)],
)
def test_indexed_recall_on_clustered_data(db, index_type, refine_factor):
    # PQ's approximate distances need a few exact re-scores (LanceDB's recall here is the
    # same: about 0.83 without, 0.98 with refine_factor 2).
    dim = 32
    rows = _rows(2000, seed=0, topics=16, dim=dim)
    table = db.create_table("t", _table_data(rows, dim=dim))
    table.create_index(
        vector_column_name="vector", metric="cosine", index_type=index_type,
        num_partitions=8, num_sub_vectors=16 if index_type == "IVF_PQ" else None, seed=1,
    )
    rng = np.random.default_rng(9)
    hits = 0
    for _ in range(20):
        row = rows[int(rng.integers(len(rows)))]
        q = (row + 0.3 * rng.standard_normal(row.shape)).astype(np.float32)
        search = table.search(q, vector_column_name="vector").limit(10)
        if refine_factor:
            search = search.refine_factor(refine_factor)
        found = set(search.to_arrow()["id"].to_pylist())
        hits += len(found & set(_brute_force(rows, q, "cosine", 10)[0]))
    assert hits / 200 >= 0.9, hits / 200


def test_rows_appended_after_the_index(pair):
    rows, ours, _ = pair
    ours.create_index(
        vector_column_name="vector", metric="cosine", index_type="IVF_FLAT", num_partitions=4,
        seed=1,
    )
    extra = _rows(20, seed=21)
    ours.add(
        pa.table(
            {
                "id": pa.array(np.arange(1000, 1020, dtype=np.int64)),
                "vector": pa.array([r.tolist() for r in extra], type=_mv_type()),
                "single": pa.array(
                    [r[0].tolist() for r in extra], type=pa.list_(pa.float32(), DIM)
                ),
            }
        )
    )
    assert ours.index_stats("vector_idx").num_unindexed_rows == 20
    got = ours.search(extra[3], vector_column_name="vector").limit(3).to_arrow()
    assert got["id"][0].as_py() == 1003
    assert got["_distance"][0].as_py() == pytest.approx(0.0, abs=1e-4)
    fast = ours.search(extra[3], vector_column_name="vector").fast_search().limit(3).to_arrow()
    assert all(i < 1000 for i in fast["id"].to_pylist())


def test_errors_match_lancedb(pair):
    _, ours, theirs = pair
    for t in (ours, theirs):
        # Multivector indices are cosine only (LanceDB raises a RuntimeError); nothing is built.
        for metric in ("l2", "dot"):
            with pytest.raises(RuntimeError, match="multivector type supports only cosine"):
                t.create_index(vector_column_name="vector", metric=metric, index_type="IVF_FLAT")
        assert t.list_indices() == []
        # A query vector of another dimension, or vectors of different dimensions.
        with pytest.raises(ValueError):
            t.search(np.zeros((2, DIM + 1), np.float32), vector_column_name="vector").to_arrow()
        with pytest.raises(ValueError):
            t.search([[1.0] * DIM, [1.0] * 3], vector_column_name="vector").to_arrow()
        with pytest.raises(ValueError):
            t.search(
                [1.0] * DIM, vector_column_name="vector"
            ).distance_type("hamming").to_arrow()


def test_async_api(tmp_path):
    import lancedb
    from lancedb.index import IvfPq as TheirIvfPq

    from lancedb_cpp.index import IvfPq

    rows = _rows(300, seed=13)
    q = np.random.default_rng(14).standard_normal((2, DIM)).astype(np.float32)

    async def run(mod, config, path):
        db = await mod.connect_async(path)
        table = await db.create_table("t", _table_data(rows))
        flat = await table.query().nearest_to(q).column("vector").limit(5).to_arrow()
        await table.create_index("vector", config=config)
        indexed = (
            await table.query().nearest_to(q).column("vector").refine_factor(10).limit(5).to_arrow()
        )
        return flat, indexed

    ours = asyncio.run(run(lancedb_cpp, IvfPq(distance_type="cosine", num_partitions=2,
                                                num_sub_vectors=2, seed=3), tmp_path / "a"))
    theirs = asyncio.run(run(lancedb, TheirIvfPq(distance_type="cosine", num_partitions=2,
                                                 num_sub_vectors=2), tmp_path / "b"))
    assert ours[0]["id"].to_pylist() == theirs[0]["id"].to_pylist()
    np.testing.assert_allclose(
        ours[0]["_distance"].to_numpy(), theirs[0]["_distance"].to_numpy(), atol=1e-4
    )
    # Refined: exact MaxSim distances, and (PQ candidates) nearly the exact top 5.
    ids, distances = _brute_force(rows, q, "cosine", len(rows))
    exact = dict(zip(ids, distances))
    got = ours[1]["id"].to_pylist()
    np.testing.assert_allclose(
        ours[1]["_distance"].to_numpy(), [exact[i] for i in got], atol=1e-4
    )
    assert len(set(got) & set(ids[:5])) >= 4


def test_lancedb_documented_example(both):
    # LanceDB's test_multivector: one vector, and the same vector twice (twice the distance).
    for mod_db in both:
        vector_data = [[[i, i + 1], [i + 2, i + 3]] for i in range(256)]
        table = mod_db.create_table(
            "mv", pa.table({"vector": pa.array(vector_data, type=_mv_type(dim=2)),
                            "id": pa.array(range(1, 257))})
        )
        table.create_index(metric="cosine", vector_column_name="vector", index_type="IVF_PQ",
                           num_partitions=1, num_sub_vectors=2)
        rs = table.search([1, 2]).to_arrow()
        rs2 = table.search([[1, 2], [1, 2]]).to_arrow()
        assert len(rs2) == len(rs)
        for i in range(2):
            assert rs2["_distance"][i].as_py() == pytest.approx(rs["_distance"][i].as_py() * 2)
        with pytest.raises(ValueError):
            table.search([1, 2, 3]).to_arrow()


@pytest.mark.parametrize("index_type", ["IVF_FLAT", "IVF_HNSW_SQ"])
def test_optimize_indices_adds_appended_rows(db, index_type):
    rows = _rows(400, seed=31)
    data = _table_data(rows)
    table = db.create_table("t", data.slice(0, 300))
    table.delete("id = 7")
    table.create_index(
        vector_column_name="vector", metric="cosine", index_type=index_type, num_partitions=4,
        seed=1,
    )
    table.add(data.slice(300))
    table.optimize_indices()
    stats = table.index_stats("vector_idx")
    assert (stats.num_indexed_rows, stats.num_unindexed_rows) == (399, 0)
    for i in (5, 350, 399):
        got = table.search(rows[i], vector_column_name="vector").fast_search().limit(1).to_arrow()
        assert got["id"].to_pylist() == [i]
        assert got["_distance"][0].as_py() == pytest.approx(0.0, abs=1e-3)


def test_distance_range_applies_to_row_distances(pair):
    _, ours, theirs = pair
    q = np.random.default_rng(15).standard_normal((3, DIM)).astype(np.float32)
    got = _same(
        ours.search(q, vector_column_name="vector").distance_type("cosine")
        .distance_range(1.0, 1.3).limit(5),
        theirs.search(q, vector_column_name="vector").distance_type("cosine")
        .distance_range(1.0, 1.3).limit(5),
    )
    assert len(got) > 0
    assert all(1.0 <= d < 1.3 for d in got["_distance"].to_pylist())


def test_stable_row_ids_deletes_and_updates(db):
    rows = _rows(300, seed=2)
    table = db.create_table(
        "t", _table_data(rows), storage_options={"new_table_enable_stable_row_ids": "true"}
    )
    table.create_index(
        vector_column_name="vector", metric="cosine", index_type="IVF_FLAT", num_partitions=4,
        seed=1,
    )
    table.delete("id = 3")
    table.update(where="id = 10", values={"id": 1010})  # moves the row to a new fragment
    got = table.search(rows[10], vector_column_name="vector").limit(1).with_row_id(True)
    got = got.to_arrow()
    assert got["id"].to_pylist() == [1010] and got["_rowid"].to_pylist() == [10]
    assert 3 not in table.search(rows[3], vector_column_name="vector").to_arrow()["id"].to_pylist()
    plan = table.search(rows[5], vector_column_name="vector").explain_plan(True)
    assert "MultivectorScoring" in plan and "ANNSubIndex" in plan


def test_uint8_multivectors_with_hamming(db):
    # LanceDB 0.39 fails on these ("Casting from FixedSizeList(4 x Float32) to UInt8"); we
    # search them exactly with hamming, checked against numpy.
    rng = np.random.default_rng(0)
    rows = [rng.integers(0, 256, (int(rng.integers(1, 4)), 4)).astype(np.uint8) for _ in range(100)]
    table = db.create_table(
        "t",
        pa.table(
            {
                "id": np.arange(100),
                "vector": pa.array(
                    [r.tolist() for r in rows], type=pa.list_(pa.list_(pa.uint8(), 4))
                ),
            }
        ),
    )
    q = rng.integers(0, 256, (2, 4)).astype(np.uint8)
    got = table.search(q).distance_type("hamming").limit(5).to_arrow()

    def bits(a, b):
        return int(np.unpackbits(np.bitwise_xor(a, b)).sum())

    expected = [sum(min(bits(x, v) for v in r) for x in q) for r in rows]
    order = np.argsort(expected, kind="stable")[:5]
    assert got["id"].to_pylist() == order.tolist()
    assert got["_distance"].to_pylist() == [expected[i] for i in order]
