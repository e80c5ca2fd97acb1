// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Scalar indices through the Table API: random filters give the same rows with and without
// the indices, also after appends, deletes, updates, compaction and optimize; explain_plan
// names the lookups; LanceDB's 64-fragment compaction contract; bad input.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "array/builder.h"
#include "array/c_bridge.h"
#include "common/test_util.h"
#include "lancedb/lancedb.h"

namespace lancedb {
namespace LANCEDB_TEST_FILE_NS {

namespace la = lancedb::array;

la::SchemaPtr Schema() {
  return la::schema({la::field("id", la::int64(), false), la::field("category", la::utf8()),
                     la::field("price", la::float64()), la::field("flag", la::boolean()),
                     la::field("tags", la::list(la::utf8())), la::field("other", la::int64())});
}

/// Rows [first, first + n) with nulls sprinkled in.
ArrowArrayStream Rows(int64_t first, int64_t n) {
  std::vector<int64_t> ids, others;
  std::vector<std::optional<std::string>> cats, items;
  std::vector<double> prices;
  std::vector<bool> price_valid, flags, flag_valid, list_valid;
  std::vector<int64_t> offsets = {0};
  for (int64_t i = first; i < first + n; ++i) {
    ids.push_back(i);
    others.push_back(i % 11);
    cats.push_back(i % 9 == 0 ? std::nullopt
                              : std::optional<std::string>("c" + std::to_string(i % 7)));
    prices.push_back(static_cast<double>(i % 50) * 0.5);
    price_valid.push_back(i % 13 != 0);
    flags.push_back(i % 3 == 0);
    flag_valid.push_back(i % 17 != 0);
    list_valid.push_back(i % 19 != 0);
    for (int64_t k = 0; k < i % 4; ++k) items.push_back("t" + std::to_string((i + k) % 6));
    if (i % 23 == 0) items.push_back(std::nullopt);
    offsets.push_back(static_cast<int64_t>(items.size()));
  }
  auto tags = la::MakeList(la::list(la::utf8()), offsets, la::MakeString(items), list_valid);
  auto batch = *la::RecordBatch::Make(
      Schema(),
      {la::MakePrimitive(la::int64(), ids), la::MakeString(cats),
       la::MakePrimitive(la::float64(), prices, price_valid), la::MakeBool(flags, flag_valid), tags,
       la::MakePrimitive(la::int64(), others)},
      n);
  ArrowArrayStream s;
  EXPECT_TRUE(la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {batch}), &s).ok());
  return s;
}

std::shared_ptr<Table> MakeTable(const std::string& uri, int fragments = 4, int64_t rows = 500) {
  auto db = Connect(uri);
  EXPECT_TRUE(db.ok());
  auto first = Rows(0, rows);
  auto t = (*db)->CreateTable("t", &first, CreateTableMode::kOverwrite);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  for (int f = 1; f < fragments; ++f) {
    auto more = Rows(f * rows, rows);
    EXPECT_TRUE((*t)->Add(&more).ok());
  }
  return *t;
}

void CreateIndices(Table& t) {
  ASSERT_OK(t.CreateScalarIndex("id", ScalarIndexType::kBTree));
  ASSERT_OK(t.CreateScalarIndex("price", ScalarIndexType::kBTree));
  ASSERT_OK(t.CreateScalarIndex("category", ScalarIndexType::kBitmap));
  ASSERT_OK(t.CreateScalarIndex("flag", ScalarIndexType::kBitmap));
  ASSERT_OK(t.CreateScalarIndex("tags", ScalarIndexType::kLabelList));
}

/// The ids (sorted) of the rows matching `filter`, with or without scalar indices.
std::vector<int64_t> Ids(const std::shared_ptr<Table>& t, const std::string& filter, bool use) {
  ArrowArrayStream out;
  Status st = t->Query()
                  .Where(filter)
                  .Select(std::vector<std::string>{"id"})
                  .UseScalarIndex(use)
                  .Execute(&out);
  EXPECT_TRUE(st.ok()) << filter << ": " << st.ToString();
  if (!st.ok()) return {};
  auto reader = la::ImportArrayStream(&out).MoveValueUnsafe();
  std::vector<int64_t> ids;
  while (true) {
    auto batch = reader->Next();
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok() || !*batch) break;
    const int64_t* v = (*batch)->column(0)->GetValues<int64_t>(1);
    ids.insert(ids.end(), v, v + (*batch)->num_rows());
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

/// A random filter over indexed and unindexed columns, AND/OR/NOT, IN, BETWEEN, IS NULL,
/// array_has_any/all.
std::string RandomFilter(std::mt19937_64& rng, int depth = 0) {
  const int pick = static_cast<int>(rng() % (depth < 2 ? 16 : 12));
  auto n = [&](int64_t m) {
    return std::to_string(static_cast<int64_t>(rng() % static_cast<uint64_t>(m)));
  };
  switch (pick) {
    case 0:
      return "id = " + n(2200);
    case 1:
      return "id < " + n(2200);
    case 2:
      return "id >= " + n(2200) + " AND id <= " + n(2200);
    case 3:
      return "id IN (" + n(2000) + ", " + n(2000) + ", " + n(2000) + ", " + n(2000) + ")";
    case 4:
      return "category = 'c" + n(8) + "'";
    case 5:
      return "category IS NULL";
    case 6:
      return "price BETWEEN " + n(20) + " AND " + n(30);
    case 7:
      return "price > " + n(25) + ".5";
    case 8:
      return rng() % 2 ? "flag" : "flag IS NOT NULL";
    case 9:
      return "array_has_any(tags, ['t" + n(6) + "', 't" + n(7) + "'])";
    case 10:
      return "array_has_all(tags, ['t" + n(6) + "', 't" + n(6) + "'])";
    case 11:
      return "other = " + n(11);
    case 12:
      return "(" + RandomFilter(rng, depth + 1) + ") AND (" + RandomFilter(rng, depth + 1) + ")";
    case 13:
      return "(" + RandomFilter(rng, depth + 1) + ") OR (" + RandomFilter(rng, depth + 1) + ")";
    case 14:
      return "NOT (" + RandomFilter(rng, depth + 1) + ")";
    default:
      return "array_contains(tags, 't" + n(6) + "') AND category != 'c" + n(7) + "'";
  }
}

void ExpectSameWithAndWithoutIndices(const std::shared_ptr<Table>& t, uint64_t seed, int count) {
  std::mt19937_64 rng(seed);
  for (int i = 0; i < count; ++i) {
    const std::string filter = RandomFilter(rng);
    EXPECT_EQ(Ids(t, filter, true), Ids(t, filter, false)) << filter;
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(ScalarIndices, RandomFiltersGiveTheSameRowsWithAndWithoutIndices) {
  auto t = MakeTable("memory://scalar_random");
  CreateIndices(*t);
  ExpectSameWithAndWithoutIndices(t, 1, 300);
}

TEST(ScalarIndices, StayCorrectThroughAppendsDeletesUpdatesCompactionAndOptimize) {
  auto t = MakeTable("memory://scalar_maintenance");
  CreateIndices(*t);
  auto more = Rows(2000, 200);  // an uncovered fragment
  ASSERT_OK(t->Add(&more).status());
  ExpectSameWithAndWithoutIndices(t, 2, 60);
  ASSERT_OK(t->Delete("id % 5 = 0").status());
  ASSERT_OK(t->Update("id % 7 = 1", {{"category", "'c9'"}, {"price", "price + 100"}}).status());
  ExpectSameWithAndWithoutIndices(t, 3, 60);
  EXPECT_EQ(Ids(t, "category = 'c9'", true).size(), Ids(t, "id % 7 = 1", false).size());
  CompactionOptions o;
  o.target_rows_per_fragment = 100000;
  ASSERT_OK(t->Compact(o).status());
  ExpectSameWithAndWithoutIndices(t, 4, 60);
  ASSERT_OK(t->OptimizeIndices());
  auto stats = t->IndexStats("id_idx");
  ASSERT_OK(stats.status());
  EXPECT_EQ(stats->num_unindexed_rows, 0);
  EXPECT_EQ(stats->index_type, "BTREE");
  ExpectSameWithAndWithoutIndices(t, 5, 60);
}

TEST(ScalarIndices, ExplainPlanNamesTheLookupsAndAnalyzeCountsThem) {
  auto t = MakeTable("memory://scalar_explain");
  CreateIndices(*t);
  ASSERT_OK_AND_ASSIGN(auto plan, t->Query().Where("id = 5").ExplainPlan());
  EXPECT_NE(plan.find("ScalarIndexQuery: query=[id = 5]@id_idx(BTree)"), std::string::npos) << plan;
  EXPECT_NE(plan.find("refine_filter=--"), std::string::npos) << plan;
  ASSERT_OK_AND_ASSIGN(plan, t->Query().Where("id = 5 AND other = 5").ExplainPlan());
  EXPECT_NE(plan.find("refine_filter=(other = 5)"), std::string::npos) << plan;
  ASSERT_OK_AND_ASSIGN(plan, t->Query().Where("category = 'c1' OR NOT flag").ExplainPlan());
  EXPECT_NE(
      plan.find("OR([category = c1]@category_idx(Bitmap),NOT([flag = true]@flag_idx(Bitmap)))"),
      std::string::npos)
      << plan;
  ASSERT_OK_AND_ASSIGN(plan, t->Query().Where("array_has_any(tags, ['t1'])").ExplainPlan());
  EXPECT_NE(plan.find("[array_has_any(tags, List([t1]))]@tags_idx(LabelList)"), std::string::npos)
      << plan;
  ASSERT_OK_AND_ASSIGN(plan, t->Query().Where("id = 5 OR other = 5").ExplainPlan());
  EXPECT_EQ(plan.find("ScalarIndexQuery"), std::string::npos) << plan;  // half unindexed
  ASSERT_OK_AND_ASSIGN(auto analyzed, t->Query().Where("id = 5").AnalyzePlan());
  EXPECT_NE(analyzed.find("output_rows=1, index_candidates=1"), std::string::npos) << analyzed;
  EXPECT_NE(analyzed.find("fragments_scanned=0"), std::string::npos) << analyzed;
  // Without the index, zone statistics prune the fragments whose ids are all above 10.
  ASSERT_OK_AND_ASSIGN(analyzed, t->Query().Where("id < 10").UseScalarIndex(false).AnalyzePlan());
  EXPECT_NE(analyzed.find("output_rows=10, index_candidates=0"), std::string::npos) << analyzed;
  EXPECT_NE(analyzed.find("fragments_scanned=4, zones_read=1, zones_pruned=3, rows_scanned=500"),
            std::string::npos)
      << analyzed;
}

/// The rows of `t` as text, sorted (every column).
std::string AllRows(const std::shared_ptr<Table>& t) {
  ArrowArrayStream out;
  EXPECT_OK(t->Query().Execute(&out));
  auto reader = la::ImportArrayStream(&out).MoveValueUnsafe();
  std::vector<std::string> lines;
  while (true) {
    auto batch = reader->Next();
    EXPECT_TRUE(batch.ok());
    if (!batch.ok() || !*batch) break;
    for (int64_t r = 0; r < (*batch)->num_rows(); ++r) {
      lines.push_back((*batch)->Slice(r, 1)->ToString());
    }
  }
  std::sort(lines.begin(), lines.end());
  std::string all;
  for (const auto& l : lines) all += l;
  return all;
}

TEST(ScalarIndices, MergeInsertFindsKeysThroughTheIndexAndInUncoveredFragments) {
  for (const bool stable : {false, true}) {
    std::shared_ptr<Table> tables[2];
    for (int indexed = 0; indexed < 2; ++indexed) {
      ConnectOptions options;
      if (stable) options.storage_options["new_table_enable_stable_row_ids"] = "true";
      const std::string uri =
          "memory://scalar_merge_" + std::to_string(stable) + std::to_string(indexed);
      ASSERT_OK_AND_ASSIGN(auto db, Connect(uri, options));
      auto first = Rows(0, 500);
      ASSERT_OK_AND_ASSIGN(auto t, db->CreateTable("t", &first, CreateTableMode::kOverwrite));
      auto more = Rows(500, 500);
      ASSERT_OK(t->Add(&more));
      if (indexed) ASSERT_OK(t->CreateScalarIndex("id", ScalarIndexType::kBTree));
      auto appended = Rows(1000, 200);  // not covered by the index
      ASSERT_OK(t->Add(&appended));
      ASSERT_OK(t->Delete("id % 50 = 7"));
      // Keys in covered fragments, in the uncovered one, deleted, and new.
      for (int64_t start : {int64_t{480}, int64_t{1150}, int64_t{5}}) {
        auto source = Rows(start, 100);
        ASSERT_OK_AND_ASSIGN(
            auto r, t->MergeInsert({"id"}).WhenMatchedUpdateAll().WhenNotMatchedInsertAll().Execute(
                        &source));
        EXPECT_EQ(r.num_inserted_rows + r.num_updated_rows, 100u);
      }
      auto again = Rows(1150, 100);
      ASSERT_OK_AND_ASSIGN(auto r, t->MergeInsert({"id"}).WhenMatchedUpdateAll().Execute(&again));
      EXPECT_EQ(r.num_updated_rows, 100u) << "stable=" << stable << " indexed=" << indexed;
      EXPECT_EQ(r.num_inserted_rows, 0u);
      tables[indexed] = t;
    }
    EXPECT_EQ(AllRows(tables[1]), AllRows(tables[0])) << "stable=" << stable;
    ASSERT_OK_AND_ASSIGN(auto n, tables[1]->CountRows());
    ASSERT_OK_AND_ASSIGN(auto distinct, tables[1]->CountRows("id >= 0"));
    EXPECT_EQ(n, distinct);
    // ids 0..1199 minus the 24 with id % 50 = 7, then the merges re-insert 507, 557, 1157, 7
    // and 57 and add 1200..1249.
    EXPECT_EQ(n, 1200 - 24 + 5 + 50);
  }
}

TEST(ScalarIndices, CountDeleteAndUpdateUseTheIndex) {
  auto t = MakeTable("memory://scalar_writes");
  ASSERT_OK(t->CreateScalarIndex("id", ScalarIndexType::kBTree));
  ASSERT_OK_AND_ASSIGN(auto n, t->CountRows("id >= 100 AND id < 150"));
  EXPECT_EQ(n, 50);
  ASSERT_OK_AND_ASSIGN(auto deleted, t->Delete("id IN (1, 2, 3, 1999)"));
  EXPECT_EQ(deleted.num_deleted_rows, 4u);
  ASSERT_OK_AND_ASSIGN(auto updated, t->Update("id = 10", {{"other", "-1"}}));
  EXPECT_EQ(updated.rows_updated, 1u);
  EXPECT_EQ(Ids(t, "other = -1", false), std::vector<int64_t>{10});
  EXPECT_EQ(Ids(t, "id = 10", true), std::vector<int64_t>{10});  // the old row is gone
  ASSERT_OK_AND_ASSIGN(n, t->CountRows("id < 5"));
  EXPECT_EQ(n, 2);
}

/// LanceDB's contract: 64 fragments of 10 rows with a BTREE index, compacted with
/// target_rows_per_fragment=20 and 64 threads.
TEST(ScalarIndices, CompactionOfSixtyFourFragmentsRemapsTheIndex) {
  auto t = MakeTable("memory://scalar_compact64", 64, 10);
  ASSERT_OK(t->CreateScalarIndex("id", ScalarIndexType::kBTree));
  ASSERT_OK_AND_ASSIGN(auto before, t->version());
  ASSERT_OK_AND_ASSIGN(auto indices_before, t->ListIndices());
  CompactionOptions o;
  o.target_rows_per_fragment = 20;
  o.num_threads = 64;
  ASSERT_OK_AND_ASSIGN(auto stats, t->Compact(o));
  EXPECT_EQ(stats.fragments_removed, 64u);
  EXPECT_EQ(stats.fragments_added, 32u);
  ASSERT_OK_AND_ASSIGN(auto rows, t->CountRows());
  EXPECT_EQ(rows, 640);
  ASSERT_OK_AND_ASSIGN(auto after, t->version());
  EXPECT_EQ(after, before + 2);
  ASSERT_OK_AND_ASSIGN(auto indices, t->ListIndices());
  ASSERT_EQ(indices.size(), 1u);
  EXPECT_NE(indices[0].index_uuid, indices_before[0].index_uuid);  // rewritten
  EXPECT_EQ(indices[0].fragment_ids.size(), 32u);
  ASSERT_OK_AND_ASSIGN(auto istats, t->IndexStats("id_idx"));
  EXPECT_EQ(istats.num_unindexed_rows, 0);
  for (int64_t id = 0; id < 640; id += 7) {
    EXPECT_EQ(Ids(t, "id = " + std::to_string(id), true), std::vector<int64_t>{id});
  }
  EXPECT_EQ(Ids(t, "id >= 100 AND id < 300", true).size(), 200u);
  ASSERT_OK_AND_ASSIGN(auto plan, t->Query().Where("id = 5").ExplainPlan());
  EXPECT_NE(plan.find("ScalarIndexQuery"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("FragmentScan"), std::string::npos) << plan;  // every fragment covered
}

TEST(ScalarIndices, BadInputIsRejectedAndWritesNothing) {
  auto db = Connect("memory://scalar_bad");
  ASSERT_OK(db.status());
  auto t = MakeTable("memory://scalar_bad");
  ASSERT_OK_AND_ASSIGN(auto v, t->version());
  ASSERT_RAISES(kInvalidArgument, "'tags'", t->CreateScalarIndex("tags", ScalarIndexType::kBitmap));
  ASSERT_RAISES(kInvalidArgument, "LABEL_LIST",
                t->CreateScalarIndex("id", ScalarIndexType::kLabelList));
  ASSERT_RAISES(kInvalidArgument, "'nope'", t->CreateScalarIndex("nope", ScalarIndexType::kBTree));
  ASSERT_OK(t->CreateScalarIndex("id", ScalarIndexType::kBTree));
  CreateIndexOptions keep;
  keep.replace = false;
  ASSERT_RAISES(kAlreadyExists, "id_idx",
                t->CreateScalarIndex("id", ScalarIndexType::kBTree, keep));
  ASSERT_OK_AND_ASSIGN(auto v2, t->version());
  EXPECT_EQ(v2, v + 1);  // only the successful create
  ASSERT_OK(t->DropIndex("id_idx"));
  ASSERT_OK_AND_ASSIGN(auto indices, t->ListIndices());
  EXPECT_TRUE(indices.empty());
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb
