#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
#
# Run LanceDB's own Python test suite twice in one virtual environment: on LanceDB itself and on
# lancedb_cpp (`import lancedb` aliased to lancedb_cpp by scripts/lancedb_suite/sitecustomize.py),
# and print the per-file figures side by side (the table of docs/compatibility.md).
#
#   scripts/lancedb_suite.sh <LanceDB's python/python/tests directory> [pytest args...]
#
# The tests are LanceDB's (a checkout of the lancedb repository; they are not part of this
# repository) and run from a scratch copy. Needs lancedb_cpp installed (scripts/test.sh).
# LANCEDB_SUITE_ONLY=cpp|lancedb runs one side. A test that runs over 60 s (one that waits on
# a network this machine lacks) fails. The tests LanceDB marks slow (hosted embedding models and
# providers: they need the network) are left out on both sides: without a network they only
# retry, and an async one keeps its worker thread sleeping between retries past the timeout.
set -euo pipefail
cd "$(dirname "$0")/.."
TESTS="$(cd "${1:?usage: scripts/lancedb_suite.sh <lancedb>/python/python/tests}" && pwd)"
shift
ROOT="$PWD"
VENV="$ROOT/build/lancedb-suite-venv"
OUT="$ROOT/build/lancedb-suite"
# lancedb_cpp is the one scripts/test.sh installed (its "Python package install" stage) into
# the system Python; the environment sees it and LanceDB's pinned packages through
# --system-site-packages and adds LanceDB's test dependencies (its pyproject's "tests" extra).
python3 -c "import lancedb_cpp, lancedb, lance" 2>/dev/null ||
  { echo "run scripts/test.sh (or scripts/setup.sh and its package install) first"; exit 1; }
[ -x "$VENV/bin/python" ] || python3 -m venv --system-site-packages "$VENV"
PY="$VENV/bin/python"
"$PY" -m pip install -q --disable-pip-version-check pytest-asyncio pytest-mock aiohttp boto3 \
  requests "polars<=1.32.3" pytz opentelemetry-sdk pytest-timeout
"$PY" -c "import lancedb_cpp; print('lancedb_cpp from', lancedb_cpp.__file__)"

mkdir -p "$OUT"  # a one-side run keeps the other side's report
run() {  # run <name> [env...]
  local name="$1"
  shift
  rm -rf "$OUT/tests-$name"
  cp -r "$TESTS" "$OUT/tests-$name"
  printf '[pytest]\nmarkers =\n    slow\n    s3_test\n' >"$OUT/tests-$name/pytest.ini"
  (cd "$OUT/tests-$name" && env "$@" "$PY" -m pytest -q -p no:cacheprovider -o addopts="" --continue-on-collection-errors --timeout=60 -m "not slow" \
    -rA --junitxml="$OUT/$name.xml" "${PYTEST_ARGS[@]}" . >"$OUT/$name.log" 2>&1) || true
  tail -n 1 "$OUT/$name.log"
}
PYTEST_ARGS=("$@")
if [ "${LANCEDB_SUITE_ONLY:-}" != "cpp" ]; then
  echo "== LanceDB's suite on LanceDB"
  run lancedb
fi
if [ "${LANCEDB_SUITE_ONLY:-}" != "lancedb" ]; then
  echo "== LanceDB's suite on lancedb_cpp"
  run cpp PYTHONPATH="$ROOT/scripts/lancedb_suite"
fi
"$PY" scripts/lancedb_suite/compare.py "$OUT"
