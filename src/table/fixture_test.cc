// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Tables written by LanceDB 0.39 (Lance 12.0): manifest-level facts must match what pylance
// reports (versions, fragments, physical rows, row counts with deletions). The fixtures are
// read in place; any mutation happens on a copy in a temporary directory.

#include <gtest/gtest.h>

#include <filesystem>

#include "table/dataset.h"
#include "table/proto/rowids.pb.h"
#include "table/table_test_util.h"

namespace lancedb::table {
namespace LANCEDB_TEST_FILE_NS {

using testing::FixturesDir;

struct Expected {
  const char* name;
  uint64_t version;
  int64_t rows;
  int fragments;
  std::vector<uint64_t> physical_rows;
  std::string format;
};

TEST(Fixtures, ManifestFactsMatchPylance) {
  LANCEDB_REQUIRE_FIXTURES();
  // Values from `lance.dataset(p)` (pylance 12): version, count_rows(), fragments.
  std::vector<Expected> tables = {
      {"dense_del", 2, 5500, 1, {12000}, "2.2"},
      {"fulldel", 3, 100, 1, {100}, "2.2"},
      {"ops", 11, 6435, 4, {3000, 3000, 3000, 9}, "2.2"},
      {"stable", 4, 1490, 3, {1000, 500, 5}, "2.2"},
      {"types_20", 1, 5000, 1, {5000}, "2.0"},
      {"types_21", 1, 5000, 1, {5000}, "2.1"},
      {"types_22", 1, 5000, 1, {5000}, "2.2"},
  };
  auto fs = io::LocalFileSystem();
  for (const auto& t : tables) {
    SCOPED_TRACE(t.name);
    ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(fs, FixturesDir() + "/" + t.name + ".lance"));
    EXPECT_EQ(ds->version(), t.version);
    ASSERT_OK_AND_ASSIGN(auto latest, ds->LatestVersion());
    EXPECT_EQ(latest, t.version);
    ASSERT_OK_AND_ASSIGN(auto rows, ds->CountRows());
    EXPECT_EQ(rows, t.rows);
    const auto& frags = ds->manifest().proto().fragments();
    ASSERT_EQ(frags.size(), t.fragments);
    for (int i = 0; i < frags.size(); ++i) EXPECT_EQ(frags[i].physical_rows(), t.physical_rows[i]);
    EXPECT_EQ(ds->manifest().data_format_version(), t.format);
    ASSERT_OK_AND_ASSIGN(auto versions, ds->ListVersions());
    EXPECT_EQ(versions.size(), t.version);
  }
}

TEST(Fixtures, OlderVersionsOpen) {
  LANCEDB_REQUIRE_FIXTURES();
  auto fs = io::LocalFileSystem();
  std::string root = FixturesDir() + "/ops.lance";
  for (uint64_t v = 1; v <= 11; ++v) {
    ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(fs, root, v));
    EXPECT_EQ(ds->version(), v);
    ASSERT_OK_AND_ASSIGN(auto rows, ds->CountRows());
    EXPECT_GT(rows, 0);
  }
  ASSERT_OK_AND_ASSIGN(auto first, Dataset::Open(fs, root, 1));
  ASSERT_OK_AND_ASSIGN(auto rows, first->CountRows());
  EXPECT_EQ(rows, 3000);
  ASSERT_OK_AND_ASSIGN(auto fulldel2, Dataset::Open(fs, FixturesDir() + "/fulldel.lance", 2));
  ASSERT_OK_AND_ASSIGN(rows, fulldel2->CountRows());
  EXPECT_EQ(rows, 200);
  ASSERT_OK_AND_ASSIGN(auto fulldel3, Dataset::Open(fs, FixturesDir() + "/fulldel.lance", 3));
  EXPECT_EQ(fulldel3->manifest().proto().fragments(0).id(), 1u);
  EXPECT_EQ(fulldel3->manifest().proto().max_fragment_id(), 1u);
}

TEST(Fixtures, DeleteOnACopyOfDenseDel) {
  LANCEDB_REQUIRE_FIXTURES();
  testing::TempDir dir;
  std::string root = dir.path() + "/dense_del.lance";
  std::filesystem::copy(FixturesDir() + "/dense_del.lance", root,
                        std::filesystem::copy_options::recursive);
  auto fs = io::LocalFileSystem();
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(fs, root));
  // Rows 0..9 are live, 1000..1009 already deleted.
  std::vector<uint64_t> addrs;
  for (uint64_t i = 0; i < 10; ++i) addrs.push_back(i);
  for (uint64_t i = 1000; i < 1010; ++i) addrs.push_back(i);
  int64_t deleted = 0;
  ASSERT_OK_AND_ASSIGN(auto v3, ds->DeleteRows(addrs, &deleted));
  EXPECT_EQ(deleted, 10);
  EXPECT_EQ(v3->version(), 3u);
  ASSERT_OK_AND_ASSIGN(auto rows, v3->CountRows());
  EXPECT_EQ(rows, 5490);
  EXPECT_EQ(v3->manifest().proto().fragments(0).deletion_file().file_type(),
            pb::DeletionFile::BITMAP);
  ASSERT_OK_AND_ASSIGN(auto reopened, Dataset::Open(fs, root));
  ASSERT_OK_AND_ASSIGN(rows, reopened->CountRows());
  EXPECT_EQ(rows, 5490);
}

TEST(Fixtures, StableRowIdsAssignedOnAppendToACopy) {
  LANCEDB_REQUIRE_FIXTURES();
  testing::TempDir dir;
  std::string root = dir.path() + "/stable.lance";
  std::filesystem::copy(FixturesDir() + "/stable.lance", root,
                        std::filesystem::copy_options::recursive);
  auto fs = io::LocalFileSystem();
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(fs, root));
  EXPECT_EQ(ds->manifest().proto().next_row_id(), 1500u);
  int64_t n = 0;
  ASSERT_OK_AND_ASSIGN(auto v5, ds->DeleteRows({(uint64_t{1} << 32) | 7}, &n));
  EXPECT_EQ(n, 1);
  EXPECT_EQ(v5->manifest().proto().reader_feature_flags(), 3u);
  // Append rows of the table's own schema (no nulls needed: all columns nullable but id).
  auto schema = v5->schema();
  std::vector<array::ArrayPtr> columns;
  for (const auto& field : schema->fields()) {
    if (field->name() == "id") {
      columns.push_back(array::MakePrimitive<int64_t>(array::int64(), {5000, 5001, 5002}));
    } else {
      columns.push_back(array::MakeNullArray(field->type(), 3));
    }
  }
  ASSERT_OK_AND_ASSIGN(auto batch, array::RecordBatch::Make(schema, columns));
  auto reader = array::MakeVectorReader(schema, {batch});
  ASSERT_OK_AND_ASSIGN(auto v6, v5->Append(reader.get()));
  const auto& m = v6->manifest().proto();
  EXPECT_EQ(m.next_row_id(), 1503u);
  EXPECT_EQ(m.reader_feature_flags(), 3u);
  const auto& frag = m.fragments(m.fragments_size() - 1);
  EXPECT_EQ(frag.id(), 3u);
  pb::RowIdSequence ids;
  ASSERT_TRUE(ids.ParseFromString(frag.inline_row_ids()));
  ASSERT_EQ(ids.segments_size(), 1);
  EXPECT_EQ(ids.segments(0).range().start(), 1500u);
  EXPECT_EQ(ids.segments(0).range().end(), 1503u);
  pb::RowDatasetVersionSequence created;
  ASSERT_TRUE(created.ParseFromString(frag.inline_created_at_versions()));
  ASSERT_EQ(created.runs_size(), 1);
  EXPECT_EQ(created.runs(0).version(), 6u);
  EXPECT_EQ(created.runs(0).span().range().end(), 3u);
  ASSERT_OK_AND_ASSIGN(auto rows, v6->CountRows());
  EXPECT_EQ(rows, 1492);
}

/// Rows for `schema` with the given int64 ids and every other column null.
array::RecordBatchPtr IdsOnly(const array::SchemaPtr& schema, const std::vector<int64_t>& ids) {
  std::vector<array::ArrayPtr> columns;
  for (const auto& field : schema->fields()) {
    columns.push_back(field->name() == "id"
                          ? array::MakePrimitive<int64_t>(array::int64(), ids)
                          : array::MakeNullArray(field->type(), static_cast<int64_t>(ids.size())));
  }
  auto batch = array::RecordBatch::Make(schema, columns);
  return batch.ok() ? *batch : nullptr;
}

TEST(Fixtures, LanceTransactionsReadWithoutTheManifestEqualTheFullRead) {
  LANCEDB_REQUIRE_FIXTURES();
  auto fs = io::LocalFileSystem();
  const std::string root = FixturesDir() + "/ops.lance";
  ASSERT_OK_AND_ASSIGN(auto listing, ListVersionFiles(*fs, root));
  ASSERT_GE(listing.versions.size(), 10u);
  for (uint64_t v : listing.versions) {
    ASSERT_OK_AND_ASSIGN(auto manifest, ReadManifest(*fs, root, v, listing.naming));
    ASSERT_OK_AND_ASSIGN(auto full, ReadTransaction(*fs, root, *manifest));
    ASSERT_OK_AND_ASSIGN(auto quick, ReadVersionTransaction(*fs, root, v, listing.naming));
    ASSERT_TRUE(quick.has_value()) << v;
    EXPECT_EQ(quick->SerializeAsString(), full.SerializeAsString()) << v;
  }
}

TEST(Fixtures, StaleWritesRebaseOverLanceTransactions) {
  LANCEDB_REQUIRE_FIXTURES();
  testing::TempDir dir;
  std::string root = dir.path() + "/ops.lance";
  std::filesystem::copy(FixturesDir() + "/ops.lance", root,
                        std::filesystem::copy_options::recursive);
  auto fs = io::LocalFileSystem();
  ASSERT_OK_AND_ASSIGN(auto v11, Dataset::Open(fs, root));
  ASSERT_OK_AND_ASSIGN(auto v6, Dataset::Open(fs, root, 6));
  // An append prepared on version 6 rebases over Lance's five CreateIndex commits.
  auto batch = IdsOnly(v6->schema(), {100000, 100001, 100002});
  ASSERT_NE(batch, nullptr);
  auto reader = array::MakeVectorReader(v6->schema(), {batch});
  ASSERT_OK_AND_ASSIGN(auto v12, v6->Append(reader.get()));
  EXPECT_EQ(v12->version(), 12u);
  EXPECT_EQ(v12->manifest().index_section().indices_size(),
            v11->manifest().index_section().indices_size());
  for (int i = 0; i < v11->manifest().index_section().indices_size(); ++i) {
    EXPECT_EQ(v12->manifest().index_section().indices(i).SerializeAsString(),
              v11->manifest().index_section().indices(i).SerializeAsString());
  }
  ASSERT_OK_AND_ASSIGN(auto rows, v12->CountRows());
  EXPECT_EQ(rows, 6438);
  EXPECT_EQ(v12->manifest().proto().fragments(4).id(), 4u);
  // Deletes prepared on version 5 touch fragment 0, of which Lance's Update (v6) rewrote rows
  // 0-6, 8 and 9: one of those rows must be evaluated again (a retryable conflict), another row
  // of the fragment rebases over the update.
  ASSERT_OK_AND_ASSIGN(auto v5, Dataset::Open(fs, root, 5));
  int64_t n = 0;
  auto conflict = v5->DeleteRows({8}, &n);
  EXPECT_TRUE(conflict.status().IsCommitConflict() && conflict.status().IsRetryable())
      << conflict.status().ToString();
  ASSERT_OK_AND_ASSIGN(auto latest, v5->LatestVersion());
  EXPECT_EQ(latest, 12u);
  ASSERT_OK_AND_ASSIGN(auto v13, v5->DeleteRows({20}, &n));
  EXPECT_EQ(v13->version(), 13u);
  EXPECT_EQ(n, 1);
  ASSERT_OK_AND_ASSIGN(rows, v13->CountRows());
  EXPECT_EQ(rows, 6437);
}

TEST(Fixtures, ScanDenseDelIds) {
  LANCEDB_REQUIRE_FIXTURES();
  auto fs = io::LocalFileSystem();
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(fs, FixturesDir() + "/dense_del.lance"));
  ScanOptions options;
  options.columns = {"id"};
  ASSERT_OK_AND_ASSIGN(auto reader, ds->Scan(options));
  auto batches = reader->ReadAll();
  ASSERT_TRUE(batches.ok()) << batches.status().ToString();
  // LanceDB wrote `id` as float64 (JavaScript numbers).
  ASSERT_EQ(ds->schema()->field(0)->type()->id(), array::TypeId::kFloat64);
  std::vector<double> ids;
  for (const auto& b : *batches) {
    const double* v = b->column(0)->GetValues<double>(1);
    ids.insert(ids.end(), v, v + b->num_rows());
  }
  ASSERT_EQ(ids.size(), 5500u);
  EXPECT_EQ(ids[999], 999.0);
  EXPECT_EQ(ids[1000], 7500.0);
  EXPECT_EQ(ids.back(), 11999.0);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::table
