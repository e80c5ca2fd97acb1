// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/flat_search.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "array/half.h"
#include "index/vector/test_util.h"

namespace lancedb::index::vector {
namespace LANCEDB_TEST_FILE_NS {

using array::FloatToHalf;

TEST(TopK, KeepsSmallestWithDeterministicTies) {
  TopK top(3);
  for (uint64_t id : {5, 1, 4, 2, 3}) top.Push(1.0f, id);
  top.Push(NAN, 9);
  top.Push(0.5f, 7);
  auto s = top.Sorted();
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].row_id, 7u);
  EXPECT_EQ(s[1].row_id, 1u);
  EXPECT_EQ(s[2].row_id, 2u);
}

TEST(FlatSearch, MatchesSortOverChunksAndThreads) {
  const size_t dim = 24;
  auto data = testing::ClusteredData(5000, dim, 10, 1);
  // Two chunks with explicit row ids for the second, a null row in the first.
  std::vector<uint64_t> ids2(2000);
  for (size_t i = 0; i < ids2.size(); ++i) ids2[i] = 100000 + i;
  std::vector<uint8_t> validity(3000 / 8 + 1, 0xFF);
  validity[0] = 0xFE;  // row 0 null
  VectorChunk chunks[2] = {{ElementType::kFloat32, data.data(), 3000, nullptr, 0, validity.data()},
                           {ElementType::kFloat32, data.data() + 3000 * dim, 2000, ids2.data()}};
  const float* q = data.data();  // query equals the null row 0
  for (DistanceType type : {DistanceType::kL2, DistanceType::kCosine, DistanceType::kDot}) {
    std::vector<Neighbor> all;
    for (int64_t r = 0; r < 5000; ++r) {
      if (r == 0) continue;
      uint64_t id = r < 3000 ? r : ids2[r - 3000];
      all.push_back({Distance(type, q, &data[r * dim], dim), id});
    }
    std::sort(all.begin(), all.end());
    for (int threads : {1, 2, 3}) {
      FlatSearchOptions o = testing::Options(7, type);
      o.num_threads = threads;
      auto got = FlatSearch(chunks, dim, q, o);
      ASSERT_TRUE(got.ok());
      ASSERT_EQ(got->size(), 7u);
      for (size_t i = 0; i < 7; ++i) {
        EXPECT_EQ((*got)[i].row_id, all[i].row_id) << i;
        EXPECT_NEAR((*got)[i].distance, all[i].distance, 1e-4 * (1 + std::abs(all[i].distance)));
      }
    }
  }
}

TEST(FlatSearch, BatchAndDistanceRange) {
  const size_t dim = 8;
  auto data = testing::ClusteredData(1000, dim, 4, 2);
  VectorChunk chunk{ElementType::kFloat32, data.data(), 1000};
  FlatSearchOptions o = testing::Options(5, DistanceType::kL2);
  auto batch = FlatSearchBatch({&chunk, 1}, dim, data.data(), 3, o);
  ASSERT_TRUE(batch.ok());
  ASSERT_EQ(batch->size(), 3u);
  for (uint64_t q = 0; q < 3; ++q) EXPECT_EQ((*batch)[q][0].row_id, q);
  o.lower_bound = 1e-6f;  // excludes the query itself
  o.upper_bound = 1.0f;
  auto ranged = FlatSearch({&chunk, 1}, dim, data.data(), o);
  ASSERT_TRUE(ranged.ok());
  for (const auto& n : *ranged) {
    EXPECT_NE(n.row_id, 0u);
    EXPECT_GE(n.distance, 1e-6f);
    EXPECT_LT(n.distance, 1.0f);
  }
}

TEST(FlatSearch, HalfAndDoubleAndHamming) {
  std::vector<uint16_t> h = {FloatToHalf(1), FloatToHalf(0), FloatToHalf(0), FloatToHalf(1)};
  uint16_t hq[2] = {FloatToHalf(0), FloatToHalf(1)};
  VectorChunk hc{ElementType::kFloat16, h.data(), 2};
  auto r = FlatSearch({&hc, 1}, 2, hq, testing::Options(1, DistanceType::kL2));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].row_id, 1u);
  std::vector<uint8_t> bits = {0x00, 0xFF, 0x0F};
  uint8_t bq = 0x1F;
  VectorChunk bc{ElementType::kUInt8, bits.data(), 3};
  auto hr = FlatSearch({&bc, 1}, 1, &bq, testing::Options(3, DistanceType::kHamming));
  ASSERT_TRUE(hr.ok());
  EXPECT_EQ((*hr)[0].row_id, 2u);
  EXPECT_EQ((*hr)[0].distance, 1.0f);
  auto bad = FlatSearch({&bc, 1}, 1, &bq, testing::Options(3, DistanceType::kL2));
  EXPECT_TRUE(bad.status().IsInvalidArgument());
  auto badk = FlatSearch({&bc, 1}, 1, &bq, testing::Options(0, DistanceType::kHamming));
  EXPECT_TRUE(badk.status().IsInvalidArgument());
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::index::vector
