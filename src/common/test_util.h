// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// GoogleTest assertions on Status and Result<T>, shared by the tests of every layer.

#pragma once

#include <gtest/gtest.h>

#include "lancedb/status.h"

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

}  // namespace lancedb::testing
