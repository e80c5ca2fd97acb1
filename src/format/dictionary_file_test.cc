// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Dictionary columns through the 2.2 file writer and reader: values, nulls, the dictionary
// itself (kept as written within a page), many pages, batches with different dictionaries,
// row ranges and takes, and the page layout Lance expects (lance-format.md §2.3).

#include <google/protobuf/any.pb.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>

#include "array/dictionary.h"
#include "format/container.h"
#include "format/file_reader.h"
#include "format/file_writer.h"
#include "format/lance_schema.h"
#include "format/proto/encodings_v2_1.pb.h"
#include "format/proto/file.pb.h"
#include "format/proto/file2.pb.h"
#include "format/test_data.h"
#include "io/file_system.h"

namespace lancedb::format {
namespace LANCEDB_TEST_FILE_NS {

using array::ArrayPtr;
using array::RecordBatchPtr;

std::string WriteBatches(const io::FileSystemPtr& fs, const std::vector<RecordBatchPtr>& batches,
                         int64_t max_page_bytes = 8 << 20) {
  static std::atomic<int> counter{0};
  std::string path = "dict_test/f" + std::to_string(counter++) + ".lance";
  auto schema = LanceSchema::FromArrow(*batches[0]->schema());
  EXPECT_TRUE(schema.ok()) << schema.status().ToString();
  FileWriterOptions options;
  options.max_page_bytes = max_page_bytes;
  auto writer = FileWriter::Open(fs, path, *schema, options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  for (const auto& b : batches) {
    auto st = (*writer)->Write(*b);
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  auto done = (*writer)->Finish();
  EXPECT_TRUE(done.ok()) << done.status().ToString();
  return path;
}

RecordBatchPtr ReadAll(const io::FileSystemPtr& fs, const std::string& path) {
  auto reader = FileReader::Open(fs, path);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  auto read = (*reader)->Read(testing::TopLevelIds((*reader)->schema()), 0, (*reader)->num_rows());
  EXPECT_TRUE(read.ok()) << read.status().ToString();
  return *read;
}

void ExpectSameValues(const array::RecordBatch& expected, const array::RecordBatch& actual) {
  ASSERT_EQ(expected.num_columns(), actual.num_columns());
  ASSERT_EQ(expected.num_rows(), actual.num_rows());
  for (int i = 0; i < expected.num_columns(); ++i) {
    SCOPED_TRACE(expected.schema()->field(i)->name());
    EXPECT_TRUE(expected.schema()->field(i)->Equals(*actual.schema()->field(i)))
        << actual.schema()->field(i)->ToString();
    EXPECT_TRUE(array::ValidateArray(*actual.column(i)).ok());
    EXPECT_TRUE(array::ArrayEquals(*expected.column(i), *actual.column(i)))
        << "expected " << array::ArrayToString(*expected.column(i), 12) << "\nactual "
        << array::ArrayToString(*actual.column(i), 12);
  }
}

/// The page layouts of column `column` of the file at `path`.
std::vector<lance::encodings21::PageLayout> PageLayouts(const io::FileSystemPtr& fs,
                                                        const std::string& path, int column);

TEST(DictionaryFile, LogicalTypeIsLances) {
  auto schema = LanceSchema::FromArrow(*array::schema(
      {array::field("c", array::dictionary(array::int8(), array::large_utf8(), true)),
       array::field(
           "t", array::dictionary(array::int32(), array::timestamp(array::TimeUnit::kMicro)))}));
  EXPECT_TRUE(schema.status().IsNotSupported()) << schema.status().ToString();
  auto ok = LanceSchema::FromArrow(*array::schema(
      {array::field("c", array::dictionary(array::int8(), array::large_utf8(), true))}));
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->fields()[0].logical_type, "dict:large_string:int8:false");
  std::vector<lance::file::Field> protos;
  ok->ToProto(&protos);
  EXPECT_EQ(protos[0].encoding(), lance::file::DICTIONARY);
  EXPECT_TRUE(protos[0].has_dictionary());
  // Lance has no ordered dictionaries: they read back unordered.
  auto type = ok->fields()[0].ToArrowType();
  ASSERT_TRUE(type.ok());
  EXPECT_TRUE((*type)->Equals(*array::dictionary(array::int8(), array::large_utf8(), false)));
  LanceField bad;
  bad.logical_type = "dict:string:float:false";
  EXPECT_FALSE(bad.ToArrowType().ok());
}

TEST(DictionaryFile, RoundTripsEveryKindOfDictionaryColumn) {
  auto fs = io::MemoryFileSystem();
  auto batch = testing::BatchOf(testing::DictionaryColumns(1000));
  auto read = ReadAll(fs, WriteBatches(fs, {batch}));
  ExpectSameValues(*batch, *read);
  // One page: the dictionary comes back as written, the unused last entry included.
  const auto& dict = *read->column(0)->dictionary;
  EXPECT_EQ(array::ArrayToString(dict),
            "[\"red\", \"green\", \"\", \"blue\", \"日本\", \"unused\"]");
  EXPECT_TRUE(array::ArrayEquals(*read->column(0), *batch->column(0)));
  EXPECT_EQ(array::DictionaryIndex(*read->column(0), 1),
            array::DictionaryIndex(*batch->column(0), 1));
}

TEST(DictionaryFile, RoundTripsManyPagesAndBatchesWithDifferentDictionaries) {
  auto fs = io::MemoryFileSystem();
  auto a = testing::BatchOf(testing::DictionaryColumns(3000));
  // A second batch whose dictionaries differ (reversed order, other values).
  std::vector<testing::TestColumn> other = testing::DictionaryColumns(2000);
  other[0].array =
      testing::DictionaryColumn(array::dictionary(array::int32(), array::utf8()),
                                array::MakeString({"blue", "new", "red", "x"}), 2000, 7);
  auto b = testing::BatchOf(other);
  for (int64_t page_bytes : {int64_t{8} << 20, int64_t{4} << 10}) {
    auto path = WriteBatches(fs, {a, b, a->Slice(10, 500)}, page_bytes);
    auto read = ReadAll(fs, path);
    auto expected = array::ConcatenateBatches(a->schema(), {a, b, a->Slice(10, 500)});
    ASSERT_TRUE(expected.ok()) << expected.status().ToString();
    ExpectSameValues(**expected, *read);
    // Row ranges across pages and takes.
    auto reader = FileReader::Open(fs, path);
    ASSERT_TRUE(reader.ok());
    for (auto [start, len] :
         std::vector<std::pair<int64_t, int64_t>>{{0, 1}, {2990, 20}, {1234, 3000}, {5499, 1}}) {
      auto range = (*reader)->Read(testing::TopLevelIds((*reader)->schema()), start, len);
      ASSERT_TRUE(range.ok()) << range.status().ToString();
      ExpectSameValues(*(*expected)->Slice(start, len), **range);
    }
    std::vector<int64_t> rows{0, 1, 2, 999, 3000, 3001, 4999, 5000, 5499};
    auto taken = (*reader)->Take(testing::TopLevelIds((*reader)->schema()), rows);
    ASSERT_TRUE(taken.ok()) << taken.status().ToString();
    for (int i = 0; i < (*expected)->num_columns(); ++i) {
      auto want = array::Take((*expected)->column(i), rows);
      ASSERT_TRUE(want.ok());
      EXPECT_TRUE(array::ArrayEquals(**want, *(*taken)->column(i)))
          << (*expected)->schema()->field(i)->name();
    }
  }
}

TEST(DictionaryFile, PagesSplitWhenTheirValuesOutgrowTheIndexType) {
  // Two batches whose int8 dictionaries together hold 200 values: no int8 dictionary holds
  // them all, so the writer splits the page, and only reads within one page can succeed.
  auto fs = io::MemoryFileSystem();
  auto type = array::dictionary(array::int8(), array::int64());
  auto make = [&](int64_t base) {
    std::vector<int64_t> values;
    std::vector<int64_t> indices;
    for (int64_t i = 0; i < 100; ++i) {
      values.push_back(base + i);
      indices.push_back(i);
    }
    auto col =
        array::MakeDictionary(type, indices, array::MakePrimitive<int64_t>(array::int64(), values));
    return *array::RecordBatch::Make(array::schema({array::field("d", type)}), {col});
  };
  auto a = make(0);
  auto b = make(1000);
  auto path = WriteBatches(fs, {a, b});
  EXPECT_EQ(PageLayouts(fs, path, 0).size(), 2u);
  auto reader = FileReader::Open(fs, path);
  ASSERT_TRUE(reader.ok());
  auto whole = (*reader)->Read({0}, 0, 200);
  EXPECT_TRUE(whole.status().IsInvalidArgument());
  EXPECT_NE(whole.status().message().find("200 values does not fit int8"), std::string::npos)
      << whole.status().ToString();
  for (const auto& [start, expected] : {std::pair{int64_t{0}, a}, {int64_t{100}, b}}) {
    auto part = (*reader)->Read({0}, start, 100);
    ASSERT_TRUE(part.ok()) << part.status().ToString();
    ExpectSameValues(*expected, **part);
  }
}

TEST(DictionaryFile, PagesAreMiniBlockIndicesWithADictionaryBuffer) {
  auto fs = io::MemoryFileSystem();
  auto batch = testing::BatchOf(testing::DictionaryColumns(100));
  auto path = WriteBatches(fs, {batch});
  // Column 0: dict_string (int32 indices, Variable dictionary of 6 values).
  auto layouts = PageLayouts(fs, path, 0);
  ASSERT_EQ(layouts.size(), 1u);
  const auto& mb = layouts[0].mini_block_layout();
  EXPECT_EQ(mb.value_compression().flat().bits_per_value(), 32u);
  EXPECT_TRUE(mb.dictionary().has_variable());
  EXPECT_EQ(mb.dictionary().variable().offsets().flat().bits_per_value(), 32u);
  EXPECT_EQ(mb.num_dictionary_items(), 6u);
  // Column 4: dict_uint8_int64 (8-bit indices, Flat(64) dictionary).
  auto int_layouts = PageLayouts(fs, path, 4);
  ASSERT_EQ(int_layouts.size(), 1u);
  const auto& ints = int_layouts[0].mini_block_layout();
  EXPECT_EQ(ints.value_compression().flat().bits_per_value(), 8u);
  EXPECT_EQ(ints.dictionary().flat().bits_per_value(), 64u);
}

std::vector<lance::encodings21::PageLayout> PageLayouts(const io::FileSystemPtr& fs,
                                                        const std::string& path, int column) {
  std::vector<lance::encodings21::PageLayout> out;
  auto size = fs->GetSize(path);
  EXPECT_TRUE(size.ok());
  auto tail = fs->ReadRange(path, *size - kFooterSize, kFooterSize);
  EXPECT_TRUE(tail.ok());
  auto footer = DecodeFooter((*tail)->view(), *size, path);
  EXPECT_TRUE(footer.ok());
  auto cmo = fs->ReadRange(path, static_cast<int64_t>(footer->cmo_table_pos) + column * 16, 16);
  EXPECT_TRUE(cmo.ok());
  uint64_t pos = 0;
  uint64_t len = 0;
  std::memcpy(&pos, (*cmo)->data(), 8);
  std::memcpy(&len, (*cmo)->data() + 8, 8);
  auto meta_bytes = fs->ReadRange(path, static_cast<int64_t>(pos), static_cast<int64_t>(len));
  EXPECT_TRUE(meta_bytes.ok());
  lance::file::v2::ColumnMetadata meta;
  EXPECT_TRUE(meta.ParseFromString(std::string((*meta_bytes)->view())));
  for (const auto& page : meta.pages()) {
    google::protobuf::Any any;
    EXPECT_TRUE(any.ParseFromString(page.encoding().direct().encoding()));
    lance::encodings21::PageLayout layout;
    EXPECT_TRUE(layout.ParseFromString(any.value()));
    out.push_back(layout);
  }
  return out;
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::format
