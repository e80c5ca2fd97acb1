// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Test helpers: seeded clustered data, brute-force ground truth, scratch directories.

#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "index/vector/flat_search.h"
#include "index/vector/random.h"

namespace lancedb::index::vector::testing {

/// A fresh directory under the system's temporary directory, removed with everything in it
/// when destroyed.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& prefix = "lancedb-test") {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

/// The bytes of the file at `path` (empty when it cannot be read).
inline std::string ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// Check seeded determinism of an index writer: `write(dir, seed)` writes an index into `dir`;
/// seed 11 twice gives identical index.idx and auxiliary.idx, seed 12 another index.idx.
template <typename WriteFn>
void ExpectSameSeedSameBytes(const std::string& prefix, WriteFn write) {
  ScratchDir dir(prefix);
  write(dir.Sub("a"), 11);
  write(dir.Sub("b"), 11);
  write(dir.Sub("c"), 12);
  for (const char* file : {"index.idx", "auxiliary.idx"}) {
    EXPECT_EQ(ReadFileBytes(dir.Sub("a/") + file), ReadFileBytes(dir.Sub("b/") + file)) << file;
  }
  EXPECT_NE(ReadFileBytes(dir.Sub("a/index.idx")), ReadFileBytes(dir.Sub("c/index.idx")));
}

/// Return num_rows vectors drawn around num_clusters Gaussian centres. Layout: (num_rows, dim).
inline std::vector<float> ClusteredData(int64_t num_rows, size_t dim, int num_clusters,
                                        uint64_t seed, float spread = 0.15f) {
  Rng rng(seed);
  std::vector<float> centres(num_clusters * dim);
  for (auto& c : centres) c = static_cast<float>(rng.Normal());
  std::vector<float> out(num_rows * dim);
  for (int64_t r = 0; r < num_rows; ++r) {
    size_t c = rng.Uniform(num_clusters);
    for (size_t j = 0; j < dim; ++j) {
      out[r * dim + j] = centres[c * dim + j] + spread * static_cast<float>(rng.Normal());
    }
  }
  return out;
}

inline std::vector<uint64_t> Iota(int64_t n, uint64_t first = 0) {
  std::vector<uint64_t> ids(n);
  for (int64_t i = 0; i < n; ++i) ids[i] = first + i;
  return ids;
}

/// FlatSearchOptions for k and a distance type.
inline FlatSearchOptions Options(size_t k, DistanceType type) {
  FlatSearchOptions o;
  o.k = k;
  o.distance_type = type;
  return o;
}

/// Exact top-k ids for one query.
inline std::vector<uint64_t> ExactTopK(const std::vector<float>& data, size_t dim,
                                       const float* query, size_t k, DistanceType type) {
  VectorChunk chunk{ElementType::kFloat32, data.data(), static_cast<int64_t>(data.size() / dim)};
  FlatSearchOptions o;
  o.k = k;
  o.distance_type = type;
  o.num_threads = 1;
  auto res = FlatSearch({&chunk, 1}, dim, query, o);
  std::vector<uint64_t> ids;
  for (const auto& n : *res) ids.push_back(n.row_id);
  return ids;
}

/// Fraction of `truth` found in `got`.
inline double Recall(const std::vector<uint64_t>& truth, const std::vector<Neighbor>& got) {
  std::set<uint64_t> g;
  for (const auto& n : got) g.insert(n.row_id);
  size_t hit = 0;
  for (auto id : truth) hit += g.count(id);
  return truth.empty() ? 1.0 : static_cast<double>(hit) / truth.size();
}

}  // namespace lancedb::index::vector::testing
