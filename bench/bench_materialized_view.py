#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Materialized view refresh: incremental after 1% of the source changed vs a full rebuild,
for lancedb-cpp and LanceDB on the same data, in one run.

The source has ROWS rows (id int64, v float64, s utf8) in FRAGMENTS appends; the view is
`select id, v * 2 as x, s where v > 0` (about half the rows). After the first refresh, 1% of
the source changes: 0.5% of the rows updated, 0.25% deleted and 0.25% appended. Then the same
state is refreshed twice on two copies of the view: incrementally, and with full=True.
Times are wall-clock seconds of the refresh alone, best of REPEAT rounds (each round on fresh
tables); the script asserts nothing about time, only that both refreshes give the same rows.

    python3 bench/bench_materialized_view.py [--rows 1000000] [--fragments 10] [--repeat 2]
"""

import argparse
import pathlib
import shutil
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa

STABLE = {"new_table_enable_stable_row_ids": "true"}


def data(first: int, rows: int, seed: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    ids = np.arange(first, first + rows, dtype=np.int64)
    return pa.table({
        "id": ids,
        "v": rng.standard_normal(rows),
        "s": pa.array([f"row-{i}" for i in ids], pa.string()),
    })


def one_round(m, work: pathlib.Path, rows: int, fragments: int):
    db = m.connect(str(work), storage_options=STABLE)
    per = rows // fragments
    source = db.create_table("src", data(0, per, 0))
    for f in range(1, fragments):
        source.add(data(f * per, per, f))
    views = [
        db.create_materialized_view(name, "src", select=["id", ("x", "v * 2"), "s"], where="v > 0")
        for name in ("inc", "full")
    ]
    for view in views:
        view.refresh()
    step = 200  # 0.5% updated
    source.update(where=f"id % {step} = 1", values={"v": 1.5})
    source.delete(f"id % {step * 2} = 3")  # 0.25% deleted
    source.add(data(rows, rows // 400, 99))  # 0.25% appended
    t0 = time.perf_counter()
    inc = views[0].refresh()
    t1 = time.perf_counter()
    full = views[1].refresh(full=True)
    t2 = time.perf_counter()
    got_inc = views[0].table.to_arrow().sort_by("__source_row_id")
    got_full = views[1].table.to_arrow().sort_by("__source_row_id")
    same = got_inc.equals(got_full)
    return (t1 - t0, inc.mode, inc.rows_written, t2 - t1, full.mode, full.rows_written, same)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--fragments", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--sides", default="cpp,lancedb")
    args = parser.parse_args()
    print(f"rows={args.rows} fragments={args.fragments} repeat={args.repeat}")
    for side in args.sides.split(","):
        if side == "cpp":
            import lancedb_cpp as m
        else:
            import lancedb as m
        best = None
        for r in range(args.repeat):
            work = pathlib.Path(tempfile.mkdtemp(prefix=f"mvbench-{side}-"))
            try:
                res = one_round(m, work, args.rows, args.fragments)
            finally:
                shutil.rmtree(work, ignore_errors=True)
            if not res[6]:
                print(f"{side}: incremental and full refresh disagree", file=sys.stderr)
                sys.exit(1)
            best = res if best is None else (
                min(best[0], res[0]), *res[1:3], min(best[3], res[3]), *res[4:])
        inc_s, inc_mode, inc_rows, full_s, full_mode, full_rows, _ = best
        print(f"{side:8s} incremental: {inc_s:8.3f} s ({inc_mode}, {inc_rows} rows)  "
              f"full: {full_s:8.3f} s ({full_mode}, {full_rows} rows)  "
              f"full/incremental: {full_s / inc_s:6.1f}x")


if __name__ == "__main__":
    main()
