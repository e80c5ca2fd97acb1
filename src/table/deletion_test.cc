// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "table/deletion.h"

#include <gtest/gtest.h>

#include "table/table_test_util.h"

namespace lancedb::table {
namespace LANCEDB_TEST_FILE_NS {

using testing::FixturesDir;

TEST(Deletion, ArrowRoundTrip) {
  std::vector<uint32_t> offsets = {0, 3, 17, 4999};
  ASSERT_OK_AND_ASSIGN(auto bytes, EncodeArrowDeletions(offsets));
  EXPECT_EQ(bytes->view().substr(0, 6), "ARROW1");
  ASSERT_OK_AND_ASSIGN(auto decoded, DecodeArrowDeletions(bytes));
  EXPECT_EQ(decoded, offsets);
}

TEST(Deletion, BitmapRoundTrip) {
  std::vector<uint32_t> offsets;
  for (uint32_t i = 1000; i < 7500; ++i) offsets.push_back(i);
  offsets.push_back(100000);
  std::string bytes = EncodeBitmapDeletions(offsets);
  ASSERT_OK_AND_ASSIGN(auto decoded, DecodeBitmapDeletions(*Buffer::Copy(bytes)));
  EXPECT_EQ(decoded, offsets);
}

TEST(Deletion, GarbageIsCorruption) {
  auto junk = Buffer::Copy(std::string_view("not a deletion file at all"));
  EXPECT_TRUE(DecodeArrowDeletions(junk).status().IsCorruption());
  EXPECT_TRUE(DecodeBitmapDeletions(*junk).status().IsCorruption());
}

TEST(Deletion, WriteChoosesFileTypeBySize) {
  auto fs = io::MemoryFileSystem();
  std::string root = testing::MemPath("del");
  std::vector<uint32_t> few = {1, 2, 3};
  ASSERT_OK_AND_ASSIGN(auto small, WriteDeletions(*fs, root, 4, 7, few));
  EXPECT_EQ(small.file_type(), pb::DeletionFile::ARROW_ARRAY);
  EXPECT_EQ(small.num_deleted_rows(), 3u);
  EXPECT_EQ(small.read_version(), 7u);
  std::string name = DeletionFileName(4, small);
  EXPECT_TRUE(name.starts_with("4-7-")) << name;
  EXPECT_TRUE(name.ends_with(".arrow")) << name;

  std::vector<uint32_t> many;
  for (uint32_t i = 0; i < 5001; ++i) many.push_back(i * 2);
  ASSERT_OK_AND_ASSIGN(auto big, WriteDeletions(*fs, root, 4, 7, many));
  EXPECT_EQ(big.file_type(), pb::DeletionFile::BITMAP);
  EXPECT_TRUE(DeletionFileName(4, big).ends_with(".bin"));

  pb::Manifest manifest;
  pb::DataFragment frag;
  frag.set_id(4);
  *frag.mutable_deletion_file() = big;
  ASSERT_OK_AND_ASSIGN(auto read, ReadDeletions(*fs, root, manifest, frag));
  EXPECT_EQ(read, many);
  *frag.mutable_deletion_file() = small;
  ASSERT_OK_AND_ASSIGN(read, ReadDeletions(*fs, root, manifest, frag));
  EXPECT_EQ(read, few);
}

TEST(Deletion, UnionIsSortedAndUnique) {
  EXPECT_EQ(UnionOffsets({1, 5, 9}, {2, 5, 10}), (std::vector<uint32_t>{1, 2, 5, 9, 10}));
}

TEST(Deletion, ReadsFixtureFiles) {
  LANCEDB_REQUIRE_FIXTURES();
  auto fs = io::LocalFileSystem();
  // dense_del: one roaring bitmap deleting ids 1000..7499 of a 12000-row fragment.
  {
    std::string root = FixturesDir() + "/dense_del.lance";
    ASSERT_OK_AND_ASSIGN(auto m, ReadManifest(*fs, root, 2, ManifestNaming::kV2));
    const auto& frag = m->proto().fragments(0);
    ASSERT_TRUE(frag.has_deletion_file());
    EXPECT_EQ(frag.deletion_file().file_type(), pb::DeletionFile::BITMAP);
    ASSERT_OK_AND_ASSIGN(auto offsets, ReadDeletions(*fs, root, m->proto(), frag));
    ASSERT_EQ(offsets.size(), 6500u);
    EXPECT_EQ(offsets.front(), 1000u);
    EXPECT_EQ(offsets.back(), 7499u);
  }
  // ops: zstd-compressed Arrow IPC deletion files whose counts match the manifest.
  {
    std::string root = FixturesDir() + "/ops.lance";
    ASSERT_OK_AND_ASSIGN(auto m, ReadManifest(*fs, root, 11, ManifestNaming::kV2));
    int arrow_files = 0;
    for (const auto& frag : m->proto().fragments()) {
      if (!frag.has_deletion_file()) continue;
      ASSERT_OK_AND_ASSIGN(auto offsets, ReadDeletions(*fs, root, m->proto(), frag));
      EXPECT_EQ(offsets.size(), frag.deletion_file().num_deleted_rows());
      if (frag.deletion_file().file_type() == pb::DeletionFile::ARROW_ARRAY) ++arrow_files;
    }
    EXPECT_GT(arrow_files, 0);
  }
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::table
