// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/kmeans.h"

#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <set>
#include <string>

#include "common/test_util.h"
#include "index/vector/ivf_builder.h"
#include "index/vector/kmeans_kernels.h"
#include "index/vector/pq_builder.h"
#include "index/vector/test_util.h"

namespace lancedb::index::vector {
namespace LANCEDB_TEST_FILE_NS {

TEST(KMeans, FindsWellSeparatedClusters) {
  const size_t dim = 16;
  auto data = testing::ClusteredData(4000, dim, 8, 3, 0.05f);
  KMeansParams p;
  p.num_clusters = 8;
  p.seed = 1;
  p.init = KMeansInit::kKMeansPlusPlus;
  auto km = TrainKMeans(data, dim, p);
  ASSERT_TRUE(km.ok()) << km.status().ToString();
  // Every row is within the cluster spread of its centroid: loss per row ~ dim * 0.05^2.
  EXPECT_LT(km->loss / 4000, dim * 0.05 * 0.05 * 2);
}

TEST(KMeans, IteratesUntilTheLossStopsImproving) {
  // Random initialisation on overlapping clusters needs several Lloyd iterations; the first
  // iteration has no previous loss to compare with and must not end the training.
  const size_t dim = 8;
  auto data = testing::ClusteredData(6000, dim, 64, 1, 0.5f);
  KMeansParams p;
  p.num_clusters = 32;
  p.seed = 3;
  p.max_iterations = 1;
  auto one = TrainKMeans(data, dim, p);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one->iterations, 1);
  p.max_iterations = 50;
  auto full = TrainKMeans(data, dim, p);
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  EXPECT_GT(full->iterations, 2);
  EXPECT_LE(full->iterations, 50);
  EXPECT_LT(full->loss, one->loss);
  // tolerance 0: every iteration runs unless the loss stops changing at all.
  p.max_iterations = 4;
  p.tolerance = 0;
  auto four = TrainKMeans(data, dim, p);
  ASSERT_TRUE(four.ok());
  EXPECT_EQ(four->iterations, 4);
}

TEST(KMeans, SampleRateBoundsTrainingRows) {
  std::vector<int64_t> s = SampleRows(1000000, 1000, 5);
  EXPECT_EQ(s.size(), 1000u);
  EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
  EXPECT_EQ(std::set<int64_t>(s.begin(), s.end()).size(), 1000u);
  EXPECT_EQ(SampleRows(1000000, 1000, 5), s);
  EXPECT_NE(SampleRows(1000000, 1000, 6), s);
  EXPECT_EQ(SampleRows(10, 100, 5).size(), 10u);
}

TEST(KMeans, RejectsBadInput) {
  std::vector<float> data(10 * 4, 1.0f);
  KMeansParams p;
  p.num_clusters = 11;
  EXPECT_TRUE(TrainKMeans(data, 4, p).status().IsInvalidArgument());
  p.num_clusters = 0;
  EXPECT_TRUE(TrainKMeans(data, 4, p).status().IsInvalidArgument());
  p.num_clusters = 2;
  data[5] = NAN;
  EXPECT_TRUE(TrainKMeans(data, 4, p).status().IsInvalidArgument());
}

TEST(KMeans, CosineCentroidsAreUnitVectors) {
  auto data = testing::ClusteredData(500, 8, 4, 4);
  KMeansParams p;
  p.num_clusters = 4;
  p.seed = 3;
  p.distance_type = DistanceType::kCosine;
  auto km = TrainKMeans(data, 8, p);
  ASSERT_TRUE(km.ok());
  for (int c = 0; c < 4; ++c) EXPECT_NEAR(Norm2(&km->centroids[c * 8], 8), 1.0f, 1e-4);
}

// --- The nearest-centroid kernel ---------------------------------------------------------------

std::vector<float> Gaussian(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal;
  std::vector<float> v(n);
  for (float& x : v) x = normal(gen);
  return v;
}

TEST(NearestCentroids, SameBitsOnEveryInstructionSetAndNearestByExactL2) {
  const SimdLevel saved = ActiveSimdLevel();
  for (size_t dim : {1, 3, 8, 16, 128}) {
    for (int64_t k : {1, 5, 16, 17, 256, 300}) {
      const int64_t n = 203;  // not a multiple of any row block
      std::vector<float> data = Gaussian(n * dim, 7);
      std::vector<float> centroids = Gaussian(k * dim, 8);
      // A duplicated centroid: the first of the two must win.
      if (k > 3) std::copy_n(&centroids[1 * dim], dim, &centroids[3 * dim]);
      for (bool l2 : {true, false}) {
        auto panels = internal::MakeCentroidPanels(centroids.data(), k, dim, l2);
        std::vector<uint32_t> ref_idx;
        std::vector<float> ref_score;
        for (SimdLevel level : {SimdLevel::kScalar, SimdLevel::kAvx2, SimdLevel::kAvx512}) {
          SetSimdLevel(level);
          std::vector<uint32_t> idx(n);
          std::vector<float> score(n);
          internal::NearestCentroids(panels, data.data(), n, dim, idx.data(), score.data());
          if (ref_idx.empty()) {
            ref_idx = idx;
            ref_score = score;
          } else {
            EXPECT_EQ(idx, ref_idx) << "dim " << dim << " k " << k << " level " << int(level);
            EXPECT_EQ(score, ref_score) << "dim " << dim << " k " << k;
          }
        }
        for (int64_t r = 0; r < n; ++r) {
          const float* x = &data[r * dim];
          ASSERT_LT(ref_idx[r], static_cast<uint32_t>(k));
          EXPECT_NE(ref_idx[r], 3u) << "duplicate of centroid 1 chosen over it";
          double best = std::numeric_limits<double>::infinity();
          for (int64_t c = 0; c < k; ++c) {
            double d = 0;
            for (size_t j = 0; j < dim; ++j) {
              double x_j = x[j], c_j = centroids[c * dim + j];
              d += l2 ? (x_j - c_j) * (x_j - c_j) : -x_j * c_j;
            }
            best = std::min(best, d);
          }
          double chosen = 0, norm = 0;
          for (size_t j = 0; j < dim; ++j) {
            double x_j = x[j], c_j = centroids[ref_idx[r] * dim + j];
            chosen += l2 ? (x_j - c_j) * (x_j - c_j) : -x_j * c_j;
            norm += x_j * x_j + c_j * c_j;
          }
          EXPECT_LE(chosen, best + 1e-5 * norm) << "row " << r << " dim " << dim << " k " << k;
        }
      }
    }
  }
  SetSimdLevel(saved);
}

TEST(NearestCentroids, RowStrideReadsSubVectors) {
  // Sub-vector 1 (values 4..7) of 10-value rows against 4-dimensional centroids.
  const size_t dim = 4, stride = 10;
  std::vector<float> centroids = Gaussian(20 * dim, 3);
  std::vector<float> rows = Gaussian(9 * stride, 4);
  auto panels = internal::MakeCentroidPanels(centroids.data(), 20, dim, true);
  std::vector<uint32_t> strided(9), packed(9);
  std::vector<float> s1(9), s2(9), sub(9 * dim);
  for (int r = 0; r < 9; ++r) std::copy_n(&rows[r * stride + 4], dim, &sub[r * dim]);
  internal::NearestCentroids(panels, rows.data() + 4, 9, stride, strided.data(), s1.data());
  internal::NearestCentroids(panels, sub.data(), 9, dim, packed.data(), s2.data());
  EXPECT_EQ(strided, packed);
  EXPECT_EQ(s1, s2);
}

TEST(KMeans, ResultDoesNotDependOnThreadsOrInstructionSet) {
  const SimdLevel saved = ActiveSimdLevel();
  auto data = testing::ClusteredData(5000, 24, 40, 9, 0.5f);
  KMeansParams p;
  p.num_clusters = 37;
  p.seed = 11;
  p.num_threads = 1;
  auto one = TrainKMeans(data, 24, p);
  ASSERT_TRUE(one.ok());
  for (int threads : {2, 3}) {
    p.num_threads = threads;
    auto many = TrainKMeans(data, 24, p);
    ASSERT_TRUE(many.ok());
    EXPECT_EQ(many->centroids, one->centroids) << threads << " threads";
    EXPECT_EQ(many->loss, one->loss);
  }
  SetSimdLevel(SimdLevel::kScalar);
  auto scalar = TrainKMeans(data, 24, p);
  SetSimdLevel(saved);
  ASSERT_TRUE(scalar.ok());
  EXPECT_EQ(scalar->centroids, one->centroids) << "scalar kernel";

  PqParams pq;
  pq.num_sub_vectors = 3;
  pq.seed = 5;
  pq.num_threads = 1;
  auto pq_one = ProductQuantizer::Train(data, 24, DistanceType::kL2, false, pq);
  pq.num_threads = 2;
  auto pq_two = ProductQuantizer::Train(data, 24, DistanceType::kL2, false, pq);
  ASSERT_TRUE(pq_one.ok() && pq_two.ok());
  EXPECT_TRUE(std::equal((*pq_one)->codebook().begin(), (*pq_one)->codebook().end(),
                         (*pq_two)->codebook().begin(), (*pq_two)->codebook().end()));
}

// --- Top-down (hierarchical) training ----------------------------------------------------------

/// Rows per cluster when `data` (rows, dim) is assigned to `centroids`.
std::vector<int64_t> ClusterSizes(const std::vector<float>& data,
                                  const std::vector<float>& centroids, size_t dim) {
  const auto n = static_cast<int64_t>(data.size() / dim);
  const auto k = static_cast<int64_t>(centroids.size() / dim);
  std::vector<uint32_t> assignment(static_cast<size_t>(n));
  AssignToCentroids(data.data(), n, centroids.data(), k, dim, DistanceType::kL2, assignment.data(),
                    nullptr);
  std::vector<int64_t> sizes(static_cast<size_t>(k), 0);
  for (uint32_t c : assignment) ++sizes[c];
  return sizes;
}

TEST(HierarchicalKMeans, EvenerClustersThanFlatKMeansAndAsLowALoss) {
  // 40 clusters of uneven sizes, 300 centroids (as IVF's more than 256 partitions).
  const size_t dim = 16;
  auto data = testing::ClusteredData(30000, dim, 40, 21, 1.0f);
  KMeansParams p;
  p.num_clusters = 300;
  p.seed = 3;
  auto flat = TrainKMeans(data, dim, p);
  auto tree = TrainHierarchicalKMeans(data, dim, p, 16, p.max_iterations);
  ASSERT_TRUE(flat.ok() && tree.ok()) << tree.status().ToString();
  ASSERT_EQ(tree->centroids.size(), 300 * dim);
  const auto flat_sizes = ClusterSizes(data, flat->centroids, dim);
  const auto tree_sizes = ClusterSizes(data, tree->centroids, dim);
  EXPECT_LT(*std::max_element(tree_sizes.begin(), tree_sizes.end()),
            *std::max_element(flat_sizes.begin(), flat_sizes.end()));
  EXPECT_LE(tree->loss, flat->loss * 1.01);
}

TEST(HierarchicalKMeans, SeededAndIndependentOfThreads) {
  const size_t dim = 8;
  auto data = testing::ClusteredData(8000, dim, 30, 5, 0.5f);
  KMeansParams p;
  p.num_clusters = 100;
  p.seed = 9;
  p.num_threads = 1;
  auto one = TrainHierarchicalKMeans(data, dim, p, 16, 5);
  p.num_threads = 2;
  auto two = TrainHierarchicalKMeans(data, dim, p, 16, 5);
  ASSERT_TRUE(one.ok() && two.ok());
  EXPECT_EQ(one->centroids, two->centroids);
  EXPECT_EQ(one->centroids.size(), 100 * dim);
  // No refinement: the tree's leaves, each the mean of its rows.
  auto leaves = TrainHierarchicalKMeans(data, dim, p, 16, 0);
  ASSERT_TRUE(leaves.ok());
  EXPECT_EQ(leaves->centroids.size(), 100 * dim);
  EXPECT_NE(leaves->centroids, one->centroids);
}

TEST(HierarchicalKMeans, CosineCentroidsAreUnitVectors) {
  const size_t dim = 8;
  auto data = testing::ClusteredData(6000, dim, 20, 13, 0.5f);
  KMeansParams p;
  p.num_clusters = 60;
  p.seed = 4;
  p.distance_type = DistanceType::kCosine;
  for (int refine : {0, 10}) {
    auto tree = TrainHierarchicalKMeans(data, dim, p, 16, refine);
    ASSERT_TRUE(tree.ok());
    ASSERT_EQ(tree->centroids.size(), 60 * dim);
    for (size_t c = 0; c < 60; ++c) {
      double norm = 0;
      for (size_t j = 0; j < dim; ++j)
        norm += tree->centroids[c * dim + j] * tree->centroids[c * dim + j];
      EXPECT_NEAR(norm, 1.0, 1e-4) << refine << " " << c;
    }
  }
}

TEST(HierarchicalKMeans, DuplicateRowsStillGiveEveryCentroid) {
  // 5 distinct rows cannot make 40 leaves: the missing centroids start as sample rows and the
  // refinement keeps every row on a centroid of its own value.
  const size_t dim = 4;
  std::vector<float> data;
  for (int r = 0; r < 2000; ++r) {
    for (size_t j = 0; j < dim; ++j) data.push_back(static_cast<float>((r % 5) * 10 + j));
  }
  KMeansParams p;
  p.num_clusters = 40;
  p.seed = 2;
  auto tree = TrainHierarchicalKMeans(data, dim, p, 16, 10);
  ASSERT_TRUE(tree.ok()) << tree.status().ToString();
  ASSERT_EQ(tree->centroids.size(), 40 * dim);
  EXPECT_LT(tree->loss, 1e-3);
  // Bad input is refused as by TrainKMeans.
  p.num_clusters = 3000;
  EXPECT_TRUE(TrainHierarchicalKMeans(data, dim, p, 16, 10).status().IsInvalidArgument());
}

// --- Hamming: k-modes over bytes ---------------------------------------------------------------

TEST(KMeans, HammingCentroidsAreTheirClustersBitMajorities) {
  const size_t dim = 8;  // bytes
  const int64_t n = 2000, k = 12;
  std::mt19937 gen(3);
  std::vector<uint8_t> centers(20 * dim);
  for (auto& b : centers) b = static_cast<uint8_t>(gen());
  std::vector<float> data(n * dim);
  for (int64_t r = 0; r < n; ++r) {
    const uint8_t* c = &centers[(gen() % 20) * dim];
    for (size_t j = 0; j < dim; ++j) {
      uint8_t flip = 0;
      for (int b = 0; b < 8; ++b) flip |= static_cast<uint8_t>((gen() % 16 == 0) << b);
      data[r * dim + j] = static_cast<float>(c[j] ^ flip);
    }
  }
  KMeansParams p;
  p.num_clusters = k;
  p.seed = 4;
  p.distance_type = DistanceType::kHamming;
  p.tolerance = 0;  // run until the assignment stops changing the loss
  auto km = TrainKMeans(data, dim, p);
  ASSERT_TRUE(km.ok()) << km.status().ToString();
  ASSERT_EQ(km->centroids.size(), k * dim);
  std::vector<uint32_t> assignment(n);
  std::vector<float> dist(n);
  AssignToCentroids(data.data(), n, km->centroids.data(), k, dim, DistanceType::kHamming,
                    assignment.data(), dist.data());
  double loss = 0;
  for (int64_t r = 0; r < n; ++r) {
    // The distance is the popcount of the xor with the chosen centroid, the least of all.
    float best = 1e9f;
    for (int64_t c = 0; c < k; ++c) {
      int bits = 0;
      for (size_t j = 0; j < dim; ++j) {
        bits += __builtin_popcount(static_cast<uint8_t>(data[r * dim + j]) ^
                                   static_cast<uint8_t>(km->centroids[c * dim + j]));
      }
      best = std::min(best, static_cast<float>(bits));
    }
    EXPECT_EQ(dist[r], best);
    loss += dist[r];
  }
  EXPECT_LE(loss, km->loss);  // the last update only lowers it
  // Converged: each centroid holds the majority bits of the rows assigned to it.
  for (int64_t c = 0; c < k; ++c) {
    std::vector<int> ones(dim * 8, 0);
    int count = 0;
    for (int64_t r = 0; r < n; ++r) {
      if (assignment[r] != c) continue;
      ++count;
      for (size_t j = 0; j < dim * 8; ++j) {
        ones[j] += (static_cast<uint8_t>(data[r * dim + j / 8]) >> (j % 8)) & 1;
      }
    }
    if (count == 0) continue;
    for (size_t j = 0; j < dim * 8; ++j) {
      const int bit = (static_cast<uint8_t>(km->centroids[c * dim + j / 8]) >> (j % 8)) & 1;
      EXPECT_EQ(bit, 2 * ones[j] > count ? 1 : 0) << "centroid " << c << " bit " << j;
    }
  }
  // Values that are not bytes are refused.
  data[5] = 0.5f;
  EXPECT_TRUE(TrainKMeans(data, dim, p).status().IsInvalidArgument());
  data[5] = 256.0f;
  EXPECT_TRUE(TrainKMeans(data, dim, p).status().IsInvalidArgument());
}

// --- Seeded reproducibility across processes -------------------------------------------------

/// The bytes a seeded IVF_PQ training produces: centroids then the PQ codebook.
std::string TrainedBytes(uint64_t seed) {
  const size_t dim = 16;
  auto data = testing::ClusteredData(3000, dim, 12, 11);
  IvfBuildParams p;
  p.num_partitions = 12;
  p.quantizer = QuantizerType::kPq;
  p.num_sub_vectors = 4;
  p.sample_rate = 64;
  p.seed = seed;
  auto index = BuildIvfIndex(data, testing::Iota(3000), dim, p);
  if (!index.ok()) return "error";
  auto c = (*index)->centroids();
  auto book = static_cast<const ProductQuantizer&>((*index)->quantizer()).codebook();
  return std::string(reinterpret_cast<const char*>(c.data()), c.size_bytes()) +
         std::string(reinterpret_cast<const char*>(book.data()), book.size_bytes());
}

std::string RunChild(uint64_t seed, const std::string& out_path) {
  int status = ::lancedb::testing::RunTestInChild(
      "KMeans.SeededTrainingChild",
      {"LANCEDB_TEST_TRAIN_OUT=" + out_path, "LANCEDB_TEST_TRAIN_SEED=" + std::to_string(seed)});
  if (status == -1) return "spawn";
  std::ifstream in(out_path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(KMeans, SeededTrainingChild) {
  const char* out = std::getenv("LANCEDB_TEST_TRAIN_OUT");
  ASSERT_NE(out, nullptr) << "runs as a child of SeededTrainingIsIdenticalAcrossProcesses";
  std::ofstream(out, std::ios::binary)
      << TrainedBytes(std::stoull(std::getenv("LANCEDB_TEST_TRAIN_SEED")));
}

TEST(KMeans, SeededTrainingIsIdenticalAcrossProcesses) {
  std::string dir = ::testing::TempDir();
  std::string a = RunChild(42, dir + "/train_a.bin");
  std::string b = RunChild(42, dir + "/train_b.bin");
  ASSERT_GT(a.size(), 1000u);
  EXPECT_EQ(a, b) << "same seed, two processes";
  EXPECT_EQ(a, TrainedBytes(42)) << "same seed, this process";
  EXPECT_NE(a, TrainedBytes(43)) << "different seeds";
  // Without a seed training is random.
  const size_t dim = 8;
  auto data = testing::ClusteredData(400, dim, 3, 1);
  KMeansParams p;
  p.num_clusters = 16;
  auto x = TrainKMeans(data, dim, p), y = TrainKMeans(data, dim, p);
  ASSERT_TRUE(x.ok() && y.ok());
  EXPECT_NE(x->centroids, y->centroids);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::index::vector
