# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
# Third-party libraries, all from Debian packages (see scripts/setup.sh).
find_package(Threads REQUIRED)
find_package(Protobuf REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)
# Regular expressions (DataFusion's regex syntax) and Unicode case mapping for SQL (src/expr).
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)
pkg_check_modules(UTF8PROC REQUIRED IMPORTED_TARGET libutf8proc)
find_package(roaring REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_program(FLATC flatc REQUIRED)
find_path(FLATBUFFERS_INCLUDE_DIR flatbuffers/flatbuffers.h REQUIRED)
# The S3 object store (src/io): libcurl signs and sends the requests, expat parses the XML.
find_package(CURL 7.75 REQUIRED)
find_package(EXPAT REQUIRED)
