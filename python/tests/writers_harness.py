# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Concurrent writers against one table, checked against an oracle of acknowledged operations.

Threads (and optionally several processes, of lancedb-cpp and of the real LanceDB) run random
operations on one table for a bounded time. Every operation that returns is *acknowledged* and
recorded with the version it committed; every operation that raises is recorded as failed. The
check afterwards:

* the multiset of ids equals the acknowledged appends and inserts minus the acknowledged
  deletes (nothing duplicated, nothing resurrected, nothing lost);
* no failed operation left a trace (its ids are absent, its deletes did not happen);
* each row's value `v` is the one the last acknowledged operation touching it wrote, ordered by
  commit version (append/insert 0.0, update of `id % 7 = k` 2.0, merge_insert 3.0): the table
  equals a serial replay of the acknowledged operations in version order;
* every version the table lists opens and reads.

Usable from pytest (`run` and `check`) and as a soak script:

    python3 python/tests/writers_harness.py --seconds 600 --threads 8 --processes 2 \
        --ops append,update,delete,merge,compact --engines lancedb_cpp,lancedb
"""

from __future__ import annotations

import argparse
import importlib
import json
import multiprocessing as mp
import os
import random
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

import pyarrow as pa

ROWS_PER_APPEND = 5
UPDATE_VALUE = 2.0
MERGE_VALUE = 3.0
ID_SPACE = 1 << 40  # ids of worker w are w * ID_SPACE + counter


@dataclass
class Event:
    kind: str  # append, update, delete, merge, compact, optimize, index
    ok: bool
    version: int = 0
    # The write takes effect at a point in (before, version]. lancedb-cpp reports the version
    # its write committed; LanceDB reports the handle's version after the write, which another
    # thread may already have moved on. An update or merge_insert reads a snapshot and is
    # rebased over concurrent appends (as in Lance): it takes effect as of the version it read,
    # which lies between the handle's version before the call and the version it committed.
    before: int = -1
    exact: bool = False  # `version` is the version this write committed
    ids: list = field(default_factory=list)  # appended / inserted / deleted ids
    updated_ids: list = field(default_factory=list)  # merge: existing ids rewritten
    k: int = -1  # update: id % 7 = k
    count: int = -1  # delete / update: rows the engine says it deleted / updated
    error: str = ""
    os_error: bool = False  # the exception was an OSError (LanceDB's commit conflicts are)
    retryable: object = None  # its `retryable` attribute, if any


DIM = 4


def schema():
    return pa.schema([pa.field("id", pa.int64()), pa.field("v", pa.float64()),
                      pa.field("vec", pa.list_(pa.float32(), DIM))])


def rows(ids, value):
    vecs = [[float((i * 31 + d * 7) % 97) for d in range(DIM)] for i in ids]
    return pa.table({"id": pa.array(ids, pa.int64()), "v": pa.array([value] * len(ids)),
                     "vec": pa.array(vecs, pa.list_(pa.float32(), DIM))}, schema=schema())


class Worker:
    """One thread's random operations on a shared table handle."""

    def __init__(self, table, worker_id, ops, seed, pool, pool_lock, events, deadline, exact):
        self.table = table
        self.exact = exact
        self.rng = random.Random(seed)
        self.next_id = worker_id * ID_SPACE
        self.ops = ops
        self.pool = pool  # acknowledged, not yet deleted ids (shared by the threads of a process)
        self.pool_lock = pool_lock
        self.events = events
        self.deadline = deadline

    def fresh_ids(self, n):
        ids = list(range(self.next_id, self.next_id + n))
        self.next_id += n
        return ids

    def take_from_pool(self, n):
        with self.pool_lock:
            if not self.pool:
                return []
            picked = self.rng.sample(sorted(self.pool), min(n, len(self.pool)))
            for i in picked:
                self.pool.discard(i)
            return picked

    def give_back(self, ids):
        with self.pool_lock:
            self.pool.update(ids)

    def run(self):
        while time.monotonic() < self.deadline:
            op = self.rng.choice(self.ops)
            getattr(self, "op_" + op)()

    def record(self, event, exc=None):
        if exc is not None:
            event.error = repr(exc)
            event.os_error = isinstance(exc, OSError)
            event.retryable = getattr(exc, "retryable", None)
        if event.ok and event.version and event.before < 0:
            event.before = event.version - 1
        event.exact = self.exact
        self.events.append(event)

    def version_before(self, reads=False):
        """The lower bound of the point a write takes effect at (-1: its commit version)."""
        return self.table.version if reads or not self.exact else -1

    def op_append(self):
        ids = self.fresh_ids(ROWS_PER_APPEND)
        before = self.version_before()
        try:
            r = self.table.add(rows(ids, 0.0))
        except Exception as e:  # noqa: BLE001 - every failure is recorded and checked
            self.record(Event("append", False, ids=ids), e)
            return
        self.record(Event("append", True, version=r.version, before=before, ids=ids))
        self.give_back(ids)

    def op_update(self):
        k = self.rng.randrange(7)
        before = self.version_before(reads=True)
        try:
            r = self.table.update(where=f"id % 7 = {k}", values={"v": UPDATE_VALUE})
        except Exception as e:  # noqa: BLE001
            self.record(Event("update", False, k=k), e)
            return
        self.record(Event("update", True, version=r.version, before=before, k=k,
                          count=r.rows_updated))

    def op_delete(self):
        picked = self.take_from_pool(1)
        if not picked:
            return self.op_append()
        before = self.version_before()
        try:
            r = self.table.delete(f"id = {picked[0]}")
        except Exception as e:  # noqa: BLE001
            self.record(Event("delete", False, ids=picked), e)
            self.give_back(picked)
            return
        self.record(Event("delete", True, version=r.version, before=before, ids=picked,
                          count=r.num_deleted_rows))

    def op_merge(self):
        existing = self.take_from_pool(2)
        new = self.fresh_ids(2)
        before = self.version_before(reads=True)
        try:
            r = (self.table.merge_insert("id").when_matched_update_all()
                 .when_not_matched_insert_all().execute(rows(existing + new, MERGE_VALUE)))
        except Exception as e:  # noqa: BLE001
            self.record(Event("merge", False, ids=new, updated_ids=existing), e)
            self.give_back(existing)
            return
        self.record(Event("merge", True, version=r.version, before=before, ids=new,
                          updated_ids=existing))
        self.give_back(existing + new)

    def op_compact(self):
        try:
            self.table.compact_files()
        except Exception as e:  # noqa: BLE001
            self.record(Event("compact", False), e)
            return
        self.record(Event("compact", True))

    def op_optimize(self):
        try:
            self.table.optimize()
        except Exception as e:  # noqa: BLE001
            self.record(Event("optimize", False), e)
            return
        self.record(Event("optimize", True))

    def op_index(self):
        with self.pool_lock:
            too_few = len(self.pool) < 10  # rows to train on
        if too_few:
            return self.op_append()
        try:
            self.table.create_index(metric="l2", num_partitions=2, vector_column_name="vec",
                                    index_type="IVF_FLAT", replace=True)
        except Exception as e:  # noqa: BLE001
            self.record(Event("index", False), e)
            return
        self.record(Event("index", True))


def create_table(engine, uri, name="t"):
    lancedb = importlib.import_module(engine)
    db = lancedb.connect(uri)
    db.create_table(name, schema=schema(), mode="overwrite")


def run_process(engine, uri, name, worker_base, threads, ops, seconds, seed):
    """Run `threads` workers on one handle of `engine`; return their events."""
    lancedb = importlib.import_module(engine)
    table = lancedb.connect(uri).open_table(name)
    deadline = time.monotonic() + seconds
    events, pool, lock = [], set(), threading.Lock()
    exact = engine == "lancedb_cpp"
    workers = [Worker(table, worker_base + i, ops, seed * 1000 + worker_base + i, pool, lock,
                      events, deadline, exact) for i in range(threads)]
    ts = [threading.Thread(target=w.run) for w in workers]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return events


def _process_main(args, queue):
    events = run_process(*args)
    queue.put([e.__dict__ for e in events])


def run(uri, *, engines=("lancedb_cpp",), threads=8, processes=1, ops=("append",),
        seconds=5.0, seed=0, name="t"):
    """Create the table with engines[0] and run the workers. Returns all events."""
    create_table(engines[0], uri, name)
    if processes == 1 and len(engines) == 1:
        return run_process(engines[0], uri, name, 1, threads, list(ops), seconds, seed)
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    procs = []
    for p in range(processes):
        engine = engines[p % len(engines)]
        args = (engine, uri, name, 1 + p * threads, threads, list(ops), seconds, seed)
        proc = ctx.Process(target=_process_main, args=(args, queue))
        proc.start()
        procs.append(proc)
    events = []
    for _ in procs:
        events.extend(Event(**e) for e in queue.get(timeout=seconds + 600))
    for proc in procs:
        proc.join()
        if proc.exitcode != 0:
            raise RuntimeError(f"writer process exited with {proc.exitcode}")
    return events


def expected_values(events):
    """For each id a serial replay of the acknowledged events keeps, the values it may hold.

    Events are ordered by commit version; an event whose version is only known to lie in an
    interval (LanceDB's) may come anywhere in it, so a row touched by such events may hold the
    value of any event that can be its last.
    """
    acked = [e for e in events if e.ok and e.version > 0 and e.count != 0]
    exact = [e.version for e in acked if e.exact]
    dup = [v for v, n in Counter(exact).items() if n > 1]
    assert not dup, f"two acknowledged writes report the same version: {dup[:5]}"
    touching = {}  # id -> [(lo, hi, value or None for a delete)]
    updates = [[] for _ in range(7)]
    for e in acked:
        lo, hi = e.before + 1, e.version
        if e.kind == "append":
            for i in e.ids:
                touching.setdefault(i, []).append((lo, hi, 0.0))
        elif e.kind == "update":
            updates[e.k].append((lo, hi, UPDATE_VALUE))
        elif e.kind == "delete":
            for i in e.ids:
                touching.setdefault(i, []).append((lo, hi, None))
        elif e.kind == "merge":
            for i in e.updated_ids + e.ids:
                touching.setdefault(i, []).append((lo, hi, MERGE_VALUE))
    expected = {}
    for i, evs in touching.items():
        first_lo = min(lo for lo, _, v in evs if v is not None)  # the row's first insert
        evs = evs + [u for u in updates[i % 7] if u[1] >= first_lo]
        if any(v is None for _, _, v in evs):
            continue  # deleted: ids are deleted only after their last insert or merge
        last_lo = max(lo for lo, _, _ in evs)
        expected[i] = {v for lo, hi, v in evs if hi >= last_lo}
    return expected


def check(engine, uri, events, name="t"):
    """Assert the table matches the acknowledged events; return a summary dict."""
    lancedb = importlib.import_module(engine)
    table = lancedb.connect(uri).open_table(name)
    data = table.to_arrow()
    ids = data.column("id").to_pylist()
    values = dict(zip(ids, data.column("v").to_pylist()))
    counts = Counter(ids)
    dups = {i: n for i, n in counts.items() if n > 1}
    assert not dups, f"{len(dups)} ids are duplicated, e.g. {list(dups.items())[:5]}"
    expected = expected_values(events)
    missing = sorted(set(expected) - set(counts))
    extra = sorted(set(counts) - set(expected))
    assert not missing, f"{len(missing)} acknowledged rows are missing, e.g. {missing[:5]}"
    assert not extra, f"{len(extra)} rows are present that should not be, e.g. {extra[:5]}"
    wrong = {i: (values[i], c) for i, c in expected.items() if i in values and values[i] not in c}
    if wrong and os.environ.get("WRITERS_DEBUG"):
        for i in list(wrong)[:3]:
            print("id", i, "=", values[i], "; events:")
            for e in sorted(events, key=lambda e: e.version):
                if i in e.ids or i in e.updated_ids or (e.kind == "update" and e.k == i % 7
                                                        and e.ok):
                    print("  ", e)
    assert not wrong, (f"{len(wrong)} rows hold a value no serial order of the acknowledged "
                       f"operations gives, (got, expected): {list(wrong.items())[:5]}")
    for e in events:
        if e.ok and e.kind == "delete":
            assert e.count == 1, f"delete of live id {e.ids[0]} reported {e.count} rows"
    # Every version opens and counts its rows; a spread of them (and the latest) is read whole.
    versions = [v["version"] for v in table.list_versions()]
    step = max(1, len(versions) // 50)
    for n, v in enumerate(versions):
        table.checkout(v)
        table.count_rows()
        if n % step == 0:
            assert table.to_arrow().num_rows == table.count_rows()
    table.checkout_latest()
    failures = Counter(e.kind for e in events if not e.ok)
    return {
        "rows": len(ids),
        "expected": len(expected),
        "versions": len(versions),
        "acknowledged": dict(Counter(e.kind for e in events if e.ok)),
        "failed": dict(failures),
        "errors": {k: sorted({e.error[:300] for e in events if not e.ok and e.kind == k})[:3]
                   for k in failures},
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--uri", default=None, help="database folder (default: a temporary one)")
    ap.add_argument("--engines", default="lancedb_cpp")
    ap.add_argument("--check-engine", default=None)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--processes", type=int, default=1)
    ap.add_argument("--ops", default="append")
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    import tempfile

    uri = a.uri or tempfile.mkdtemp(prefix="writers-")
    engines = a.engines.split(",")
    start = time.monotonic()
    events = run(uri, engines=engines, threads=a.threads, processes=a.processes,
                 ops=a.ops.split(","), seconds=a.seconds, seed=a.seed)
    summary = check(a.check_engine or engines[0], uri, events)
    summary.update(seconds=round(time.monotonic() - start, 1), engines=engines, ops=a.ops,
                   threads=a.threads, processes=a.processes, uri=uri)
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(__file__))
    sys.exit(main())
