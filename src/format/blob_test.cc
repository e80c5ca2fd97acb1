// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "format/blob.h"

#include <gtest/gtest.h>

#include <optional>

#include "array/builder.h"
#include "format/file_reader.h"
#include "format/file_writer.h"
#include "io/file_system.h"

namespace lancedb::format {
namespace {

using array::ArrayPtr;

array::FieldPtr BlobField(const std::string& name, bool nullable = true) {
  return array::field(name, BlobV2StorageType(), nullable,
                      {{std::string(array::kExtensionNameKey), std::string(kBlobV2ExtensionName)},
                       {"ARROW:extension:metadata", ""}});
}

/// Storage rows: a payload (data), an external URI (uri), or null.
struct Row {
  std::optional<std::string> data;
  std::optional<std::string> uri;
  bool null = false;
};

ArrayPtr StorageArray(const std::vector<Row>& rows) {
  std::vector<std::optional<std::string>> data, uri;
  std::vector<bool> valid;
  for (const auto& r : rows) {
    data.push_back(r.data);
    uri.push_back(r.uri);
    valid.push_back(!r.null);
  }
  const auto n = rows.size();
  return array::MakeStruct(
      BlobV2StorageType(),
      {array::MakeBinaryLike(array::large_binary(), data),
       array::MakeBinaryLike(array::utf8(), uri),
       array::MakePrimitive(array::uint64(), std::vector<uint64_t>(n), std::vector<bool>(n, false)),
       array::MakePrimitive(array::uint64(), std::vector<uint64_t>(n),
                            std::vector<bool>(n, false))},
      valid);
}

Result<std::string> WriteBlobs(const io::FileSystemPtr& fs, const std::vector<Row>& rows,
                               int64_t max_page_bytes = 8 << 20) {
  auto schema = array::schema({array::field("id", array::int64()), BlobField("img")});
  std::vector<int64_t> ids;
  for (size_t i = 0; i < rows.size(); ++i) ids.push_back(static_cast<int64_t>(i));
  LANCEDB_ASSIGN_OR_RETURN(
      auto batch, array::RecordBatch::Make(
                      schema, {array::MakePrimitive(array::int64(), ids), StorageArray(rows)}));
  LANCEDB_ASSIGN_OR_RETURN(auto lance_schema, LanceSchema::FromArrow(*schema));
  const std::string path = "blob_test/f.lance";
  FileWriterOptions options;
  options.max_page_bytes = max_page_bytes;
  LANCEDB_ASSIGN_OR_RETURN(auto writer, FileWriter::Open(fs, path, lance_schema, options));
  LANCEDB_RETURN_NOT_OK(writer->Write(*batch));
  LANCEDB_ASSIGN_OR_RETURN(auto result, writer->Finish());
  EXPECT_EQ(result.fields, (std::vector<int32_t>{0, 1}));  // one column for the blob field
  return path;
}

const std::vector<Row>& SampleRows() {
  static const std::vector<Row> rows = {{std::string("hello"), {}, false},
                                        {{}, {}, true},
                                        {std::string(), {}, false},
                                        {std::string(70000, 'x'), {}, false},
                                        {{}, std::string("file:///tmp/x.bin"), false}};
  return rows;
}

TEST(BlobV2, DescriptorsRoundTrip) {
  auto fs = io::MemoryFileSystem();
  auto path = WriteBlobs(fs, SampleRows());
  ASSERT_TRUE(path.ok()) << path.status().ToString();
  auto reader = FileReader::Open(fs, *path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto batch = (*reader)->Read({1}, 0, 5);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  const auto& d = *(*batch)->column(0);
  ASSERT_TRUE(d.type->Equals(*BlobV2DescriptorType()));
  EXPECT_TRUE(d.IsNull(1));
  const uint8_t* kinds = d.children[0]->GetValues<uint8_t>(1);
  const uint64_t* sizes = d.children[2]->GetValues<uint64_t>(1);
  EXPECT_EQ(kinds[0], 0);
  EXPECT_EQ(sizes[0], 5u);
  EXPECT_EQ(sizes[2], 0u);
  EXPECT_EQ(sizes[3], 70000u);
  EXPECT_EQ(kinds[4], static_cast<uint8_t>(BlobKind::kExternal));
  EXPECT_EQ(d.children[4]->GetView(4), "file:///tmp/x.bin");
}

TEST(BlobV2, MaterializedReadsReturnThePayloads) {
  auto fs = io::MemoryFileSystem();
  auto path = WriteBlobs(fs, SampleRows(), /*max_page_bytes=*/64);  // several pages
  ASSERT_TRUE(path.ok()) << path.status().ToString();
  auto reader = FileReader::Open(fs, *path, -1, FileReadOptions{true, nullptr});
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  for (bool take : {false, true}) {
    auto batch = take ? (*reader)->Take({1}, {0, 1, 2, 3, 4}) : (*reader)->Read({1}, 0, 5);
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    ASSERT_TRUE((*batch)->column(0)->type->Equals(*BlobV2StorageType()));
    EXPECT_TRUE(array::ArrayEquals(*(*batch)->column(0), *StorageArray(SampleRows())));
  }
}

TEST(BlobV2, BadRowsAreRejected) {
  auto fs = io::MemoryFileSystem();
  EXPECT_TRUE(WriteBlobs(fs, {{{}, {}, false}}).status().IsInvalidArgument());
  EXPECT_TRUE(WriteBlobs(fs, {{std::string("a"), std::string("file:///a"), false}})
                  .status()
                  .IsInvalidArgument());
}

TEST(BlobLegacy, IsNotWrittenIn22) {
  auto fs = io::MemoryFileSystem();
  auto schema = array::schema(
      {array::field("b", array::large_binary(), true, {{std::string(kBlobMetadataKey), "true"}})});
  auto lance_schema = LanceSchema::FromArrow(*schema);
  ASSERT_TRUE(lance_schema.ok());
  auto writer = FileWriter::Open(fs, "blob_test/legacy.lance", *lance_schema);
  ASSERT_TRUE(writer.status().IsInvalidArgument());
  EXPECT_NE(writer.status().message().find("Legacy blob column 'b'"), std::string::npos);
}

TEST(BlobSidecarPath, NamesBitsLeastSignificantFirst) {
  EXPECT_EQ(BlobSidecarPath("data/abc.lance", 1), "data/abc/10000000000000000000000000000000.blob");
  EXPECT_EQ(BlobSidecarPath("data/abc.lance", 6), "data/abc/01100000000000000000000000000000.blob");
}

}  // namespace
}  // namespace lancedb::format
