// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Decoding runs in two passes per buffer: the exact output size (which also validates the
// escapes), then the copy, which writes whole 8-byte symbols and advances by their length.

#include "format/fsst.h"

#include <cstring>
#include <string>

namespace lancedb::format {
namespace {

constexpr uint64_t kFsstMagic = 0x46535354ull << 32;
constexpr uint8_t kEscape = 255;

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
  return d;
}

Result<int64_t> FsstDecoder::DecodedSize(const uint8_t* data, int64_t size) const {
  int64_t out = 0;
  for (int64_t i = 0; i < size; ++i) {
    const uint8_t code = data[i];
    if (code == kEscape) {
      if (++i >= size) return Status::Corruption("FSST value ends with an escape");
      ++out;
    } else {
      out += lens_[code];
    }
  }
  return out;
}

void FsstDecoder::DecodeUnchecked(const uint8_t* data, int64_t size, uint8_t* dst) const {
  for (int64_t i = 0; i < size; ++i) {
    const uint8_t code = data[i];
    if (code == kEscape) {
      *dst++ = data[++i];
    } else {
      std::memcpy(dst, &symbols_[code], 8);
      dst += lens_[code];
    }
  }
}

Status FsstDecoder::DecodeValue(const uint8_t* data, int64_t size,
                                std::vector<uint8_t>* out) const {
  if (!enabled_) {
    out->insert(out->end(), data, data + size);
    return Status::OK();
  }
  LANCEDB_ASSIGN_OR_RETURN(int64_t n, DecodedSize(data, size));
  const size_t start = out->size();
  out->resize(start + static_cast<size_t>(n) + 8);
  DecodeUnchecked(data, size, out->data() + start);
  out->resize(start + static_cast<size_t>(n));
  return Status::OK();
}

Status FsstDecoder::Decode(const LeafValues& in, LeafValues* out) const {
  const int64_t count = in.num_values;
  if (!enabled_) {
    out->AppendFrom(in, 0, count);
    return Status::OK();
  }
  // Pass 1: the size of every value (validating its escapes) becomes its end offset.
  const size_t first = out->offsets.size();
  int64_t end = out->offsets.back();
  out->offsets.reserve(first + static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const int64_t a = in.offsets[i];
    auto n = DecodedSize(in.data.data() + a, in.offsets[i + 1] - a);
    if (!n.ok()) {
      out->offsets.resize(first);
      return n.status();
    }
    end += *n;
    out->offsets.push_back(end);
  }
  // Pass 2: copy whole symbols; the 8 spare bytes absorb the last symbol's overhang.
  out->data.resize(static_cast<size_t>(end) + 8);
  for (int64_t i = 0; i < count; ++i) {
    const int64_t a = in.offsets[i];
    DecodeUnchecked(in.data.data() + a, in.offsets[i + 1] - a,
                    out->data.data() + out->offsets[first - 1 + static_cast<size_t>(i)]);
  }
  out->data.resize(static_cast<size_t>(end));
  out->num_values += count;
  return Status::OK();
}

}  // namespace lancedb::format
