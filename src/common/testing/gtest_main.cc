// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The main() of every test binary: GoogleTest's, except that a shard (GTEST_SHARD_INDEX, set by
// the ctest shards of lancedb_add_test) that reports into a directory (GTEST_OUTPUT=json:dir/,
// as scripts/test.sh asks) reports into a directory of its own, dir/shard<i>/. Shards of one
// binary run at once and would otherwise write the same <binary>.json, and the summary of
// scripts/test.sh would count one shard's tests only.

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  // GoogleTest reads GTEST_OUTPUT before main(): the shard's own directory goes in as a flag
  // (after the given ones, so that it wins).
  std::vector<char*> args(argv, argv + argc);
  std::string flag;
  const char* output = std::getenv("GTEST_OUTPUT");
  const char* shard = std::getenv("GTEST_SHARD_INDEX");
  if (output != nullptr && shard != nullptr && std::string(output).ends_with('/')) {
    flag = std::string("--gtest_output=") + output + "shard" + shard + "/";
    args.push_back(flag.data());
  }
  int n = static_cast<int>(args.size());
  args.push_back(nullptr);
  ::testing::InitGoogleTest(&n, args.data());
  return RUN_ALL_TESTS();
}
