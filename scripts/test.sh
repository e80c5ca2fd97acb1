#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
#
# Set everything up on a fresh machine and run all the tests:
#   1. install dependencies (scripts/setup.sh),
#   2. release build with warnings as errors; all C++ tests (ctest: labels fast and slow),
#   3. Python compatibility tests against pylance/pyarrow (pytest tests/),
#      the lancedb_cpp package (pip install ./python, reusing the release build) and its tests
#      (concurrent writers of both engines, 200 SIGKILLs of a writer, ...),
#   4. ASan+UBSan build of the C++ tests; fast C++ tests again,
#   5. ThreadSanitizer build (Clang, with -Wthread-safety) of the concurrency tests,
#   6. the libFuzzer targets, each for a bounded number of executions (scripts/fuzz.sh).
# Set LANCEDB_SKIP_SANITIZE=1 / LANCEDB_SKIP_TSAN=1 / LANCEDB_SKIP_FUZZ=1 to skip step 4 / 5 / 6
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

bash scripts/setup.sh
# The oracles must be importable: a test module that cannot import them would only be skipped.
python3 -c "import lance, lancedb, pyarrow, pandas, numpy, duckdb"

echo "== release build"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DLANCEDB_WERROR=ON -DLANCEDB_BUILD_PYTHON=ON \
  >/dev/null
cmake --build build -j "$JOBS"

echo "== C++ tests (release)"
ctest --test-dir build --output-on-failure -j "$JOBS"

echo "== find_package(lancedb) from an installed tree"
rm -rf build/install build/consumer
cmake --install build --prefix build/install >/dev/null
cmake -S examples/find_package -B build/consumer -G Ninja -DCMAKE_PREFIX_PATH="$PWD/build/install" >/dev/null
cmake --build build/consumer >/dev/null
./build/consumer/consumer

echo "== Python compatibility tests"
python3 -m pytest tests -q -p no:cacheprovider

echo "== Python package lancedb_cpp"
# The wheel is built in the release build directory with the same options, so nothing is
# compiled twice; scikit-build-core installs only the module's "python" component.
python3 -m pip install -q --disable-pip-version-check --no-build-isolation --force-reinstall \
  --no-deps -Cbuild-dir="$PWD/build" -Ccmake.define.LANCEDB_BUILD_PYTHON=ON \
  -Ccmake.define.LANCEDB_BUILD_TESTS=ON -Ccmake.define.LANCEDB_BUILD_TOOLS=ON \
  -Ccmake.define.LANCEDB_WERROR=ON ./python
# From the repository root, so that the installed package is imported, not python/lancedb_cpp.
python3 -m pytest python/tests -q -p no:cacheprovider

if [ "${LANCEDB_SKIP_SANITIZE:-0}" != "1" ]; then
  echo "== C++ tests (ASan + UBSan)"
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DLANCEDB_SANITIZE=ON \
    -DLANCEDB_BUILD_TOOLS=OFF >/dev/null
  cmake --build build-asan -j "$JOBS"
  ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build-asan -L fast --output-on-failure -j "$JOBS"
fi
if [ "${LANCEDB_SKIP_TSAN:-0}" != "1" ]; then
  echo "== concurrency tests (ThreadSanitizer; Clang checks the thread-safety annotations)"
  CC=clang-14 CXX=clang++-14 cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    -DLANCEDB_TSAN=ON -DLANCEDB_WERROR=ON -DLANCEDB_BUILD_TOOLS=OFF >/dev/null
  cmake --build build-tsan -j "$JOBS" --target db_test table_test
  export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
  ./build-tsan/src/table/table_test --gtest_filter='Commit*:CompactionRace*:Dataset*'
  ./build-tsan/src/db/db_test \
    --gtest_filter='ConcurrentWriters*:TableQuery.Concurrent*:*EightThreads*:*ReadConsistency*:MultivectorSearch.IndexedRecall*'
  unset TSAN_OPTIONS
fi
if [ "${LANCEDB_SKIP_FUZZ:-0}" != "1" ]; then
  echo "== fuzz targets (libFuzzer, bounded)"
  LANCEDB_FUZZ_RUNS="${LANCEDB_FUZZ_RUNS:-20000}" LANCEDB_FUZZ_SECS="${LANCEDB_FUZZ_SECS:-30}" \
    bash scripts/fuzz.sh
fi
echo "== all tests passed"
