#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
#
# Fetch the Snowball 3 stemmers (libstemmer.h and the static libstemmer.a) that LanceDB's
# stems match, into third_party_cache/ (gitignored; LANCEDB_SNOWBALL_CACHE overrides it).
# Debian stable's libstemmer-dev is Snowball 2.2, whose stems differ from LanceDB's, so the
# archive is Debian unstable's libstemmer-dev package, pinned by version and SHA-256. Its
# static archive is position-independent enough to link into the Python module. Debian
# serves only binary packages of unstable here, not its sources.
# Idempotent: an existing, complete extraction is kept. Prints the extraction directory.
set -euo pipefail
cd "$(dirname "$0")/.."

SNOWBALL_DEB_VERSION="3.1.1-1"
SNOWBALL_DEB="libstemmer-dev_${SNOWBALL_DEB_VERSION}_amd64.deb"
SNOWBALL_DEB_SHA256="0e9c1bfc0eabde212738211d6e331ab84757cb258da01033ec0ea0a67a352e54"
SNOWBALL_URL="http://deb.debian.org/debian/pool/main/s/snowball/${SNOWBALL_DEB}"

cache="${LANCEDB_SNOWBALL_CACHE:-$PWD/third_party_cache}"
out="$cache/snowball-${SNOWBALL_DEB_VERSION}"
if [ -f "$out/include/libstemmer.h" ] && [ -f "$out/lib/libstemmer.a" ]; then
  echo "$out"
  exit 0
fi
if [ "$(uname -m)" != "x86_64" ]; then
  echo "fetch_snowball.sh: only the amd64 package is pinned; this machine is $(uname -m)" >&2
  exit 1
fi

mkdir -p "$cache"
deb="$cache/$SNOWBALL_DEB"
if [ ! -f "$deb" ] || ! echo "$SNOWBALL_DEB_SHA256  $deb" | sha256sum -c --quiet - 2>/dev/null; then
  curl -fsSL --retry 3 -o "$deb.part" "$SNOWBALL_URL"
  mv "$deb.part" "$deb"
fi
if ! echo "$SNOWBALL_DEB_SHA256  $deb" | sha256sum -c --quiet -; then
  echo "fetch_snowball.sh: SHA-256 mismatch for $deb (expected $SNOWBALL_DEB_SHA256)" >&2
  rm -f "$deb"
  exit 1
fi

# Extract only the header and the static archive, into a temporary directory first so that an
# interrupted run leaves no half-complete $out behind.
tmp="$(mktemp -d "$cache/.extract.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && ar x "$deb" data.tar.xz)
tar -xJf "$tmp/data.tar.xz" -C "$tmp" ./usr/include/libstemmer.h \
  ./usr/lib/x86_64-linux-gnu/libstemmer.a
mkdir -p "$tmp/out/include" "$tmp/out/lib"
mv "$tmp/usr/include/libstemmer.h" "$tmp/out/include/"
mv "$tmp/usr/lib/x86_64-linux-gnu/libstemmer.a" "$tmp/out/lib/"
rm -rf "$out"
mv "$tmp/out" "$out"
echo "$out"
