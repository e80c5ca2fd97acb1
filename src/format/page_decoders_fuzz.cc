// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// libFuzzer target over the 2.1/2.2 page decoders (lance-format.md §2.3): the structural
// layouts (mini-block, full-zip, constant) and every compressive encoding behind them.
// Input: byte 0 picks the leaf shape (int32, nullable int64, string, list<int32>, FSL<float,4>,
// nullable struct member); byte 1 bit 7 says whether a serialized PageLayout follows (u16 LE
// length + bytes), otherwise byte 1 picks one of the canned layouts below; then up to four
// page buffers, each a u32 LE length followed by its bytes. Decoding and unraveling must
// return a Status; crashes, sanitizer reports and hangs are bugs.
// Seeds: page buffers of the fixtures' data files (types_21/types_22) with their layouts.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "format/page_decoder.h"
#include "format/unravel.h"

namespace {

namespace pb = lance::encodings21;
using lancedb::format::LeafPath;
using lancedb::format::StepKind;

pb::CompressiveEncoding Flat(int bits) {
  pb::CompressiveEncoding e;
  e.mutable_flat()->set_bits_per_value(static_cast<uint64_t>(bits));
  return e;
}

pb::CompressiveEncoding Ool(int width) {
  pb::CompressiveEncoding e;
  e.mutable_out_of_line_bitpacking()->set_uncompressed_bits_per_value(16);
  *e.mutable_out_of_line_bitpacking()->mutable_values() = Flat(width);
  return e;
}

pb::CompressiveEncoding Variable() {
  pb::CompressiveEncoding e;
  *e.mutable_variable()->mutable_offsets() = Flat(32);
  return e;
}

pb::PageLayout Canned(uint8_t which, const LeafPath& path, int64_t rows) {
  pb::PageLayout layout;
  const int value_bits = path.leaf_type->id() == lancedb::array::TypeId::kInt64 ? 64 : 32;
  if (which % 4 == 3) {
    auto* fz = layout.mutable_full_zip_layout();
    fz->set_bits_rep(path.max_rep > 0 ? 1 : 0);
    fz->set_bits_def(path.nullable.back() ? 1 : 0);
    fz->set_num_items(static_cast<uint64_t>(rows));
    if (path.leaf_type->id() == lancedb::array::TypeId::kString) {
      fz->set_bits_per_offset(32);
      auto* fsst = fz->mutable_value_compression()->mutable_fsst();
      fsst->set_symbol_table(std::string("\x02\x00\x00\x01TSSFabcdefghijklmnop\x02\x03", 26));
      *fsst->mutable_values() = Variable();
    } else {
      fz->set_bits_per_value(static_cast<uint64_t>(value_bits));
      *fz->mutable_value_compression() = Flat(value_bits);
    }
    for (int i = 0; i < path.depth(); ++i) fz->add_layers(pb::REPDEF_NULLABLE_ITEM);
    return layout;
  }
  if (which % 4 == 2) {
    auto* c = layout.mutable_constant_layout();
    for (int i = 0; i < path.depth(); ++i) c->add_layers(pb::REPDEF_NULLABLE_ITEM);
    *c->mutable_def_compression() = Ool(1);
    c->set_num_def_values(static_cast<uint64_t>(rows));
    return layout;
  }
  auto* mb = layout.mutable_mini_block_layout();
  mb->set_has_large_chunk(which & 0x10);
  mb->set_num_buffers(1);
  mb->set_num_items(static_cast<uint64_t>(rows));
  if (path.max_rep > 0) *mb->mutable_rep_compression() = Ool(1);
  if (path.nullable.back()) {
    if (which & 0x20) {
      auto* rle = mb->mutable_def_compression()->mutable_rle();
      *rle->mutable_values() = Flat(16);
      *rle->mutable_run_lengths() = Flat(8);
    } else {
      *mb->mutable_def_compression() = Ool(2);
    }
  }
  const bool is_string = path.leaf_type->id() == lancedb::array::TypeId::kString;
  if (which % 4 == 1) {
    // Dictionary page: indices bit-packed, dictionary lz4-compressed.
    mb->mutable_value_compression()->mutable_inline_bitpacking()->set_uncompressed_bits_per_value(
        32);
    auto* general = mb->mutable_dictionary()->mutable_general();
    general->mutable_compression()->set_scheme(pb::COMPRESSION_ALGORITHM_LZ4);
    *general->mutable_values() = is_string ? Variable() : Flat(value_bits);
    mb->set_num_dictionary_items(which >> 2);
  } else if (is_string) {
    auto* fsst = mb->mutable_value_compression()->mutable_fsst();
    fsst->set_symbol_table(std::string("\x01\x00\x00\x01TSSFhello   \x05", 17));
    *fsst->mutable_values() = Variable();
  } else if (which & 0x40) {
    auto* rle = mb->mutable_value_compression()->mutable_rle();
    *rle->mutable_values() = Flat(value_bits);
    *rle->mutable_run_lengths() = Flat(8);
    mb->set_num_buffers(2);
  } else {
    mb->mutable_value_compression()->mutable_inline_bitpacking()->set_uncompressed_bits_per_value(
        static_cast<uint64_t>(value_bits));
  }
  for (int i = 0; i < path.depth(); ++i) {
    mb->add_layers(path.steps[static_cast<size_t>(i)] == StepKind::kList
                       ? pb::REPDEF_NULL_AND_EMPTY_LIST
                       : pb::REPDEF_NULLABLE_ITEM);
  }
  std::reverse(mb->mutable_layers()->begin(), mb->mutable_layers()->end());
  return layout;
}

LeafPath Shape(uint8_t which) {
  namespace arr = lancedb::array;
  LeafPath path;
  path.field_id = 0;
  switch (which % 6) {
    case 0:
      path.leaf_type = arr::int32();
      break;
    case 1:
      path.leaf_type = arr::int64();
      break;
    case 2:
      path.leaf_type = arr::utf8();
      break;
    case 3:
      path.steps.push_back(StepKind::kList);
      path.child_index.push_back(0);
      path.nullable.push_back(true);
      path.max_rep = 1;
      path.leaf_type = arr::int32();
      break;
    case 4:
      path.leaf_type = arr::fixed_size_list(arr::float32(), 4);
      break;
    default:
      path.steps.push_back(StepKind::kStruct);
      path.child_index.push_back(0);
      path.nullable.push_back(true);
      path.leaf_type = arr::int32();
      break;
  }
  path.steps.push_back(StepKind::kLeaf);
  path.nullable.push_back(which % 6 != 0);
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const LeafPath path = Shape(data[0]);
  const int64_t rows = 1 + data[2] * 17;
  size_t pos = 3;
  pb::PageLayout layout;
  if (data[1] & 0x80) {
    if (size < pos + 2) return 0;
    uint16_t len;
    std::memcpy(&len, data + pos, 2);
    pos += 2;
    if (size < pos + len || !layout.ParseFromArray(data + pos, len)) return 0;
    pos += len;
  } else {
    layout = Canned(data[1], path, rows);
  }
  lancedb::format::PageContext ctx;
  ctx.path = &path;
  ctx.num_rows = rows;
  ctx.where = "fuzz page";
  if (!lancedb::format::InitLeafValues(*path.leaf_type, &ctx.value_layout).ok()) return 0;
  while (ctx.buffers.size() < 4 && pos + 4 <= size) {
    uint32_t len;
    std::memcpy(&len, data + pos, 4);
    pos += 4;
    len = static_cast<uint32_t>(std::min<size_t>(len, size - pos));
    ctx.buffers.push_back(lancedb::Buffer::Copy(data + pos, len));
    pos += len;
  }
  const auto* decoder = lancedb::format::PageDecoderRegistry::Default().Find(layout.layout_case());
  if (decoder == nullptr) return 0;
  lancedb::format::LeafItems items;
  if (!decoder->Decode(layout, ctx, &items).ok()) return 0;
  (void)lancedb::format::Unravel(path, std::move(items)).ok();
  return 0;
}
