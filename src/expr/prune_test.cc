// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "expr/prune.h"

#include <gtest/gtest.h>

#include <limits>
#include <map>

#include "expr/binder.h"

namespace lancedb::expr {
namespace LANCEDB_TEST_FILE_NS {

using format::ColumnStats;
using format::RangeColumnStats;
using format::StatsType;

/// Statistics for the columns of TestSchema() over one 100-row range.
class PruneTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_ = array::schema({
        array::field("i", array::int32()),
        array::field("f", array::float64()),
        array::field("s", array::utf8()),
        array::field("b", array::boolean()),
        array::field("d", array::date32()),
        array::field("t", array::timestamp(array::TimeUnit::kMilli)),
        array::field("u", array::uint64()),
        array::field("n", array::int64()),
    });
    Int("i", array::int32(), 10, 20);
    ColumnStats f;
    f.has_bounds = true;
    f.min_float = -1.5;
    f.max_float = 2.5;
    Set("f", array::float64(), StatsType::kFloat, f);
    ColumnStats s;
    s.has_bounds = true;
    s.min_str = "c3";
    s.max_str = "c5";
    Set("s", array::utf8(), StatsType::kBinary, s);
    ColumnStats b;
    b.has_bounds = true;
    b.min_int = b.max_int = 1;
    Set("b", array::boolean(), StatsType::kBool, b);
    Int("d", array::date32(), 19000, 19010);
    Int("t", array::timestamp(array::TimeUnit::kMilli), 1000, 5000);  // 1 s .. 5 s
    ColumnStats u;
    u.has_bounds = true;
    u.min_uint = 5;
    u.max_uint = 9;
    Set("u", array::uint64(), StatsType::kUInt, u);
    ColumnStats n;
    n.null_count = 100;  // all null
    Set("n", array::int64(), StatsType::kInt, n);
  }

  void Int(const std::string& name, array::DataTypePtr type, int64_t lo, int64_t hi,
           int64_t nulls = 0) {
    ColumnStats z;
    z.has_bounds = true;
    z.min_int = lo;
    z.max_int = hi;
    z.null_count = nulls;
    Set(name, std::move(type), StatsType::kInt, z);
  }
  void Set(const std::string& name, array::DataTypePtr type, StatsType st, ColumnStats z) {
    RangeColumnStats rs;
    rs.type = std::move(type);
    rs.stats_type = st;
    rs.num_rows = 100;
    rs.stats = std::move(z);
    stats_[name] = std::move(rs);
  }

  bool May(const std::string& sql) {
    auto bound = ParseFilter(sql, *schema_);
    EXPECT_TRUE(bound.ok()) << sql << ": " << bound.status().ToString();
    if (!bound.ok()) return true;
    return MayMatch(*bound->root, [this](const std::string& c) -> const RangeColumnStats* {
      auto it = stats_.find(c);
      return it == stats_.end() ? nullptr : &it->second;
    });
  }

  array::SchemaPtr schema_;
  std::map<std::string, RangeColumnStats> stats_;
};

TEST_F(PruneTest, Comparisons) {
  EXPECT_TRUE(May("i = 10"));
  EXPECT_TRUE(May("i = 20"));
  EXPECT_FALSE(May("i = 21"));
  EXPECT_FALSE(May("i = 9"));
  EXPECT_FALSE(May("i < 10"));
  EXPECT_TRUE(May("i < 11"));
  EXPECT_TRUE(May("i <= 10"));
  EXPECT_FALSE(May("i > 20"));
  EXPECT_TRUE(May("i >= 20"));
  EXPECT_FALSE(May("i >= 21"));
  EXPECT_TRUE(May("i != 15"));
  EXPECT_FALSE(May("10 > i"));  // literal on the left
  EXPECT_TRUE(May("20 >= i"));
}

TEST_F(PruneTest, ComparisonsAfterCoercion) {
  EXPECT_FALSE(May("i < 9.5"));  // int column compared as float
  EXPECT_TRUE(May("i < 10.5"));
  EXPECT_FALSE(May("f > 2.5"));
  EXPECT_TRUE(May("f >= 2.5"));
  EXPECT_FALSE(May("f < -2"));  // int literal coerced to float
  EXPECT_FALSE(May("s = 'c2'"));
  EXPECT_TRUE(May("s = 'c4'"));
  EXPECT_FALSE(May("s > 'c5'"));
  EXPECT_TRUE(May("s > 'c4zzz'"));
  EXPECT_FALSE(May("d < '2022-01-01'"));  // day 18993
  EXPECT_TRUE(May("d = '2022-01-08'"));   // day 19000
  EXPECT_FALSE(May("t > TIMESTAMP '1970-01-01 00:00:05'"));
  EXPECT_TRUE(May("t >= TIMESTAMP '1970-01-01 00:00:05'"));
  EXPECT_FALSE(May("t < TIMESTAMP '1970-01-01 00:00:01'"));
  EXPECT_FALSE(May("u = 4"));
  EXPECT_TRUE(May("u = 9"));
  EXPECT_FALSE(May("b = false"));
  EXPECT_FALSE(May("NOT b"));
  EXPECT_TRUE(May("b"));
}

TEST_F(PruneTest, BetweenAndIn) {
  EXPECT_FALSE(May("i BETWEEN 21 AND 30"));
  EXPECT_TRUE(May("i BETWEEN 20 AND 30"));
  // Each conjunct is judged alone: an empty interval within the bounds is not detected.
  EXPECT_TRUE(May("i BETWEEN 15 AND 12"));
  EXPECT_FALSE(May("i BETWEEN 0 AND 9"));
  EXPECT_TRUE(May("i NOT BETWEEN 15 AND 16"));
  EXPECT_FALSE(May("i NOT BETWEEN 0 AND 30"));
  EXPECT_FALSE(May("i IN (1, 2, 30)"));
  EXPECT_TRUE(May("i IN (1, 12)"));
  EXPECT_TRUE(May("i NOT IN (1, 2)"));
  EXPECT_FALSE(May("i NOT IN (1, NULL)"));  // never TRUE: NULL or FALSE
  EXPECT_FALSE(May("s IN ('a', 'z')"));
}

TEST_F(PruneTest, NullSemantics) {
  EXPECT_FALSE(May("n = 1"));  // every row NULL
  EXPECT_FALSE(May("n IS NOT NULL"));
  EXPECT_TRUE(May("n IS NULL"));
  EXPECT_FALSE(May("i IS NULL"));  // no nulls in i
  EXPECT_TRUE(May("i IS NOT NULL"));
  EXPECT_FALSE(May("NOT (n = 1)"));  // NOT NULL is NULL
  EXPECT_TRUE(May("(n = 1) IS NULL"));
  EXPECT_FALSE(May("(i = 1) IS NULL"));
  EXPECT_TRUE(May("(i = 1) IS NOT TRUE"));
  EXPECT_FALSE(May("(i > 0) IS NOT TRUE"));
  EXPECT_FALSE(May("i = NULL"));
  EXPECT_FALSE(May("NULL"));
  Int("i", array::int32(), 10, 20, /*nulls=*/5);
  EXPECT_TRUE(May("i IS NULL"));
  EXPECT_TRUE(May("(i > 0) IS NOT TRUE"));
  EXPECT_FALSE(May("i > 20"));
}

TEST_F(PruneTest, LogicalConnectives) {
  EXPECT_FALSE(May("i > 50 AND s = 'c4'"));
  EXPECT_FALSE(May("s = 'c4' AND i > 50"));
  EXPECT_TRUE(May("i > 50 OR s = 'c4'"));
  EXPECT_FALSE(May("i > 50 OR s = 'c9'"));
  EXPECT_TRUE(May("NOT (i > 50)"));
  EXPECT_FALSE(May("NOT (i >= 10)"));
  EXPECT_TRUE(May("NOT (i > 15)"));
}

TEST_F(PruneTest, NaNMakesEveryOutcomePossible) {
  ColumnStats f;
  f.has_bounds = true;
  f.min_float = 0;
  f.max_float = 1;
  f.nan_count = 1;
  Set("f", array::float64(), StatsType::kFloat, f);
  EXPECT_TRUE(May("f > 5"));
  EXPECT_TRUE(May("NOT (f < 5)"));
  f.has_bounds = false;  // only NaN
  f.nan_count = 100;
  Set("f", array::float64(), StatsType::kFloat, f);
  EXPECT_TRUE(May("f = 1"));
}

TEST_F(PruneTest, UnknownsMayMatch) {
  stats_.erase("i");
  EXPECT_TRUE(May("i = 1000"));
  EXPECT_TRUE(May("f + 1 > 100"));  // arithmetic is not analysed
  EXPECT_TRUE(May("s LIKE 'x%'"));
  EXPECT_TRUE(May("_rowid = 5"));
  ColumnStats s;  // bounds lost (long strings)
  Set("s", array::utf8(), StatsType::kBinary, s);
  EXPECT_TRUE(May("s = 'zz'"));
  ColumnStats u;  // above 2^63 the evaluator sees negative numbers
  u.has_bounds = true;
  u.min_uint = 1;
  u.max_uint = std::numeric_limits<uint64_t>::max();
  Set("u", array::uint64(), StatsType::kUInt, u);
  EXPECT_TRUE(May("u = -1"));
  // Statistics of another kind than the column (stale or foreign) are ignored.
  Set("f", array::utf8(), StatsType::kBinary, ColumnStats{});
  EXPECT_TRUE(May("f = 100"));
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::expr
