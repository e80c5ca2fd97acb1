#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
#
# Configure and build one of the project's three builds, with the options every script that
# uses it must agree on (a second configure with other options would rebuild everything):
#
#   scripts/build.sh release [targets...]  build/       GCC -O3, warnings as errors, the Python
#                                                        module, tools and benchmarks
#   scripts/build.sh san     [targets...]  build-san/   Clang -O1, ASan + UBSan + libFuzzer
#                                                        coverage: the sanitizer tests and the
#                                                        fuzz targets (scripts/fuzz.sh)
#   scripts/build.sh tsan    [targets...]  build-tsan/  Clang -O1, ThreadSanitizer and
#                                                        -Wthread-safety: the concurrency tests
#
# Without targets the whole build (tsan: its two concurrency test binaries).
#
# All three are unity builds (CMake joins each target's sources, UNITY_BATCH at a time, into
# one translation unit: the headers are parsed and the inline code generated once per batch,
# not once per file); LANCEDB_UNITY_BATCH=1 builds file by file. Measured in docs/testing.md.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="${LANCEDB_JOBS:-$(nproc)}"
kind="${1:?usage: scripts/build.sh release|san|tsan [targets...]}"
shift
targets=("$@")
unity=(-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE="${LANCEDB_UNITY_BATCH:-8}")
[ "${LANCEDB_UNITY_BATCH:-8}" != 1 ] || unity=(-DCMAKE_UNITY_BUILD=OFF)
case "$kind" in
  release)
    dir=build
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DLANCEDB_WERROR=ON \
      -DLANCEDB_BUILD_PYTHON=ON "${unity[@]}" >/dev/null
    ;;
  san)
    dir=build-san
    # The library at -O1 (at -O0 the instrumented tests run five times as long), the test files
    # at -O0 (they are 40 % of the build; the tests spend their time in the library); line
    # tables symbolize stack traces without the cost of full debug information. Measured in
    # docs/testing.md.
    CC=clang-14 CXX=clang++-14 cmake -S . -B build-san -G Ninja -DCMAKE_BUILD_TYPE=Debug \
      -DCMAKE_C_FLAGS_DEBUG="-O1 -gline-tables-only" \
      -DCMAKE_CXX_FLAGS_DEBUG="-O1 -gline-tables-only" -DLANCEDB_TEST_COMPILE_OPTIONS=-O0 \
      -DLANCEDB_SANITIZE=ON -DLANCEDB_FUZZ=ON -DLANCEDB_WERROR=ON -DLANCEDB_BUILD_TOOLS=OFF \
      "${unity[@]}" >/dev/null
    ;;
  tsan)
    dir=build-tsan
    CC=clang-14 CXX=clang++-14 cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug \
      -DCMAKE_C_FLAGS_DEBUG="-O1 -gline-tables-only" \
      -DCMAKE_CXX_FLAGS_DEBUG="-O1 -gline-tables-only" -DLANCEDB_TEST_COMPILE_OPTIONS=-O0 \
      -DLANCEDB_TSAN=ON -DLANCEDB_WERROR=ON -DLANCEDB_BUILD_TOOLS=OFF "${unity[@]}" >/dev/null
    [ ${#targets[@]} -gt 0 ] || targets=(table_tsan_test db_tsan_test)
    ;;
  *)
    echo "unknown build '$kind' (release, san or tsan)" >&2
    exit 2
    ;;
esac
if [ ${#targets[@]} -gt 0 ]; then
  cmake --build "$dir" -j "$JOBS" --target "${targets[@]}"
else
  cmake --build "$dir" -j "$JOBS"
fi
