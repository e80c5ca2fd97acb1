// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Regression tests for issue 18: deletes and updates that raced a compaction duplicated rows or
// brought deleted rows back. Each test interleaves the two writers deterministically by giving
// one of them a stale snapshot.

#include <gtest/gtest.h>

#include <algorithm>

#include "table/commit.h"
#include "table/compaction.h"
#include "table/table_test_util.h"

namespace lancedb::table {
namespace LANCEDB_TEST_FILE_NS {

using testing::MemPath;
using testing::ScanIds;
using testing::TestReader;

/// Four fragments of 10 rows: ids 0..39.
DatasetPtr FourFragments(const io::FileSystemPtr& fs, const std::string& path) {
  WriteParams params;
  params.max_rows_per_file = 10;
  auto reader = TestReader(0, 40, 10);
  auto ds = Dataset::Write(fs, path, reader.get(), params);
  EXPECT_TRUE(ds.ok()) << ds.status().ToString();
  return ds.ok() ? *ds : nullptr;
}

CompactionOptions SmallTarget() {
  CompactionOptions o;
  o.target_rows_per_fragment = 100;
  return o;
}

std::vector<int64_t> SortedIds(const Dataset& ds) {
  auto ids = ScanIds(ds);
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<int64_t> Range(int64_t n, std::vector<int64_t> without = {}) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < n; ++i) {
    if (std::find(without.begin(), without.end(), i) == without.end()) out.push_back(i);
  }
  return out;
}

TEST(CompactionRace, CompactionPlannedBeforeADeleteDoesNotResurrectTheRow) {
  auto fs = io::MemoryFileSystem();
  const std::string path = MemPath("race-del");
  auto v1 = FourFragments(fs, path);
  int64_t n = 0;
  ASSERT_OK_AND_ASSIGN(auto v2, v1->DeleteRows({(uint64_t{1} << 32) | 3}, &n));  // id 13
  ASSERT_EQ(n, 1);
  // A compaction that read version 1 (before the delete) commits after it.
  CompactionMetrics metrics;
  auto compacted = CompactFiles(v1, SmallTarget(), &metrics);
  ASSERT_TRUE(compacted.status().IsCommitConflict() && compacted.status().IsRetryable())
      << compacted.status().ToString();
  EXPECT_NE(compacted.status().message().find("Delete"), std::string::npos);
  EXPECT_EQ(metrics.fragments_removed, 0u);
  // Nothing but the id reservation was committed, and the row stays deleted.
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(fs, path));
  EXPECT_EQ(latest->version(), 3u);  // 3 = ReserveFragments
  EXPECT_EQ(SortedIds(*latest), Range(40, {13}));
  // Compacting the newest version works.
  ASSERT_OK_AND_ASSIGN(auto v4, CompactFiles(latest, SmallTarget(), &metrics));
  EXPECT_EQ(SortedIds(*v4), Range(40, {13}));
  EXPECT_EQ(v4->manifest().proto().fragments_size(), 1);
}

TEST(CompactionRace, CompactionPlannedBeforeAnUpdateDoesNotDuplicateRows) {
  auto fs = io::MemoryFileSystem();
  const std::string path = MemPath("race-upd");
  auto v1 = FourFragments(fs, path);
  // Update id 25 (fragment 2, offset 5): the old row is deleted, the new one appended.
  auto rows = TestReader(25, 1);
  int64_t n = 0;
  ASSERT_OK_AND_ASSIGN(auto v2, v1->UpdateRows({(uint64_t{2} << 32) | 5}, rows.get(), &n));
  ASSERT_EQ(n, 1);
  CompactionMetrics metrics;
  auto compacted = CompactFiles(v1, SmallTarget(), &metrics);
  ASSERT_TRUE(compacted.status().IsCommitConflict() && compacted.status().IsRetryable())
      << compacted.status().ToString();
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(fs, path));
  EXPECT_EQ(SortedIds(*latest), Range(40));  // id 25 once
}

TEST(CompactionRace, DeleteReadBeforeACompactionIsRetryableAndChangesNothing) {
  auto fs = io::MemoryFileSystem();
  const std::string path = MemPath("race-del2");
  auto v1 = FourFragments(fs, path);
  CompactionMetrics metrics;
  ASSERT_OK_AND_ASSIGN(auto v3, CompactFiles(v1, SmallTarget(), &metrics));
  ASSERT_EQ(metrics.fragments_removed, 4u);
  int64_t n = 0;
  auto r = v1->DeleteRows({(uint64_t{1} << 32) | 3}, &n);  // fragment 1 no longer exists
  ASSERT_TRUE(r.status().IsCommitConflict() && r.status().IsRetryable()) << r.status().ToString();
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(fs, path));
  EXPECT_EQ(latest->version(), v3->version());
  EXPECT_EQ(SortedIds(*latest), Range(40));
  ASSERT_OK_AND_ASSIGN(auto deletions, fs->ListDir(path + "/_deletions"));
  EXPECT_TRUE(deletions.empty());
}

TEST(CompactionRace, UpdateReadBeforeACompactionIsRetryableAndChangesNothing) {
  auto fs = io::MemoryFileSystem();
  const std::string path = MemPath("race-upd2");
  auto v1 = FourFragments(fs, path);
  CompactionMetrics metrics;
  ASSERT_OK_AND_ASSIGN(auto v3, CompactFiles(v1, SmallTarget(), &metrics));
  auto rows = TestReader(25, 1);
  int64_t n = 0;
  auto r = v1->UpdateRows({(uint64_t{2} << 32) | 5}, rows.get(), &n);
  ASSERT_TRUE(r.status().IsCommitConflict() && r.status().IsRetryable()) << r.status().ToString();
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(fs, path));
  EXPECT_EQ(latest->version(), v3->version());
  EXPECT_EQ(SortedIds(*latest), Range(40));
  ASSERT_OK_AND_ASSIGN(auto data, fs->ListDir(path + "/data"));
  EXPECT_EQ(data.size(), 5u);  // 4 original files + 1 compacted; the update's file was removed
}

TEST(CompactionRace, CompactionOfOtherFragmentsRebasesOverADelete) {
  auto fs = io::MemoryFileSystem();
  const std::string path = MemPath("race-other");
  WriteParams params;
  params.max_rows_per_file = 10;
  auto small = TestReader(0, 100, 10);
  ASSERT_OK_AND_ASSIGN(auto v1, Dataset::Write(fs, path, small.get(), params));  // fragments 0-9
  auto big = TestReader(100, 200, 200);
  ASSERT_OK_AND_ASSIGN(auto v2, v1->Append(big.get()));  // fragment 10, 200 rows
  // A compaction of fragments 0-9 is planned on v2; a delete in fragment 10 commits first.
  int64_t n = 0;
  ASSERT_OK_AND_ASSIGN(auto v3, v2->DeleteRows({(uint64_t{10} << 32) | 5}, &n));  // id 105
  CompactionMetrics metrics;
  ASSERT_OK_AND_ASSIGN(auto compacted, CompactFiles(v2, SmallTarget(), &metrics));
  EXPECT_EQ(metrics.fragments_removed, 10u);
  EXPECT_EQ(compacted->version(), 5u);  // 4 = ReserveFragments, 5 = Rewrite
  EXPECT_EQ(SortedIds(*compacted), Range(300, {105}));
  EXPECT_EQ(compacted->manifest().proto().fragments_size(), 2);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::table
