// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Scans over fragments made of several data files (lance-format.md §1.3): each file holds a
// subset of the fields, a tombstoned id (-2) hides a rewritten column, and a field held by no
// file reads as nulls.

#include <gtest/gtest.h>

#include "format/file_writer.h"
#include "table/dataset.h"
#include "table/table_test_util.h"

namespace lancedb::table {
namespace LANCEDB_TEST_FILE_NS {

/// Write one data file of `columns` (named per `schema`, ids from `first_id`) under data/.
pb::DataFile WriteFile(const io::FileSystemPtr& fs, const std::string& root,
                       const std::string& name, const array::SchemaPtr& schema, int32_t first_id,
                       std::vector<array::ArrayPtr> columns) {
  auto lance_schema = format::LanceSchema::FromArrow(*schema, first_id);
  EXPECT_TRUE(lance_schema.ok());
  auto writer = format::FileWriter::Open(fs, root + "/data/" + name, *lance_schema);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  auto batch = array::RecordBatch::Make(schema, std::move(columns));
  EXPECT_TRUE(batch.ok());
  EXPECT_TRUE((*writer)->Write(**batch).ok());
  auto result = (*writer)->Finish();
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  pb::DataFile file;
  file.set_path(name);
  for (int32_t f : result->fields) file.add_fields(f);
  for (int32_t c : result->column_indices) file.add_column_indices(c);
  file.set_file_major_version(2);
  file.set_file_minor_version(2);
  file.set_file_size_bytes(static_cast<uint64_t>(result->file_size_bytes));
  return file;
}

TEST(Scan, FieldsSpreadOverFilesWithTombstonesAndMissingColumns) {
  auto fs = io::MemoryFileSystem();
  std::string root = testing::MemPath("multi");
  auto i64 = array::int64();
  auto f64 = array::float64();
  // File a: id (0) and an old x (1), later tombstoned; file b: s (2); file c: the new x (1).
  auto a = WriteFile(fs, root, "a.lance",
                     array::schema({array::field("id", i64), array::field("x", f64)}), 0,
                     {array::MakePrimitive<int64_t>(i64, {1, 2, 3, 4}),
                      array::MakePrimitive<double>(f64, {-1, -1, -1, -1})});
  a.set_fields(1, -2);
  auto b = WriteFile(fs, root, "b.lance", array::schema({array::field("s", array::utf8())}), 2,
                     {array::MakeString({"w", "x", std::nullopt, "z"})});
  auto c = WriteFile(fs, root, "c.lance", array::schema({array::field("x", f64)}), 1,
                     {array::MakePrimitive<double>(f64, {0.5, 1.5, 2.5, 3.5})});
  auto full =
      array::schema({array::field("id", i64), array::field("x", f64),
                     array::field("s", array::utf8()), array::field("extra", array::int32())});
  ASSERT_OK_AND_ASSIGN(auto lance_schema, format::LanceSchema::FromArrow(*full));
  pb::Manifest m;
  SetManifestSchema(lance_schema, &m);
  m.set_version(1);
  auto* frag = m.add_fragments();
  frag->set_id(0);
  frag->set_physical_rows(4);
  *frag->add_files() = a;
  *frag->add_files() = b;
  *frag->add_files() = c;
  m.set_max_fragment_id(0);
  m.mutable_data_format()->set_file_format("lance");
  m.mutable_data_format()->set_version("2.2");
  StampWriter(&m);
  pb::Transaction txn;
  txn.mutable_overwrite();
  ASSERT_OK_AND_ASSIGN(auto manifest, Manifest::Make(m, {}));
  ASSERT_OK(fs->PutIfAbsent(root + "/_versions/" + ManifestFileName(1, ManifestNaming::kV2),
                            std::string_view(manifest->Serialize(&txn))));

  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(fs, root));
  ASSERT_OK_AND_ASSIGN(auto reader, ds->Scan({}));
  ASSERT_OK_AND_ASSIGN(auto batches, reader->ReadAll());
  ASSERT_EQ(batches.size(), 1u);
  ASSERT_OK_AND_ASSIGN(
      auto expected,
      array::RecordBatch::Make(full, {array::MakePrimitive<int64_t>(i64, {1, 2, 3, 4}),
                                      array::MakePrimitive<double>(f64, {0.5, 1.5, 2.5, 3.5}),
                                      array::MakeString({"w", "x", std::nullopt, "z"}),
                                      array::MakeNullArray(array::int32(), 4)}));
  EXPECT_TRUE(batches[0]->Equals(*expected)) << batches[0]->ToString();

  // Projection (in the requested order) with row addresses, skipping a deleted row.
  int64_t n = 0;
  ASSERT_OK_AND_ASSIGN(auto v2, ds->DeleteRows({1}, &n));
  ScanOptions options;
  options.columns = {"s", "extra", "id"};
  options.with_row_id = true;
  ASSERT_OK_AND_ASSIGN(auto projected, v2->Scan(options));
  ASSERT_OK_AND_ASSIGN(batches, projected->ReadAll());
  ASSERT_EQ(batches.size(), 1u);
  const auto& batch = *batches[0];
  ASSERT_EQ(batch.num_columns(), 4);
  EXPECT_EQ(batch.schema()->field_names(),
            (std::vector<std::string>{"s", "extra", "id", "_rowid"}));
  EXPECT_TRUE(array::ArrayEquals(*batch.column(0), *array::MakeString({"w", std::nullopt, "z"})));
  EXPECT_EQ(batch.column(1)->null_count, 3);
  EXPECT_TRUE(array::ArrayEquals(*batch.column(2), *array::MakePrimitive<int64_t>(i64, {1, 3, 4})));
  EXPECT_TRUE(array::ArrayEquals(*batch.column(3),
                                 *array::MakePrimitive<uint64_t>(array::uint64(), {0, 2, 3})));
  // Take by row address, in the caller's order, deleted row included.
  ASSERT_OK_AND_ASSIGN(auto taken, v2->Take({3, 1, 3, 0}, {"x", "extra", "id"}));
  ASSERT_EQ(taken->num_rows(), 4);
  EXPECT_TRUE(array::ArrayEquals(*taken->column(0),
                                 *array::MakePrimitive<double>(f64, {3.5, 1.5, 3.5, 0.5})));
  EXPECT_EQ(taken->column(1)->null_count, 4);
  EXPECT_TRUE(
      array::ArrayEquals(*taken->column(2), *array::MakePrimitive<int64_t>(i64, {4, 2, 4, 1})));
  EXPECT_TRUE(v2->Take({uint64_t{1} << 32}).status().IsInvalidArgument());
  ASSERT_OK_AND_ASSIGN(auto none, v2->Take({}));
  EXPECT_EQ(none->num_rows(), 0);
  auto missing = v2->Scan(ScanOptions{{"nope"}, false, 10});
  EXPECT_TRUE(missing.status().IsNotFound()) << missing.status().ToString();
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::table
