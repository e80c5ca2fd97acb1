// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Tests of multivector (late interaction, MaxSim) search: exact search against brute force
// for each distance, the indexed search's recall on clustered data, rows appended after the
// index, and the errors (mismatched query and column kinds, dimensions, index distance).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <set>

#include "array/builder.h"
#include "array/c_bridge.h"
#include "db/vector_query_test_util.h"
#include "lancedb/lancedb.h"

namespace lancedb {
namespace LANCEDB_TEST_FILE_NS {

using db_testing::Column;

namespace la = lancedb::array;

constexpr int32_t kDim = 16;
using Multivector = std::vector<std::vector<float>>;

la::SchemaPtr Schema() {
  return la::schema({la::field("id", la::int64(), false),
                     la::field("mv", la::list(la::fixed_size_list(la::float32(), kDim))),
                     la::field("v", la::fixed_size_list(la::float32(), kDim))});
}

/// Rows of 1 to 4 vectors; with `clusters`, every vector of a row lies near one of `clusters`
/// centres (the row's topic), else the vectors are standard normal. Row 5 is null.
std::vector<Multivector> MakeRows(int64_t count, uint32_t seed, int clusters = 0) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<std::vector<float>> centres(static_cast<size_t>(clusters));
  for (auto& c : centres) {
    c.resize(kDim);
    for (auto& x : c) x = normal(rng) * 3.0f;
  }
  std::vector<Multivector> rows;
  for (int64_t i = 0; i < count; ++i) {
    Multivector row(1 + rng() % 4, std::vector<float>(kDim));
    const size_t topic = clusters ? rng() % static_cast<uint32_t>(clusters) : 0;
    for (auto& v : row) {
      for (int d = 0; d < kDim; ++d) v[d] = normal(rng) + (clusters ? centres[topic][d] : 0.0f);
    }
    rows.push_back(i == 5 ? Multivector() : row);
  }
  return rows;
}

la::RecordBatchPtr Batch(const std::vector<Multivector>& rows, int64_t first, int64_t count) {
  std::vector<int64_t> ids, offsets{0};
  std::vector<float> values, singles;
  std::vector<bool> valid;
  for (int64_t i = first; i < first + count; ++i) {
    ids.push_back(i);
    for (const auto& v : rows[i]) values.insert(values.end(), v.begin(), v.end());
    offsets.push_back(offsets.back() + static_cast<int64_t>(rows[i].size()));
    valid.push_back(!rows[i].empty());
    for (int d = 0; d < kDim; ++d) singles.push_back(rows[i].empty() ? 0.0f : rows[i][0][d]);
  }
  const auto fsl = la::fixed_size_list(la::float32(), kDim);
  auto inner = la::MakeFixedSizeList(fsl, la::MakePrimitive(la::float32(), values));
  return *la::RecordBatch::Make(
      Schema(),
      {la::MakePrimitive(la::int64(), ids),
       la::MakeList(Schema()->field(1)->type(), offsets, inner, valid),
       la::MakeFixedSizeList(fsl, la::MakePrimitive(la::float32(), singles))},
      count);
}

std::shared_ptr<Table> MakeTable(const std::string& uri, const std::vector<Multivector>& rows,
                                 int64_t first, int64_t count) {
  auto db = Connect(uri);
  EXPECT_TRUE(db.ok());
  ArrowArrayStream s;
  EXPECT_TRUE(
      la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {Batch(rows, first, count)}), &s)
          .ok());
  auto t = (*db)->CreateTable("t", &s);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return *t;
}

void Append(Table& table, const std::vector<Multivector>& rows, int64_t first, int64_t count) {
  ArrowArrayStream s;
  ASSERT_TRUE(
      la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {Batch(rows, first, count)}), &s)
          .ok());
  ASSERT_TRUE(table.Add(&s).ok());
}

Result<la::RecordBatchPtr> RunQuery(const VectorQuery& q) {
  ArrowArrayStream s;
  LANCEDB_RETURN_NOT_OK(q.Execute(&s));
  LANCEDB_ASSIGN_OR_RETURN(auto reader, la::ImportArrayStream(&s));
  LANCEDB_ASSIGN_OR_RETURN(auto batches, reader->ReadAll());
  return la::ConcatenateBatches(reader->schema(), batches);
}

/// LanceDB's per-pair distance: l2 squared, 1 - cos, 1 - x.y.
double PairDistance(const std::string& type, const std::vector<float>& a,
                    const std::vector<float>& b) {
  double dot = 0, l2 = 0, na = 0, nb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    dot += a[i] * b[i];
    l2 += (a[i] - b[i]) * (a[i] - b[i]);
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  if (type == "l2") return l2;
  if (type == "dot") return 1 - dot;
  return 1 - dot / std::sqrt(na * nb);
}

/// Brute-force MaxSim: the k nearest (distance, id) rows.
std::vector<std::pair<double, int64_t>> BruteForce(const std::string& type,
                                                   const std::vector<Multivector>& rows,
                                                   const Multivector& query, size_t k) {
  std::vector<std::pair<double, int64_t>> all;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].empty()) continue;
    double sum = 0;
    for (const auto& q : query) {
      double best = INFINITY;
      for (const auto& v : rows[i]) best = std::min(best, PairDistance(type, q, v));
      sum += best;
    }
    all.emplace_back(sum, static_cast<int64_t>(i));
  }
  std::sort(all.begin(), all.end());
  all.resize(std::min(all.size(), k));
  return all;
}

TEST(MultivectorSearch, FlatMatchesBruteForceForEachDistance) {
  const auto rows = MakeRows(300, 1);
  auto table = MakeTable("memory://mv_flat", rows, 0, 200);
  Append(*table, rows, 200, 100);
  const Multivector query = MakeRows(1, 99)[0];
  for (const std::string type : {"l2", "cosine", "dot"}) {
    SCOPED_TRACE(type);
    auto got = RunQuery(table->VectorSearch(query[0])
                            .AddQueryVector(query.size() > 1 ? query[1] : query[0])
                            .Column("mv")
                            .DistanceType(type)
                            .Limit(10));
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    Multivector q2 = {query[0], query.size() > 1 ? query[1] : query[0]};
    auto expected = BruteForce(type, rows, q2, 10);
    auto ids = Column<int64_t>(*got, "id");
    auto distances = Column<float>(*got, "_distance");
    ASSERT_EQ(ids.size(), expected.size());
    EXPECT_EQ((*got)->schema()->GetFieldIndex("query_index"), -1);
    for (size_t i = 0; i < ids.size(); ++i) {
      EXPECT_EQ(ids[i], expected[i].second);
      EXPECT_NEAR(distances[i], expected[i].first, 1e-4);
    }
  }
}

TEST(MultivectorSearch, ExplicitMultivectorQueryAndFilters) {
  const auto rows = MakeRows(100, 2);
  auto table = MakeTable("memory://mv_filter", rows, 0, 100);
  const Multivector query = {rows[10][0], rows[20][0], rows[30][0]};
  auto got = RunQuery(table->MultivectorSearch(query).Where("id >= 50").Limit(5));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  std::vector<Multivector> kept(rows.begin(), rows.end());
  for (int i = 0; i < 50; ++i) kept[i].clear();
  auto expected = BruteForce("l2", kept, query, 5);
  EXPECT_EQ(Column<int64_t>(*got, "id"),
            (std::vector<int64_t>{expected[0].second, expected[1].second, expected[2].second,
                                  expected[3].second, expected[4].second}));
  // A single vector against a multivector column is a one-vector multivector query.
  auto one = RunQuery(table->VectorSearch(rows[42][0]).Column("mv").Limit(1));
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(Column<int64_t>(*one, "id"), std::vector<int64_t>{42});
  EXPECT_NEAR(Column<float>(*one, "_distance")[0], 0.0f, 1e-4);
}

TEST(MultivectorSearch, MismatchedQueriesAreRejected) {
  const auto rows = MakeRows(20, 3);
  auto table = MakeTable("memory://mv_errors", rows, 0, 20);
  // A multivector query against a single-vector column.
  auto single = RunQuery(table->MultivectorSearch({rows[0][0], rows[1][0]}).Column("v"));
  ASSERT_FALSE(single.ok());
  EXPECT_TRUE(single.status().IsInvalidArgument());
  EXPECT_NE(single.status().message().find("is not a multivector column"), std::string::npos)
      << single.status().message();
  // A query vector of another dimension.
  auto wrong_dim =
      RunQuery(table->MultivectorSearch({rows[0][0], std::vector<float>(3, 1.0f)}).Column("mv"));
  ASSERT_FALSE(wrong_dim.ok());
  EXPECT_NE(wrong_dim.status().message().find("dimension 3"), std::string::npos)
      << wrong_dim.status().message();
  // An index on a multivector column is cosine only.
  VectorIndexConfig config;
  config.index_type = VectorIndexType::kIvfFlat;
  config.num_partitions = 2;
  Status st = table->CreateIndex("mv", config);
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.message().find("only cosine"), std::string::npos) << st.message();
  EXPECT_TRUE((*table->ListIndices()).empty());
}

double Recall(Table& table, const std::vector<Multivector>& rows, int queries, size_t k,
              uint32_t seed, std::optional<uint32_t> refine_factor = std::nullopt) {
  std::mt19937 rng(seed);
  double hits = 0;
  for (int i = 0; i < queries; ++i) {
    // A query: perturbed vectors of a random row.
    const auto& row = rows[rng() % rows.size()];
    if (row.empty()) continue;
    Multivector query = row;
    std::normal_distribution<float> noise(0.0f, 0.3f);
    for (auto& v : query) {
      for (auto& x : v) x += noise(rng);
    }
    auto search = table.MultivectorSearch(query).Column("mv").Limit(static_cast<int64_t>(k));
    if (refine_factor) search.RefineFactor(*refine_factor);
    auto got = RunQuery(search);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    if (!got.ok()) return 0;
    auto ids = Column<int64_t>(*got, "id");
    std::set<int64_t> found(ids.begin(), ids.end());
    for (const auto& [d, id] : BruteForce("cosine", rows, query, k)) hits += found.count(id);
  }
  return hits / (queries * static_cast<double>(k));
}

TEST(MultivectorSearch, IndexedRecallOnClusteredData) {
  const auto rows = MakeRows(1500, 4, 12);
  for (auto type : {VectorIndexType::kIvfPq, VectorIndexType::kIvfHnswSq, VectorIndexType::kIvfFlat,
                    VectorIndexType::kIvfSq, VectorIndexType::kIvfRq, VectorIndexType::kIvfHnswPq,
                    VectorIndexType::kIvfHnswFlat}) {
    SCOPED_TRACE(static_cast<int>(type));
    auto table = MakeTable("memory://mv_recall_" + std::to_string(static_cast<int>(type)), rows, 0,
                           static_cast<int64_t>(rows.size()));
    VectorIndexConfig config;
    config.index_type = type;
    config.distance_type = "cosine";
    config.num_partitions = 8;
    config.num_sub_vectors = 8;
    config.seed = 7;
    // RaBitQ needs its widest codes here (LanceDB's recall on such data: 0.3 at 1 bit, 0.8 at 4).
    if (type == VectorIndexType::kIvfRq) config.num_bits = 8;
    ASSERT_TRUE(table->CreateIndex("mv", config).ok());
    // Written in Lance's layout (one row per row vector), as LanceDB writes it.
    auto indices = table->ListIndices();
    ASSERT_TRUE(indices.ok() && indices->size() == 1);
    EXPECT_EQ((*indices)[0].type_url, "/lance.index.pb.VectorIndexDetails");
    EXPECT_EQ((*indices)[0].index_type, VectorIndexTypeName(type));
    // PQ's approximate distances need exact re-scoring of some more candidates.
    const bool pq = type == VectorIndexType::kIvfPq || type == VectorIndexType::kIvfHnswPq;
    const double recall =
        Recall(*table, rows, 20, 10, 11, pq ? std::optional<uint32_t>(2) : std::nullopt);
    EXPECT_GE(recall, 0.9);
  }
}

TEST(MultivectorSearch, RowsAppendedAfterTheIndexAreFound) {
  const auto rows = MakeRows(600, 5, 6);
  auto table = MakeTable("memory://mv_append", rows, 0, 500);
  VectorIndexConfig config;
  config.index_type = VectorIndexType::kIvfFlat;
  config.distance_type = "cosine";
  config.num_partitions = 4;
  ASSERT_TRUE(table->CreateIndex("mv", config).ok());
  Append(*table, rows, 500, 100);
  // Row 550's own vectors find it first, with distance 0, through the exact search of the
  // unindexed fragment.
  auto got = RunQuery(table->MultivectorSearch(rows[550]).Column("mv").Limit(3));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(Column<int64_t>(*got, "id")[0], 550);
  EXPECT_NEAR(Column<float>(*got, "_distance")[0], 0.0f, 1e-4);
  // fast_search leaves it out.
  auto fast = RunQuery(table->MultivectorSearch(rows[550]).Column("mv").Limit(3).FastSearch());
  ASSERT_TRUE(fast.ok());
  for (int64_t id : Column<int64_t>(*fast, "id")) EXPECT_LT(id, 500);
  // With a refine factor, the distances are exact.
  auto refined = RunQuery(
      table->MultivectorSearch(rows[100]).Column("mv").Limit(5).RefineFactor(4).Nprobes(4));
  ASSERT_TRUE(refined.ok());
  auto expected = BruteForce("cosine", rows, rows[100], 1);
  EXPECT_EQ(Column<int64_t>(*refined, "id")[0], expected[0].second);
  EXPECT_NEAR(Column<float>(*refined, "_distance")[0], expected[0].first, 1e-4);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb
