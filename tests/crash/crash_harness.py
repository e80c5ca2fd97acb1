# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Crash safety: a writer process killed with SIGKILL at random moments (issue 11).

The writer (`tools/crash_writer`, the C++ API) runs a seeded sequence of operations —
append, delete, update, merge_insert, compaction, index build, cleanup of old versions — on one
table and appends the index of each acknowledged operation to a log. This driver kills it after
a random delay, then checks:

* the table opens, and every version it lists opens and reads (`crash_writer check`: no id twice,
  the rows read equal the rows counted), and pylance reads the latest version the same;
* the latest version's rows equal a replay of the acknowledged operations in an in-memory model,
  plus at most the one in flight;
* the next writer continues the sequence and commits normally.

    python3 tests/crash/crash_harness.py --kills 1000 [--seed 3]     # the soak
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import random
import signal
import subprocess
import sys
import tempfile
import time

MASK = (1 << 64) - 1


def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def h(seed, i, k):
    return splitmix64((seed * 0x9E3779B97F4A7C15 + i * 0xBF58476D1CE4E5B9 + k) & MASK)


def op_kind(seed, i):
    """Operation i of `seed`, as tools/crash_writer.cc runs it."""
    kind = h(seed, i, 0) % 100
    for bound, name in ((30, "append"), (42, "delete"), (56, "update"), (70, "merge"),
                        (82, "compact"), (88, "index"), (100, "cleanup")):  # index: vector or scalar
        if kind < bound:
            return name


class Model:
    """The rows a serial replay of the operations leaves: {id: v}."""

    def __init__(self, seed):
        self.seed = seed
        self.rows = {}

    def copy(self):
        m = Model(self.seed)
        m.rows = dict(self.rows)
        return m

    def apply(self, i):
        kind, r = op_kind(self.seed, i), h(self.seed, i, 1)
        if kind == "append":
            for k in range(i * 100, i * 100 + 20):
                self.rows[k] = 0.0
        elif kind == "delete":
            self.rows = {k: v for k, v in self.rows.items() if k % 17 != r % 17}
        elif kind == "update":
            for k in self.rows:
                if k % 13 == r % 13:
                    self.rows[k] = float(i)
        elif kind == "merge":
            for k in [(i - 1) * 100 + j for j in range(5)] + [i * 100 + 50 + j for j in range(5)]:
                self.rows[k] = float(-i)


def writer_exe():
    build = pathlib.Path(os.environ.get(
        "LANCEDB_BUILD_DIR", pathlib.Path(__file__).resolve().parents[2] / "build"))
    exe = build / "tools" / "crash_writer"
    if not exe.exists():
        raise FileNotFoundError(f"{exe} is not built (set LANCEDB_BUILD_DIR)")
    return str(exe)


def acknowledged(log_path):
    if not os.path.exists(log_path):
        return []
    with open(log_path) as f:
        return [int(line) for line in f.read().split("\n") if line.strip()]


def check_table(uri):
    """Every version reads; returns the latest rows [(id, v)], or None when there is no table."""
    proc = subprocess.run([writer_exe(), "check", uri], capture_output=True, text=True)
    assert proc.returncode == 0, f"the table does not read after the kill: {proc.stderr}"
    lines = proc.stdout.split("\n")
    if lines[0] == "no table":
        return None
    assert lines[0].startswith("versions "), proc.stdout[:200]
    rows = []
    for line in lines[1:]:
        if line:
            k, v = line.split()
            rows.append((int(k), float(v)))
    return rows


def check_with_pylance(uri, rows):
    try:
        import lance
    except ImportError:
        return
    ds = lance.dataset(os.path.join(uri, "t.lance"))
    got = ds.to_table(columns=["id", "v"])
    theirs = sorted(zip(got.column("id").to_pylist(), got.column("v").to_pylist()))
    assert theirs == rows, "pylance reads the latest version differently"


def run(kills, seed=0, uri=None, max_delay=0.08, pylance_every=10, verbose=False):
    """Kill `kills` writers; return a summary. Raises AssertionError on any inconsistency."""
    uri = uri or tempfile.mkdtemp(prefix="crash-")
    os.makedirs(uri, exist_ok=True)
    log_path = os.path.join(uri, "acknowledged.log")
    rng = random.Random(seed)
    model = Model(seed)
    next_op = 0
    in_flight_committed = 0
    for k in range(kills + 1):
        start = next_op
        proc = subprocess.Popen([writer_exe(), "write", uri, str(seed), str(start), log_path],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = proc.stdout.readline()
        if line.strip() != b"ready":
            proc.kill()
            raise AssertionError(f"writer {k} did not start: {line!r} {proc.stderr.read()!r}")
        # The last writer runs longer and is the one that must commit normally.
        time.sleep(0.5 if k == kills else rng.uniform(0, max_delay))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        stderr = proc.stderr.read().decode(errors="replace")
        assert "error:" not in stderr, f"writer {k} failed: {stderr}"
        done = [i for i in acknowledged(log_path) if i >= start]
        assert done == list(range(start, start + len(done))), f"log out of order: {done[:10]}"
        for i in done:
            model.apply(i)
        next_op = start + len(done)
        rows = check_table(uri)
        if rows is None:
            assert next_op == 0, "the table vanished after acknowledged operations"
        elif rows != sorted(model.rows.items()):
            # The operation in flight committed before the kill.
            ahead = model.copy()
            ahead.apply(next_op)
            assert rows == sorted(ahead.rows.items()), (
                f"after {next_op} acknowledged operations the table holds {len(rows)} rows, "
                f"matching neither their replay ({len(model.rows)} rows) nor the replay plus "
                f"operation {next_op} ({op_kind(seed, next_op)}, {len(ahead.rows)} rows)")
            model = ahead
            next_op += 1
            in_flight_committed += 1
        if rows is not None and pylance_every and k % pylance_every == 0:
            check_with_pylance(uri, rows)
        if k == kills:
            assert done, "the writer after the last kill committed nothing"
        if verbose:
            print(f"kill {k}: operations {start}..{next_op - 1}, {len(model.rows)} rows",
                  flush=True)
    return {"kills": kills, "operations": next_op, "in_flight_committed": in_flight_committed,
            "rows": len(model.rows), "uri": uri}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kills", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args(argv)
    start = time.monotonic()
    summary = run(a.kills, seed=a.seed, verbose=a.verbose)
    summary["seconds"] = round(time.monotonic() - start, 1)
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
