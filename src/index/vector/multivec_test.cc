// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/multivec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace lancedb::index::vector {
namespace LANCEDB_TEST_FILE_NS {

TEST(MultivectorDistance, SumsTheNearestRowVectorPerQueryVector) {
  // Two query vectors, three row vectors, dim 2.
  const std::vector<float> queries = {1, 0, 0, 1};
  const std::vector<float> rows = {2, 0, 0, 3, 1, 1};
  std::vector<float> scratch(3);
  // l2 (squared): query (1,0) -> min(1, 10, 1) = 1; query (0,1) -> min(5, 4, 1) = 1.
  EXPECT_FLOAT_EQ(MultivectorDistance(DistanceType::kL2, ElementType::kFloat32, queries.data(), 2,
                                      {}, rows.data(), 3, 2, scratch),
                  2.0f);
  // dot (kernel units -x.y): query (1,0) -> -2; query (0,1) -> -3.
  EXPECT_FLOAT_EQ(MultivectorDistance(DistanceType::kDot, ElementType::kFloat32, queries.data(), 2,
                                      {}, rows.data(), 3, 2, scratch),
                  -5.0f);
  // cosine: both queries have an exactly aligned row vector.
  const std::vector<float> norms = {1, 1};
  EXPECT_NEAR(MultivectorDistance(DistanceType::kCosine, ElementType::kFloat32, queries.data(), 2,
                                  norms, rows.data(), 3, 2, scratch),
              0.0f, 1e-6);
}

TEST(MultivectorDistance, EmptyRowIsNaN) {
  const std::vector<float> queries = {1, 0};
  std::vector<float> scratch(1);
  EXPECT_TRUE(std::isnan(MultivectorDistance(DistanceType::kL2, ElementType::kFloat32,
                                             queries.data(), 1, {}, nullptr, 0, 2, scratch)));
}

TEST(ScoreMultivectorCandidates, ImputesTheLastSimilarityOfEachList) {
  // Query vector 0 found rows 7 (0.1) and 8 (0.3); query vector 1 found 8 (0.2), 8 again
  // (0.25, ignored) and 9 (0.5).
  std::vector<std::vector<Neighbor>> lists = {{{0.1f, 7}, {0.3f, 8}},
                                              {{0.2f, 8}, {0.25f, 8}, {0.5f, 9}}};
  auto scored = ScoreMultivectorCandidates(lists);
  ASSERT_EQ(scored.size(), 3u);
  // Row 8: sims 0.7 + 0.8 = 1.5 -> 0.5. Row 7: 0.9 + imputed 0.5 = 1.4 -> 0.6.
  // Row 9: imputed 0.7 + 0.5 = 1.2 -> 0.8.
  EXPECT_EQ(scored[0].row_id, 8u);
  EXPECT_NEAR(scored[0].distance, 0.5f, 1e-6);
  EXPECT_EQ(scored[1].row_id, 7u);
  EXPECT_NEAR(scored[1].distance, 0.6f, 1e-6);
  EXPECT_EQ(scored[2].row_id, 9u);
  EXPECT_NEAR(scored[2].distance, 0.8f, 1e-6);
}

TEST(ScoreMultivectorCandidates, EmptyListImputesZero) {
  std::vector<std::vector<Neighbor>> lists = {{{0.25f, 3}}, {}};
  auto scored = ScoreMultivectorCandidates(lists);
  ASSERT_EQ(scored.size(), 1u);
  EXPECT_NEAR(scored[0].distance, 2.0f - 0.75f, 1e-6);
}

TEST(VectorsOfPartition, KeepsEachRowsVectorsOfThePartitionInOrder) {
  // Two centroids on the x axis; row 0 has vectors near each, row 1 two near the second.
  const std::vector<float> centroids = {-1, 0, 1, 0};
  const std::vector<float> vectors = {-2, 0.1f, 2, 0.2f, 3, 0.3f, 4, 0.4f};
  const std::vector<int64_t> counts = {2, 2};
  EXPECT_EQ(VectorsOfPartition(vectors, counts, 2, centroids, 2, DistanceType::kL2, 1),
            (std::vector<float>{2, 0.2f, 3, 0.3f, 4, 0.4f}));
  EXPECT_EQ(VectorsOfPartition(vectors, counts, 2, centroids, 2, DistanceType::kCosine, 0),
            (std::vector<float>{-2, 0.1f}));
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::index::vector
