#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Vector search: lancedb-cpp (lancedb_cpp) next to the real LanceDB (lancedb), same data, one run.

Data: ROWS seeded clustered float32 vectors of DIM dimensions (256 Gaussian clusters), an int64
id; QUERIES query vectors drawn near the clusters. Ground truth is exact numpy search.
Each side runs in its own subprocess (so its peak RSS is its own) and reports:
  - flat kNN latency (exact search, k=10, mean over the queries);
  - IVF_PQ: build time, index size, recall@10 and latency for several nprobes, without and
    with refine_factor;
  - IVF_FLAT: build time, index size, recall@10 and latency for several nprobes;
  - IVF_HNSW_SQ: build time, index size, recall@10 and latency for several ef (--no-hnsw skips);
  - peak RSS.
The memory-bandwidth floor of one flat query (reading every vector once from RAM) is measured
in the same run with numpy. Ratios are lancedb-cpp / LanceDB (lower is better for times).

    python3 bench/bench_vector.py [--rows 200000] [--dim 128] [--queries 1000] [--quick]
                                  [--only cpp|lancedb] [--no-hnsw]

--only runs one engine (e.g. to re-measure lancedb-cpp after a change without waiting for
LanceDB again at 1M rows) and prints its raw figures next to the floor.

--lance-index instead measures both engines' search on one index that LanceDB built
(--index-type IVF_PQ: sqrt(rows) partitions, dim/8 sub-vectors, no refine, at each --nprobes;
IVF_HNSW_SQ: sqrt(rows)/16 partitions, --hnsw-nprobes, at each --efs): each engine opens the
same table directory in its own subprocess and answers the same queries one at a time (equal
settings: the same partitions and distances, so equal recall), reporting wall-clock latency and
process CPU time per query. --rounds N alternates the two engines N times and keeps each
point's best; --keep DIR builds the table and index in DIR once and reuses them in later runs
(a 1M-row LanceDB build takes minutes). --index-type IVF_RQ builds LanceDB's IVF_RQ
(sqrt(rows) partitions, --rq-bits bits) and is searched at each --nprobes;
--lance-index-builder cpp has lancedb_cpp build the index (in Lance's layout) instead of LanceDB.
"""

import argparse
import importlib
import json
import os
import pathlib
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa

K = 10


def make_data(rows, dim, queries, seed=42):
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((256, dim), dtype=np.float32) * 2.0
    vectors = centers[rng.integers(0, 256, rows)] + rng.standard_normal((rows, dim), dtype=np.float32)
    qs = centers[rng.integers(0, 256, queries)] + rng.standard_normal((queries, dim), dtype=np.float32)
    return vectors.astype(np.float32), qs.astype(np.float32)


def ground_truth(vectors, queries):
    norms = (vectors * vectors).sum(axis=1)
    out = np.empty((len(queries), K), dtype=np.int64)
    for start in range(0, len(queries), 100):
        q = queries[start:start + 100]
        d = norms[None, :] - 2.0 * q @ vectors.T
        part = np.argpartition(d, K, axis=1)[:, :K]
        order = np.take_along_axis(d, part, axis=1).argsort(axis=1)
        out[start:start + 100] = np.take_along_axis(part, order, axis=1)
    return out


def bandwidth_floor(vectors, repeats=5):
    """Seconds to stream every vector once from RAM (best of memory-bound passes)."""
    q = np.ones(vectors.shape[1], dtype=np.float32)
    dst = np.empty_like(vectors)
    best_copy = best_gemv = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        np.copyto(dst, vectors)
        best_copy = min(best_copy, time.perf_counter() - t)
        t = time.perf_counter()
        vectors @ q
        best_gemv = min(best_gemv, time.perf_counter() - t)
    # A copy reads and writes every byte: reading alone takes about half of it.
    return min(best_copy / 2.0, best_gemv), vectors.nbytes / (best_copy / 2.0) / 1e9


def dir_size(path):
    return sum(f.stat().st_size for f in pathlib.Path(path).rglob("*") if f.is_file())


def run_side(args):
    if args.side == "cpp":
        import lancedb_cpp as lancedb
    else:
        import lancedb
    vectors, queries = make_data(args.rows, args.dim, args.queries)
    truth = np.load(args.truth)
    work = pathlib.Path(args.work)
    db = lancedb.connect(work / args.side)
    table = db.create_table(
        "t",
        pa.table({
            "id": pa.array(np.arange(args.rows, dtype=np.int64)),
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1)), args.dim),
        }),
        mode="overwrite",
    )
    del vectors
    out = {}

    def search(configure, n):
        hits, start = 0, time.perf_counter()
        for i in range(n):
            ids = configure(table.search(queries[i]).limit(K)).select(["id"]).to_arrow()["id"]
            hits += len(set(ids.to_pylist()) & set(truth[i].tolist()))
        return (time.perf_counter() - start) / n, hits / (n * K)

    nflat = min(args.queries, args.flat_queries)
    search(lambda q: q, 2)  # warm-up (page cache, thread pools)
    out["flat_latency_s"], out["flat_recall"] = search(lambda q: q, nflat)

    if not hasattr(table, "create_index"):
        out["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps(out))
        return
    index_dir = work / args.side / "t.lance" / "_indices"
    num_partitions = max(1, int(round(np.sqrt(args.rows))))
    start = time.perf_counter()
    table.create_index(metric="l2", vector_column_name="vector", index_type="IVF_PQ",
                       num_partitions=num_partitions, num_sub_vectors=args.dim // 8)
    out["ivf_pq_build_s"] = time.perf_counter() - start
    out["ivf_pq_size_bytes"] = dir_size(index_dir)
    curves = []
    for refine in args.refines:
        for nprobes in args.nprobes:
            def configure(q, nprobes=nprobes, refine=refine):
                q = q.nprobes(nprobes)
                return q.refine_factor(refine) if refine else q
            search(configure, 2)
            latency, recall = search(configure, args.queries)
            curves.append({"nprobes": nprobes, "refine": refine, "latency_s": latency,
                           "recall": recall})
    out["ivf_pq"] = curves

    start = time.perf_counter()
    table.create_index(metric="l2", vector_column_name="vector", index_type="IVF_FLAT",
                       num_partitions=num_partitions, replace=True)
    out["ivf_flat_build_s"] = time.perf_counter() - start
    out["ivf_flat_size_bytes"] = dir_size(index_dir)
    curves = []
    for nprobes in args.nprobes:
        def configure(q, nprobes=nprobes):
            return q.nprobes(nprobes)
        search(configure, 2)
        latency, recall = search(configure, args.queries)
        curves.append({"nprobes": nprobes, "latency_s": latency, "recall": recall})
    out["ivf_flat"] = curves
    if args.no_hnsw:
        out["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps(out))
        return

    start = time.perf_counter()
    table.create_index(metric="l2", vector_column_name="vector", index_type="IVF_HNSW_SQ",
                       num_partitions=max(1, num_partitions // 16), replace=True)
    out["hnsw_sq_build_s"] = time.perf_counter() - start
    out["hnsw_sq_size_bytes"] = dir_size(index_dir)
    curves = []
    for ef in args.efs:
        def configure(q, ef=ef):
            return q.nprobes(args.hnsw_nprobes).ef(ef)
        search(configure, 2)
        latency, recall = search(configure, args.queries)
        curves.append({"ef": ef, "latency_s": latency, "recall": recall})
    out["hnsw_sq"] = curves
    out["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


def lance_index_settings(args):
    """The (label, configure) points of the --lance-index run for args.index_type."""
    if args.index_type in ("IVF_PQ", "IVF_RQ"):
        return [(f"nprobes={n}", lambda q, n=n: q.nprobes(n)) for n in args.nprobes]
    return [(f"nprobes={args.hnsw_nprobes}, ef={ef}",
             lambda q, ef=ef: q.nprobes(args.hnsw_nprobes).ef(ef)) for ef in args.efs]


def run_lance_index_side(args):
    """Search the LanceDB-built index in args.work/shared with one engine."""
    if args.side == "cpp":
        import lancedb_cpp as lancedb
    else:
        import lancedb
    queries = np.load(pathlib.Path(args.work) / "queries.npy")
    truth = np.load(args.truth)
    table = lancedb.connect(pathlib.Path(args.work) / "shared").open_table("t")
    curves = []
    for label, configure in lance_index_settings(args):
        def run(n):
            hits, start, cpu = 0, time.perf_counter(), time.process_time()
            for i in range(n):
                ids = configure(table.search(queries[i])).limit(K).select(["id"]).to_arrow()["id"]
                hits += len(set(ids.to_pylist()) & set(truth[i].tolist()))
            wall = (time.perf_counter() - start) / n
            return wall, (time.process_time() - cpu) / n, hits / (n * K)
        run(min(20, args.queries))  # warm-up: index and column caches
        latency, cpu, recall = run(args.queries)
        curves.append({"setting": label, "latency_s": latency, "cpu_s": cpu, "recall": recall})
    print(json.dumps({"curves": curves}))


def build_lance_index(args, work):
    """LanceDB builds the table and the args.index_type index in work/shared (with
    --lance-index-builder cpp, lancedb_cpp builds the index, in Lance's layout; kept when
    work/params.json says it was built with the same parameters); returns the build seconds."""
    import lancedb

    params = {"rows": args.rows, "dim": args.dim, "queries": args.queries,
              "index_type": args.index_type, "rq_bits": args.rq_bits,
              "builder": args.lance_index_builder}
    marker = work / "params.json"
    if marker.exists() and json.loads(marker.read_text()).get("params") == params:
        return json.loads(marker.read_text())["build_s"]
    shutil.rmtree(work / "shared", ignore_errors=True)
    vectors, queries = make_data(args.rows, args.dim, args.queries)
    np.save(work / "truth.npy", ground_truth(vectors, queries))
    np.save(work / "queries.npy", queries)
    table = lancedb.connect(work / "shared").create_table("t", pa.table({
        "id": pa.array(np.arange(args.rows, dtype=np.int64)),
        "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1)), args.dim),
    }))  # fmt: skip
    del vectors
    index_module = "lancedb.index"
    if args.lance_index_builder == "cpp":
        import lancedb_cpp

        table = lancedb_cpp.connect(work / "shared").open_table("t")
        index_module = "lancedb_cpp.index"
    num_partitions = max(1, int(round(np.sqrt(args.rows))))
    start = time.perf_counter()
    if args.index_type == "IVF_PQ":
        table.create_index(metric="l2", vector_column_name="vector", index_type="IVF_PQ",
                           num_partitions=num_partitions, num_sub_vectors=args.dim // 8)
    elif args.index_type == "IVF_RQ":
        IvfRq = importlib.import_module(index_module).IvfRq
        table.create_index("vector", config=IvfRq(distance_type="l2",
                                                  num_partitions=num_partitions,
                                                  num_bits=args.rq_bits))  # fmt: skip
    else:
        table.create_index(metric="l2", vector_column_name="vector", index_type="IVF_HNSW_SQ",
                           num_partitions=max(1, num_partitions // 16))
    build_s = time.perf_counter() - start
    marker.write_text(json.dumps({"params": params, "build_s": build_s}))
    return build_s


def lance_index_main(args):
    work = pathlib.Path(args.keep) if args.keep else pathlib.Path(
        tempfile.mkdtemp(prefix="bench_vector_"))
    work.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()
    try:
        build_s = build_lance_index(args, work)
        best = {}
        for _ in range(args.rounds):
            for side in ("cpp", "lancedb"):
                cmd = [sys.executable, __file__, "--lance-index", "--side", side, "--truth",
                       str(work / "truth.npy"), "--work", str(work), "--rows", str(args.rows),
                       "--dim", str(args.dim), "--queries", str(args.queries), "--index-type",
                       args.index_type, "--rq-bits", str(args.rq_bits), "--hnsw-nprobes",
                       str(args.hnsw_nprobes), "--nprobes",
                       *map(str, args.nprobes), "--efs", *map(str, args.efs)]
                proc = subprocess.run(cmd, capture_output=True, text=True,
                                      env={**os.environ, "RUST_LOG": "error"})
                if proc.returncode != 0:
                    print(f"{side} failed:\n{proc.stderr[-3000:]}", file=sys.stderr)
                    return 1
                curves = json.loads(proc.stdout.strip().splitlines()[-1])["curves"]
                if side not in best:
                    best[side] = curves
                else:
                    for old, new in zip(best[side], curves):
                        old["latency_s"] = min(old["latency_s"], new["latency_s"])
                        old["cpu_s"] = min(old["cpu_s"], new["cpu_s"])
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    load_after = os.getloadavg()
    print(f"rows={args.rows} dim={args.dim} queries={args.queries} k={K} rounds={args.rounds} "
          f"load average {load_before[0]:.1f} -> {load_after[0]:.1f}; {args.index_type} built "
          f"by LanceDB in {build_s:.1f} s")
    print("  (latency: wall clock per query; cpu: process CPU time per query, all threads)")
    print(f"  {'setting':>18} | {'cpp recall':>10} {'latency':>9} {'cpu':>9} | "
          f"{'lancedb recall':>14} {'latency':>9} {'cpu':>9} | ratio")
    for a, b in zip(best["cpp"], best["lancedb"]):
        print(f"  {a['setting']:>18} | {a['recall']:10.3f} {a['latency_s'] * 1e3:6.3f} ms "
              f"{a['cpu_s'] * 1e3:6.3f} ms | {b['recall']:14.3f} {b['latency_s'] * 1e3:6.3f} ms "
              f"{b['cpu_s'] * 1e3:6.3f} ms | {a['latency_s'] / b['latency_s']:.2f}")
    return 0


def best_at(curve, recall):
    ok = [c for c in curve if c["recall"] >= recall]
    return min(ok, key=lambda c: c["latency_s"]) if ok else None


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--rows", type=int, default=200_000)
    p.add_argument("--dim", type=int, default=128)
    p.add_argument("--queries", type=int, default=1000)
    p.add_argument("--flat-queries", type=int, default=100)
    p.add_argument("--quick", action="store_true", help="20k rows, 100 queries")
    p.add_argument("--only", choices=["cpp", "lancedb"], help="run one engine only")
    p.add_argument("--side", choices=["cpp", "lancedb"], help=argparse.SUPPRESS)
    p.add_argument("--truth", help=argparse.SUPPRESS)
    p.add_argument("--work", help=argparse.SUPPRESS)
    p.add_argument("--nprobes", type=int, nargs="+", default=[5, 10, 20, 40])
    p.add_argument("--efs", type=int, nargs="+", default=[20, 40, 80, 160])
    p.add_argument("--refines", type=int, nargs="+", default=[0, 10, 50],
                   help="IVF_PQ refine factors to try (0 = no refine)")
    p.add_argument("--hnsw-nprobes", type=int, default=10)
    p.add_argument("--no-hnsw", action="store_true", help="skip IVF_HNSW_SQ")
    p.add_argument("--lance-index", action="store_true",
                   help="search latency of both engines on one LanceDB-built index")
    p.add_argument("--index-type", choices=["IVF_PQ", "IVF_HNSW_SQ", "IVF_RQ"], default="IVF_PQ",
                   help="--lance-index: the index LanceDB builds")
    p.add_argument("--rounds", type=int, default=1,
                   help="--lance-index: alternate the engines this many times, keep the best")
    p.add_argument("--keep", help="--lance-index: build in this directory once and reuse it")
    p.add_argument("--rq-bits", type=int, default=1, help="num_bits of --index-type IVF_RQ")
    p.add_argument("--lance-index-builder", choices=["lancedb", "cpp"], default="lancedb",
                   help="which engine builds the --lance-index index (cpp: in Lance's layout)")
    args = p.parse_args()
    if args.quick:
        args.rows, args.queries, args.flat_queries = 20_000, 100, 50
    if args.side:
        return run_lance_index_side(args) if args.lance_index else run_side(args)
    if args.lance_index:
        return lance_index_main(args)

    vectors, queries = make_data(args.rows, args.dim, args.queries)
    work = pathlib.Path(tempfile.mkdtemp(prefix="bench_vector_"))
    try:
        truth_path = work / "truth.npy"
        np.save(truth_path, ground_truth(vectors, queries))
        floor_s, gbps = bandwidth_floor(vectors)
        del vectors
        results = {}
        for side in ((args.only,) if args.only else ("cpp", "lancedb")):
            cmd = [sys.executable, __file__, "--side", side, "--truth", str(truth_path),
                   "--work", str(work), "--rows", str(args.rows), "--dim", str(args.dim),
                   "--queries", str(args.queries), "--flat-queries", str(args.flat_queries),
                   "--hnsw-nprobes", str(args.hnsw_nprobes), "--nprobes",
                   *map(str, args.nprobes), "--efs", *map(str, args.efs),
                   "--refines", *map(str, args.refines), *(["--no-hnsw"] if args.no_hnsw else [])]
            proc = subprocess.run(cmd, capture_output=True, text=True,
                                  env={**os.environ, "RUST_LOG": "error"})
            if proc.returncode != 0:
                print(f"{side} failed:\n{proc.stderr[-3000:]}", file=sys.stderr)
                return 1
            results[side] = json.loads(proc.stdout.strip().splitlines()[-1])
            shutil.rmtree(work / side, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    ms = lambda s: f"{s * 1e3:8.3f} ms"
    print(f"rows={args.rows} dim={args.dim} queries={args.queries} k={K} "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"memory-bandwidth floor (one pass over the vectors): {ms(floor_s)} ({gbps:.1f} GB/s)")
    if args.only:
        r = results[args.only]
        print(f"{args.only}: flat kNN {ms(r['flat_latency_s'])} "
              f"({r['flat_latency_s'] / floor_s:.2f}x floor)")
        print(json.dumps(r, indent=1))
        return 0
    c, l = results["cpp"], results["lancedb"]
    print(f"flat kNN   lancedb-cpp {ms(c['flat_latency_s'])} (recall {c['flat_recall']:.3f}, "
          f"{c['flat_latency_s'] / floor_s:.2f}x floor)   lancedb {ms(l['flat_latency_s'])} "
          f"(recall {l['flat_recall']:.3f})   ratio {c['flat_latency_s'] / l['flat_latency_s']:.2f}")
    for name, key in (("IVF_PQ", "ivf_pq"), ("IVF_FLAT", "ivf_flat"), ("IVF_HNSW_SQ", "hnsw_sq")):
        if key not in c or key not in l:
            print(f"{name}: not measured in this run")
            continue
        print(f"{name} build  lancedb-cpp {c[key + '_build_s']:.2f} s"
              f"   lancedb {l[key + '_build_s']:.2f} s   ratio "
              f"{c[key + '_build_s'] / l[key + '_build_s']:.2f}")
        print(f"{name} size   lancedb-cpp {c[key + '_size_bytes'] / 2**20:.1f} MiB   lancedb "
              f"{l[key + '_size_bytes'] / 2**20:.1f} MiB")
        print(f"  {'setting':>22} | {'cpp recall':>10} {'cpp latency':>12} | "
              f"{'lancedb recall':>14} {'lancedb latency':>15} | ratio")
        for a, b in zip(c[key], l[key]):
            setting = ", ".join(f"{k}={v}" for k, v in a.items() if k not in ("latency_s", "recall"))
            print(f"  {setting:>22} | {a['recall']:10.3f} {ms(a['latency_s']):>12} | "
                  f"{b['recall']:14.3f} {ms(b['latency_s']):>15} | "
                  f"{a['latency_s'] / b['latency_s']:.2f}")
    for target, key in ((0.90, "ivf_pq"), (0.95, "hnsw_sq")):
        a, b = best_at(c.get(key, []), target), best_at(l.get(key, []), target)
        if a and b:
            print(f"{key} at recall>={target}: lancedb-cpp {ms(a['latency_s'])} vs lancedb "
                  f"{ms(b['latency_s'])}: ratio {a['latency_s'] / b['latency_s']:.2f}")
    print(f"peak RSS   lancedb-cpp {c['peak_rss_mib']:.0f} MiB   lancedb {l['peak_rss_mib']:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
