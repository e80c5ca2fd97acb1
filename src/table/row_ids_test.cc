// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "table/row_ids.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace lancedb::table {
namespace LANCEDB_TEST_FILE_NS {

template <typename T>
std::string Bytes(const std::vector<T>& v) {
  std::string out(v.size() * sizeof(T), '\0');
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

TEST(RowIds, EverySegmentKind) {
  pb::RowIdSequence seq;
  auto* range = seq.add_segments()->mutable_range();
  range->set_start(10);
  range->set_end(13);
  auto* holes = seq.add_segments()->mutable_range_with_holes();
  holes->set_start(100);
  holes->set_end(106);
  holes->mutable_holes()->mutable_u16_array()->set_base(100);
  holes->mutable_holes()->mutable_u16_array()->set_offsets(Bytes<uint16_t>({1, 4}));
  auto* bitmap = seq.add_segments()->mutable_range_with_bitmap();
  bitmap->set_start(200);
  bitmap->set_end(210);
  bitmap->set_bitmap(std::string("\x05\x02", 2));  // LSB-first: offsets 0, 2 and 9
  auto* sorted = seq.add_segments()->mutable_sorted_array()->mutable_u32_array();
  sorted->set_base(1000);
  sorted->set_offsets(Bytes<uint32_t>({0, 70000}));
  seq.add_segments()->mutable_array()->mutable_u64_array()->set_values(
      Bytes<uint64_t>({5, 3, uint64_t{1} << 40}));
  auto ids = DecodeRowIdSequence(seq.SerializeAsString(), 100);
  ASSERT_TRUE(ids.ok()) << ids.status().ToString();
  EXPECT_EQ(*ids, (std::vector<uint64_t>{10, 11, 12, 100, 102, 103, 105, 200, 202, 209, 1000, 71000,
                                         5, 3, uint64_t{1} << 40}));
}

TEST(RowIds, RejectsMalformedSequences) {
  pb::RowIdSequence huge;
  huge.add_segments()->mutable_range()->set_end(uint64_t{1} << 60);
  EXPECT_TRUE(DecodeRowIdSequence(huge.SerializeAsString(), 1000).status().IsCorruption());
  pb::RowIdSequence inverted;
  inverted.add_segments()->mutable_range()->set_start(5);
  EXPECT_TRUE(DecodeRowIdSequence(inverted.SerializeAsString(), 1000).status().IsCorruption());
  pb::RowIdSequence odd;
  odd.add_segments()->mutable_array()->mutable_u32_array()->set_offsets("abc");
  EXPECT_TRUE(DecodeRowIdSequence(odd.SerializeAsString(), 1000).status().IsCorruption());
  pb::RowIdSequence short_bitmap;
  short_bitmap.add_segments()->mutable_range_with_bitmap()->set_end(20);
  EXPECT_TRUE(DecodeRowIdSequence(short_bitmap.SerializeAsString(), 1000).status().IsCorruption());
  pb::RowIdSequence stray_hole;
  auto* h = stray_hole.add_segments()->mutable_range_with_holes();
  h->set_start(0);
  h->set_end(4);
  h->mutable_holes()->mutable_u64_array()->set_values(Bytes<uint64_t>({9}));
  EXPECT_TRUE(DecodeRowIdSequence(stray_hole.SerializeAsString(), 1000).status().IsCorruption());
  EXPECT_TRUE(DecodeRowIdSequence("\xff\xff", 10).status().IsCorruption());
}

TEST(RowIds, VersionRunsArePositional) {
  pb::RowDatasetVersionSequence seq;
  auto* a = seq.add_runs();
  a->mutable_span()->mutable_range()->set_start(0);
  a->mutable_span()->mutable_range()->set_end(3);
  a->set_version(1);
  auto* b = seq.add_runs();
  b->mutable_span()->mutable_range()->set_start(3);
  b->mutable_span()->mutable_range()->set_end(5);
  b->set_version(4);
  auto versions = DecodeVersionSequence(seq.SerializeAsString(), 10);
  ASSERT_TRUE(versions.ok());
  EXPECT_EQ(*versions, (std::vector<uint64_t>{1, 1, 1, 4, 4}));
  EXPECT_TRUE(DecodeVersionSequence(seq.SerializeAsString(), 4).status().IsCorruption());
}

TEST(RowIds, FragmentSequenceMustCoverPhysicalRows) {
  auto fs = io::MemoryFileSystem();
  pb::DataFragment frag;
  frag.set_physical_rows(3);
  EXPECT_TRUE(FragmentRowIds(*fs, "t", frag).status().IsCorruption());  // missing
  pb::RowIdSequence seq;
  seq.add_segments()->mutable_range()->set_end(2);
  frag.set_inline_row_ids(seq.SerializeAsString());
  EXPECT_TRUE(FragmentRowIds(*fs, "t", frag).status().IsCorruption());  // 2 ids for 3 rows
  seq.mutable_segments(0)->mutable_range()->set_end(3);
  ASSERT_TRUE(fs->WriteFile("t/ids.bin", "xx" + seq.SerializeAsString()).ok());
  frag.mutable_external_row_ids()->set_path("ids.bin");
  frag.mutable_external_row_ids()->set_offset(2);
  frag.mutable_external_row_ids()->set_size(seq.ByteSizeLong());
  auto ids = FragmentRowIds(*fs, "t", frag);
  ASSERT_TRUE(ids.ok()) << ids.status().ToString();
  EXPECT_EQ(*ids, (std::vector<uint64_t>{0, 1, 2}));
  auto versions = FragmentRowVersions(*fs, "t", frag, /*created=*/true);
  ASSERT_TRUE(versions.ok());
  EXPECT_TRUE(versions->empty());
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::table
