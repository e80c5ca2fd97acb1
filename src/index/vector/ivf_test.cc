// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include <gtest/gtest.h>

#include <algorithm>

#include "index/vector/hnsw_builder.h"
#include "index/vector/ivf_builder.h"
#include "index/vector/pq_builder.h"
#include "index/vector/test_util.h"

namespace lancedb::index::vector {
namespace LANCEDB_TEST_FILE_NS {

constexpr size_t kDim = 32;
constexpr int64_t kRows = 4000;
constexpr int kQueries = 40;
constexpr size_t kK = 10;

class IvfRecall : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = testing::ClusteredData(kRows, kDim, 24, 5, 0.3f);
    Rng rng(99);
    queries_.resize(kQueries * kDim);
    for (int q = 0; q < kQueries; ++q) {
      int64_t r = static_cast<int64_t>(rng.Uniform(kRows));
      for (size_t j = 0; j < kDim; ++j) {
        queries_[q * kDim + j] = data_[r * kDim + j] + 0.1f * static_cast<float>(rng.Normal());
      }
    }
  }

  /// Mean recall@10 of `index` over the queries.
  double MeanRecall(const IvfIndex& index, IvfSearchParams params, DistanceType type) {
    params.k = kK;
    double sum = 0;
    for (int q = 0; q < kQueries; ++q) {
      const float* query = &queries_[q * kDim];
      if (params.refine_factor > 0) {
        params.exact_distance = [&](uint64_t id) {
          return Distance(type, query, &data_[id * kDim], kDim);
        };
      }
      auto got = index.Search({query, kDim}, params);
      EXPECT_TRUE(got.ok()) << got.status().ToString();
      sum += testing::Recall(testing::ExactTopK(data_, kDim, query, kK, type), *got);
    }
    return sum / kQueries;
  }

  std::unique_ptr<IvfIndex> Build(IvfBuildParams p) {
    p.seed = 7;
    auto index = BuildIvfIndex(data_, testing::Iota(kRows), kDim, p);
    EXPECT_TRUE(index.ok()) << index.status().ToString();
    return index.ok() ? std::move(*index) : nullptr;
  }

  std::vector<float> data_;
  std::vector<float> queries_;
};

TEST_F(IvfRecall, IvfFlatWithAllPartitionsIsExact) {
  for (DistanceType type : {DistanceType::kL2, DistanceType::kCosine, DistanceType::kDot}) {
    IvfBuildParams p;
    p.distance_type = type;
    p.num_partitions = 16;
    auto index = Build(p);
    ASSERT_NE(index, nullptr);
    IvfSearchParams s;
    s.nprobes = 16;
    EXPECT_EQ(MeanRecall(*index, s, type), 1.0) << DistanceTypeName(type);
    // The reported distances are the user's metric.
    s.k = 3;
    auto got = index->Search({&queries_[0], kDim}, s);
    ASSERT_TRUE(got.ok());
    for (const auto& n : *got) {
      float exact = Distance(type, &queries_[0], &data_[n.row_id * kDim], kDim);
      EXPECT_NEAR(n.distance, exact, 1e-3 * (1 + std::abs(exact)));
    }
  }
}

TEST_F(IvfRecall, IvfPqWithRefineReachesRecall95) {
  for (DistanceType type : {DistanceType::kL2, DistanceType::kCosine, DistanceType::kDot}) {
    IvfBuildParams p;
    p.distance_type = type;
    p.num_partitions = 16;
    p.quantizer = QuantizerType::kPq;
    p.num_sub_vectors = 8;
    auto index = Build(p);
    ASSERT_NE(index, nullptr);
    IvfSearchParams s;
    s.nprobes = 8;
    s.refine_factor = 10;
    double recall = MeanRecall(*index, s, type);
    RecordProperty(std::string("recall_pq_refine_") + std::string(DistanceTypeName(type)),
                   std::to_string(recall));
    EXPECT_GE(recall, 0.95) << DistanceTypeName(type);
  }
}

TEST_F(IvfRecall, IvfPqFourBits) {
  IvfBuildParams p;
  p.num_partitions = 8;
  p.quantizer = QuantizerType::kPq;
  p.num_sub_vectors = 16;
  p.num_bits = 4;
  auto index = Build(p);
  ASSERT_NE(index, nullptr);
  IvfSearchParams s;
  s.nprobes = 8;
  s.refine_factor = 10;
  EXPECT_GE(MeanRecall(*index, s, DistanceType::kL2), 0.9);
}

// The 4-bit block scan (SIMD table lookups) gives the same bits as the row-by-row scan, for
// blocks at any start and partitions whose size is not a multiple of the block.
TEST(PqStorage, FourBitBlockScanEqualsRowScan) {
  const auto data = testing::ClusteredData(1003, kDim, 8, 3, 0.3f);
  PqParams params;
  params.num_sub_vectors = 8;
  params.num_bits = 4;
  params.seed = 5;
  auto pq = ProductQuantizer::Train(data, kDim, DistanceType::kL2, false, params);
  ASSERT_TRUE(pq.ok()) << pq.status().ToString();
  const std::vector<float> centroid(kDim, 0.0f);
  auto storage = (*pq)->Encode(data, centroid);
  ASSERT_EQ(storage->num_rows(), 1003);
  auto computer = storage->QueryComputer({&data[7 * kDim], kDim});
  for (int64_t begin : {0, 5, 16, 990}) {
    const int64_t n = std::min<int64_t>(300, storage->num_rows() - begin);
    std::vector<float> block(static_cast<size_t>(n));
    computer->Distances(begin, n, block.data());
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_EQ(block[static_cast<size_t>(i)], computer->Distance(begin + i)) << begin + i;
    }
  }
}

TEST_F(IvfRecall, IvfSqAndIvfRq) {
  for (QuantizerType qt : {QuantizerType::kSq, QuantizerType::kRq}) {
    IvfBuildParams p;
    p.num_partitions = 16;
    p.quantizer = qt;
    auto index = Build(p);
    ASSERT_NE(index, nullptr);
    IvfSearchParams s;
    s.nprobes = 8;
    s.refine_factor = qt == QuantizerType::kRq ? 10 : 0;
    EXPECT_GE(MeanRecall(*index, s, DistanceType::kL2), 0.9) << int(qt);
  }
}

TEST_F(IvfRecall, IvfHnswSqReachesRecall95) {
  for (QuantizerType qt : {QuantizerType::kSq, QuantizerType::kFlat, QuantizerType::kPq}) {
    IvfBuildParams p;
    p.num_partitions = 8;
    p.quantizer = qt;
    p.num_sub_vectors = 8;
    p.sub_index = SubIndexType::kHnsw;
    p.m = 12;
    p.ef_construction = 64;
    auto index = Build(p);
    ASSERT_NE(index, nullptr);
    IvfSearchParams s;
    s.nprobes = 4;
    s.refine_factor = qt == QuantizerType::kPq ? 10 : 0;
    s.ef = qt == QuantizerType::kPq ? 128 : 64;  // at least k * refine_factor
    double recall = MeanRecall(*index, s, DistanceType::kL2);
    EXPECT_GE(recall, 0.95) << int(qt);
  }
}

TEST_F(IvfRecall, HnswRefusesEfBelowTheRowsAskedOfAPartition) {
  // lancedb-cpp's own HNSW layout answers as LanceDB's does: an error, not a wider search.
  IvfBuildParams p;
  p.num_partitions = 4;
  p.quantizer = QuantizerType::kFlat;
  p.sub_index = SubIndexType::kHnsw;
  p.m = 8;
  p.ef_construction = 32;
  auto index = Build(p);
  ASSERT_NE(index, nullptr);
  IvfSearchParams s;
  s.k = kK;
  s.nprobes = 2;
  s.ef = kK - 1;
  auto got = index->Search({&queries_[0], kDim}, s);
  ASSERT_FALSE(got.ok());
  EXPECT_TRUE(got.status().IsInvalidArgument());
  EXPECT_NE(got.status().message().find("ef must be greater than or equal to k"), std::string::npos)
      << got.status().message();
  s.ef = kK;
  EXPECT_TRUE(index->Search({&queries_[0], kDim}, s).ok());
}

TEST_F(IvfRecall, PrefilterReturnsOnlyAcceptedRows) {
  for (SubIndexType sub : {SubIndexType::kFlat, SubIndexType::kHnsw}) {
    IvfBuildParams p;
    p.num_partitions = 8;
    p.quantizer = QuantizerType::kSq;
    p.sub_index = sub;
    p.m = 8;
    p.ef_construction = 32;
    auto index = Build(p);
    ASSERT_NE(index, nullptr);
    IvfSearchParams s;
    s.k = kK;
    s.nprobes = 8;
    s.ef = 200;
    s.accept = [](uint64_t id) { return id % 10 == 3; };
    auto got = index->Search({&queries_[0], kDim}, s);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(got->size(), kK);
    for (const auto& n : *got) EXPECT_EQ(n.row_id % 10, 3u);
  }
}

TEST_F(IvfRecall, PartitionsKeepArrivalOrder) {
  // Row ids in descending order: each partition must keep them as they arrived.
  std::vector<uint64_t> ids(kRows);
  for (int64_t i = 0; i < kRows; ++i) ids[i] = 1000000 - i;
  IvfBuildParams p;
  p.num_partitions = 8;
  p.quantizer = QuantizerType::kSq;
  p.sub_index = SubIndexType::kHnsw;
  p.m = 8;
  p.ef_construction = 32;
  p.seed = 1;
  auto index = BuildIvfIndex(data_, ids, kDim, p);
  ASSERT_TRUE(index.ok());
  int64_t total = 0;
  for (int64_t part = 0; part < (*index)->num_partitions(); ++part) {
    const auto& rows = (*index)->partition(part).row_ids;
    EXPECT_TRUE(std::is_sorted(rows.rbegin(), rows.rend()));
    total += static_cast<int64_t>(rows.size());
  }
  EXPECT_EQ(total, kRows);
}

TEST_F(IvfRecall, BadInputIsRejected) {
  IvfBuildParams p;
  p.quantizer = QuantizerType::kPq;
  p.num_sub_vectors = 5;  // does not divide 32
  EXPECT_TRUE(BuildIvfIndex(data_, testing::Iota(kRows), kDim, p).status().IsInvalidArgument());
  p.num_sub_vectors = 8;
  p.num_bits = 6;
  EXPECT_TRUE(BuildIvfIndex(data_, testing::Iota(kRows), kDim, p).status().IsInvalidArgument());
  p = IvfBuildParams();
  p.num_partitions = kRows + 1;
  EXPECT_TRUE(BuildIvfIndex(data_, testing::Iota(kRows), kDim, p).status().IsInvalidArgument());
  p = IvfBuildParams();
  p.distance_type = DistanceType::kHamming;
  EXPECT_FALSE(BuildIvfIndex(data_, testing::Iota(kRows), kDim, p).ok());
  p = IvfBuildParams();
  p.num_partitions = 4;
  auto index = Build(p);
  ASSERT_NE(index, nullptr);
  std::vector<float> short_query(kDim - 1, 0.0f);
  EXPECT_TRUE(index->Search(short_query, {}).status().IsInvalidArgument());
  std::vector<float> nan_query(kDim, NAN);
  EXPECT_TRUE(index->Search(nan_query, {}).status().IsInvalidArgument());
}

TEST(IvfDefaults, PartitionsAndSubVectors) {
  EXPECT_EQ(DefaultNumPartitions(10000, 0), 100);
  EXPECT_EQ(DefaultNumPartitions(10000, 4096), 3);
  EXPECT_EQ(DefaultNumPartitions(1, 0), 1);
  EXPECT_EQ(DefaultNumSubVectors(128), 8u);
  EXPECT_EQ(DefaultNumSubVectors(24), 3u);
  EXPECT_EQ(DefaultNumSubVectors(7), 1u);
}

TEST(IvfProgress, ReportsStages) {
  auto data = testing::ClusteredData(500, 8, 4, 1);
  IvfBuildParams p;
  p.num_partitions = 4;
  p.seed = 1;
  std::vector<std::string> stages;
  double last = 0;
  p.num_threads = 1;
  p.progress = [&](std::string_view stage, double f) {
    stages.emplace_back(stage);
    last = f;
  };
  ASSERT_TRUE(BuildIvfIndex(data, testing::Iota(500), 8, p).ok());
  EXPECT_EQ(stages.front(), "train_ivf");
  EXPECT_EQ(stages.back(), "build_partitions");
  EXPECT_EQ(last, 1.0);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::index::vector
