// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Tests of the typed join keys of merge_insert: every key kind matches exactly the equal keys
// (on sliced arrays too), NULL parts never match, duplicates are reported.

#include "db/merge_keys.h"

#include <gtest/gtest.h>

#include "array/builder.h"

namespace lancedb::db {
namespace LANCEDB_TEST_FILE_NS {

namespace la = lancedb::array;

/// For each row of `probe`: the row of `build` with the same key, or -1.
std::vector<int64_t> Join(const std::vector<la::ArrayPtr>& build,
                          const std::vector<la::ArrayPtr>& probe) {
  std::vector<int64_t> unkeyed;
  int64_t duplicate = -1;
  KeyIndex index(KeyColumns(build, build[0]->length), &unkeyed, &duplicate);
  EXPECT_EQ(duplicate, -1);
  KeyColumns keys(probe, probe[0]->length);
  std::vector<uint64_t> hashes;
  std::vector<uint8_t> valid;
  keys.Hash(&hashes, &valid);
  std::vector<int64_t> out;
  for (int64_t r = 0; r < keys.num_rows(); ++r) {
    const auto i = static_cast<size_t>(r);
    out.push_back(valid[i] ? index.Find(keys, r, hashes[i]) : -1);
  }
  std::vector<int64_t> probed;  // the batch probe (with its integer fast path) agrees
  index.Probe(keys, &probed);
  EXPECT_EQ(probed, out);
  return out;
}

TEST(KeyIndex, MatchesInt64Keys) {
  std::vector<int64_t> build, probe;
  for (int64_t i = 0; i < 1000; ++i) build.push_back(i * 7);
  for (int64_t i = 0; i < 50; ++i) probe.push_back(i);
  auto found =
      Join({la::MakePrimitive(la::int64(), build)}, {la::MakePrimitive(la::int64(), probe)});
  for (int64_t i = 0; i < 50; ++i) {
    EXPECT_EQ(found[static_cast<size_t>(i)], i % 7 == 0 ? i / 7 : -1) << i;
  }
}

TEST(KeyIndex, MatchesNegativeAndNullInt64KeysInAndOutOfRange) {
  auto build =
      la::MakePrimitive(la::int64(), std::vector<int64_t>{-5, 0, -3, 9}, {true, false, true, true});
  auto probe =
      la::Slice(la::MakePrimitive(la::int64(), std::vector<int64_t>{7, -5, -6, 0, 9, 10, -3},
                                  {true, true, true, false, true, true, true}),
                1, 6);
  EXPECT_EQ(Join({build}, {probe}), (std::vector<int64_t>{0, -1, -1, 3, -1, 2}));
  auto stamps =
      la::MakePrimitive(la::timestamp(la::TimeUnit::kMicro), std::vector<int64_t>{100, 200});
  auto stamp_probe =
      la::MakePrimitive(la::timestamp(la::TimeUnit::kMicro), std::vector<int64_t>{200, 150});
  EXPECT_EQ(Join({stamps}, {stamp_probe}), (std::vector<int64_t>{1, -1}));
}

TEST(KeyIndex, MatchesNarrowFixedWidthAndBoolKeys) {
  auto build = {la::MakePrimitive(la::int8(), std::vector<int8_t>{1, 2, 3}),
                la::MakeBool({true, false, true})};
  auto probe = {la::MakePrimitive(la::int8(), std::vector<int8_t>{3, 3, 2, 1}),
                la::MakeBool({true, false, false, false})};
  EXPECT_EQ(Join(build, probe), (std::vector<int64_t>{2, -1, 1, -1}));
}

TEST(KeyIndex, MatchesStringsAcrossOffsetWidthsAndSlices) {
  auto build = la::MakeString({"a", "bb", "", "ccc", "zz"});
  auto probe = la::Slice(la::MakeString({"skip", "ccc", "", "b", "a"}), 1, 4);
  EXPECT_EQ(Join({build}, {probe}), (std::vector<int64_t>{3, 2, -1, 0}));
  auto large = la::MakeBinaryLike(la::large_utf8(), {"x", "a"});
  auto large_probe = la::MakeBinaryLike(la::large_utf8(), {"a", "y"});
  EXPECT_EQ(Join({large}, {large_probe}), (std::vector<int64_t>{1, -1}));
}

TEST(KeyIndex, MatchesCompositeKeysOnEveryPart) {
  auto build = {la::MakePrimitive(la::int64(), std::vector<int64_t>{1, 1, 2}),
                la::MakeString({"a", "b", "a"})};
  auto probe = {la::MakePrimitive(la::int64(), std::vector<int64_t>{1, 2, 2, 1}),
                la::MakeString({"b", "b", "a", "a"})};
  EXPECT_EQ(Join(build, probe), (std::vector<int64_t>{1, -1, 2, 0}));
}

TEST(KeyIndex, NullKeyPartsNeverMatch) {
  std::vector<int64_t> unkeyed;
  int64_t duplicate = -1;
  auto ids = la::MakePrimitive(la::int64(), std::vector<int64_t>{1, 0, 0}, {true, false, false});
  KeyIndex index(KeyColumns({ids}, 3), &unkeyed, &duplicate);
  EXPECT_EQ(duplicate, -1);  // two NULL keys are not duplicates
  EXPECT_EQ(unkeyed, (std::vector<int64_t>{1, 2}));
  auto probe = la::MakePrimitive(la::int64(), std::vector<int64_t>{0, 1}, {false, true});
  EXPECT_EQ(Join({ids}, {probe}), (std::vector<int64_t>{-1, 0}));
}

TEST(KeyIndex, ReportsTheFirstDuplicate) {
  std::vector<int64_t> unkeyed;
  int64_t duplicate = -1;
  KeyIndex index(KeyColumns({la::MakeString({"a", "b", "c", "b", "a"})}, 5), &unkeyed, &duplicate);
  EXPECT_EQ(duplicate, 3);
}

TEST(KeyIndex, MatchesFixedSizeBinaryAndNestedKeys) {
  auto build = la::MakeFixedSizeBinary(3, {"abc", "abd"});
  auto probe = la::MakeFixedSizeBinary(3, {"abd", "abe"});
  EXPECT_EQ(Join({build}, {probe}), (std::vector<int64_t>{1, -1}));
  auto list_type = la::list(la::int32());
  auto lists = la::MakeList(list_type, {0, 1, 3},
                            la::MakePrimitive(la::int32(), std::vector<int32_t>{1, 1, 2}));
  auto probe_lists = la::MakeList(list_type, {0, 2, 3},
                                  la::MakePrimitive(la::int32(), std::vector<int32_t>{1, 2, 1}));
  EXPECT_EQ(Join({lists}, {probe_lists}), (std::vector<int64_t>{1, 0}));
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::db
