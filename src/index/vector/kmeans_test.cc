// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/kmeans.h"

#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "index/vector/ivf_builder.h"
#include "index/vector/pq_builder.h"
#include "index/vector/test_util.h"

extern char** environ;

namespace lancedb::index::vector {
namespace {

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
  std::string filter = "--gtest_filter=KMeans.SeededTrainingChild";
  std::string env_out = "LANCEDB_TEST_TRAIN_OUT=" + out_path;
  std::string env_seed = "LANCEDB_TEST_TRAIN_SEED=" + std::to_string(seed);
  std::vector<char*> envp;
  for (char** e = environ; *e; ++e) envp.push_back(*e);
  envp.push_back(env_out.data());
  envp.push_back(env_seed.data());
  envp.push_back(nullptr);
  std::string self = "/proc/self/exe";
  char* argv[] = {self.data(), filter.data(), nullptr};
  pid_t pid;
  if (posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv, envp.data()) != 0) return "spawn";
  int status = 0;
  waitpid(pid, &status, 0);
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

}  // namespace
}  // namespace lancedb::index::vector
