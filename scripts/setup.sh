#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
#
# Install everything lancedb-cpp needs to build and test on a fresh Debian machine.
# Idempotent: packages already present are skipped quickly.
set -euo pipefail

APT_PACKAGES=(cmake ninja-build g++ pkg-config libprotobuf-dev protobuf-compiler libzstd-dev
  liblz4-dev libroaring-dev libflatbuffers-dev flatbuffers-compiler libgtest-dev googletest
  libbenchmark-dev nlohmann-json3-dev clang-format clang-14 libclang-rt-14-dev
  libre2-dev libutf8proc-dev libicu-dev curl xz-utils libcurl4-openssl-dev libexpat1-dev)
PY_PACKAGES=(pytest pytest-xdist pyarrow numpy pandas polars duckdb scikit-build-core nanobind
  requests  # lancedb_cpp's remote client (db:// connections)
  "pylance==12.0.0" "lancedb==0.39.0" "moto[server]==5.2.1"
  # the providers' clients under the hosted embedding functions and rerankers (their tests)
  "openai==3.63.0" "voyageai==0.5.0" "cohere==7.3.1" "google-genai==3.6.1" "ollama==0.6.3")

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The Snowball 3 stemmers (not Debian stable's 2.2), pinned by version and SHA-256.
bash "$(dirname "$0")/fetch_snowball.sh" >/dev/null

# pip takes several seconds even when everything is installed: ask it only when a package is
# missing or at another version than its pin.
py_missing() {
  python3 - "$@" <<'PY'
import importlib.metadata as md
import sys
for spec in sys.argv[1:]:
    name, _, pin = spec.partition("==")
    try:
        version = md.version(name.split("[")[0])  # "moto[server]": the extra is not a name
    except md.PackageNotFoundError:
        print(spec)
        continue
    if pin and version != pin:
        print(spec)
PY
}
if [ "${LANCEDB_SKIP_PIP:-0}" != "1" ] && [ -n "$(py_missing "${PY_PACKAGES[@]}")" ]; then
  python3 -m pip install -q --disable-pip-version-check "${PY_PACKAGES[@]}"
fi
