// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "array/ipc.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "array/builder.h"
#include "common/test_dirs.h"

namespace lancedb::array::ipc {
namespace LANCEDB_TEST_FILE_NS {

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

fs::path GoldenPath(const std::string& name) {
  return testdirs::SourceDir() / "tests/data/ipc" / name;
}

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

/// A zero-length array of `type` whose buffers are all absent (as ValidateArray allows).
ArrayPtr MakeBareEmpty(const DataTypePtr& type) {
  std::vector<ArrayPtr> children;
  for (const FieldPtr& f : type->fields()) children.push_back(MakeBareEmpty(f->type()));
  size_t num_buffers = 2;
  if (type->id() == TypeId::kNull) num_buffers = 0;
  if (type->is_binary_like()) num_buffers = 3;
  if (type->id() == TypeId::kStruct || type->id() == TypeId::kFixedSizeList) num_buffers = 1;
  return ArrayData::Make(type, 0, std::vector<BufferPtr>(num_buffers), children, 0);
}

TEST(IpcWriter, WritesEmptyArraysWithoutBuffers) {
  SchemaPtr sch = MakeAllTypesBatch()->schema();
  std::vector<ArrayPtr> columns;
  for (const FieldPtr& f : sch->fields()) columns.push_back(MakeBareEmpty(f->type()));
  auto batch = RecordBatch::Make(sch, columns, 0);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  for (const Form& form : kForms) {
    auto bytes = Write(form, sch, {*batch});
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    auto read = Read(form, *bytes);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    ExpectSameBatches(*read, sch, {*batch});
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

// ---- Lance deletion files (lance-format.md §3) ----

fs::path DeletionDir() { return testdirs::LanceDbFixturesDir() / "ops.lance/_deletions"; }

/// Read a deletion file and return its row offsets after checking the Lance schema.
std::vector<uint32_t> ReadDeletionFile(const fs::path& path) {
  auto read = ReadFile(ReadBytes(path));
  EXPECT_TRUE(read.ok()) << path << ": " << read.status().ToString();
  if (!read.ok()) return {};
  const Schema& sch = *read->schema;
  EXPECT_EQ(sch.num_fields(), 1);
  EXPECT_EQ(sch.field(0)->name(), "row_id");
  EXPECT_EQ(sch.field(0)->type()->id(), TypeId::kUInt32);
  EXPECT_FALSE(sch.field(0)->nullable());
  EXPECT_EQ(read->batches.size(), 1u);
  std::vector<uint32_t> rows;
  for (const RecordBatchPtr& batch : read->batches) {
    const ArrayData& column = *batch->column(0);
    EXPECT_EQ(column.null_count, 0);
    const uint32_t* values = column.GetValues<uint32_t>(1);
    rows.insert(rows.end(), values, values + column.length);
  }
  return rows;
}

TEST(IpcDeletionFile, ReadsLanceZstdFixtures) {
  LANCEDB_REQUIRE_FIXTURE_PATH(DeletionDir());
  // Row counts as pyarrow reports them for each file of the fixture.
  const std::vector<std::pair<std::string, size_t>> expected = {
      {"0-3-16954255863853359143.arrow", 30},
      {"0-5-3504421068500433137.arrow", 39},
      {"1-3-11655395458286373169.arrow", 30},
      {"2-3-11582263375562863438.arrow", 30},
      {"2-4-5054940533253719536.arrow", 2505}};
  for (const auto& [name, count] : expected) {
    SCOPED_TRACE(name);
    std::vector<uint32_t> rows = ReadDeletionFile(DeletionDir() / name);
    ASSERT_EQ(rows.size(), count);
    // Lance stores the offsets unsorted (hash-set order); as a set they are unique.
    std::sort(rows.begin(), rows.end());
    EXPECT_EQ(std::adjacent_find(rows.begin(), rows.end()), rows.end());
    EXPECT_LT(rows.back(), 3000u);
  }
  // Version 3 deleted the rows whose id % 100 == 7 from every 3000-row fragment.
  std::vector<uint32_t> rows = ReadDeletionFile(DeletionDir() / expected[0].first);
  std::sort(rows.begin(), rows.end());
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i], 100 * i + 7);
  // Version 5 adds rows 0..8 of fragment 0 to the earlier deletions (the union is written).
  std::vector<uint32_t> later = ReadDeletionFile(DeletionDir() / expected[1].first);
  std::sort(later.begin(), later.end());
  EXPECT_TRUE(std::includes(later.begin(), later.end(), rows.begin(), rows.end()));
  for (uint32_t r = 0; r <= 8; ++r) EXPECT_TRUE(std::binary_search(later.begin(), later.end(), r));
}

TEST(IpcDeletionFile, WritesAndReadsLanceLayout) {
  auto sch = schema({field("row_id", uint32(), /*nullable=*/false)});
  auto batch = *RecordBatch::Make(sch, {MakePrimitive<uint32_t>(uint32(), {3, 1, 4, 1000, 59})});
  WriteOptions options;
  options.compression = Compression::kZstd;
  auto bytes = WriteFile(sch, {batch}, options);
  ASSERT_TRUE(bytes.ok());
  auto read = ReadFile(*bytes);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ExpectSameBatches(*read, sch, {batch});
}

// ---- Malformed input ----

void ExpectCleanFailure(const Result<ReadResult>& read) {
  if (read.ok()) return;
  EXPECT_TRUE(read.status().IsCorruption() || read.status().IsNotSupported())
      << read.status().ToString();
}

TEST(IpcCorruption, TruncatedFileIsCorruption) {
  RecordBatchPtr batch = MakeAllTypesBatch();
  for (Compression codec : {Compression::kNone, Compression::kZstd}) {
    WriteOptions options;
    options.compression = codec;
    BufferPtr bytes = *WriteFile(batch->schema(), {batch}, options);
    for (int64_t n = 0; n < bytes->size(); ++n) {
      auto read = ReadFile(Buffer::Copy(bytes->data(), n));
      ASSERT_FALSE(read.ok()) << "prefix " << n;
      EXPECT_TRUE(read.status().IsCorruption()) << read.status().ToString();
    }
  }
}

TEST(IpcCorruption, TruncatedStreamFailsOrYieldsWholeBatches) {
  RecordBatchPtr batch = MakeAllTypesBatch();
  BufferPtr bytes = *WriteStream(batch->schema(), {batch, batch});
  for (int64_t n = 0; n < bytes->size(); ++n) {
    auto read = ReadStream(Buffer::Copy(bytes->data(), n));
    // A stream cut exactly between messages is a valid shorter stream.
    if (read.ok()) {
      EXPECT_LE(read->batches.size(), 2u);
      for (const auto& b : read->batches) EXPECT_EQ(b->num_rows(), 5);
    } else {
      EXPECT_TRUE(read.status().IsCorruption()) << n << ": " << read.status().ToString();
    }
  }
}

TEST(IpcCorruption, FlippedBytesNeverCrash) {
  // Every byte of each input is damaged once (the mask rotates), and every read must either
  // succeed or fail cleanly; the sanitizer build catches any out-of-bounds access.
  RecordBatchPtr batch = MakeAllTypesBatch()->Slice(2, 2);
  WriteOptions lz4;
  lz4.compression = Compression::kLz4Frame;
  std::vector<std::pair<BufferPtr, bool>> inputs = {
      {*WriteFile(batch->schema(), {batch}), true},
      {*WriteStream(batch->schema(), {batch}, lz4), false}};
  if (fs::exists(DeletionDir())) {
    inputs.emplace_back(ReadBytes(DeletionDir() / "0-3-16954255863853359143.arrow"), true);
  }
  const uint8_t masks[] = {0x01, 0x80, 0xFF, 0x10, 0x7F};
  for (const auto& [original, is_file] : inputs) {
    for (int64_t i = 0; i < original->size(); ++i) {
      BufferPtr bytes = Buffer::Copy(original->data(), original->size());
      bytes->mutable_data()[i] ^= masks[i % 5];
      ExpectCleanFailure(is_file ? ReadFile(bytes) : ReadStream(bytes));
    }
  }
}

TEST(IpcCorruption, RejectsHostileLengths) {
  // A stream whose first message claims more metadata than there is.
  std::string bytes("\xff\xff\xff\xff\x00\x01\x00\x00", 8);
  EXPECT_TRUE(ReadStream(Buffer::Copy(bytes)).status().IsCorruption());
  // Negative metadata length.
  bytes = std::string("\xff\xff\xff\xff\xf0\xff\xff\xff", 8);
  EXPECT_TRUE(ReadStream(Buffer::Copy(bytes)).status().IsCorruption());
  // An empty stream, and an end-of-stream marker without a schema.
  EXPECT_TRUE(ReadStream(Buffer::Copy("")).status().IsCorruption());
  EXPECT_TRUE(
      ReadStream(Buffer::Copy(std::string("\xff\xff\xff\xff\0\0\0\0", 8))).status().IsCorruption());
  // A file whose footer length points before the start.
  std::string file("ARROW1\0\0", 8);
  file += std::string("\xff\xff\xff\x7f", 4) + "ARROW1";
  EXPECT_TRUE(ReadFile(Buffer::Copy(file)).status().IsCorruption());
  EXPECT_TRUE(ReadFile(nullptr).status().IsInvalidArgument());
}

// ---- pyarrow reads what we write ----

bool HavePyarrow() { return std::system("python3 -c 'import pyarrow' >/dev/null 2>&1") == 0; }

TEST(IpcPyarrow, ReadsOurFilesAndStreams) {
  ASSERT_TRUE(HavePyarrow()) << "python3 with pyarrow is needed (scripts/setup.sh installs it)";
  const fs::path dir = fs::temp_directory_path() / ("lancedb_ipc_test_" + std::to_string(getpid()));
  fs::create_directories(dir);
  RecordBatchPtr batch = MakeAllTypesBatch();
  std::vector<RecordBatchPtr> batches = {batch, batch->Slice(1, 3)};
  for (const Form& form : kForms) {
    const std::string name = std::string(form.file ? "ours_" : "ours_s_") +
                             std::to_string(static_cast<int>(form.compression)) +
                             (form.file ? ".arrow" : ".arrows");
    WriteBytes(dir / name, **Write(form, batch->schema(), batches));
  }
  // Compare with what pyarrow itself wrote for the same values (schema metadata included).
  const std::string script = R"PY(
import glob, os, sys
import pyarrow.ipc as ipc
d, golden = sys.argv[1], sys.argv[2]
want = ipc.open_file(golden).read_all()
files = sorted(glob.glob(os.path.join(d, "ours_*")))
assert len(files) == 6, files
for f in files:
    r = ipc.open_stream(f) if f.endswith(".arrows") else ipc.open_file(f)
    got = r.read_all()
    got.validate(full=True)
    assert got.equals(want, check_metadata=True), (f, got, want)
print("pyarrow read", len(files), "files")
)PY";
  std::ofstream(dir / "check.py") << script;
  const std::string cmd = "python3 " + (dir / "check.py").string() + " " + dir.string() + " " +
                          GoldenPath("golden_file.arrow").string();
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  fs::remove_all(dir);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::array::ipc
