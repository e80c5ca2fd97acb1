# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Tables on S3: lancedb-cpp next to LanceDB (pylance underneath) on one local S3-compatible
server (issue 28). Both engines run the same operations on their own table in one bucket:
write, open, full scan, take of 100 rows, a filtered scan and an IVF_PQ vector search, each on a
new connection (cold: nothing cached) and again on a handle that ran it before (warm). Every
request goes through a counting proxy (python/tests/s3_proxy.py) in front of moto's server
(python/tests/s3_server.py), so the figures are requests per operation and wall time; the
proxy and moto are in Python, so times are dominated by their per-request cost, like a
high-latency store. Not a test: it prints, it asserts nothing.

    python3 bench/bench_s3.py [--rows 100000] [--dim 32] [--repeat 3]
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time
import uuid
import warnings

import numpy as np
import pyarrow as pa

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python", "tests"))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import s3_proxy  # noqa: E402
import s3_server  # noqa: E402


class CountingProxy(s3_proxy.FaultProxy):
    """The proxy, counting requests by method."""

    def __init__(self, upstream):
        super().__init__(upstream)
        self.by_method = collections.Counter()
        handler = self.server.RequestHandlerClass
        forward = handler._handle
        proxy = self

        def counted(request):
            with proxy._lock:
                proxy.by_method[request.command] += 1
            return forward(request)

        handler.do_GET = handler.do_PUT = handler.do_POST = counted
        handler.do_DELETE = handler.do_HEAD = counted

    def take(self):
        with self._lock:
            counts = dict(self.by_method)
            self.by_method.clear()
        return counts


def data(rows, dim, seed=0):
    rng = np.random.default_rng(seed)
    return pa.table({
        "id": pa.array(np.arange(rows, dtype=np.int64)),
        "vector": pa.FixedSizeListArray.from_arrays(
            pa.array(rng.random(rows * dim, dtype=np.float32)), dim),
        "text": pa.array([f"row {i}" for i in range(rows)]),
    })


def run_engine(module, uri, options, table, proxy, repeat, dim):
    """Request counts and best time (s) of each operation."""
    results = {}

    def measure(name, fn, runs=repeat):
        best, counts = None, None
        for _ in range(runs):
            proxy.take()
            start = time.perf_counter()
            fn()
            elapsed = time.perf_counter() - start
            got = proxy.take()
            if best is None or elapsed < best:
                best, counts = elapsed, got
        results[name] = (sum(counts.values()), counts, best)

    def measure_cold(name, op):
        """`op` on a table handle of a new connection (opened untimed): nothing cached."""
        best, counts = None, None
        for _ in range(repeat):
            fresh = module.connect(uri, storage_options=options).open_table("t")
            proxy.take()
            start = time.perf_counter()
            op(fresh)
            elapsed = time.perf_counter() - start
            got = proxy.take()
            if best is None or elapsed < best:
                best, counts = elapsed, got
        results[name] = (sum(counts.values()), counts, best)

    db = module.connect(uri, storage_options=options)
    measure("write", lambda: db.create_table("t", table, mode="overwrite"), runs=1)
    measure("open", lambda: module.connect(uri, storage_options=options).open_table("t"))
    handle = module.connect(uri, storage_options=options).open_table("t")
    offsets = list(range(0, table.num_rows, max(1, table.num_rows // 100)))[:100]
    measure_cold("full scan (cold)", lambda h: h.to_arrow())
    measure_cold("take 100 (cold)", lambda h: h.take_offsets(offsets).to_arrow())
    measure_cold("filtered scan (cold)",
                 lambda h: h.search().where("id % 997 = 5").limit(None).to_arrow())
    handle.to_arrow()
    measure("full scan (warm)", lambda: handle.to_arrow())
    measure("take 100 (warm)", lambda: handle.take_offsets(offsets).to_arrow())
    measure("filtered scan (warm)",
            lambda: handle.search().where("id % 997 = 5").limit(None).to_arrow())
    measure("create IVF_PQ", lambda: handle.create_index(
        metric="l2", num_partitions=16, num_sub_vectors=dim // 8, vector_column_name="vector"),
        runs=1)
    query = np.random.default_rng(1).random(dim, dtype=np.float32)
    measure_cold("vector search (cold)", lambda h: h.search(query).limit(10).nprobes(4).to_arrow())
    fresh = module.connect(uri, storage_options=options).open_table("t")
    fresh.search(query).limit(10).nprobes(4).to_arrow()
    measure("vector search (warm)", lambda: fresh.search(query).limit(10).nprobes(4).to_arrow())
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    import lancedb
    import lancedb_cpp

    server = s3_server.start_server()
    try:
        bucket = "bench-" + uuid.uuid4().hex[:12]
        server.client().create_bucket(Bucket=bucket)
        table = data(args.rows, args.dim)
        with CountingProxy(server.endpoint) as proxy:
            options = {
                "aws_access_key_id": s3_server.ACCESS_KEY,
                "aws_secret_access_key": s3_server.SECRET_KEY,
                "aws_region": s3_server.REGION,
                "aws_endpoint": proxy.endpoint,
                "allow_http": "true",
            }
            ours = run_engine(lancedb_cpp, f"s3://{bucket}/cpp", options, table, proxy,
                              args.repeat, args.dim)
            theirs = run_engine(lancedb, f"s3://{bucket}/lancedb", options, table, proxy,
                                args.repeat, args.dim)
    finally:
        server.process.terminate()
    print(f"{args.rows} rows x (id, vector[{args.dim}], text); best of {args.repeat} where "
          "repeated")
    print(f"{'operation':24} {'requests: cpp':>14} {'LanceDB':>8} {'time: cpp':>11} "
          f"{'LanceDB':>9} {'ratio':>6}")
    for name in ours:
        (n_ours, c_ours, t_ours), (n_theirs, c_theirs, t_theirs) = ours[name], theirs[name]
        print(f"{name:24} {n_ours:>14} {n_theirs:>8} {t_ours * 1000:>9.1f}ms "
              f"{t_theirs * 1000:>7.1f}ms {t_theirs / t_ours:>5.2f}x   "
              f"cpp {dict(sorted(c_ours.items()))}  LanceDB {dict(sorted(c_theirs.items()))}")


if __name__ == "__main__":
    main()
