// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Tests of Table::MergeInsert: upsert, insert-if-not-exists, replace-range, conditional update,
// composite keys, NULL keys, stable row ids and the failure modes (which must leave the table
// unchanged).

#include <gtest/gtest.h>

#include <map>

#include "array/builder.h"
#include "array/c_bridge.h"
#include "lancedb/lancedb.h"

namespace lancedb {
namespace LANCEDB_TEST_FILE_NS {

namespace la = lancedb::array;

la::SchemaPtr Schema() {
  return la::schema({la::field("id", la::int64(), false), la::field("grp", la::utf8()),
                     la::field("v", la::float64())});
}

la::RecordBatchPtr Rows(const std::vector<int64_t>& ids, double v, const std::string& grp = "a") {
  std::vector<std::optional<std::string>> grps;
  std::vector<double> vs;
  for (int64_t id : ids) {
    grps.emplace_back(grp);
    vs.push_back(v + static_cast<double>(id));
  }
  return *la::RecordBatch::Make(Schema(),
                                {la::MakePrimitive(la::int64(), ids), la::MakeString(grps),
                                 la::MakePrimitive(la::float64(), vs)});
}

ArrowArrayStream Stream(const la::RecordBatchPtr& batch) {
  ArrowArrayStream s;
  EXPECT_TRUE(la::ExportRecordBatchReader(la::MakeVectorReader(batch->schema(), {batch}), &s).ok());
  return s;
}

std::shared_ptr<Table> MakeTable(const std::string& uri, const std::vector<int64_t>& ids) {
  auto db = Connect(uri);
  EXPECT_TRUE(db.ok());
  ArrowArrayStream s = Stream(Rows(ids, 0.0));
  auto t = (*db)->CreateTable("t", &s);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return *t;
}

/// id -> v of every row.
std::map<int64_t, double> Contents(const std::shared_ptr<Table>& t) {
  ArrowArrayStream s;
  EXPECT_TRUE(t->Scan({}, &s).ok());
  auto reader = la::ImportArrayStream(&s);
  std::map<int64_t, double> out;
  while (true) {
    auto b = (*reader)->Next();
    if (!*b) break;
    auto id = (*b)->GetColumnByName("id");
    auto v = (*b)->GetColumnByName("v");
    for (int64_t i = 0; i < (*b)->num_rows(); ++i) {
      EXPECT_TRUE(out.emplace(id->GetValues<int64_t>(1)[i], v->GetValues<double>(1)[i]).second);
    }
  }
  return out;
}

TEST(MergeInsert, Upsert) {
  auto t = MakeTable("memory://upsert", {1, 2, 3, 4});
  ArrowArrayStream s = Stream(Rows({3, 4, 5}, 100.0));
  auto r = t->MergeInsert({"id"}).WhenMatchedUpdateAll().WhenNotMatchedInsertAll().Execute(&s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_updated_rows, 2u);
  EXPECT_EQ(r->num_inserted_rows, 1u);
  EXPECT_EQ(r->num_deleted_rows, 0u);
  EXPECT_EQ(r->num_attempts, 1u);
  EXPECT_EQ(r->version, 2u);
  auto c = Contents(t);
  EXPECT_EQ(c, (std::map<int64_t, double>{{1, 1}, {2, 2}, {3, 103}, {4, 104}, {5, 105}}));
}

TEST(MergeInsert, InsertIfNotExists) {
  auto t = MakeTable("memory://insert", {1, 2});
  ArrowArrayStream s = Stream(Rows({2, 3}, 100.0));
  auto r = t->MergeInsert({"id"}).WhenNotMatchedInsertAll().Execute(&s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_inserted_rows, 1u);
  EXPECT_EQ(r->num_updated_rows, 0u);
  EXPECT_EQ(Contents(t), (std::map<int64_t, double>{{1, 1}, {2, 2}, {3, 103}}));
}

TEST(MergeInsert, ReplaceRangeDeletesBySourceWithCondition) {
  auto t = MakeTable("memory://range", {1, 2, 3, 10, 11});
  ArrowArrayStream s = Stream(Rows({2, 4}, 100.0));
  auto r = t->MergeInsert({"id"})
               .WhenMatchedUpdateAll()
               .WhenNotMatchedInsertAll()
               .WhenNotMatchedBySourceDelete("id < 10")
               .Execute(&s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_updated_rows, 1u);
  EXPECT_EQ(r->num_inserted_rows, 1u);
  EXPECT_EQ(r->num_deleted_rows, 2u);
  EXPECT_EQ(Contents(t), (std::map<int64_t, double>{{2, 102}, {4, 104}, {10, 10}, {11, 11}}));
}

TEST(MergeInsert, ConditionalUpdateSeesTargetAndSource) {
  auto t = MakeTable("memory://cond", {1, 2, 3});
  ArrowArrayStream s = Stream(Rows({1, 2, 3}, 100.0));
  auto r =
      t->MergeInsert({"id"}).WhenMatchedUpdateAll("target.id >= 2 AND source.v > 102").Execute(&s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_updated_rows, 1u);
  EXPECT_EQ(Contents(t), (std::map<int64_t, double>{{1, 1}, {2, 2}, {3, 103}}));
}

TEST(MergeInsert, CompositeKeys) {
  auto t = MakeTable("memory://composite", {1, 2});
  ArrowArrayStream s = Stream(Rows({1, 2}, 100.0, "b"));  // same ids, other group
  auto r =
      t->MergeInsert({"id", "grp"}).WhenMatchedUpdateAll().WhenNotMatchedInsertAll().Execute(&s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_inserted_rows, 2u);
  EXPECT_EQ(r->num_updated_rows, 0u);
  EXPECT_EQ(*t->CountRows(), 4);
}

TEST(MergeInsert, NullKeysNeverMatch) {
  auto t = MakeTable("memory://nullkeys", {1, 2});
  // A NULL key in the data is inserted (it matches nothing), even when the grp part is set.
  auto rows = Rows({1, 7}, 100.0);
  auto grps = la::MakeString({std::nullopt, std::string("a")});
  auto batch = *la::RecordBatch::Make(Schema(), {rows->column(0), grps, rows->column(2)});
  ArrowArrayStream s = Stream(batch);
  auto r =
      t->MergeInsert({"grp", "id"}).WhenMatchedUpdateAll().WhenNotMatchedInsertAll().Execute(&s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_updated_rows, 0u);
  EXPECT_EQ(r->num_inserted_rows, 2u);
  // Now the table has a NULL grp: it is never matched, so a by-source delete removes it.
  ArrowArrayStream s2 = Stream(Rows({2, 7}, 200.0));
  r = t->MergeInsert({"grp", "id"})
          .WhenMatchedUpdateAll()
          .WhenNotMatchedBySourceDelete("grp IS NULL")
          .Execute(&s2);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_updated_rows, 2u);
  EXPECT_EQ(r->num_deleted_rows, 1u);
  EXPECT_EQ(Contents(t), (std::map<int64_t, double>{{1, 1}, {2, 202}, {7, 207}}));
}

TEST(MergeInsert, ManyBatchesAndFragments) {
  std::vector<int64_t> first;
  for (int64_t i = 0; i < 20000; ++i) first.push_back(i);
  auto t = MakeTable("memory://many", first);
  std::vector<int64_t> second;
  for (int64_t i = 20000; i < 30000; ++i) second.push_back(i);
  ArrowArrayStream add = Stream(Rows(second, 0.0));
  ASSERT_TRUE(t->Add(&add).ok());
  std::vector<int64_t> keys;  // every 7th id, crossing batches and both fragments, and new ones
  for (int64_t i = 3; i < 35000; i += 7) keys.push_back(i);
  ArrowArrayStream s = Stream(Rows(keys, 0.5));
  auto r = t->MergeInsert({"id"}).WhenMatchedUpdateAll().WhenNotMatchedInsertAll().Execute(&s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  uint64_t existing = 0;
  for (int64_t k : keys) existing += k < 30000 ? 1 : 0;
  EXPECT_EQ(r->num_updated_rows, existing);
  EXPECT_EQ(r->num_inserted_rows, keys.size() - existing);
  auto c = Contents(t);
  ASSERT_EQ(c.size(), 30000 + keys.size() - existing);
  for (const auto& [id, v] : c) {
    EXPECT_EQ(v, static_cast<double>(id) + (id % 7 == 3 ? 0.5 : 0.0)) << id;
  }
}

std::shared_ptr<Table> MakeStableTable(const std::string& uri, const std::vector<int64_t>& ids) {
  ConnectOptions options;
  options.storage_options["new_table_enable_stable_row_ids"] = "true";
  auto db = Connect(uri, options);
  EXPECT_TRUE(db.ok());
  ArrowArrayStream s = Stream(Rows(ids, 0.0));
  auto t = (*db)->CreateTable("t", &s);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return *t;
}

/// id -> (_rowid, v) of every row.
std::map<int64_t, std::pair<uint64_t, double>> RowIds(const std::shared_ptr<Table>& t) {
  ArrowArrayStream s;
  ScanRequest request;
  request.columns = {"id", "v"};
  request.with_row_id = true;
  EXPECT_TRUE(t->Scan(request, &s).ok());
  auto batches = (*la::ImportArrayStream(&s))->ReadAll();
  EXPECT_TRUE(batches.ok());
  std::map<int64_t, std::pair<uint64_t, double>> out;
  for (const auto& b : *batches) {
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      out[b->column(0)->GetValues<int64_t>(1)[i]] = {b->column(2)->GetValues<uint64_t>(1)[i],
                                                     b->column(1)->GetValues<double>(1)[i]};
    }
  }
  return out;
}

TEST(MergeInsert, StableRowIdsUpsertKeepsUpdatedIdsAndGivesInsertsFreshOnes) {
  auto t = MakeStableTable("memory://stable_upsert", {0, 1, 2, 3, 4, 5});
  ArrowArrayStream s = Stream(Rows({4, 1, 10, 11}, 100.0));
  auto r = t->MergeInsert({"id"})
               .WhenMatchedUpdateAll()
               .WhenNotMatchedInsertAll()
               .WhenNotMatchedBySourceDelete("id >= 5")
               .Execute(&s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_updated_rows, 2u);
  EXPECT_EQ(r->num_inserted_rows, 2u);
  EXPECT_EQ(r->num_deleted_rows, 1u);
  using Row = std::pair<uint64_t, double>;
  EXPECT_EQ(RowIds(t), (std::map<int64_t, Row>{{0, {0, 0}},
                                               {1, {1, 101}},
                                               {2, {2, 2}},
                                               {3, {3, 3}},
                                               {4, {4, 104}},
                                               {10, {6, 110}},
                                               {11, {7, 111}}}));
  // The next merge takes ids after those; updating an updated row keeps its id again.
  ArrowArrayStream s2 = Stream(Rows({12, 4, 10}, 200.0));
  r = t->MergeInsert({"id"}).WhenMatchedUpdateAll().WhenNotMatchedInsertAll().Execute(&s2);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto ids = RowIds(t);
  EXPECT_EQ(ids.at(12), (Row{8, 212}));
  EXPECT_EQ(ids.at(4), (Row{4, 204}));
  EXPECT_EQ(ids.at(10), (Row{6, 210}));
  EXPECT_EQ(ids.size(), 8u);
  // Deleting by id works on the merged rows.
  ASSERT_TRUE(t->Delete("id = 10").ok());
  EXPECT_EQ(RowIds(t).count(10), 0u);
}

TEST(MergeInsert, StableRowIdsConditionalUpdateWithInsert) {
  auto t = MakeStableTable("memory://stable_cond", {0, 1, 2});
  ArrowArrayStream s = Stream(Rows({1, 2, 3}, 100.0));
  auto r = t->MergeInsert({"id"})
               .WhenMatchedUpdateAll("target.id = 2")
               .WhenNotMatchedInsertAll()
               .Execute(&s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_updated_rows, 1u);
  EXPECT_EQ(r->num_inserted_rows, 1u);
  using Row = std::pair<uint64_t, double>;
  EXPECT_EQ(RowIds(t),
            (std::map<int64_t, Row>{{0, {0, 0}}, {1, {1, 1}}, {2, {2, 102}}, {3, {3, 103}}}));
}

TEST(MergeInsert, ConditionsOnNonKeyColumns) {
  auto t = MakeTable("memory://nonkey", {1, 2, 3, 4, 5});
  // Update only where the table's v is at least 2 (rows 2, 3); delete unmatched rows with v < 5.
  ArrowArrayStream s = Stream(Rows({1, 2, 3}, 100.0));
  auto r = t->MergeInsert({"id"})
               .WhenMatchedUpdateAll("target.v >= 2 AND source.grp = 'a'")
               .WhenNotMatchedBySourceDelete("v < 5")
               .Execute(&s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_updated_rows, 2u);
  EXPECT_EQ(r->num_deleted_rows, 1u);
  EXPECT_EQ(Contents(t), (std::map<int64_t, double>{{1, 1}, {2, 102}, {3, 103}, {5, 5}}));
}

TEST(MergeInsert, NothingToDoKeepsVersion) {
  auto t = MakeTable("memory://noop", {1, 2});
  ArrowArrayStream s = Stream(Rows({1}, 100.0));
  auto r = t->MergeInsert({"id"}).WhenNotMatchedInsertAll().Execute(&s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->version, 1u);
  EXPECT_EQ(r->num_inserted_rows, 0u);
}

TEST(MergeInsert, BadInputLeavesTableUnchanged) {
  auto t = MakeTable("memory://bad", {1, 2});
  {
    ArrowArrayStream s = Stream(Rows({5, 5}, 100.0));
    auto r = t->MergeInsert({"id"}).WhenNotMatchedInsertAll().Execute(&s);
    ASSERT_TRUE(r.status().IsInvalidArgument());
    EXPECT_NE(r.status().message().find("more than one row with key (id=5)"), std::string::npos)
        << r.status().message();
  }
  {
    ArrowArrayStream s = Stream(Rows({5}, 100.0));
    auto r = t->MergeInsert({"nope"}).WhenNotMatchedInsertAll().Execute(&s);
    ASSERT_TRUE(r.status().IsInvalidArgument());
    EXPECT_NE(r.status().message().find("'nope' not found"), std::string::npos);
  }
  {
    ArrowArrayStream s = Stream(Rows({5}, 100.0));
    auto r = t->MergeInsert({"id"}).WhenMatchedUpdateAll("target.nope > 1").Execute(&s);
    ASSERT_FALSE(r.ok());
  }
  {
    ArrowArrayStream s = Stream(Rows({5}, 100.0));
    auto r = t->MergeInsert({"id"}).Execute(&s);
    ASSERT_TRUE(r.status().IsInvalidArgument());
  }
  EXPECT_EQ(*t->version(), 1u);
  EXPECT_EQ(Contents(t), (std::map<int64_t, double>{{1, 1}, {2, 2}}));
}

// A source with a subset of the columns (the key among them): updated rows keep the table's
// values in the others, inserted rows get NULLs; a source without the key, or one that inserts
// without a non-nullable column, is refused and changes nothing.
TEST(MergeInsert, SubsetOfColumns) {
  auto t = MakeTable("memory://merge_subset", {1, 2, 3});
  auto partial_schema =
      la::schema({la::field("id", la::int64(), false), la::field("v", la::float64())});
  auto partial = *la::RecordBatch::Make(
      partial_schema, {la::MakePrimitive(la::int64(), std::vector<int64_t>{2, 7}),
                       la::MakePrimitive(la::float64(), std::vector<double>{20.0, 70.0})});
  ArrowArrayStream s = Stream(partial);
  auto r = t->MergeInsert({"id"}).WhenMatchedUpdateAll().WhenNotMatchedInsertAll().Execute(&s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_updated_rows, 1u);
  EXPECT_EQ(r->num_inserted_rows, 1u);
  EXPECT_EQ(Contents(t), (std::map<int64_t, double>{{1, 1.0}, {2, 20.0}, {3, 3.0}, {7, 70.0}}));
  ArrowArrayStream scan;
  ASSERT_TRUE(t->Scan({}, &scan).ok());
  auto reader = la::ImportArrayStream(&scan);
  std::map<int64_t, std::optional<std::string>> groups;
  while (true) {
    auto b = (*reader)->Next();
    ASSERT_TRUE(b.ok());
    if (!*b) break;
    auto id = (*b)->GetColumnByName("id");
    auto grp = (*b)->GetColumnByName("grp");
    for (int64_t i = 0; i < (*b)->num_rows(); ++i) {
      groups[id->GetValues<int64_t>(1)[i]] =
          grp->IsNull(i) ? std::nullopt : std::optional<std::string>(std::string(grp->GetView(i)));
    }
  }
  EXPECT_EQ(groups[2], std::optional<std::string>("a"));  // kept
  EXPECT_EQ(groups[7], std::nullopt);                     // inserted without it

  auto no_key =
      *la::RecordBatch::Make(la::schema({la::field("v", la::float64())}),
                             {la::MakePrimitive(la::float64(), std::vector<double>{1.0})});
  s = Stream(no_key);
  auto bad = t->MergeInsert({"id"}).WhenMatchedUpdateAll().Execute(&s);
  EXPECT_TRUE(bad.status().IsInvalidArgument()) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("no key column 'id'"), std::string::npos);
  EXPECT_EQ(*t->version(), 2u);
}

// A NULL in a non-nullable column fails the write with Lance's message; nothing is committed.
TEST(MergeInsert, NullInNonNullableColumnIsRefused) {
  auto t = MakeTable("memory://merge_nonnull", {1, 2});
  auto with_null = std::const_pointer_cast<la::ArrayData>(la::MakeNullArray(la::int64(), 1));
  auto nullable = la::schema({la::field("id", la::int64(), true), la::field("grp", la::utf8()),
                              la::field("v", la::float64())});
  auto batch = *la::RecordBatch::Make(nullable,
                                      {with_null, la::MakeString({std::optional<std::string>("x")}),
                                       la::MakePrimitive(la::float64(), std::vector<double>{1.0})});
  ArrowArrayStream s = Stream(batch);
  auto st = t->Add(&s).status();
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("The field `id` contained null values even though the field is "
                              "marked non-null in the schema"),
            std::string::npos)
      << st.ToString();
  EXPECT_EQ(*t->version(), 1u);
  EXPECT_EQ(Contents(t).size(), 2u);
}

// An explicit timeout bounds the whole merge, the first attempt included: one still running at
// the deadline commits nothing (as LanceDB's).
TEST(MergeInsert, ExplicitTimeoutBoundsTheFirstAttempt) {
  auto t = MakeTable("memory://merge_timeout", {1, 2, 3});
  ArrowArrayStream s = Stream(Rows({2, 9}, 50.0));
  auto r = t->MergeInsert({"id"})
               .WhenMatchedUpdateAll()
               .WhenNotMatchedInsertAll()
               .Timeout(std::chrono::milliseconds(0))
               .Execute(&s);
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled) << r.status().ToString();
  EXPECT_NE(r.status().message().find("merge insert timed out"), std::string::npos);
  EXPECT_EQ(*t->version(), 1u);
  EXPECT_EQ(Contents(t).size(), 3u);
  s = Stream(Rows({2, 9}, 50.0));
  r = t->MergeInsert({"id"})
          .WhenMatchedUpdateAll()
          .WhenNotMatchedInsertAll()
          .Timeout(std::chrono::seconds(60))
          .Execute(&s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 2u);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb
