// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Filters over tables whose files keep zone statistics give the same rows whether or not the
// scan prunes. A filter that reads `_rowoffset` scans every row (the offset counts them), so
// `(<filter>) AND _rowoffset >= 0` is the unpruned reference.

#include <gtest/gtest.h>

#include <cmath>

#include "array/builder.h"
#include "array/c_bridge.h"
#include "lancedb/lancedb.h"

namespace lancedb {
namespace LANCEDB_TEST_FILE_NS {

namespace la = lancedb::array;

la::SchemaPtr Schema() {
  return la::schema({la::field("id", la::int64(), false), la::field("category", la::utf8()),
                     la::field("price", la::float64()), la::field("flag", la::boolean())});
}

/// Rows [first, first + count): categories and prices clustered so that zones differ.
la::RecordBatchPtr Rows(int64_t first, int64_t count) {
  std::vector<int64_t> ids;
  std::vector<std::optional<std::string>> categories;
  std::vector<double> prices;
  std::vector<bool> price_valid, flags, flag_valid;
  for (int64_t i = first; i < first + count; ++i) {
    ids.push_back(i);
    categories.push_back(i % 11 == 0 ? std::nullopt
                                     : std::optional<std::string>("c" + std::to_string(i / 4000)));
    prices.push_back(i >= 20000 && i < 22000 ? std::nan("") : static_cast<double>(i % 9000) * 0.5);
    price_valid.push_back(i < 8192 || i % 13 != 0);
    flags.push_back(i >= 16384);
    flag_valid.push_back(i < 24000 || i % 2 == 0);
  }
  return *la::RecordBatch::Make(
      Schema(),
      {la::MakePrimitive(la::int64(), ids), la::MakeString(categories),
       la::MakePrimitive(la::float64(), prices, price_valid), la::MakeBool(flags, flag_valid)});
}

std::shared_ptr<Table> MakeTable(const std::string& uri) {
  auto db = Connect(uri);
  EXPECT_TRUE(db.ok());
  std::vector<la::RecordBatchPtr> data;
  for (int b = 0; b < 4; ++b) data.push_back(Rows(b * 10000, 10000));
  ArrowArrayStream s;
  EXPECT_TRUE(la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), data), &s).ok());
  auto t = (*db)->CreateTable("t", &s);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return *t;
}

std::vector<int64_t> QueryIds(const Table& t, const std::string& filter) {
  ArrowArrayStream s;
  Status st = t.Query().Where(filter).Select(std::vector<std::string>{"id"}).Execute(&s);
  EXPECT_TRUE(st.ok()) << filter << ": " << st.ToString();
  std::vector<int64_t> out;
  if (!st.ok()) return out;
  auto reader = la::ImportArrayStream(&s);
  auto batches = (*reader)->ReadAll();
  EXPECT_TRUE(batches.ok());
  for (const auto& b : *batches) {
    const int64_t* v = b->column(0)->GetValues<int64_t>(1);
    out.insert(out.end(), v, v + b->num_rows());
  }
  return out;
}

const char* const kFilters[] = {
    "id = 12345",
    "id < 100 OR id > 39990",
    "id BETWEEN 8000 AND 8300",
    "id IN (5, 17000, 39999)",
    "id NOT IN (5, 17000)",
    "price < 10 AND category = 'c3'",
    "category = 'c9'",
    "category IS NULL AND id > 30000",
    "category > 'c8'",
    "price > 4499",
    "price IS NULL",
    "NOT (price >= 0)",
    "price != price",
    "flag",
    "NOT flag",
    "flag IS NULL",
    "(id < 10) IS NOT TRUE AND id < 20",
    "id * 2 = 100",
    "category LIKE 'c1%' AND id < 4100",
};

TEST(QueryPrune, SameRowsAsAnUnprunedScan) {
  auto t = MakeTable("memory://query_prune");
  for (const char* f : kFilters) {
    const std::string filter = f;
    const std::string reference = "(" + filter + ") AND _rowoffset >= 0";
    EXPECT_EQ(QueryIds(*t, filter), QueryIds(*t, reference)) << filter;
    auto pruned = t->CountRows(filter);
    auto full = t->CountRows(reference);
    ASSERT_TRUE(pruned.ok() && full.ok()) << filter;
    EXPECT_EQ(*pruned, *full) << filter;
  }
  EXPECT_EQ(*t->CountRows("id = 12345"), 1);
  EXPECT_EQ(*t->CountRows("category = 'c99'"), 0);
}

TEST(QueryPrune, DeleteAndUpdateThroughPrunedScans) {
  auto t = MakeTable("memory://query_prune_write");
  ASSERT_TRUE(t->Delete("id BETWEEN 100 AND 199").ok());
  EXPECT_EQ(*t->CountRows("id < 1000"), 900);
  EXPECT_EQ(QueryIds(*t, "id = 150"), std::vector<int64_t>{});
  EXPECT_EQ(QueryIds(*t, "id = 200"), std::vector<int64_t>{200});
  EXPECT_EQ(*t->CountRows("category = 'c9'"), 3636);
  EXPECT_EQ(*t->CountRows("(id >= 100 AND id < 200) AND _rowoffset >= 0"), 0);
}

TEST(QueryPrune, LateColumnsGatheredAcrossScanBatches) {
  auto t = MakeTable("memory://query_prune_batches");
  // 1 row in 50 passes; output batches hold at most 100 rows, with every column.
  ArrowArrayStream s;
  ASSERT_TRUE(t->Query()
                  .Where("id % 50 = 7")
                  .Offset(3)
                  .Limit(650)
                  .WithRowId()
                  .MaxBatchLength(100)
                  .Execute(&s)
                  .ok());
  auto reader = la::ImportArrayStream(&s);
  ASSERT_TRUE(reader.ok());
  auto batches = (*reader)->ReadAll();
  ASSERT_TRUE(batches.ok());
  std::vector<int64_t> ids;
  for (const auto& b : *batches) {
    EXPECT_LE(b->num_rows(), 100);
    ASSERT_EQ(b->num_columns(), 5);
    const int64_t* id = b->column(0)->GetValues<int64_t>(1);
    const uint64_t* row_id = b->column(4)->GetValues<uint64_t>(1);
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      ids.push_back(id[i]);
      EXPECT_EQ(row_id[i], static_cast<uint64_t>(id[i]));  // one fragment
      EXPECT_EQ(b->column(3)->IsNull(i), id[i] >= 24000 && id[i] % 2 == 1);
    }
  }
  std::vector<int64_t> expected;
  for (int64_t i = 3; i < 3 + 650; ++i) expected.push_back(i * 50 + 7);
  EXPECT_EQ(ids, expected);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb
