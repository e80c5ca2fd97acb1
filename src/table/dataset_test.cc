// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "table/dataset.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "table/compaction.h"
#include "table/table_test_util.h"

namespace lancedb::table {
namespace LANCEDB_TEST_FILE_NS {

using testing::MemPath;
using testing::ScanIds;
using testing::TestReader;

std::vector<int64_t> Range(int64_t start, int64_t end) {
  std::vector<int64_t> v(static_cast<size_t>(end - start));
  std::iota(v.begin(), v.end(), start);
  return v;
}

TEST(Dataset, LatestVersionFollowsAStaleHintAndSurvivesABadOne) {
  auto fs = io::MemoryFileSystem();
  std::string path = MemPath("hint");
  auto v1 = testing::WriteTestDataset(fs, path, 10);
  ASSERT_NE(v1, nullptr);
  for (int i = 0; i < 3; ++i) {
    auto more = TestReader(10 + i, 1);
    ASSERT_OK(v1->Append(more.get()).status());
  }
  const std::string hint = path + "/_versions/latest_version_hint.json";
  for (std::string_view text : {"{\"version\":2}", "{\"version\":99}", "garbage", ""}) {
    ASSERT_OK(fs->WriteFile(hint, text));  // stale, ahead of the manifests, unreadable
    ASSERT_OK_AND_ASSIGN(auto latest, v1->LatestVersion());
    EXPECT_EQ(latest, 4u) << text;
    ASSERT_OK_AND_ASSIGN(auto opened, Dataset::Open(fs, path));
    EXPECT_EQ(opened->version(), 4u) << text;
  }
  ASSERT_OK(fs->DeleteFile(hint));
  ASSERT_OK_AND_ASSIGN(auto latest, v1->LatestVersion());
  EXPECT_EQ(latest, 4u);
}

TEST(Dataset, CreateScanCount) {
  auto fs = io::MemoryFileSystem();
  std::string path = MemPath("create");
  auto ds = testing::WriteTestDataset(fs, path, 2500);
  ASSERT_NE(ds, nullptr);
  EXPECT_EQ(ds->version(), 1u);
  EXPECT_TRUE(ds->schema()->Equals(*testing::TestSchema()));
  ASSERT_OK_AND_ASSIGN(auto count, ds->CountRows());
  EXPECT_EQ(count, 2500);
  EXPECT_EQ(ScanIds(*ds), Range(0, 2500));
  EXPECT_TRUE(fs->Exists(path + "/_versions/18446744073709551614.manifest").ValueOr(false));
  ASSERT_OK_AND_ASSIGN(auto hint, fs->ReadFile(path + "/_versions/latest_version_hint.json"));
  EXPECT_EQ(hint->view(), "{\"version\":1}");
  const auto& m = ds->manifest().proto();
  EXPECT_EQ(m.data_format().version(), "2.2");
  EXPECT_EQ(m.max_fragment_id(), 0u);
  EXPECT_FALSE(m.transaction_file().empty());
  EXPECT_TRUE(fs->Exists(path + "/_transactions/" + m.transaction_file()).ValueOr(false));
  ASSERT_OK_AND_ASSIGN(auto raw, fs->ReadFile(path + "/_versions/18446744073709551614.manifest"));
  ASSERT_OK_AND_ASSIGN(auto parsed, Manifest::Parse(*raw, "v1"));
  ASSERT_NE(parsed->transaction(), nullptr);  // inline as well as in _transactions/
  EXPECT_TRUE(parsed->transaction()->has_overwrite());
  EXPECT_EQ(parsed->transaction()->read_version(), 0u);

  // Reopen and read all columns.
  ASSERT_OK_AND_ASSIGN(auto reopened, Dataset::Open(fs, path));
  ScanOptions all;
  all.batch_size = 1000;
  ASSERT_OK_AND_ASSIGN(auto reader, reopened->Scan(all));
  ASSERT_OK_AND_ASSIGN(auto batches, reader->ReadAll());
  ASSERT_EQ(batches.size(), 3u);
  auto expected = testing::TestBatch(1000, 1000);
  EXPECT_TRUE(batches[1]->Equals(*expected)) << batches[1]->ToString();
}

TEST(Dataset, CreateRefusesExisting) {
  auto fs = io::MemoryFileSystem();
  std::string path = MemPath("exists");
  ASSERT_NE(testing::WriteTestDataset(fs, path, 10), nullptr);
  auto reader = TestReader(0, 10);
  auto again = Dataset::Write(fs, path, reader.get(), {});
  EXPECT_TRUE(again.status().IsAlreadyExists()) << again.status().ToString();
}

TEST(Dataset, EmptyTableFromSchema) {
  auto fs = io::MemoryFileSystem();
  std::string path = MemPath("empty");
  auto reader = array::MakeVectorReader(testing::TestSchema(), {});
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Write(fs, path, reader.get(), {}));
  EXPECT_EQ(ds->manifest().proto().fragments_size(), 0);
  EXPECT_FALSE(ds->manifest().proto().has_max_fragment_id());
  ASSERT_OK_AND_ASSIGN(auto count, ds->CountRows());
  EXPECT_EQ(count, 0);
  EXPECT_TRUE(ScanIds(*ds).empty());
  auto more = TestReader(0, 5);
  ASSERT_OK_AND_ASSIGN(auto appended, ds->Append(more.get()));
  EXPECT_EQ(appended->manifest().proto().fragments(0).id(), 0u);
  EXPECT_EQ(ScanIds(*appended), Range(0, 5));
}

TEST(Dataset, AppendSplitsFilesAndAssignsFragmentIds) {
  auto fs = io::MemoryFileSystem();
  std::string path = MemPath("append");
  auto ds = testing::WriteTestDataset(fs, path, 100);
  WriteParams params;
  params.max_rows_per_file = 40;
  params.max_rows_per_group = 16;
  auto more = TestReader(100, 100, 30);
  ASSERT_OK_AND_ASSIGN(auto v2, ds->Append(more.get(), params));
  EXPECT_EQ(v2->version(), 2u);
  const auto& frags = v2->manifest().proto().fragments();
  ASSERT_EQ(frags.size(), 4);  // 100 + 40 + 40 + 20
  for (int i = 0; i < frags.size(); ++i) EXPECT_EQ(frags[i].id(), static_cast<uint64_t>(i));
  EXPECT_EQ(frags[1].physical_rows(), 40u);
  EXPECT_EQ(frags[3].physical_rows(), 20u);
  EXPECT_EQ(v2->manifest().proto().max_fragment_id(), 3u);
  const std::string& name = frags[2].files(0).path();
  EXPECT_EQ(name.size(), 24 + 26 + 6) << name;
  EXPECT_GE(name.find_first_not_of("01"), 24u) << name;
  EXPECT_EQ(name.find_first_not_of("0123456789abcdef", 24), 50u) << name;
  EXPECT_TRUE(name.ends_with(".lance")) << name;
  EXPECT_EQ(ScanIds(*v2), Range(0, 200));
  std::vector<uint64_t> addrs;
  ScanIds(*v2, &addrs);
  ASSERT_EQ(addrs.size(), 200u);
  EXPECT_EQ(addrs[0], 0u);
  EXPECT_EQ(addrs[100], uint64_t{1} << 32);
  EXPECT_EQ(addrs[199], (uint64_t{3} << 32) | 19);
  // The old snapshot is unchanged.
  EXPECT_EQ(ScanIds(*ds), Range(0, 100));
}

TEST(Dataset, AppendSchemaMismatchChangesNothing) {
  auto fs = io::MemoryFileSystem();
  std::string path = MemPath("mismatch");
  auto ds = testing::WriteTestDataset(fs, path, 10);
  auto bad_schema =
      array::schema({array::field("id", array::int32()), array::field("x", array::float64()),
                     array::field("s", array::utf8())});
  auto reader = array::MakeVectorReader(bad_schema, {});
  auto r = ds->Append(reader.get());
  ASSERT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("'id'"), std::string::npos) << r.status().message();
  auto extra =
      array::schema({array::field("id", array::int64()), array::field("y", array::int8())});
  auto reader2 = array::MakeVectorReader(extra, {});
  auto r2 = ds->Append(reader2.get());
  ASSERT_TRUE(r2.status().IsInvalidArgument());
  EXPECT_NE(r2.status().message().find("'y'"), std::string::npos) << r2.status().message();
  ASSERT_OK_AND_ASSIGN(auto latest, ds->LatestVersion());
  EXPECT_EQ(latest, 1u);
  ASSERT_OK_AND_ASSIGN(auto files, fs->ListDir(path + "/data"));
  EXPECT_EQ(files.size(), 1u);
}

/// The file versions of the data files of `ds`, as "major.minor".
std::set<std::string> FileVersions(const Dataset& ds) {
  std::set<std::string> versions;
  for (const auto& frag : ds.manifest().proto().fragments()) {
    for (const auto& file : frag.files()) {
      versions.insert(std::to_string(file.file_major_version()) + "." +
                      std::to_string(file.file_minor_version()));
    }
  }
  return versions;
}

TEST(Dataset, A21TableIsWrittenIn21ByEveryWrite) {
  auto fs = io::MemoryFileSystem();
  std::string path = MemPath("v21");
  WriteParams params;
  params.data_storage_version = "2.1";
  params.max_rows_per_file = 30;
  auto ds = testing::WriteTestDataset(fs, path, 100, params);
  ASSERT_NE(ds, nullptr);
  EXPECT_EQ(ds->manifest().data_format_version(), "2.1");
  auto more = TestReader(100, 50);
  ASSERT_OK_AND_ASSIGN(auto appended, ds->Append(more.get(), WriteParams{}));
  int64_t num_deleted = 0;
  ASSERT_OK_AND_ASSIGN(auto deleted, appended->DeleteRows({0, 1, uint64_t{1} << 32}, &num_deleted));
  EXPECT_EQ(num_deleted, 3);
  auto replacement = TestReader(1000, 1);
  int64_t updated = 0;
  ASSERT_OK_AND_ASSIGN(auto rewritten,
                       deleted->UpdateRows({(uint64_t{2} << 32) | 3}, replacement.get(), &updated));
  EXPECT_EQ(updated, 1);
  CompactionMetrics metrics;
  ASSERT_OK_AND_ASSIGN(auto compacted, CompactFiles(rewritten, CompactionOptions{}, &metrics));
  EXPECT_EQ(compacted->manifest().proto().fragments_size(), 1);
  for (const DatasetPtr& version : std::vector<DatasetPtr>{ds, appended, rewritten, compacted}) {
    EXPECT_EQ(version->manifest().data_format_version(), "2.1");
    EXPECT_EQ(FileVersions(*version), std::set<std::string>{"2.1"});
  }
  std::vector<int64_t> expected = Range(2, 150);
  expected.erase(std::find(expected.begin(), expected.end(), 30));
  expected.erase(std::find(expected.begin(), expected.end(), 63));
  expected.push_back(1000);
  auto ids = ScanIds(*compacted);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, expected);
  // An overwrite keeps the version; asking for another one changes it.
  auto again = TestReader(0, 5);
  ASSERT_OK_AND_ASSIGN(auto overwritten, compacted->Overwrite(again.get(), WriteParams{}));
  EXPECT_EQ(overwritten->manifest().data_format_version(), "2.1");
  EXPECT_EQ(FileVersions(*overwritten), std::set<std::string>{"2.1"});
  WriteParams to22;
  to22.data_storage_version = "2.2";
  auto last = TestReader(0, 5);
  ASSERT_OK_AND_ASSIGN(auto upgraded, overwritten->Overwrite(last.get(), to22));
  EXPECT_EQ(upgraded->manifest().data_format_version(), "2.2");
  EXPECT_EQ(FileVersions(*upgraded), std::set<std::string>{"2.2"});
}

TEST(Dataset, UnwritableVersionsAreRefusedNamingThem) {
  auto fs = io::MemoryFileSystem();
  for (const char* version : {"2.0", "legacy", "next", "3.7"}) {
    WriteParams params;
    params.data_storage_version = version;
    auto reader = TestReader(0, 3);
    auto ds = Dataset::Write(fs, MemPath("refused"), reader.get(), params);
    ASSERT_TRUE(ds.status().IsNotSupported()) << version;
    EXPECT_NE(ds.status().message().find(version == std::string("legacy") ? "v1 format" : version),
              std::string::npos)
        << ds.status().ToString();
  }
  EXPECT_NE(ParseDataStorageVersion("2.0").status().message().find("legacy encodings"),
            std::string::npos);
}

TEST(Dataset, OverwriteReplacesContentAndSchema) {
  auto fs = io::MemoryFileSystem();
  std::string path = MemPath("overwrite");
  auto ds = testing::WriteTestDataset(fs, path, 30);
  auto other = array::schema({array::field("k", array::int32())});
  auto batch =
      array::RecordBatch::Make(other, {array::MakePrimitive<int32_t>(array::int32(), {7, 8, 9})});
  ASSERT_TRUE(batch.ok());
  auto reader = array::MakeVectorReader(other, {*batch});
  WriteParams params;
  params.mode = WriteMode::kOverwrite;
  ASSERT_OK_AND_ASSIGN(auto v2, Dataset::Write(fs, path, reader.get(), params));
  EXPECT_EQ(v2->version(), 2u);
  EXPECT_TRUE(v2->schema()->Equals(*other));
  EXPECT_EQ(v2->manifest().proto().fragments(0).id(), 0u);
  ASSERT_OK_AND_ASSIGN(auto count, v2->CountRows());
  EXPECT_EQ(count, 3);
  ASSERT_OK_AND_ASSIGN(auto v1, Dataset::Open(fs, path, 1));
  EXPECT_EQ(ScanIds(*v1), Range(0, 30));
}

TEST(Dataset, OverwriteThatMustNotRebaseFailsAfterAConcurrentCommit) {
  auto fs = io::MemoryFileSystem();
  std::string path = MemPath("overwrite-no-rebase");
  auto v1 = testing::WriteTestDataset(fs, path, 10);
  ASSERT_NE(v1, nullptr);
  auto appended = TestReader(100, 5);
  ASSERT_OK_AND_ASSIGN(auto v2, v1->Append(appended.get()));
  EXPECT_EQ(v2->version(), 2u);
  // An overwrite computed from version 1 may not land on top of version 2.
  WriteParams strict;
  strict.fail_if_rebased = true;
  auto stale = TestReader(0, 3);
  auto failed = v1->Overwrite(stale.get(), strict);
  ASSERT_FALSE(failed.ok());
  EXPECT_TRUE(failed.status().IsCommitConflict()) << failed.status().ToString();
  EXPECT_TRUE(failed.status().IsRetryable());
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(fs, path));
  EXPECT_EQ(latest->version(), 2u);
  ASSERT_OK_AND_ASSIGN(auto count, latest->CountRows());
  EXPECT_EQ(count, 15);
  // From the newest version it commits; without the flag a stale overwrite rebases.
  auto fresh = TestReader(0, 3);
  ASSERT_OK_AND_ASSIGN(auto v3, latest->Overwrite(fresh.get(), strict));
  EXPECT_EQ(v3->version(), 3u);
  auto rebased = TestReader(0, 4);
  ASSERT_OK_AND_ASSIGN(auto v4, v1->Overwrite(rebased.get()));
  EXPECT_EQ(v4->version(), 4u);
}

TEST(Dataset, VersionsAndRestore) {
  auto fs = io::MemoryFileSystem();
  std::string path = MemPath("restore");
  auto ds = testing::WriteTestDataset(fs, path, 10);
  auto more = TestReader(10, 10);
  ASSERT_OK_AND_ASSIGN(auto v2, ds->Append(more.get()));
  ASSERT_OK_AND_ASSIGN(auto v1, Dataset::Open(fs, path, 1));
  ASSERT_OK_AND_ASSIGN(auto v3, v1->Restore());
  EXPECT_EQ(v3->version(), 3u);
  EXPECT_EQ(ScanIds(*v3), Range(0, 10));
  EXPECT_EQ(v3->manifest().proto().max_fragment_id(), 1u);
  auto after = TestReader(100, 5);
  ASSERT_OK_AND_ASSIGN(auto v4, v3->Append(after.get()));
  EXPECT_EQ(v4->manifest().proto().fragments(1).id(), 2u);  // id 1 is never reused
  ASSERT_OK_AND_ASSIGN(auto versions, v4->ListVersions());
  ASSERT_EQ(versions.size(), 4u);
  for (size_t i = 0; i < versions.size(); ++i) {
    EXPECT_EQ(versions[i].version, i + 1);
    EXPECT_GT(versions[i].timestamp_micros, 0);
  }
  auto missing = Dataset::Open(fs, path, 9);
  ASSERT_TRUE(missing.status().IsNotFound());
  EXPECT_NE(missing.status().message().find("Version 9"), std::string::npos);
  auto nothing = Dataset::Open(fs, MemPath("nothing"));
  ASSERT_TRUE(nothing.status().IsNotFound());
  EXPECT_NE(nothing.status().message().find("nothing"), std::string::npos);
}

TEST(Dataset, DeleteWritesArrowThenBitmapAndDropsEmptyFragments) {
  auto fs = io::MemoryFileSystem();
  std::string path = MemPath("delete");
  WriteParams params;
  params.max_rows_per_file = 7000;
  auto ds =
      testing::WriteTestDataset(fs, path, 7100, params);  // fragments: 0 (7000 rows), 1 (100 rows)
  ASSERT_EQ(ds->manifest().proto().fragments_size(), 2);
  std::vector<uint64_t> few = {3, 5, 5, 9};
  int64_t deleted = 0;
  ASSERT_OK_AND_ASSIGN(auto v2, ds->DeleteRows(few, &deleted));
  EXPECT_EQ(deleted, 3);
  const auto& f0 = v2->manifest().proto().fragments(0);
  EXPECT_EQ(f0.deletion_file().file_type(), pb::DeletionFile::ARROW_ARRAY);
  EXPECT_EQ(f0.deletion_file().num_deleted_rows(), 3u);
  EXPECT_EQ(v2->manifest().proto().reader_feature_flags(), 1u);
  ASSERT_OK_AND_ASSIGN(auto count, v2->CountRows());
  EXPECT_EQ(count, 7097);

  std::vector<uint64_t> many;
  for (uint64_t i = 1000; i < 7000; ++i) many.push_back(i);
  for (uint64_t i = 0; i < 100; ++i) many.push_back((uint64_t{1} << 32) | i);
  ASSERT_OK_AND_ASSIGN(auto v3, v2->DeleteRows(many, &deleted));
  EXPECT_EQ(deleted, 6100);
  ASSERT_EQ(v3->manifest().proto().fragments_size(), 1);
  const auto& g0 = v3->manifest().proto().fragments(0);
  EXPECT_EQ(g0.deletion_file().file_type(), pb::DeletionFile::BITMAP);
  EXPECT_EQ(g0.deletion_file().num_deleted_rows(), 6003u);
  EXPECT_EQ(v3->manifest().proto().max_fragment_id(), 1u);
  ASSERT_OK_AND_ASSIGN(auto txn, ReadTransaction(*fs, path, v3->manifest()));
  ASSERT_TRUE(txn.has_delete_());
  ASSERT_EQ(txn.delete_().deleted_fragment_ids_size(), 1);
  EXPECT_EQ(txn.delete_().deleted_fragment_ids(0), 1u);
  ASSERT_OK_AND_ASSIGN(count, v3->CountRows());
  EXPECT_EQ(count, 997);
  std::vector<int64_t> expected;
  for (int64_t i = 0; i < 1000; ++i) {
    if (i != 3 && i != 5 && i != 9) expected.push_back(i);
  }
  EXPECT_EQ(ScanIds(*v3), expected);
  auto bad = v3->DeleteRows({uint64_t{1} << 32}, &deleted);
  EXPECT_TRUE(bad.status().IsInvalidArgument()) << bad.status().ToString();
}

TEST(Dataset, LocalDiskRoundTripAndV1Naming) {
  testing::TempDir dir;
  auto fs = io::LocalFileSystem();
  std::string path = dir.path() + "/t.lance";
  auto ds = testing::WriteTestDataset(fs, path, 50);
  ASSERT_NE(ds, nullptr);
  // Rename to the V1 scheme: the next commit must keep it.
  ASSERT_OK(
      fs->WriteFile(path + "/_versions/1.manifest",
                    (*fs->ReadFile(path + "/_versions/18446744073709551614.manifest"))->span()));
  ASSERT_OK(fs->DeleteFile(path + "/_versions/18446744073709551614.manifest"));
  ASSERT_OK_AND_ASSIGN(auto v1, Dataset::Open(fs, path));
  auto more = TestReader(50, 50);
  ASSERT_OK_AND_ASSIGN(auto v2, v1->Append(more.get()));
  EXPECT_TRUE(fs->Exists(path + "/_versions/2.manifest").ValueOr(false));
  ASSERT_OK_AND_ASSIGN(auto reopened, Dataset::Open(fs, path));
  EXPECT_EQ(reopened->version(), 2u);
  EXPECT_EQ(ScanIds(*reopened), Range(0, 100));
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::table
