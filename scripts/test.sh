#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
#
# Set everything up on a fresh machine and run all the tests:
#   1. install dependencies (scripts/setup.sh; quick when they are already there),
#   2. release build with warnings as errors; all C++ tests (ctest -j: labels fast and slow, the
#      long binaries in shards that start first),
#   3. Python compatibility tests against pylance/pyarrow (pytest tests/),
#      the lancedb_cpp package (pip install ./python, reusing the release build) and its tests
#      (concurrent writers of both engines, 200 SIGKILLs of a writer, ...), both with
#      pytest-xdist on every core,
#   4. the sanitizer build (Clang: ASan + UBSan + libFuzzer coverage); fast C++ tests again,
#   5. the libFuzzer targets of that same build, each for a bounded number of executions
#      (scripts/fuzz.sh),
#   6. ThreadSanitizer build (Clang, with -Wthread-safety) of the concurrency tests only.
# The builds are scripts/build.sh release|san|tsan. Each stage's wall time and the number of
# tests run are printed at the end (docs/testing.md records them).
# Set LANCEDB_SKIP_SANITIZE=1 / LANCEDB_SKIP_TSAN=1 / LANCEDB_SKIP_FUZZ=1 to skip step 4 / 6 / 5
# locally.
#
# The tables LanceDB wrote live in ../shared/fixtures beside the checkout (LANCEDB_FIXTURES_DIR
# overrides it). Because this script sets LANCEDB_FIXTURES_DIR and LANCEDB_BUILD_DIR, a test
# whose fixture or binary is missing fails instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="${LANCEDB_JOBS:-$(nproc)}"
export LANCEDB_SOURCE_DIR="$PWD"
export LANCEDB_FIXTURES_DIR="${LANCEDB_FIXTURES_DIR:-$(cd .. && pwd)/shared/fixtures}"
export LANCEDB_BUILD_DIR="$PWD/build"
REPORTS="$PWD/build/test-reports"

# Stage timings: `stage <name> <command...>` runs the command and records its wall time; the
# table is printed at the end, also when a stage fails.
STAGE_NAMES=()
STAGE_SECS=()
T_START=$SECONDS
stage() {
  local name="$1" t0=$SECONDS rc=0
  shift
  echo "== $name"
  "$@" || rc=$?
  STAGE_NAMES+=("$name")
  STAGE_SECS+=($((SECONDS - t0)))
  return $rc
}
summary() {
  local rc=$?
  echo
  echo "== stage timings (wall seconds)"
  local i
  for i in "${!STAGE_NAMES[@]}"; do
    printf '%6d  %s\n' "${STAGE_SECS[$i]}" "${STAGE_NAMES[$i]}"
  done
  printf '%6d  total\n' $((SECONDS - T_START))
  if [ -d "$REPORTS" ]; then
    python3 scripts/test_counts.py "$REPORTS" || true
  fi
  [ "$rc" -eq 0 ] && echo "== all tests passed" || echo "== FAILED (exit $rc)"
}
trap summary EXIT

stage "set-up" bash scripts/setup.sh
# The oracles must be importable: a test module that cannot import them would only be skipped.
python3 -c "import lance, lancedb, pyarrow, pandas, numpy, duckdb, xdist"

stage "release build" bash scripts/build.sh release
rm -rf "$REPORTS"
mkdir -p "$REPORTS"

# Each C++ binary (or shard) writes a JSON report of the tests it ran and pytest a JUnit XML
# report, from which the summary counts the tests (scripts/test_counts.py).
stage "C++ tests (release)" bash -c "
  export GTEST_OUTPUT='json:$REPORTS/cpp-release/'
  ctest --test-dir build --output-on-failure -j '$JOBS'"

consumer() {
  rm -rf build/install build/consumer
  cmake --install build --prefix build/install >/dev/null
  cmake -S examples/find_package -B build/consumer -G Ninja -DCMAKE_PREFIX_PATH="$PWD/build/install" \
    >/dev/null
  cmake --build build/consumer >/dev/null
  ./build/consumer/consumer
}
stage "find_package(lancedb) from an installed tree" consumer

PYTEST=(python3 -m pytest -q -p no:cacheprovider -n "$JOBS")
stage "Python compatibility tests" "${PYTEST[@]}" tests --junitxml="$REPORTS/python-compat.xml"

install_package() {
  # The wheel is built in the release build directory with the same options, so nothing is
  # compiled twice; scikit-build-core installs only the module's "python" component.
  python3 -m pip install -q --disable-pip-version-check --no-build-isolation --force-reinstall \
    --no-deps -Cbuild-dir="$PWD/build" -Ccmake.define.LANCEDB_BUILD_PYTHON=ON \
    -Ccmake.define.LANCEDB_BUILD_TESTS=ON -Ccmake.define.LANCEDB_BUILD_TOOLS=ON \
    -Ccmake.define.LANCEDB_WERROR=ON ./python
}
stage "Python package install" install_package
# From the repository root, so that the installed package is imported, not python/lancedb_cpp.
stage "Python package tests" "${PYTEST[@]}" python/tests --junitxml="$REPORTS/python-package.xml"

if [ "${LANCEDB_SKIP_SANITIZE:-0}" != "1" ] || [ "${LANCEDB_SKIP_FUZZ:-0}" != "1" ]; then
  stage "sanitizer build (ASan + UBSan + fuzzer coverage)" bash scripts/build.sh san
fi
if [ "${LANCEDB_SKIP_SANITIZE:-0}" != "1" ]; then
  stage "C++ tests (ASan + UBSan)" bash -c "
    export GTEST_OUTPUT='json:$REPORTS/cpp-asan/' ASAN_OPTIONS=detect_leaks=1
    ctest --test-dir build-san -L fast --output-on-failure -j '$JOBS'"
fi
if [ "${LANCEDB_SKIP_FUZZ:-0}" != "1" ]; then
  stage "fuzz targets (libFuzzer, bounded)" env \
    LANCEDB_FUZZ_RUNS="${LANCEDB_FUZZ_RUNS:-20000}" LANCEDB_FUZZ_SECS="${LANCEDB_FUZZ_SECS:-30}" \
    bash scripts/fuzz.sh
fi
if [ "${LANCEDB_SKIP_TSAN:-0}" != "1" ]; then
  stage "ThreadSanitizer build (concurrency tests)" bash scripts/build.sh tsan
  tsan_tests() {
    export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
    GTEST_OUTPUT="json:$REPORTS/cpp-tsan/table.json" ./build-tsan/src/table/table_tsan_test \
      --gtest_filter='Commit*:CompactionRace*:Dataset*'
    GTEST_OUTPUT="json:$REPORTS/cpp-tsan/db.json" ./build-tsan/src/db/db_tsan_test \
      --gtest_filter='ConcurrentWriters*:TableQuery.Concurrent*:*EightThreads*:*ReadConsistency*:MultivectorSearch.IndexedRecall*'
  }
  stage "concurrency tests (ThreadSanitizer)" tsan_tests
fi
