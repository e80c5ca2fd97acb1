// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Tests of vector queries (VectorQuery): exact search against brute force for each distance,
// prefilter / postfilter, deleted rows, batch queries, the result schema and the errors.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <set>

#include "array/builder.h"
#include "array/c_bridge.h"
#include "common/test_util.h"
#include "db/vector_query_test_util.h"
#include "lancedb/lancedb.h"

namespace lancedb {
namespace LANCEDB_TEST_FILE_NS {

using db_testing::Collect;
using db_testing::Column;

namespace la = lancedb::array;

constexpr int32_t kDim = 16;

la::SchemaPtr Schema() {
  return la::schema({la::field("id", la::int64(), false),
                     la::field("vector", la::fixed_size_list(la::float32(), kDim)),
                     la::field("bits", la::fixed_size_list(la::uint8(), 4))});
}

/// Row i: id i, a seeded random vector, 4 random bytes.
struct Data {
  std::vector<std::vector<float>> vectors;
  std::vector<std::vector<uint8_t>> bits;
};

Data MakeData(int64_t rows, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  Data d;
  for (int64_t i = 0; i < rows; ++i) {
    std::vector<float> v(kDim);
    for (auto& x : v) x = normal(rng);
    d.vectors.push_back(v);
    std::vector<uint8_t> b(4);
    for (auto& x : b) x = static_cast<uint8_t>(rng() & 0xff);
    d.bits.push_back(b);
  }
  return d;
}

la::RecordBatchPtr Batch(const Data& d, int64_t first, int64_t count) {
  std::vector<int64_t> ids;
  std::vector<float> values;
  std::vector<uint8_t> bytes;
  for (int64_t i = first; i < first + count; ++i) {
    ids.push_back(i);
    values.insert(values.end(), d.vectors[i].begin(), d.vectors[i].end());
    bytes.insert(bytes.end(), d.bits[i].begin(), d.bits[i].end());
  }
  return *la::RecordBatch::Make(
      Schema(),
      {la::MakePrimitive(la::int64(), ids),
       la::MakeFixedSizeList(Schema()->field(1)->type(), la::MakePrimitive(la::float32(), values)),
       la::MakeFixedSizeList(Schema()->field(2)->type(), la::MakePrimitive(la::uint8(), bytes))},
      count);
}

std::shared_ptr<Table> MakeTable(const std::string& uri, const Data& d, int fragments) {
  auto db = Connect(uri);
  EXPECT_TRUE(db.ok());
  const int64_t rows = static_cast<int64_t>(d.vectors.size());
  std::shared_ptr<Table> table;
  for (int f = 0; f < fragments; ++f) {
    const int64_t first = f * rows / fragments, last = (f + 1) * rows / fragments;
    ArrowArrayStream s;
    EXPECT_TRUE(la::ExportRecordBatchReader(
                    la::MakeVectorReader(Schema(), {Batch(d, first, last - first)}), &s)
                    .ok());
    if (f == 0) {
      auto t = (*db)->CreateTable("t", &s);
      EXPECT_TRUE(t.ok()) << t.status().ToString();
      table = *t;
    } else {
      EXPECT_TRUE(table->Add(&s).ok());
    }
  }
  return table;
}

float Distance(const std::string& type, const std::vector<float>& a, const std::vector<float>& b) {
  double dot = 0, l2 = 0, na = 0, nb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    dot += a[i] * b[i];
    l2 += (a[i] - b[i]) * (a[i] - b[i]);
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  if (type == "l2") return static_cast<float>(l2);
  if (type == "dot") return static_cast<float>(1 - dot);  // LanceDB reports 1 - x·y
  return static_cast<float>(1 - dot / std::sqrt(na * nb));
}

/// The ids of the k nearest rows among `candidates` (all rows when empty).
std::vector<int64_t> BruteForce(const Data& d, const std::vector<float>& q, const std::string& type,
                                size_t k, const std::function<bool(int64_t)>& keep = nullptr) {
  std::vector<std::pair<float, int64_t>> all;
  for (int64_t i = 0; i < static_cast<int64_t>(d.vectors.size()); ++i) {
    if (!keep || keep(i)) all.emplace_back(Distance(type, q, d.vectors[i]), i);
  }
  std::sort(all.begin(), all.end());
  std::vector<int64_t> ids;
  for (size_t i = 0; i < std::min(k, all.size()); ++i) ids.push_back(all[i].second);
  return ids;
}

TEST(VectorQuery, FlatMatchesBruteForceForEachDistance) {
  const Data d = MakeData(3000, 1);
  auto t = MakeTable("memory://vq_flat", d, 3);
  const Data queries = MakeData(5, 99);
  for (const std::string type : {"l2", "cosine", "dot"}) {
    for (const auto& q : queries.vectors) {
      auto b = Collect(t->VectorSearch(q).DistanceType(type).Limit(7));
      ASSERT_NE(b, nullptr);
      EXPECT_EQ(Column<int64_t>(b, "id"), BruteForce(d, q, type, 7)) << type;
      auto ids = Column<int64_t>(b, "id");
      auto dist = Column<float>(b, "_distance");
      for (size_t i = 0; i < ids.size(); ++i) {
        EXPECT_NEAR(dist[i], Distance(type, q, d.vectors[ids[i]]), 1e-3) << type;
      }
    }
  }
}

TEST(VectorQuery, HammingOnUint8Column) {
  const Data d = MakeData(500, 2);
  auto t = MakeTable("memory://vq_hamming", d, 1);
  std::vector<float> q = {1, 2, 3, 4};
  auto b = Collect(t->VectorSearch(q).Column("bits").DistanceType("hamming").Limit(500));
  ASSERT_NE(b, nullptr);
  auto ids = Column<int64_t>(b, "id");
  auto dist = Column<float>(b, "_distance");
  ASSERT_EQ(ids.size(), 500u);
  for (size_t i = 0; i < ids.size(); ++i) {
    int bits = 0;
    for (int j = 0; j < 4; ++j) bits += __builtin_popcount(d.bits[ids[i]][j] ^ (j + 1));
    EXPECT_EQ(dist[i], static_cast<float>(bits));
    if (i > 0) {
      EXPECT_LE(dist[i - 1], dist[i]);
    }
  }
}

TEST(VectorQuery, HammingIvfFlatOnUint8Column) {
  const Data d = MakeData(600, 4);
  auto t = MakeTable("memory://vq_hamming_ivf", d, 2);
  auto config = VectorIndexConfig::IvfFlat();
  config.distance_type = "hamming";
  config.num_partitions = 6;
  config.seed = 7;
  ASSERT_OK(t->CreateIndex("bits", config));
  for (const std::vector<float>& q :
       std::vector<std::vector<float>>{{1, 2, 3, 4}, {255, 0, 9, 77}}) {
    // Every partition probed: the index answers as the exact scan.
    auto indexed = Collect(t->VectorSearch(q).Column("bits").Nprobes(6).Limit(20));
    auto flat = Collect(t->VectorSearch(q).Column("bits").BypassVectorIndex().Limit(20));
    ASSERT_NE(indexed, nullptr);
    ASSERT_NE(flat, nullptr);
    EXPECT_EQ(Column<float>(indexed, "_distance"), Column<float>(flat, "_distance"));
    auto ids = Column<int64_t>(indexed, "id");
    auto dist = Column<float>(indexed, "_distance");
    for (size_t i = 0; i < ids.size(); ++i) {
      int bits = 0;
      for (int j = 0; j < 4; ++j) {
        bits += __builtin_popcount(d.bits[ids[i]][j] ^ static_cast<uint8_t>(q[j]));
      }
      EXPECT_EQ(dist[i], static_cast<float>(bits));
    }
  }
  auto pq = VectorIndexConfig::IvfPq();
  pq.distance_type = "hamming";
  pq.num_partitions = 2;
  pq.num_sub_vectors = 2;
  EXPECT_TRUE(t->CreateIndex("bits", pq).IsNotSupported());
  auto l2 = VectorIndexConfig::IvfFlat();
  l2.num_partitions = 2;
  Status wrong_metric = t->CreateIndex("bits", l2);
  EXPECT_TRUE(wrong_metric.IsInvalidArgument());
  EXPECT_NE(wrong_metric.message().find("UInt8 with distance type l2"), std::string::npos);
  Status on_floats = t->CreateIndex("vector", config);
  EXPECT_TRUE(on_floats.IsInvalidArgument());
  EXPECT_NE(on_floats.message().find("hamming needs uint8 vectors"), std::string::npos);
}

TEST(VectorQuery, DefaultsAndSchema) {
  const Data d = MakeData(100, 3);
  auto t = MakeTable("memory://vq_schema", d, 1);
  auto b = Collect(t->VectorSearch(d.vectors[5]));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->num_rows(), 10);
  std::vector<std::string> names;
  for (const auto& f : b->schema()->fields()) names.push_back(f->name());
  EXPECT_EQ(names, (std::vector<std::string>{"id", "vector", "bits", "_distance"}));
  EXPECT_EQ(b->schema()->field(3)->type()->id(), la::TypeId::kFloat32);
  EXPECT_EQ(Column<int64_t>(b, "id")[0], 5);
  EXPECT_EQ(Column<float>(b, "_distance")[0], 0.0f);
  auto s = Collect(t->VectorSearch(d.vectors[5]).Select({"id"}).WithRowId().Limit(3).Offset(1));
  names.clear();
  for (const auto& f : s->schema()->fields()) names.push_back(f->name());
  EXPECT_EQ(names, (std::vector<std::string>{"id", "_distance", "_rowid"}));
  const auto all_ids = Column<int64_t>(b, "id");
  EXPECT_EQ(Column<int64_t>(s, "id"),
            std::vector<int64_t>(all_ids.begin() + 1, all_ids.begin() + 4));
}

TEST(VectorQuery, PrefilterReturnsLimitRowsWithSelectiveFilter) {
  const Data d = MakeData(5000, 4);
  auto t = MakeTable("memory://vq_prefilter", d, 4);
  const auto q = MakeData(1, 7).vectors[0];
  // 1% of the rows match.
  auto b = Collect(t->VectorSearch(q).Where("id % 100 = 3").Limit(20));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(Column<int64_t>(b, "id"),
            BruteForce(d, q, "l2", 20, [](int64_t i) { return i % 100 == 3; }));
}

TEST(VectorQuery, PrefilterThroughScalarIndexMatchesBruteForceAndIsExplained) {
  const Data d = MakeData(4000, 5);
  auto t = MakeTable("memory://vq_scalar_prefilter", d, 4);
  ASSERT_OK(t->CreateScalarIndex("id", ScalarIndexType::kBTree));
  ASSERT_OK(t->Delete("id % 10 = 4"));
  ArrowArrayStream s;
  ASSERT_OK(la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {Batch(d, 0, 200)}), &s));
  ASSERT_OK(t->Add(&s));  // an uncovered fragment (ids 0..199 again)
  const auto q = MakeData(1, 9).vectors[0];
  auto matches = [](int64_t i) { return i >= 100 && i < 300 && i % 10 != 4; };
  // Expected: brute force over the first 4000 rows, plus the appended copies of ids < 200.
  Data both = d;
  for (int64_t i = 0; i < 200; ++i) both.vectors.push_back(d.vectors[static_cast<size_t>(i)]);
  std::vector<std::pair<float, int64_t>> all;
  for (size_t i = 0; i < both.vectors.size(); ++i) {
    const int64_t id = i < 4000 ? static_cast<int64_t>(i) : static_cast<int64_t>(i) - 4000;
    const bool live = i >= 4000 || matches(id);
    if (live && id >= 100 && id < 300) all.emplace_back(Distance("l2", q, both.vectors[i]), id);
  }
  std::sort(all.begin(), all.end());
  std::vector<int64_t> expected;
  for (size_t i = 0; i < 15; ++i) expected.push_back(all[i].second);
  auto flat = Collect(t->VectorSearch(q).Where("id >= 100 AND id < 300").Limit(15));
  ASSERT_NE(flat, nullptr);
  EXPECT_EQ(Column<int64_t>(flat, "id"), expected);
  ASSERT_OK_AND_ASSIGN(auto plan,
                       t->VectorSearch(q).Where("id >= 100 AND id < 300").Limit(15).ExplainPlan());
  EXPECT_NE(plan.find("KNNVectorDistance: metric=l2, fragments=5"), std::string::npos) << plan;
  EXPECT_NE(plan.find("ScalarIndexQuery: query=[id >= 100 && id < 300]@id_idx(BTree)"),
            std::string::npos)
      << plan;
  EXPECT_NE(plan.find("FragmentScan: fragments=1 (not covered by the index)"), std::string::npos)
      << plan;
  auto config = VectorIndexConfig::IvfFlat();
  config.num_partitions = 4;
  config.seed = 3;
  ASSERT_OK(t->CreateIndex("vector", config));
  auto indexed = Collect(t->VectorSearch(q).Nprobes(4).Where("id >= 100 AND id < 300").Limit(15));
  ASSERT_NE(indexed, nullptr);
  EXPECT_EQ(Column<int64_t>(indexed, "id"), expected);  // IVF_FLAT with every partition: exact
  ASSERT_OK_AND_ASSIGN(plan, t->VectorSearch(q).Nprobes(4).Where("id < 300").ExplainPlan(true));
  EXPECT_NE(plan.find("ANNSubIndex: name=vector_idx, k=10, deltas=1, metric=L2"), std::string::npos)
      << plan;
  EXPECT_NE(plan.find("minimum_nprobes=4, maximum_nprobes=Some(4)"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("KNNVectorDistance"), std::string::npos) << plan;
  ASSERT_OK_AND_ASSIGN(auto analyzed, t->VectorSearch(q).Where("id < 300").Limit(7).AnalyzePlan());
  EXPECT_NE(analyzed.find("metrics=[output_rows=7"), std::string::npos) << analyzed;
  // LanceDB's vocabulary: the analysis under an AnalyzeExec line, the take as a LanceRead of a
  // row-id stream.
  EXPECT_EQ(analyzed.rfind("AnalyzeExec verbose=true, elapsed=", 0), 0u) << analyzed;
  EXPECT_NE(analyzed.find("\n  ProjectionExec: "), std::string::npos) << analyzed;
  EXPECT_NE(plan.find("source=stream(_rowid)"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("LanceScan"), std::string::npos) << plan;  // every fragment indexed
}

TEST(VectorQuery, PostfilterRowsAllSatisfyFilter) {
  const Data d = MakeData(2000, 5);
  auto t = MakeTable("memory://vq_postfilter", d, 2);
  const auto q = MakeData(1, 8).vectors[0];
  auto b = Collect(t->VectorSearch(q).Where("id % 2 = 0").Postfilter().Limit(10));
  ASSERT_NE(b, nullptr);
  auto ids = Column<int64_t>(b, "id");
  EXPECT_LE(ids.size(), 10u);
  const auto top = BruteForce(d, q, "l2", 10);
  std::vector<int64_t> expected;
  for (int64_t i : top) {
    if (i % 2 == 0) expected.push_back(i);
  }
  EXPECT_EQ(ids, expected);
}

TEST(VectorQuery, DeletedRowsNeverAppear) {
  const Data d = MakeData(1200, 6);
  auto t = MakeTable("memory://vq_deleted", d, 3);
  ASSERT_TRUE(t->Delete("id % 3 = 0").ok());
  const auto q = d.vectors[300];  // a deleted row
  auto b = Collect(t->VectorSearch(q).Limit(15));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(Column<int64_t>(b, "id"),
            BruteForce(d, q, "l2", 15, [](int64_t i) { return i % 3 != 0; }));
}

// The vectors of a flat search stay resident between queries (vector_column_cache.h); a later
// append, delete or overwrite must still be seen.
TEST(VectorQuery, FlatSearchSeesWritesAfterVectorsAreResident) {
  const Data d = MakeData(1500, 7);
  Data first;
  first.vectors.assign(d.vectors.begin(), d.vectors.begin() + 1000);
  first.bits.assign(d.bits.begin(), d.bits.begin() + 1000);
  auto t = MakeTable("memory://vq_resident", first, 2);
  const auto q = d.vectors[1200];
  auto before = Collect(t->VectorSearch(q).Limit(10));
  ASSERT_NE(before, nullptr);
  EXPECT_EQ(Column<int64_t>(before, "id"),
            BruteForce(d, q, "l2", 10, [](int64_t i) { return i < 1000; }));
  ArrowArrayStream s;
  ASSERT_TRUE(
      la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {Batch(d, 1000, 500)}), &s).ok());
  ASSERT_TRUE(t->Add(&s).ok());
  auto appended = Collect(t->VectorSearch(q).Limit(10));
  ASSERT_NE(appended, nullptr);
  EXPECT_EQ(Column<int64_t>(appended, "id"), BruteForce(d, q, "l2", 10));
  EXPECT_EQ(Column<int64_t>(appended, "id")[0], 1200);
  ASSERT_TRUE(t->Delete("id = 1200 OR id < 100").ok());
  auto deleted = Collect(t->VectorSearch(q).Limit(10));
  ASSERT_NE(deleted, nullptr);
  EXPECT_EQ(Column<int64_t>(deleted, "id"),
            BruteForce(d, q, "l2", 10, [](int64_t i) { return i != 1200 && i >= 100; }));
  auto batch = Collect(t->VectorSearch(q).AddQueryVector(d.vectors[5]).Limit(4));
  ASSERT_NE(batch, nullptr);
  auto ids = Column<int64_t>(batch, "id");
  const auto expected0 = BruteForce(d, q, "l2", 4, [](int64_t i) { return i != 1200 && i >= 100; });
  const auto expected1 =
      BruteForce(d, d.vectors[5], "l2", 4, [](int64_t i) { return i != 1200 && i >= 100; });
  EXPECT_EQ(std::vector<int64_t>(ids.begin(), ids.begin() + 4), expected0);
  EXPECT_EQ(std::vector<int64_t>(ids.begin() + 4, ids.end()), expected1);
}

// On a table with stable row ids, after a compaction the row ids differ from the row
// addresses: exact and indexed searches must still return the right rows, and _rowid the
// stable ids.
TEST(VectorQuery, StableRowIdsAfterCompaction) {
  const Data d = MakeData(1200, 8);
  ConnectOptions options;
  options.storage_options["new_table_enable_stable_row_ids"] = "true";
  auto db = Connect("memory://vq_stable", options);
  ASSERT_TRUE(db.ok());
  std::shared_ptr<Table> t;
  for (int f = 0; f < 3; ++f) {
    ArrowArrayStream s;
    ASSERT_TRUE(
        la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {Batch(d, f * 400, 400)}), &s)
            .ok());
    if (f == 0) {
      t = *(*db)->CreateTable("t", &s);
    } else {
      ASSERT_TRUE(t->Add(&s).ok());
    }
  }
  ASSERT_TRUE(t->Delete("id % 7 = 3").ok());
  ASSERT_TRUE(t->Compact({}).ok());
  auto live = [](int64_t i) { return i % 7 != 3; };
  auto check = [&](const VectorQuery& q, const std::function<bool(int64_t)>& keep,
                   const std::vector<float>& v, const std::string& what) {
    auto b = Collect(q);
    ASSERT_NE(b, nullptr) << what;
    const auto ids = Column<int64_t>(b, "id");
    EXPECT_EQ(ids, BruteForce(d, v, "l2", 10, keep)) << what;
    const auto row_ids = Column<uint64_t>(b, "_rowid");
    ASSERT_EQ(row_ids.size(), ids.size()) << what;
    for (size_t i = 0; i < ids.size(); ++i) {
      EXPECT_EQ(row_ids[i], static_cast<uint64_t>(ids[i])) << what;
    }
  };
  const auto q = d.vectors[900];
  check(t->VectorSearch(q).WithRowId().Limit(10), live, q, "flat");
  check(
      t->VectorSearch(q).Where("id > 500").WithRowId().Limit(10),
      [&](int64_t i) { return live(i) && i > 500; }, q, "flat prefilter");
  // An index on such a table holds stable row ids; searches map them to the rows.
  auto config = VectorIndexConfig::IvfFlat();
  config.num_partitions = 4;
  Status created = t->CreateIndex("vector", config);
  ASSERT_TRUE(created.ok()) << created.ToString();
  check(t->VectorSearch(q).Nprobes(4).WithRowId().Limit(10), live, q, "indexed");
  check(
      t->VectorSearch(q).Nprobes(4).Where("id > 500").WithRowId().Limit(10),
      [&](int64_t i) { return live(i) && i > 500; }, q, "indexed prefilter");
}

TEST(VectorQuery, BatchQueriesAddQueryIndex) {
  const Data d = MakeData(300, 9);
  auto t = MakeTable("memory://vq_batch", d, 1);
  auto b = Collect(t->VectorSearch(d.vectors[1]).AddQueryVector(d.vectors[2]).Limit(3));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->schema()->field(0)->name(), "query_index");
  EXPECT_EQ(Column<int32_t>(b, "query_index"), (std::vector<int32_t>{0, 0, 0, 1, 1, 1}));
  auto ids = Column<int64_t>(b, "id");
  EXPECT_EQ(ids[0], 1);
  EXPECT_EQ(ids[3], 2);
}

TEST(VectorQuery, DistanceRange) {
  const Data d = MakeData(1000, 10);
  auto t = MakeTable("memory://vq_range", d, 1);
  auto b = Collect(t->VectorSearch(d.vectors[0]).DistanceRange(5.0f, 12.0f).Limit(1000));
  ASSERT_NE(b, nullptr);
  int64_t expected = 0;
  for (const auto& v : d.vectors) {
    float x = Distance("l2", d.vectors[0], v);
    expected += x >= 5.0f && x < 12.0f;
  }
  EXPECT_EQ(b->num_rows(), expected);
  for (float x : Column<float>(b, "_distance")) {
    EXPECT_GE(x, 5.0f);
    EXPECT_LT(x, 12.0f);
  }
}

Status RunQuery(const VectorQuery& q) {
  ArrowArrayStream s;
  Status st = q.Execute(&s);
  if (st.ok()) s.release(&s);
  return st;
}

TEST(VectorQuery, Errors) {
  const Data d = MakeData(50, 11);
  auto t = MakeTable("memory://vq_errors", d, 1);
  auto wrong_dim = RunQuery(t->VectorSearch({1, 2, 3}));
  EXPECT_TRUE(wrong_dim.IsInvalidArgument());
  EXPECT_NE(wrong_dim.message().find("vector column name"), std::string::npos);
  EXPECT_TRUE(RunQuery(t->VectorSearch({1, 2, 3}).Column("vector")).IsInvalidArgument());
  auto nan = d.vectors[0];
  nan[3] = std::numeric_limits<float>::quiet_NaN();
  auto nan_status = RunQuery(t->VectorSearch(nan));
  EXPECT_TRUE(nan_status.IsInvalidArgument());
  EXPECT_NE(nan_status.message().find("NaN"), std::string::npos);
  auto metric = RunQuery(t->VectorSearch(d.vectors[0]).DistanceType("manhattan"));
  EXPECT_TRUE(metric.IsInvalidArgument());
  EXPECT_NE(metric.message().find("manhattan"), std::string::npos);
  EXPECT_TRUE(RunQuery(t->VectorSearch(d.vectors[0]).DistanceType("hamming")).IsInvalidArgument());
  EXPECT_TRUE(RunQuery(t->VectorSearch(d.vectors[0]).Column("id")).IsInvalidArgument());
  EXPECT_TRUE(RunQuery(t->VectorSearch(d.vectors[0]).Column("nope")).IsInvalidArgument());
  EXPECT_TRUE(RunQuery(t->VectorSearch(d.vectors[0]).Where("idd > 1")).IsInvalidArgument());
  EXPECT_TRUE(RunQuery(t->VectorSearch(d.vectors[0]).Limit(-1)).IsInvalidArgument());
}

TEST(VectorQuery, IndexedAndAppendedAndDeletedRowsMatchBruteForce) {
  const Data d = MakeData(3000, 12);
  Data first;
  first.vectors.assign(d.vectors.begin(), d.vectors.begin() + 2000);
  first.bits.assign(d.bits.begin(), d.bits.begin() + 2000);
  auto t = MakeTable("memory://vq_index", first, 2);
  auto config = VectorIndexConfig::IvfFlat();
  config.num_partitions = 8;
  config.seed = 7;
  ASSERT_TRUE(t->CreateIndex("vector", config).ok());
  ArrowArrayStream s;
  ASSERT_TRUE(
      la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {Batch(d, 2000, 1000)}), &s).ok());
  ASSERT_TRUE(t->Add(&s).ok());
  ASSERT_TRUE(t->Delete("id % 5 = 1").ok());
  auto live = [](int64_t i) { return i % 5 != 1; };
  for (int qi = 0; qi < 4; ++qi) {
    const auto q = MakeData(4, 20).vectors[static_cast<size_t>(qi)];
    // All partitions probed: IVF_FLAT is exact.
    auto b = Collect(t->VectorSearch(q).Nprobes(8).Limit(10));
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(Column<int64_t>(b, "id"), BruteForce(d, q, "l2", 10, live));
    auto bypass = Collect(t->VectorSearch(q).BypassVectorIndex().Limit(10));
    EXPECT_EQ(Column<int64_t>(bypass, "id"), BruteForce(d, q, "l2", 10, live));
    auto filtered = Collect(t->VectorSearch(q).Nprobes(8).Where("id % 100 = 9").Limit(10));
    EXPECT_EQ(Column<int64_t>(filtered, "id"),
              BruteForce(d, q, "l2", 10, [&](int64_t i) { return live(i) && i % 100 == 9; }));
    // fast_search skips the appended rows.
    auto fast = Collect(t->VectorSearch(q).Nprobes(8).FastSearch().Limit(10));
    EXPECT_EQ(Column<int64_t>(fast, "id"),
              BruteForce(d, q, "l2", 10, [&](int64_t i) { return live(i) && i < 2000; }));
  }
  // As LanceDB explains it: the appended fragment is searched flat over a LanceScan, which
  // fast_search leaves out.
  const auto q = MakeData(1, 20).vectors[0];
  ASSERT_OK_AND_ASSIGN(auto plan, t->VectorSearch(q).Nprobes(8).ExplainPlan(true));
  EXPECT_NE(plan.find("KNNVectorDistance: metric=l2, fragments=1 (not covered by the index)\n"
                      "          LanceScan: uri="),
            std::string::npos)
      << plan;
  ASSERT_OK_AND_ASSIGN(plan, t->VectorSearch(q).Nprobes(8).FastSearch().ExplainPlan(true));
  EXPECT_EQ(plan.find("LanceScan"), std::string::npos) << plan;
}

TEST(VectorQuery, IndexManagement) {
  const Data d = MakeData(1000, 13);
  auto t = MakeTable("memory://vq_manage", d, 1);
  auto config = VectorIndexConfig::IvfPq();
  config.num_partitions = 4;
  config.num_sub_vectors = 4;
  double last_fraction = -1;
  CreateIndexOptions options;
  options.progress = [&](std::string_view, double f) { last_fraction = f; };
  ASSERT_TRUE(t->CreateIndex("vector", config, options).ok());
  EXPECT_GE(last_fraction, 0.0);
  auto list = t->ListIndices();
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].name, "vector_idx");
  EXPECT_EQ((*list)[0].index_type, "IVF_PQ");
  auto stats = t->IndexStats("vector_idx");
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->num_indexed_rows, 1000);
  EXPECT_EQ(stats->num_unindexed_rows, 0);
  EXPECT_EQ(stats->distance_type, "l2");
  CreateIndexOptions no_replace;
  no_replace.replace = false;
  EXPECT_TRUE(t->CreateIndex("vector", config, no_replace).IsAlreadyExists());
  EXPECT_TRUE(t->WaitForIndex({"vector_idx"}, std::chrono::seconds(1)).ok());
  EXPECT_TRUE(t->WaitForIndex({"nope"}, std::chrono::seconds(1)).IsNotFound());
  // Refine re-ranks with exact distances: the nearest row comes first with distance 0.
  auto b = Collect(t->VectorSearch(d.vectors[17]).Nprobes(4).RefineFactor(5).Limit(3));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(Column<int64_t>(b, "id")[0], 17);
  EXPECT_EQ(Column<float>(b, "_distance")[0], 0.0f);
  ArrowArrayStream s;
  ASSERT_TRUE(
      la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {Batch(d, 0, 100)}), &s).ok());
  ASSERT_TRUE(t->Add(&s).ok());
  EXPECT_EQ(t->IndexStats("vector_idx")->num_unindexed_rows, 100);
  ASSERT_TRUE(t->OptimizeIndices().ok());
  EXPECT_EQ(t->IndexStats("vector_idx")->num_unindexed_rows, 0);
  EXPECT_TRUE(t->CreateIndex("id", config).IsInvalidArgument());
  ASSERT_TRUE(t->DropIndex("vector_idx").ok());
  EXPECT_TRUE(t->ListIndices()->empty());
  EXPECT_TRUE(t->DropIndex("vector_idx").IsNotFound());
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb
