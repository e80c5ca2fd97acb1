// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Tables with a clustered vector column for the vector index tests.
#pragma once

#include <string>
#include <vector>

#include "array/builder.h"
#include "index/vector/test_util.h"
#include "table/dataset.h"
#include "table/table_test_util.h"

namespace lancedb::index::testing {

/// Schema: id int64, vector fixed_size_list<float, dim>.
inline array::SchemaPtr VectorSchema(size_t dim) {
  return array::schema({array::field("id", array::int64()),
                        array::field("vector", array::fixed_size_list(array::float32(),
                                                                      static_cast<int32_t>(dim)))});
}

/// One batch: ids [first_id, first_id + rows), the given vectors. Layout: vectors (rows, dim).
inline std::unique_ptr<array::RecordBatchReader> VectorReader(const std::vector<float>& vectors,
                                                              size_t dim, int64_t first_id) {
  auto n = static_cast<int64_t>(vectors.size() / dim);
  std::vector<int64_t> ids(n);
  for (int64_t i = 0; i < n; ++i) ids[i] = first_id + i;
  auto child = array::MakePrimitive<float>(array::float32(), vectors);
  auto fsl = array::MakeFixedSizeList(
      array::fixed_size_list(array::float32(), static_cast<int32_t>(dim)), child);
  auto batch = array::RecordBatch::Make(VectorSchema(dim),
                                        {array::MakePrimitive<int64_t>(array::int64(), ids), fsl});
  return array::MakeVectorReader(VectorSchema(dim), {*batch});
}

}  // namespace lancedb::index::testing
