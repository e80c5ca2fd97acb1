// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Tests of MergeRows: one Update that keeps untouched fragments, stable row ids kept for
// rewritten rows and taken from next_row_id for inserted rows, and the failure modes (which
// commit nothing and leave no data file behind).

#include "table/merge_rows.h"

#include <gtest/gtest.h>

#include "table/manifest.h"
#include "table/row_ids.h"
#include "table/table_test_util.h"

namespace lancedb::table {
namespace LANCEDB_TEST_FILE_NS {

using testing::MemPath;
using testing::ScanIds;
using testing::TestReader;

size_t NumDataFiles(io::FileSystem& fs, const std::string& path) {
  auto files = fs.ListDir(path + "/data");
  return files.ok() ? files->size() : 0;
}

TEST(MergeRows, StableIdsKeptForRewrittenRowsAndFreshForInserted) {
  auto fs = io::MemoryFileSystem();
  const std::string path = MemPath("merge_rows");
  auto ds = testing::WriteTestDataset(fs, path, 10, testing::StableRowIds(true));
  MergeChanges changes;
  changes.replaced = {7, 2};  // row addresses = ids in fragment 0
  changes.removed = {9};
  auto rows = TestReader(100, 4);  // ids 100..103: 100, 101 replace rows 7, 2
  auto merged = MergeRows(ds, changes, rows.get());
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ((*merged)->manifest().proto().next_row_id(), 12u);
  ASSERT_EQ((*merged)->manifest().proto().fragments_size(), 2);
  const auto& old_frag = (*merged)->manifest().proto().fragments(0);
  EXPECT_EQ(old_frag.files(0).path(), ds->manifest().proto().fragments(0).files(0).path());
  const auto& added = (*merged)->manifest().proto().fragments(1);
  auto ids = FragmentRowIds(*fs, path, added);
  ASSERT_TRUE(ids.ok()) << ids.status().ToString();
  EXPECT_EQ(*ids, (std::vector<uint64_t>{7, 2, 10, 11}));
  auto created = FragmentRowVersions(*fs, path, added, true);
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(*created, (std::vector<uint64_t>{1, 1, 2, 2}));
  EXPECT_EQ(ScanIds(**merged), (std::vector<int64_t>{0, 1, 3, 4, 5, 6, 8, 100, 101, 102, 103}));
}

TEST(MergeRows, WithoutStableIdsIsAnUpdate) {
  auto fs = io::MemoryFileSystem();
  const std::string path = MemPath("merge_rows_plain");
  auto ds = testing::WriteTestDataset(fs, path, 10, testing::StableRowIds(false));
  MergeChanges changes;
  changes.replaced = {1};
  changes.removed = {0};
  auto rows = TestReader(50, 2);
  int64_t removed = 0;
  auto merged = MergeRows(ds, changes, rows.get(), &removed);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(removed, 2);
  EXPECT_EQ(ScanIds(**merged), (std::vector<int64_t>{2, 3, 4, 5, 6, 7, 8, 9, 50, 51}));
}

TEST(MergeRows, BadChangesCommitNothing) {
  auto fs = io::MemoryFileSystem();
  const std::string path = MemPath("merge_rows_bad");
  auto ds = testing::WriteTestDataset(fs, path, 10, testing::StableRowIds(true));
  const size_t files = NumDataFiles(*fs, path);
  MergeChanges outside;
  outside.removed = {(uint64_t{5} << 32) | 1};
  MergeChanges twice;
  twice.replaced = {3};
  twice.removed = {3};
  MergeChanges too_many;
  too_many.replaced = {1, 2, 3};
  for (const auto* changes : {&outside, &twice, &too_many}) {
    auto rows = TestReader(100, 2);
    auto merged = MergeRows(ds, *changes, rows.get());
    EXPECT_TRUE(merged.status().IsInvalidArgument()) << merged.status().ToString();
  }
  EXPECT_EQ(*ds->LatestVersion(), 1u);
  EXPECT_EQ(NumDataFiles(*fs, path), files);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::table
