// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Tests of computed columns on a Table: AddComputedColumns records the expression and adds an
// empty column; RefreshColumn fills unfilled rows (failing rows counted and left unfilled),
// publishes with two commits, commits nothing when there is nothing to fill, can be
// cancelled; failures change nothing; updates of inputs make rows unfilled again; inputs
// cannot be dropped.

#include <gtest/gtest.h>

#include <atomic>

#include "array/builder.h"
#include "array/c_bridge.h"
#include "lancedb/lancedb.h"

namespace lancedb {
namespace LANCEDB_TEST_FILE_NS {

namespace la = lancedb::array;

std::shared_ptr<Table> MakeTable(const std::string& uri, const std::vector<int64_t>& xs) {
  auto schema = la::schema({la::field("x", la::int64())});
  auto batch = *la::RecordBatch::Make(schema, {la::MakePrimitive(la::int64(), xs)});
  ArrowArrayStream s;
  EXPECT_TRUE(la::ExportRecordBatchReader(la::MakeVectorReader(schema, {batch}), &s).ok());
  auto t = (*Connect(uri))->CreateTable("t", &s);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return *t;
}

la::SchemaPtr SchemaOf(const std::shared_ptr<Table>& t) {
  ArrowSchema s;
  EXPECT_TRUE(t->GetSchema(&s).ok());
  return *la::ImportSchema(&s);
}

/// Column `name` of every row, NULL as nullopt.
std::vector<std::optional<int64_t>> Column(const std::shared_ptr<Table>& t,
                                           const std::string& name) {
  ArrowArrayStream s;
  EXPECT_TRUE(t->Scan({}, &s).ok());
  auto reader = la::ImportArrayStream(&s).MoveValueUnsafe();
  std::vector<std::optional<int64_t>> out;
  auto batches = reader->ReadAll();
  EXPECT_TRUE(batches.ok());
  for (const auto& b : *batches) {
    const auto& c = b->GetColumnByName(name);
    for (int64_t i = 0; i < c->length; ++i) {
      out.push_back(c->IsNull(i) ? std::nullopt
                                 : std::optional<int64_t>(c->GetValues<int64_t>(1)[i]));
    }
  }
  return out;
}

using Values = std::vector<std::optional<int64_t>>;

TEST(ComputedColumns, DeclareRecordsTheExpressionAndAddsNoValues) {
  auto t = MakeTable("memory://computed-declare", {1, 2});
  auto r = t->AddComputedColumns({{"d", "x * 2"}, {"e", "d + x"}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 2u);
  auto schema = SchemaOf(t);
  const auto& md = schema->field(1)->metadata();
  EXPECT_EQ(la::GetMetadata(md, kComputedColumnKey), "true");
  EXPECT_EQ(la::GetMetadata(md, kComputedColumnKindKey), "sql");
  EXPECT_EQ(la::GetMetadata(md, kComputedColumnExpressionKey), "x * 2");
  EXPECT_EQ(la::GetMetadata(md, kComputedColumnInputsKey), "[\"x\"]");
  EXPECT_EQ(la::GetMetadata(schema->field(2)->metadata(), kComputedColumnInputsKey),
            "[\"d\",\"x\"]");
  EXPECT_EQ(Column(t, "d"), (Values{std::nullopt, std::nullopt}));
}

TEST(ComputedColumns, BadDeclarationsChangeNothing) {
  auto t = MakeTable("memory://computed-bad", {1});
  EXPECT_TRUE(t->AddComputedColumns({{"x", "1"}}).status().IsAlreadyExists());
  auto bad = t->AddComputedColumns({{"y", "nope + 1"}});
  EXPECT_TRUE(bad.status().IsInvalidArgument());
  EXPECT_NE(bad.status().message().find("Invalid expression for column 'y'"), std::string::npos);
  EXPECT_TRUE(t->AddComputedColumns({{"y", "NULL"}}).status().IsInvalidArgument());
  EXPECT_TRUE(t->AddComputedColumns({{"y", "x"}, {"y", "x"}}).status().IsAlreadyExists());
  EXPECT_TRUE(t->AddComputedColumns({}).status().IsInvalidArgument());
  EXPECT_TRUE(t->RefreshColumn("x").status().IsInvalidArgument());
  EXPECT_TRUE(t->RefreshColumn("nope").status().IsNotFound());
  EXPECT_EQ(*t->version(), 1u);
}

TEST(ComputedColumns, RefreshFillsAndCountsFailingRows) {
  auto t = MakeTable("memory://computed-refresh", {1, 0, 4, 5});
  ASSERT_TRUE(t->AddComputedColumns({{"q", "20 / x"}}).ok());
  auto r = t->RefreshColumn("q");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows_assigned, 3u);
  EXPECT_EQ(r->rows_failed, 1u);
  EXPECT_EQ(r->rows_remaining, 1u);
  EXPECT_EQ(r->source_version, 2u);
  EXPECT_EQ(r->published_version, std::optional<uint64_t>(4));
  EXPECT_EQ(*t->version(), 4u);
  EXPECT_EQ(Column(t, "q"), (Values{20, std::nullopt, 5, 4}));
  EXPECT_EQ(la::GetMetadata(SchemaOf(t)->field(1)->metadata(), kComputedRefreshVersionKey), "3");
  // Only the failing row is left: evaluated again, nothing committed.
  auto again = t->RefreshColumn("q");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->rows_assigned, 0u);
  EXPECT_EQ(again->rows_failed, 1u);
  EXPECT_FALSE(again->published_version.has_value());
  EXPECT_EQ(*t->version(), 4u);
}

TEST(ComputedColumns, RowsAddedOrUpdatedLaterAreFilledByTheNextRefresh) {
  auto t = MakeTable("memory://computed-later", {1, 2});
  ASSERT_TRUE(t->AddComputedColumns({{"d", "x * 2"}}).ok());
  ASSERT_TRUE(t->RefreshColumn("d").ok());
  ASSERT_TRUE(t->Update("x = 1", {{"x", "7"}}).ok());
  EXPECT_EQ(Column(t, "d"), (Values{4, std::nullopt}));
  auto r = t->RefreshColumn("d");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->rows_assigned, 1u);
  EXPECT_EQ(Column(t, "x"), (Values{2, 7}));
  EXPECT_EQ(Column(t, "d"), (Values{4, 14}));
}

TEST(ComputedColumns, CancelledRefreshCommitsNothing) {
  auto t = MakeTable("memory://computed-cancel", {1, 2});
  ASSERT_TRUE(t->AddComputedColumns({{"d", "x * 2"}}).ok());
  RefreshColumnOptions options;
  auto flag = std::make_shared<std::atomic<bool>>(true);
  options.cancel = flag;
  EXPECT_TRUE(t->RefreshColumn("d", options).status().code() == StatusCode::kCancelled);
  EXPECT_EQ(*t->version(), 2u);
  EXPECT_EQ(Column(t, "d"), (Values{std::nullopt, std::nullopt}));
}

TEST(ComputedColumns, InputsCannotBeDroppedOrRenamed) {
  auto t = MakeTable("memory://computed-inputs", {1});
  ASSERT_TRUE(t->AddComputedColumns({{"d", "x * 2"}}).ok());
  auto dropped = t->DropColumns({"x"});
  EXPECT_TRUE(dropped.status().IsInvalidArgument());
  EXPECT_EQ(dropped.status().message(),
            "Invalid input, column 'x' is read by computed column 'd'; drop that column first");
  ColumnAlteration rename;
  rename.path = "x";
  rename.rename = "y";
  EXPECT_TRUE(t->AlterColumns({rename}).status().IsInvalidArgument());
  EXPECT_EQ(*t->version(), 2u);
  ASSERT_TRUE(t->DropColumns({"d"}).ok());
  EXPECT_TRUE(t->AlterColumns({rename}).ok());
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb
