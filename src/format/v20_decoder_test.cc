// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "format/v20_decoder.h"

#include <gtest/gtest.h>
#include <zstd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "common/test_dirs.h"
#include "format/file_reader.h"
#include "format/proto/file2.pb.h"
#include "io/file_system.h"

namespace lancedb::format {
namespace LANCEDB_TEST_FILE_NS {

using array::ArrayPtr;

/// Page buffers held in memory; buffer i of the page is `page[i]`.
struct Page {
  std::vector<BufferPtr> buffers;
  V20BufferSource Source() const {
    return [this](const pb20::Buffer& ref) -> Result<BufferPtr> {
      if (ref.buffer_index() >= buffers.size()) return Status::Corruption("no such buffer");
      return buffers[ref.buffer_index()];
    };
  }
  template <typename T>
  uint32_t Add(const std::vector<T>& values) {
    buffers.push_back(Buffer::FromVector(values));
    return static_cast<uint32_t>(buffers.size() - 1);
  }
};

pb20::ArrayEncoding Flat(uint64_t bits, uint32_t buffer) {
  pb20::ArrayEncoding e;
  e.mutable_flat()->set_bits_per_value(bits);
  e.mutable_flat()->mutable_buffer()->set_buffer_index(buffer);
  return e;
}

pb20::ArrayEncoding NoNulls(pb20::ArrayEncoding values) {
  pb20::ArrayEncoding e;
  *e.mutable_nullable()->mutable_no_nulls()->mutable_values() = std::move(values);
  return e;
}

TEST(V20Decoder, FlatAndNullable) {
  Page page;
  const uint32_t validity = page.Add(std::vector<uint8_t>{0b101});
  const uint32_t values = page.Add(std::vector<int32_t>{7, 0, 9});
  pb20::ArrayEncoding e;
  auto* some = e.mutable_nullable()->mutable_some_nulls();
  *some->mutable_validity() = Flat(1, validity);
  *some->mutable_values() = Flat(32, values);
  auto out = DecodeV20Array(e, array::int32(), 3, page.Source());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)->null_count, 1);
  EXPECT_EQ((*out)->GetValues<int32_t>(1)[0], 7);
  EXPECT_EQ((*out)->GetValues<int32_t>(1)[2], 9);
  EXPECT_TRUE((*out)->IsNull(1));

  pb20::ArrayEncoding all_null;
  all_null.mutable_nullable()->mutable_all_nulls();
  auto nulls = DecodeV20Array(all_null, array::int64(), 4, page.Source());
  ASSERT_TRUE(nulls.ok());
  EXPECT_EQ((*nulls)->null_count, 4);
}

TEST(V20Decoder, BinaryWithNullAdjustment) {
  Page page;
  // "ab", null, "", "cde": end offsets 2, 2 + adjustment, 2, 5; adjustment = 5 + 1.
  const uint32_t indices = page.Add(std::vector<uint64_t>{2, 8, 2, 5});
  const uint32_t bytes = page.Add(std::vector<char>{'a', 'b', 'c', 'd', 'e'});
  pb20::ArrayEncoding e;
  *e.mutable_binary()->mutable_indices() = NoNulls(Flat(64, indices));
  *e.mutable_binary()->mutable_bytes() = Flat(8, bytes);
  e.mutable_binary()->set_null_adjustment(6);
  for (const auto& type : {array::utf8(), array::large_binary()}) {
    auto out = DecodeV20Array(e, type, 4, page.Source());
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)->GetView(0), "ab");
    EXPECT_TRUE((*out)->IsNull(1));
    EXPECT_EQ((*out)->GetView(2), "");
    EXPECT_EQ((*out)->GetView(3), "cde");
  }
  // Offsets that go backwards are corrupt.
  page.buffers[indices] = Buffer::FromVector(std::vector<uint64_t>{3, 2, 2, 5});
  EXPECT_TRUE(DecodeV20Array(e, array::utf8(), 4, page.Source()).status().IsCorruption());
}

TEST(V20Decoder, DictionaryIsOneBasedWithZeroForNull) {
  Page page;
  const uint32_t indices = page.Add(std::vector<uint8_t>{2, 0, 1, 2});
  const uint32_t ends = page.Add(std::vector<uint64_t>{1, 3});
  const uint32_t bytes = page.Add(std::vector<char>{'x', 'y', 'z'});
  pb20::ArrayEncoding e;
  auto* dict = e.mutable_dictionary();
  *dict->mutable_indices() = NoNulls(Flat(8, indices));
  *dict->mutable_items()->mutable_binary()->mutable_indices() = Flat(64, ends);
  *dict->mutable_items()->mutable_binary()->mutable_bytes() = Flat(8, bytes);
  dict->mutable_items()->mutable_binary()->set_null_adjustment(4);
  dict->set_num_dictionary_items(2);
  auto out = DecodeV20Array(e, array::utf8(), 4, page.Source());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)->GetView(0), "yz");
  EXPECT_TRUE((*out)->IsNull(1));
  EXPECT_EQ((*out)->GetView(2), "x");
  page.buffers[indices] = Buffer::FromVector(std::vector<uint8_t>{3, 0, 1, 2});
  EXPECT_TRUE(DecodeV20Array(e, array::utf8(), 4, page.Source()).status().IsCorruption());
}

TEST(V20Decoder, ListOffsetsWithNullAdjustment) {
  Page page;
  // [A, B], null, [], [C, D, E]: ends 2, 2 + 6, 2, 5 with adjustment 6.
  const uint32_t offsets = page.Add(std::vector<uint64_t>{2, 8, 2, 5});
  pb20::List list;
  *list.mutable_offsets() = NoNulls(Flat(64, offsets));
  list.set_null_offset_adjustment(6);
  list.set_num_items(5);
  auto out = DecodeV20ListOffsets(list, 4, page.Source());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->ends, (std::vector<uint64_t>{2, 2, 2, 5}));
  EXPECT_EQ(out->valid, (std::vector<uint8_t>{1, 0, 1, 1}));
  list.set_num_items(4);  // an offset beyond the page's items
  EXPECT_TRUE(DecodeV20ListOffsets(list, 4, page.Source()).status().IsCorruption());
}

TEST(V20Decoder, FixedSizeListAndZstdFlat) {
  std::vector<float> items{1, 2, 3, 4, 5, 6};
  std::string compressed(ZSTD_compressBound(items.size() * 4) + 8, '\0');
  const uint64_t raw_size = items.size() * 4;
  std::memcpy(compressed.data(), &raw_size, 8);
  const size_t n =
      ZSTD_compress(compressed.data() + 8, compressed.size() - 8, items.data(), raw_size, 1);
  ASSERT_FALSE(ZSTD_isError(n));
  compressed.resize(8 + n);
  Page page;
  page.buffers.push_back(Buffer::Copy(compressed));
  pb20::ArrayEncoding e;
  e.mutable_fixed_size_list()->set_dimension(2);
  *e.mutable_fixed_size_list()->mutable_items() = Flat(32, 0);
  e.mutable_fixed_size_list()->mutable_items()->mutable_flat()->mutable_compression()->set_scheme(
      "zstd");
  auto out = DecodeV20Array(e, array::fixed_size_list(array::float32(), 2), 3, page.Source());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)->children[0]->GetValues<float>(1)[5], 6.0f);
  // The wrong dimension for the type is corrupt.
  EXPECT_TRUE(DecodeV20Array(e, array::fixed_size_list(array::float32(), 3), 2, page.Source())
                  .status()
                  .IsCorruption());
}

TEST(V20Decoder, ErrorsForShortBuffersAndUnknownEncodings) {
  Page page;
  const uint32_t values = page.Add(std::vector<int32_t>{1, 2});
  auto short_status = DecodeV20Array(Flat(32, values), array::int32(), 3, page.Source()).status();
  EXPECT_TRUE(short_status.IsCorruption()) << short_status.ToString();
  EXPECT_TRUE(
      DecodeV20Array(Flat(64, values), array::int32(), 1, page.Source()).status().IsCorruption());
  pb20::ArrayEncoding packed;
  packed.mutable_bitpacked()->set_compressed_bits_per_value(3);
  EXPECT_TRUE(DecodeV20Array(packed, array::int32(), 2, page.Source()).status().IsNotSupported());
  pb20::ArrayEncoding unset;
  EXPECT_TRUE(DecodeV20Array(unset, array::int32(), 2, page.Source()).status().IsNotSupported());
  pb20::ArrayEncoding lz4 = Flat(32, values);
  lz4.mutable_flat()->mutable_compression()->set_scheme("lz4");
  EXPECT_TRUE(DecodeV20Array(lz4, array::int32(), 2, page.Source()).status().IsCorruption());
}

/// The data file of a fixture table (each holds one), or "" when there is none.
std::string FixtureFile(const std::string& table) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(
           testdirs::LanceDbFixturesDir() / (table + ".lance") / "data", ec)) {
    return entry.path().string();
  }
  return "";
}

TEST(V20Reader, FixtureRangesMatchFullRead) {
  LANCEDB_REQUIRE_FIXTURE_PATH(testdirs::LanceDbFixturesDir() / "types_20.lance");
  const std::string path = FixtureFile("types_20");
  ASSERT_FALSE(path.empty()) << "no data file in fixture types_20";
  auto reader = FileReader::Open(io::LocalFileSystem(), path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->version().minor, 0);
  std::vector<int32_t> ids;
  for (const auto& f : (*reader)->schema().fields()) ids.push_back(f.id);
  auto full = (*reader)->Read(ids, 0, (*reader)->num_rows());
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  auto part = (*reader)->Read(ids, 1234, 777);
  ASSERT_TRUE(part.ok()) << part.status().ToString();
  for (int c = 0; c < (*full)->num_columns(); ++c) {
    auto expected = array::Slice((*full)->column(c), 1234, 777);
    EXPECT_TRUE(array::ArrayEquals(*expected, *(*part)->column(c)))
        << (*full)->schema()->field(c)->name();
  }
  auto taken = (*reader)->Take(ids, {3, 4000, 4999});
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  EXPECT_EQ((*taken)->num_rows(), 3);
}

TEST(V20Reader, CorruptPageNamesFileColumnAndPage) {
  LANCEDB_REQUIRE_FIXTURE_PATH(testdirs::LanceDbFixturesDir() / "types_20.lance");
  const std::string path = FixtureFile("types_20");
  ASSERT_FALSE(path.empty()) << "no data file in fixture types_20";
  auto bytes = io::LocalFileSystem()->ReadFile(path);
  ASSERT_TRUE(bytes.ok());
  std::string data((*bytes)->view());
  // Column 7 (str_low) is a dictionary page; its first buffer holds the 1-based indices.
  uint64_t cmo = 0;
  std::memcpy(&cmo, data.data() + data.size() - 40 + 8, 8);
  uint64_t pos = 0;
  uint64_t len = 0;
  std::memcpy(&pos, data.data() + cmo + 16 * 7, 8);
  std::memcpy(&len, data.data() + cmo + 16 * 7 + 8, 8);
  lance::file::v2::ColumnMetadata meta;
  ASSERT_TRUE(meta.ParseFromArray(data.data() + pos, static_cast<int>(len)));
  const uint64_t indices = meta.pages(0).buffer_offsets(0);
  std::memset(data.data() + indices, 0xFF, meta.pages(0).buffer_sizes(0));
  auto mem = io::MemoryFileSystem();
  ASSERT_TRUE(mem->WriteFile("bad.lance", std::string_view(data)).ok());
  auto reader = FileReader::Open(mem, "bad.lance");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const int32_t field_id = (*reader)->schema().fields()[7].id;
  auto read = (*reader)->Read({field_id}, 0, 10);
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(read.status().IsCorruption()) << read.status().ToString();
  EXPECT_NE(read.status().message().find("'bad.lance', column 7, page 0"), std::string::npos)
      << read.status().ToString();
  // Other columns still read.
  EXPECT_TRUE((*reader)->Read({(*reader)->schema().fields()[0].id}, 0, 10).ok());
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::format
