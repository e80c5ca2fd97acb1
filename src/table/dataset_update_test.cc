// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <thread>

#include "io/file_system.h"
#include "table/dataset.h"
#include "table/stable_row_ids.h"
#include "table/table_test_util.h"

namespace lancedb::table {
namespace LANCEDB_TEST_FILE_NS {

using testing::MemPath;
using testing::TestReader;
using testing::TestSchema;

/// One row of the test schema: id, x, s = "new".
std::unique_ptr<array::RecordBatchReader> OneRow(int64_t id, double x) {
  auto batch =
      array::RecordBatch::Make(TestSchema(), {array::MakePrimitive<int64_t>(array::int64(), {id}),
                                              array::MakePrimitive<double>(array::float64(), {x}),
                                              array::MakeString({std::string("new")})});
  return array::MakeVectorReader(TestSchema(), {*batch});
}

/// id -> (x, _rowid) of every live row.
std::map<int64_t, std::pair<double, uint64_t>> ReadRows(const Dataset& ds) {
  std::map<int64_t, std::pair<double, uint64_t>> out;
  ScanOptions options;
  options.columns = {"id", "x"};
  options.with_row_id = true;
  auto reader = ds.Scan(options);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return out;
  while (true) {
    auto batch = (*reader)->Next();
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok() || *batch == nullptr) break;
    const int64_t* ids = (*batch)->column(0)->GetValues<int64_t>(1);
    const double* xs = (*batch)->column(1)->GetValues<double>(1);
    const uint64_t* row_ids = (*batch)->column(2)->GetValues<uint64_t>(1);
    for (int64_t i = 0; i < (*batch)->num_rows(); ++i) {
      EXPECT_EQ(out.count(ids[i]), 0u) << "duplicate id " << ids[i];
      out[ids[i]] = {xs[i], row_ids[i]};
    }
  }
  return out;
}

TEST(DatasetUpdate, StableRowIdsKeepTheirIds) {
  auto fs = io::MemoryFileSystem();
  auto ds = testing::WriteTestDataset(fs, MemPath("update-stable"), 10,
                                      testing::StableRowIds(/*stable=*/true));
  ASSERT_NE(ds, nullptr);
  ASSERT_TRUE(UsesStableRowIds(*ds));
  auto before = ReadRows(*ds);
  ASSERT_EQ(before.size(), 10u);
  ASSERT_OK_AND_ASSIGN(auto addresses, RowIdsToAddresses(*ds, {before[7].second}));
  auto row = OneRow(7, 70.0);
  int64_t updated = 0;
  ASSERT_OK_AND_ASSIGN(auto v2, ds->UpdateRows(addresses, row.get(), &updated));
  EXPECT_EQ(updated, 1);
  EXPECT_EQ(v2->version(), 2u);
  auto after = ReadRows(*v2);
  ASSERT_EQ(after.size(), 10u);
  EXPECT_EQ(after[7].first, 70.0);
  for (const auto& [id, value] : before) {
    EXPECT_EQ(after[id].second, value.second) << "_rowid of id " << id << " changed";
  }
  // The row can be updated again through its (unchanged) id.
  ASSERT_OK_AND_ASSIGN(auto again, RowIdsToAddresses(*v2, {before[7].second}));
  auto row2 = OneRow(7, 77.0);
  ASSERT_OK_AND_ASSIGN(auto v3, v2->UpdateRows(again, row2.get(), &updated));
  auto last = ReadRows(*v3);
  EXPECT_EQ(last[7].first, 77.0);
  EXPECT_EQ(last[7].second, before[7].second);

  // The scan's _rowaddr is where the row lives now, next to its unchanged _rowid.
  ScanOptions options;
  options.columns = {"id"};
  options.with_row_id = true;
  options.with_row_address = true;
  ASSERT_OK_AND_ASSIGN(auto scan, v3->Scan(options));
  EXPECT_EQ(scan->schema()->field_names(), (std::vector<std::string>{"id", "_rowid", "_rowaddr"}));
  ASSERT_OK_AND_ASSIGN(auto batches, scan->ReadAll());
  int64_t seen = 0;
  for (const auto& batch : batches) {
    const int64_t* ids = batch->column(0)->GetValues<int64_t>(1);
    const uint64_t* row_ids = batch->column(1)->GetValues<uint64_t>(1);
    const uint64_t* addresses = batch->column(2)->GetValues<uint64_t>(1);
    for (int64_t i = 0; i < batch->num_rows(); ++i, ++seen) {
      ASSERT_OK_AND_ASSIGN(auto expected, RowIdsToAddresses(*v3, {row_ids[i]}));
      EXPECT_EQ(addresses[i], expected[0]) << "id " << ids[i];
      EXPECT_EQ(addresses[i] >> 32 != 0, ids[i] == 7) << "id " << ids[i];
    }
  }
  EXPECT_EQ(seen, 10);
}

TEST(DatasetUpdate, ConcurrentUpdatesOfDistinctRowsAllCommit) {
  for (bool stable : {false, true}) {
    SCOPED_TRACE(stable ? "stable row ids" : "row addresses");
    auto fs = io::MemoryFileSystem();
    auto ds =
        testing::WriteTestDataset(fs, MemPath("update-race"), 16, testing::StableRowIds(stable));
    ASSERT_NE(ds, nullptr);
    constexpr int kThreads = 8;
    std::vector<Result<DatasetPtr>> results(kThreads, Status::Internal("not run"));
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        // Single fragment 0: row offset t has id t.
        auto row = OneRow(t, 100.0 + t);
        int64_t n = 0;
        results[static_cast<size_t>(t)] = ds->UpdateRows({static_cast<uint64_t>(t)}, row.get(), &n);
      });
    }
    for (auto& th : threads) th.join();
    std::vector<uint64_t> versions;
    for (const auto& r : results) {
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      versions.push_back((*r)->version());
    }
    std::sort(versions.begin(), versions.end());
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(versions[static_cast<size_t>(t)], 2u + t);
    ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(fs, ds->path()));
    EXPECT_EQ(latest->version(), 9u);
    auto rows = ReadRows(*latest);
    ASSERT_EQ(rows.size(), 16u);
    for (int64_t id = 0; id < 16; ++id) {
      EXPECT_EQ(rows[id].first, id < kThreads ? 100.0 + static_cast<double>(id) : id * 0.5);
      if (stable) {
        EXPECT_EQ(rows[id].second, static_cast<uint64_t>(id));
      }
    }
  }
}

TEST(DatasetUpdate, UpdateOfConcurrentlyDeletedRowConflicts) {
  auto fs = io::MemoryFileSystem();
  auto ds = testing::WriteTestDataset(fs, MemPath("update-deleted"), 10,
                                      testing::StableRowIds(/*stable=*/false));
  ASSERT_NE(ds, nullptr);
  int64_t deleted = 0;
  ASSERT_OK_AND_ASSIGN(auto v2, ds->DeleteRows({3}, &deleted));
  EXPECT_EQ(deleted, 1);
  auto row = OneRow(3, 30.0);
  int64_t updated = 0;
  auto r = ds->UpdateRows({3}, row.get(), &updated);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCommitConflict()) << r.status().ToString();
  // Nothing was committed: the row stays deleted.
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(fs, ds->path()));
  EXPECT_EQ(latest->version(), 2u);
  auto rows = ReadRows(*latest);
  EXPECT_EQ(rows.size(), 9u);
  EXPECT_EQ(rows.count(3), 0u);
}

TEST(DatasetUpdate, TwoUpdatesOfTheSameRowConflict) {
  auto fs = io::MemoryFileSystem();
  auto ds = testing::WriteTestDataset(fs, MemPath("update-same"), 10,
                                      testing::StableRowIds(/*stable=*/true));
  ASSERT_NE(ds, nullptr);
  auto first = OneRow(5, 50.0);
  auto second = OneRow(5, 55.0);
  int64_t updated = 0;
  ASSERT_OK_AND_ASSIGN(auto v2, ds->UpdateRows({5}, first.get(), &updated));
  auto r = ds->UpdateRows({5}, second.get(), &updated);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCommitConflict()) << r.status().ToString();
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(fs, ds->path()));
  EXPECT_EQ(latest->version(), 2u);
  auto rows = ReadRows(*latest);
  ASSERT_EQ(rows.size(), 10u);
  EXPECT_EQ(rows[5].first, 50.0);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::table
