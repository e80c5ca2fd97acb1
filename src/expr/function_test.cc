// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "expr/function.h"

#include <gtest/gtest.h>

#include <cctype>
#include <set>

namespace lancedb::expr {
namespace LANCEDB_TEST_FILE_NS {

TEST(FunctionRegistry, EveryNameIsUniqueLowerCaseAndFound) {
  std::set<std::string_view> seen;
  for (auto family : {StringFunctions(), RegexFunctions(), MathFunctions(), ConditionalFunctions(),
                      TemporalFunctions(), ArrayFunctions()}) {
    ASSERT_FALSE(family.empty());
    for (const auto& def : family) {
      ASSERT_FALSE(def.names[0].empty());
      EXPECT_NE(def.bind, nullptr) << def.names[0];
      EXPECT_TRUE(def.max_args == kVariadic || def.max_args >= def.min_args) << def.names[0];
      for (std::string_view name : def.names) {
        if (name.empty()) continue;
        EXPECT_TRUE(seen.insert(name).second) << "two functions are called " << name;
        for (char c : name) EXPECT_FALSE(std::isupper(static_cast<unsigned char>(c))) << name;
        EXPECT_EQ(FindFunction(name), &def) << name;
      }
    }
  }
  EXPECT_EQ(FindFunction("no_such_function"), nullptr);
  EXPECT_EQ(FindFunction("LOWER"), nullptr);  // the parser lower-cases names
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::expr
