// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Long-running checks (ctest label "slow").

#include <gtest/gtest.h>
#include <sys/mman.h>

#include "index/vector/hnsw_builder.h"

namespace lancedb::index::vector {
namespace LANCEDB_TEST_FILE_NS {

// A partition with more than 2^31 bytes of vectors: 2100 rows of 2^18 float32 (1 MiB each) in
// a sparse anonymous mapping (untouched pages read as zeros and cost no memory). Each row
// differs in its first 16 values. A 32-bit offset would read rows past 2 GiB at the wrong
// place; the search must find the last row exactly.
TEST(HnswSlow, PartitionLargerThan2GiB) {
  constexpr size_t kDim = size_t{1} << 18;
  constexpr int64_t kRows = 2100;
  size_t bytes = kDim * sizeof(float) * kRows;
  ASSERT_GT(bytes, size_t{1} << 31);
  void* mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mem == MAP_FAILED) GTEST_SKIP() << "cannot reserve " << bytes << " bytes";
  auto* data = static_cast<float*>(mem);
  for (int64_t r = 0; r < kRows; ++r) {
    float* row = data + static_cast<size_t>(r) * kDim;
    for (int j = 0; j < 16; ++j) row[j] = static_cast<float>((r * 31 + j * 7) % 101) * 0.1f;
    row[16] = static_cast<float>(r) * 0.01f;
  }
  FlatStorage storage = FlatStorage::View({data, kDim * kRows}, kDim, DistanceType::kL2);
  HnswParams params;
  params.m = 4;
  params.ef_construction = 8;
  auto graph = BuildHnsw(storage, params);
  ASSERT_EQ(graph->num_nodes(), kRows);
  for (int64_t target : {int64_t{0}, int64_t{2047}, int64_t{2048}, kRows - 1}) {
    auto dc = storage.QueryComputer({data + static_cast<size_t>(target) * kDim, kDim});
    TopK top(1);
    graph->Search(*dc, kRows, {1, 32}, nullptr, top);
    auto best = top.Sorted();
    ASSERT_EQ(best.size(), 1u);
    EXPECT_EQ(best[0].row_id, static_cast<uint64_t>(target));
    EXPECT_EQ(best[0].distance, 0.0f);
  }
  munmap(mem, bytes);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::index::vector
