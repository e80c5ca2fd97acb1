// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/sq_storage.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

namespace lancedb::index::vector {
namespace LANCEDB_TEST_FILE_NS {

/// The distance computed in the documented order: eight lanes (lane u sums the dimensions
/// j = u mod 8, the tail goes to lane 0), then pairwise.
float Reference(const ScalarQuantizer& sq, const uint8_t* code, const std::vector<float>& q) {
  const size_t dim = sq.dim();
  const bool dot = sq.metric() == DistanceType::kDot;
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  float bias = 0;
  for (size_t j = 0; j < dim; ++j) {
    const size_t lane = j < dim / 8 * 8 ? j % 8 : 0;
    if (dot) {
      bias += q[j] * sq.lower()[j];
      acc[lane] += (q[j] * sq.scale(j)) * static_cast<float>(code[j]);
    } else {
      const float d = (q[j] - sq.lower()[j]) - sq.scale(j) * static_cast<float>(code[j]);
      acc[lane] += d * d;
    }
  }
  const float s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  return dot ? -(bias + s) : s;
}

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

TEST(SqDistanceComputer, MatchesTheReferenceBitForBit) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-3.0f, 3.0f);
  for (size_t dim : {8u, 13u, 128u}) {
    for (DistanceType metric : {DistanceType::kL2, DistanceType::kDot}) {
      constexpr int64_t kRows = 50;
      std::vector<float> data(kRows * dim);
      for (auto& x : data) x = uniform(rng);
      auto sq = ScalarQuantizer::Train(data, dim, metric, kRows, 1);
      ASSERT_TRUE(sq.ok()) << sq.status().ToString();
      std::vector<float> centroid(dim, 0.0f);
      auto storage = (*sq)->Encode(data, centroid);
      const auto& codes = dynamic_cast<const SqStorage&>(*storage).codes();
      std::vector<float> query(dim);
      for (auto& x : query) x = uniform(rng);
      SqDistanceComputer computer(sq->get(), codes.data(), query);
      for (int64_t r = 0; r < kRows; ++r) {
        const float expected = Reference(**sq, codes.data() + r * dim, query);
        EXPECT_EQ(Bits(computer.Score(r)), Bits(expected)) << "dim " << dim << " row " << r;
        EXPECT_EQ(Bits(computer.Distance(r)), Bits(expected));
      }
    }
  }
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::index::vector
