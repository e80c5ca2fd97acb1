// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Bit and byte helpers for Arrow-style validity bitmaps (LSB-first, 1 = valid).

#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace lancedb::bit_util {

constexpr int64_t BytesForBits(int64_t bits) { return (bits + 7) >> 3; }
constexpr int64_t RoundUp(int64_t value, int64_t factor) {
  return (value + factor - 1) / factor * factor;
}
constexpr int64_t CeilDiv(int64_t value, int64_t divisor) {
  return (value + divisor - 1) / divisor;
}
inline bool GetBit(const uint8_t* bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }
inline void SetBit(uint8_t* bits, int64_t i) {
  bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
}
inline void ClearBit(uint8_t* bits, int64_t i) {
  bits[i >> 3] &= static_cast<uint8_t>(~(1u << (i & 7)));
}
inline void SetBitTo(uint8_t* bits, int64_t i, bool value) {
  if (value) {
    SetBit(bits, i);
  } else {
    ClearBit(bits, i);
  }
}
/// Count the set bits in [offset, offset + length).
int64_t CountSetBits(const uint8_t* bits, int64_t offset, int64_t length);
/// Copy `length` bits from src[src_offset..] to dst[dst_offset..].
void CopyBits(const uint8_t* src, int64_t src_offset, int64_t length, uint8_t* dst,
              int64_t dst_offset);

}  // namespace lancedb::bit_util
