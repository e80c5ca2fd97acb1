// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// AVX2+FMA and AVX-512 distance kernels. Every function carries its own target attribute, so
// this file compiles without -mavx flags and the binary still runs on CPUs without them: the
// dispatch in distance.cc only calls a table after __builtin_cpu_supports approved it.

// GCC 12's AVX-512 headers read deliberately undefined registers (_mm512_undefined_*) inside
// reductions and conversions; the resulting -Wuninitialized reports are about the headers.
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "index/vector/distance_kernels.h"

namespace lancedb::index::vector::internal {
namespace {

#define LANCEDB_AVX2 __attribute__((target("avx2,fma,f16c,popcnt")))
#define LANCEDB_AVX512 __attribute__((target("avx512f,avx2,fma,f16c,popcnt")))

// ----------------------------------------------------------------------------- AVX2 + FMA

LANCEDB_AVX2 inline float HorizontalSum256(__m256 v) {
  __m128 lo = _mm256_castps256_ps128(v);
  __m128 hi = _mm256_extractf128_ps(v, 1);
  lo = _mm_add_ps(lo, hi);
  lo = _mm_add_ps(lo, _mm_movehl_ps(lo, lo));
  lo = _mm_add_ss(lo, _mm_shuffle_ps(lo, lo, 1));
  return _mm_cvtss_f32(lo);
}

LANCEDB_AVX2 inline double HorizontalSum256d(__m256d v) {
  __m128d lo = _mm256_castpd256_pd128(v);
  __m128d hi = _mm256_extractf128_pd(v, 1);
  lo = _mm_add_pd(lo, hi);
  lo = _mm_add_sd(lo, _mm_unpackhi_pd(lo, lo));
  return _mm_cvtsd_f64(lo);
}

LANCEDB_AVX2 float L2Avx2(const float* a, const float* b, size_t dim) {
  __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
  __m256 acc2 = _mm256_setzero_ps(), acc3 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= dim; i += 32) {
    __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
    __m256 d1 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8));
    __m256 d2 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16));
    __m256 d3 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24));
    acc0 = _mm256_fmadd_ps(d0, d0, acc0);
    acc1 = _mm256_fmadd_ps(d1, d1, acc1);
    acc2 = _mm256_fmadd_ps(d2, d2, acc2);
    acc3 = _mm256_fmadd_ps(d3, d3, acc3);
  }
  for (; i + 8 <= dim; i += 8) {
    __m256 d = _mm256_sub_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
    acc0 = _mm256_fmadd_ps(d, d, acc0);
  }
  float sum = HorizontalSum256(_mm256_add_ps(_mm256_add_ps(acc0, acc1), _mm256_add_ps(acc2, acc3)));
  for (; i < dim; ++i) {
    float d = a[i] - b[i];
    sum += d * d;
  }
  return sum;
}

LANCEDB_AVX2 float DotAvx2(const float* a, const float* b, size_t dim) {
  __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
  __m256 acc2 = _mm256_setzero_ps(), acc3 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= dim; i += 32) {
    acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc0);
    acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), acc1);
    acc2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16), acc2);
    acc3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24), acc3);
  }
  for (; i + 8 <= dim; i += 8) {
    acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc0);
  }
  float sum = HorizontalSum256(_mm256_add_ps(_mm256_add_ps(acc0, acc1), _mm256_add_ps(acc2, acc3)));
  for (; i < dim; ++i) sum += a[i] * b[i];
  return sum;
}

LANCEDB_AVX2 inline __m256 LoadHalf8(const uint16_t* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

LANCEDB_AVX2 float HalfToFloatAvx2(uint16_t h) { return _cvtsh_ss(h); }

LANCEDB_AVX2 float L2F16Avx2(const uint16_t* a, const uint16_t* b, size_t dim) {
  __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= dim; i += 16) {
    __m256 d0 = _mm256_sub_ps(LoadHalf8(a + i), LoadHalf8(b + i));
    __m256 d1 = _mm256_sub_ps(LoadHalf8(a + i + 8), LoadHalf8(b + i + 8));
    acc0 = _mm256_fmadd_ps(d0, d0, acc0);
    acc1 = _mm256_fmadd_ps(d1, d1, acc1);
  }
  for (; i + 8 <= dim; i += 8) {
    __m256 d = _mm256_sub_ps(LoadHalf8(a + i), LoadHalf8(b + i));
    acc0 = _mm256_fmadd_ps(d, d, acc0);
  }
  float sum = HorizontalSum256(_mm256_add_ps(acc0, acc1));
  for (; i < dim; ++i) {
    float d = HalfToFloatAvx2(a[i]) - HalfToFloatAvx2(b[i]);
    sum += d * d;
  }
  return sum;
}

LANCEDB_AVX2 float DotF16Avx2(const uint16_t* a, const uint16_t* b, size_t dim) {
  __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= dim; i += 16) {
    acc0 = _mm256_fmadd_ps(LoadHalf8(a + i), LoadHalf8(b + i), acc0);
    acc1 = _mm256_fmadd_ps(LoadHalf8(a + i + 8), LoadHalf8(b + i + 8), acc1);
  }
  for (; i + 8 <= dim; i += 8) {
    acc0 = _mm256_fmadd_ps(LoadHalf8(a + i), LoadHalf8(b + i), acc0);
  }
  float sum = HorizontalSum256(_mm256_add_ps(acc0, acc1));
  for (; i < dim; ++i) sum += HalfToFloatAvx2(a[i]) * HalfToFloatAvx2(b[i]);
  return sum;
}

LANCEDB_AVX2 double L2F64Avx2(const double* a, const double* b, size_t dim) {
  __m256d acc0 = _mm256_setzero_pd(), acc1 = _mm256_setzero_pd();
  size_t i = 0;
  for (; i + 8 <= dim; i += 8) {
    __m256d d0 = _mm256_sub_pd(_mm256_loadu_pd(a + i), _mm256_loadu_pd(b + i));
    __m256d d1 = _mm256_sub_pd(_mm256_loadu_pd(a + i + 4), _mm256_loadu_pd(b + i + 4));
    acc0 = _mm256_fmadd_pd(d0, d0, acc0);
    acc1 = _mm256_fmadd_pd(d1, d1, acc1);
  }
  double sum = HorizontalSum256d(_mm256_add_pd(acc0, acc1));
  for (; i < dim; ++i) {
    double d = a[i] - b[i];
    sum += d * d;
  }
  return sum;
}

LANCEDB_AVX2 double DotF64Avx2(const double* a, const double* b, size_t dim) {
  __m256d acc0 = _mm256_setzero_pd(), acc1 = _mm256_setzero_pd();
  size_t i = 0;
  for (; i + 8 <= dim; i += 8) {
    acc0 = _mm256_fmadd_pd(_mm256_loadu_pd(a + i), _mm256_loadu_pd(b + i), acc0);
    acc1 = _mm256_fmadd_pd(_mm256_loadu_pd(a + i + 4), _mm256_loadu_pd(b + i + 4), acc1);
  }
  double sum = HorizontalSum256d(_mm256_add_pd(acc0, acc1));
  for (; i < dim; ++i) sum += a[i] * b[i];
  return sum;
}

LANCEDB_AVX2 uint32_t HammingPopcnt(const uint8_t* a, const uint8_t* b, size_t num_bytes) {
  uint64_t count = 0;
  size_t i = 0;
  for (; i + 8 <= num_bytes; i += 8) {
    uint64_t x, y;
    __builtin_memcpy(&x, a + i, 8);
    __builtin_memcpy(&y, b + i, 8);
    count += static_cast<uint64_t>(_mm_popcnt_u64(x ^ y));
  }
  for (; i < num_bytes; ++i) count += static_cast<uint64_t>(_mm_popcnt_u32(a[i] ^ b[i]));
  return static_cast<uint32_t>(count);
}

// ----------------------------------------------------------------------------- AVX-512

LANCEDB_AVX512 inline __mmask16 TailMask(size_t n) {
  return static_cast<__mmask16>((1u << n) - 1u);
}

LANCEDB_AVX512 float L2Avx512(const float* a, const float* b, size_t dim) {
  __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
  __m512 acc2 = _mm512_setzero_ps(), acc3 = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 64 <= dim; i += 64) {
    __m512 d0 = _mm512_sub_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i));
    __m512 d1 = _mm512_sub_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16));
    __m512 d2 = _mm512_sub_ps(_mm512_loadu_ps(a + i + 32), _mm512_loadu_ps(b + i + 32));
    __m512 d3 = _mm512_sub_ps(_mm512_loadu_ps(a + i + 48), _mm512_loadu_ps(b + i + 48));
    acc0 = _mm512_fmadd_ps(d0, d0, acc0);
    acc1 = _mm512_fmadd_ps(d1, d1, acc1);
    acc2 = _mm512_fmadd_ps(d2, d2, acc2);
    acc3 = _mm512_fmadd_ps(d3, d3, acc3);
  }
  for (; i + 16 <= dim; i += 16) {
    __m512 d = _mm512_sub_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i));
    acc0 = _mm512_fmadd_ps(d, d, acc0);
  }
  if (i < dim) {
    __mmask16 m = TailMask(dim - i);
    __m512 d = _mm512_sub_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i));
    acc1 = _mm512_fmadd_ps(d, d, acc1);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(acc0, acc1), _mm512_add_ps(acc2, acc3)));
}

LANCEDB_AVX512 float DotAvx512(const float* a, const float* b, size_t dim) {
  __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
  __m512 acc2 = _mm512_setzero_ps(), acc3 = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 64 <= dim; i += 64) {
    acc0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), acc0);
    acc1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16), acc1);
    acc2 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 32), _mm512_loadu_ps(b + i + 32), acc2);
    acc3 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 48), _mm512_loadu_ps(b + i + 48), acc3);
  }
  for (; i + 16 <= dim; i += 16) {
    acc0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), acc0);
  }
  if (i < dim) {
    __mmask16 m = TailMask(dim - i);
    acc1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i), acc1);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(acc0, acc1), _mm512_add_ps(acc2, acc3)));
}

LANCEDB_AVX512 inline __m512 LoadHalf16(const uint16_t* p) {
  return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}

LANCEDB_AVX512 inline __m512 LoadHalfTail(const uint16_t* p, size_t n) {
  __m256i raw = _mm256_setzero_si256();
  __builtin_memcpy(&raw, p, n * sizeof(uint16_t));
  return _mm512_cvtph_ps(raw);
}

LANCEDB_AVX512 float L2F16Avx512(const uint16_t* a, const uint16_t* b, size_t dim) {
  __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= dim; i += 32) {
    __m512 d0 = _mm512_sub_ps(LoadHalf16(a + i), LoadHalf16(b + i));
    __m512 d1 = _mm512_sub_ps(LoadHalf16(a + i + 16), LoadHalf16(b + i + 16));
    acc0 = _mm512_fmadd_ps(d0, d0, acc0);
    acc1 = _mm512_fmadd_ps(d1, d1, acc1);
  }
  for (; i + 16 <= dim; i += 16) {
    __m512 d = _mm512_sub_ps(LoadHalf16(a + i), LoadHalf16(b + i));
    acc0 = _mm512_fmadd_ps(d, d, acc0);
  }
  if (i < dim) {
    __m512 d = _mm512_sub_ps(LoadHalfTail(a + i, dim - i), LoadHalfTail(b + i, dim - i));
    acc1 = _mm512_fmadd_ps(d, d, acc1);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(acc0, acc1));
}

LANCEDB_AVX512 float DotF16Avx512(const uint16_t* a, const uint16_t* b, size_t dim) {
  __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= dim; i += 32) {
    acc0 = _mm512_fmadd_ps(LoadHalf16(a + i), LoadHalf16(b + i), acc0);
    acc1 = _mm512_fmadd_ps(LoadHalf16(a + i + 16), LoadHalf16(b + i + 16), acc1);
  }
  for (; i + 16 <= dim; i += 16) {
    acc0 = _mm512_fmadd_ps(LoadHalf16(a + i), LoadHalf16(b + i), acc0);
  }
  if (i < dim) {
    acc1 = _mm512_fmadd_ps(LoadHalfTail(a + i, dim - i), LoadHalfTail(b + i, dim - i), acc1);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(acc0, acc1));
}

LANCEDB_AVX512 double L2F64Avx512(const double* a, const double* b, size_t dim) {
  __m512d acc0 = _mm512_setzero_pd(), acc1 = _mm512_setzero_pd();
  size_t i = 0;
  for (; i + 16 <= dim; i += 16) {
    __m512d d0 = _mm512_sub_pd(_mm512_loadu_pd(a + i), _mm512_loadu_pd(b + i));
    __m512d d1 = _mm512_sub_pd(_mm512_loadu_pd(a + i + 8), _mm512_loadu_pd(b + i + 8));
    acc0 = _mm512_fmadd_pd(d0, d0, acc0);
    acc1 = _mm512_fmadd_pd(d1, d1, acc1);
  }
  if (i + 8 <= dim) {
    __m512d d = _mm512_sub_pd(_mm512_loadu_pd(a + i), _mm512_loadu_pd(b + i));
    acc0 = _mm512_fmadd_pd(d, d, acc0);
    i += 8;
  }
  if (i < dim) {
    __mmask8 m = static_cast<__mmask8>((1u << (dim - i)) - 1u);
    __m512d d = _mm512_sub_pd(_mm512_maskz_loadu_pd(m, a + i), _mm512_maskz_loadu_pd(m, b + i));
    acc1 = _mm512_fmadd_pd(d, d, acc1);
  }
  return _mm512_reduce_add_pd(_mm512_add_pd(acc0, acc1));
}

LANCEDB_AVX512 double DotF64Avx512(const double* a, const double* b, size_t dim) {
  __m512d acc0 = _mm512_setzero_pd(), acc1 = _mm512_setzero_pd();
  size_t i = 0;
  for (; i + 16 <= dim; i += 16) {
    acc0 = _mm512_fmadd_pd(_mm512_loadu_pd(a + i), _mm512_loadu_pd(b + i), acc0);
    acc1 = _mm512_fmadd_pd(_mm512_loadu_pd(a + i + 8), _mm512_loadu_pd(b + i + 8), acc1);
  }
  if (i + 8 <= dim) {
    acc0 = _mm512_fmadd_pd(_mm512_loadu_pd(a + i), _mm512_loadu_pd(b + i), acc0);
    i += 8;
  }
  if (i < dim) {
    __mmask8 m = static_cast<__mmask8>((1u << (dim - i)) - 1u);
    acc1 = _mm512_fmadd_pd(_mm512_maskz_loadu_pd(m, a + i), _mm512_maskz_loadu_pd(m, b + i), acc1);
  }
  return _mm512_reduce_add_pd(_mm512_add_pd(acc0, acc1));
}

// ----------------------------------------------------------------------------- 4-bit PQ scan
// Lanes are rows: the 16 entries of a sub-vector's lookup table sit in registers and the rows'
// codes select them with a permute. Per row the additions follow the scalar order (four
// accumulators by sub-vector modulo 4, then (a0 + a1) + (a2 + a3)), so the results are exact.

LANCEDB_AVX2 __m256 Pq4LookupAvx2(const float* lut, const uint8_t* codes) {
  const __m256i idx =
      _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(codes)));
  const __m256 lo = _mm256_permutevar8x32_ps(_mm256_loadu_ps(lut), idx);
  const __m256 hi = _mm256_permutevar8x32_ps(_mm256_loadu_ps(lut + 8), idx);
  // Code bit 3 picks the upper half: move it to the sign bit, which blendv tests.
  return _mm256_blendv_ps(lo, hi, _mm256_castsi256_ps(_mm256_slli_epi32(idx, 28)));
}

LANCEDB_AVX2 void Pq4BlockAvx2(const float* lut, const uint8_t* codes, size_t num_sub_vectors,
                               float* out) {
  for (size_t half = 0; half < 16; half += 8) {
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    __m256 acc2 = _mm256_setzero_ps(), acc3 = _mm256_setzero_ps();
    size_t s = 0;
    for (; s + 4 <= num_sub_vectors; s += 4) {
      acc0 = _mm256_add_ps(acc0, Pq4LookupAvx2(lut + s * 16, codes + s * 16 + half));
      acc1 = _mm256_add_ps(acc1, Pq4LookupAvx2(lut + (s + 1) * 16, codes + (s + 1) * 16 + half));
      acc2 = _mm256_add_ps(acc2, Pq4LookupAvx2(lut + (s + 2) * 16, codes + (s + 2) * 16 + half));
      acc3 = _mm256_add_ps(acc3, Pq4LookupAvx2(lut + (s + 3) * 16, codes + (s + 3) * 16 + half));
    }
    for (; s < num_sub_vectors; ++s) {
      acc0 = _mm256_add_ps(acc0, Pq4LookupAvx2(lut + s * 16, codes + s * 16 + half));
    }
    _mm256_storeu_ps(out + half,
                     _mm256_add_ps(_mm256_add_ps(acc0, acc1), _mm256_add_ps(acc2, acc3)));
  }
}

LANCEDB_AVX512 __m512 Pq4LookupAvx512(const float* lut, const uint8_t* codes) {
  const __m512i idx =
      _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(codes)));
  return _mm512_permutexvar_ps(idx, _mm512_loadu_ps(lut));
}

LANCEDB_AVX512 void Pq4BlockAvx512(const float* lut, const uint8_t* codes, size_t num_sub_vectors,
                                   float* out) {
  __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
  __m512 acc2 = _mm512_setzero_ps(), acc3 = _mm512_setzero_ps();
  size_t s = 0;
  for (; s + 4 <= num_sub_vectors; s += 4) {
    acc0 = _mm512_add_ps(acc0, Pq4LookupAvx512(lut + s * 16, codes + s * 16));
    acc1 = _mm512_add_ps(acc1, Pq4LookupAvx512(lut + (s + 1) * 16, codes + (s + 1) * 16));
    acc2 = _mm512_add_ps(acc2, Pq4LookupAvx512(lut + (s + 2) * 16, codes + (s + 2) * 16));
    acc3 = _mm512_add_ps(acc3, Pq4LookupAvx512(lut + (s + 3) * 16, codes + (s + 3) * 16));
  }
  for (; s < num_sub_vectors; ++s) {
    acc0 = _mm512_add_ps(acc0, Pq4LookupAvx512(lut + s * 16, codes + s * 16));
  }
  _mm512_storeu_ps(out, _mm512_add_ps(_mm512_add_ps(acc0, acc1), _mm512_add_ps(acc2, acc3)));
}

}  // namespace

const Kernels kAvx2Kernels = {L2Avx2,    DotAvx2,    L2F16Avx2,     DotF16Avx2,
                              L2F64Avx2, DotF64Avx2, HammingPopcnt, Pq4BlockAvx2};
const Kernels kAvx512Kernels = {L2Avx512,    DotAvx512,    L2F16Avx512,   DotF16Avx512,
                                L2F64Avx512, DotF64Avx512, HammingPopcnt, Pq4BlockAvx512};

}  // namespace lancedb::index::vector::internal
