// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Full-zip page writer (lance-format.md §2.3), for values of 256 bytes or more:
//   buffer 0: per item a control word ((rep << bits_def) | def, 0/1/2/4 bytes depending on
//             bits_rep + bits_def), then for a visible item its value: fixed-width values are
//             always present (null slots zeroed); variable-width values are a u32/u64 length plus
//             the bytes, for valid items only;
//   buffer 1: the repetition index, present for variable width or when there are lists:
//             rows + 1 byte offsets into buffer 0 where each row starts (and the end), each
//             1, 2, 4 or 8 bytes wide (the width follows from the buffer length).

#include <algorithm>
#include <bit>
#include <cstring>

#include "format/page_encoder.h"

namespace lancedb::format {

namespace pb = lance::encodings21;

namespace {

uint32_t BitsFor(uint16_t max_level) {
  return static_cast<uint32_t>(std::bit_width(static_cast<unsigned>(max_level)));
}

void PutLE(std::vector<uint8_t>* out, uint64_t value, int width) {
  for (int i = 0; i < width; ++i) out->push_back(static_cast<uint8_t>(value >> (8 * i)));
}

}  // namespace

int FullZipControlWordBytes(uint32_t bits_rep, uint32_t bits_def) {
  uint32_t bits = bits_rep + bits_def;
  if (bits == 0) return 0;
  if (bits <= 8) return 1;
  if (bits <= 16) return 2;
  return 4;
}

Result<EncodedPage> EncodeFullZip(const LeafPath& path, const LeafItems& items,
                                  const PageLevels& levels, const pb::CompressiveEncoding& value) {
  const LeafValues& v = items.values;
  const bool has_rep = !items.rep.empty();
  const bool has_def = !levels.def.empty();
  uint16_t max_rep = 0;
  for (uint16_t r : items.rep) max_rep = std::max(max_rep, r);
  uint16_t max_def = 0;
  for (uint16_t d : levels.def) max_def = std::max(max_def, d);
  const uint32_t bits_rep = BitsFor(max_rep);
  const uint32_t bits_def = BitsFor(max_def);
  const int cw_bytes = FullZipControlWordBytes(bits_rep, bits_def);
  const bool variable = v.kind == ValueKind::kVariable;
  const int offset_bytes = v.large_offsets ? 8 : 4;
  const int64_t value_bytes = variable ? 0 : v.bits_per_value / 8;
  if (!variable && v.bits_per_value % 8 != 0) {
    return Status::NotSupported("Full-zip values must be a whole number of bytes");
  }

  std::vector<uint8_t> zipped;
  std::vector<uint64_t> row_starts;
  const int64_t num_items = items.num_items();
  int64_t value_index = 0;
  for (int64_t i = 0; i < num_items; ++i) {
    const uint16_t rep = has_rep ? items.rep[i] : 0;
    const uint16_t def = has_def ? levels.def[i] : 0;
    if (!has_rep || rep == max_rep) row_starts.push_back(zipped.size());
    PutLE(&zipped, (static_cast<uint64_t>(rep) << bits_def) | def, cw_bytes);
    const bool visible = !(has_rep && has_def) || def <= levels.max_visible_def;
    if (!visible) continue;
    if (variable) {
      if (def == 0) {
        int64_t begin = v.offsets[value_index];
        int64_t end = v.offsets[value_index + 1];
        PutLE(&zipped, static_cast<uint64_t>(end - begin), offset_bytes);
        zipped.insert(zipped.end(), v.data.begin() + begin, v.data.begin() + end);
      }
    } else {
      auto first = v.data.begin() + value_index * value_bytes;
      zipped.insert(zipped.end(), first, first + value_bytes);
    }
    ++value_index;
  }
  row_starts.push_back(zipped.size());

  EncodedPage page;
  page.num_rows = items.num_rows;
  page.buffers.push_back(Buffer::Copy(zipped.data(), static_cast<int64_t>(zipped.size())));
  if (variable || has_rep) {
    const uint64_t max_offset = zipped.size();
    const int width = max_offset <= 0xFF            ? 1
                      : max_offset <= 0xFFFF        ? 2
                      : max_offset <= 0xFFFFFFFFull ? 4
                                                    : 8;
    std::vector<uint8_t> index;
    index.reserve(row_starts.size() * width);
    for (uint64_t s : row_starts) PutLE(&index, s, width);
    page.buffers.push_back(Buffer::Copy(index.data(), static_cast<int64_t>(index.size())));
  }
  auto* fz = page.layout.mutable_full_zip_layout();
  fz->set_bits_rep(bits_rep);
  fz->set_bits_def(bits_def);
  if (variable) {
    fz->set_bits_per_offset(static_cast<uint32_t>(offset_bytes * 8));
  } else {
    fz->set_bits_per_value(static_cast<uint32_t>(v.bits_per_value));
  }
  fz->set_num_items(static_cast<uint32_t>(num_items));
  fz->set_num_visible_items(static_cast<uint32_t>(v.num_values));
  *fz->mutable_value_compression() = value;
  for (auto l : levels.layers) fz->add_layers(l);
  return page;
}

}  // namespace lancedb::format
