#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Full-text search: lancedb-cpp (lancedb_cpp) next to the real LanceDB (lancedb), same data,
one run.

Data sets (each written once, by a child process, into an Arrow IPC stream file that every
engine streams into `create_table`; columns `id` int64 = row number, `text` utf8):
  synthetic  DOCS documents of 40-80 (mean 60) words drawn from a Zipf distribution
             (p ~ 1/rank) over VOCAB made-up words of 2-4 consonant-vowel syllables
             ("kamo", "tisubera"; none is an English stop word), numpy seeded
  real       the Python standard library's docstrings (module, class and function docstrings
             found with `ast` under sysconfig's stdlib directory) and the Debian
             /usr/share/doc/*/copyright and /usr/share/common-licenses/* files, split into
             paragraphs at blank lines, whitespace collapsed, paragraphs of fewer than 3 words
             and exact duplicates dropped (no download; ~26,000 documents here)

Per data set and engine, three child processes (so that each peak RSS is its own; the peak is
VmHWM from /proc/self/status, which starts afresh at exec):
  write   create_table from the stream file
  fts     create_fts_index("text") with the default options (no positions), then the queries
          below (except phrase); peak RSS measured right after the build
  phrase  create_fts_index("text", with_position=True, replace=True), then the phrase queries
Queries, k = 10, `search(...).limit(10).select(["id"]).to_arrow()`; one warm-up query
per kind, then up to QUERIES timed queries (a kind stops after BUDGET seconds once MIN_QUERIES
ran), seeded, the same on both sides; median and p95:
  term_freq  one word out of the 100 most frequent        (synthetic: Zipf ranks 1-100)
  term_med   one word of medium frequency                 (synthetic: ranks 1,001-5,000)
  term_rare  one rare word                                (synthetic: ranks 20,001-VOCAB)
  or         3 words, one of each class above, search(q, query_type="fts") (OR)
  and        2 words, a frequent and a medium one, MatchQuery(q, "text", operator="AND")
  phrase     2 consecutive words of a random document, PhraseQuery(q, "text")
(real: the classes are by document frequency among alphabetic words of >= 3 letters that are not
stop words: the top 100; 0.1%-1% of the documents; 2-5 documents.)
The installed lancedb_cpp package is copied under the data directory at the start and the
children import that copy (a reinstall during a run would otherwise change the build measured, or
kill a child with SIGBUS); the build's md5 is printed.
Correctness: every timed query's top-10 (id, score) lists are compared; a query "agrees" when the
id lists are identical, "agrees up to ties" when the id sets differ only in ids whose score ties
the 10th score (within 1e-4 relative) or the order differs only within tied scores.

Ratios: latency LanceDB / lancedb-cpp (> 1: lancedb-cpp is faster), build throughput
lancedb-cpp / LanceDB (docs/s), memory lancedb-cpp / LanceDB. Targets: query latency <= 1/3 of
LanceDB's (ratio >= 3), build throughput >= 2x LanceDB's, peak memory <= LanceDB's.

    python3 bench/bench_fts.py [--docs 1000000] [--queries 100] [--budget 30]
                               [--engines cpp,lancedb] [--data-dir DIR] [--skip-real]
                               [--json out.json]
"""

import argparse
import ast
import glob
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import warnings

import numpy as np
import pyarrow as pa

SEED = 7
BATCH = 65_536
MIN_QUERIES = 50
KINDS = ("term_freq", "term_med", "term_rare", "or", "and", "phrase")
LABELS = {
    "term_freq": "1 frequent word",
    "term_med": "1 medium word",
    "term_rare": "1 rare word",
    "or": "3 words OR",
    "and": "2 words AND",
    "phrase": "phrase, 2 words",
}
CONSONANTS = "bdfgklmnprstvz"
VOWELS = "aeiou"
# NLTK's English stop words, LanceDB's list for language="English" (198 words).
STOP_WORDS = frozenset("""
a about above after again against ain all am an and any are aren aren't as at be because been
before being below between both but by can couldn couldn't d did didn didn't do does doesn
doesn't doing don don't down during each few for from further had hadn hadn't has hasn hasn't
have haven haven't having he he'd he'll he's her here hers herself him himself his how i i'd
i'll i'm i've if in into is isn isn't it it'd it'll it's its itself just ll m ma me mightn
mightn't more most mustn mustn't my myself needn needn't no nor not now o of off on once only or
other our ours ourselves out over own re s same shan shan't she she'd she'll she's should
should've shouldn shouldn't so some such t than that that'll the their theirs them themselves
then there these they they'd they'll they're they've this those through to too under until up
ve very was wasn wasn't we we'd we'll we're we've were weren weren't what when where which while
who whom why will with won won't wouldn wouldn't y you you'd you'll you're you've your yours
yourself yourselves""".split())


# Data (child "gen") ----------------------------------------------------------------------------

def vocabulary(size: int) -> list:
    """size distinct made-up words of 2-4 CV syllables, in a seeded random order (= Zipf rank)."""
    rng = np.random.default_rng([SEED, 1])
    syllables = [c + v for c in CONSONANTS for v in VOWELS]
    words, seen = [], set()
    while len(words) < size:
        n = int(rng.integers(2, 5))
        w = "".join(syllables[i] for i in rng.integers(0, len(syllables), n))
        if w not in seen and w not in STOP_WORDS:
            seen.add(w)
            words.append(w)
    return words


SCHEMA = pa.schema([("id", pa.int64()), ("text", pa.utf8())])


def write_synthetic(path: pathlib.Path, docs: int, vocab_size: int, nq: int) -> dict:
    """Write the synthetic corpus; returns its statistics and the queries (word lists)."""
    words = vocabulary(vocab_size)
    blob = np.frombuffer("".join(w + " " for w in words).encode(), dtype=np.uint8)
    wlen = np.array([len(w) + 1 for w in words], dtype=np.int64)
    woff = np.zeros(vocab_size + 1, dtype=np.int64)
    np.cumsum(wlen, out=woff[1:])
    p = 1.0 / np.arange(1, vocab_size + 1)
    cdf = np.cumsum(p / p.sum())
    tokens = 0
    phrase_rng = np.random.default_rng([SEED, 2])
    phrases = []
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_stream(sink, SCHEMA) as writer:
        for b, start in enumerate(range(0, docs, BATCH)):
            n = min(BATCH, docs - start)
            rng = np.random.default_rng([SEED, 100 + b])
            lens = rng.integers(40, 81, n)
            t = np.minimum(np.searchsorted(cdf, rng.random(int(lens.sum())), side="right"),
                           vocab_size - 1)
            tokens += len(t)
            tl = wlen[t]
            ends = np.cumsum(tl)
            starts = ends - tl
            total = int(ends[-1])
            src = np.repeat(woff[t] - starts, tl) + np.arange(total)
            data = blob[src]
            doc_end_tok = np.cumsum(lens) - 1
            doc_first_tok = doc_end_tok - lens + 1
            # documents are contiguous, so each keeps the space after its last word
            offsets = np.zeros(n + 1, dtype=np.int32)
            offsets[1:] = ends[doc_end_tok]
            text = pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(data))
            writer.write_batch(pa.record_batch(
                [pa.array(np.arange(start, start + n, dtype=np.int64)), text], schema=SCHEMA))
            if b == 0:  # phrases: two consecutive words of random documents of the first batch
                for d in phrase_rng.integers(0, n, nq + 1):
                    i = int(doc_first_tok[d] + phrase_rng.integers(0, lens[d] - 1))
                    phrases.append(f"{words[t[i]]} {words[t[i + 1]]}")
    rng = np.random.default_rng([SEED, 3])

    def pick(lo, hi, k):
        return [words[i] for i in rng.integers(lo, min(hi, vocab_size), k)]

    nq1 = nq + 1  # the first query of each kind is the warm-up
    freq, med, rare = (pick(0, 100, nq1), pick(1000, 5000, nq1),
                       pick(20_000, vocab_size, nq1))
    qs = {"term_freq": freq, "term_med": med, "term_rare": rare,
          "or": [" ".join(x) for x in zip(pick(0, 100, nq1), pick(1000, 5000, nq1),
                                          pick(20_000, vocab_size, nq1))],
          "and": [" ".join(x) for x in zip(pick(0, 100, nq1), pick(1000, 5000, nq1))],
          "phrase": phrases[:nq1]}
    return {"docs": docs, "tokens": tokens, "vocab": vocab_size, "queries": qs,
            "description": f"{docs:,} synthetic documents, {tokens:,} words (Zipf, s = 1) out "
                           f"of {vocab_size:,} made-up words"}


TOKEN = re.compile(r"[0-9a-z]+")
WORD = re.compile(r"[a-z]{3,}")


def real_documents() -> tuple:
    """The real corpus: unique paragraphs of stdlib docstrings and Debian copyright files."""
    paras, seen, sources = [], set(), {"docstrings": 0, "copyright": 0}

    def add(text, source):
        for p in re.split(r"\n\s*\n", text):
            p = " ".join(p.split())
            if len(p.split()) >= 3 and p not in seen:
                seen.add(p)
                paras.append(p)
                sources[source] += 1

    root = pathlib.Path(sysconfig.get_paths()["stdlib"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for f in sorted(root.rglob("*.py")):
            if "site-packages" in f.parts:
                continue
            try:
                tree = ast.parse(f.read_bytes())
            except (SyntaxError, ValueError):
                continue
            for node in ast.walk(tree):
                if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                     ast.AsyncFunctionDef)):
                    d = ast.get_docstring(node, clean=True)
                    if d:
                        add(d, "docstrings")
    files = sorted(set(glob.glob("/usr/share/doc/*/copyright"))
                   | set(glob.glob("/usr/share/common-licenses/*")))
    for f in files:
        try:
            add(pathlib.Path(f).read_text(encoding="utf-8", errors="replace"), "copyright")
        except OSError:
            continue
    desc = (f"{len(paras):,} unique paragraphs: {sources['docstrings']:,} of Python "
            f"{sys.version.split()[0]} stdlib docstrings ({root}) + {sources['copyright']:,} of "
            f"Debian /usr/share/doc/*/copyright and /usr/share/common-licenses/*")
    return paras, desc


def write_real(path: pathlib.Path, nq: int) -> dict:
    paras, desc = real_documents()
    df, tokens, pairs = {}, 0, []
    for d, p in enumerate(paras):
        toks = TOKEN.findall(p.lower())
        tokens += len(toks)
        for w in set(toks):
            if WORD.fullmatch(w) and w not in STOP_WORDS:
                df[w] = df.get(w, 0) + 1
        pairs.append(toks)
    by_df = sorted(df, key=lambda w: (-df[w], w))
    n = len(paras)
    freq = by_df[:100]
    med = [w for w in by_df if n * 0.001 <= df[w] <= n * 0.01]
    rare = [w for w in by_df if 2 <= df[w] <= 5]
    rng = np.random.default_rng([SEED, 4])
    nq1 = nq + 1

    def pick(pool, k):
        return [pool[i] for i in rng.integers(0, len(pool), k)]

    ok = lambda w: WORD.fullmatch(w) and w not in STOP_WORDS  # noqa: E731
    phrases = []
    while len(phrases) < nq1:
        toks = pairs[int(rng.integers(0, n))]
        cands = [i for i in range(len(toks) - 1) if ok(toks[i]) and ok(toks[i + 1])]
        if cands:
            i = cands[int(rng.integers(0, len(cands)))]
            phrases.append(f"{toks[i]} {toks[i + 1]}")
    qs = {"term_freq": pick(freq, nq1), "term_med": pick(med, nq1), "term_rare": pick(rare, nq1),
          "or": [" ".join(x) for x in zip(pick(freq, nq1), pick(med, nq1), pick(rare, nq1))],
          "and": [" ".join(x) for x in zip(pick(freq, nq1), pick(med, nq1))],
          "phrase": phrases}
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_stream(sink, SCHEMA) as writer:
        for start in range(0, n, BATCH):
            chunk = paras[start:start + BATCH]
            writer.write_batch(pa.record_batch(
                [pa.array(np.arange(start, start + len(chunk), dtype=np.int64)),
                 pa.array(chunk, pa.utf8())], schema=SCHEMA))
    return {"docs": n, "tokens": tokens, "vocab": len(df), "queries": qs,
            "description": f"{desc}; {tokens:,} tokens"}


# Child: one engine, one stage -------------------------------------------------------------------

def vm_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def peak_mib() -> float:
    return vm_kib("VmHWM") / 1024


def dir_bytes(path: pathlib.Path) -> dict:
    if not path.is_dir():
        return {}
    return {d.name: sum(f.stat().st_size for f in d.rglob("*") if f.is_file())
            for d in path.iterdir()}


def child(args) -> None:
    warnings.simplefilter("ignore")
    if args.side == "cpp":
        import lancedb_cpp as engine
        from lancedb_cpp.query import MatchQuery, PhraseQuery
    else:
        import lancedb as engine
        from lancedb.query import MatchQuery, PhraseQuery
    out = {"load_start": os.getloadavg()[0], "errors": {}}
    if args.side == "cpp":
        native = pathlib.Path(engine._native.__file__)
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(native.stat().st_mtime))
        md5 = hashlib.md5(native.read_bytes()).hexdigest()[:12]
        out["build"] = f"{native.name} md5 {md5}, installed {stamp} UTC"
    else:
        out["build"] = f"lancedb {engine.__version__}"
    db = engine.connect(str(pathlib.Path(args.work) / args.side))
    out["rss_baseline_mib"] = peak_mib()

    if args.stage == "write":
        reader = pa.ipc.open_stream(pa.OSFile(args.data, "rb"))
        start = time.perf_counter()
        table = db.create_table("t", reader)
        out["write_s"] = time.perf_counter() - start
        out["rows"] = table.count_rows()
        out["peak_rss_mib"] = peak_mib()
        print(json.dumps(out))
        return

    table = db.open_table("t")
    index_dir = pathlib.Path(args.work) / args.side / "t.lance" / "_indices"
    before = dir_bytes(index_dir)
    positions = args.stage == "phrase"
    start = time.perf_counter()
    if positions:
        table.create_fts_index("text", with_position=True, replace=True)
    else:
        table.create_fts_index("text")
    out["build_s"] = time.perf_counter() - start
    out["build_peak_rss_mib"] = peak_mib()
    after = dir_bytes(index_dir)
    out["size_bytes"] = sum(s for d, s in after.items() if d not in before)

    with open(args.qfile) as f:
        qs = json.load(f)

    def run(kind, q):
        if kind == "and":
            s = table.search(MatchQuery(q, "text", operator="AND"), query_type="fts")
        elif kind == "phrase":
            s = table.search(PhraseQuery(q, "text"), query_type="fts")
        else:
            s = table.search(q, query_type="fts")
        # select(["id"]): both add `_score` (lancedb-cpp rejects "_score" in select(), LanceDB
        # takes it)
        return s.limit(10).select(["id"]).to_arrow()

    out["latency_s"], out["results"] = {}, {}
    kinds = ("phrase",) if positions else tuple(k for k in KINDS if k != "phrase")
    for kind in kinds:
        items = qs[kind]
        times, results = [], []
        try:
            run(kind, items[0])  # warm-up
            for q in items[1:]:
                start = time.perf_counter()
                r = run(kind, q)
                times.append(time.perf_counter() - start)
                results.append([r["id"].to_pylist(),
                                [round(float(x), 6) for x in r["_score"].to_pylist()]])
                if len(times) >= MIN_QUERIES and sum(times) > args.budget:
                    break
        except Exception as e:  # recorded and reported by the parent
            out["errors"][kind] = f"{type(e).__name__}: {e}"[:500]
            if not times:
                continue
        out["latency_s"][kind] = {"median": float(np.median(times)),
                                  "p95": float(np.percentile(times, 95)), "n": len(times),
                                  "mean": float(np.mean(times))}
        out["results"][kind] = results
    out["peak_rss_mib"] = peak_mib()
    out["load_end"] = os.getloadavg()[0]
    print(json.dumps(out))


# Parent ---------------------------------------------------------------------------------------

CHILD_ENV = {**os.environ, "RUST_LOG": "error"}


def snapshot_package(base: pathlib.Path) -> str:
    """Copy the installed lancedb_cpp package under base and make the children import that copy,
    so that a reinstall during the run neither changes the build measured nor crashes a child
    (an overwritten, memory-mapped _native .so gives SIGBUS)."""
    import importlib.util
    spec = importlib.util.find_spec("lancedb_cpp")
    if spec is None or not spec.submodule_search_locations:
        return "lancedb_cpp not installed"
    src = pathlib.Path(list(spec.submodule_search_locations)[0])
    dst = base / "pkg"
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst / "lancedb_cpp", ignore=shutil.ignore_patterns("__pycache__"))
    CHILD_ENV["PYTHONPATH"] = os.pathsep.join(
        [str(dst)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []))
    return f"lancedb_cpp copied from {src} to {dst / 'lancedb_cpp'} for this run"


def run_child(side: str, stage: str, args, work: pathlib.Path, data: pathlib.Path,
              queries: pathlib.Path) -> dict:
    cmd = [sys.executable, __file__, "--child", side, "--stage", stage, "--work", str(work),
           "--data", str(data), "--qfile", str(queries), "--budget", str(args.budget)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=CHILD_ENV)
    if proc.returncode != 0:
        return {"failed": f"{side} {stage} child failed (status {proc.returncode}): "
                          f"{proc.stderr[-3000:]}"}
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["child_s"] = time.perf_counter() - start
    return result


def agreement(a: list, b: list) -> str:
    """'same', 'ties' (differs only among tied scores) or 'differ'."""
    ids_a, sc_a = a
    ids_b, sc_b = b
    if ids_a == ids_b:
        return "same"
    if len(ids_a) != len(ids_b):
        return "differ"

    def tied(score, ref):
        return abs(score - ref) <= 1e-4 * max(abs(ref), 1e-9)

    da, db_ = dict(zip(ids_a, sc_a)), dict(zip(ids_b, sc_b))
    if not ids_a:
        return "same"
    last_a, last_b = sc_a[-1], sc_b[-1]
    if not tied(last_a, last_b) and abs(last_a - last_b) > 1e-3:
        return "differ"
    if any(not tied(da[i], last_a) for i in set(ids_a) - set(ids_b)):
        return "differ"
    if any(not tied(db_[i], last_b) for i in set(ids_b) - set(ids_a)):
        return "differ"
    # same sets (apart from boundary ties): scores of common ids must agree, order up to ties
    for i in set(ids_a) & set(ids_b):
        if not tied(da[i], db_[i]) and abs(da[i] - db_[i]) > 1e-3:
            return "differ"
    return "ties"


def score_diff(a: list, b: list) -> float:
    da, db_ = dict(zip(*a)), dict(zip(*b))
    common = set(da) & set(db_)
    return max((abs(da[i] - db_[i]) / max(abs(db_[i]), 1e-9) for i in common), default=0.0)


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def bench_dataset(name: str, meta: dict, data: pathlib.Path, qfile: pathlib.Path,
                  work: pathlib.Path, args, engines: list) -> dict:
    res = {}
    for side in engines:
        res[side] = {}
        for stage in ("write", "fts", "phrase"):
            t0 = time.strftime("%H:%M:%S")
            r = run_child(side, stage, args, work, data, qfile)
            res[side][stage] = r
            if "failed" in r:
                print(f"  {name} {side} {stage}: FAILED\n{r['failed']}", flush=True)
                break
            extra = (f"create_table {r['write_s']:.1f} s" if stage == "write"
                     else f"build {r['build_s']:.1f} s, peak RSS {r['build_peak_rss_mib']:.0f} MiB")
            print(f"  {name} {side} {stage} ({t0}, {r['child_s']:.1f} s): {extra}", flush=True)
        shutil.rmtree(work / side, ignore_errors=True)
    return res


def report(name: str, meta: dict, res: dict, engines: list, args) -> dict:
    c, l = res.get("cpp", {}), res.get("lancedb", {})
    rows = []  # (label, cpp, lancedb, unit, ratio, ratio kind)

    def g(r, stage, *keys):
        x = r.get(stage, {})
        for k in keys:
            if not isinstance(x, dict) or k not in x:
                return None
            x = x[k]
        return x

    def add(label, a, b, unit, kind):
        ratio = None
        if a is not None and b is not None and a and b:
            ratio = {"lat": b / a, "thr": b / a, "mem": a / b, "info": a / b}[kind]
        rows.append((label, a, b, unit, ratio, kind))

    docs = meta["docs"]
    add("create_table", g(c, "write", "write_s"), g(l, "write", "write_s"), "s", "info")
    for stage, what in (("fts", "no positions"), ("phrase", "with positions")):
        add(f"FTS build, {what}", g(c, stage, "build_s"), g(l, stage, "build_s"), "s", "thr")
        a, b = g(c, stage, "build_s"), g(l, stage, "build_s")
        rows.append((f"  throughput, {what}", a and docs / a, b and docs / b, "docs/s",
                     (b / a) if a and b else None, "thr"))
        add(f"  index size, {what}", g(c, stage, "size_bytes") and g(c, stage, "size_bytes") / 2**20,
            g(l, stage, "size_bytes") and g(l, stage, "size_bytes") / 2**20, "MiB", "info")
        add(f"  peak RSS of the build, {what}", g(c, stage, "build_peak_rss_mib"),
            g(l, stage, "build_peak_rss_mib"), "MiB", "mem")
    add("peak RSS of create_table", g(c, "write", "peak_rss_mib"),
        g(l, "write", "peak_rss_mib"), "MiB", "mem")
    nq = {}
    for kind in KINDS:
        stage = "phrase" if kind == "phrase" else "fts"
        for stat in ("median", "p95"):
            a = g(c, stage, "latency_s", kind, stat)
            b = g(l, stage, "latency_s", kind, stat)
            label = f"{LABELS[kind]}: {stat}"
            add(label, a and a * 1e3, b and b * 1e3, "ms", "lat")
            nq[label] = "/".join(str(g(r, stage, "latency_s", kind, "n") or 0)
                                 for r in (c, l) if r)

    print(f"\n=== {name}: {meta['description']}")
    for side, r in res.items():
        w = r.get("write", {})
        if "build" in w:
            print(f"  {side}: {w['build']}; RSS after imports {w['rss_baseline_mib']:.0f} MiB")
        builds = {r[s]["build"] for s in r if "build" in r[s]}
        if len(builds) > 1:
            print(f"  !!! {side}: the build changed during the run: {sorted(builds)}")
    for side, r in res.items():
        loads = [f"{s} {r[s]['load_start']:.1f}" for s in ("write", "fts", "phrase")
                 if s in r and "load_start" in r[s]]
        print(f"  load at stage start, {side}: " + ", ".join(loads))
    print(f"{'measure':<44} {'lancedb-cpp':>14} {'LanceDB':>14} {'ratio':>7}  queries")

    def fmt(v, unit):
        if v is None:
            return "-"
        if unit == "ms":
            return f"{v:.3f} ms"
        if unit == "s":
            return f"{v:.2f} s"
        if unit == "docs/s":
            return f"{v:,.0f}/s"
        return f"{v:.1f} {unit}"

    for label, a, b, unit, ratio, kind in rows:
        print(f"{label:<44} {fmt(a, unit):>14} {fmt(b, unit):>14} "
              f"{'-' if ratio is None else f'{ratio:.2f}':>7}  {nq.get(label, '')}")
    print("ratios: latency LanceDB/cpp (>1: lancedb-cpp faster); build throughput cpp/LanceDB; "
          "memory and the rest cpp/LanceDB")

    # correctness
    problems, agree = [], {}
    for side, r in res.items():
        for stage in ("write", "fts", "phrase"):
            if "failed" in r.get(stage, {}):
                problems.append(r[stage]["failed"])
            for kind, err in r.get(stage, {}).get("errors", {}).items():
                problems.append(f"{side} failed on {kind}: {err}")
        rows_written = r.get("write", {}).get("rows")
        if rows_written is not None and rows_written != docs:
            problems.append(f"{side}: count_rows {rows_written} after writing {docs}")
    if c and l:
        print("top-10 agreement (same ids in the same order / same up to tied scores / differ; "
              "max relative score difference of common ids):")
        for kind in KINDS:
            stage = "phrase" if kind == "phrase" else "fts"
            ra, rb = g(c, stage, "results", kind), g(l, stage, "results", kind)
            if not ra or not rb:
                continue
            counts = {"same": 0, "ties": 0, "differ": 0}
            sd = 0.0
            for i, (a, b) in enumerate(zip(ra, rb)):
                v = agreement(a, b)
                counts[v] += 1
                sd = max(sd, score_diff(a, b))
                if v == "differ" and len([p for p in problems if p.startswith(kind)]) < 3:
                    q = meta["queries"][kind][i + 1]
                    problems.append(f"{kind} [{q}]: lancedb-cpp {list(zip(*a))} vs LanceDB "
                                    f"{list(zip(*b))}")
            agree[kind] = counts
            hits = np.mean([len(x[0]) for x in rb])
            print(f"  {LABELS[kind]:<18} {counts['same']:>4} / {counts['ties']:>3} / "
                  f"{counts['differ']:>3}   max score diff {sd:.2e}   mean hits (LanceDB) "
                  f"{hits:.1f}")
    if problems:
        print(f"!!! {len(problems)} problems:")
        for p in problems[:30]:
            print("  " + p[:1500])

    targets = {}
    if c and l:
        lat = [(lab, r) for lab, a, b, u, r, k in rows if k == "lat" and "median" in lab]
        miss = [f"{lab.split(':')[0]} ({'-' if r is None else f'{r:.2f}x'})" for lab, r in lat
                if r is None or r < 3]
        thr = [r for lab, a, b, u, r, k in rows if k == "thr" and lab.startswith("  throughput")]
        mem = [r for lab, a, b, u, r, k in rows if k == "mem" and "build" in lab]
        targets = {
            "latency": ("met" if lat and not miss else "NOT met for " + "; ".join(miss)),
            "build": ", ".join("-" if r is None else f"{r:.2f}x" for r in thr),
            "memory": ", ".join("-" if r is None else f"{r:.2f}" for r in mem),
        }
        print("targets:")
        print(f"  query latency <= 1/3 of LanceDB's (median): {targets['latency']}")
        ok = all(r is not None and r >= 2 for r in thr)
        print(f"  build throughput >= 2x LanceDB's: {'met' if ok else 'NOT met'} "
              f"(no positions, with positions: {targets['build']})")
        ok = all(r is not None and r <= 1 for r in mem)
        print(f"  peak memory of the build <= LanceDB's: {'met' if ok else 'NOT met'} "
              f"(cpp/LanceDB, no positions, with positions: {targets['memory']})")
    return {"rows": rows, "agreement": agree, "problems": problems, "targets": targets}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--docs", type=int, default=1_000_000, help="synthetic documents")
    p.add_argument("--vocab", type=int, default=50_000, help="synthetic vocabulary size")
    p.add_argument("--queries", type=int, default=100, help="timed queries per kind (>= %d)"
                   % MIN_QUERIES)
    p.add_argument("--budget", type=float, default=30.0,
                   help="stop timing a query kind after this many seconds (once %d ran)"
                   % MIN_QUERIES)
    p.add_argument("--engines", default="cpp,lancedb", help="engines, in run order")
    p.add_argument("--data-dir", help="where the data and tables go (default: a temp dir, "
                                      "removed at the end)")
    p.add_argument("--skip-real", action="store_true", help="synthetic corpus only")
    p.add_argument("--json", help="also write the raw figures here")
    p.add_argument("--child", choices=["cpp", "lancedb", "gen"], help=argparse.SUPPRESS)
    p.add_argument("--stage", help=argparse.SUPPRESS)
    p.add_argument("--work", help=argparse.SUPPRESS)
    p.add_argument("--data", help=argparse.SUPPRESS)
    p.add_argument("--qfile", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child == "gen":
        start = time.perf_counter()
        data = pathlib.Path(args.data)
        meta = (write_real(data, args.queries) if args.stage == "real"
                else write_synthetic(data, args.docs, args.vocab, args.queries))
        meta["seconds"] = time.perf_counter() - start
        meta["bytes"] = data.stat().st_size
        with open(str(data) + ".json", "w") as f:
            json.dump(meta, f)
        print(json.dumps({"ok": True}))
        return 0
    if args.child:
        args.side = args.child
        child(args)
        return 0
    engines = args.engines.split(",")
    if not engines or any(e not in ("cpp", "lancedb") for e in engines) or \
            len(set(engines)) != len(engines):
        p.error("--engines takes cpp, lancedb or both, comma-separated")
    if args.queries < MIN_QUERIES:
        p.error(f"--queries must be at least {MIN_QUERIES}")

    up_start = uptime()
    print(f"start: {up_start}", flush=True)
    print(f"machine: {os.cpu_count()} CPUs; FTS indices built with the default options "
          f"(num_workers, memory_limit unset) on both engines", flush=True)
    base = pathlib.Path(args.data_dir) if args.data_dir else \
        pathlib.Path(tempfile.mkdtemp(prefix="bench_fts_"))
    base.mkdir(parents=True, exist_ok=True)
    if "cpp" in engines:
        print(snapshot_package(base), flush=True)
    out, status = {}, 0
    try:
        sets = [("synthetic", "synthetic")] + ([] if args.skip_real else [("real", "real")])
        for name, kind in sets:
            work = base / name
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir(parents=True)
            data = work / "data.arrows"
            gen = subprocess.run([sys.executable, __file__, "--child", "gen", "--stage", kind,
                                  "--docs", str(args.docs), "--vocab", str(args.vocab),
                                  "--queries", str(args.queries), "--data", str(data)],
                                 capture_output=True, text=True)
            if gen.returncode != 0:
                raise SystemExit(f"data generation failed:\n{gen.stderr[-3000:]}")
            with open(str(data) + ".json") as f:
                meta = json.load(f)
            qfile = work / "queries.json"
            with open(qfile, "w") as f:
                json.dump(meta["queries"], f)
            print(f"{name}: {meta['description']}; {meta['bytes'] / 2**20:.0f} MiB Arrow IPC, "
                  f"generated in {meta['seconds']:.1f} s", flush=True)
            res = bench_dataset(name, meta, data, qfile, work, args, engines)
            summary = report(name, meta, res, engines, args)
            if summary["problems"]:
                status = 1
            out[name] = {"meta": {k: v for k, v in meta.items() if k != "queries"},
                         "results": res, "summary": {k: v for k, v in summary.items()
                                                     if k != "rows"}}
    finally:
        if not args.data_dir:
            shutil.rmtree(base, ignore_errors=True)
    up_end = uptime()
    print(f"\nstart: {up_start}\nend:   {up_end}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "uptime_start": up_start, "uptime_end": up_end,
                       **out}, f, indent=1)
    return status


if __name__ == "__main__":
    sys.exit(main())
