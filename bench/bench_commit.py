# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Commit throughput under contention: lancedb-cpp next to LanceDB (issue 18).

N threads share one table handle and loop over random writes for a fixed time (the workload of
python/tests/writers_harness.py); both engines run the same mixes, one after the other. Prints
acknowledged commits per second, failed operations, and the ratio lancedb-cpp / LanceDB. Each
run is checked against the oracle of acknowledged operations afterwards (not timed).

    python3 bench/bench_commit.py [--seconds 15] [--threads 8] [--mixes append,append+update+compact]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python",
                                "tests"))
import writers_harness as wh  # noqa: E402

WRITES = ("append", "update", "delete", "merge")


def measure(engine, mix, seconds, threads):
    uri = tempfile.mkdtemp(prefix=f"bench-commit-{engine}-")
    start = time.monotonic()
    events = wh.run(uri, engines=(engine,), threads=threads, ops=mix, seconds=seconds)
    elapsed = time.monotonic() - start
    ok = [e for e in events if e.ok]
    commits = sum(1 for e in ok if e.kind in WRITES)
    wh.check("lancedb_cpp", uri, events)  # the oracle holds for both engines
    return {
        "commits_per_s": commits / elapsed,
        "compactions": sum(1 for e in ok if e.kind == "compact"),
        "failed": sum(1 for e in events if not e.ok),
        "failed_writes": sum(1 for e in events if not e.ok and e.kind in WRITES),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--mixes", default="append,append+update+compact,append+delete+compact")
    a = ap.parse_args()
    print(f"{a.threads} threads on one handle, {a.seconds:g} s per run")
    print(f"{'mix':28} {'engine':12} {'commits/s':>10} {'compactions':>12} {'failed writes':>14}"
          f" {'failed other':>13}")
    for mix in a.mixes.split(","):
        ops = mix.split("+")
        results = {}
        for engine in ("lancedb_cpp", "lancedb"):
            r = measure(engine, ops, a.seconds, a.threads)
            results[engine] = r
            print(f"{mix:28} {engine:12} {r['commits_per_s']:10.1f} {r['compactions']:12d}"
                  f" {r['failed_writes']:14d} {r['failed'] - r['failed_writes']:13d}", flush=True)
        ratio = results["lancedb_cpp"]["commits_per_s"] / max(results["lancedb"]["commits_per_s"],
                                                              1e-9)
        print(f"{mix:28} {'ratio':12} {ratio:10.2f}x")


if __name__ == "__main__":
    main()
