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
#include <string_view>

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

  /// Decompress one value and append its bytes to `out`.
  Status DecodeValue(const uint8_t* data, int64_t size, std::vector<uint8_t>* out) const;

 private:
  Result<int64_t> DecodedSize(const uint8_t* data, int64_t size) const;
  /// REQUIRES: `dst` has DecodedSize() + 8 writable bytes.
  void DecodeUnchecked(const uint8_t* data, int64_t size, uint8_t* dst) const;

  bool enabled_ = false;
  std::array<uint64_t, 256> symbols_{};
  std::array<uint8_t, 256> lens_{};
};

}  // namespace lancedb::format
