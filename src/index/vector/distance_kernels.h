// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Internal: the table of float kernels for one instruction set. distance.cc holds the scalar
// table and the dispatch; distance_simd.cc holds the AVX2+FMA and AVX-512 tables, compiled in
// that one translation unit with per-function target attributes.

#pragma once

#include <cstddef>
#include <cstdint>

namespace lancedb::index::vector::internal {

struct Kernels {
  float (*l2)(const float*, const float*, size_t);
  float (*dot)(const float*, const float*, size_t);
  float (*l2_f16)(const uint16_t*, const uint16_t*, size_t);
  float (*dot_f16)(const uint16_t*, const uint16_t*, size_t);
  double (*l2_f64)(const double*, const double*, size_t);
  double (*dot_f64)(const double*, const double*, size_t);
  uint32_t (*hamming)(const uint8_t*, const uint8_t*, size_t);
  void (*pq4_block)(const float*, const uint8_t*, size_t, float*);
};

extern const Kernels kScalarKernels;
extern const Kernels kAvx2Kernels;
extern const Kernels kAvx512Kernels;

}  // namespace lancedb::index::vector::internal
