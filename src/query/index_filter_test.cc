// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The index part of query planning on its own: which shapes of a filter become index lookups,
// what is left as the residual, how lookups combine (ranges on one index merge, OR and NOT
// only when complete), which fragments the lookups answer for, and SQL's three-valued NOT.

#include "query/index_filter.h"

#include <gtest/gtest.h>

#include "array/builder.h"
#include "common/test_util.h"
#include "expr/binder.h"
#include "index/scalar_index_manager.h"
#include "io/file_system.h"

namespace lancedb::query {
namespace LANCEDB_TEST_FILE_NS {

namespace la = lancedb::array;

la::SchemaPtr Schema() {
  return la::schema({la::field("id", la::int64(), false), la::field("x", la::int64()),
                     la::field("c", la::utf8()), la::field("other", la::int64())});
}

/// Rows [first, first + n): x is NULL when id % 5 = 0, else id % 10; c = "c" + id % 3.
la::RecordBatchPtr Rows(int64_t first, int64_t n) {
  std::vector<int64_t> ids, xs, others;
  std::vector<bool> x_valid;
  std::vector<std::optional<std::string>> cs;
  for (int64_t i = first; i < first + n; ++i) {
    ids.push_back(i);
    xs.push_back(i % 10);
    x_valid.push_back(i % 5 != 0);
    cs.push_back("c" + std::to_string(i % 3));
    others.push_back(i % 7);
  }
  return *la::RecordBatch::Make(
      Schema(),
      {la::MakePrimitive(la::int64(), ids), la::MakePrimitive(la::int64(), xs, x_valid),
       la::MakeString(cs), la::MakePrimitive(la::int64(), others)},
      n);
}

struct Fixture {
  table::DatasetPtr dataset;
  std::vector<index::ScalarSegment> segments;
};

/// Two fragments of 100 rows indexed (BTREE on id and x, BITMAP on c), then a third appended.
Fixture Make(const std::string& path) {
  auto fs = io::MemoryFileSystem();
  auto first = la::MakeVectorReader(Schema(), {Rows(0, 100)});
  auto ds = table::Dataset::Write(fs, path, first.get(), {});
  EXPECT_TRUE(ds.ok()) << ds.status().ToString();
  auto second = la::MakeVectorReader(Schema(), {Rows(100, 100)});
  auto d2 = (*ds)->Append(second.get());
  EXPECT_TRUE(d2.ok());
  table::DatasetPtr d = *d2;
  for (const auto& [column, type] :
       std::vector<std::pair<std::string, index::scalar::ScalarIndexType>>{
           {"id", index::scalar::ScalarIndexType::kBTree},
           {"x", index::scalar::ScalarIndexType::kBTree},
           {"c", index::scalar::ScalarIndexType::kBitmap}}) {
    auto next = index::CreateScalarIndex(d, column, type, {});
    EXPECT_TRUE(next.ok()) << next.status().ToString();
    d = *next;
  }
  auto third = la::MakeVectorReader(Schema(), {Rows(200, 50)});
  auto d3 = d->Append(third.get());
  EXPECT_TRUE(d3.ok());
  Fixture f;
  f.dataset = *d3;
  f.segments = *index::LoadScalarIndices(*f.dataset);
  return f;
}

std::optional<IndexFilter> Plan(const Fixture& f, const std::string& sql) {
  auto bound = expr::ParseFilter(sql, *f.dataset->schema());
  EXPECT_TRUE(bound.ok()) << sql << ": " << bound.status().ToString();
  return PlanIndexFilter(*bound->root, f.segments);
}

TEST(IndexFilter, ShapesBecomeLookupsAndTheRestIsTheResidual) {
  const Fixture f = Make("/q/shapes");
  auto p = Plan(f, "id > 5 AND id <= 10");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->root.ToString(), "[id > 5 && id <= 10]@id_idx(BTree)");  // one merged range
  EXPECT_TRUE(p->exact);
  EXPECT_EQ(p->fragments, (std::set<uint64_t>{0, 1}));  // the appended fragment is scanned
  p = Plan(f, "other = 3 AND c = 'c1' AND x IS NULL");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->root.ToString(), "AND([c = c1]@c_idx(Bitmap),[x IS NULL]@x_idx(BTree))");
  EXPECT_FALSE(p->exact);
  EXPECT_EQ(p->residual, (std::vector<size_t>{0}));
  p = Plan(f, "NOT (id IN (1, 2, 3)) OR c != 'c0'");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->root.ToString(),
            "OR(NOT([id IN [1,2,3]]@id_idx(BTree)),NOT([c = c0]@c_idx(Bitmap)))");
  p = Plan(f, "c LIKE 'c1%' AND c NOT LIKE 'c1x%'");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->root.ToString(),
            "AND([c >= c1 && c < c2]@c_idx(Bitmap),NOT([c >= c1x && c < c1y]@c_idx(Bitmap)))");
  EXPECT_FALSE(Plan(f, "c LIKE 'c_%'"));  // other wildcards: scanned
  EXPECT_FALSE(Plan(f, "c ILIKE 'c1%'"));
  EXPECT_FALSE(Plan(f, "c LIKE '%1'"));
  EXPECT_FALSE(Plan(f, "id = 5 OR other = 1"));  // an OR half unindexed: scanned
  EXPECT_FALSE(Plan(f, "NOT (id = 5 AND other = 1)"));
  EXPECT_FALSE(Plan(f, "id + 1 = 5"));
  EXPECT_FALSE(Plan(f, "other = 1"));
}

TEST(IndexFilter, EvaluationFollowsThreeValuedLogicAndDropsDeletedRows) {
  Fixture f = Make("/q/eval");
  // Delete id 7 (fragment 0, offset 7): an index built before must not return it.
  int64_t deleted = 0;
  auto d = f.dataset->DeleteRows({7}, &deleted);
  ASSERT_OK(d.status());
  f.dataset = *d;
  auto rows = [&](const std::string& sql) {
    auto p = Plan(f, sql);
    EXPECT_TRUE(p) << sql;
    auto r = EvaluateIndexFilter(*p, *f.dataset);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return std::move(r).ValueOr({});
  };
  EXPECT_EQ(rows("id >= 5 AND id < 10"), (std::vector<uint64_t>{5, 6, 8, 9}));
  // x IS NULL for ids 0, 5, 10, ...: NOT (x = 3) is TRUE only where x is known and not 3.
  const auto not_three = rows("NOT (x = 3)");
  for (uint64_t a : not_three) {
    const uint64_t id = (a >> 32) * 100 + (a & 0xFFFFFFFFu);
    EXPECT_NE(id % 5, 0u) << id;
    EXPECT_NE(id % 10, 3u) << id;
  }
  EXPECT_EQ(not_three.size(), 200u - 40u - 20u - 1u);  // minus NULLs, x = 3 and deleted id 7
  ASSERT_OK_AND_ASSIGN(auto counted, CountIndexFilter(*Plan(f, "NOT (x = 3)"), *f.dataset));
  EXPECT_EQ(counted, static_cast<int64_t>(not_three.size()));
  EXPECT_EQ(rows("x IS NULL AND id < 12"), (std::vector<uint64_t>{0, 5, 10}));
  EXPECT_EQ(rows("c LIKE 'c2%' AND id < 12"), (std::vector<uint64_t>{2, 5, 8, 11}));
  // Addresses of fragment 1 carry its id in the high half.
  EXPECT_EQ(rows("id = 150"), (std::vector<uint64_t>{(uint64_t{1} << 32) | 50}));
  EXPECT_TRUE(rows("id = 220").empty());  // in the uncovered fragment: left to the scan
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::query
