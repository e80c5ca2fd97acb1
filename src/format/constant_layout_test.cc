// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Constant-layout pages (lance-format.md §2.3) built by hand as Lance 12 writes them: an
// inline value, an out-of-line scalar value buffer (strings, as in the LanceDB fixtures
// ops.lance and stable.lance after an `update`), all-null pages, and raw u16 levels.

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "format/page_decoder.h"

namespace lancedb::format {
namespace LANCEDB_TEST_FILE_NS {

namespace pb = lance::encodings21;

LeafPath FlatPath(array::DataTypePtr type) {
  LeafPath path;
  path.field_id = 2;
  path.steps = {StepKind::kLeaf};
  path.nullable = {true};
  path.leaf_type = std::move(type);
  return path;
}

void PutU32(std::string* out, uint32_t v) {
  char bytes[4];
  std::memcpy(bytes, &v, 4);
  out->append(bytes, 4);
}

/// Lance's scalar value buffer of a one-row utf8 array.
std::string StringScalarBuffer(const std::string& value) {
  std::string out;
  PutU32(&out, 2);
  PutU32(&out, 8);
  PutU32(&out, static_cast<uint32_t>(value.size()));
  PutU32(&out, 0);
  PutU32(&out, static_cast<uint32_t>(value.size()));
  return out + value;
}

Status DecodeConstant(const pb::ConstantLayout& c, const LeafPath& path, int64_t num_rows,
                      std::vector<BufferPtr> buffers, LeafItems* out) {
  pb::PageLayout layout;
  *layout.mutable_constant_layout() = c;
  PageContext ctx;
  ctx.path = &path;
  ctx.num_rows = num_rows;
  ctx.buffers = std::move(buffers);
  ctx.where = "test page";
  LANCEDB_RETURN_NOT_OK(InitLeafValues(*path.leaf_type, &ctx.value_layout));
  const PageDecoder* decoder = PageDecoderRegistry::Default().Find(pb::PageLayout::kConstantLayout);
  if (decoder == nullptr) return Status::Internal("no constant decoder");
  return decoder->Decode(layout, ctx, out);
}

std::string ValueAt(const LeafValues& v, int64_t i) {
  return std::string(v.data.begin() + v.offsets[i], v.data.begin() + v.offsets[i + 1]);
}

TEST(ConstantLayout, StringValueInBufferWithoutLevels) {
  // ops.lance, column 2 (field id 2): layers [ALL_VALID_ITEM], no inline value, one buffer.
  pb::ConstantLayout c;
  c.add_layers(pb::REPDEF_ALL_VALID_ITEM);
  const LeafPath path = FlatPath(array::utf8());
  LeafItems out;
  ASSERT_TRUE(
      DecodeConstant(c, path, 9, {Buffer::Copy(StringScalarBuffer("'updated text'"))}, &out).ok());
  ASSERT_EQ(out.num_items(), 9);
  ASSERT_EQ(out.values.num_values, 9);
  for (int64_t i = 0; i < 9; ++i) {
    EXPECT_EQ(out.codes[i], 0);
    EXPECT_EQ(ValueAt(out.values, i), "'updated text'");
  }
}

TEST(ConstantLayout, StringValueInBufferWithRawDefinitionLevels) {
  pb::ConstantLayout c;
  c.add_layers(pb::REPDEF_NULLABLE_ITEM);
  const std::vector<uint16_t> def = {0, 1, 0, 0};
  const LeafPath path = FlatPath(array::utf8());
  LeafItems out;
  ASSERT_TRUE(DecodeConstant(c, path, 4,
                             {Buffer::Copy(StringScalarBuffer("abc")), Buffer::Allocate(0),
                              Buffer::FromVector(def)},
                             &out)
                  .ok());
  ASSERT_EQ(out.num_items(), 4);
  EXPECT_EQ(out.codes, (std::vector<uint16_t>{0, NullCode(0), 0, 0}));
  EXPECT_EQ(ValueAt(out.values, 0), "abc");
  EXPECT_EQ(ValueAt(out.values, 1), "");
  EXPECT_EQ(ValueAt(out.values, 3), "abc");
}

TEST(ConstantLayout, InlineValueAndAllNull) {
  pb::ConstantLayout c;
  c.add_layers(pb::REPDEF_NULLABLE_ITEM);
  const int32_t seven = 7;
  c.set_inline_value(std::string(reinterpret_cast<const char*>(&seven), 4));
  const LeafPath path = FlatPath(array::int32());
  LeafItems out;
  ASSERT_TRUE(DecodeConstant(c, path, 3, {}, &out).ok());
  ASSERT_EQ(out.values.num_values, 3);
  int32_t last = 0;
  std::memcpy(&last, out.values.data.data() + 8, 4);
  EXPECT_EQ(last, 7);

  pb::ConstantLayout all_null;
  all_null.add_layers(pb::REPDEF_NULLABLE_ITEM);
  out.Clear();
  ASSERT_TRUE(DecodeConstant(all_null, path, 3, {}, &out).ok());
  EXPECT_EQ(out.codes, (std::vector<uint16_t>(3, NullCode(0))));
}

TEST(ConstantLayout, RejectsBadScalarBuffersAndLevels) {
  pb::ConstantLayout c;
  c.add_layers(pb::REPDEF_ALL_VALID_ITEM);
  const LeafPath path = FlatPath(array::utf8());
  LeafItems out;
  std::string truncated = StringScalarBuffer("hello");
  truncated.resize(truncated.size() - 2);
  EXPECT_TRUE(DecodeConstant(c, path, 2, {Buffer::Copy(truncated)}, &out).IsCorruption());
  std::string huge;
  PutU32(&huge, 0xFFFFFFFFu);
  EXPECT_TRUE(DecodeConstant(c, path, 2, {Buffer::Copy(huge)}, &out).IsCorruption());
  // Odd-length raw level buffer.
  EXPECT_TRUE(DecodeConstant(c, path, 2,
                             {Buffer::Copy(StringScalarBuffer("x")), Buffer::Allocate(0),
                              Buffer::Copy(std::string("\0\0\0", 3))},
                             &out)
                  .IsCorruption());
  // Two buffers and no inline value: all-null levels, but an all-valid layer cannot be null.
  EXPECT_FALSE(DecodeConstant(c, path, 2, {Buffer::Allocate(0), Buffer::Allocate(0)}, &out).ok());
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::format
