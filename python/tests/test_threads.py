# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""One table object used from many Python threads at once."""

from concurrent.futures import ThreadPoolExecutor

import pyarrow as pa


def test_concurrent_deletes_from_eight_threads(db):
    t = db.create_table("t", [{"id": i} for i in range(8)])
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda i: t.delete(f"id = {i}"), range(8)))
    assert sorted(r.version for r in results) == list(range(2, 10))
    assert all(r.num_deleted_rows == 1 for r in results)
    t.checkout_latest()
    assert len(t) == 0 and t.version == 9


def test_concurrent_adds_and_reads(db):
    t = db.create_table("t", pa.table({"id": pa.array([0], pa.int64())}))

    def work(i):
        t.add(pa.table({"id": pa.array([i], pa.int64())}))
        return t.to_arrow().num_rows, len(t.search().limit(1).to_list())

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(work, range(1, 17)))
    assert all(rows >= 1 and head == 1 for rows, head in results)
    t.checkout_latest()
    assert t.version == 17
    assert sorted(t.to_arrow().column("id").to_pylist()) == list(range(17))
