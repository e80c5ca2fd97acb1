// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Scans with a pruning predicate over the zone statistics kept in data files: skipped
// fragments and pages are not read (observed through the bytes a counting file system serves),
// row addresses and deletions stay right, and files without statistics are read in full.

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>

#include "array/builder.h"
#include "format/file_writer.h"
#include "table/dataset.h"
#include "table/table_test_util.h"

namespace lancedb::table {
namespace LANCEDB_TEST_FILE_NS {

/// Forwards to another file system and counts the bytes of range reads.
class CountingFileSystem : public io::FileSystem {
 public:
  explicit CountingFileSystem(io::FileSystemPtr base) : base_(std::move(base)) {}
  int64_t bytes_read() const { return bytes_read_.load(); }

  Result<BufferPtr> ReadFile(const std::string& path) override { return base_->ReadFile(path); }
  Result<BufferPtr> ReadRange(const std::string& path, int64_t offset, int64_t length) override {
    bytes_read_ += length;
    return base_->ReadRange(path, offset, length);
  }
  Result<int64_t> GetSize(const std::string& path) override { return base_->GetSize(path); }
  Result<bool> Exists(const std::string& path) override { return base_->Exists(path); }
  Status WriteFile(const std::string& path, std::span<const uint8_t> data) override {
    return base_->WriteFile(path, data);
  }
  Status PutIfAbsent(const std::string& path, std::span<const uint8_t> data) override {
    return base_->PutIfAbsent(path, data);
  }
  Result<std::vector<io::FileInfo>> ListDir(const std::string& dir) override {
    return base_->ListDir(dir);
  }
  Status CreateDir(const std::string& dir) override { return base_->CreateDir(dir); }
  Status DeleteFile(const std::string& path) override { return base_->DeleteFile(path); }
  Status DeleteDirRecursive(const std::string& dir) override {
    return base_->DeleteDirRecursive(dir);
  }
  Result<std::unique_ptr<io::OutputStream>> OpenOutputStream(const std::string& path) override {
    return base_->OpenOutputStream(path);
  }

 private:
  io::FileSystemPtr base_;
  std::atomic<int64_t> bytes_read_{0};
};

/// A predicate keeping the ranges whose `id` bounds contain one of `wanted`; it counts calls.
format::RangePredicate IdContains(std::vector<int64_t> wanted, int* calls) {
  return [wanted = std::move(wanted), calls](const format::RangeStatsLookup& lookup) {
    ++*calls;
    const format::RangeColumnStats* id = lookup("id");
    if (id == nullptr || !id->stats.has_bounds) return true;
    for (int64_t k : wanted) {
      if (id->stats.min_int <= k && k <= id->stats.max_int) return true;
    }
    return false;
  };
}

struct ScanResult {
  std::vector<int64_t> ids;
  std::vector<uint64_t> row_ids;
};

ScanResult ScanIds(const Dataset& ds, format::RangePredicate pred) {
  ScanOptions options;
  options.columns = {"id"};
  options.with_row_id = true;
  options.may_match = std::move(pred);
  ScanResult out;
  auto reader = ds.Scan(options);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return out;
  while (true) {
    auto batch = (*reader)->Next();
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok() || *batch == nullptr) break;
    const auto& b = **batch;
    for (int64_t i = 0; i < b.num_rows(); ++i) {
      out.ids.push_back(b.column(0)->GetValues<int64_t>(1)[i]);
      out.row_ids.push_back(b.column(1)->GetValues<uint64_t>(1)[i]);
    }
  }
  return out;
}

TEST(PrunedScan, SkipsFragmentsAndZonesKeepingAddressesAndDeletions) {
  auto fs = std::make_shared<CountingFileSystem>(io::MemoryFileSystem());
  const std::string root = testing::MemPath("pruned_scan");
  auto data = testing::TestReader(0, 50000, 5000);
  WriteParams params;
  params.max_rows_per_file = 10000;  // fragments of 10000 rows: zones [0, 8192), [8192, 10000)
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Write(fs, root, data.get(), params));
  ASSERT_EQ(ds->manifest().proto().fragments_size(), 5);
  // Delete ids 20000..20009 (fragment 2, offsets 0..9).
  std::vector<uint64_t> dead;
  for (uint64_t o = 0; o < 10; ++o) dead.push_back((uint64_t{2} << 32) | o);
  int64_t deleted = 0;
  ASSERT_OK_AND_ASSIGN(ds, ds->DeleteRows(dead, &deleted));
  ASSERT_EQ(deleted, 10);

  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(fs, root));
  int64_t before = fs->bytes_read();
  ScanResult full = ScanIds(*ds, nullptr);
  const int64_t full_bytes = fs->bytes_read() - before;
  EXPECT_EQ(full.ids.size(), 49990u);

  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(fs, root));
  int calls = 0;
  before = fs->bytes_read();
  ScanResult pruned = ScanIds(*ds, IdContains({25000, 49000}, &calls));
  const int64_t pruned_bytes = fs->bytes_read() - before;
  EXPECT_EQ(calls, 10);  // two zones in each of five fragments
  // Zone [0, 8192) of fragment 2 minus its deleted rows, and zone [8192, 10000) of fragment 4.
  std::vector<int64_t> expected_ids;
  std::vector<uint64_t> expected_row_ids;
  for (int64_t i = 20010; i < 28192; ++i) expected_ids.push_back(i);
  for (int64_t i = 48192; i < 50000; ++i) expected_ids.push_back(i);
  for (int64_t id : expected_ids) {
    expected_row_ids.push_back((static_cast<uint64_t>(id / 10000) << 32) |
                               static_cast<uint64_t>(id % 10000));
  }
  EXPECT_EQ(pruned.ids, expected_ids);
  EXPECT_EQ(pruned.row_ids, expected_row_ids);
  // Three of five fragments have no data page read.
  EXPECT_LT(pruned_bytes * 2, full_bytes) << pruned_bytes << " vs " << full_bytes;

  // A predicate rejecting everything reads nothing.
  ScanResult none = ScanIds(*ds, [](const format::RangeStatsLookup&) { return false; });
  EXPECT_TRUE(none.ids.empty());
}

/// One data file of `ids` under data/, with small pages; statistics as `zone_rows` says.
pb::DataFile WriteIds(const io::FileSystemPtr& fs, const std::string& root, const std::string& name,
                      const std::vector<int64_t>& ids, int64_t zone_rows) {
  auto schema = array::schema({array::field("id", array::int64())});
  auto lance_schema = format::LanceSchema::FromArrow(*schema);
  EXPECT_TRUE(lance_schema.ok());
  format::FileWriterOptions options;
  options.max_page_bytes = 8192 * 8;
  options.statistics_zone_rows = zone_rows;
  auto writer = format::FileWriter::Open(fs, root + "/data/" + name, *lance_schema, options);
  EXPECT_TRUE(writer.ok());
  auto batch =
      array::RecordBatch::Make(schema, {array::MakePrimitive<int64_t>(array::int64(), ids)});
  EXPECT_TRUE(batch.ok());
  EXPECT_TRUE((*writer)->Write(**batch).ok());
  auto result = (*writer)->Finish();
  EXPECT_TRUE(result.ok());
  pb::DataFile file;
  file.set_path(name);
  for (int32_t f : result->fields) file.add_fields(f);
  for (int32_t c : result->column_indices) file.add_column_indices(c);
  file.set_file_major_version(2);
  file.set_file_minor_version(2);
  file.set_file_size_bytes(static_cast<uint64_t>(result->file_size_bytes));
  return file;
}

/// A one-version dataset of one fragment per file.
Result<DatasetPtr> MakeTable(const io::FileSystemPtr& fs, const std::string& root,
                             const std::vector<pb::DataFile>& files, int64_t rows) {
  auto schema = array::schema({array::field("id", array::int64())});
  LANCEDB_ASSIGN_OR_RETURN(auto lance_schema, format::LanceSchema::FromArrow(*schema));
  pb::Manifest m;
  SetManifestSchema(lance_schema, &m);
  m.set_version(1);
  for (size_t i = 0; i < files.size(); ++i) {
    auto* frag = m.add_fragments();
    frag->set_id(i);
    frag->set_physical_rows(static_cast<uint64_t>(rows));
    *frag->add_files() = files[i];
  }
  m.set_max_fragment_id(static_cast<uint32_t>(files.size() - 1));
  m.mutable_data_format()->set_file_format("lance");
  m.mutable_data_format()->set_version("2.2");
  StampWriter(&m);
  pb::Transaction txn;
  txn.mutable_overwrite();
  LANCEDB_ASSIGN_OR_RETURN(auto manifest, Manifest::Make(m, {}));
  LANCEDB_RETURN_NOT_OK(
      fs->PutIfAbsent(root + "/_versions/" + ManifestFileName(1, ManifestNaming::kV2),
                      std::string_view(manifest->Serialize(&txn))));
  return Dataset::Open(fs, root);
}

TEST(PrunedScan, SkipsPagesWithinAFile) {
  auto fs = std::make_shared<CountingFileSystem>(io::MemoryFileSystem());
  const std::string root = testing::MemPath("pruned_pages");
  std::vector<int64_t> ids(65536);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>(i);
  auto file = WriteIds(fs, root, "a.lance", ids, 8192);
  ASSERT_OK_AND_ASSIGN(auto ds, MakeTable(fs, root, {file}, 65536));

  int64_t before = fs->bytes_read();
  ScanResult full = ScanIds(*ds, nullptr);
  const int64_t full_bytes = fs->bytes_read() - before;
  ASSERT_EQ(full.ids, ids);

  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(fs, root));
  int calls = 0;
  before = fs->bytes_read();
  ScanResult pruned = ScanIds(*ds, IdContains({30000}, &calls));
  const int64_t pruned_bytes = fs->bytes_read() - before;
  EXPECT_EQ(calls, 8);
  ASSERT_EQ(pruned.ids.size(), 8192u);
  EXPECT_EQ(pruned.ids.front(), 24576);
  EXPECT_EQ(pruned.row_ids.back(), 32767u);
  // 8 pages of 64 KiB; one or two are read.
  EXPECT_LT(pruned_bytes * 3, full_bytes) << pruned_bytes << " vs " << full_bytes;
}

TEST(PrunedScan, FilesWithoutStatisticsAreReadInFull) {
  auto fs = io::MemoryFileSystem();
  const std::string root = testing::MemPath("no_stats");
  std::vector<int64_t> ids(20000);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>(i);
  auto file = WriteIds(fs, root, "a.lance", ids, /*zone_rows=*/0);
  ASSERT_OK_AND_ASSIGN(auto ds, MakeTable(fs, root, {file}, 20000));
  int calls = 0;
  ScanResult out = ScanIds(*ds, [&calls](const format::RangeStatsLookup&) {
    ++calls;
    return false;
  });
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(out.ids, ids);
}

/// Writes `stats.lance` (files with statistics: nulls, NaN, long strings, bools, dates) under
/// $LANCEDB_STATS_OUT for tests/compat/test_stats_compat.py, which reads it with pylance.
TEST(StatsCompat, WriteTableForPylance) {
  const char* out = std::getenv("LANCEDB_STATS_OUT");
  ASSERT_NE(out, nullptr) << "LANCEDB_STATS_OUT not set (a producer for test_stats_compat.py)";
  auto schema =
      array::schema({array::field("id", array::int64()), array::field("price", array::float64()),
                     array::field("category", array::utf8()),
                     array::field("flag", array::boolean()), array::field("day", array::date32())});
  std::vector<array::RecordBatchPtr> batches;
  for (int64_t start = 0; start < 30000; start += 5000) {
    std::vector<int64_t> ids;
    std::vector<double> prices;
    std::vector<bool> price_valid, flags;
    std::vector<std::optional<std::string>> categories;
    std::vector<int32_t> days;
    for (int64_t i = start; i < start + 5000; ++i) {
      ids.push_back(i);
      prices.push_back(i % 89 == 0 ? std::nan("") : static_cast<double>(i % 1000) * 0.25);
      price_valid.push_back(i % 97 != 0);
      categories.push_back(i % 11 == 0 ? std::nullopt
                           : i % 500 == 0
                               ? std::optional<std::string>(std::string(100, 'x'))
                               : std::optional<std::string>("c" + std::to_string(i / 3000)));
      flags.push_back(i >= 15000);
      days.push_back(static_cast<int32_t>(18000 + i / 100));
    }
    ASSERT_OK_AND_ASSIGN(
        auto batch,
        array::RecordBatch::Make(
            schema, {array::MakePrimitive<int64_t>(array::int64(), ids),
                     array::MakePrimitive<double>(array::float64(), prices, price_valid),
                     array::MakeString(categories), array::MakeBool(flags),
                     array::MakePrimitive<int32_t>(array::date32(), days)}));
    batches.push_back(batch);
  }
  auto reader = array::MakeVectorReader(schema, batches);
  WriteParams params;
  params.max_rows_per_file = 10000;
  ASSERT_OK_AND_ASSIGN(auto ds,
                       Dataset::Write(io::LocalFileSystem(), std::string(out) + "/stats.lance",
                                      reader.get(), params));
  EXPECT_EQ(ds->manifest().proto().fragments_size(), 3);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::table
