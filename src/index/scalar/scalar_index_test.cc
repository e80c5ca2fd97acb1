// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Scalar indices against a brute-force oracle: random columns with nulls over several
// fragments, every query kind, results (TRUE rows and NULL rows) equal to evaluating the query
// on every row; RowAddrSet's Lance bytes.

#include "index/scalar/scalar_index.h"

#include <gtest/gtest.h>

#include <random>

#include "array/builder.h"
#include "common/test_util.h"
#include "expr/vec.h"
#include "index/scalar/scalar_index_internal.h"

namespace lancedb::index::scalar {
namespace LANCEDB_TEST_FILE_NS {

namespace la = lancedb::array;

TEST(RowAddrSet, LanceBytesRoundTrip) {
  RowAddrSet empty;
  EXPECT_EQ(empty.Serialize(), std::string(4, '\0'));
  RowAddrSet s;
  for (uint64_t f : {0u, 3u, 7u}) {
    for (uint64_t off = 0; off < 5000; off += 7) s.Add((f << 32) | off);
  }
  s.AddRange(9, 100, 200000);
  ASSERT_OK_AND_ASSIGN(auto back, RowAddrSet::Deserialize(s.Serialize(), "test"));
  EXPECT_TRUE(back == s);
  EXPECT_EQ(back.Cardinality(), s.Cardinality());
  const std::string bytes = s.Serialize();
  EXPECT_EQ(static_cast<uint8_t>(bytes[0]), 4);  // four fragments
  // Truncation, trailing bytes and a whole-fragment entry without a row count are errors.
  EXPECT_TRUE(
      RowAddrSet::Deserialize(bytes.substr(0, bytes.size() - 1), "t").status().IsCorruption());
  EXPECT_TRUE(RowAddrSet::Deserialize(bytes + "x", "t").status().IsCorruption());
  std::string full("\x01\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00", 12);
  EXPECT_TRUE(RowAddrSet::Deserialize(full, "t").status().IsNotSupported());
  ASSERT_OK_AND_ASSIGN(auto expanded, RowAddrSet::Deserialize(full, "t", [](uint32_t f) {
                         return Result<uint64_t>(f == 5 ? 10 : 0);
                       }));
  EXPECT_EQ(expanded.Cardinality(), 10u);
  EXPECT_TRUE(expanded.Contains((uint64_t{5} << 32) | 9));
}

/// A random int64 column of `n` rows over 3 fragments, ~10% nulls, values in [0, range).
BuildInput RandomInts(int64_t n, int64_t range, uint64_t seed,
                      std::vector<std::optional<int64_t>>* out) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> values;
  std::vector<bool> valid;
  BuildInput in;
  for (int64_t i = 0; i < n; ++i) {
    const bool ok = rng() % 10 != 0;
    const int64_t v = static_cast<int64_t>(rng() % static_cast<uint64_t>(range));
    values.push_back(v);
    valid.push_back(ok);
    out->push_back(ok ? std::optional<int64_t>(v) : std::nullopt);
    in.row_ids.push_back((uint64_t(i % 3) << 32) | uint64_t(i / 3));
  }
  in.values = la::MakePrimitive(la::int64(), values, valid);
  return in;
}

Key Int(int64_t v) {
  Key k;
  k.kind = expr::ValueKind::kInt;
  k.i = v;
  return k;
}

/// TRUE and NULL rows of `q` evaluated on every row.
SearchResult Oracle(const std::vector<std::optional<int64_t>>& rows,
                    const std::vector<uint64_t>& ids, const ScalarQuery& q) {
  SearchResult r;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& v = rows[i];
    if (q.kind == ScalarQuery::Kind::kIsNull) {
      if (!v) r.true_rows.Add(ids[i]);
      continue;
    }
    if (!v) {
      r.null_rows.Add(ids[i]);
      continue;
    }
    bool match = false;
    switch (q.kind) {
      case ScalarQuery::Kind::kEquals:
        match = *v == q.values[0].i;
        break;
      case ScalarQuery::Kind::kIn:
        for (const auto& k : q.values) match |= *v == k.i;
        break;
      case ScalarQuery::Kind::kRange:
        match = (!q.lower || (q.lower_inclusive ? *v >= q.lower->i : *v > q.lower->i)) &&
                (!q.upper || (q.upper_inclusive ? *v <= q.upper->i : *v < q.upper->i));
        break;
      default:
        break;
    }
    if (match) r.true_rows.Add(ids[i]);
  }
  return r;
}

std::vector<ScalarQuery> Queries(int64_t range) {
  std::vector<ScalarQuery> qs;
  for (int64_t v : {int64_t{-1}, int64_t{0}, range / 2, range - 1, range + 5}) {
    ScalarQuery q;
    q.values = {Int(v)};
    qs.push_back(q);
  }
  ScalarQuery in;
  in.kind = ScalarQuery::Kind::kIn;
  in.values = {Int(1), Int(range / 3), Int(range + 10)};
  qs.push_back(in);
  ScalarQuery isnull;
  isnull.kind = ScalarQuery::Kind::kIsNull;
  qs.push_back(isnull);
  for (bool li : {true, false}) {
    for (bool ui : {true, false}) {
      ScalarQuery r;
      r.kind = ScalarQuery::Kind::kRange;
      r.lower = Int(range / 4);
      r.upper = Int(range / 4 + range / 10);
      r.lower_inclusive = li;
      r.upper_inclusive = ui;
      qs.push_back(r);
    }
  }
  ScalarQuery open_lo;
  open_lo.kind = ScalarQuery::Kind::kRange;
  open_lo.upper = Int(range / 5);
  qs.push_back(open_lo);
  ScalarQuery open_hi;
  open_hi.kind = ScalarQuery::Kind::kRange;
  open_hi.lower = Int(range - range / 5);
  open_hi.lower_inclusive = false;
  qs.push_back(open_hi);
  return qs;
}

class ScalarIndexOracle : public ::testing::TestWithParam<ScalarIndexType> {};

TEST_P(ScalarIndexOracle, EveryQueryEqualsBruteForce) {
  const ScalarIndexType type = GetParam();
  auto fs = io::MemoryFileSystem();
  for (int64_t range : {int64_t{5}, int64_t{1000}, int64_t{1} << 40}) {
    const std::string dir =
        "/scalar/" + std::string(ScalarIndexTypeName(type)) + "/" + std::to_string(range);
    std::vector<std::optional<int64_t>> rows;
    BuildInput in = RandomInts(type == ScalarIndexType::kBTree ? 10000 : 3000, range, 42, &rows);
    ASSERT_OK_AND_ASSIGN(auto files, BuildScalarIndex(fs, dir, type, la::int64(), {in}));
    ASSERT_FALSE(files.empty());
    ASSERT_OK_AND_ASSIGN(auto index, OpenScalarIndex(fs, dir, type, la::int64()));
    for (const auto& q : Queries(range)) {
      ASSERT_TRUE(index->Supports(q.kind));
      ASSERT_OK_AND_ASSIGN(auto got, index->Search(q));
      SearchResult want = Oracle(rows, in.row_ids, q);
      EXPECT_TRUE(got.true_rows == want.true_rows)
          << q.ToString("x") << " range " << range << ": " << got.true_rows.Cardinality()
          << " rows, expected " << want.true_rows.Cardinality();
      EXPECT_TRUE(got.null_rows == want.null_rows) << q.ToString("x");
    }
    // Rewritten from its entries (as a remap or merge does), it answers the same.
    ASSERT_OK_AND_ASSIGN(auto entries, index->ReadAll());
    EXPECT_EQ(entries.row_ids.size(), rows.size());
    ASSERT_OK(BuildScalarIndexFromEntries(fs, dir + "/again", type, la::int64(), entries));
    ASSERT_OK_AND_ASSIGN(auto again, OpenScalarIndex(fs, dir + "/again", type, la::int64()));
    for (const auto& q : Queries(range)) {
      ASSERT_OK_AND_ASSIGN(auto a, index->Search(q));
      ASSERT_OK_AND_ASSIGN(auto b, again->Search(q));
      EXPECT_TRUE(a.true_rows == b.true_rows && a.null_rows == b.null_rows) << q.ToString("x");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Types, ScalarIndexOracle,
                         ::testing::Values(ScalarIndexType::kBTree, ScalarIndexType::kBitmap));

TEST(ScalarIndex, BTreeOverStringsFloatsAndAnEmptyColumn) {
  auto fs = io::MemoryFileSystem();
  BuildInput s;
  s.values = la::MakeString({"b", std::nullopt, "a", "c", "b", ""});
  s.row_ids = {0, 1, 2, 3, 4, 5};
  ASSERT_OK(BuildScalarIndex(fs, "/strs", ScalarIndexType::kBTree, la::utf8(), {s}));
  ASSERT_OK_AND_ASSIGN(auto index,
                       OpenScalarIndex(fs, "/strs", ScalarIndexType::kBTree, la::utf8()));
  ScalarQuery q;
  q.values = {Key{expr::ValueKind::kString, false, 0, 0, "b"}};
  ASSERT_OK_AND_ASSIGN(auto r, index->Search(q));
  EXPECT_EQ(r.true_rows.ToVector(), (std::vector<uint64_t>{0, 4}));
  EXPECT_EQ(r.null_rows.ToVector(), (std::vector<uint64_t>{1}));
  q.kind = ScalarQuery::Kind::kRange;
  q.lower = Key{expr::ValueKind::kString, false, 0, 0, ""};
  q.upper = Key{expr::ValueKind::kString, false, 0, 0, "b"};
  q.upper_inclusive = false;
  ASSERT_OK_AND_ASSIGN(r, index->Search(q));
  EXPECT_EQ(r.true_rows.ToVector(), (std::vector<uint64_t>{2, 5}));

  BuildInput f;
  f.values = la::MakePrimitive<double>(la::float64(), {1.5, std::nan(""), -0.0, 2.0, 0.0});
  f.row_ids = {10, 11, 12, 13, 14};
  ASSERT_OK(BuildScalarIndex(fs, "/floats", ScalarIndexType::kBTree, la::float64(), {f}));
  ASSERT_OK_AND_ASSIGN(index,
                       OpenScalarIndex(fs, "/floats", ScalarIndexType::kBTree, la::float64()));
  ScalarQuery zero;
  zero.values = {Key{expr::ValueKind::kFloat, false, 0, 0.0, ""}};
  ASSERT_OK_AND_ASSIGN(r, index->Search(zero));
  EXPECT_EQ(r.true_rows.ToVector(), (std::vector<uint64_t>{12, 14}));  // -0 = +0
  ScalarQuery above;
  above.kind = ScalarQuery::Kind::kRange;
  above.lower = Key{expr::ValueKind::kFloat, false, 0, 1.0, ""};
  ASSERT_OK_AND_ASSIGN(r, index->Search(above));
  EXPECT_EQ(r.true_rows.ToVector(), (std::vector<uint64_t>{10, 11, 13}));  // NaN sorts last

  BuildInput none;
  none.values = la::MakePrimitive<int64_t>(la::int64(), {});
  ASSERT_OK(BuildScalarIndex(fs, "/empty", ScalarIndexType::kBTree, la::int64(), {none}));
  ASSERT_OK_AND_ASSIGN(index, OpenScalarIndex(fs, "/empty", ScalarIndexType::kBTree, la::int64()));
  ScalarQuery eq;
  eq.values = {Int(1)};
  ASSERT_OK_AND_ASSIGN(r, index->Search(eq));
  EXPECT_TRUE(r.true_rows.empty() && r.null_rows.empty());
}

TEST(ScalarIndex, LabelListAnswersHasAnyAndHasAll) {
  auto fs = io::MemoryFileSystem();
  // Rows: [a, b], [b], NULL, [], [c, NULL], [a, c].
  auto items = la::MakeString({"a", "b", "b", "c", std::nullopt, "a", "c"});
  auto lists = la::MakeList(la::list(la::utf8()), {0, 2, 3, 3, 3, 5, 7}, items,
                            {true, true, false, true, true, true});
  BuildInput in;
  in.values = lists;
  in.row_ids = {0, 1, 2, 3, 4, 5};
  ASSERT_OK(
      BuildScalarIndex(fs, "/labels", ScalarIndexType::kLabelList, la::list(la::utf8()), {in}));
  ASSERT_OK_AND_ASSIGN(auto index, OpenScalarIndex(fs, "/labels", ScalarIndexType::kLabelList,
                                                   la::list(la::utf8())));
  auto str = [](const char* s) { return Key{expr::ValueKind::kString, false, 0, 0, s}; };
  ScalarQuery any;
  any.kind = ScalarQuery::Kind::kHasAny;
  any.values = {str("a"), str("c")};
  ASSERT_OK_AND_ASSIGN(auto r, index->Search(any));
  EXPECT_EQ(r.true_rows.ToVector(), (std::vector<uint64_t>{0, 4, 5}));
  EXPECT_EQ(r.null_rows.ToVector(), (std::vector<uint64_t>{2}));  // the NULL list
  ScalarQuery all = any;
  all.kind = ScalarQuery::Kind::kHasAll;
  ASSERT_OK_AND_ASSIGN(r, index->Search(all));
  EXPECT_EQ(r.true_rows.ToVector(), (std::vector<uint64_t>{5}));
  EXPECT_FALSE(index->Supports(ScalarQuery::Kind::kEquals));
  ASSERT_OK_AND_ASSIGN(auto entries, index->ReadAll());
  EXPECT_EQ(entries.row_ids.size(), 7u);  // one per item
  EXPECT_EQ(entries.list_nulls.ToVector(), (std::vector<uint64_t>{2}));
  ASSERT_OK(BuildScalarIndexFromEntries(fs, "/labels2", ScalarIndexType::kLabelList,
                                        la::list(la::utf8()), entries));
  ASSERT_OK_AND_ASSIGN(auto again, OpenScalarIndex(fs, "/labels2", ScalarIndexType::kLabelList,
                                                   la::list(la::utf8())));
  ASSERT_OK_AND_ASSIGN(r, again->Search(any));
  EXPECT_EQ(r.true_rows.ToVector(), (std::vector<uint64_t>{0, 4, 5}));
  EXPECT_EQ(r.null_rows.ToVector(), (std::vector<uint64_t>{2}));
}

TEST(ScalarIndex, UnsuitableColumnsAreRejectedNamingThem) {
  Status st =
      CheckIndexableType(ScalarIndexType::kBitmap, "vec", *la::fixed_size_list(la::float32(), 4));
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.message().find("'vec'"), std::string::npos) << st.message();
  st = CheckIndexableType(ScalarIndexType::kLabelList, "id", *la::int64());
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.message().find("LABEL_LIST"), std::string::npos) << st.message();
  EXPECT_OK(CheckIndexableType(ScalarIndexType::kBTree, "d", *la::date32()));
  EXPECT_OK(CheckIndexableType(ScalarIndexType::kLabelList, "tags", *la::list(la::utf8())));
  // As Lance: fixed_size_binary (UUIDs) takes a BTREE, not a BITMAP.
  EXPECT_OK(CheckIndexableType(ScalarIndexType::kBTree, "uuid", *la::fixed_size_binary(16)));
  st = CheckIndexableType(ScalarIndexType::kBitmap, "uuid", *la::fixed_size_binary(16));
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.message().find("'uuid'"), std::string::npos) << st.message();
}

TEST(ScalarIndex, BTreeOverFixedSizeBinaryOrdersByBytes) {
  auto fs = io::MemoryFileSystem();
  BuildInput in;
  in.values =
      la::MakeFixedSizeBinary(2, {std::string("\x01\x02"), std::nullopt, std::string("\xff\x00"),
                                  std::string("\x00\x09"), std::string("\x01\x02")});
  in.row_ids = {0, 1, 2, 3, 4};
  const auto type = la::fixed_size_binary(2);
  ASSERT_OK(BuildScalarIndex(fs, "/fsb", ScalarIndexType::kBTree, type, {in}));
  ASSERT_OK_AND_ASSIGN(auto index, OpenScalarIndex(fs, "/fsb", ScalarIndexType::kBTree, type));
  ScalarQuery q;
  q.values = {Key{expr::ValueKind::kString, false, 0, 0, std::string("\x01\x02")}};
  ASSERT_OK_AND_ASSIGN(auto r, index->Search(q));
  EXPECT_EQ(r.true_rows.ToVector(), (std::vector<uint64_t>{0, 4}));
  EXPECT_EQ(r.null_rows.ToVector(), (std::vector<uint64_t>{1}));
  q.kind = ScalarQuery::Kind::kRange;  // bytes compare unsigned: 0xff.. is the largest
  q.lower = Key{expr::ValueKind::kString, false, 0, 0, std::string("\x01\x03")};
  q.values.clear();
  ASSERT_OK_AND_ASSIGN(r, index->Search(q));
  EXPECT_EQ(r.true_rows.ToVector(), (std::vector<uint64_t>{2}));
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::index::scalar
