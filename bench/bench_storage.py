#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Write and full-scan throughput of lancedb-cpp next to pylance, on the same data, in one run.

Data: ROWS rows of (id int64, vector fixed_size_list<float32, 128>, text short utf8), seeded.
lancedb-cpp is timed by bench/storage_bench (C++ API); pylance by write_dataset / to_table.
Each side reports its best of REPEATS runs; peak RSS is the process high-water mark.

    python3 bench/bench_storage.py [--rows 1000000] [--repeats 3]
"""

import argparse
import json
import os
import pathlib
import resource
import shutil
import subprocess
import tempfile
import time

import lance
import numpy as np
import pyarrow as pa

ROOT = pathlib.Path(__file__).resolve().parent.parent


def make_data(rows: int) -> pa.Table:
    rng = np.random.default_rng(42)
    vectors = rng.standard_normal((rows, 128), dtype=np.float32)
    words = np.array(["red", "green", "blue", "cyan", "magenta", "yellow"])
    text = [f"{w}-{i}" for i, w in enumerate(words[rng.integers(0, len(words), rows)])]
    return pa.table({
        "id": pa.array(np.arange(rows, dtype=np.int64)),
        "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1)), 128),
        "text": pa.array(text, pa.string()),
    })


def bench_pylance(table: pa.Table, work: pathlib.Path, repeats: int):
    best_write = best_scan = float("inf")
    for _ in range(repeats):
        uri = work / "pylance.lance"
        shutil.rmtree(uri, ignore_errors=True)
        start = time.perf_counter()
        lance.write_dataset(table, str(uri))
        best_write = min(best_write, time.perf_counter() - start)
        start = time.perf_counter()
        rows = 0
        for batch in lance.dataset(str(uri)).to_batches(batch_size=65536):
            rows += batch.num_rows
        best_scan = min(best_scan, time.perf_counter() - start)
        assert rows == table.num_rows
    return best_write, best_scan


def bench_cpp(table: pa.Table, work: pathlib.Path, repeats: int, build: pathlib.Path):
    ipc = work / "input.arrows"
    with pa.OSFile(str(ipc), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as w:
        for batch in table.to_batches(max_chunksize=65536):
            w.write_batch(batch)
    exe = build / "bench" / "storage_bench"
    cmd = ["/usr/bin/time", "-f", "%M", str(exe), str(ipc), str(work / "cppdb"), str(repeats)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    result = json.loads(proc.stdout)
    peak_kb = int(proc.stderr.strip().splitlines()[-1])
    return result["write_s"], result["scan_s"], peak_kb


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--build", default=os.environ.get("LANCEDB_BUILD_DIR", ROOT / "build"))
    args = parser.parse_args()

    table = make_data(args.rows)
    nbytes = table.nbytes
    with tempfile.TemporaryDirectory(dir=ROOT / "bench") as tmp:
        work = pathlib.Path(tmp)
        cpp_write, cpp_scan, cpp_peak_kb = bench_cpp(table, work, args.repeats,
                                                     pathlib.Path(args.build))
        base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        py_write, py_scan = bench_pylance(table, work, args.repeats)
        py_peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    mb = nbytes / 1e6
    print(f"data: {args.rows} rows, {mb:.1f} MB in memory (id int64, vector fsl<f32,128>, text)")
    print(f"{'':18}{'lancedb-cpp':>16}{'pylance':>16}{'ratio':>10}")
    for name, c, p in [("write rows/s", args.rows / cpp_write, args.rows / py_write),
                       ("write MB/s", mb / cpp_write, mb / py_write),
                       ("scan rows/s", args.rows / cpp_scan, args.rows / py_scan),
                       ("scan MB/s", mb / cpp_scan, mb / py_scan)]:
        print(f"{name:18}{c:16,.0f}{p:16,.0f}{c / p:10.2f}x")
    print(f"{'peak RSS MB':18}{cpp_peak_kb / 1024:16,.0f}{py_peak_kb / 1024:16,.0f}"
          f"   (pylance process includes the input table; baseline {base_rss / 1024:,.0f} MB)")


if __name__ == "__main__":
    main()
