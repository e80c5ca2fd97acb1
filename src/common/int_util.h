// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Integer helpers shared by the layers: flooring division and little-endian loads from byte
// buffers (the Lance and Arrow formats are little-endian, as is every supported host).

#pragma once

#include <cstdint>
#include <cstring>

namespace lancedb::int_util {

/// Divide rounding toward negative infinity (`/` truncates toward zero): FloorDiv(-1, 10) = -1.
/// REQUIRES: b != 0, and not (a == INT64_MIN and b == -1).
constexpr int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/// The little-endian uint32 at `p` (any alignment).
inline uint32_t LoadU32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

/// The little-endian uint64 at `p` (any alignment).
inline uint64_t LoadU64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

}  // namespace lancedb::int_util
