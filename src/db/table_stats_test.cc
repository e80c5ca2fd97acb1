// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Tests of Table::Stats (the figures LanceDB reports for the same operations), of the manifest
// naming migration through the Table API, and of Table::Add's progress reports.

#include <gtest/gtest.h>

#include <filesystem>

#include "array/builder.h"
#include "array/c_bridge.h"
#include "common/test_util.h"
#include "lancedb/lancedb.h"
#include "table/table_test_util.h"

namespace lancedb {
namespace LANCEDB_TEST_FILE_NS {

namespace la = lancedb::array;
namespace fs = std::filesystem;
using table::testing::TempDir;

la::SchemaPtr Schema() {
  return la::schema({la::field("id", la::int64(), false), la::field("s", la::utf8())});
}

la::RecordBatchPtr Rows(int64_t first, int64_t count) {
  std::vector<int64_t> ids;
  std::vector<std::optional<std::string>> ss;
  for (int64_t i = first; i < first + count; ++i) {
    ids.push_back(i);
    ss.push_back("v" + std::to_string(i));
  }
  return *la::RecordBatch::Make(Schema(),
                                {la::MakePrimitive(la::int64(), ids), la::MakeString(ss)});
}

ArrowArrayStream Stream(std::vector<la::RecordBatchPtr> batches) {
  ArrowArrayStream s;
  EXPECT_TRUE(
      la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), std::move(batches)), &s).ok());
  return s;
}

/// Sum of the sizes of the regular files under `dir` (recursively).
uint64_t BytesUnder(const fs::path& dir) {
  uint64_t total = 0;
  if (!fs::exists(dir)) return 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) total += e.file_size();
  }
  return total;
}

TEST(TableStats, EmptyTableIsAllZero) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, Connect(dir.path()));
  auto s = Stream({});
  ASSERT_OK_AND_ASSIGN(auto t, db->CreateTable("e", &s));
  ASSERT_OK_AND_ASSIGN(auto stats, t->Stats());
  EXPECT_EQ(stats.total_bytes, 0u);
  EXPECT_EQ(stats.num_rows, 0u);
  EXPECT_EQ(stats.num_indices, 0u);
  EXPECT_EQ(stats.fragment_stats.num_fragments, 0u);
  EXPECT_EQ(stats.fragment_stats.num_small_fragments, 0u);
  EXPECT_EQ(stats.fragment_stats.lengths.max, 0u);
  EXPECT_EQ(stats.fragment_stats.lengths.p99, 0u);
}

// The sequence of LanceDB's own stats test run through its Python API: fragments of 10, 5, 300,
// 1 and 2 rows, then a delete, then an index (figures as LanceDB 0.39 reports them).
TEST(TableStats, MatchesLanceDbFigures) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, Connect(dir.path()));
  auto s = Stream({Rows(0, 10)});
  ASSERT_OK_AND_ASSIGN(auto t, db->CreateTable("t", &s));
  const fs::path root = fs::path(dir.path()) / "t.lance";
  uint64_t one_row_file = 0;  // the data file of the fragment of one row
  for (int64_t n : {5, 300, 1, 2}) {
    const uint64_t before = BytesUnder(root / "data");
    auto more = Stream({Rows(0, n)});
    ASSERT_OK(t->Add(&more).status());
    if (n == 1) one_row_file = BytesUnder(root / "data") - before;
  }
  ASSERT_OK_AND_ASSIGN(auto stats, t->Stats());
  EXPECT_EQ(stats.num_rows, 318u);
  EXPECT_EQ(stats.num_indices, 0u);
  EXPECT_EQ(stats.total_bytes, BytesUnder(root / "data"));
  const auto& f = stats.fragment_stats;
  EXPECT_EQ(f.num_fragments, 5u);
  EXPECT_EQ(f.num_small_fragments, 5u);
  EXPECT_EQ(f.lengths.min, 1u);
  EXPECT_EQ(f.lengths.max, 300u);
  EXPECT_EQ(f.lengths.mean, 63u);  // 318 / 5, rounded down
  EXPECT_EQ(f.lengths.p25, 2u);
  EXPECT_EQ(f.lengths.p50, 5u);
  EXPECT_EQ(f.lengths.p75, 10u);
  EXPECT_EQ(f.lengths.p99, 300u);

  // Deletion files are not counted; fragments keep their physical row counts; the fragment of
  // one row goes away with its row (its file stays on disk until pruned, uncounted).
  ASSERT_OK(t->Delete("id = 0").status());
  ASSERT_OK_AND_ASSIGN(stats, t->Stats());
  EXPECT_EQ(stats.num_rows, 313u);
  const uint64_t live_data = BytesUnder(root / "data") - one_row_file;
  EXPECT_EQ(stats.total_bytes, live_data);
  EXPECT_GT(BytesUnder(root / "_deletions"), 0u);
  EXPECT_EQ(stats.fragment_stats.num_fragments, 4u);
  EXPECT_EQ(stats.fragment_stats.lengths.min, 2u);
  EXPECT_EQ(stats.fragment_stats.lengths.mean, 79u);
  EXPECT_EQ(stats.fragment_stats.lengths.p25, 5u);
  EXPECT_EQ(stats.fragment_stats.lengths.p50, 10u);
  EXPECT_EQ(stats.fragment_stats.lengths.p75, 300u);

  // Index files count.
  ASSERT_OK(t->CreateScalarIndex("id", ScalarIndexType::kBTree));
  ASSERT_OK_AND_ASSIGN(stats, t->Stats());
  EXPECT_EQ(stats.num_indices, 1u);
  EXPECT_GT(BytesUnder(root / "_indices"), 0u);
  EXPECT_EQ(stats.total_bytes, live_data + BytesUnder(root / "_indices"));
}

TEST(TableStats, LargeFragmentsAreNotSmall) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, Connect(dir.path()));
  auto s = Stream({Rows(0, static_cast<int64_t>(kSmallFragmentRows))});
  ASSERT_OK_AND_ASSIGN(auto t, db->CreateTable("t", &s));
  auto more = Stream({Rows(0, static_cast<int64_t>(kSmallFragmentRows) - 1)});
  ASSERT_OK(t->Add(&more).status());
  ASSERT_OK_AND_ASSIGN(auto stats, t->Stats());
  EXPECT_EQ(stats.fragment_stats.num_fragments, 2u);
  EXPECT_EQ(stats.fragment_stats.num_small_fragments, 1u);
}

TEST(TableStats, ReportsTheCheckedOutVersion) {
  ASSERT_OK_AND_ASSIGN(auto db, Connect("memory://stats-checkout"));
  auto s = Stream({Rows(0, 10)});
  ASSERT_OK_AND_ASSIGN(auto t, db->CreateTable("t", &s));
  auto more = Stream({Rows(10, 20)});
  ASSERT_OK(t->Add(&more).status());
  ASSERT_OK(t->Checkout(1));
  ASSERT_OK_AND_ASSIGN(auto stats, t->Stats());
  EXPECT_EQ(stats.num_rows, 10u);
  EXPECT_EQ(stats.fragment_stats.num_fragments, 1u);
}

TEST(TableManifestPaths, MigrateRenamesManifestsAndKeepsTimeTravel) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, Connect(dir.path()));
  auto s = Stream({Rows(0, 10)});
  ASSERT_OK_AND_ASSIGN(auto t, db->CreateTable("t", &s, CreateTableMode::kCreate,
                                               {{"new_table_enable_v2_manifest_paths", "false"}}));
  auto more = Stream({Rows(10, 5)});
  ASSERT_OK(t->Add(&more).status());
  ASSERT_OK_AND_ASSIGN(bool v2, t->UsesV2ManifestPaths());
  EXPECT_FALSE(v2);
  const fs::path versions = fs::path(dir.path()) / "t.lance" / "_versions";
  EXPECT_TRUE(fs::exists(versions / "1.manifest"));

  // A checked-out handle cannot migrate (as every write).
  ASSERT_OK(t->Checkout(1));
  EXPECT_TRUE(t->MigrateManifestPathsV2().IsNotSupported());
  ASSERT_OK(t->CheckoutLatest());

  ASSERT_OK(t->MigrateManifestPathsV2());
  ASSERT_OK_AND_ASSIGN(v2, t->UsesV2ManifestPaths());
  EXPECT_TRUE(v2);
  EXPECT_FALSE(fs::exists(versions / "1.manifest"));
  EXPECT_TRUE(fs::exists(versions / "18446744073709551614.manifest"));
  ASSERT_OK(t->MigrateManifestPathsV2());  // a no-op
  ASSERT_OK_AND_ASSIGN(auto listed, t->ListVersions());
  EXPECT_EQ(listed.size(), 2u);
  auto third = Stream({Rows(15, 5)});
  ASSERT_OK_AND_ASSIGN(auto added, t->Add(&third));
  EXPECT_EQ(added.version, 3u);
  EXPECT_TRUE(fs::exists(versions / "18446744073709551612.manifest"));
  ASSERT_OK(t->Checkout(1));
  ASSERT_OK_AND_ASSIGN(int64_t rows, t->CountRows());
  EXPECT_EQ(rows, 10);
  ASSERT_OK(t->CheckoutLatest());
  ASSERT_OK_AND_ASSIGN(rows, t->CountRows());
  EXPECT_EQ(rows, 20);
}

TEST(TableAddProgress, ReportsBatchesFilesAndDone) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, Connect(dir.path()));
  auto s = Stream({Rows(0, 1)});
  ASSERT_OK_AND_ASSIGN(auto t, db->CreateTable("t", &s));
  const fs::path data = fs::path(dir.path()) / "t.lance" / "data";
  const uint64_t before = BytesUnder(data);
  std::vector<WriteProgress> reports;
  AddOptions options;
  options.progress = [&](const WriteProgress& p) { reports.push_back(p); };
  options.total_rows = 70;
  auto more = Stream({Rows(0, 30), Rows(30, 40)});
  ASSERT_OK(t->Add(&more, options).status());
  ASSERT_EQ(reports.size(), 4u);  // two batches, one data file, done
  EXPECT_EQ(reports[0].output_rows, 30u);
  EXPECT_EQ(reports[1].output_rows, 70u);
  EXPECT_GT(reports[1].output_bytes, reports[0].output_bytes);
  for (const auto& p : reports) {
    EXPECT_EQ(p.total_rows, std::optional<uint64_t>(70));
    EXPECT_EQ(p.total_tasks, 1u);
    EXPECT_EQ(p.active_tasks, p.done ? 0u : 1u);
  }
  EXPECT_FALSE(reports[2].done);
  EXPECT_EQ(reports[2].output_bytes, BytesUnder(data) - before);  // the data file written
  EXPECT_TRUE(reports[3].done);
  EXPECT_EQ(reports[3].output_rows, 70u);
  EXPECT_EQ(reports[3].output_bytes, reports[2].output_bytes);
  EXPECT_GE(reports[3].elapsed, reports[0].elapsed);
}

TEST(TableAddProgress, UnknownTotalIsTheRowsWrittenWhenDone) {
  ASSERT_OK_AND_ASSIGN(auto db, Connect("memory://progress-total"));
  auto s = Stream({Rows(0, 1)});
  ASSERT_OK_AND_ASSIGN(auto t, db->CreateTable("t", &s));
  std::vector<WriteProgress> reports;
  AddOptions options;
  options.mode = AddMode::kOverwrite;
  options.progress = [&](const WriteProgress& p) { reports.push_back(p); };
  auto more = Stream({Rows(0, 12)});
  ASSERT_OK(t->Add(&more, options).status());
  ASSERT_FALSE(reports.empty());
  EXPECT_FALSE(reports.front().total_rows.has_value());
  EXPECT_EQ(reports.back().total_rows, std::optional<uint64_t>(12));
  ASSERT_OK_AND_ASSIGN(int64_t rows, t->CountRows());
  EXPECT_EQ(rows, 12);
}

TEST(TableAddProgress, EmptyInputAndFailuresStillReportDone) {
  ASSERT_OK_AND_ASSIGN(auto db, Connect("memory://progress-done"));
  auto s = Stream({Rows(0, 1)});
  ASSERT_OK_AND_ASSIGN(auto t, db->CreateTable("t", &s));
  std::vector<WriteProgress> reports;
  AddOptions options;
  options.progress = [&](const WriteProgress& p) { reports.push_back(p); };
  auto empty = Stream({});
  ASSERT_OK(t->Add(&empty, options).status());
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_TRUE(reports[0].done);
  EXPECT_EQ(reports[0].output_rows, 0u);
  EXPECT_EQ(reports[0].total_rows, std::optional<uint64_t>(0));

  reports.clear();
  auto bad_schema = la::schema({la::field("other", la::int64())});
  ArrowArrayStream bad;
  ASSERT_OK(la::ExportRecordBatchReader(
      la::MakeVectorReader(
          bad_schema, {*la::RecordBatch::Make(
                          bad_schema, {la::MakePrimitive(la::int64(), std::vector<int64_t>{1})})}),
      &bad));
  EXPECT_FALSE(t->Add(&bad, options).ok());
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_TRUE(reports[0].done);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb
