// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// GoogleTest assertions on Status and Result<T>, shared by the tests of every layer.

#pragma once

#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>

#include <string>
#include <vector>

#include "lancedb/status.h"

extern char** environ;

/// Assert that a Status (or the status of a Result) is OK, printing it otherwise.
#define ASSERT_OK(expr)                                                       \
  do {                                                                        \
    ::lancedb::Status _lancedb_st = ::lancedb::testing::StatusOf((expr));     \
    ASSERT_TRUE(_lancedb_st.ok()) << #expr << ": " << _lancedb_st.ToString(); \
  } while (false)

#define EXPECT_OK(expr)                                                       \
  do {                                                                        \
    ::lancedb::Status _lancedb_st = ::lancedb::testing::StatusOf((expr));     \
    EXPECT_TRUE(_lancedb_st.ok()) << #expr << ": " << _lancedb_st.ToString(); \
  } while (false)

/// Assert that a Result is OK and move its value into `lhs` (a declaration or an lvalue).
#define ASSERT_OK_AND_ASSIGN(lhs, rexpr)                                        \
  auto LANCEDB_CONCAT(_res_, __LINE__) = (rexpr);                               \
  ASSERT_TRUE(LANCEDB_CONCAT(_res_, __LINE__).ok())                             \
      << #rexpr << ": " << LANCEDB_CONCAT(_res_, __LINE__).status().ToString(); \
  lhs = LANCEDB_CONCAT(_res_, __LINE__).MoveValueUnsafe()

/// Assert that `expr` fails with StatusCode::`status_code` (kInvalidArgument, ...) and a
/// message containing `substring`.
#define ASSERT_RAISES(status_code, substring, expr)                                                \
  do {                                                                                             \
    ::lancedb::Status _lancedb_st = ::lancedb::testing::StatusOf((expr));                          \
    ASSERT_EQ(_lancedb_st.code(), ::lancedb::StatusCode::status_code) << _lancedb_st.ToString();   \
    ASSERT_NE(_lancedb_st.message().find(substring), std::string::npos) << _lancedb_st.ToString(); \
  } while (false)

namespace lancedb::testing {

inline Status StatusOf(const Status& st) { return st; }
template <typename T>
Status StatusOf(const Result<T>& r) {
  return r.status();
}

/// Run the one test `test_name` ("Suite.Name") of this test binary in a child process, with
/// this process's environment plus `env` ("NAME=value" entries, which replace variables of the
/// same name), and return its wait status (-1 if it could not be started). The child does not
/// inherit GoogleTest's sharding and report variables (GTEST_TOTAL_SHARDS, GTEST_SHARD_INDEX,
/// GTEST_OUTPUT): under `ctest` shards it would otherwise run another shard's share of the one
/// test, usually nothing, and its report would be counted with the parent's.
inline int RunTestInChild(const std::string& test_name, const std::vector<std::string>& env) {
  auto replaced = [&](const std::string& entry) {
    const std::string name = entry.substr(0, entry.find('=') + 1);
    if (name == "GTEST_TOTAL_SHARDS=" || name == "GTEST_SHARD_INDEX=" || name == "GTEST_OUTPUT=") {
      return true;
    }
    for (const auto& e : env) {
      if (e.compare(0, name.size(), name) == 0) return true;
    }
    return false;
  };
  std::vector<std::string> entries = env;
  for (char** e = environ; *e; ++e) {
    if (!replaced(*e)) entries.emplace_back(*e);
  }
  std::vector<char*> envp;
  for (auto& e : entries) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string exe = "/proc/self/exe";
  std::string filter = "--gtest_filter=" + test_name;
  char* argv[] = {exe.data(), filter.data(), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv, envp.data()) != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return status;
}

}  // namespace lancedb::testing
