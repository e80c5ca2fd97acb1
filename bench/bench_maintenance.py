#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Maintenance operations of lancedb-cpp next to LanceDB, on the same data, in one run.

  upsert:   merge_insert of UPSERT rows (half existing keys, half new) into a ROWS-row table
  compact:  compaction of FRAGMENTS fragments of FRAGMENT_ROWS rows each

Each measured operation runs in a fresh child process that only opens the table and runs it,
so the child's peak RSS is the operation's (plus the interpreter); the tables are built by
other children beforehand. Times are wall-clock seconds of the operation alone.

    python3 bench/bench_maintenance.py [--rows 1000000] [--upsert 10000] [--fragments 1000]
"""

import argparse
import json
import os
import pathlib
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa


def data(first: int, rows: int, seed: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    ids = np.arange(first, first + rows, dtype=np.int64)
    return pa.table({
        "id": ids,
        "v": rng.standard_normal(rows),
        "s": pa.array([f"row-{i}" for i in ids], pa.string()),
    })


def module(side: str):
    if side == "cpp":
        import lancedb_cpp as m
    else:
        import lancedb as m
    return m


def child(args) -> None:
    m = module(args.side)
    db = m.connect(args.work)
    out = {}
    if args.task == "setup-upsert":
        t = db.create_table("upsert", data(0, args.rows, 1), mode="overwrite")
    elif args.task == "setup-compact":
        t = db.create_table("compact", data(0, args.fragment_rows, 2), mode="overwrite")
        for f in range(1, args.fragments):
            t.add(data(f * args.fragment_rows, args.fragment_rows, 2 + f))
    elif args.task == "upsert":
        t = db.open_table("upsert")
        new = data(args.rows - args.upsert // 2, args.upsert, 3)
        start = time.perf_counter()
        r = t.merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(new)
        out["seconds"] = time.perf_counter() - start
        out["updated"], out["inserted"] = r.num_updated_rows, r.num_inserted_rows
        assert t.count_rows() == args.rows + args.upsert // 2
    elif args.task == "compact":
        t = db.open_table("compact")
        start = time.perf_counter()
        s = t.compact_files()
        out["seconds"] = time.perf_counter() - start
        out["fragments_removed"] = s.fragments_removed
        assert t.count_rows() == args.fragments * args.fragment_rows
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


def run(side: str, task: str, work: pathlib.Path, args) -> dict:
    cmd = [sys.executable, __file__, "--child", "--side", side, "--task", task, "--work",
           str(work / side), "--rows", str(args.rows), "--upsert", str(args.upsert),
           "--fragments", str(args.fragments), "--fragment-rows", str(args.fragment_rows)]
    done = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--upsert", type=int, default=10_000)
    p.add_argument("--fragments", type=int, default=1000)
    p.add_argument("--fragment-rows", type=int, default=100)
    p.add_argument("--child", action="store_true")
    p.add_argument("--side", default="cpp")
    p.add_argument("--task", default="")
    p.add_argument("--work", default="")
    args = p.parse_args()
    if args.child:
        child(args)
        return
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        results = {}
        for side in ("cpp", "lancedb"):
            run(side, "setup-upsert", work, args)
            run(side, "setup-compact", work, args)
            results[side] = {t: run(side, t, work, args) for t in ("upsert", "compact")}
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"rows={args.rows} upsert={args.upsert} fragments={args.fragments}x{args.fragment_rows} "
          f"load average {load}")
    print(f"{'operation':10} {'lancedb-cpp s':>14} {'LanceDB s':>10} {'ratio':>6} "
          f"{'cpp MB':>8} {'LanceDB MB':>11} {'ratio':>6}")
    for task in ("upsert", "compact"):
        c, l = results["cpp"][task], results["lancedb"][task]
        print(f"{task:10} {c['seconds']:14.3f} {l['seconds']:10.3f} "
              f"{c['seconds'] / l['seconds']:6.2f} {c['peak_rss_mb']:8.0f} "
              f"{l['peak_rss_mb']:11.0f} {c['peak_rss_mb'] / l['peak_rss_mb']:6.2f}")


if __name__ == "__main__":
    main()
