// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Tests of DiffRows: inserted, updated and deleted stable row ids between two versions;
// compaction is no change; history rewrites (Restore, Overwrite, going back) ask for a rebuild.

#include "table/row_changes.h"

#include <gtest/gtest.h>

#include "table/compaction.h"
#include "table/merge_rows.h"
#include "table/stable_row_ids.h"
#include "table/table_test_util.h"

namespace lancedb::table {
namespace LANCEDB_TEST_FILE_NS {

using testing::MemPath;
using testing::TestReader;
using Ids = std::vector<uint64_t>;

RowChanges Diff(const DatasetPtr& from, const DatasetPtr& to) {
  auto diff = DiffRows(*from, *to);
  EXPECT_TRUE(diff.ok()) << diff.status().ToString();
  return diff.ok() ? *diff : RowChanges{};
}

TEST(DiffRows, SameVersionHasNoChanges) {
  auto fs = io::MemoryFileSystem();
  auto ds = testing::WriteTestDataset(fs, MemPath("diff_same"), 10, testing::StableRowIds(true));
  RowChanges c = Diff(ds, ds);
  EXPECT_TRUE(c.inserted.empty() && c.updated.empty() && c.deleted.empty());
  EXPECT_EQ(c.rebuild_reason, "");
}

TEST(DiffRows, AppendUpdateAndDeleteAreReported) {
  auto fs = io::MemoryFileSystem();
  auto v1 = testing::WriteTestDataset(fs, MemPath("diff_ops"), 10, testing::StableRowIds(true));
  auto rows = TestReader(10, 3);
  auto v2 = v1->Append(rows.get());
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  EXPECT_EQ(Diff(v1, *v2).inserted, (Ids{10, 11, 12}));

  int64_t n = 0;
  auto new_rows = TestReader(100, 2);
  auto v3 = (*v2)->UpdateRows({4, 6}, new_rows.get(), &n);  // fragment 0: address = id
  ASSERT_TRUE(v3.ok()) << v3.status().ToString();
  auto v4 = (*v3)->DeleteRows({1, 2}, &n);
  ASSERT_TRUE(v4.ok()) << v4.status().ToString();
  RowChanges c = Diff(*v2, *v4);
  EXPECT_EQ(c.inserted, Ids{});
  EXPECT_EQ(c.updated, (Ids{4, 6}));
  EXPECT_EQ(c.deleted, (Ids{1, 2}));
  // From the first version the appended rows are inserts, the rest as above.
  c = Diff(v1, *v4);
  EXPECT_EQ(c.inserted, (Ids{10, 11, 12}));
  EXPECT_EQ(c.updated, (Ids{4, 6}));
  EXPECT_EQ(c.deleted, (Ids{1, 2}));
}

TEST(DiffRows, UpdatedThenDeletedRowIsDeleted) {
  auto fs = io::MemoryFileSystem();
  auto v1 = testing::WriteTestDataset(fs, MemPath("diff_upd_del"), 10, testing::StableRowIds(true));
  int64_t n = 0;
  auto new_rows = TestReader(100, 1);
  auto v2 = v1->UpdateRows({3}, new_rows.get(), &n);
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  const uint64_t moved = (static_cast<uint64_t>(1) << 32);  // fragment 1, offset 0
  auto v3 = (*v2)->DeleteRows({moved}, &n);
  ASSERT_TRUE(v3.ok()) << v3.status().ToString();
  RowChanges c = Diff(v1, *v3);
  EXPECT_EQ(c.updated, Ids{});
  EXPECT_EQ(c.deleted, Ids{3});
}

TEST(DiffRows, CompactionIsNoChange) {
  auto fs = io::MemoryFileSystem();
  auto v1 = testing::WriteTestDataset(fs, MemPath("diff_compact"), 10, testing::StableRowIds(true));
  DatasetPtr ds = v1;
  for (int i = 0; i < 3; ++i) {
    auto rows = TestReader(10 + i * 5, 5);
    auto next = ds->Append(rows.get());
    ASSERT_TRUE(next.ok()) << next.status().ToString();
    ds = *next;
  }
  int64_t n = 0;
  auto deleted = ds->DeleteRows({0, 1, 2, 3, 4}, &n);
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  DatasetPtr before = *deleted;
  CompactionMetrics metrics;
  auto compacted = CompactFiles(before, CompactionOptions{}, &metrics);
  ASSERT_TRUE(compacted.ok()) << compacted.status().ToString();
  ASSERT_GT(metrics.fragments_removed, 0u);
  RowChanges c = Diff(before, *compacted);
  EXPECT_TRUE(c.inserted.empty() && c.updated.empty() && c.deleted.empty());
  EXPECT_EQ(c.rebuild_reason, "");
  // Changes made before the compaction still show through it.
  c = Diff(v1, *compacted);
  EXPECT_EQ(c.inserted.size(), 15u);
  EXPECT_EQ(c.deleted, (Ids{0, 1, 2, 3, 4}));
  EXPECT_EQ(c.updated, Ids{});
}

TEST(DiffRows, RestoreOverwriteAndGoingBackAskForRebuild) {
  auto fs = io::MemoryFileSystem();
  const std::string path = MemPath("diff_restore");
  auto v1 = testing::WriteTestDataset(fs, path, 10, testing::StableRowIds(true));
  auto rows = TestReader(10, 1);
  auto v2 = v1->Append(rows.get());
  ASSERT_TRUE(v2.ok());
  auto old = Dataset::Open(fs, path, 1);
  ASSERT_TRUE(old.ok());
  auto v3 = (*old)->Restore();
  ASSERT_TRUE(v3.ok()) << v3.status().ToString();
  RowChanges c = Diff(*v2, *v3);
  EXPECT_EQ(c.rebuild_reason, "version 3 is a Restore");
  EXPECT_TRUE(c.inserted.empty() && c.updated.empty() && c.deleted.empty());
  EXPECT_EQ(Diff(*v2, v1).rebuild_reason, "version 1 is older than version 2");
  auto replacement = TestReader(0, 4);
  auto v4 = (*v3)->Overwrite(replacement.get());
  ASSERT_TRUE(v4.ok()) << v4.status().ToString();
  EXPECT_EQ(Diff(*v3, *v4).rebuild_reason, "version 4 is an Overwrite");
}

TEST(DiffRows, NeedsStableRowIds) {
  auto fs = io::MemoryFileSystem();
  auto ds = testing::WriteTestDataset(fs, MemPath("diff_plain"), 10, testing::StableRowIds(false));
  auto diff = DiffRows(*ds, *ds);
  ASSERT_FALSE(diff.ok());
  EXPECT_TRUE(diff.status().IsInvalidArgument());
  EXPECT_NE(diff.status().message().find("has no stable row ids"), std::string::npos);
}

TEST(RowIdsToAddresses, ResolvesRangeFragmentsWithoutDecoding) {
  auto fs = io::MemoryFileSystem();
  auto v1 =
      testing::WriteTestDataset(fs, MemPath("ids_to_addresses"), 10, testing::StableRowIds(true));
  auto rows = TestReader(10, 5);
  auto v2 = v1->Append(rows.get());  // fragment 1: ids [10, 15)
  ASSERT_TRUE(v2.ok());
  int64_t n = 0;
  auto moved = TestReader(100, 1);
  auto v3 = (*v2)->UpdateRows({3}, moved.get(), &n);  // id 3 moves to fragment 2
  ASSERT_TRUE(v3.ok()) << v3.status().ToString();
  auto v4 = (*v3)->DeleteRows({(uint64_t{1} << 32) | 2}, &n);  // id 12 deleted
  ASSERT_TRUE(v4.ok()) << v4.status().ToString();
  auto got = RowIdsToAddresses(**v4, {14, 3, 0, 11});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, (Ids{(uint64_t{1} << 32) | 4, uint64_t{2} << 32, 0, (uint64_t{1} << 32) | 1}));
  for (uint64_t gone : {12, 15}) {
    auto missing = RowIdsToAddresses(**v4, {gone});
    ASSERT_FALSE(missing.ok());
    EXPECT_TRUE(missing.status().IsInvalidArgument());
  }
}

TEST(RowAddressesWhereIn, FindsLiveRowsByKeyInScanOrder) {
  auto fs = io::MemoryFileSystem();
  auto v1 = testing::WriteTestDataset(fs, MemPath("where_in"), 10, testing::StableRowIds(true));
  auto rows = TestReader(10, 5);
  auto v2 = v1->Append(rows.get());  // fragment 1: ids [10, 15)
  ASSERT_TRUE(v2.ok());
  int64_t n = 0;
  auto v3 = (*v2)->DeleteRows({(uint64_t{1} << 32) | 2}, &n);  // id 12 deleted
  ASSERT_TRUE(v3.ok()) << v3.status().ToString();
  // Keys in any order, with duplicates, a deleted key and keys no row holds.
  auto got = RowAddressesWhereIn(**v3, "id", {13, 3, 12, 3, 99, 0});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, (Ids{0, 3, (uint64_t{1} << 32) | 3}));
  // Keys spread too widely for a bitmap are searched.
  got = RowAddressesWhereIn(**v3, "id", {uint64_t{1} << 62, 14});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, (Ids{(uint64_t{1} << 32) | 4}));
  got = RowAddressesWhereIn(**v3, "id", {});
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got->empty());
  auto wrong_type = RowAddressesWhereIn(**v3, "x", {1});
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_TRUE(wrong_type.status().IsInvalidArgument());
  EXPECT_NE(wrong_type.status().message().find("not an integer key column"), std::string::npos);
  EXPECT_FALSE(RowAddressesWhereIn(**v3, "nope", {1}).ok());
}

TEST(MergeRowsGuarded, SetsMetadataAndRefusesToRebase) {
  auto fs = io::MemoryFileSystem();
  const std::string path = MemPath("merge_guarded");
  auto v1 = testing::WriteTestDataset(fs, path, 10, testing::StableRowIds(true));
  MergeChanges changes;
  changes.removed = {0};
  MergeRowsOptions options;
  options.schema_metadata = array::KeyValueMetadata{{"k", "v"}};
  options.fail_if_moved = true;
  auto rows = TestReader(50, 1);
  auto v2 = MergeRows(v1, changes, rows.get(), nullptr, options);
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  EXPECT_EQ((*v2)->manifest().proto().schema_metadata().at("k"), "v");
  EXPECT_EQ(Diff(v1, *v2).inserted, Ids{10});
  // A second writer that read v1 loses: nothing is committed, no file is left behind.
  auto files = fs->ListDir(path + "/data");
  ASSERT_TRUE(files.ok());
  auto more = TestReader(60, 1);
  auto lost = MergeRows(v1, changes, more.get(), nullptr, options);
  ASSERT_FALSE(lost.ok());
  EXPECT_TRUE(lost.status().IsCommitConflict());
  EXPECT_FALSE(lost.status().IsRetryable());
  auto latest = Dataset::Open(fs, path);
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ((*latest)->version(), 2u);
  auto after = fs->ListDir(path + "/data");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->size(), files->size());
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::table
