#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""SQL filters: lancedb-cpp next to LanceDB on the same data (issue 3, filter pushdown).

Data: ROWS rows of (id int64 = 0..ROWS-1, price float64 uniform in [0, 1000), category utf8
'c0'..'c9' uniform, vector fixed_size_list<float32, 32>), seeded. LanceDB creates the table;
bench/sql_bench (C++ API) copies it into a table written by lancedb-cpp, whose files keep zone
statistics, and times both that table and LanceDB's files (no statistics: a plain scan).

Timed, best of REPEATS after one warm-up, for `price < X AND category = 'c3'` and a selective
`id = k`: count_rows(filter) and a filtered scan of every column to Arrow
(LanceDB: table.search().where(filter).limit(None).to_arrow()).

    python3 bench/bench_sql.py [--rows 1000000] [--repeats 5] [--bench build/bench/sql_bench]
"""

import argparse
import json
import os
import pathlib
import shutil
import subprocess
import tempfile
import time

import lancedb
import numpy as np
import pyarrow as pa

ROOT = pathlib.Path(__file__).resolve().parent.parent
DIM = 32


def make_data(rows: int) -> pa.Table:
    rng = np.random.default_rng(3)
    categories = np.array([f"c{i}" for i in range(10)])
    vectors = rng.standard_normal(rows * DIM, dtype=np.float32)
    return pa.table({
        "id": pa.array(np.arange(rows, dtype=np.int64)),
        "price": pa.array(rng.uniform(0, 1000, rows)),
        "category": pa.array(categories[rng.integers(0, 10, rows)], pa.string()),
        "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors), DIM),
    })


def best_of(fn, repeats: int):
    result = fn()  # warm-up
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--price", type=float, default=100.0, help="X in price < X")
    parser.add_argument("--bench", default=str(ROOT / "build" / "bench" / "sql_bench"))
    args = parser.parse_args()

    k = args.rows * 7 // 9
    filters = [f"price < {args.price:g} AND category = 'c3'", f"id = {k}"]
    workdir = tempfile.mkdtemp(prefix="bench_sql_")
    try:
        data = make_data(args.rows)
        start = time.perf_counter()
        table = lancedb.connect(os.path.join(workdir, "ldb")).create_table("t", data)
        ldb_write = time.perf_counter() - start
        load_before = os.getloadavg()[0]
        out = subprocess.run([args.bench, os.path.join(workdir, "ldb"), "t",
                              os.path.join(workdir, "cpp"), str(args.repeats), *filters],
                             check=True, capture_output=True, text=True)
        cpp = json.loads(out.stdout)
        print(f"rows {args.rows}, best of {args.repeats}, load {load_before:.1f}; create: "
              f"LanceDB {ldb_write:.2f} s, lancedb-cpp copy {cpp['write_s']:.2f} s")
        print(f"{'operation':<50} {'lancedb-cpp':>12} {'cpp, no stats':>14} {'LanceDB':>10} "
              f"{'ratio':>7}")
        for flt, res in zip(filters, cpp["filters"]):
            count_s, count = best_of(lambda f=flt: table.count_rows(f), args.repeats)
            scan_s, scan = best_of(
                lambda f=flt: table.search().where(f).limit(None).to_arrow(), args.repeats)
            if count != res["count"] or scan.num_rows != res["scan_rows"]:
                raise SystemExit(f"engines disagree on {flt}: LanceDB {count}/{scan.num_rows}, "
                                 f"lancedb-cpp {res['count']}/{res['scan_rows']}")
            for op, mine, raw, theirs, n in (
                    ("count_rows", res["count_s"], res["nostats_count_s"], count_s, count),
                    ("scan to arrow", res["scan_s"], res["nostats_scan_s"], scan_s,
                     scan.num_rows)):
                label = f"{op}({flt}) -> {n}"
                print(f"{label:<50} {mine * 1e3:>9.2f} ms {raw * 1e3:>11.2f} ms "
                      f"{theirs * 1e3:>7.2f} ms {mine / theirs:>7.3f}")
        print(f"load after: {os.getloadavg()[0]:.1f}; ratio = lancedb-cpp / LanceDB time "
              f"(target <= 0.333)")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
