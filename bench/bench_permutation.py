#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Permutation iteration throughput: lancedb-cpp's ``Permutation`` next to LanceDB's on the same
table and the same permutation.

Data: ROWS rows (`id` int64, `x` float64, `s` a 12–20 character string, `vector`
fixed_size_list<float32, 128>), seeded, written ONCE by LanceDB (its default 2.2 encodings);
both sides open that table. LanceDB builds the permutation (`split_random(ratios=[0.9, 0.1],
seed=42).shuffle(seed=7)`); lancedb-cpp reads the very same permutation table (its rows copied
into a lancedb-cpp in-memory table, base_version kept), so both read the same rows in the same
order, and the script checks that they do (the ids of every batch). Each measurement iterates
the first READ rows of split 0 (`iter(batch_size)`) into "arrow" RecordBatches and into "numpy"
(LanceDB's numpy format: a 2-D array per batch), at batch sizes 100 (the default) and 1024;
rows/s is READ / elapsed wall time, best of REPEATS, the two engines alternating; the CPU time
the process used (all its threads) per row is reported too, a steadier figure on a shared
machine. The page cache is warm.
The build (`execute`) of the same permutation on both sides is timed too.

    python3 bench/bench_permutation.py [--rows 1000000] [--read 200000] [--repeats 2]
"""

import argparse
import os
import pathlib
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa

ROOT = pathlib.Path(__file__).resolve().parent.parent


def make_data(rows: int) -> pa.Table:
    rng = np.random.default_rng(16)
    lengths = rng.integers(12, 21, rows)
    offsets = np.zeros(rows + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    pool = rng.integers(ord("a"), ord("z") + 1, int(offsets[-1]), dtype=np.uint8)
    strings = pa.StringArray.from_buffers(rows, pa.py_buffer(offsets), pa.py_buffer(pool))
    vectors = rng.standard_normal(rows * 128, dtype=np.float32)
    return pa.table({
        "id": pa.array(np.arange(rows, dtype=np.int64)),
        "x": pa.array(rng.standard_normal(rows)),
        "s": strings,
        "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors), 128),
    })  # fmt: skip


def iterate(permutation, fmt: str, batch_size: int, read: int):
    """Iterate `read` rows; (wall seconds, CPU seconds of the process, ids read in order)."""
    p = permutation.with_take(read).with_format(fmt)
    ids = []
    start, cpu_start = time.perf_counter(), time.process_time()
    for batch in p.iter(batch_size):
        ids.append(batch.column(0).to_numpy() if fmt == "arrow" else batch[:, 0])
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    return elapsed, cpu, np.concatenate(ids).astype(np.int64)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--read", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()

    sys.path.insert(0, str(ROOT / "python"))
    os.chdir(tempfile.gettempdir())  # `import lancedb` must not see the repository's python/
    import lancedb
    import lancedb_cpp
    from lancedb.permutation import Permutation as TheirPermutation
    from lancedb.permutation import permutation_builder as their_builder
    from lancedb_cpp._permutation_pickle import memory_table
    from lancedb_cpp.permutation import Permutation as OurPermutation
    from lancedb_cpp.permutation import permutation_builder as our_builder

    print(f"lancedb {lancedb.__version__}; lancedb_cpp from {lancedb_cpp.__file__}")
    print(f"load average at start: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        their_table = lancedb.connect(tmp).create_table("t", make_data(args.rows))
        print(f"wrote {args.rows} rows with LanceDB in {time.perf_counter() - start:.1f} s")
        our_table = lancedb_cpp.connect(tmp).open_table("t")
        our_table.to_arrow()  # warm the page cache

        def build(builder, table):
            start = time.perf_counter()
            perm = builder(table).split_random(ratios=[0.9, 0.1], seed=42).shuffle(seed=7)
            return perm.execute(), time.perf_counter() - start

        build_times = {"lancedb-cpp": [], "LanceDB": []}
        for _ in range(args.repeats):
            build_times["lancedb-cpp"].append(build(our_builder, our_table)[1])
            their_perm_table, seconds = build(their_builder, their_table)
            build_times["LanceDB"].append(seconds)
        print("build (execute), best of", args.repeats, "s:",
              {k: round(min(v), 3) for k, v in build_times.items()})

        perm_data = their_perm_table.to_arrow()
        ours = OurPermutation.from_tables(our_table, memory_table("permutation", perm_data), 0)
        theirs = TheirPermutation.from_tables(their_table, their_perm_table, 0)
        read = min(args.read, ours.num_rows)
        print(f"split 0: {ours.num_rows} rows; reading the first {read}")
        print()
        print("| format | batch size | lancedb-cpp rows/s | LanceDB rows/s | ratio "
              "| lancedb-cpp CPU µs/row | LanceDB CPU µs/row | CPU ratio |")
        print("|---|---|---|---|---|---|---|---|")
        engines = ("lancedb-cpp", "LanceDB")
        for fmt in ("arrow", "numpy"):
            for batch_size in (100, 1024):
                wall = {e: float("inf") for e in engines}
                cpu = {e: float("inf") for e in engines}
                for _ in range(args.repeats):
                    ours_s, ours_cpu, our_ids = iterate(ours, fmt, batch_size, read)
                    theirs_s, theirs_cpu, their_ids = iterate(theirs, fmt, batch_size, read)
                    if not np.array_equal(our_ids, their_ids):
                        raise SystemExit(f"{fmt}/{batch_size}: the engines read different rows")
                    for e, w, c in zip(engines, (ours_s, theirs_s), (ours_cpu, theirs_cpu)):
                        wall[e], cpu[e] = min(wall[e], w), min(cpu[e], c)
                rate = {e: read / wall[e] for e in engines}
                per_row = {e: cpu[e] / read * 1e6 for e in engines}
                print(f"| {fmt} | {batch_size} | {rate['lancedb-cpp']:,.0f} | "
                      f"{rate['LanceDB']:,.0f} | {rate['lancedb-cpp'] / rate['LanceDB']:.2f}× | "
                      f"{per_row['lancedb-cpp']:.1f} | {per_row['LanceDB']:.1f} | "
                      f"{per_row['LanceDB'] / per_row['lancedb-cpp']:.2f}× |", flush=True)
    print()
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
