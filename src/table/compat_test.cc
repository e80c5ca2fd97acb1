// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Interoperability with pylance, driven by tests/compat/test_table_compat.py: the writing tests
// leave a table for pylance to read and modify in LANCEDB_TABLE_OUT (in a temporary directory,
// then removed, when it is unset); ReadTableFromPylance reads the table back after pylance
// appended, deleted and compacted (env LANCEDB_TABLE_IN, LANCEDB_EXPECT_ROWS) and skips when
// there is no such table to read.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "table/dataset.h"
#include "table/table_test_util.h"

namespace lancedb::table {
namespace LANCEDB_TEST_FILE_NS {

/// LANCEDB_TABLE_OUT, or `scratch` when it is unset.
std::string OutDir(const testing::TempDir& scratch) {
  const char* out = std::getenv("LANCEDB_TABLE_OUT");
  return out != nullptr ? out : scratch.path();
}

TEST(TableCompat, WriteTableForPylance) {
  testing::TempDir scratch;
  auto fs = io::LocalFileSystem();
  std::string path = OutDir(scratch) + "/ours.lance";
  // Version 1: ids 0..999 in three fragments; version 2: ids 1000..1499 appended;
  // version 3: rows with id % 10 == 3 and id < 1000 deleted.
  WriteParams params;
  params.max_rows_per_file = 400;
  auto first = testing::TestReader(0, 1000, 256);
  ASSERT_OK_AND_ASSIGN(auto v1, Dataset::Write(fs, path, first.get(), params));
  auto second = testing::TestReader(1000, 500);
  ASSERT_OK_AND_ASSIGN(auto v2, v1->Append(second.get()));
  // Rows were written in id order, so fragment offsets map to ids without reading data.
  std::vector<uint64_t> doomed;
  int64_t next_id = 0;
  for (const auto& frag : v2->manifest().proto().fragments()) {
    for (uint64_t offset = 0; offset < frag.physical_rows(); ++offset, ++next_id) {
      if (next_id < 1000 && next_id % 10 == 3) doomed.push_back((frag.id() << 32) | offset);
    }
  }
  int64_t deleted = 0;
  ASSERT_OK_AND_ASSIGN(auto v3, v2->DeleteRows(doomed, &deleted));
  EXPECT_EQ(deleted, 100);
  ASSERT_OK_AND_ASSIGN(auto rows, v3->CountRows());
  EXPECT_EQ(rows, 1400);
}

TEST(TableCompat, AppendToStableRowIdTableForPylance) {
  LANCEDB_REQUIRE_FIXTURES();
  testing::TempDir scratch;
  std::string path = OutDir(scratch) + "/stable.lance";
  std::filesystem::remove_all(path);
  std::filesystem::copy(testing::FixturesDir() + "/stable.lance", path,
                        std::filesystem::copy_options::recursive);
  auto fs = io::LocalFileSystem();
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(fs, path));
  // Version 5: ids 5000..5002 appended (stable row ids 1500..1502), other columns null.
  auto schema = ds->schema();
  std::vector<array::ArrayPtr> columns;
  for (const auto& field : schema->fields()) {
    columns.push_back(field->name() == "id"
                          ? array::MakePrimitive<int64_t>(array::int64(), {5000, 5001, 5002})
                          : array::MakeNullArray(field->type(), 3));
  }
  ASSERT_OK_AND_ASSIGN(auto batch, array::RecordBatch::Make(schema, columns));
  auto reader = array::MakeVectorReader(schema, {batch});
  ASSERT_OK_AND_ASSIGN(auto v5, ds->Append(reader.get()));
  // Version 6: the row at offset 200 of fragment 0 (id 200) deleted.
  int64_t n = 0;
  ASSERT_OK_AND_ASSIGN(auto v6, v5->DeleteRows({200}, &n));
  EXPECT_EQ(n, 1);
}

TEST(TableCompat, AppendToIndexedTableForPylance) {
  LANCEDB_REQUIRE_FIXTURES();
  testing::TempDir scratch;
  std::string path = OutDir(scratch) + "/ops.lance";
  std::filesystem::remove_all(path);
  std::filesystem::copy(testing::FixturesDir() + "/ops.lance", path,
                        std::filesystem::copy_options::recursive);
  auto fs = io::LocalFileSystem();
  // Version 12: ids 100000..100002 appended from a stale snapshot (version 6), rebased over
  // LanceDB's index commits; the indices do not cover the new fragment.
  ASSERT_OK_AND_ASSIGN(auto v6, Dataset::Open(fs, path, 6));
  auto schema = v6->schema();
  std::vector<array::ArrayPtr> columns;
  for (const auto& field : schema->fields()) {
    columns.push_back(field->name() == "id"
                          ? array::MakePrimitive<int64_t>(array::int64(), {100000, 100001, 100002})
                          : array::MakeNullArray(field->type(), 3));
  }
  ASSERT_OK_AND_ASSIGN(auto batch, array::RecordBatch::Make(schema, columns));
  auto reader = array::MakeVectorReader(schema, {batch});
  ASSERT_OK_AND_ASSIGN(auto v12, v6->Append(reader.get()));
  EXPECT_EQ(v12->version(), 12u);
}

TEST(TableCompat, ReadTableFromPylance) {
  const char* in = std::getenv("LANCEDB_TABLE_IN");
  const char* expect_rows = std::getenv("LANCEDB_EXPECT_ROWS");
  // A producer (run by tests/compat/test_table_compat.py, which sets both variables).
  ASSERT_TRUE(in != nullptr && expect_rows != nullptr)
      << "no table from pylance to read: set LANCEDB_TABLE_IN and LANCEDB_EXPECT_ROWS";
  auto fs = io::LocalFileSystem();
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(fs, in));
  ASSERT_OK_AND_ASSIGN(auto rows, ds->CountRows());
  EXPECT_EQ(rows, std::atoll(expect_rows));
  ScanOptions options;
  options.columns = {"id"};
  ASSERT_OK_AND_ASSIGN(auto reader, ds->Scan(options));
  auto batches = reader->ReadAll();
  ASSERT_TRUE(batches.ok()) << batches.status().ToString();
  int64_t scanned = 0;
  for (const auto& b : *batches) scanned += b->num_rows();
  EXPECT_EQ(scanned, rows);
  if (const char* sum = std::getenv("LANCEDB_EXPECT_ID_SUM")) {
    int64_t total = 0;
    for (const auto& b : *batches) {
      const int64_t* v = b->column(0)->GetValues<int64_t>(1);
      for (int64_t i = 0; i < b->num_rows(); ++i) total += v[i];
    }
    EXPECT_EQ(total, std::atoll(sum));
  }
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::table
