#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
#
# Set everything up on a fresh machine, build, and run the demo on a local database in
# ./demo_db (see tools/demo.cc).
set -euo pipefail
cd "$(dirname "$0")/.."
LANCEDB_SKIP_PIP="${LANCEDB_SKIP_PIP:-1}" bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "${LANCEDB_JOBS:-$(nproc)}" --target demo
./build/tools/demo "${1:-demo_db}"
