// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// bfloat16 values (pylance's `lance.bfloat16`: the upper 16 bits of a float32, stored as
// fixed_size_binary(2), little-endian) to and from float32. Widening is exact; narrowing rounds
// to nearest, ties to even, and keeps NaN a (quiet) NaN.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>

namespace lancedb::array {

inline float BFloat16ToFloat(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline uint16_t FloatToBFloat16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

/// Widen `in` into `out` (the same length).
inline void BFloat16ToFloat(std::span<const uint16_t> in, std::span<float> out) {
  for (size_t i = 0; i < in.size(); ++i) out[i] = BFloat16ToFloat(in[i]);
}

}  // namespace lancedb::array
