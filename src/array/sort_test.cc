// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The expected orders are those LanceDB 0.39 returns for `order_by` on the same values.

#include "array/sort.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <string>

#include "array/builder.h"

namespace lancedb::array {
namespace LANCEDB_TEST_FILE_NS {

std::vector<int64_t> Sorted(const ArrayPtr& values, bool ascending, bool nulls_first,
                            int64_t limit = -1) {
  auto order = SortIndices({{values, ascending, nulls_first}}, limit);
  EXPECT_TRUE(order.ok()) << order.status().ToString();
  return order.ok() ? *order : std::vector<int64_t>{};
}

using V = std::vector<int64_t>;

TEST(SortIndices, IntegersPlaceNullsAsAskedInEitherDirection) {
  // a = [3, 1, null, 2, 5]
  auto a = MakePrimitive<int64_t>(int64(), {3, 1, 0, 2, 5}, {true, true, false, true, true});
  EXPECT_EQ(Sorted(a, true, false), (V{1, 3, 0, 4, 2}));
  EXPECT_EQ(Sorted(a, true, true), (V{2, 1, 3, 0, 4}));
  EXPECT_EQ(Sorted(a, false, false), (V{4, 0, 3, 1, 2}));
  EXPECT_EQ(Sorted(a, false, true), (V{2, 4, 0, 3, 1}));
}

TEST(SortIndices, TiesKeepTheirPositionInBothDirections) {
  auto a = MakePrimitive<int32_t>(int32(), {1, 0, 1, 0, 1});
  EXPECT_EQ(Sorted(a, true, false), (V{1, 3, 0, 2, 4}));
  EXPECT_EQ(Sorted(a, false, false), (V{0, 2, 4, 1, 3}));
}

TEST(SortIndices, FloatsFollowTotalOrder) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  // f = [1.5, NaN, null, -0.0, 0.0, -inf]
  auto f = MakePrimitive<double>(float64(), {1.5, nan, 0, -0.0, 0.0, -inf},
                                 {true, true, false, true, true, true});
  EXPECT_EQ(Sorted(f, true, false), (V{5, 3, 4, 0, 1, 2}));
  EXPECT_EQ(Sorted(f, false, false), (V{1, 0, 4, 3, 5, 2}));
  auto g = MakePrimitive<float>(float32(), {2.0f, -std::nanf(""), -1.0f, std::nanf("")});
  EXPECT_EQ(Sorted(g, true, false), (V{1, 2, 0, 3}));
}

TEST(SortIndices, StringsCompareBytes) {
  // s = ["c", "a", null, "B", "é", "a"]
  auto s = MakeString({"c", "a", std::nullopt, "B", "\xC3\xA9", "a"});
  EXPECT_EQ(Sorted(s, true, false), (V{3, 1, 5, 0, 4, 2}));
  EXPECT_EQ(Sorted(s, false, false), (V{4, 0, 1, 5, 3, 2}));
  auto b = MakeBinaryLike(large_binary(), {"b", "a", std::nullopt, "c", "", "ab"});
  EXPECT_EQ(Sorted(b, true, false), (V{4, 1, 5, 0, 3, 2}));
}

TEST(SortIndices, BooleansPutFalseFirst) {
  // b = [true, null, false, true, false, true]
  auto b = MakeBool({true, false, false, true, false, true}, {true, false, true, true, true, true});
  EXPECT_EQ(Sorted(b, true, false), (V{2, 4, 0, 3, 5, 1}));
  EXPECT_EQ(Sorted(b, false, false), (V{0, 3, 5, 2, 4, 1}));
}

TEST(SortIndices, DatesAndTimestampsByValue) {
  auto d = MakePrimitive<int32_t>(date32(), {18264, 0, 17897, 18752, 18264, -3653},
                                  {true, false, true, true, true, true});
  EXPECT_EQ(Sorted(d, true, false), (V{5, 2, 0, 4, 3, 1}));
  EXPECT_EQ(Sorted(d, false, false), (V{3, 0, 4, 2, 5, 1}));
  auto ts = MakePrimitive<int64_t>(timestamp(TimeUnit::kMicro), {5, -7, 3});
  EXPECT_EQ(Sorted(ts, true, false), (V{1, 2, 0}));
}

TEST(SortIndices, DecimalsAreSigned128BitValues) {
  // 1, -1, 2^64, 0
  std::vector<uint64_t> words = {1, 0, ~uint64_t{0}, ~uint64_t{0}, 0, 1, 0, 0};
  auto dec = ArrayData::Make(decimal128(38, 0), 4, {nullptr, Buffer::FromVector(words)});
  EXPECT_EQ(Sorted(dec, true, false), (V{1, 3, 0, 2}));
}

ArrayPtr Lists() {
  // l = [[1, null], [1], null, [1, 2], [null], []]
  auto items =
      MakePrimitive<int64_t>(int64(), {1, 0, 1, 1, 2, 0}, {true, false, true, true, true, false});
  return MakeList(list(int64()), {0, 2, 3, 3, 5, 6, 6}, items,
                  {true, true, false, true, true, true});
}

TEST(SortIndices, ListsCompareItemsWithTheKeysOrder) {
  auto l = Lists();
  EXPECT_EQ(Sorted(l, true, false), (V{5, 1, 3, 0, 4, 2}));
  EXPECT_EQ(Sorted(l, true, true), (V{2, 5, 4, 1, 0, 3}));
  EXPECT_EQ(Sorted(l, false, false), (V{3, 0, 1, 4, 5, 2}));
  EXPECT_EQ(Sorted(l, false, true), (V{2, 4, 0, 3, 1, 5}));
}

TEST(SortIndices, FixedSizeListsCompareItems) {
  auto items = MakePrimitive<float>(float32(), {2, 0, 1, 5, 1, 4});
  auto v = MakeFixedSizeList(fixed_size_list(float32(), 2), items);
  EXPECT_EQ(Sorted(v, true, false), (V{2, 1, 0}));
}

TEST(SortIndices, StructsCompareMembersInOrder) {
  // st = [{1, null}, {null, "a"}, {2, "b"}, null, {null, null}, {1, "a"}]
  auto st = struct_({field("x", int64()), field("y", utf8())});
  auto x =
      MakePrimitive<int64_t>(int64(), {1, 0, 2, 0, 0, 1}, {true, false, true, false, false, true});
  auto y = MakeString({std::nullopt, "a", "b", std::nullopt, std::nullopt, "a"});
  auto s = MakeStruct(st, {x, y}, {true, true, true, false, true, true});
  EXPECT_EQ(Sorted(s, true, false), (V{5, 0, 2, 1, 4, 3}));
  EXPECT_EQ(Sorted(s, true, true), (V{3, 4, 1, 0, 5, 2}));
  EXPECT_EQ(Sorted(s, false, false), (V{2, 5, 0, 1, 4, 3}));
  EXPECT_EQ(Sorted(s, false, true), (V{3, 4, 1, 2, 0, 5}));
}

TEST(SortIndices, LaterKeysBreakTies) {
  // a = [3, 1, null, 2, 5, 1], s = ["c", "a", null, "B", "é", "a"]: a asc, then s desc.
  auto a =
      MakePrimitive<int64_t>(int64(), {3, 1, 0, 2, 5, 1}, {true, true, false, true, true, true});
  auto s = MakeString({"c", "z", std::nullopt, "B", "\xC3\xA9", "b"});
  auto order = SortIndices({{a, true, false}, {s, false, false}});
  ASSERT_TRUE(order.ok());
  EXPECT_EQ(*order, (V{1, 5, 3, 0, 4, 2}));
}

TEST(SortIndices, TopKIsThePrefixOfTheFullOrder) {
  std::vector<int32_t> values;
  for (int i = 0; i < 1000; ++i) values.push_back((i * 7919) % 101);
  auto a = MakePrimitive<int32_t>(int32(), values);
  const auto full = Sorted(a, false, false);
  const auto top = Sorted(a, false, false, 37);
  ASSERT_EQ(top.size(), 37u);
  EXPECT_EQ(top, V(full.begin(), full.begin() + 37));
  EXPECT_EQ(Sorted(a, true, false, 5000).size(), 1000u);
  EXPECT_TRUE(Sorted(a, true, false, 0).empty());
}

TEST(SortIndices, HonoursArrayOffsets) {
  auto a = MakePrimitive<int64_t>(int64(), {9, 3, 1, 0, 2}, {true, true, true, false, true});
  auto sliced = Slice(a, 1, 4);  // [3, 1, null, 2]
  EXPECT_EQ(Sorted(sliced, true, false), (V{1, 3, 0, 2}));
  auto l = Slice(Lists(), 3, 3);  // [[1, 2], [null], []]
  EXPECT_EQ(Sorted(l, true, false), (V{2, 0, 1}));
}

TEST(SortIndices, LongCommonPrefixesAreSettledByTheFullValue) {
  auto s = MakeString({"abcdefgh2", "abcdefgh1", "abcdefgh", "abcdefgi", "abcdefgh\x01"});
  EXPECT_EQ(Sorted(s, true, false), (V{2, 4, 1, 0, 3}));
  EXPECT_EQ(Sorted(s, false, false), (V{3, 0, 1, 4, 2}));
}

TEST(SortIndices, EqualsAStableSortOfRandomKeys) {
  std::mt19937_64 rng(7);
  const int n = 3000;
  std::vector<int64_t> ints;
  std::vector<bool> int_valid;
  std::vector<std::optional<std::string>> strings;
  for (int i = 0; i < n; ++i) {
    ints.push_back(static_cast<int64_t>(rng() % 41) - 20);
    int_valid.push_back(rng() % 9 != 0);
    if (rng() % 7 == 0) {
      strings.push_back(std::nullopt);
    } else {
      strings.push_back("prefix-" + std::string(rng() % 3, 'x') + std::to_string(rng() % 13));
    }
  }
  auto a = MakePrimitive<int64_t>(int64(), ints, int_valid);
  auto s = MakeString(strings);
  for (bool asc_s : {true, false}) {
    for (bool nulls_first : {true, false}) {
      // Reference: strings, then ints descending with nulls last, stable.
      std::vector<int64_t> expected(n);
      for (int i = 0; i < n; ++i) expected[i] = i;
      auto cmp_opt = [&](const auto& x, const auto& y, bool asc, bool nf) {
        if (!x.has_value() || !y.has_value()) {
          if (x.has_value() == y.has_value()) return 0;
          return !x.has_value() == nf ? -1 : 1;
        }
        if (*x == *y) return 0;
        return (*x < *y) == asc ? -1 : 1;
      };
      std::stable_sort(expected.begin(), expected.end(), [&](int64_t i, int64_t j) {
        int c = cmp_opt(strings[i], strings[j], asc_s, nulls_first);
        if (c != 0) return c < 0;
        auto ai = int_valid[i] ? std::optional<int64_t>(ints[i]) : std::nullopt;
        auto aj = int_valid[j] ? std::optional<int64_t>(ints[j]) : std::nullopt;
        return cmp_opt(ai, aj, false, false) < 0;
      });
      auto order = SortIndices({{s, asc_s, nulls_first}, {a, false, false}});
      ASSERT_TRUE(order.ok());
      EXPECT_EQ(*order, expected);
      auto top = SortIndices({{s, asc_s, nulls_first}, {a, false, false}}, 100);
      ASSERT_TRUE(top.ok());
      EXPECT_EQ(*top, V(expected.begin(), expected.begin() + 100));
    }
  }
}

TEST(SortIndices, RejectsKeysOfDifferentLengths) {
  auto a = MakePrimitive<int32_t>(int32(), {1, 2});
  auto b = MakePrimitive<int32_t>(int32(), {1});
  auto order = SortIndices({{a}, {b}});
  ASSERT_FALSE(order.ok());
  EXPECT_TRUE(order.status().IsInvalidArgument());
  EXPECT_FALSE(SortIndices({}).ok());
}

TEST(CheckSortable, EveryTypeOfTheLayerHasAnOrder) {
  EXPECT_TRUE(CheckSortable(null()).ok());
  EXPECT_TRUE(CheckSortable(float16()).ok());
  EXPECT_TRUE(CheckSortable(list(struct_({field("a", utf8())}))).ok());
  EXPECT_TRUE(CheckSortable(fixed_size_binary(4)).ok());
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::array
