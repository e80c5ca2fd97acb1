// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Tests of the SQL-driven Table operations: CountRows(filter), Query, TakeOffsets/TakeRowIds,
// Delete and Update, including their failure modes and concurrent deletes.

#include <gtest/gtest.h>

#include <barrier>
#include <filesystem>
#include <set>
#include <thread>

#include "array/builder.h"
#include "array/c_bridge.h"
#include "lancedb/lancedb.h"

namespace lancedb {
namespace LANCEDB_TEST_FILE_NS {

namespace la = lancedb::array;

la::SchemaPtr Schema() {
  return la::schema({la::field("id", la::int64(), false), la::field("name", la::utf8()),
                     la::field("price", la::float64())});
}

la::RecordBatchPtr Rows(int64_t first, int64_t count) {
  std::vector<int64_t> ids;
  std::vector<std::optional<std::string>> names;
  std::vector<double> prices;
  std::vector<bool> valid;
  for (int64_t i = first; i < first + count; ++i) {
    ids.push_back(i);
    names.push_back(i % 5 == 0 ? std::nullopt
                               : std::optional<std::string>("n" + std::to_string(i)));
    prices.push_back(static_cast<double>(i) * 1.5);
    valid.push_back(i % 7 != 3);
  }
  return *la::RecordBatch::Make(Schema(),
                                {la::MakePrimitive(la::int64(), ids), la::MakeString(names),
                                 la::MakePrimitive(la::float64(), prices, valid)});
}

std::shared_ptr<Table> MakeTable(const std::string& uri, int64_t rows, int batches = 1) {
  auto db = Connect(uri);
  EXPECT_TRUE(db.ok());
  std::vector<la::RecordBatchPtr> data;
  for (int b = 0; b < batches; ++b) data.push_back(Rows(b * rows / batches, rows / batches));
  ArrowArrayStream s;
  EXPECT_TRUE(la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), data), &s).ok());
  auto t = (*db)->CreateTable("t", &s);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return *t;
}

la::RecordBatchPtr Collect(const Query& q) {
  ArrowArrayStream s;
  Status st = q.Execute(&s);
  EXPECT_TRUE(st.ok()) << st.ToString();
  if (!st.ok()) return nullptr;
  auto reader = la::ImportArrayStream(&s);
  auto batches = (*reader)->ReadAll();
  EXPECT_TRUE(batches.ok());
  return *la::ConcatenateBatches((*reader)->schema(), *batches);
}

std::vector<int64_t> Ids(const la::RecordBatchPtr& b, const std::string& col = "id") {
  auto c = b->GetColumnByName(col);
  return std::vector<int64_t>(c->GetValues<int64_t>(1), c->GetValues<int64_t>(1) + c->length);
}

TEST(TableQuery, CountRowsWithFilter) {
  auto t = MakeTable("memory://count", 100, 4);
  EXPECT_EQ(*t->CountRows("id < 10"), 10);
  EXPECT_EQ(*t->CountRows("name IS NULL"), 20);
  EXPECT_EQ(*t->CountRows("price IS NULL"), 14);
  EXPECT_EQ(*t->CountRows(""), 100);
  auto bad = t->CountRows("idd < 3");
  EXPECT_TRUE(bad.status().IsInvalidArgument());
  EXPECT_NE(bad.status().message().find("Column 'idd' not found; columns are: id, name, price"),
            std::string::npos);
}

TEST(TableQuery, WhereSelectLimitOffset) {
  auto t = MakeTable("memory://query", 100, 3);
  auto b = Collect(t->Query()
                       .Where("id >= 10")
                       .Where("id % 2 = 0")
                       .Limit(5)
                       .Offset(2)
                       .Select(std::vector<std::string>{"id"}));
  EXPECT_EQ(Ids(b), (std::vector<int64_t>{14, 16, 18, 20, 22}));
  EXPECT_EQ(b->num_columns(), 1);
  auto d =
      Collect(t->Query().Where("id < 3").Select(std::vector<std::pair<std::string, std::string>>{
          {"double", "id * 2"}, {"up", "upper(name)"}}));
  EXPECT_EQ(Ids(d, "double"), (std::vector<int64_t>{0, 2, 4}));
  EXPECT_EQ(d->schema()->field(1)->name(), "up");
  auto r = Collect(t->Query().Where("id = 42").WithRowId());
  ASSERT_EQ(r->num_rows(), 1);
  EXPECT_EQ(r->schema()->fields().back()->name(), "_rowid");
  ArrowArrayStream s;
  EXPECT_TRUE(t->Query().Where("id = ").Execute(&s).IsInvalidArgument());
}

TEST(TableQuery, TakeOffsetsAndRowIds) {
  auto t = MakeTable("memory://take", 30, 3);
  ASSERT_TRUE(t->Delete("id < 5").ok());
  auto b = Collect(t->TakeOffsets({0, 3, 1}));
  EXPECT_EQ(Ids(b), (std::vector<int64_t>{5, 6, 8}));  // table order, as LanceDB
  auto r = Collect(t->Query().Where("id IN (7, 20)").WithRowId());
  auto rid = r->GetColumnByName("_rowid");
  std::vector<uint64_t> ids(rid->GetValues<uint64_t>(1), rid->GetValues<uint64_t>(1) + 2);
  auto taken = Collect(t->TakeRowIds({ids[1], ids[0]}).WithRowId());
  EXPECT_EQ(Ids(taken), (std::vector<int64_t>{7, 20}));
  auto by_offset = Collect(t->Query().Where("_rowoffset < 2"));
  EXPECT_EQ(Ids(by_offset), (std::vector<int64_t>{5, 6}));
}

TEST(TableQuery, TakeOffsetsSkipDeletedRowsInEveryFragment) {
  auto t = MakeTable("memory://take_deleted", 300, 5);
  // Deletions scattered through every fragment, one fragment emptied and dropped.
  ASSERT_TRUE(t->Delete("id % 7 = 2 OR id % 11 = 0 OR (id >= 120 AND id < 180)").ok());
  auto all = Collect(t->Query().Select(std::vector<std::string>{"id"}));
  const auto live = Ids(all);
  ASSERT_EQ(static_cast<int64_t>(live.size()), *t->CountRows());
  std::vector<uint64_t> offsets;
  for (size_t i = 0; i < live.size(); i += 3) offsets.push_back(i);
  offsets.push_back(live.size() - 1);
  offsets.push_back(4);  // a duplicate
  auto b = Collect(t->TakeOffsets(offsets));
  std::vector<int64_t> expected;
  std::sort(offsets.begin(), offsets.end());
  for (uint64_t o : offsets) expected.push_back(live[o]);
  EXPECT_EQ(Ids(b), expected);
  ArrowArrayStream s;
  Status past_end = t->TakeOffsets({live.size()}).Execute(&s);
  EXPECT_TRUE(past_end.IsInvalidArgument());
  EXPECT_NE(past_end.message().find("is out of range; the table has " +
                                    std::to_string(live.size()) + " rows"),
            std::string::npos)
      << past_end.ToString();
}

TEST(TableQuery, DeleteReportsRowsAndVersion) {
  auto t = MakeTable("memory://delete", 20);
  auto r = t->Delete("id >= 15 OR name IS NULL");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_deleted_rows, 8u);  // 15..19 and 0, 5, 10
  EXPECT_EQ(r->version, 2u);
  EXPECT_EQ(*t->CountRows(), 12);
  auto none = t->Delete("id > 1000");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->num_deleted_rows, 0u);
  EXPECT_EQ(none->version, 2u);
  EXPECT_EQ(*t->version(), 2u);
  EXPECT_TRUE(t->Delete("nope = 1").status().IsInvalidArgument());
  EXPECT_EQ(*t->version(), 2u);
  auto all = t->Delete("TRUE");
  EXPECT_EQ(all->num_deleted_rows, 12u);
  EXPECT_EQ(*t->CountRows(), 0);
}

TEST(TableQuery, UpdateRewritesRows) {
  auto t = MakeTable("memory://update", 20, 2);
  auto r = t->Update("id < 3", {{"name", "'kid'"}, {"price", "price + 100"}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows_updated, 3u);
  EXPECT_EQ(r->version, 2u);
  EXPECT_EQ(*t->CountRows(), 20);
  EXPECT_EQ(*t->CountRows("name = 'kid'"), 3);
  EXPECT_EQ(*t->CountRows("price >= 100"), 3);
  auto none = t->Update("id > 99", {{"name", "'x'"}});
  EXPECT_EQ(none->rows_updated, 0u);
  EXPECT_EQ(none->version, 2u);
  auto all = t->Update(std::nullopt, {{"id", "id + 1000"}});
  EXPECT_EQ(all->rows_updated, 20u);
  EXPECT_EQ(*t->CountRows("id >= 1000"), 20);
}

TEST(TableQuery, FailedUpdateChangesNothing) {
  auto t = MakeTable("memory://badupdate", 10);
  EXPECT_TRUE(t->Update("id < 3", {{"name", "nme || 'x'"}}).status().IsInvalidArgument());
  EXPECT_TRUE(t->Update("id < 3", {{"id", "name = 'a'"}}).status().IsInvalidArgument());
  EXPECT_FALSE(t->Update("id < 3", {{"nosuch", "1"}}).ok());
  EXPECT_TRUE(t->Update("id <", {{"id", "1"}}).status().IsInvalidArgument());
  EXPECT_FALSE(t->Update("id < 3", {{"id", "id / 0"}}).ok());
  EXPECT_FALSE(t->Update("id < 3", {{"id", "NULL"}}).ok());  // id is not nullable
  EXPECT_EQ(*t->version(), 1u);
  EXPECT_EQ(*t->CountRows(), 10);
}

TEST(TableQuery, MutationsOnCheckedOutVersionFail) {
  auto t = MakeTable("memory://pinned", 10);
  ASSERT_TRUE(t->Delete("id = 1").ok());
  ASSERT_TRUE(t->Checkout(1).ok());
  auto d = t->Delete("id = 2");
  EXPECT_NE(d.status().message().find("fixed at version 1"), std::string::npos);
  EXPECT_FALSE(t->Update("id = 2", {{"id", "3"}}).ok());
}

void ConcurrentDeletes(const std::string& uri, int n) {
  auto t = MakeTable(uri, n);
  std::barrier sync(n);
  std::vector<Result<DeleteResult>> results(static_cast<size_t>(n), Status::Internal("unset"));
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      sync.arrive_and_wait();
      results[static_cast<size_t>(i)] = t->Delete("id = " + std::to_string(i));
    });
  }
  for (auto& th : threads) th.join();
  std::set<uint64_t> versions;
  for (const auto& r : results) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->num_deleted_rows, 1u);
    versions.insert(r->version);
  }
  std::set<uint64_t> expected;
  for (int v = 2; v <= n + 1; ++v) expected.insert(static_cast<uint64_t>(v));
  EXPECT_EQ(versions, expected);
  ASSERT_TRUE(t->CheckoutLatest().ok());
  EXPECT_EQ(*t->CountRows(), 0);
}

TEST(TableQuery, ConcurrentDeletesEachCommitOnce) {
  auto dir = std::filesystem::temp_directory_path() / ("lancedb_cdel_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  ConcurrentDeletes(dir.string(), 8);
  std::filesystem::remove_all(dir);
  ConcurrentDeletes(dir.string() + "_100", 100);
  std::filesystem::remove_all(dir.string() + "_100");
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb
