// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "common/test_dirs.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <optional>
#include <string>

namespace lancedb::testdirs {
namespace LANCEDB_TEST_FILE_NS {

/// Sets an environment variable for the scope of the object, then restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

void RequireAbsentFixture() { LANCEDB_REQUIRE_FIXTURES(); }

TEST(TestDirs, AbsentFixturesFailWhenTheirVariableIsSet) {
  ScopedEnv env("LANCEDB_FIXTURES_DIR", (SourceDir() / "no-such-fixtures").string());
  EXPECT_TRUE(FixturesRequired());
  EXPECT_EQ(LanceDbFixturesDir(), SourceDir() / "no-such-fixtures" / "lancedb-0.39");
  EXPECT_FATAL_FAILURE(RequireAbsentFixture(), "LANCEDB_FIXTURES_DIR is set");
}

TEST(TestDirs, SourceDirHoldsTheRepository) {
  EXPECT_TRUE(std::filesystem::exists(SourceDir() / "src" / "common" / "test_dirs.h"))
      << SourceDir();
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::testdirs
