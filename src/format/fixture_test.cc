// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Reader test over the data files LanceDB 0.39 wrote (../shared/fixtures): every column of the
// 2.0, 2.1 and 2.2 files decodes (bit-packing, RLE, FSST, dictionaries, lz4, ...). With
// LANCEDB_FORMAT_OUT set, the decoded columns are also written as Arrow IPC for
// tests/compat/test_file_compat.py to compare with pylance.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "array/ipc.h"
#include "common/test_dirs.h"
#include "format/file_reader.h"
#include "io/file_system.h"

namespace lancedb::format {
namespace LANCEDB_TEST_FILE_NS {

/// The data file of a fixture table (each holds one), or "" when there is none.
std::string FixtureDataFile(const std::string& table) {
  std::error_code ec;
  for (const auto& entry :
       std::filesystem::directory_iterator(testdirs::LanceDbFixturesDir() / table / "data", ec)) {
    if (entry.path().extension() == ".lance") return entry.path().string();
  }
  return "";
}

/// Every column of the fixture's data file decodes; the file has exactly `columns`.
void SmokeRead(const std::string& table, const std::vector<std::string>& columns) {
  LANCEDB_REQUIRE_FIXTURE_PATH(testdirs::LanceDbFixturesDir() / table);
  const std::string path = FixtureDataFile(table);
  ASSERT_FALSE(path.empty()) << "no data file in fixture " << table;
  auto fs = io::LocalFileSystem();
  auto reader = FileReader::Open(fs, path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->num_rows(), 5000);
  const char* out = std::getenv("LANCEDB_FORMAT_OUT");
  std::vector<std::string> decoded;
  for (const auto& field : (*reader)->schema().fields()) {
    auto read = (*reader)->Read({field.id}, 0, (*reader)->num_rows());
    ASSERT_TRUE(read.ok()) << field.name << ": " << read.status().ToString();
    decoded.push_back(field.name);
    EXPECT_TRUE(array::ValidateArray(*(*read)->column(0)).ok()) << field.name;
    if (out != nullptr) {
      auto ipc = array::ipc::WriteFile((*read)->schema(), {*read});
      ASSERT_TRUE(ipc.ok());
      ASSERT_TRUE(
          fs->WriteFile(std::string(out) + "/fixture_" + table + "__" + field.name + ".arrow",
                        (*ipc)->span())
              .ok());
    }
  }
  EXPECT_EQ(decoded, columns);
}

const std::vector<std::string> kAllColumns = {
    "i32",          "i64_seq",      "i64_rand",  "i64_runs",        "f32",    "f64",
    "bool",         "str_low",      "str_high",  "str_long",        "bin",    "nullable_i64",
    "nullable_str", "all_null_i32", "const_i32", "vec32",           "vec128", "nullable_vec8",
    "list_i32",     "list_str",     "struct",    "struct_nullable", "ts",     "date",
    "fsb"};

TEST(FixtureSmoke, ReadsEveryColumnOfLanceDb22File) { SmokeRead("types_22.lance", kAllColumns); }

TEST(FixtureSmoke, ReadsEveryColumnOfLanceDb21File) { SmokeRead("types_21.lance", kAllColumns); }

TEST(FixtureSmoke, ReadsEveryColumnOfLanceDb20File) {
  // File format 2.0 cannot hold null structs: the fixture has no struct_nullable column.
  std::vector<std::string> columns = kAllColumns;
  std::erase(columns, "struct_nullable");
  SmokeRead("types_20.lance", columns);
}

/// Take random rows of every column of a fixture and compare with a full read and select.
void TakeEqualsReadAndSelect(const std::string& table) {
  LANCEDB_REQUIRE_FIXTURE_PATH(testdirs::LanceDbFixturesDir() / table);
  const std::string path = FixtureDataFile(table);
  ASSERT_FALSE(path.empty()) << "no data file in fixture " << table;
  auto reader = FileReader::Open(io::LocalFileSystem(), path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  std::mt19937 rng(7);
  std::vector<std::vector<int64_t>> row_sets = {{0}, {4999}, {0, 1, 2, 4998, 4999}};
  for (size_t count : {3, 40, 700}) {
    std::vector<int64_t> rows(count);
    for (auto& r : rows) r = static_cast<int64_t>(rng() % 5000);
    std::sort(rows.begin(), rows.end());
    row_sets.push_back(rows);
  }
  for (const auto& field : (*reader)->schema().fields()) {
    auto full = (*reader)->Read({field.id}, 0, (*reader)->num_rows());
    ASSERT_TRUE(full.ok()) << field.name << ": " << full.status().ToString();
    for (const auto& rows : row_sets) {
      auto taken = (*reader)->Take({field.id}, rows);
      ASSERT_TRUE(taken.ok()) << field.name << ": " << taken.status().ToString();
      auto expected = array::Take((*full)->column(0), rows);
      ASSERT_TRUE(expected.ok());
      EXPECT_TRUE(array::ArrayEquals(**expected, *(*taken)->column(0)))
          << table << " " << field.name << " taking " << rows.size() << " rows";
    }
  }
}

TEST(FixtureTake, TakeEqualsReadAndSelectOnLanceDb22File) {
  TakeEqualsReadAndSelect("types_22.lance");
}

TEST(FixtureTake, TakeEqualsReadAndSelectOnLanceDb21File) {
  TakeEqualsReadAndSelect("types_21.lance");
}

TEST(FixtureTake, TakeEqualsReadAndSelectOnLanceDb20File) {
  TakeEqualsReadAndSelect("types_20.lance");
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::format
