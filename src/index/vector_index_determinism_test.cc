// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Seeded determinism at the file level (a LanceDB contract): two builds with the same seed, in
// two processes, on two tables with the same rows, write identical centroid and codebook bytes.
// WriteIndexedTableForOtherProcess is both the child of that test and the writer used by
// tests/compat/test_index_compat.py (it runs only when LANCEDB_INDEX_OUT is set).

#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "common/test_util.h"
#include "index/index_manager.h"
#include "index/vector/ivf_persist.h"
#include "index/vector/ivf_persist_internal.h"
#include "index/vector_index.h"
#include "index/vector_index_test_util.h"
#include "table/create_index_op.h"
#include "table/manifest.h"

namespace lancedb::index {
namespace LANCEDB_TEST_FILE_NS {

using table::testing::TempDir;

constexpr size_t kDim = 16;

/// Build table `dir`/t (1000 rows, seed-7 data) with an index of `type` ("IVF_PQ"; with the
/// suffix "/own" in lancedb-cpp's own layout) trained with `seed`. Returns the index directory.
std::string BuildSeeded(const std::string& dir, uint64_t seed, const std::string& type) {
  auto data = vector::testing::ClusteredData(1000, kDim, 8, 7);
  auto reader = testing::VectorReader(data, kDim, 0);
  auto ds = table::Dataset::Write(io::LocalFileSystem(), dir + "/t", reader.get(), {});
  EXPECT_TRUE(ds.ok()) << ds.status().ToString();
  if (!ds.ok()) return "";
  VectorIndexConfig config;
  const size_t slash = type.find('/');
  config.index_type = *ParseVectorIndexType(type.substr(0, slash));
  config.own_layout = slash != std::string::npos && type.substr(slash) == "/own";
  config.seed = seed;
  config.num_partitions = 4;
  auto indexed = CreateVectorIndex(*ds, "vector", config);
  EXPECT_TRUE(indexed.ok()) << indexed.status().ToString();
  if (!indexed.ok()) return "";
  const auto& meta = (*indexed)->manifest().index_section().indices(0);
  return dir + "/t/_indices/" + table::IndexUuidString(meta);
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(VectorIndexDeterminism, WriteIndexedTableForOtherProcess) {
  const char* out = std::getenv("LANCEDB_INDEX_OUT");
  ASSERT_NE(out, nullptr) << "LANCEDB_INDEX_OUT not set (a producer for a child process)";
  const char* seed = std::getenv("LANCEDB_INDEX_SEED");
  const char* type = std::getenv("LANCEDB_INDEX_TYPE");
  std::string index_dir =
      BuildSeeded(out, seed ? std::strtoull(seed, nullptr, 10) : 42, type ? type : "IVF_PQ");
  ASSERT_FALSE(index_dir.empty());
  std::ofstream(std::string(out) + "/index_dir.txt") << index_dir;
}

/// Run this binary's writer test in a child process writing to `dir`.
void BuildInChild(const std::string& dir, uint64_t seed, const std::string& type) {
  int status = ::lancedb::testing::RunTestInChild(
      "VectorIndexDeterminism.WriteIndexedTableForOtherProcess",
      {"LANCEDB_INDEX_OUT=" + dir, "LANCEDB_INDEX_SEED=" + std::to_string(seed),
       "LANCEDB_INDEX_TYPE=" + type});
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "wait status " << status;
}

/// The names of the files in `dir`, sorted.
std::vector<std::string> FileNames(const std::string& dir) {
  auto listed = io::LocalFileSystem()->ListDir(dir);
  EXPECT_TRUE(listed.ok()) << listed.status().ToString();
  std::vector<std::string> names;
  if (listed.ok()) {
    for (const auto& f : *listed) names.push_back(f.name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(VectorIndexDeterminism, SameSeedSameBytesAcrossProcesses) {
  const std::vector<std::string> own = {vector::kAuxiliaryFile, vector::kIndexFile,
                                        vector::kQuantizerFile};
  for (std::string type :
       {"IVF_PQ", "IVF_SQ", "IVF_FLAT", "IVF_PQ/own", "IVF_HNSW_SQ", "IVF_RQ", "IVF_RQ/own"}) {
    SCOPED_TRACE(type);
    TempDir a, b, c;
    std::string mine = BuildSeeded(a.path(), 1234, type);
    BuildInChild(b.path(), 1234, type);
    std::string theirs = ReadAll(b.path() + "/index_dir.txt");
    ASSERT_FALSE(theirs.empty());
    EXPECT_NE(mine, theirs);  // different tables, different uuids
    const auto files = FileNames(mine);
    // Lance's layout (IVF_FLAT, IVF_PQ, IVF_SQ, IVF_RQ, IVF_HNSW_*) has no quantizer.idx.
    const bool lance_layout = type == "IVF_PQ" || type == "IVF_SQ" || type == "IVF_FLAT" ||
                              type == "IVF_HNSW_SQ" || type == "IVF_RQ";
    if (lance_layout) {
      EXPECT_EQ(files, (std::vector<std::string>{vector::kAuxiliaryFile, vector::kIndexFile}));
    } else {
      EXPECT_TRUE(std::includes(files.begin(), files.end(), own.begin(), own.end()));
    }
    EXPECT_EQ(files, FileNames(theirs));
    for (const auto& file : files) {
      SCOPED_TRACE(file);
      std::string x = ReadAll(mine + "/" + file);
      ASSERT_FALSE(x.empty());
      EXPECT_TRUE(x == ReadAll(theirs + "/" + file));
    }
    // Another seed, other centroids (index.idx holds them in both layouts).
    std::string other = BuildSeeded(c.path(), 1235, type);
    EXPECT_NE(ReadAll(mine + "/" + vector::kIndexFile), ReadAll(other + "/" + vector::kIndexFile));
  }
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::index
