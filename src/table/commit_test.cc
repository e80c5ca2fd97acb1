// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "table/commit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <thread>

#include "table/table_test_util.h"

namespace lancedb::table {
namespace LANCEDB_TEST_FILE_NS {

using testing::MemPath;
using testing::ScanIds;
using testing::TestReader;

/// Commit `proto` (+ indices) as the next version by hand, as another writer would.
void CommitRaw(const io::FileSystemPtr& fs, const std::string& path, pb::Manifest proto,
               pb::IndexSection indices, const pb::Transaction& txn) {
  auto m = Manifest::Make(std::move(proto), std::move(indices));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_OK(
      fs->PutIfAbsent(path + "/_versions/" + ManifestFileName((*m)->version(), ManifestNaming::kV2),
                      std::string_view((*m)->Serialize(&txn))));
}

TEST(Commit, AppendRebasesOverConcurrentAppend) {
  auto fs = io::MemoryFileSystem();
  std::string path = MemPath("aa");
  auto v1 = testing::WriteTestDataset(fs, path, 10);
  auto a = TestReader(10, 10);
  ASSERT_OK_AND_ASSIGN(auto v2, v1->Append(a.get()));
  auto b = TestReader(20, 10);
  ASSERT_OK_AND_ASSIGN(auto v3, v1->Append(b.get()));  // stale snapshot: conflict, rebase
  EXPECT_EQ(v3->version(), 3u);
  const auto& frags = v3->manifest().proto().fragments();
  ASSERT_EQ(frags.size(), 3);
  EXPECT_EQ(frags[2].id(), 2u);
  auto ids = ScanIds(*v3);
  std::sort(ids.begin(), ids.end());
  ASSERT_EQ(ids.size(), 30u);
  EXPECT_EQ(ids.back(), 29);
}

TEST(Commit, DeleteOverDeleteMergesDeletionVectors) {
  auto fs = io::MemoryFileSystem();
  std::string path = MemPath("dd");
  auto v1 = testing::WriteTestDataset(fs, path, 100);
  int64_t n = 0;
  ASSERT_OK_AND_ASSIGN(auto v2, v1->DeleteRows({1, 2, 3}, &n));
  ASSERT_OK_AND_ASSIGN(auto v3, v1->DeleteRows({4, 5}, &n));  // same fragment, stale snapshot
  EXPECT_EQ(v3->version(), 3u);
  EXPECT_EQ(n, 2);
  ASSERT_OK_AND_ASSIGN(auto count, v3->CountRows());
  EXPECT_EQ(count, 95);
  EXPECT_EQ(v3->manifest().proto().fragments(0).deletion_file().num_deleted_rows(), 5u);
}

TEST(Commit, DeleteOfARowAConcurrentDeleteRemovedIsRetryable) {
  auto fs = io::MemoryFileSystem();
  std::string path = MemPath("dd2");
  auto v1 = testing::WriteTestDataset(fs, path, 100);
  int64_t n = 0;
  ASSERT_OK_AND_ASSIGN(auto v2, v1->DeleteRows({1, 2, 3}, &n));
  auto r = v1->DeleteRows({3, 4}, &n);  // row 3 is gone: the delete must be evaluated again
  ASSERT_TRUE(r.status().IsCommitConflict() && r.status().IsRetryable()) << r.status().ToString();
  ASSERT_OK_AND_ASSIGN(auto latest, v1->LatestVersion());
  EXPECT_EQ(latest, 2u);
  ASSERT_OK_AND_ASSIGN(auto files, fs->ListDir(path + "/_deletions"));
  EXPECT_EQ(files.size(), 1u);  // the failed attempt's deletion file was removed
}

TEST(Commit, DeleteOverDeleteOfOtherFragmentsAndOverUpdate) {
  auto fs = io::MemoryFileSystem();
  std::string path = MemPath("du");
  auto v1 = testing::WriteTestDataset(fs, path, 10);
  auto a = TestReader(10, 10);
  ASSERT_OK_AND_ASSIGN(auto v2, v1->Append(a.get()));  // fragments 0 and 1
  int64_t n = 0;
  ASSERT_OK_AND_ASSIGN(auto v3, v2->DeleteRows({0}, &n));
  ASSERT_OK_AND_ASSIGN(auto v4, v2->DeleteRows({uint64_t{1} << 32}, &n));
  EXPECT_EQ(v4->version(), 4u);
  ASSERT_OK_AND_ASSIGN(auto count, v4->CountRows());
  EXPECT_EQ(count, 18);
  // Another writer updates every row of fragment 1 (moving them elsewhere, removing the
  // fragment): a stale delete on fragment 1 cannot be rebased, one on fragment 0 can.
  pb::Manifest m = v4->manifest().proto();
  m.set_version(5);
  m.mutable_fragments()->RemoveLast();
  pb::Transaction update;
  update.set_read_version(4);
  update.mutable_update()->add_removed_fragment_ids(1);
  CommitRaw(fs, path, m, v4->manifest().index_section(), update);
  auto conflict = v4->DeleteRows({(uint64_t{1} << 32) | 5}, &n);
  ASSERT_TRUE(conflict.status().IsCommitConflict()) << conflict.status().ToString();
  EXPECT_TRUE(conflict.status().IsRetryable());
  EXPECT_NE(conflict.status().message().find("Update"), std::string::npos);
  ASSERT_OK_AND_ASSIGN(auto v6, v4->DeleteRows({5}, &n));
  EXPECT_EQ(v6->version(), 6u);
  ASSERT_OK_AND_ASSIGN(auto count6, v6->CountRows());
  EXPECT_EQ(count6, 8);
}

TEST(Commit, RestoreOverConcurrentAppend) {
  auto fs = io::MemoryFileSystem();
  std::string path = MemPath("ra");
  auto v1 = testing::WriteTestDataset(fs, path, 10);
  auto a = TestReader(10, 10);
  ASSERT_OK_AND_ASSIGN(auto v2, v1->Append(a.get()));
  ASSERT_OK_AND_ASSIGN(auto v3, v1->Restore());
  EXPECT_EQ(v3->version(), 3u);
  ASSERT_OK_AND_ASSIGN(auto count, v3->CountRows());
  EXPECT_EQ(count, 10);
  ASSERT_OK_AND_ASSIGN(auto txn, ReadTransaction(*fs, path, v3->manifest()));
  ASSERT_TRUE(txn.has_restore());
  EXPECT_EQ(txn.restore().version(), 1u);
  // An append prepared on v2 conflicts with the restore.
  auto b = TestReader(20, 5);
  EXPECT_TRUE(v2->Append(b.get()).status().IsCommitConflict());
}

TEST(Commit, DeleteOverAppendAndAppendOverDelete) {
  auto fs = io::MemoryFileSystem();
  std::string path = MemPath("da");
  auto v1 = testing::WriteTestDataset(fs, path, 100);
  auto a = TestReader(100, 50);
  ASSERT_OK_AND_ASSIGN(auto v2, v1->Append(a.get()));
  int64_t n = 0;
  ASSERT_OK_AND_ASSIGN(auto v3, v1->DeleteRows({0, 1}, &n));
  EXPECT_EQ(v3->version(), 3u);
  ASSERT_OK_AND_ASSIGN(auto count, v3->CountRows());
  EXPECT_EQ(count, 148);
  auto b = TestReader(150, 10);
  ASSERT_OK_AND_ASSIGN(auto v4, v2->Append(b.get()));  // stale: rebase over the delete
  ASSERT_OK_AND_ASSIGN(count, v4->CountRows());
  EXPECT_EQ(count, 158);
  EXPECT_EQ(v4->manifest().proto().fragments(2).id(), 2u);
}

TEST(Commit, AppendOverOverwriteIsCommitConflict) {
  auto fs = io::MemoryFileSystem();
  std::string path = MemPath("ao");
  auto v1 = testing::WriteTestDataset(fs, path, 10);
  auto o = TestReader(0, 5);
  ASSERT_OK_AND_ASSIGN(auto v2, v1->Overwrite(o.get()));
  auto a = TestReader(10, 10);
  auto r = v1->Append(a.get());
  ASSERT_TRUE(r.status().IsCommitConflict()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("Overwrite"), std::string::npos);
  ASSERT_OK_AND_ASSIGN(auto latest, v1->LatestVersion());
  EXPECT_EQ(latest, 2u);
  // The failed append's data files were removed.
  ASSERT_OK_AND_ASSIGN(auto files, fs->ListDir(path + "/data"));
  EXPECT_EQ(files.size(), 2u);
  ASSERT_OK_AND_ASSIGN(auto txns, fs->ListDir(path + "/_transactions"));
  EXPECT_EQ(txns.size(), 2u);
  int64_t n = 0;
  auto d = v1->DeleteRows({0}, &n);
  EXPECT_TRUE(d.status().IsCommitConflict()) << d.status().ToString();
}

/// 8 threads each open the latest version and append 10 rows through the same path.
void AppendFromEightThreads(const io::FileSystemPtr& fs, const std::string& path) {
  ASSERT_NE(testing::WriteTestDataset(fs, path, 10), nullptr);
  constexpr int kThreads = 8;
  std::vector<std::thread> threads;
  std::vector<Status> results(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto ds = Dataset::Open(fs, path);
      if (!ds.ok()) {
        results[t] = ds.status();
        return;
      }
      auto reader = TestReader(1000 * (t + 1), 10);
      auto r = (*ds)->Append(reader.get());
      results[t] = r.status();
    });
  }
  for (auto& th : threads) th.join();
  for (const auto& st : results) EXPECT_TRUE(st.ok()) << st.ToString();
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(fs, path));
  EXPECT_EQ(ds->version(), 9u);
  ASSERT_OK_AND_ASSIGN(auto versions, ds->ListVersions());
  ASSERT_EQ(versions.size(), 9u);
  for (size_t i = 0; i < versions.size(); ++i) EXPECT_EQ(versions[i].version, i + 1);
  auto ids = ScanIds(*ds);
  EXPECT_EQ(ids.size(), 90u);
  std::set<int64_t> unique(ids.begin(), ids.end());
  EXPECT_EQ(unique.size(), 90u);
  std::set<uint64_t> frag_ids;
  for (const auto& f : ds->manifest().proto().fragments()) frag_ids.insert(f.id());
  EXPECT_EQ(frag_ids.size(), 9u);
  EXPECT_EQ(ds->manifest().proto().max_fragment_id(), 8u);
}

TEST(Commit, ConcurrentAppendsFromEightThreads) {
  AppendFromEightThreads(io::MemoryFileSystem(), MemPath("threads"));
}

TEST(Commit, ConcurrentAppendsFromEightThreadsOnLocalDisk) {
  testing::TempDir dir;
  AppendFromEightThreads(io::LocalFileSystem(), dir.path() + "/threads.lance");
}

TEST(Commit, UnknownIndexCarriedForwardAcrossAppend) {
  auto fs = io::MemoryFileSystem();
  std::string path = MemPath("index");
  auto v1 = testing::WriteTestDataset(fs, path, 10);
  pb::IndexSection indices;
  auto* index = indices.add_indices();
  index->mutable_uuid()->set_uuid(std::string(16, '\x42'));
  index->add_fields(0);
  index->set_name("mystery_idx");
  index->set_dataset_version(1);
  index->mutable_index_details()->set_type_url("/acme.MysteryIndexDetails");
  index->mutable_index_details()->set_value(std::string("\x08\x96\x01", 3));
  // An IndexMetadata field this library does not know (field 99, varint 42).
  std::string raw = index->SerializeAsString() + std::string("\x98\x06\x2a", 3);
  ASSERT_TRUE(index->ParseFromString(raw));
  pb::Manifest m = v1->manifest().proto();
  m.set_version(2);
  pb::Transaction txn;
  txn.set_read_version(1);
  txn.set_uuid("index-txn");
  *txn.mutable_create_index()->add_new_indices() = *index;
  CommitRaw(fs, path, m, indices, txn);

  ASSERT_OK_AND_ASSIGN(auto v2, Dataset::Open(fs, path));
  auto a = TestReader(10, 10);
  ASSERT_OK_AND_ASSIGN(auto v3, v2->Append(a.get()));
  int64_t n = 0;
  ASSERT_OK_AND_ASSIGN(auto v4, v3->DeleteRows({0}, &n));
  ASSERT_OK_AND_ASSIGN(auto reopened, Dataset::Open(fs, path));
  EXPECT_EQ(reopened->version(), 4u);
  ASSERT_EQ(reopened->manifest().index_section().indices_size(), 1);
  EXPECT_EQ(reopened->manifest().index_section().indices(0).SerializeAsString(), raw);
}

TEST(Commit, UnknownReaderFlagOnOpenIsNotSupported) {
  auto fs = io::MemoryFileSystem();
  std::string path = MemPath("flags");
  auto v1 = testing::WriteTestDataset(fs, path, 10);
  pb::Manifest m = v1->manifest().proto();
  m.set_version(2);
  m.set_reader_feature_flags(uint64_t{1} << 20);
  pb::Transaction txn;
  txn.mutable_append();
  CommitRaw(fs, path, m, {}, txn);
  auto r = Dataset::Open(fs, path);
  ASSERT_TRUE(r.status().IsNotSupported()) << r.status().ToString();
  ASSERT_OK_AND_ASSIGN(auto old, Dataset::Open(fs, path, 1));
  EXPECT_EQ(old->version(), 1u);
}

TEST(Commit, CorruptedManifestOnOpenIsCorruption) {
  auto fs = io::MemoryFileSystem();
  std::string path = MemPath("corrupt");
  ASSERT_NE(testing::WriteTestDataset(fs, path, 10), nullptr);
  std::string file = path + "/_versions/" + ManifestFileName(1, ManifestNaming::kV2);
  ASSERT_OK_AND_ASSIGN(auto bytes, fs->ReadFile(file));
  std::string truncated(bytes->view().substr(0, bytes->size() - 5));
  ASSERT_OK(fs->WriteFile(file, std::string_view(truncated)));
  auto r = Dataset::Open(fs, path);
  ASSERT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  ASSERT_OK(fs->WriteFile(file, std::string_view("")));
  EXPECT_TRUE(Dataset::Open(fs, path).status().IsCorruption());
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::table
