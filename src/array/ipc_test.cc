// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "array/ipc.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "array/builder.h"

namespace lancedb::array::ipc {
namespace {

namespace fs = std::filesystem;

struct Decimal128Bits {
  uint64_t low;
  int64_t high;
};

Decimal128Bits Dec(int64_t v) { return {static_cast<uint64_t>(v), v < 0 ? -1 : 0}; }

const std::vector<bool> kValid5 = {true, false, true, true, true};  // row 1 null

/// The batch that tests/data/ipc/gen_golden.py writes with pyarrow, built here value for value.
RecordBatchPtr MakeAllTypesBatch() {
  std::vector<FieldPtr> fields = {
      field("i32", int32(), true, {{"k", "v"}}),
      field("u8", uint8(), false),
      field("i64", int64()),
      field("f16", float16()),
      field("f64", float64()),
      field("b", boolean()),
      field("s", utf8()),
      field("ls", large_utf8()),
      field("bin", binary()),
      field("lbin", large_binary()),
      field("fsb", fixed_size_binary(3)),
      field("d32", date32()),
      field("d64", date64()),
      field("ts", timestamp(TimeUnit::kMicro, "UTC")),
      field("t32", time32(TimeUnit::kMilli)),
      field("t64", time64(TimeUnit::kNano)),
      field("dur", duration(TimeUnit::kMilli)),
      field("dec", decimal128(10, 2)),
      field("lst", list(int32())),
      field("llst", large_list(utf8())),
      field("fsl", fixed_size_list(float32(), 2)),
      field("st", struct_({field("x", int16()), field("y", utf8())})),
      field("nul", null()),
  };
  auto sch = schema(fields, {{"origin", "pyarrow"}});
  const std::vector<bool> null_at2 = {true, true, false, true, true};
  std::vector<ArrayPtr> cols = {
      MakePrimitive<int32_t>(int32(), {1, 0, 3, 4, 5}, kValid5),
      MakePrimitive<uint8_t>(uint8(), {10, 20, 30, 40, 50}),
      MakePrimitive<int64_t>(int64(), {-1, int64_t{1} << 40, 0, 0, 7}, null_at2),
      MakePrimitive<uint16_t>(float16(), {0x3E00, 0xC000, 0x3400, 0x0000, 0x7BFF}),
      MakePrimitive<double>(float64(), {0.5, 0, 2.5, 3.5, -1e300}, kValid5),
      MakeBool({true, false, false, true, true}, null_at2),
      MakeBinaryLike(utf8(), {"a", "", std::nullopt, "hello", "w\xc3\xb6rld"}),
      MakeBinaryLike(large_utf8(), {"x", "yy", "zzz", std::nullopt, ""}),
      MakeBinaryLike(binary(), {std::string("\x00\x01", 2), std::nullopt, "", "abc", "z"}),
      MakeBinaryLike(large_binary(), {"L", "LL", std::nullopt, "", "LLLL"}),
      MakeFixedSizeBinary(3, {"abc", "def", std::nullopt, "ghi", "jkl"}),
      MakePrimitive<int32_t>(date32(), {0, 19000, 0, -1, 1}, null_at2),
      MakePrimitive<int64_t>(date64(), {0, 86400000, 0, -86400000, 1641600000000}, null_at2),
      MakePrimitive<int64_t>(timestamp(TimeUnit::kMicro, "UTC"), {0, 1700000000000000, 0, -1, 5},
                             null_at2),
      MakePrimitive<int32_t>(time32(TimeUnit::kMilli), {0, 1000, 0, 86399999, 5}, null_at2),
      MakePrimitive<int64_t>(time64(TimeUnit::kNano), {0, 1000, 0, 86399999999999, 5}, null_at2),
      MakePrimitive<int64_t>(duration(TimeUnit::kMilli), {0, -1000, 0, 123456789, 5}, null_at2),
      MakePrimitive<Decimal128Bits>(
          decimal128(10, 2), {Dec(123), Dec(0), Dec(-9999999999), Dec(0), Dec(4200)}, kValid5),
      MakeList(list(int32()), {0, 2, 2, 2, 4, 5},
               MakePrimitive<int32_t>(int32(), {1, 2, 0, 4, 5}, {true, true, false, true, true}),
               null_at2),
      MakeList(large_list(utf8()), {0, 1, 1, 1, 4, 5},
               MakeBinaryLike(utf8(), {"a", "b", std::nullopt, "c", "d"}), kValid5),
      MakeFixedSizeList(
          fixed_size_list(float32(), 2),
          MakePrimitive<float>(float32(), {1, 2, 0, 0, 3, 0, 5, 6, 7, 8},
                               {true, true, false, false, true, false, true, true, true, true}),
          kValid5),
      MakeStruct(struct_({field("x", int16()), field("y", utf8())}),
                 {MakePrimitive<int16_t>(int16(), {1, 0, 0, 4, 5}, {true, true, false, true, true}),
                  MakeBinaryLike(utf8(), {"p", "", "q", std::nullopt, "r"})},
                 kValid5),
      MakeNullArray(null(), 5),
  };
  auto batch = RecordBatch::Make(sch, cols);
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  return *batch;
}

BufferPtr ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return Buffer::Copy(bytes);
}

void WriteBytes(const fs::path& path, const Buffer& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

fs::path SourceDir() {
  const char* dir = std::getenv("LANCEDB_SOURCE_DIR");
  return dir ? fs::path(dir) : fs::path(__FILE__).parent_path().parent_path().parent_path();
}

fs::path GoldenPath(const std::string& name) { return SourceDir() / "tests/data/ipc" / name; }

void ExpectSameBatches(const ReadResult& result, const SchemaPtr& schema,
                       const std::vector<RecordBatchPtr>& batches) {
  ASSERT_TRUE(result.schema->Equals(*schema, /*check_metadata=*/true))
      << result.schema->ToString() << "\nvs\n"
      << schema->ToString();
  ASSERT_EQ(result.batches.size(), batches.size());
  for (size_t i = 0; i < batches.size(); ++i) {
    ASSERT_EQ(result.batches[i]->num_rows(), batches[i]->num_rows());
    for (int c = 0; c < batches[i]->num_columns(); ++c) {
      EXPECT_TRUE(ArrayEquals(*result.batches[i]->column(c), *batches[i]->column(c)))
          << "batch " << i << " column " << schema->field(c)->name() << "\n got "
          << ArrayToString(*result.batches[i]->column(c)) << "\nwant "
          << ArrayToString(*batches[i]->column(c));
    }
  }
}

struct Form {
  bool file;
  Compression compression;
};

const Form kForms[] = {{true, Compression::kNone},     {true, Compression::kZstd},
                       {true, Compression::kLz4Frame}, {false, Compression::kNone},
                       {false, Compression::kZstd},    {false, Compression::kLz4Frame}};

Result<BufferPtr> Write(const Form& form, const SchemaPtr& schema,
                        const std::vector<RecordBatchPtr>& batches) {
  WriteOptions options;
  options.compression = form.compression;
  return form.file ? WriteFile(schema, batches, options) : WriteStream(schema, batches, options);
}

Result<ReadResult> Read(const Form& form, const BufferPtr& bytes) {
  return form.file ? ReadFile(bytes) : ReadStream(bytes);
}

TEST(IpcRoundTrip, EveryTypeInEveryForm) {
  RecordBatchPtr batch = MakeAllTypesBatch();
  for (const Form& form : kForms) {
    SCOPED_TRACE(std::string(form.file ? "file" : "stream") + " codec " +
                 std::to_string(static_cast<int>(form.compression)));
    auto bytes = Write(form, batch->schema(), {batch, batch});
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    auto read = Read(form, *bytes);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    ExpectSameBatches(*read, batch->schema(), {batch, batch});
  }
}

TEST(IpcRoundTrip, SlicedArraysAreRebased) {
  // Offsets that are not multiples of 8 exercise bitmap shifting and offset rebasing.
  RecordBatchPtr batch = MakeAllTypesBatch();
  for (int64_t offset : {1, 2, 3}) {
    RecordBatchPtr sliced = batch->Slice(offset, 5 - offset - (offset == 1 ? 1 : 0));
    for (const Form& form : kForms) {
      auto bytes = Write(form, batch->schema(), {sliced});
      ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
      auto read = Read(form, *bytes);
      ASSERT_TRUE(read.ok()) << read.status().ToString();
      ExpectSameBatches(*read, batch->schema(), {sliced});
      for (const ArrayPtr& column : read->batches[0]->columns()) EXPECT_EQ(column->offset, 0);
    }
  }
}

TEST(IpcRoundTrip, LargeSlicedNestedColumns) {
  // 1000 rows of list<struct<a: int64, b: utf8>> sliced at an odd offset, so that the child
  // ranges start mid-bitmap and mid-offsets.
  const int64_t n = 1000;
  std::vector<int64_t> a;
  std::vector<bool> a_valid;
  std::vector<std::optional<std::string>> b;
  std::vector<int64_t> offsets = {0};
  std::vector<bool> list_valid;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < i % 4; ++j) {
      a.push_back(i * 10 + j);
      a_valid.push_back((i + j) % 3 != 0);
      b.push_back(j % 2 ? std::optional<std::string>(std::to_string(i)) : std::nullopt);
    }
    offsets.push_back(static_cast<int64_t>(a.size()));
    list_valid.push_back(i % 7 != 0);
  }
  auto item = struct_({field("a", int64()), field("b", utf8())});
  auto child = MakeStruct(item, {MakePrimitive<int64_t>(int64(), a, a_valid), MakeString(b)});
  auto column = MakeList(list(item), offsets, child, list_valid);
  auto sch = schema({field("l", list(item))});
  auto batch = *RecordBatch::Make(sch, {column});
  auto sliced = batch->Slice(333, 444);
  for (const Form& form : kForms) {
    auto bytes = Write(form, sch, {sliced, batch});
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    auto read = Read(form, *bytes);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    ExpectSameBatches(*read, sch, {sliced, batch});
  }
}

TEST(IpcRoundTrip, EmptyBatchesAndNoBatches) {
  RecordBatchPtr batch = MakeAllTypesBatch();
  RecordBatchPtr empty = batch->Slice(2, 0);
  for (const Form& form : kForms) {
    auto none = Write(form, batch->schema(), {});
    ASSERT_TRUE(none.ok());
    auto read_none = Read(form, *none);
    ASSERT_TRUE(read_none.ok()) << read_none.status().ToString();
    ExpectSameBatches(*read_none, batch->schema(), {});
    auto bytes = Write(form, batch->schema(), {empty});
    ASSERT_TRUE(bytes.ok());
    auto read = Read(form, *bytes);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    ExpectSameBatches(*read, batch->schema(), {empty});
  }
}

TEST(IpcWriter, LayoutIsAligned) {
  RecordBatchPtr batch = MakeAllTypesBatch();
  auto file = *WriteFile(batch->schema(), {batch});
  ASSERT_GE(file->size(), 8);
  EXPECT_EQ(file->view().substr(0, 8), std::string_view("ARROW1\0\0", 8));
  EXPECT_EQ(file->view().substr(file->size() - 6), "ARROW1");
  auto stream = *WriteStream(batch->schema(), {batch});
  EXPECT_EQ(stream->size() % 8, 0);
  // End-of-stream marker: continuation then a zero length.
  EXPECT_EQ(stream->view().substr(stream->size() - 8),
            std::string_view("\xff\xff\xff\xff\0\0\0\0", 8));
}

TEST(IpcWriter, RejectsMismatchedColumns) {
  RecordBatchPtr batch = MakeAllTypesBatch();
  auto other = schema({field("x", int64())});
  EXPECT_TRUE(WriteFile(other, {batch}).status().IsInvalidArgument());
  EXPECT_TRUE(WriteStream(nullptr, {}).status().IsInvalidArgument());
}

TEST(IpcGolden, ReadsPyarrowStreamAndFile) {
  RecordBatchPtr batch = MakeAllTypesBatch();
  RecordBatchPtr sliced = batch->Slice(1, 3);
  for (const char* name : {"golden_stream.arrows", "golden_file.arrow"}) {
    SCOPED_TRACE(name);
    BufferPtr bytes = ReadBytes(GoldenPath(name));
    ASSERT_GT(bytes->size(), 0) << "missing " << GoldenPath(name);
    auto read = std::string(name).ends_with(".arrows") ? ReadStream(bytes) : ReadFile(bytes);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    ExpectSameBatches(*read, batch->schema(), {batch, sliced});
  }
}

TEST(IpcGolden, ReadsPyarrowCompressedBodies) {
  RecordBatchPtr batch = MakeAllTypesBatch();
  auto zstd = ReadFile(ReadBytes(GoldenPath("golden_zstd.arrow")));
  ASSERT_TRUE(zstd.ok()) << zstd.status().ToString();
  ExpectSameBatches(*zstd, batch->schema(), {batch});
  auto lz4 = ReadStream(ReadBytes(GoldenPath("golden_lz4.arrows")));
  ASSERT_TRUE(lz4.ok()) << lz4.status().ToString();
  ExpectSameBatches(*lz4, batch->schema(), {batch});
}

TEST(IpcGolden, StreamReaderRejectsFileAndFileReaderRejectsStream) {
  EXPECT_FALSE(ReadFile(ReadBytes(GoldenPath("golden_stream.arrows"))).ok());
  EXPECT_FALSE(ReadStream(ReadBytes(GoldenPath("golden_file.arrow"))).ok());
}

}  // namespace
}  // namespace lancedb::array::ipc
