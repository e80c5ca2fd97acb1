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
namespace LANCEDB_TEST_FILE_NS {

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

array::SchemaPtr LegacySchema() {
  return array::schema(
      {array::field("id", array::int64()),
       array::field("b", array::large_binary(), true, {{std::string(kBlobMetadataKey), "true"}})});
}

std::vector<std::optional<std::string>> LegacyPayloads() {
  std::vector<std::optional<std::string>> values;
  for (int i = 0; i < 300; ++i) {
    if (i % 7 == 3) {
      values.push_back(std::nullopt);
    } else if (i % 7 == 5) {
      values.push_back(std::string());
    } else {
      values.push_back(std::string(static_cast<size_t>(i * 37 % 5000), static_cast<char>(i)));
    }
  }
  return values;
}

Result<std::string> WriteLegacy(const io::FileSystemPtr& fs, FileVersion version,
                                int64_t max_page_bytes = 8 << 20) {
  auto values = LegacyPayloads();
  std::vector<int64_t> ids(values.size());
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>(i);
  LANCEDB_ASSIGN_OR_RETURN(
      auto batch, array::RecordBatch::Make(LegacySchema(),
                                           {array::MakePrimitive(array::int64(), ids),
                                            array::MakeBinaryLike(array::large_binary(), values)}));
  LANCEDB_ASSIGN_OR_RETURN(auto lance_schema, LanceSchema::FromArrow(*LegacySchema()));
  const std::string path = "blob_test/legacy.lance";
  FileWriterOptions options;
  options.version = version;
  options.max_page_bytes = max_page_bytes;
  LANCEDB_ASSIGN_OR_RETURN(auto writer, FileWriter::Open(fs, path, lance_schema, options));
  for (int64_t start = 0; start < batch->num_rows(); start += 100) {
    LANCEDB_RETURN_NOT_OK(writer->Write(*batch->Slice(start, 100)));
  }
  LANCEDB_ASSIGN_OR_RETURN(auto result, writer->Finish());
  EXPECT_EQ(result.fields, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(result.version.minor, 1u);
  return path;
}

TEST(BlobLegacy, RoundTripsIn21KeepingNullDistinctFromEmpty) {
  auto fs = io::MemoryFileSystem();
  for (int64_t page_bytes : {int64_t{8} << 20, int64_t{256}}) {
    auto path = WriteLegacy(fs, {2, 1}, page_bytes);
    ASSERT_TRUE(path.ok()) << path.status().ToString();
    // Descriptors: (position, size), null rows as a null descriptor.
    auto reader = FileReader::Open(fs, *path);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ((*reader)->version().minor, 1u);
    auto described = (*reader)->Read({1}, 0, 300);
    ASSERT_TRUE(described.ok()) << described.status().ToString();
    const auto& d = *(*described)->column(0);
    ASSERT_TRUE(d.type->Equals(*BlobV1DescriptorType()));
    const auto values = LegacyPayloads();
    for (int64_t i = 0; i < 300; ++i) {
      EXPECT_EQ(d.IsNull(i), !values[i].has_value()) << i;
      if (values[i]) {
        EXPECT_EQ(d.children[1]->GetValues<uint64_t>(1)[i], values[i]->size()) << i;
      }
    }
    // Payloads, read whole and taken.
    auto payloads = FileReader::Open(fs, *path, -1, FileReadOptions{true, nullptr});
    ASSERT_TRUE(payloads.ok()) << payloads.status().ToString();
    auto expected = array::MakeBinaryLike(array::large_binary(), values);
    auto all = (*payloads)->Read({1}, 0, 300);
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    EXPECT_TRUE(array::ArrayEquals(*(*all)->column(0), *expected));
    auto taken = (*payloads)->Take({1}, {3, 5, 6, 299});
    ASSERT_TRUE(taken.ok()) << taken.status().ToString();
    const auto& t = *(*taken)->column(0);
    EXPECT_TRUE(t.IsNull(0));
    EXPECT_TRUE(t.IsValid(1));
    EXPECT_EQ(t.GetView(1), "");
    EXPECT_EQ(t.GetView(2), *values[6]);
    EXPECT_EQ(t.GetView(3), *values[299]);
  }
}

TEST(BlobLegacy, NullInANonNullableColumnIsRejected) {
  auto fs = io::MemoryFileSystem();
  auto schema = array::schema(
      {array::field("b", array::large_binary(), false, {{std::string(kBlobMetadataKey), "true"}})});
  auto lance_schema = LanceSchema::FromArrow(*schema);
  ASSERT_TRUE(lance_schema.ok());
  FileWriterOptions options;
  options.version = {2, 1};
  auto writer = FileWriter::Open(fs, "blob_test/nonnull.lance", *lance_schema, options);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  auto batch = array::RecordBatch::Make(
      schema, {array::MakeBinaryLike(array::large_binary(), {std::string("a"), std::nullopt})});
  ASSERT_TRUE(batch.ok());
  Status st = (*writer)->Write(**batch);
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("'b' row 1 is null"), std::string::npos) << st.ToString();
  (*writer)->Abort();
}

TEST(BlobV2, IsNotWrittenIn21) {
  auto fs = io::MemoryFileSystem();
  auto lance_schema = LanceSchema::FromArrow(*array::schema({BlobField("img")}));
  ASSERT_TRUE(lance_schema.ok());
  FileWriterOptions options;
  options.version = {2, 1};
  auto writer = FileWriter::Open(fs, "blob_test/v2in21.lance", *lance_schema, options);
  ASSERT_TRUE(writer.status().IsInvalidArgument());
  EXPECT_NE(writer.status().message().find("Blob v2 column 'img'"), std::string::npos);
}

TEST(BlobSidecarPath, NamesBitsLeastSignificantFirst) {
  EXPECT_EQ(BlobSidecarPath("data/abc.lance", 1), "data/abc/10000000000000000000000000000000.blob");
  EXPECT_EQ(BlobSidecarPath("data/abc.lance", 6), "data/abc/01100000000000000000000000000000.blob");
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::format
