// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Vector indices over tables: build, persist, register, load, search, manage.

#include "index/vector_index.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "index/index_details.h"
#include "index/index_manager.h"
#include "index/vector_index_test_util.h"
#include "table/manifest.h"

namespace lancedb::index {
namespace LANCEDB_TEST_FILE_NS {

using table::testing::TempDir;
using vector::DistanceType;
using vector::testing::ClusteredData;
using vector::testing::ExactTopK;
using vector::testing::Recall;

constexpr size_t kDim = 32;

struct Table {
  TempDir dir;
  std::vector<float> data;
  table::DatasetPtr ds;
};

void MakeTable(Table* t, int64_t rows, uint64_t seed) {
  t->data = ClusteredData(rows, kDim, 16, seed);
  auto reader = testing::VectorReader(t->data, kDim, 0);
  auto ds = table::Dataset::Write(io::LocalFileSystem(), t->dir.path() + "/t", reader.get(), {});
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  t->ds = *ds;
}

/// Mean recall@10 of the index `name` on `ds` over 20 queries drawn from the data.
double MeanRecall(const table::DatasetPtr& ds, const std::vector<float>& data, DistanceType type,
                  const VectorSearchParams& params) {
  auto indices = LoadVectorIndices(*ds, "vector");
  EXPECT_TRUE(indices.ok() && indices->size() == 1);
  if (!indices.ok() || indices->empty()) return 0;
  double sum = 0;
  const size_t rows = data.size() / kDim;
  for (size_t q = 0; q < 20; ++q) {
    const float* query = &data[((q * 97) % rows) * kDim];
    auto truth = ExactTopK(data, kDim, query, 10, type);
    auto got = (*indices)[0]->Search({query, kDim}, params, *ds);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    if (got.ok()) sum += Recall(truth, *got);
  }
  return sum / 20;
}

struct TypeCase {
  VectorIndexConfig config;
  size_t refine_factor;
  double min_recall;
};

TEST(VectorIndexTable, RoundTripEveryIndexTypeWithRecall) {
  Table t;
  MakeTable(&t, 2000, 7);
  std::vector<TypeCase> cases = {
      {VectorIndexConfig::IvfFlat(), 0, 0.999}, {VectorIndexConfig::IvfPq(), 10, 0.95},
      {VectorIndexConfig::IvfSq(), 0, 0.9},     {VectorIndexConfig::IvfRq(), 10, 0.9},
      {VectorIndexConfig::HnswFlat(), 0, 0.95}, {VectorIndexConfig::HnswSq(), 0, 0.9},
      {VectorIndexConfig::HnswPq(), 10, 0.9}};
  // IVF_FLAT, IVF_PQ and IVF_SQ in lancedb-cpp's own layout too.
  for (size_t i = 0; i < 3; ++i) {
    cases.push_back(cases[i]);
    cases.back().config.own_layout = true;
  }
  for (auto& c : cases) {
    SCOPED_TRACE(std::string(VectorIndexTypeName(c.config.index_type)) +
                 (c.config.own_layout ? " own layout" : ""));
    c.config.seed = 42;
    c.config.num_partitions = 8;
    auto ds = CreateVectorIndex(t.ds, "vector", c.config);
    ASSERT_TRUE(ds.ok()) << ds.status().ToString();
    ClearVectorIndexCache();  // load from the files
    VectorSearchParams sp;
    sp.nprobes = 8;
    sp.ef = 100;
    sp.refine_factor = c.refine_factor;
    EXPECT_GE(MeanRecall(*ds, t.data, DistanceType::kL2, sp), c.min_recall);
    auto stats = GetIndexStatistics(**ds, "vector_idx");
    ASSERT_TRUE(stats.ok());
    EXPECT_EQ(stats->index_type, VectorIndexTypeName(c.config.index_type));
    EXPECT_EQ(stats->num_indexed_rows, 2000);
    EXPECT_EQ(stats->num_unindexed_rows, 0);
    EXPECT_EQ(stats->num_indices, 1);
    EXPECT_EQ(stats->distance_type, "l2");
  }
}

TEST(VectorIndexTable, DistanceTypesAndPrefilter) {
  Table t;
  MakeTable(&t, 1000, 3);
  for (auto type : {DistanceType::kCosine, DistanceType::kDot}) {
    auto config = VectorIndexConfig::IvfFlat();
    config.distance_type = std::string(vector::DistanceTypeName(type));
    config.seed = 1;
    auto ds = CreateVectorIndex(t.ds, "vector", config);
    ASSERT_TRUE(ds.ok()) << ds.status().ToString();
    VectorSearchParams sp;
    sp.nprobes = 1000;
    EXPECT_GE(MeanRecall(*ds, t.data, type, sp), 0.999) << vector::DistanceTypeName(type);
  }
  auto ds = *CreateVectorIndex(t.ds, "vector", VectorIndexConfig::HnswSq());
  auto index = (*LoadVectorIndices(*ds, "vector"))[0];
  VectorSearchParams sp;
  sp.accept = [](uint64_t addr) { return addr % 3 == 0; };
  auto got = index->Search({&t.data[0], kDim}, sp, *ds);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->size(), 10u);
  for (const auto& n : *got) EXPECT_EQ(n.row_id % 3, 0u);
}

TEST(VectorIndexTable, ManifestRegistrationListReplaceDrop) {
  Table t;
  MakeTable(&t, 600, 5);
  auto config = VectorIndexConfig::IvfPq();
  config.seed = 9;
  auto v2 = *CreateVectorIndex(t.ds, "vector", config);
  const auto& section = v2->manifest().index_section();
  ASSERT_EQ(section.indices_size(), 1);
  const auto& meta = section.indices(0);
  EXPECT_EQ(meta.name(), "vector_idx");
  // IVF_PQ on float32 vectors: LanceDB's layout (index.idx, auxiliary.idx) and type URL.
  EXPECT_EQ(meta.index_details().type_url(), kLanceVectorIndexTypeUrl);
  EXPECT_EQ(meta.dataset_version(), t.ds->version());
  EXPECT_EQ(*DecodeFragmentBitmap(meta.fragment_bitmap()), std::vector<uint64_t>{0});
  EXPECT_EQ(meta.files_size(), 2);
  EXPECT_TRUE(v2->manifest().transaction() == nullptr ||
              v2->manifest().transaction()->has_create_index());
  auto list = *ListIndices(*v2);
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].index_type, "IVF_PQ");
  EXPECT_EQ(list[0].columns, std::vector<std::string>{"vector"});

  CreateIndexOptions keep;
  keep.replace = false;
  auto again = CreateVectorIndex(v2, "vector", config, keep);
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(*v2->LatestVersion(), v2->version());

  auto v3 = *CreateVectorIndex(v2, "vector", VectorIndexConfig::IvfFlat());
  ASSERT_EQ(v3->manifest().index_section().indices_size(), 1);
  EXPECT_NE(v3->manifest().index_section().indices(0).uuid().uuid(), meta.uuid().uuid());
  CreateIndexOptions named;
  named.name = "second";
  auto v4 = *CreateVectorIndex(v3, "vector", VectorIndexConfig::IvfFlat(), named);
  EXPECT_EQ(ListIndices(*v4)->size(), 2u);

  auto v5 = *DropIndex(v4, "vector_idx");
  ASSERT_EQ(ListIndices(*v5)->size(), 1u);
  EXPECT_EQ((*ListIndices(*v5))[0].name, "second");
  EXPECT_EQ(DropIndex(v5, "vector_idx").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(GetIndexStatistics(*v5, "nope").status().code(), StatusCode::kNotFound);
  // A reopened table sees the same indices.
  auto reopened = *table::Dataset::Open(io::LocalFileSystem(), v5->path());
  EXPECT_EQ(ListIndices(*reopened)->size(), 1u);
}

TEST(VectorIndexTable, BadInputWritesNothing) {
  Table t;
  MakeTable(&t, 300, 11);
  auto expect_error = [&](const VectorIndexConfig& config, const std::string& column,
                          const std::string& text) {
    auto r = CreateVectorIndex(t.ds, column, config);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().ToString().find(text), std::string::npos) << r.status().ToString();
    EXPECT_EQ(*t.ds->LatestVersion(), t.ds->version());
    EXPECT_FALSE(std::filesystem::exists(t.dir.path() + "/t/_indices") &&
                 !std::filesystem::is_empty(t.dir.path() + "/t/_indices"));
  };
  expect_error(VectorIndexConfig::IvfPq(), "id", "is not a vector column");
  expect_error(VectorIndexConfig::IvfPq(), "vectr", "not found");
  auto c = VectorIndexConfig::IvfPq();
  c.num_sub_vectors = 5;
  expect_error(c, "vector", "must divide");
  c = VectorIndexConfig::IvfFlat();
  c.distance_type = "manhattan";
  expect_error(c, "vector", "Unknown distance type");
  c = VectorIndexConfig::IvfPq();
  c.seed = 1;
  c.accelerator = "cuda";
  expect_error(c, "vector", "seed is not supported with accelerator-based index training");
  c = VectorIndexConfig::IvfFlat();
  c.num_partitions = 100000;
  expect_error(c, "vector", "exceeds the number of rows");
  EXPECT_FALSE(ParseVectorIndexType("IVF_XYZ").ok());
  EXPECT_EQ(*ParseVectorIndexType("HnswSq"), VectorIndexType::kIvfHnswSq);
}

TEST(VectorIndexTable, RebaseOverConcurrentAppendThenOptimize) {
  Table t;
  MakeTable(&t, 800, 13);
  auto extra = ClusteredData(200, kDim, 16, 99);
  auto appended = *t.ds->Append(testing::VectorReader(extra, kDim, 800).get());
  // The index was built on the old snapshot; it commits on top of the append.
  auto config = VectorIndexConfig::HnswSq();
  config.seed = 4;
  auto indexed = *CreateVectorIndex(t.ds, "vector", config);
  EXPECT_EQ(indexed->version(), appended->version() + 1);
  EXPECT_EQ(indexed->manifest().proto().fragments_size(), 2);
  auto stats = *GetIndexStatistics(*indexed, "vector_idx");
  EXPECT_EQ(stats.num_indexed_rows, 800);
  EXPECT_EQ(stats.num_unindexed_rows, 200);
  auto index = (*LoadVectorIndices(*indexed, "vector"))[0];
  EXPECT_TRUE(index->covers(0));
  EXPECT_FALSE(index->covers(1));

  auto optimized = *OptimizeVectorIndex(indexed, "vector_idx");
  stats = *GetIndexStatistics(*optimized, "vector_idx");
  EXPECT_EQ(stats.num_indexed_rows, 1000);
  EXPECT_EQ(stats.num_unindexed_rows, 0);
  EXPECT_EQ(stats.num_indices, 1);
  // An appended row is found by the optimized index.
  auto loaded = (*LoadVectorIndices(*optimized, "vector"))[0];
  VectorSearchParams sp;
  sp.nprobes = 100;
  auto got = *loaded->Search({&extra[5 * kDim], kDim}, sp, *optimized);
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(got[0].row_id, (uint64_t{1} << 32) | 5);
  EXPECT_EQ(*OptimizeVectorIndex(optimized, "vector_idx"), optimized);
  // Once fragment 0 is gone from the table, the index never returns its rows.
  std::vector<uint64_t> first(800);
  for (uint64_t i = 0; i < 800; ++i) first[i] = i;
  int64_t n = 0;
  auto shrunk = *optimized->DeleteRows(first, &n);
  ASSERT_EQ(shrunk->manifest().proto().fragments_size(), 1);
  auto after = *loaded->Search({&t.data[0], kDim}, sp, *shrunk);
  EXPECT_EQ(after.size(), 10u);
  for (const auto& nb : after) EXPECT_EQ(nb.row_id >> 32, 1u);
}

TEST(VectorIndexTable, LanceLayoutByDefaultOwnLayoutOnRequest) {
  Table t;
  MakeTable(&t, 800, 17);
  auto config = VectorIndexConfig::IvfPq();
  config.seed = 5;
  config.num_partitions = 4;
  auto lance = *CreateVectorIndex(t.ds, "vector", config);
  const auto& meta = lance->manifest().index_section().indices(0);
  EXPECT_EQ(meta.index_details().type_url(), kLanceVectorIndexTypeUrl);
  std::vector<std::string> files;
  for (const auto& f : meta.files()) files.push_back(f.path());
  EXPECT_EQ(files, (std::vector<std::string>{"auxiliary.idx", "index.idx"}));
  EXPECT_EQ((*ListIndices(*lance))[0].details_json,
            R"({"metric_type":"L2","compression":{"type":"pq","num_bits":8,"num_sub_vectors":2}})");
  // Optimize extends it in the same layout.
  auto extra = ClusteredData(100, kDim, 16, 98);
  auto appended = *lance->Append(testing::VectorReader(extra, kDim, 800).get());
  auto optimized = *OptimizeVectorIndex(appended, "vector_idx");
  const auto& extended = optimized->manifest().index_section().indices(0);
  EXPECT_EQ(extended.index_details().type_url(), kLanceVectorIndexTypeUrl);
  EXPECT_NE(extended.uuid().uuid(), meta.uuid().uuid());
  auto stats = *GetIndexStatistics(*optimized, "vector_idx");
  EXPECT_EQ(stats.num_indexed_rows, 900);
  EXPECT_EQ(stats.num_unindexed_rows, 0);
  auto loaded = (*LoadVectorIndices(*optimized, "vector"))[0];
  EXPECT_EQ(loaded->ivf().num_rows(), 900);
  // The option keeps lancedb-cpp's own layout.
  config.own_layout = true;
  auto own = *CreateVectorIndex(t.ds, "vector", config);
  EXPECT_EQ(own->manifest().index_section().indices(0).index_details().type_url(),
            kVectorIndexTypeUrl);
  EXPECT_GE(own->manifest().index_section().indices(0).files_size(), 3);
}

TEST(VectorIndexTable, Float64ColumnAndDeletedRows) {
  TempDir dir;
  auto data = ClusteredData(500, kDim, 8, 21);
  std::vector<double> wide(data.begin(), data.end());
  auto type = array::fixed_size_list(array::float64(), static_cast<int32_t>(kDim));
  auto schema = array::schema({array::field("v", type)});
  auto column =
      array::MakeFixedSizeList(type, array::MakePrimitive<double>(array::float64(), wide));
  auto reader = array::MakeVectorReader(schema, {*array::RecordBatch::Make(schema, {column})});
  auto ds = *table::Dataset::Write(io::LocalFileSystem(), dir.path() + "/t", reader.get(), {});
  int64_t deleted = 0;
  ds = *ds->DeleteRows({0, 1, 2, 3, 4}, &deleted);
  ASSERT_EQ(deleted, 5);
  auto config = VectorIndexConfig::IvfFlat();
  config.seed = 2;
  auto indexed = *CreateVectorIndex(ds, "v", config);
  auto index = (*LoadVectorIndices(*indexed, "v"))[0];
  EXPECT_EQ(index->ivf().num_rows(), 495);
  EXPECT_EQ(GetIndexStatistics(*indexed, "v_idx")->num_indexed_rows, 495);
  VectorSearchParams sp;
  sp.nprobes = 100;
  sp.refine_factor = 2;
  auto got = *index->Search({&data[10 * kDim], kDim}, sp, *indexed);
  ASSERT_EQ(got.size(), 10u);
  EXPECT_EQ(got[0].row_id, 10u);
  EXPECT_NEAR(got[0].distance, 0.0f, 1e-4);
}

TEST(VectorIndexTable, ConcurrentOverwriteConflictsAndLeavesNoFiles) {
  Table t;
  MakeTable(&t, 400, 17);
  auto data = ClusteredData(300, kDim, 4, 5);
  auto overwritten = *t.ds->Overwrite(testing::VectorReader(data, kDim, 0).get());
  auto r = CreateVectorIndex(t.ds, "vector", VectorIndexConfig::IvfFlat());
  EXPECT_EQ(r.status().code(), StatusCode::kCommitConflict) << r.status().ToString();
  EXPECT_EQ(*t.ds->LatestVersion(), overwritten->version());
  std::string dir = t.dir.path() + "/t/_indices";
  EXPECT_TRUE(!std::filesystem::exists(dir) || std::filesystem::is_empty(dir));
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::index
