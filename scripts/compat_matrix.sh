#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
#
# Compatibility matrix: run the compatibility tests against other releases of pylance and
# LanceDB than the pinned ones of scripts/setup.sh (default: the newest on PyPI), in a virtual
# environment of their own: tables they write are read identically by lancedb-cpp, and tables
# lancedb-cpp writes are read by them.
#
#   scripts/compat_matrix.sh                          # newest pylance and lancedb
#   PYLANCE=13.0.0 LANCEDB=0.39.0 scripts/compat_matrix.sh
#
# Needs the release build of scripts/test.sh in ./build (its C++ producers and the package).
set -euo pipefail
cd "$(dirname "$0")/.."
PYLANCE="${PYLANCE:-}"
LANCEDB="${LANCEDB:-}"
VENV="build/compat-venv-${PYLANCE:-newest}-${LANCEDB:-newest}"
[ -d build ] || { echo "run scripts/test.sh first (it builds ./build)"; exit 1; }
python3 -m venv "$VENV"
PY="$VENV/bin/python"
"$PY" -m pip install -q --disable-pip-version-check pytest pyarrow numpy pandas duckdb \
  scikit-build-core nanobind "pylance${PYLANCE:+==$PYLANCE}" "lancedb${LANCEDB:+==$LANCEDB}"
"$PY" -c "import lance, lancedb; print('pylance', lance.__version__, '/ lancedb', lancedb.__version__)"
"$PY" -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps \
  -Cbuild-dir="$PWD/build" -Ccmake.define.LANCEDB_BUILD_PYTHON=ON \
  -Ccmake.define.LANCEDB_BUILD_TESTS=ON -Ccmake.define.LANCEDB_BUILD_TOOLS=ON ./python
LANCEDB_BUILD_DIR="$PWD/build" "$PY" -m pytest tests -q -p no:cacheprovider
"$PY" -m pytest python/tests/test_interop.py python/tests/test_oracle.py \
  python/tests/test_concurrent_writers.py -q -p no:cacheprovider
echo "== compatibility with pylance ${PYLANCE:-newest} / lancedb ${LANCEDB:-newest}: passed"
