// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/sq_storage.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace lancedb::index::vector {
namespace {

/// L2: sum_j (q'_j - code_j)^2 * scale_j^2 with q'_j = (q_j - lower_j) / scale_j, written as
/// sum_j (a_j - b_j * code_j)^2 with a_j = q_j - lower_j and b_j = scale_j.
/// Dot: sum_j q_j lower_j + sum_j q_j scale_j code_j, with b_j = q_j scale_j (the caller adds
/// the bias and negates).
float ScalarKernel(const uint8_t* c, const float* a, const float* b, size_t dim,
                   bool dot) noexcept {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  size_t j = 0;
  if (dot) {
    for (; j + 8 <= dim; j += 8) {
      for (size_t u = 0; u < 8; ++u) acc[u] += b[j + u] * static_cast<float>(c[j + u]);
    }
    for (; j < dim; ++j) acc[0] += b[j] * static_cast<float>(c[j]);
  } else {
    for (; j + 8 <= dim; j += 8) {
      for (size_t u = 0; u < 8; ++u) {
        float d = a[j + u] - b[j + u] * static_cast<float>(c[j + u]);
        acc[u] += d * d;
      }
    }
    for (; j < dim; ++j) {
      float d = a[j] - b[j] * static_cast<float>(c[j]);
      acc[0] += d * d;
    }
  }
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

#if defined(__x86_64__)
/// ScalarKernel with the eight lanes in one AVX2 register: the same multiplies, subtractions
/// and additions in the same order (no FMA), so the same bits.
__attribute__((target("avx2"))) float Avx2Kernel(const uint8_t* c, const float* a, const float* b,
                                                 size_t dim, bool dot) noexcept {
  __m256 acc = _mm256_setzero_ps();
  size_t j = 0;
  for (; j + 8 <= dim; j += 8) {
    __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(c + j));
    __m256 code = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bytes));
    __m256 bc = _mm256_mul_ps(_mm256_loadu_ps(b + j), code);
    if (dot) {
      acc = _mm256_add_ps(acc, bc);
    } else {
      __m256 d = _mm256_sub_ps(_mm256_loadu_ps(a + j), bc);
      acc = _mm256_add_ps(acc, _mm256_mul_ps(d, d));
    }
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, acc);
  for (; j < dim; ++j) {
    const float bc = b[j] * static_cast<float>(c[j]);
    if (dot) {
      lanes[0] += bc;
    } else {
      const float d = a[j] - bc;
      lanes[0] += d * d;
    }
  }
  return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) +
         ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}
#endif

SqDistanceComputer::Kernel ChooseKernel() {
#if defined(__x86_64__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return Avx2Kernel;
#endif
  return ScalarKernel;
}

}  // namespace

SqDistanceComputer::SqDistanceComputer(const ScalarQuantizer* sq, const uint8_t* codes,
                                       std::span<const float> query)
    : codes_(codes),
      dim_(sq->dim()),
      dot_(sq->metric() == DistanceType::kDot),
      kernel_(ChooseKernel()),
      a_(dim_),
      b_(dim_) {
  for (size_t j = 0; j < dim_; ++j) {
    if (dot_) {
      bias_ += query[j] * sq->lower()[j];
      b_[j] = query[j] * sq->scale(j);
    } else {
      a_[j] = query[j] - sq->lower()[j];
      b_[j] = sq->scale(j);
    }
  }
}

std::unique_ptr<DistanceComputer> SqStorage::QueryComputer(std::span<const float> query) const {
  return std::make_unique<SqDistanceComputer>(sq_, codes_.data(), query);
}

}  // namespace lancedb::index::vector
