// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Helpers of the vector search tests: run a query into one batch, read a column's values.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "array/builder.h"
#include "array/c_bridge.h"
#include "lancedb/lancedb.h"

namespace lancedb::db_testing {

/// Execute `q` and concatenate its batches; null (after a test failure) when it fails.
inline array::RecordBatchPtr Collect(const VectorQuery& q) {
  ArrowArrayStream s;
  Status st = q.Execute(&s);
  EXPECT_TRUE(st.ok()) << st.ToString();
  if (!st.ok()) return nullptr;
  auto reader = array::ImportArrayStream(&s);
  auto batches = (*reader)->ReadAll();
  EXPECT_TRUE(batches.ok());
  return *array::ConcatenateBatches((*reader)->schema(), *batches);
}

/// The values of the non-null primitive column `name` of `b`.
template <typename T>
std::vector<T> Column(const array::RecordBatchPtr& b, const std::string& name) {
  auto c = b->GetColumnByName(name);
  return std::vector<T>(c->GetValues<T>(1), c->GetValues<T>(1) + c->length);
}

}  // namespace lancedb::db_testing
