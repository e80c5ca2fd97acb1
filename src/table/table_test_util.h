// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Helpers shared by the table layer tests.

#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "array/builder.h"
#include "common/test_dirs.h"
#include "common/test_util.h"
#include "table/dataset.h"
#include "table/manifest.h"

namespace lancedb::table::testing {

/// Schema of the test tables: id int64, x float64, s utf8.
inline array::SchemaPtr TestSchema() {
  return array::schema({array::field("id", array::int64()), array::field("x", array::float64()),
                        array::field("s", array::utf8())});
}

/// Rows [start, start + n): id = i, x = i * 0.5, s = "row-i" (null every 7th row).
inline array::RecordBatchPtr TestBatch(int64_t start, int64_t n) {
  std::vector<int64_t> ids;
  std::vector<double> xs;
  std::vector<std::optional<std::string>> ss;
  for (int64_t i = start; i < start + n; ++i) {
    ids.push_back(i);
    xs.push_back(static_cast<double>(i) * 0.5);
    ss.push_back(i % 7 == 0 ? std::nullopt
                            : std::optional<std::string>("row-" + std::to_string(i)));
  }
  auto batch = array::RecordBatch::Make(
      TestSchema(), {array::MakePrimitive<int64_t>(array::int64(), ids),
                     array::MakePrimitive<double>(array::float64(), xs), array::MakeString(ss)});
  return batch.ok() ? *batch : nullptr;
}

inline std::unique_ptr<array::RecordBatchReader> TestReader(int64_t start, int64_t n,
                                                            int64_t batch_rows = 1000) {
  std::vector<array::RecordBatchPtr> batches;
  for (int64_t s = start; s < start + n; s += batch_rows) {
    batches.push_back(TestBatch(s, std::min(batch_rows, start + n - s)));
  }
  return array::MakeVectorReader(TestSchema(), std::move(batches));
}

/// A unique path in the process-wide memory file system.
/// Write rows [0, rows) of the test schema as a new dataset at `path`; nullptr (and a test
/// failure) when the write fails.
inline DatasetPtr WriteTestDataset(const io::FileSystemPtr& fs, const std::string& path,
                                   int64_t rows, const WriteParams& params = {}) {
  auto reader = TestReader(0, rows);
  auto ds = Dataset::Write(fs, path, reader.get(), params);
  EXPECT_TRUE(ds.ok()) << ds.status().ToString();
  return ds.ok() ? *ds : nullptr;
}

/// Write parameters with stable row ids on or off.
inline WriteParams StableRowIds(bool stable) {
  WriteParams params;
  params.enable_stable_row_ids = stable;
  return params;
}

inline std::string MemPath(const std::string& name) {
  static std::atomic<int> counter{0};
  return "table-test/" + name + "-" + std::to_string(counter++) + "-" +
         std::to_string(std::random_device{}());
}

/// A fresh local temporary directory, removed on destruction.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "lancedb-table-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Read the `id` column of every row (and row addresses when `addresses` is given).
inline std::vector<int64_t> ScanIds(const Dataset& ds, std::vector<uint64_t>* addresses = nullptr) {
  std::vector<int64_t> ids;
  ScanOptions options;
  options.columns = {"id"};
  options.with_row_id = addresses != nullptr;
  auto reader = ds.Scan(options);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return ids;
  while (true) {
    auto batch = (*reader)->Next();
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok() || *batch == nullptr) break;
    const auto& col = (*batch)->column(0);
    const int64_t* v = col->GetValues<int64_t>(1);
    ids.insert(ids.end(), v, v + col->length);
    if (addresses) {
      const uint64_t* a = (*batch)->column(1)->GetValues<uint64_t>(1);
      addresses->insert(addresses->end(), a, a + col->length);
    }
  }
  return ids;
}

/// The tables LanceDB 0.39 wrote (see common/test_dirs.h; guard with LANCEDB_REQUIRE_FIXTURES).
inline std::string FixturesDir() { return testdirs::LanceDbFixturesDir().string(); }

}  // namespace lancedb::table::testing
