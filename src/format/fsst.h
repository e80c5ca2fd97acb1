// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// FSST string decompression (lance-format.md §2.3, "FSST"). The symbol table is a u64 header
// ("FSST" magic in bits 32-63, bit 24 = encoder switch, bits 0-7 = number of symbols n), then
// n 8-byte symbols, then n symbol lengths. Code c != 255 emits the first lens[c] bytes of
// symbol c; code 255 escapes the next byte. With the switch bit clear the strings are stored
// as they are. Thread-safety: immutable after construction.

#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "common/buffer.h"
#include "format/leaf_data.h"

namespace lancedb::format {

class FsstDecoder {
 public:
  /// Parse a symbol table; Corruption when it is malformed.
  static Result<FsstDecoder> Make(std::string_view symbol_table);

  /// Decompress every value of `compressed` (variable layout) and append them to `out`
  /// (variable layout). Corruption on a dangling escape.
  Status Decode(const LeafValues& compressed, LeafValues* out) const;

  /// Decompress `count` values stored as (count + 1) little-endian offsets of `offset_bytes`
  /// (4 or 8) bytes at `offsets`, relative to `bytes` (a mini-block Variable chunk), and append
  /// them to `out` (variable layout). The output is bounded by 8 bytes per input byte.
  /// Corruption on offsets out of order or out of bounds, or a dangling escape; `out` is then
  /// unchanged. REQUIRES: `offsets` has (count + 1) * offset_bytes readable bytes.
  /// `scratch` (kept by the caller between calls) receives the expansion before it is appended
  /// to `out`; it grows to 8 bytes per input byte of the largest call.
  Status DecodeRaw(const uint8_t* offsets, int offset_bytes, std::span<const uint8_t> bytes,
                   int64_t count, LeafValues* out, std::vector<uint8_t>* scratch) const;

  /// Decompress one value and append its bytes to `out`.
  Status DecodeValue(const uint8_t* data, int64_t size, std::vector<uint8_t>* out) const;

 private:
  template <typename Offset>
  Status DecodeWithOffsets(const uint8_t* offsets, std::span<const uint8_t> bytes, int64_t count,
                           LeafValues* out, std::vector<uint8_t>* scratch) const;
  /// Decode the codes [p, end) to `dst`; returns the end of the output, or nullptr on a
  /// dangling escape. REQUIRES: `dst` has room for 8 bytes per code.
  uint8_t* DecodeCodes(const uint8_t* p, const uint8_t* end, uint8_t* dst) const;
  /// An upper bound of the decoded size of `size` codes.
  int64_t DecodedBound(const uint8_t* data, int64_t size) const;

  bool enabled_ = false;
  std::array<uint64_t, 256> symbols_{};
  std::array<uint8_t, 256> lens_{};
  /// lens_ with the escape counted as one byte (its escaped byte counts as a code).
  std::array<uint8_t, 256> bound_lens_{};
};

}  // namespace lancedb::format
