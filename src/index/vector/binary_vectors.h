// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Binary (uint8, hamming) vectors inside the float IVF pipeline. An IVF index over a
// fixed_size_list<uint8> column carries each byte as one float (its value, 0..255): the
// centroids, the flat partitions and the queries keep the float layout of the other metrics,
// and the hamming kernels pack the bytes back to compare them with popcount.
// Thread-safety: the functions are pure.

#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "index/vector/distance.h"

namespace lancedb::index::vector {

/// Write the bytes the floats hold. REQUIRES: every value is an integer in [0, 255].
inline void PackByteFloats(const float* values, size_t count, uint8_t* out) {
  for (size_t i = 0; i < count; ++i) out[i] = static_cast<uint8_t>(values[i]);
}

inline std::vector<uint8_t> PackByteFloats(const float* values, size_t count) {
  std::vector<uint8_t> out(count);
  PackByteFloats(values, count, out.data());
  return out;
}

/// Return whether every value is an integer in [0, 255] (a byte carried as a float).
inline bool AreByteFloats(const float* values, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const float v = values[i];
    if (!(v >= 0.0f && v <= 255.0f) || v != std::floor(v)) return false;
  }
  return true;
}

/// Return the hamming distance between a packed vector and one carried as floats.
inline float HammingToByteFloats(const uint8_t* packed, const float* values, size_t num_bytes) {
  uint8_t buf[256];
  uint32_t total = 0;
  for (size_t at = 0; at < num_bytes; at += sizeof(buf)) {
    const size_t n = std::min(sizeof(buf), num_bytes - at);
    PackByteFloats(values + at, n, buf);
    total += Hamming(packed + at, buf, n);
  }
  return static_cast<float>(total);
}

}  // namespace lancedb::index::vector
