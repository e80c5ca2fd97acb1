// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The AVX-512 and AVX2 variants carry per-function target attributes (as in distance_simd.cc)
// and run only when ActiveSimdLevel() says the CPU has them.

#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#pragma GCC diagnostic ignored "-Wuninitialized"

#include "index/vector/kmeans_kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "index/vector/distance.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace lancedb::index::vector::internal {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

/// Reduce one row's per-lane minima: the least score, and among lanes holding it the least
/// centroid index.
void ReduceLanes(const float* best, const uint32_t* index, uint32_t* out_index, float* out_score) {
  float b = best[0];
  for (int64_t l = 1; l < kPanelWidth; ++l) b = std::min(b, best[l]);
  uint32_t idx = std::numeric_limits<uint32_t>::max();
  for (int64_t l = 0; l < kPanelWidth; ++l) {
    if (best[l] == b) idx = std::min(idx, index[l]);
  }
  if (idx == std::numeric_limits<uint32_t>::max()) idx = 0;  // NaN scores everywhere
  *out_index = idx;
  *out_score = b;
}

void NearestScalar(const CentroidPanels& p, const float* data, int64_t n, size_t stride,
                   uint32_t* out_index, float* out_score) {
  const size_t dim = p.dim;
  float best[kPanelWidth], acc[kPanelWidth];
  uint32_t index[kPanelWidth];
  for (int64_t r = 0; r < n; ++r) {
    const float* x = data + static_cast<size_t>(r) * stride;
    for (int64_t l = 0; l < kPanelWidth; ++l) {
      best[l] = kInf;
      index[l] = static_cast<uint32_t>(l);
    }
    for (int64_t q = 0; q < p.num_panels; ++q) {
      const float* v = &p.values[static_cast<size_t>(q) * dim * kPanelWidth];
      std::copy_n(&p.bias[q * kPanelWidth], kPanelWidth, acc);
      for (size_t j = 0; j < dim; ++j) {
        for (int64_t l = 0; l < kPanelWidth; ++l) {
          acc[l] = std::fma(-x[j], v[j * kPanelWidth + l], acc[l]);
        }
      }
      for (int64_t l = 0; l < kPanelWidth; ++l) {
        if (acc[l] < best[l]) {
          best[l] = acc[l];
          index[l] = static_cast<uint32_t>(q * kPanelWidth + l);
        }
      }
    }
    ReduceLanes(best, index, &out_index[r], &out_score[r]);
  }
}

#if defined(__x86_64__)

#define LANCEDB_AVX2 __attribute__((target("avx2,fma")))
#define LANCEDB_AVX512 __attribute__((target("avx512f,avx2,fma")))

/// R rows at once against every panel; the per-lane minima stay in registers.
template <int R>
LANCEDB_AVX512 void NearestAvx512Rows(const CentroidPanels& p, const float* x, size_t stride,
                                      uint32_t* out_index, float* out_score) {
  const size_t dim = p.dim;
  __m512 best[R];
  __m512i index[R];
  const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  for (int r = 0; r < R; ++r) {
    best[r] = _mm512_set1_ps(kInf);
    index[r] = lanes;
  }
  for (int64_t q = 0; q < p.num_panels; ++q) {
    const float* v = &p.values[static_cast<size_t>(q) * dim * kPanelWidth];
    const __m512 bias = _mm512_loadu_ps(&p.bias[q * kPanelWidth]);
    __m512 acc[R];
    for (int r = 0; r < R; ++r) acc[r] = bias;
    for (size_t j = 0; j < dim; ++j) {
      const __m512 c = _mm512_loadu_ps(v + j * kPanelWidth);
      for (int r = 0; r < R; ++r) {
        // acc - x_j * c, one rounding: the scalar kernel's fma(-x_j, c, acc).
        acc[r] = _mm512_fnmadd_ps(_mm512_set1_ps(x[r * stride + j]), c, acc[r]);
      }
    }
    const __m512i ids =
        _mm512_add_epi32(lanes, _mm512_set1_epi32(static_cast<int>(q * kPanelWidth)));
    for (int r = 0; r < R; ++r) {
      const __mmask16 less = _mm512_cmp_ps_mask(acc[r], best[r], _CMP_LT_OQ);
      best[r] = _mm512_mask_mov_ps(best[r], less, acc[r]);
      index[r] = _mm512_mask_mov_epi32(index[r], less, ids);
    }
  }
  alignas(64) float b[kPanelWidth];
  alignas(64) uint32_t i[kPanelWidth];
  for (int r = 0; r < R; ++r) {
    _mm512_store_ps(b, best[r]);
    _mm512_store_si512(i, index[r]);
    ReduceLanes(b, i, &out_index[r], &out_score[r]);
  }
}

LANCEDB_AVX512 void NearestAvx512(const CentroidPanels& p, const float* data, int64_t n,
                                  size_t stride, uint32_t* out_index, float* out_score) {
  constexpr int kRows = 8;
  int64_t r = 0;
  for (; r + kRows <= n; r += kRows) {
    NearestAvx512Rows<kRows>(p, data + r * stride, stride, out_index + r, out_score + r);
  }
  for (; r < n; ++r) {
    NearestAvx512Rows<1>(p, data + r * stride, stride, out_index + r, out_score + r);
  }
}

/// AVX2 has 16 registers: two rows at once, each panel as two halves.
template <int R>
LANCEDB_AVX2 void NearestAvx2Rows(const CentroidPanels& p, const float* x, size_t stride,
                                  uint32_t* out_index, float* out_score) {
  const size_t dim = p.dim;
  __m256 best[R][2];
  __m256i index[R][2];
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i eight = _mm256_set1_epi32(8);
  for (int r = 0; r < R; ++r) {
    best[r][0] = best[r][1] = _mm256_set1_ps(kInf);
    index[r][0] = lanes;
    index[r][1] = _mm256_add_epi32(lanes, eight);
  }
  for (int64_t q = 0; q < p.num_panels; ++q) {
    const float* v = &p.values[static_cast<size_t>(q) * dim * kPanelWidth];
    __m256 acc[R][2];
    for (int r = 0; r < R; ++r) {
      acc[r][0] = _mm256_loadu_ps(&p.bias[q * kPanelWidth]);
      acc[r][1] = _mm256_loadu_ps(&p.bias[q * kPanelWidth + 8]);
    }
    for (size_t j = 0; j < dim; ++j) {
      const __m256 c0 = _mm256_loadu_ps(v + j * kPanelWidth);
      const __m256 c1 = _mm256_loadu_ps(v + j * kPanelWidth + 8);
      for (int r = 0; r < R; ++r) {
        const __m256 xj = _mm256_set1_ps(x[r * stride + j]);
        acc[r][0] = _mm256_fnmadd_ps(xj, c0, acc[r][0]);
        acc[r][1] = _mm256_fnmadd_ps(xj, c1, acc[r][1]);
      }
    }
    const __m256i base =
        _mm256_add_epi32(lanes, _mm256_set1_epi32(static_cast<int>(q * kPanelWidth)));
    for (int r = 0; r < R; ++r) {
      for (int h = 0; h < 2; ++h) {
        const __m256 less = _mm256_cmp_ps(acc[r][h], best[r][h], _CMP_LT_OQ);
        best[r][h] = _mm256_blendv_ps(best[r][h], acc[r][h], less);
        const __m256i ids = h == 0 ? base : _mm256_add_epi32(base, eight);
        index[r][h] = _mm256_castps_si256(
            _mm256_blendv_ps(_mm256_castsi256_ps(index[r][h]), _mm256_castsi256_ps(ids), less));
      }
    }
  }
  alignas(32) float b[kPanelWidth];
  alignas(32) uint32_t i[kPanelWidth];
  for (int r = 0; r < R; ++r) {
    _mm256_store_ps(b, best[r][0]);
    _mm256_store_ps(b + 8, best[r][1]);
    _mm256_store_si256(reinterpret_cast<__m256i*>(i), index[r][0]);
    _mm256_store_si256(reinterpret_cast<__m256i*>(i + 8), index[r][1]);
    ReduceLanes(b, i, &out_index[r], &out_score[r]);
  }
}

LANCEDB_AVX2 void NearestAvx2(const CentroidPanels& p, const float* data, int64_t n, size_t stride,
                              uint32_t* out_index, float* out_score) {
  int64_t r = 0;
  for (; r + 2 <= n; r += 2) {
    NearestAvx2Rows<2>(p, data + r * stride, stride, out_index + r, out_score + r);
  }
  for (; r < n; ++r) NearestAvx2Rows<1>(p, data + r * stride, stride, out_index + r, out_score + r);
}

#endif  // __x86_64__

}  // namespace

float SquaredNorm(const float* x, size_t dim) {
  float acc = 0;
  for (size_t j = 0; j < dim; ++j) acc = std::fma(x[j], x[j], acc);
  return acc;
}

CentroidPanels MakeCentroidPanels(const float* centroids, int64_t num_centroids, size_t dim,
                                  bool l2) {
  CentroidPanels p;
  p.dim = dim;
  p.num_centroids = num_centroids;
  p.num_panels = (num_centroids + kPanelWidth - 1) / kPanelWidth;
  p.values.assign(static_cast<size_t>(p.num_panels) * dim * kPanelWidth, 0.0f);
  p.bias.assign(static_cast<size_t>(p.num_panels) * kPanelWidth, kInf);
  for (int64_t c = 0; c < num_centroids; ++c) {
    const float* src = centroids + static_cast<size_t>(c) * dim;
    float* panel = &p.values[static_cast<size_t>(c / kPanelWidth) * dim * kPanelWidth];
    const int64_t lane = c % kPanelWidth;
    for (size_t j = 0; j < dim; ++j) panel[j * kPanelWidth + lane] = l2 ? 2 * src[j] : src[j];
    p.bias[c] = l2 ? SquaredNorm(src, dim) : 0.0f;
  }
  return p;
}

void NearestCentroids(const CentroidPanels& panels, const float* data, int64_t num_rows,
                      size_t row_stride, uint32_t* best_index, float* best_score) {
#if defined(__x86_64__)
  switch (ActiveSimdLevel()) {
    case SimdLevel::kAvx512:
      return NearestAvx512(panels, data, num_rows, row_stride, best_index, best_score);
    case SimdLevel::kAvx2:
      return NearestAvx2(panels, data, num_rows, row_stride, best_index, best_score);
    case SimdLevel::kScalar:
      break;
  }
#endif
  NearestScalar(panels, data, num_rows, row_stride, best_index, best_score);
}

}  // namespace lancedb::index::vector::internal
