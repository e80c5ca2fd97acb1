// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Tests of vector indices on tables with stable row ids (new_table_enable_stable_row_ids): the
// index stores stable ids, searches equal brute force over the live rows through appends and
// optimize, deletes, updates (updated rows never come back with their indexed, stale vectors)
// and compactions, and `_rowid` reports the stable id.

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <set>

#include "array/builder.h"
#include "array/c_bridge.h"
#include "db/vector_query_test_util.h"
#include "lancedb/lancedb.h"

namespace lancedb {
namespace LANCEDB_TEST_FILE_NS {

using db_testing::Collect;
using db_testing::Column;

namespace la = lancedb::array;

constexpr int32_t kDim = 16;
constexpr int64_t kRows = 1200;

la::SchemaPtr Schema() {
  return la::schema({la::field("id", la::int64(), false),
                     la::field("vector", la::fixed_size_list(la::float32(), kDim))});
}

std::vector<std::vector<float>> RandomVectors(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<std::vector<float>> out(static_cast<size_t>(n), std::vector<float>(kDim));
  for (auto& v : out) {
    for (auto& x : v) x = normal(rng);
  }
  return out;
}

/// Rows [first, first + count): id i, vector vectors[i].
void Export(const std::vector<std::vector<float>>& vectors, int64_t first, int64_t count,
            ArrowArrayStream* out) {
  std::vector<int64_t> ids;
  std::vector<float> values;
  for (int64_t i = first; i < first + count; ++i) {
    ids.push_back(i);
    values.insert(values.end(), vectors[i].begin(), vectors[i].end());
  }
  auto batch = *la::RecordBatch::Make(
      Schema(),
      {la::MakePrimitive(la::int64(), ids),
       la::MakeFixedSizeList(Schema()->field(1)->type(), la::MakePrimitive(la::float32(), values))},
      count);
  ASSERT_TRUE(la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {batch}), out).ok());
}

/// A stable-row-id table of kRows rows in three fragments.
std::shared_ptr<Table> MakeStableTable(const std::string& uri,
                                       const std::vector<std::vector<float>>& vectors) {
  ConnectOptions options;
  options.storage_options["new_table_enable_stable_row_ids"] = "true";
  auto db = Connect(uri, options);
  EXPECT_TRUE(db.ok());
  std::shared_ptr<Table> table;
  for (int f = 0; f < 3; ++f) {
    ArrowArrayStream s;
    Export(vectors, f * kRows / 3, kRows / 3, &s);
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

float L2(const std::vector<float>& a, const std::vector<float>& b) {
  float sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return sum;
}

/// The ids of the k rows nearest to `q` among those `keep` accepts.
std::vector<int64_t> BruteForce(const std::vector<std::vector<float>>& vectors,
                                const std::vector<float>& q, size_t k,
                                const std::function<bool(int64_t)>& keep) {
  std::vector<std::pair<float, int64_t>> all;
  for (int64_t i = 0; i < static_cast<int64_t>(vectors.size()); ++i) {
    if (keep(i)) all.emplace_back(L2(q, vectors[i]), i);
  }
  std::sort(all.begin(), all.end());
  std::vector<int64_t> ids;
  for (size_t i = 0; i < std::min(k, all.size()); ++i) ids.push_back(all[i].second);
  return ids;
}

/// The table's current content as the tests track it.
struct Expected {
  std::vector<std::vector<float>> vectors;  // by id (= stable row id)
  int64_t num_rows = kRows;                 // ids [0, num_rows) were written
  std::set<int64_t> deleted;
  bool live(int64_t id) const { return id < num_rows && deleted.count(id) == 0; }
};

/// Search `t` for `q` (all partitions; refined when `refine`) with and without a prefilter and
/// compare with brute force: same ids (at least 9 of 10 when `exact` is false), only live rows,
/// `_rowid` equal to the stable id, `_distance` the exact distance to the row's current vector.
void ExpectMatchesBruteForce(Table& t, const Expected& e, const std::vector<float>& q, bool exact,
                             const std::string& what) {
  for (bool filtered : {false, true}) {
    auto query = t.VectorSearch(q).Nprobes(4).WithRowId().Limit(10);
    if (!exact) query.RefineFactor(50);
    if (filtered) query.Where("id > 500");
    const auto b = Collect(query);
    ASSERT_NE(b, nullptr) << what;
    const auto ids = Column<int64_t>(b, "id");
    const auto row_ids = Column<uint64_t>(b, "_rowid");
    const auto distances = Column<float>(b, "_distance");
    const auto expected = BruteForce(
        e.vectors, q, 10, [&](int64_t i) { return e.live(i) && (!filtered || i > 500); });
    if (exact) {
      EXPECT_EQ(ids, expected) << what << (filtered ? " (filtered)" : "");
    } else {
      size_t hits = 0;
      for (int64_t id : ids) hits += std::count(expected.begin(), expected.end(), id);
      EXPECT_GE(hits, 9u) << what << (filtered ? " (filtered)" : "");
    }
    ASSERT_EQ(row_ids.size(), ids.size()) << what;
    for (size_t i = 0; i < ids.size(); ++i) {
      ASSERT_TRUE(ids[i] >= 0 && ids[i] < e.num_rows) << what;
      EXPECT_TRUE(e.live(ids[i])) << what << ": deleted row " << ids[i] << " returned";
      EXPECT_EQ(row_ids[i], static_cast<uint64_t>(ids[i])) << what;
      EXPECT_NEAR(distances[i], L2(q, e.vectors[ids[i]]), 1e-3) << what << ": row " << ids[i];
    }
  }
}

/// Create, append and optimize, delete, compact, update, compact and optimize, checking searches
/// after each step.
void RunLifecycle(const std::string& uri, VectorIndexConfig config, bool exact) {
  Expected e;
  e.vectors = RandomVectors(kRows + 60, 5);
  auto t = MakeStableTable(uri, e.vectors);
  ASSERT_NE(t, nullptr);
  config.num_partitions = 4;
  config.seed = 1;
  Status created = t->CreateIndex("vector", config);
  ASSERT_TRUE(created.ok()) << created.ToString();
  auto stats = t->IndexStats("vector_idx");
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->num_indexed_rows, kRows);
  const auto others = RandomVectors(3, 9);
  auto check_all = [&](const std::string& what) {
    for (int64_t id : {10, 333, 901}) ExpectMatchesBruteForce(*t, e, e.vectors[id], exact, what);
    for (const auto& q : others) ExpectMatchesBruteForce(*t, e, q, exact, what);
  };
  check_all("indexed");

  // Rows appended later have new ids: optimize indexes them.
  ArrowArrayStream added;
  Export(e.vectors, kRows, 60, &added);
  ASSERT_TRUE(t->Add(&added).ok());
  e.num_rows += 60;
  check_all("after append");
  ASSERT_TRUE(t->OptimizeIndices().ok());
  stats = t->IndexStats("vector_idx");
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->num_indexed_rows, kRows + 60);
  EXPECT_EQ(stats->num_unindexed_rows, 0);
  check_all("after append and optimize");

  ASSERT_TRUE(t->Delete("id % 7 = 3").ok());  // deletes 10, 333 and 901 among others
  for (int64_t i = 0; i < e.num_rows; ++i) {
    if (i % 7 == 3) e.deleted.insert(i);
  }
  check_all("after delete");

  ASSERT_TRUE(t->Compact({}).ok());
  stats = t->IndexStats("vector_idx");
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->num_unindexed_rows, 0) << "compaction of indexed rows keeps them indexed";
  check_all("after compaction");

  // Give rows 0..39 new vectors (their stable ids stay).
  const auto old_vectors = e.vectors;
  const auto fresh = RandomVectors(40, 13);
  for (int64_t i = 0; i < 40; ++i) e.vectors[i] = fresh[i];
  ArrowArrayStream s;
  Export(e.vectors, 0, 40, &s);
  auto merged = t->MergeInsert({"id"}).WhenMatchedUpdateAll().Execute(&s);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  check_all("after update");
  for (int64_t id : {5, 22}) {
    ExpectMatchesBruteForce(*t, e, e.vectors[id], exact, "new vector of an updated row");
    ExpectMatchesBruteForce(*t, e, old_vectors[id], exact, "old vector of an updated row");
    // Indexed rows only: the updated row's indexed (stale) vector must not be found.
    auto b = Collect(t->VectorSearch(old_vectors[id]).Nprobes(4).FastSearch().Limit(20));
    ASSERT_NE(b, nullptr);
    const auto ids = Column<int64_t>(b, "id");
    EXPECT_EQ(std::count(ids.begin(), ids.end(), id), 0) << "stale vector of row " << id;
    if (exact) {
      const auto distances = Column<float>(b, "_distance");
      for (size_t i = 0; i < ids.size(); ++i) {
        EXPECT_NEAR(distances[i], L2(old_vectors[id], e.vectors[ids[i]]), 1e-3);
      }
    }
  }

  ASSERT_TRUE(t->Compact({}).ok());
  check_all("after update and compaction");
  ExpectMatchesBruteForce(*t, e, old_vectors[5], exact, "old vector after compaction");

  // The updated rows' ids are indexed (with their old vectors): optimize leaves them unindexed.
  ASSERT_TRUE(t->OptimizeIndices().ok());
  stats = t->IndexStats("vector_idx");
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_GT(stats->num_unindexed_rows, 0);
  check_all("after optimize");
}

TEST(VectorIndexStableRowIds, IvfFlatMatchesBruteForceThroughDeleteUpdateAndCompaction) {
  RunLifecycle("memory://vi_stable_flat", VectorIndexConfig::IvfFlat(), true);
}

TEST(VectorIndexStableRowIds, IvfPqMatchesBruteForceThroughDeleteUpdateAndCompaction) {
  auto config = VectorIndexConfig::IvfPq();
  config.num_sub_vectors = 4;
  RunLifecycle("memory://vi_stable_pq", config, false);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb
