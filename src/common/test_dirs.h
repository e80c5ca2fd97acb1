// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Where the tests find the source tree and the tables LanceDB wrote (../shared/fixtures beside
// the checkout). Each location is its environment variable when set (LANCEDB_SOURCE_DIR,
// LANCEDB_FIXTURES_DIR; scripts/test.sh sets both), else the one CMake configured into the test
// binaries (LANCEDB_TEST_SOURCE_DIR, LANCEDB_TEST_FIXTURES_DIR; see cmake/LancedbHelpers.cmake).
// Absent fixtures skip a test only when LANCEDB_FIXTURES_DIR is unset: with the variable set,
// as in CI, they fail it. For test binaries only (includes GoogleTest).

#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#if !defined(LANCEDB_TEST_SOURCE_DIR) || !defined(LANCEDB_TEST_FIXTURES_DIR)
#error "test binaries are compiled with LANCEDB_TEST_SOURCE_DIR and LANCEDB_TEST_FIXTURES_DIR"
#endif

namespace lancedb::testdirs {

/// The repository root.
inline std::filesystem::path SourceDir() {
  const char* env = std::getenv("LANCEDB_SOURCE_DIR");
  return env != nullptr ? env : LANCEDB_TEST_SOURCE_DIR;
}

/// Whether absent fixtures fail a test (LANCEDB_FIXTURES_DIR is set) rather than skip it.
inline bool FixturesRequired() { return std::getenv("LANCEDB_FIXTURES_DIR") != nullptr; }

/// The tables LanceDB 0.39 wrote: <fixtures root>/lancedb-0.39.
inline std::filesystem::path LanceDbFixturesDir() {
  const char* env = std::getenv("LANCEDB_FIXTURES_DIR");
  return std::filesystem::path(env != nullptr ? env : LANCEDB_TEST_FIXTURES_DIR) / "lancedb-0.39";
}

}  // namespace lancedb::testdirs

/// Return from the current test unless the path `fixture` exists: a failure when the fixtures are
/// required (LANCEDB_FIXTURES_DIR set), a skip otherwise.
#define LANCEDB_REQUIRE_FIXTURE_PATH(fixture)                                          \
  do {                                                                                 \
    const std::filesystem::path _fixture_path = (fixture);                             \
    if (!std::filesystem::exists(_fixture_path)) {                                     \
      if (::lancedb::testdirs::FixturesRequired()) {                                   \
        GTEST_FAIL() << _fixture_path << " is absent and LANCEDB_FIXTURES_DIR is set"; \
      }                                                                                \
      GTEST_SKIP() << _fixture_path << " is absent (LANCEDB_FIXTURES_DIR is unset)";   \
    }                                                                                  \
  } while (false)

/// LANCEDB_REQUIRE_FIXTURE_PATH for the LanceDB 0.39 fixtures directory.
#define LANCEDB_REQUIRE_FIXTURES() \
  LANCEDB_REQUIRE_FIXTURE_PATH(::lancedb::testdirs::LanceDbFixturesDir())
