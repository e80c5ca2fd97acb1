// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Tests of Table::Compact / Prune / Optimize: the parallel compaction contract (one
// ReserveFragments and one Rewrite commit), values/nulls/empties preserved after deletes,
// pruning that keeps the latest and tagged versions (or refuses to prune tagged ones), and
// unreferenced files deleted by age or with delete_unverified.

#include <gtest/gtest.h>
#include <roaring/roaring.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "array/builder.h"
#include "array/c_bridge.h"
#include "db/new_table_options.h"
#include "io/file_system.h"
#include "lancedb/lancedb.h"
#include "table/create_index_op.h"
#include "table/dataset.h"
#include "table/manifest.h"
#include "table/table_test_util.h"

namespace lancedb {
namespace LANCEDB_TEST_FILE_NS {

namespace la = lancedb::array;

/// "shared://name": an in-memory database that the tests below also reach under the table's
/// handle (io::ResolveUri gives the same store), which a memory:// connection's store is not.
std::string SharedMemoryUri(const std::string& name) {
  static const bool registered = io::RegisterFileSystem("shared", io::NewMemoryFileSystem()).ok();
  EXPECT_TRUE(registered);
  return "shared://" + name;
}

la::SchemaPtr Schema() {
  return la::schema({la::field("id", la::int64(), false), la::field("s", la::utf8()),
                     la::field("l", la::list(la::int32()))});
}

la::RecordBatchPtr Rows(int64_t first, int64_t count) {
  std::vector<int64_t> ids;
  std::vector<std::optional<std::string>> ss;
  for (int64_t i = first; i < first + count; ++i) {
    ids.push_back(i);
    ss.push_back(i % 3 == 0
                     ? std::nullopt
                     : std::optional<std::string>(i % 3 == 1 ? "" : "v" + std::to_string(i)));
  }
  // Lists: NULL every 4th row, else 0..2 copies of the id (empty lists included).
  std::vector<int64_t> offsets{0};
  std::vector<int32_t> items;
  std::vector<bool> valid;
  for (int64_t i = first; i < first + count; ++i) {
    valid.push_back(i % 4 != 0);
    for (int64_t k = 0; k < (i % 4 == 0 ? 0 : i % 4 - 1); ++k)
      items.push_back(static_cast<int32_t>(i));
    offsets.push_back(static_cast<int64_t>(items.size()));
  }
  auto lists =
      la::MakeList(la::list(la::int32()), offsets, la::MakePrimitive(la::int32(), items), valid);
  return *la::RecordBatch::Make(Schema(),
                                {la::MakePrimitive(la::int64(), ids), la::MakeString(ss), lists});
}

std::shared_ptr<Table> MakeTable(const std::string& uri, int fragments, int rows) {
  auto db = Connect(uri);
  ArrowArrayStream s;
  EXPECT_TRUE(
      la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {Rows(0, rows)}), &s).ok());
  auto t = *(*db)->CreateTable("t", &s);
  for (int f = 1; f < fragments; ++f) {
    EXPECT_TRUE(
        la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {Rows(f * rows, rows)}), &s)
            .ok());
    EXPECT_TRUE(t->Add(&s).ok());
  }
  return t;
}

std::string Dump(const std::shared_ptr<Table>& t) {
  ArrowArrayStream s;
  EXPECT_TRUE(t->Scan({}, &s).ok());
  auto reader = la::ImportArrayStream(&s).MoveValueUnsafe();
  auto batches = *reader->ReadAll();
  return (*la::ConcatenateBatches(reader->schema(), batches))->ToString();
}

TEST(Compaction, ParallelCompactionReservesFragmentIdsOnce) {
  auto t = MakeTable("memory://compact64", 64, 10);
  const uint64_t before = *t->version();
  CompactionOptions o;
  o.target_rows_per_fragment = 20;
  o.num_threads = 64;
  auto stats = t->Compact(o);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->fragments_removed, 64u);
  EXPECT_EQ(stats->fragments_added, 32u);
  EXPECT_EQ(stats->files_removed, 64u);
  EXPECT_EQ(stats->files_added, 32u);
  EXPECT_EQ(*t->CountRows(), 640);
  EXPECT_EQ(*t->version(), before + 2);
  auto again = t->Compact(o);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->fragments_removed, 0u);
  EXPECT_EQ(*t->version(), before + 2);
}

/// Register an index over every fragment of table "t" of database `uri` (table layer, as an index
/// builder would), so compaction has an index to keep correct.
void RegisterIndex(const std::string& uri) {
  io::FileSystemPtr fs;
  std::string root;
  ASSERT_TRUE(io::ResolveUri(uri, &fs, &root).ok());
  root = io::JoinPath(root, "t.lance");
  auto ds = *table::Dataset::Open(fs, root);
  table::pb::IndexMetadata index;
  index.mutable_uuid()->set_uuid(std::string(16, '\x42'));
  index.add_fields(0);
  index.set_name("id_idx");
  index.set_dataset_version(ds->version());
  roaring_bitmap_t* bitmap = roaring_bitmap_create();
  for (const auto& f : ds->manifest().proto().fragments()) {
    roaring_bitmap_add(bitmap, static_cast<uint32_t>(f.id()));
  }
  std::string bytes(roaring_bitmap_portable_size_in_bytes(bitmap), '\0');
  roaring_bitmap_portable_serialize(bitmap, bytes.data());
  roaring_bitmap_free(bitmap);
  index.set_fragment_bitmap(bytes);
  index.mutable_index_details()->set_type_url("/lancedb_cpp.test.OpaqueIndexDetails");
  table::CreateIndexOperation op({index}, {}, false);
  auto listing = *table::ListVersionFiles(*fs, root);
  auto base = std::make_shared<const table::Manifest>(ds->manifest());
  ASSERT_TRUE(table::CommitOperation(fs, root, base, listing.naming, &op).ok());
}

uint64_t IndexedFragments(const std::string& uri) {
  io::FileSystemPtr fs;
  std::string root;
  EXPECT_TRUE(io::ResolveUri(uri, &fs, &root).ok());
  root = io::JoinPath(root, "t.lance");
  auto ds = *table::Dataset::Open(fs, root);
  EXPECT_EQ(ds->manifest().index_section().indices_size(), 1);
  const std::string& bytes = ds->manifest().index_section().indices(0).fragment_bitmap();
  roaring_bitmap_t* bitmap = roaring_bitmap_portable_deserialize_safe(bytes.data(), bytes.size());
  uint64_t n = roaring_bitmap_get_cardinality(bitmap);
  roaring_bitmap_free(bitmap);
  return n;
}

TEST(Compaction, ParallelCompactionWithAnIndex) {
  auto t = MakeTable(SharedMemoryUri("compactidx"), 64, 10);
  RegisterIndex(SharedMemoryUri("compactidx"));
  ASSERT_TRUE(t->CheckoutLatest().ok());  // see the index commit made beside the handle
  EXPECT_EQ(IndexedFragments(SharedMemoryUri("compactidx")), 64u);
  const uint64_t before = *t->version();
  CompactionOptions o;
  o.target_rows_per_fragment = 20;
  o.num_threads = 64;
  auto stats = t->Compact(o);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->fragments_removed, 64u);
  EXPECT_EQ(stats->fragments_added, 32u);
  EXPECT_EQ(*t->CountRows(), 640);
  EXPECT_EQ(*t->version(), before + 2);
  // The rewritten rows are no longer claimed by the index: queries take the unindexed path.
  EXPECT_EQ(IndexedFragments(SharedMemoryUri("compactidx")), 0u);
}

TEST(Compaction, PreservesValuesNullsAndEmptiesAfterDeletes) {
  auto t = MakeTable("memory://compactdel", 6, 50);
  ASSERT_TRUE(t->Delete("id % 7 = 0").ok());
  const std::string expected = Dump(t);
  auto stats = t->Compact({});
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->fragments_removed, 6u);
  EXPECT_EQ(stats->fragments_added, 1u);
  EXPECT_EQ(Dump(t), expected);
}

TEST(Compaction, MaterializesDeletionsOfALargeFragment) {
  auto t = MakeTable("memory://compactmat", 1, 100);
  ASSERT_TRUE(t->Delete("id < 20").ok());
  CompactionOptions o;
  o.target_rows_per_fragment = 50;
  auto stats = t->Compact(o);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->fragments_removed, 1u);
  EXPECT_EQ(*t->CountRows(), 80);
}

/// id -> _rowid of every row.
std::map<int64_t, uint64_t> RowIds(const std::shared_ptr<Table>& t) {
  ArrowArrayStream s;
  ScanRequest request;
  request.columns = {"id"};
  request.with_row_id = true;
  EXPECT_TRUE(t->Scan(request, &s).ok());
  auto reader = la::ImportArrayStream(&s).MoveValueUnsafe();
  std::map<int64_t, uint64_t> out;
  auto batches = reader->ReadAll();
  EXPECT_TRUE(batches.ok());
  for (const auto& b : *batches) {
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      out[b->column(0)->GetValues<int64_t>(1)[i]] = b->column(1)->GetValues<uint64_t>(1)[i];
    }
  }
  return out;
}

TEST(Compaction, StableRowIdsSurvive) {
  ConnectOptions options;
  options.storage_options["new_table_enable_stable_row_ids"] = "true";
  auto db = *Connect("memory://stable", options);
  ArrowArrayStream s;
  ASSERT_TRUE(la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {Rows(0, 30)}), &s).ok());
  auto t = *db->CreateTable("t", &s);
  for (int f = 1; f < 4; ++f) {
    ASSERT_TRUE(
        la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {Rows(f * 30, 30)}), &s).ok());
    ASSERT_TRUE(t->Add(&s).ok());
  }
  auto deleted = t->Delete("id % 4 = 1");
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  auto before = RowIds(t);
  EXPECT_EQ(before.at(0), 0u);
  EXPECT_EQ(before.at(95), 95u);
  const std::string expected = Dump(t);
  auto stats = t->Compact({});
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->fragments_added, 1u);
  EXPECT_EQ(RowIds(t), before);
  EXPECT_EQ(Dump(t), expected);
  // Update and update-only merges keep the ids too.
  auto updated = t->Update("id < 10", {{"s", "'changed'"}});
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ(RowIds(t), before);
  EXPECT_EQ(*t->CountRows("s = 'changed'"), static_cast<int64_t>(updated->rows_updated));
  ASSERT_TRUE(la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {Rows(40, 10)}), &s).ok());
  auto merged = t->MergeInsert({"id"}).WhenMatchedUpdateAll().Execute(&s);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_GT(merged->num_updated_rows, 0u);
  EXPECT_EQ(RowIds(t), before);
  ASSERT_TRUE(t->Compact({}).ok());
  EXPECT_EQ(RowIds(t), before);
}

TEST(NewTableOptions, BadValuesAreRejected) {
  ConnectOptions options;
  options.storage_options["new_table_enable_stable_row_ids"] = "maybe";
  auto db = *Connect("memory://badopt", options);
  ArrowArrayStream s;
  ASSERT_TRUE(la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {Rows(0, 3)}), &s).ok());
  EXPECT_TRUE(db->CreateTable("t", &s).status().IsInvalidArgument());
  ConnectOptions v1;
  v1.storage_options["new_table_data_storage_version"] = "2.0";
  auto db2 = *Connect("memory://badopt2", v1);
  ASSERT_TRUE(la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {Rows(0, 3)}), &s).ok());
  EXPECT_TRUE(db2->CreateTable("t", &s).status().IsNotSupported());
}

/// The manifest of table `name` in the database `uri` (SharedMemoryUri or a local directory).
table::DatasetPtr OpenDataset(const std::string& uri, const std::string& name) {
  io::FileSystemPtr fs;
  std::string root;
  EXPECT_TRUE(io::ResolveUri(uri, &fs, &root).ok());
  auto ds = table::Dataset::Open(fs, io::JoinPath(root, name + ".lance"));
  EXPECT_TRUE(ds.ok()) << ds.status().ToString();
  return ds.ok() ? *ds : nullptr;
}

TEST(NewTableOptions, TableLevelOptionsOverrideTheConnections) {
  ConnectOptions connection;
  connection.storage_options["new_table_enable_stable_row_ids"] = "true";
  connection.storage_options["region"] = "us-east-1";
  const std::string uri = SharedMemoryUri("tableopts");
  auto db = *Connect(uri, connection);
  ArrowArrayStream s;
  ASSERT_TRUE(la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {Rows(0, 3)}), &s).ok());
  ASSERT_TRUE(db->CreateTable("inherits", &s).ok());
  ASSERT_TRUE(la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {Rows(0, 3)}), &s).ok());
  std::map<std::string, std::string> overrides{{"new_table_enable_stable_row_ids", "FALSE"},
                                               {"new_table_enable_v2_manifest_paths", "false"},
                                               {"new_table_data_storage_version", "stable"}};
  ASSERT_TRUE(db->CreateTable("overrides", &s, CreateTableMode::kCreate, overrides).ok());
  ArrowSchema schema;
  ASSERT_TRUE(la::ExportSchema(*Schema(), &schema).ok());
  ASSERT_TRUE(db->CreateEmptyTable("empty", &schema, CreateTableMode::kCreate,
                                   {{"new_table_enable_v2_manifest_paths", "false"}})
                  .ok());

  auto inherits = OpenDataset(uri, "inherits");
  auto overridden = OpenDataset(uri, "overrides");
  auto empty = OpenDataset(uri, "empty");
  ASSERT_TRUE(inherits && overridden && empty);
  EXPECT_NE(inherits->manifest().proto().reader_feature_flags() & table::kFlagStableRowIds, 0u);
  EXPECT_EQ(overridden->manifest().proto().reader_feature_flags() & table::kFlagStableRowIds, 0u);
  EXPECT_NE(empty->manifest().proto().reader_feature_flags() & table::kFlagStableRowIds, 0u);
  auto naming = [](const table::DatasetPtr& ds) {
    return table::ListVersionFiles(*ds->fs(), ds->path())->naming;
  };
  EXPECT_EQ(naming(inherits), table::ManifestNaming::kV2);
  EXPECT_EQ(naming(overridden), table::ManifestNaming::kV1);
  EXPECT_EQ(naming(empty), table::ManifestNaming::kV1);
  EXPECT_EQ(overridden->manifest().data_format_version(), "2.2");
  for (const auto& frag : overridden->manifest().proto().fragments()) {
    EXPECT_EQ(frag.files(0).file_major_version(), 2u);
    EXPECT_EQ(frag.files(0).file_minor_version(), 2u);
  }
}

TEST(NewTableOptions, BadTableLevelValuesLeaveNoTable) {
  auto db = *Connect("memory://tableopts-bad");
  ArrowArrayStream s;
  ASSERT_TRUE(la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {Rows(0, 3)}), &s).ok());
  auto created = db->CreateTable("t", &s, CreateTableMode::kCreate,
                                 {{"new_table_enable_stable_row_ids", "yes"}});
  ASSERT_TRUE(created.status().IsInvalidArgument());
  EXPECT_NE(created.status().message().find("new_table_enable_stable_row_ids"), std::string::npos);
  ASSERT_TRUE(la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {Rows(0, 3)}), &s).ok());
  created = db->CreateTable("t", &s, CreateTableMode::kCreate,
                            {{"new_table_data_storage_version", "2.0"}});
  EXPECT_TRUE(created.status().IsNotSupported()) << created.status().ToString();
  EXPECT_NE(created.status().message().find("2.0 (Lance's legacy encodings)"), std::string::npos);
  EXPECT_TRUE(db->TableNames()->empty());
}

TEST(NewTableOptions, OnlyNonNewTableKeysReachStorage) {
  const std::map<std::string, std::string> connection{
      {"region", "us-east-1"}, {"new_table_enable_stable_row_ids", "true"}, {"timeout", "30s"}};
  const std::map<std::string, std::string> table{{"timeout", "60s"},
                                                 {"new_table_enable_stable_row_ids", "false"},
                                                 {"new_table_data_storage_version", "stable"}};
  auto merged = db::MergeStorageOptions(connection, table);
  EXPECT_EQ(merged.at("timeout"), "60s");
  EXPECT_EQ(merged.at("new_table_enable_stable_row_ids"), "false");
  EXPECT_EQ(merged.at("region"), "us-east-1");
  const std::map<std::string, std::string> storage{{"region", "us-east-1"}, {"timeout", "60s"}};
  EXPECT_EQ(db::StorageOnlyOptions(merged), storage);
}

TEST(Prune, KeepsLatestAndTaggedVersions) {
  auto t = MakeTable("memory://prune", 3, 10);  // versions 1..3
  ASSERT_TRUE(t->CreateTag("keep", 1).ok());
  CompactionOptions o;
  ASSERT_TRUE(t->Compact(o).ok());  // versions 4, 5
  PruneOptions p;
  p.older_than = std::chrono::seconds(0);
  p.error_if_tagged_old_versions = false;
  auto stats = t->Prune(p);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->old_versions_removed, 3u);  // 2, 3, 4
  EXPECT_GT(stats->bytes_removed, 0u);
  EXPECT_EQ(*t->CountRows(), 30);
  ASSERT_TRUE(t->Checkout(1).ok());
  EXPECT_EQ(*t->CountRows(), 10);
  EXPECT_EQ(Dump(t).empty(), false);
  EXPECT_TRUE(t->Checkout(2).IsNotFound());
  ASSERT_TRUE(t->CheckoutLatest().ok());
  auto versions = *t->ListVersions();
  ASSERT_EQ(versions.size(), 2u);
  EXPECT_EQ(versions[0].version, 1u);
  EXPECT_EQ(versions[1].version, 5u);
}

TEST(Prune, TaggedOldVersionFailsByDefaultAndRemovesNothing) {
  auto t = MakeTable("memory://prune-tagged", 3, 10);  // versions 1..3
  ASSERT_TRUE(t->CreateTag("keep", 1).ok());
  PruneOptions p;
  p.older_than = std::chrono::seconds(0);
  auto stats = t->Prune(p);
  ASSERT_TRUE(stats.status().IsInvalidArgument()) << stats.status().ToString();
  EXPECT_NE(stats.status().message().find("'keep' (version 1)"), std::string::npos)
      << stats.status().message();
  EXPECT_NE(stats.status().message().find("error_if_tagged_old_versions"), std::string::npos);
  EXPECT_EQ(t->ListVersions()->size(), 3u);
  ASSERT_TRUE(t->Checkout(2).ok());
  EXPECT_EQ(*t->CountRows(), 20);
  ASSERT_TRUE(t->CheckoutLatest().ok());
  // A tag on a version younger than the cutoff is no obstacle, nor one on the latest version.
  ASSERT_TRUE(t->DeleteTag("keep").ok());
  ASSERT_TRUE(t->CreateTag("head", 3).ok());
  stats = t->Prune(p);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->old_versions_removed, 2u);
  EXPECT_TRUE(t->Optimize().ok());  // default cutoff: 7 days, so nothing tagged is old
}

void SetAge(const std::filesystem::path& file, std::chrono::hours age) {
  std::filesystem::last_write_time(file, std::filesystem::file_time_type::clock::now() - age);
}

TEST(Prune, UnreferencedFilesAreDeletedByAgeOrWithDeleteUnverified) {
  table::testing::TempDir dir;
  auto t = MakeTable(dir.path(), 1, 10);
  const std::filesystem::path data = std::filesystem::path(dir.path()) / "t.lance" / "data";
  for (const char* name : {"old.lance", "young.lance"}) {
    std::ofstream(data / name) << "stray bytes";
  }
  SetAge(data / "old.lance", std::chrono::hours(24 * 8));
  SetAge(data / "young.lance", std::chrono::hours(1));
  PruneOptions p;
  p.older_than = std::chrono::seconds(0);
  auto stats = t->Prune(p);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_FALSE(std::filesystem::exists(data / "old.lance"));   // older than 7 days
  EXPECT_TRUE(std::filesystem::exists(data / "young.lance"));  // may be a write in progress
  EXPECT_EQ(stats->bytes_removed, 11u);
  // delete_unverified deletes it, but never a file newer than the oldest kept version.
  std::ofstream(data / "in-progress.lance") << "x";
  std::filesystem::last_write_time(
      data / "in-progress.lance",
      std::filesystem::file_time_type::clock::now() + std::chrono::hours(1));
  p.delete_unverified = true;
  stats = t->Prune(p);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_FALSE(std::filesystem::exists(data / "young.lance"));
  EXPECT_TRUE(std::filesystem::exists(data / "in-progress.lance"));
  EXPECT_EQ(*t->CountRows(), 10);
}

TEST(Optimize, DefaultKeepsRecentVersions) {
  auto t = MakeTable("memory://optimize", 4, 10);
  auto stats = t->Optimize();
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->compaction.fragments_removed, 4u);
  EXPECT_EQ(stats->prune.old_versions_removed, 0u);
  EXPECT_EQ(*t->CountRows(), 40);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb
