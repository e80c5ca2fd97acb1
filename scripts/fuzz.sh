#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
#
# Build the libFuzzer targets (src/*/*_fuzz.cc) in the sanitizer build (build-san/: clang, ASan,
# UBSan and libFuzzer's coverage; scripts/build.sh san), then run each one for a bounded number
# of executions from its seed corpus (fuzz/corpus/<target>/).
# New inputs found go to a scratch directory, never into the checked-in corpus.
#   LANCEDB_FUZZ_RUNS   executions per target (default 20000)
#   LANCEDB_FUZZ_SECS   time limit per target in seconds (default 30)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${LANCEDB_FUZZ_RUNS:-20000}"
SECS="${LANCEDB_FUZZ_SECS:-30}"

targets=()
for src in src/*/*_fuzz.cc; do targets+=("$(basename "$src" .cc)"); done
bash scripts/build.sh san "${targets[@]}"

failed=()
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
for t in "${targets[@]}"; do
  echo "== fuzz $t ($RUNS runs, at most ${SECS}s)"
  mkdir -p "$scratch/$t"
  seeds=()
  [ -d "fuzz/corpus/$t" ] && seeds+=("fuzz/corpus/$t")
  set +e
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
    "build-san/fuzz/$t" -runs="$RUNS" -max_total_time="$SECS" -max_len=65536 -rss_limit_mb=2048 \
    -timeout=10 -print_final_stats=1 -artifact_prefix="$scratch/$t-" "$scratch/$t" "${seeds[@]}" \
    >"$scratch/$t.log" 2>&1
  rc=$?
  set -e
  grep -E "^(Done|stat::number_of_executed_units|#[0-9]+ +DONE)" "$scratch/$t.log" || true
  if [ "$rc" -ne 0 ]; then
    tail -n 40 "$scratch/$t.log" >&2
    mkdir -p build-san/fuzz/artifacts && cp "$scratch/$t"-* build-san/fuzz/artifacts/ 2>/dev/null || true
    echo "fuzz target $t failed (exit $rc); inputs kept in build-san/fuzz/artifacts/" >&2
    failed+=("$t")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "== fuzzing failed: ${failed[*]}" >&2
  exit 1
fi
echo "== fuzzing passed"
