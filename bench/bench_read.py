#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Read throughput of lancedb-cpp next to pylance on the same LanceDB-written files.

Data: ROWS rows shaped like the fixture types_22.lance (ints, floats, bool, low/high-cardinality
and ~400-byte strings, nullable columns, fsl<f32,32>, fsl<f32,128>, list<int32>,
struct<a int32, b string>, timestamp[us], date32), seeded, written ONCE with
`lance.write_dataset` (LanceDB's default 2.2 encodings). Both sides then read those files:
full scan, projected scan of two columns, and take of TAKE random rows by offset (lancedb-cpp
also takes the same rows by row id: the table is one fragment without deletions, so the row id
of offset i is i; this leaves out lancedb-cpp's mapping of offsets to row addresses).
lancedb-cpp is timed by bench/read_bench (C++ API); pylance by to_table / take. Each side
reports its best of REPEATS runs; the page cache is warm for both.

    python3 bench/bench_read.py [--rows 1000000] [--repeats 3]
"""

import argparse
import json
import os
import pathlib
import subprocess
import tempfile
import time

import lance
import numpy as np
import pyarrow as pa

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROJECTED = ["i64_rand", "str_high"]
TAKE = 100


def strings_from_pool(rng, rows, lo, hi):
    """`rows` random-length [lo, hi) lowercase strings sliced from one random byte pool."""
    lengths = rng.integers(lo, hi, rows, dtype=np.int64)
    offsets = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    pool = rng.integers(ord("a"), ord("z") + 1, int(offsets[-1]), dtype=np.uint8)
    return pa.LargeStringArray.from_buffers(rows, pa.py_buffer(offsets), pa.py_buffer(pool)
                                            ).cast(pa.string())


def make_data(rows: int) -> pa.Table:
    rng = np.random.default_rng(22)
    valid = rng.random(rows) >= 0.1
    words = np.array(["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"])
    list_lens = rng.integers(0, 6, rows, dtype=np.int32)
    list_offsets = np.zeros(rows + 1, dtype=np.int32)
    np.cumsum(list_lens, out=list_offsets[1:])
    list_valid = rng.random(rows) >= 0.05
    high = strings_from_pool(rng, rows, 8, 24)
    return pa.table({
        "i32": pa.array(rng.integers(-1000, 1000, rows, dtype=np.int32)),
        "i64_seq": pa.array(np.arange(rows, dtype=np.int64)),
        "i64_rand": pa.array(rng.integers(-2**62, 2**62, rows, dtype=np.int64)),
        "f32": pa.array(rng.standard_normal(rows, dtype=np.float32)),
        "f64": pa.array(rng.standard_normal(rows)),
        "bool": pa.array(rng.random(rows) < 0.5),
        "str_low": pa.array(words[rng.integers(0, len(words), rows)], pa.string()),
        "str_high": high,
        "str_long": strings_from_pool(rng, rows, 300, 500),
        "nullable_i64": pa.array(rng.integers(0, 1 << 40, rows, dtype=np.int64), mask=~valid),
        "nullable_str": pa.array(words[rng.integers(0, len(words), rows)], pa.string(),
                                 mask=~valid),
        "vec32": pa.FixedSizeListArray.from_arrays(
            pa.array(rng.standard_normal(rows * 32, dtype=np.float32)), 32),
        "vec128": pa.FixedSizeListArray.from_arrays(
            pa.array(rng.standard_normal(rows * 128, dtype=np.float32)), 128),
        "list_i32": pa.ListArray.from_arrays(
            pa.array(list_offsets),
            pa.array(rng.integers(0, 1 << 20, int(list_offsets[-1]), dtype=np.int32)),
            mask=pa.array(~list_valid)),
        "struct": pa.StructArray.from_arrays(
            [pa.array(rng.integers(0, 1 << 30, rows, dtype=np.int32)),
             pa.array(words[rng.integers(0, len(words), rows)], pa.string())], ["a", "b"]),
        "ts": pa.array(1_700_000_000_000_000 + np.arange(rows, dtype=np.int64) * 1_000_003,
                       pa.timestamp("us")),
        "date": pa.array(19000 + rng.integers(0, 3650, rows, dtype=np.int32), pa.date32()),
    })


def bench_pylance(uri: str, rows: int, offsets, repeats: int):
    ds = lance.dataset(uri)
    best = {"full_s": float("inf"), "proj_s": float("inf"), "take_s": float("inf")}
    for _ in range(repeats):
        start = time.perf_counter()
        t = ds.to_table()
        best["full_s"] = min(best["full_s"], time.perf_counter() - start)
        assert t.num_rows == rows
        del t
        start = time.perf_counter()
        t = ds.to_table(columns=PROJECTED)
        best["proj_s"] = min(best["proj_s"], time.perf_counter() - start)
        assert t.num_rows == rows
        start = time.perf_counter()
        t = ds.take(offsets)
        best["take_s"] = min(best["take_s"], time.perf_counter() - start)
        assert t.num_rows == len(offsets)
    return best


def bench_cpp(db: pathlib.Path, rows: int, offsets, repeats: int, build: pathlib.Path):
    exe = build / "bench" / "read_bench"
    cmd = [str(exe), str(db), "bench", str(repeats), ",".join(PROJECTED),
           ",".join(str(o) for o in offsets)]
    result = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    assert result["full_rows"] == rows and result["proj_rows"] == rows
    assert result["take_rows"] == len(offsets) and result["take_id_rows"] == len(offsets)
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--build", default=os.environ.get("LANCEDB_BUILD_DIR", ROOT / "build"))
    args = parser.parse_args()

    table = make_data(args.rows)
    full_mb = table.nbytes / 1e6
    proj_mb = table.select(PROJECTED).nbytes / 1e6
    offsets = sorted(np.random.default_rng(7).choice(args.rows, TAKE, replace=False).tolist())
    with tempfile.TemporaryDirectory(dir=ROOT / "bench") as tmp:
        db = pathlib.Path(tmp)
        uri = str(db / "bench.lance")
        start = time.perf_counter()
        lance.write_dataset(table, uri)
        frags = lance.dataset(uri).get_fragments()
        assert len(frags) == 1 and frags[0].fragment_id == 0  # row id of offset i is i
        write_s = time.perf_counter() - start
        disk_mb = sum(f.stat().st_size for f in db.rglob("*") if f.is_file()) / 1e6
        del table
        cpp = bench_cpp(db, args.rows, offsets, args.repeats, pathlib.Path(args.build))
        py = bench_pylance(uri, args.rows, offsets, args.repeats)

    print(f"data: {args.rows} rows, 17 columns (types_22-like), {full_mb:.1f} MB in memory, "
          f"{disk_mb:.1f} MB on disk (pylance write {write_s:.1f} s); projected "
          f"{PROJECTED} = {proj_mb:.1f} MB; best of {args.repeats}")
    print(f"{'':22}{'lancedb-cpp':>14}{'pylance':>14}{'ratio':>10}")
    for name, key, mb in [("full scan", "full_s", full_mb), ("projected scan", "proj_s", proj_mb)]:
        c, p = cpp[key], py[key]
        print(f"{name + ' rows/s':22}{args.rows / c:14,.0f}{args.rows / p:14,.0f}"
              f"{p / c:9.2f}x")
        print(f"{name + ' MB/s':22}{mb / c:14,.0f}{mb / p:14,.0f}{p / c:9.2f}x")
    c, p = cpp["take_s"] * 1e3, py["take_s"] * 1e3
    print(f"{'take 100 rows ms':22}{c:14.2f}{p:14.2f}{c / p:9.2f}x  (lower is better)")
    c = cpp["take_ids_s"] * 1e3
    print(f"{'  same rows by row id':22}{c:14.2f}{p:14.2f}{c / p:9.2f}x  (lower is better)")
    print(f"{'open table ms (cpp)':22}{cpp['open_s'] * 1e3:14.2f}")


if __name__ == "__main__":
    main()
