// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Decoding writes whole 8-byte symbols with unaligned stores and advances by their length, into
// a scratch buffer of 8 bytes per code or into the output sized once from an upper bound (the
// escaped byte counted as a code); each value's end offset is the output position after it.

#include "format/fsst.h"

#include <cstring>
#include <string>
#include <type_traits>

namespace lancedb::format {
namespace {

constexpr uint64_t kFsstMagic = 0x46535354ull << 32;
constexpr uint8_t kEscape = 255;

template <typename Offset>
Offset LoadOffset(const uint8_t* offsets, int64_t i) {
  Offset v;
  std::memcpy(&v, offsets + i * static_cast<int64_t>(sizeof(Offset)), sizeof(Offset));
  return v;
}

}  // namespace

Result<FsstDecoder> FsstDecoder::Make(std::string_view table) {
  if (table.size() < 8) return Status::Corruption("FSST symbol table is truncated");
  uint64_t header = 0;
  std::memcpy(&header, table.data(), 8);
  if ((header & kFsstMagic) != kFsstMagic) {
    return Status::Corruption("FSST symbol table lacks its magic");
  }
  FsstDecoder d;
  d.enabled_ = (header & (1ull << 24)) != 0;
  const size_t n = header & 0xFF;
  if (table.size() < 8 + 9 * n) return Status::Corruption("FSST symbol table is truncated");
  for (size_t i = 0; i < n; ++i) std::memcpy(&d.symbols_[i], table.data() + 8 + 8 * i, 8);
  for (size_t i = 0; i < n; ++i) {
    d.lens_[i] = static_cast<uint8_t>(table[8 + 8 * n + i]);
    if (d.lens_[i] > 8) return Status::Corruption("FSST symbol longer than 8 bytes");
  }
  d.bound_lens_ = d.lens_;
  d.bound_lens_[kEscape] = 1;
  return d;
}

int64_t FsstDecoder::DecodedBound(const uint8_t* data, int64_t size) const {
  int64_t bound = 0;
  for (int64_t i = 0; i < size; ++i) bound += bound_lens_[data[i]];
  return bound;
}

uint8_t* FsstDecoder::DecodeCodes(const uint8_t* p, const uint8_t* end, uint8_t* dst) const {
  while (p < end) {
    if (end - p >= 4) {
      uint32_t codes;
      std::memcpy(&codes, p, 4);
      // Any escape (0xFF byte) among the four? Test ~codes for a zero byte.
      if (((~codes - 0x01010101u) & codes & 0x80808080u) == 0) {
        for (int k = 0; k < 4; ++k) {
          const uint8_t code = static_cast<uint8_t>(codes >> (8 * k));
          std::memcpy(dst, &symbols_[code], 8);
          dst += lens_[code];
        }
        p += 4;
        continue;
      }
    }
    const uint8_t code = *p++;
    if (code == kEscape) {
      if (p == end) return nullptr;
      *dst++ = *p++;
    } else {
      std::memcpy(dst, &symbols_[code], 8);
      dst += lens_[code];
    }
  }
  return dst;
}

Status FsstDecoder::DecodeValue(const uint8_t* data, int64_t size,
                                std::vector<uint8_t>* out) const {
  if (!enabled_) {
    out->insert(out->end(), data, data + size);
    return Status::OK();
  }
  const size_t start = out->size();
  out->resize(start + static_cast<size_t>(DecodedBound(data, size)) + 8);
  uint8_t* end = DecodeCodes(data, data + size, out->data() + start);
  if (end == nullptr) {
    out->resize(start);
    return Status::Corruption("FSST value ends with an escape");
  }
  out->resize(static_cast<size_t>(end - out->data()));
  return Status::OK();
}

template <typename Offset>
Status FsstDecoder::DecodeWithOffsets(const uint8_t* offsets, std::span<const uint8_t> bytes,
                                      int64_t count, LeafValues* out,
                                      std::vector<uint8_t>* scratch) const {
  const Offset first = LoadOffset<Offset>(offsets, 0);
  const Offset last = LoadOffset<Offset>(offsets, count);
  if constexpr (std::is_signed_v<Offset>) {
    if (first < 0) return Status::Corruption("FSST value offsets out of bounds");
  }
  if (last < first || static_cast<uint64_t>(last) > bytes.size()) {
    return Status::Corruption("FSST value offsets out of bounds");
  }
  const size_t first_offset = out->offsets.size();
  const int64_t base = out->offsets.back();
  // Expand into `scratch` (sized to 8 bytes per code, zeroed only when it grows) or, without
  // one, into `out` sized from a pass over the codes.
  const size_t data_start = out->data.size();
  uint8_t* begin = nullptr;
  if (!enabled_) {
    out->data.resize(data_start + static_cast<size_t>(last - first));
    begin = out->data.data() + data_start;
  } else if (scratch != nullptr) {
    const size_t need = static_cast<size_t>(last - first) * 8 + 8;
    if (scratch->size() < need) scratch->resize(need);
    begin = scratch->data();
  } else {
    out->data.resize(data_start +
                     static_cast<size_t>(DecodedBound(bytes.data() + first, last - first)) + 8);
    begin = out->data.data() + data_start;
  }
  out->offsets.resize(first_offset + static_cast<size_t>(count));
  int64_t* ends = out->offsets.data() + first_offset;
  uint8_t* dst = begin;
  Offset prev = first;
  for (int64_t i = 0; i < count; ++i) {
    const Offset next = LoadOffset<Offset>(offsets, i + 1);
    if (next < prev || next > last) {
      out->offsets.resize(first_offset);
      out->data.resize(data_start);
      return Status::Corruption("FSST value offsets decrease");
    }
    if (enabled_) {
      dst = DecodeCodes(bytes.data() + prev, bytes.data() + next, dst);
      if (dst == nullptr) {
        out->offsets.resize(first_offset);
        out->data.resize(data_start);
        return Status::Corruption("FSST value ends with an escape");
      }
    } else {
      std::memcpy(dst, bytes.data() + prev, static_cast<size_t>(next - prev));
      dst += next - prev;
    }
    ends[i] = base + (dst - begin);
    prev = next;
  }
  if (enabled_ && scratch != nullptr) {
    out->data.insert(out->data.end(), begin, dst);
  } else {
    out->data.resize(data_start + static_cast<size_t>(dst - begin));
  }
  out->num_values += count;
  return Status::OK();
}

Status FsstDecoder::DecodeRaw(const uint8_t* offsets, int offset_bytes,
                              std::span<const uint8_t> bytes, int64_t count, LeafValues* out,
                              std::vector<uint8_t>* scratch) const {
  if (offset_bytes == 8) return DecodeWithOffsets<uint64_t>(offsets, bytes, count, out, scratch);
  return DecodeWithOffsets<uint32_t>(offsets, bytes, count, out, scratch);
}

Status FsstDecoder::Decode(const LeafValues& in, LeafValues* out) const {
  return DecodeWithOffsets<int64_t>(reinterpret_cast<const uint8_t*>(in.offsets.data()),
                                    std::span<const uint8_t>(in.data), in.num_values, out, nullptr);
}

}  // namespace lancedb::format
