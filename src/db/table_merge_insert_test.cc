// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Tests of Table::MergeInsert: upsert, insert-if-not-exists, replace-range, conditional update,
// composite keys and the failure modes (which must leave the table unchanged).

#include <gtest/gtest.h>

#include <map>

#include "array/builder.h"
#include "array/c_bridge.h"
#include "lancedb/lancedb.h"

namespace lancedb {
namespace {

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

}  // namespace
}  // namespace lancedb
