// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "format/file_reader.h"

#include <google/protobuf/any.pb.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <random>
#include <thread>

#include "format/container.h"
#include "format/file_writer.h"
#include "format/proto/encodings_v2_1.pb.h"
#include "format/proto/file.pb.h"
#include "format/proto/file2.pb.h"
#include "format/test_data.h"
#include "io/file_system.h"

namespace lancedb::format {
namespace LANCEDB_TEST_FILE_NS {

using array::ArrayPtr;
using array::RecordBatchPtr;

std::string UniquePath(const std::string& name) {
  static std::atomic<int> counter{0};
  return "format_test/" + name + "_" + std::to_string(counter++) + ".lance";
}

/// Write `batch` (split into `num_batches` writes) and return the path.
std::string WriteFile(const io::FileSystemPtr& fs, const RecordBatchPtr& batch,
                      int64_t max_page_bytes = 8 << 20, int num_batches = 1,
                      FileVersion version = {2, 2}) {
  std::string path = UniquePath("t");
  auto schema = LanceSchema::FromArrow(*batch->schema());
  EXPECT_TRUE(schema.ok()) << schema.status().ToString();
  FileWriterOptions options;
  options.max_page_bytes = max_page_bytes;
  options.version = version;
  auto writer = FileWriter::Open(fs, path, *schema, options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  const int64_t n = batch->num_rows();
  for (int b = 0; b < num_batches; ++b) {
    int64_t begin = n * b / num_batches;
    int64_t end = n * (b + 1) / num_batches;
    EXPECT_TRUE((*writer)->Write(*batch->Slice(begin, end - begin)).ok());
  }
  auto result = (*writer)->Finish();
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->num_rows, n);
  EXPECT_EQ(result->fields, schema->LeafFieldIds());
  EXPECT_EQ(result->version.minor, version.minor);
  return path;
}

void ExpectColumnsEqual(const array::RecordBatch& expected, const array::RecordBatch& actual) {
  ASSERT_EQ(expected.num_columns(), actual.num_columns());
  ASSERT_EQ(expected.num_rows(), actual.num_rows());
  for (int i = 0; i < expected.num_columns(); ++i) {
    EXPECT_TRUE(array::ArrayEquals(*expected.column(i), *actual.column(i)))
        << expected.schema()->field(i)->name() << "\nexpected "
        << array::ArrayToString(*expected.column(i), 8) << "\nactual "
        << array::ArrayToString(*actual.column(i), 8);
  }
}

TEST(FileReader, RoundTripsEveryType) {
  auto fs = io::MemoryFileSystem();
  auto batch = testing::BatchOf(testing::AllTypeColumns(1000), {{"k", "v"}});
  auto path = WriteFile(fs, batch);
  auto reader = FileReader::Open(fs, path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->num_rows(), 1000);
  EXPECT_EQ((*reader)->version().minor, 2u);
  auto read = (*reader)->Read(testing::TopLevelIds((*reader)->schema()), 0, 1000);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_TRUE((*read)->schema()->Equals(*batch->schema()));
  ExpectColumnsEqual(*batch, **read);
}

// float16 vectors keep every bit (NaN payloads, infinities, subnormals, -0) and bfloat16
// vectors (Lance's lance.bfloat16 extension) keep their values and their extension name, in
// the logical types Lance writes for them.
TEST(FileReader, RoundTripsHalfAndBFloat16Vectors) {
  const int64_t n = 300;
  const int32_t dim = 16;
  std::vector<uint16_t> halves(static_cast<size_t>(n * dim));
  const uint16_t specials[] = {0x7E00, 0x7D01, 0xFE00, 0x7C00, 0xFC00, 0x0001,
                               0x83FF, 0x8000, 0x0000, 0x7BFF, 0x0400, 0x3C00};
  for (size_t i = 0; i < halves.size(); ++i) {
    halves[i] = i % 7 == 0 ? specials[(i / 7) % std::size(specials)]
                           : static_cast<uint16_t>((i * 40503u) & 0xFFFFu);
  }
  std::vector<bool> rows_valid(n, true);
  for (int64_t r = 0; r < n; r += 9) rows_valid[r] = false;
  auto f16 = array::MakeFixedSizeList(array::fixed_size_list(array::float16(), dim),
                                      array::MakePrimitive(array::float16(), halves), rows_valid);
  auto bf16_type = array::fixed_size_list(array::BFloat16Field("item"), dim);
  auto bf16_items = array::ArrayData::Make(array::fixed_size_binary(2), n * dim,
                                           {nullptr, Buffer::FromVector(halves)});
  auto bf16 = array::MakeFixedSizeList(bf16_type, bf16_items);
  auto scalar_bf16 = array::ArrayData::Make(
      array::fixed_size_binary(2), n,
      {nullptr, Buffer::FromVector(std::vector<uint16_t>(halves.begin(), halves.begin() + n))});
  auto batch = *array::RecordBatch::Make(
      array::schema(
          {array::field("h", f16->type), array::field("b", bf16_type), array::BFloat16Field("s")}),
      {f16, bf16, scalar_bf16});

  auto lance_schema = LanceSchema::FromArrow(*batch->schema());
  ASSERT_TRUE(lance_schema.ok());
  std::vector<lance::file::Field> protos;
  lance_schema->ToProto(&protos);
  ASSERT_EQ(protos.size(), 3u);
  EXPECT_EQ(protos[0].logical_type(), "fixed_size_list:halffloat:16");
  EXPECT_EQ(protos[1].logical_type(), "fixed_size_list:lance.bfloat16:16");
  EXPECT_EQ(protos[1].metadata_size(), 0);
  EXPECT_EQ(protos[2].logical_type(), "fixed_size_binary:2");
  EXPECT_EQ(protos[2].extension_name(), "lance.bfloat16");

  auto fs = io::MemoryFileSystem();
  for (int64_t page_bytes : {int64_t{8} << 20, int64_t{600}}) {
    auto path = WriteFile(fs, batch, page_bytes, /*num_batches=*/2);
    auto reader = FileReader::Open(fs, path);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    auto read = (*reader)->Read(testing::TopLevelIds((*reader)->schema()), 0, n);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    EXPECT_TRUE((*read)->schema()->Equals(*batch->schema())) << (*read)->schema()->ToString();
    EXPECT_TRUE(array::IsBFloat16Field(*(*read)->schema()->field(1)->type()->value_field()));
    EXPECT_TRUE(array::IsBFloat16Field(*(*read)->schema()->field(2)));
    ExpectColumnsEqual(*batch, **read);
    // Bit for bit, NaNs included.
    const auto& child = *(*read)->column(0)->children[0];
    ASSERT_EQ(child.length, n * dim);
    for (int64_t r = 0; r < n; ++r) {
      if (!rows_valid[r]) continue;
      for (int64_t j = 0; j < dim; ++j) {
        ASSERT_EQ(child.GetValues<uint16_t>(1)[r * dim + j], halves[r * dim + j]) << r << "," << j;
      }
    }
  }
}

TEST(FileReader, RoundTripsManyPagesAndBatches) {
  auto fs = io::MemoryFileSystem();
  auto batch = testing::BatchOf(testing::AllTypeColumns(700), {{"k", "v"}});
  auto path = WriteFile(fs, batch, /*max_page_bytes=*/512, /*num_batches=*/3);
  auto reader = FileReader::Open(fs, path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto read = (*reader)->Read(testing::TopLevelIds((*reader)->schema()), 0, 700);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ExpectColumnsEqual(*batch, **read);
}

TEST(FileReader, ReadsRowRangesAcrossPageBoundaries) {
  auto fs = io::MemoryFileSystem();
  auto batch = testing::BatchOf(testing::AllTypeColumns(500), {{"k", "v"}});
  auto path = WriteFile(fs, batch, /*max_page_bytes=*/300);
  auto reader = FileReader::Open(fs, path);
  ASSERT_TRUE(reader.ok());
  for (auto [start, len] : std::vector<std::pair<int64_t, int64_t>>{
           {0, 1}, {1, 37}, {99, 101}, {250, 250}, {499, 1}, {17, 0}}) {
    auto read = (*reader)->Read(testing::TopLevelIds((*reader)->schema()), start, len);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    ExpectColumnsEqual(*batch->Slice(start, len), **read);
  }
  EXPECT_TRUE((*reader)
                  ->Read(testing::TopLevelIds((*reader)->schema()), 400, 101)
                  .status()
                  .IsInvalidArgument());
}

TEST(FileReader, SequentialAndConcurrentBatchesMatchTheCachedPages) {
  // Batches smaller than pages hit each column's cached page; batches across pages copy;
  // results must not depend on the order or interleaving of reads.
  auto fs = io::MemoryFileSystem();
  auto batch = testing::BatchOf(testing::AllTypeColumns(900), {{"k", "v"}});
  auto path = WriteFile(fs, batch, /*max_page_bytes=*/4096);
  auto reader = FileReader::Open(fs, path);
  ASSERT_TRUE(reader.ok());
  const auto ids = testing::TopLevelIds((*reader)->schema());
  for (int64_t batch_rows : {7, 64, 300}) {
    for (int64_t start = 0; start < 900; start += batch_rows) {
      const int64_t len = std::min<int64_t>(batch_rows, 900 - start);
      auto read = (*reader)->Read(ids, start, len);
      ASSERT_TRUE(read.ok()) << read.status().ToString();
      ExpectColumnsEqual(*batch->Slice(start, len), **read);
    }
  }
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int64_t start = t * 13; start + 50 <= 900; start += 50) {
        auto read = (*reader)->Read(ids, start, 50);
        if (!read.ok() || (*read)->num_rows() != 50 ||
            !array::ArrayEquals(*batch->Slice(start, 50)->column(0), *(*read)->column(0))) {
          ++failures;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(FileReader, ProjectsFieldsInRequestedOrder) {
  auto fs = io::MemoryFileSystem();
  auto batch = testing::BatchOf(testing::AllTypeColumns(50), {{"k", "v"}});
  auto path = WriteFile(fs, batch);
  auto reader = FileReader::Open(fs, path);
  ASSERT_TRUE(reader.ok());
  const auto* s = (*reader)->schema().FindTopLevel("struct");
  const auto* l = (*reader)->schema().FindTopLevel("list_int32");
  ASSERT_NE(s, nullptr);
  ASSERT_NE(l, nullptr);
  auto read = (*reader)->Read({s->id, l->id}, 0, 50);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ((*read)->num_columns(), 2);
  EXPECT_EQ((*read)->schema()->field(0)->name(), "struct");
  EXPECT_TRUE(array::ArrayEquals(*batch->GetColumnByName("struct"), *(*read)->column(0)));
  EXPECT_TRUE(array::ArrayEquals(*batch->GetColumnByName("list_int32"), *(*read)->column(1)));
  EXPECT_TRUE((*reader)->Read({12345}, 0, 1).status().IsNotFound());
}

TEST(FileReader, TakesRows) {
  auto fs = io::MemoryFileSystem();
  auto batch = testing::BatchOf(testing::AllTypeColumns(20000), {{"k", "v"}});
  auto path = WriteFile(fs, batch, /*max_page_bytes=*/64 << 10);
  auto reader = FileReader::Open(fs, path);
  ASSERT_TRUE(reader.ok());
  std::vector<int64_t> rows{0, 3, 4, 1000, 9999, 10000, 19999};
  auto taken = (*reader)->Take(testing::TopLevelIds((*reader)->schema()), rows);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  for (int i = 0; i < batch->num_columns(); ++i) {
    auto expected = array::Take(batch->column(i), rows);
    ASSERT_TRUE(expected.ok());
    EXPECT_TRUE(array::ArrayEquals(**expected, *(*taken)->column(i)))
        << batch->schema()->field(i)->name();
  }
  EXPECT_TRUE((*reader)
                  ->Take(testing::TopLevelIds((*reader)->schema()), {5, 2})
                  .status()
                  .IsInvalidArgument());
  EXPECT_TRUE((*reader)
                  ->Take(testing::TopLevelIds((*reader)->schema()), {20000})
                  .status()
                  .IsInvalidArgument());
}

/// Sorted random rows of [0, n) (repeats allowed), seeded.
std::vector<int64_t> RandomRows(int64_t n, size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int64_t> dist(0, n - 1);
  std::vector<int64_t> rows(count);
  for (auto& r : rows) r = dist(rng);
  std::sort(rows.begin(), rows.end());
  return rows;
}

void ExpectTakeEqualsSelect(const FileReader& reader, const array::RecordBatch& full,
                            const std::vector<int64_t>& rows) {
  auto taken = reader.Take(testing::TopLevelIds(reader.schema()), rows);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  ASSERT_EQ((*taken)->num_rows(), static_cast<int64_t>(rows.size()));
  for (int i = 0; i < full.num_columns(); ++i) {
    auto expected = array::Take(full.column(i), rows);
    ASSERT_TRUE(expected.ok());
    EXPECT_TRUE(array::ValidateArray(*(*taken)->column(i)).ok()) << full.schema()->field(i)->name();
    EXPECT_TRUE(array::ArrayEquals(**expected, *(*taken)->column(i)))
        << full.schema()->field(i)->name() << " taking " << rows.size() << " rows, first "
        << rows[0] << "\nexpected " << array::ArrayToString(**expected, 8) << "\nactual "
        << array::ArrayToString(*(*taken)->column(i), 8);
  }
}

TEST(FileReader, TakeEqualsReadAndSelectOnEveryLayout) {
  auto fs = io::MemoryFileSystem();
  auto batch = testing::BatchOf(testing::AllTypeColumns(12000), {{"k", "v"}});
  // Large pages (many chunks per page) and small pages (rows and lists across pages).
  for (int64_t page_bytes : {int64_t{8} << 20, int64_t{16} << 10}) {
    auto path = WriteFile(fs, batch, page_bytes, /*num_batches=*/3);
    auto reader = FileReader::Open(fs, path);
    ASSERT_TRUE(reader.ok());
    auto full =
        (*reader)->Read(testing::TopLevelIds((*reader)->schema()), 0, (*reader)->num_rows());
    ASSERT_TRUE(full.ok()) << full.status().ToString();
    uint32_t seed = 1;
    for (size_t count : {1, 2, 7, 100, 3000}) {
      SCOPED_TRACE("page bytes " + std::to_string(page_bytes) + ", rows " + std::to_string(count));
      ExpectTakeEqualsSelect(**reader, **full, RandomRows(12000, count, seed++));
    }
    ExpectTakeEqualsSelect(**reader, **full, {0, 0, 1, 4095, 4096, 4097, 11999, 11999});
    std::vector<int64_t> range(2500);
    for (size_t i = 0; i < range.size(); ++i) range[i] = 3000 + static_cast<int64_t>(i);
    ExpectTakeEqualsSelect(**reader, **full, range);
  }
}

TEST(FileReader, TakeAfterSequentialReadUsesCachedPage) {
  auto fs = io::MemoryFileSystem();
  auto batch = testing::BatchOf(testing::AllTypeColumns(5000), {{"k", "v"}});
  auto path = WriteFile(fs, batch);
  auto reader = FileReader::Open(fs, path);
  ASSERT_TRUE(reader.ok());
  // A partial read leaves the first page of every column cached.
  ASSERT_TRUE((*reader)->Read(testing::TopLevelIds((*reader)->schema()), 0, 100).ok());
  ExpectTakeEqualsSelect(**reader, *batch, {1, 50, 2000, 4999});
}

TEST(FileReader, RoundTripsOneMegabyteString) {
  auto fs = io::MemoryFileSystem();
  std::vector<std::optional<std::string>> values{std::string(1 << 20, 'q'), std::nullopt, "ü"};
  auto batch = testing::BatchOf(
      {{"s", array::field("s", array::utf8()), array::MakeString(values)}}, {{"k", "v"}});
  auto path = WriteFile(fs, batch);
  auto reader = FileReader::Open(fs, path);
  ASSERT_TRUE(reader.ok());
  auto read = (*reader)->Read(testing::TopLevelIds((*reader)->schema()), 0, 3);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ExpectColumnsEqual(*batch, **read);
}

TEST(FileReader, RoundTripsManyEmptyListsBetweenValues) {
  auto fs = io::MemoryFileSystem();
  auto batch = testing::BatchOf(
      {{"l", array::field("l", array::list(array::int32())), testing::MostlyEmptyLists(200000)}},
      {{"k", "v"}});
  auto path = WriteFile(fs, batch);
  auto reader = FileReader::Open(fs, path);
  ASSERT_TRUE(reader.ok());
  auto read = (*reader)->Read(testing::TopLevelIds((*reader)->schema()), 0, 200000);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ExpectColumnsEqual(*batch, **read);
}

TEST(FileReader, RoundTripsEmptyFile) {
  auto fs = io::MemoryFileSystem();
  auto batch = testing::BatchOf(testing::AllTypeColumns(0), {{"k", "v"}});
  auto path = WriteFile(fs, batch);
  auto reader = FileReader::Open(fs, path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->num_rows(), 0);
  auto read = (*reader)->Read(testing::TopLevelIds((*reader)->schema()), 0, 0);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ((*read)->num_rows(), 0);
}

TEST(FileReader, TruncatedOrCorruptedFilesFailCleanly) {
  auto fs = io::MemoryFileSystem();
  auto batch = testing::BatchOf(testing::AllTypeColumns(200), {{"k", "v"}});
  auto path = WriteFile(fs, batch, 1024);
  auto bytes = fs->ReadFile(path);
  ASSERT_TRUE(bytes.ok());
  const std::string good((*bytes)->view());
  // Truncations: never a crash; a short or tail-less file is Corruption naming it.
  for (size_t len : {size_t{0}, size_t{10}, size_t{39}, good.size() / 2, good.size() - 1}) {
    const std::string p = UniquePath("trunc");
    ASSERT_TRUE(fs->WriteFile(p, std::string_view(good).substr(0, len)).ok());
    auto reader = FileReader::Open(fs, p);
    EXPECT_FALSE(reader.ok()) << len;
    if (!reader.ok()) {
      EXPECT_NE(reader.status().message().find(p), std::string::npos) << reader.status().ToString();
    }
  }
  // Byte flips anywhere: Open/Read may fail, but must not crash.
  for (size_t pos = 0; pos < good.size(); pos += 1 + good.size() / 150) {
    std::string bad = good;
    bad[pos] = static_cast<char>(bad[pos] ^ 0x5A);
    const std::string p = UniquePath("flip");
    ASSERT_TRUE(fs->WriteFile(p, bad).ok());
    auto reader = FileReader::Open(fs, p);
    if (!reader.ok()) continue;
    auto read =
        (*reader)->Read(testing::TopLevelIds((*reader)->schema()), 0, (*reader)->num_rows());
    (void)read;
  }
  std::string bad_magic = good;
  bad_magic[good.size() - 1] = 'X';
  const std::string p = UniquePath("magic");
  ASSERT_TRUE(fs->WriteFile(p, bad_magic).ok());
  EXPECT_TRUE(FileReader::Open(fs, p).status().IsCorruption());
}

TEST(FileWriter, RejectsMismatchedBatchesAndBadOptions) {
  auto fs = io::MemoryFileSystem();
  auto batch = testing::BatchOf({{"a", array::field("a", array::int32()),
                                  array::MakePrimitive<int32_t>(array::int32(), {1, 2})}},
                                {{"k", "v"}});
  auto schema = LanceSchema::FromArrow(*batch->schema());
  FileWriterOptions options;
  for (FileVersion v : {FileVersion{2, 3}, FileVersion{2, 0}, FileVersion{0, 3}}) {
    options.version = v;
    auto refused = FileWriter::Open(fs, UniquePath("v"), *schema, options);
    EXPECT_TRUE(refused.status().IsNotSupported()) << v.major << "." << v.minor;
    EXPECT_NE(refused.status().message().find("2.1 and 2.2"), std::string::npos);
  }
  options.version = {0, 3};
  EXPECT_NE(FileWriter::Open(fs, UniquePath("v"), *schema, options)
                .status()
                .message()
                .find("version 2.0 (the legacy encodings)"),
            std::string::npos);
  auto writer = FileWriter::Open(fs, UniquePath("m"), *schema);
  ASSERT_TRUE(writer.ok());
  auto other = testing::BatchOf({{"a", array::field("a", array::int64()),
                                  array::MakePrimitive<int64_t>(array::int64(), {1})}},
                                {{"k", "v"}});
  EXPECT_TRUE((*writer)->Write(*other).IsInvalidArgument());
  (*writer)->Abort();
}

/// The page layouts of every column of the file at `path`, from its column metadata.
std::vector<lance::encodings21::PageLayout> PageLayouts(const io::FileSystemPtr& fs,
                                                        const std::string& path) {
  std::vector<lance::encodings21::PageLayout> layouts;
  auto bytes = fs->ReadFile(path);
  EXPECT_TRUE(bytes.ok());
  const std::string_view file = (*bytes)->view();
  auto footer = DecodeFooter(file.substr(file.size() - kFooterSize), file.size(), path);
  EXPECT_TRUE(footer.ok());
  for (uint32_t c = 0; c < footer->num_columns; ++c) {
    uint64_t entry[2];
    std::memcpy(entry, file.data() + footer->cmo_table_pos + 16 * c, 16);
    lance::file::v2::ColumnMetadata column;
    EXPECT_TRUE(column.ParseFromArray(file.data() + entry[0], static_cast<int>(entry[1])));
    for (const auto& page : column.pages()) {
      google::protobuf::Any any;
      EXPECT_TRUE(any.ParseFromString(page.encoding().direct().encoding()));
      lance::encodings21::PageLayout layout;
      EXPECT_TRUE(layout.ParseFromString(any.value()));
      layouts.push_back(std::move(layout));
    }
  }
  return layouts;
}

std::vector<testing::TestColumn> EveryTypeAndDictionaries(int64_t n) {
  auto cols = testing::AllTypeColumns(n);
  for (auto& c : testing::DictionaryColumns(n)) cols.push_back(std::move(c));
  return cols;
}

TEST(FileWriter21, RoundTripsEveryType) {
  auto fs = io::MemoryFileSystem();
  for (auto [page_bytes, batches] : {std::pair<int64_t, int>{8 << 20, 1}, {512, 3}}) {
    auto batch = testing::BatchOf(EveryTypeAndDictionaries(1000), {{"k", "v"}});
    auto path = WriteFile(fs, batch, page_bytes, batches, {2, 1});
    auto reader = FileReader::Open(fs, path);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ((*reader)->version().major, 2u);
    EXPECT_EQ((*reader)->version().minor, 1u);
    auto read = (*reader)->Read(testing::TopLevelIds((*reader)->schema()), 0, 1000);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    ExpectColumnsEqual(*batch, **read);
    ExpectTakeEqualsSelect(**reader, **read, RandomRows(1000, 200, 7));
  }
}

// The 2.1 grammar: u16 chunk words (no large chunks) and a constant layout only when every
// value is null, without the 2.2 level counts.
TEST(FileWriter21, WritesOnlyWhatA21ReaderAccepts) {
  auto fs = io::MemoryFileSystem();
  auto path = WriteFile(fs, testing::BatchOf(EveryTypeAndDictionaries(700), {{"k", "v"}}), 8 << 20,
                        1, {2, 1});
  int mini_blocks = 0, constants = 0;
  for (const auto& layout : PageLayouts(fs, path)) {
    if (layout.has_mini_block_layout()) {
      ++mini_blocks;
      EXPECT_FALSE(layout.mini_block_layout().has_large_chunk());
    }
    if (layout.has_constant_layout()) {
      ++constants;
      EXPECT_FALSE(layout.constant_layout().has_inline_value());
      EXPECT_EQ(layout.constant_layout().num_rep_values(), 0u);
      EXPECT_EQ(layout.constant_layout().num_def_values(), 0u);
    }
  }
  EXPECT_GT(mini_blocks, 20);
  EXPECT_GT(constants, 0);
  auto bytes = fs->ReadFile(path);
  ASSERT_TRUE(bytes.ok());
  const std::string_view tail = (*bytes)->view().substr((*bytes)->size() - 8);
  EXPECT_EQ(tail, std::string_view("\x02\x00\x01\x00LANC", 8));
}

// Chunks stay within the 32 KiB a u16 chunk word describes, even with many levels per value.
TEST(FileWriter21, RoundTripsManyEmptyListsAndLongValues) {
  auto fs = io::MemoryFileSystem();
  std::vector<std::optional<std::string>> big{std::string(1 << 20, 'q'), std::nullopt, "ü"};
  for (const auto& col :
       {testing::TestColumn{"l", array::field("l", array::list(array::int32())),
                            testing::MostlyEmptyLists(200000)},
        testing::TestColumn{"ll", array::field("ll", array::list(array::list(array::utf8()))),
                            testing::ListListString(20000)},
        testing::TestColumn{"s", array::field("s", array::utf8()), array::MakeString(big)}}) {
    auto batch = testing::BatchOf({col}, {{"k", "v"}});
    auto path = WriteFile(fs, batch, 8 << 20, 1, {2, 1});
    auto reader = FileReader::Open(fs, path);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    auto read = (*reader)->Read(testing::TopLevelIds((*reader)->schema()), 0, batch->num_rows());
    ASSERT_TRUE(read.ok()) << col.name << ": " << read.status().ToString();
    ExpectColumnsEqual(*batch, **read);
  }
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::format
