#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
#
# Soak runs of the concurrent-writer harness (python/tests/writers_harness.py) and of the crash
# harness (tests/crash/crash_harness.py): long versions of the bounded runs in
# python/tests/test_concurrent_writers.py and test_crash_safety.py. Each run prints a JSON summary
# (acknowledged and failed operations, rows, versions) and fails on any difference from the
# oracle. Figures go to docs/reliability.md.
#
#   scripts/soak.sh [seconds per run, default 300]      (KILLS=1000: writer kills)
#
# Needs the lancedb_cpp package installed (scripts/test.sh installs it) and LanceDB (pip).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_RUN="${1:-300}"
H=python/tests/writers_harness.py
run() {
  echo "== $*"
  python3 "$H" --seconds "$SECONDS_PER_RUN" "$@" 2>&1 | grep -v 'WARN\|Deprecat\|compact_files()'
}
run --threads 8 --ops append
run --threads 8 --ops append,compact
run --threads 8 --ops append,update,compact
run --threads 8 --ops append,delete,compact
run --threads 8 --ops append,delete,update,merge,compact,optimize,index
run --processes 3 --threads 3 --engines lancedb_cpp,lancedb,lancedb_cpp \
  --ops append,delete,update,merge,compact
echo "== crash safety: ${KILLS:-1000} SIGKILLs of a writer (tests/crash/crash_harness.py)"
LANCEDB_BUILD_DIR="$PWD/build" python3 tests/crash/crash_harness.py --kills "${KILLS:-1000}" --seed 3
echo "== soak passed"
