// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "array/half.h"

#include <atomic>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <string_view>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define LANCEDB_HAVE_X86 1
#endif

namespace lancedb::array {
namespace {

constexpr uint16_t kHalfInf = 0x7C00u;
constexpr uint16_t kHalfQuiet = 0x0200u;

void HalfToFloatScalar(const uint16_t* in, float* out, size_t n) noexcept {
  for (size_t i = 0; i < n; ++i) out[i] = HalfToFloat(in[i]);
}

void FloatToHalfScalar(const float* in, uint16_t* out, size_t n) noexcept {
  for (size_t i = 0; i < n; ++i) out[i] = FloatToHalf(in[i]);
}

#if LANCEDB_HAVE_X86

#define LANCEDB_F16C __attribute__((target("avx,f16c")))

LANCEDB_F16C void HalfToFloatF16c(const uint16_t* in, float* out, size_t n) noexcept {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
  }
  if (i < n) {
    uint16_t tail_in[8] = {};
    float tail_out[8];
    std::memcpy(tail_in, in + i, (n - i) * sizeof(uint16_t));
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(tail_in));
    _mm256_storeu_ps(tail_out, _mm256_cvtph_ps(h));
    std::memcpy(out + i, tail_out, (n - i) * sizeof(float));
  }
}

LANCEDB_F16C void FloatToHalfF16c(const float* in, uint16_t* out, size_t n) noexcept {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
  }
  if (i < n) {
    float tail_in[8] = {};
    uint16_t tail_out[8];
    std::memcpy(tail_in, in + i, (n - i) * sizeof(float));
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(tail_in), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(tail_out), h);
    std::memcpy(out + i, tail_out, (n - i) * sizeof(uint16_t));
  }
}

// CPUID leaf 1 rather than __builtin_cpu_supports("f16c"), which Clang 14 does not know: AVX
// and F16C in ECX, and the operating system saving the YMM registers (OSXSAVE, then XCR0 bits
// 1 and 2).
bool DetectF16c() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
  constexpr unsigned kOsxsave = 1u << 27, kAvx = 1u << 28, kF16c = 1u << 29;
  if ((ecx & (kOsxsave | kAvx | kF16c)) != (kOsxsave | kAvx | kF16c)) return false;
  unsigned xcr0_lo = 0, xcr0_hi = 0;
  __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  return (xcr0_lo & 0x6u) == 0x6u;
}

#else

bool DetectF16c() { return false; }

#endif

bool InitialUseF16c() {
  if (const char* env = std::getenv("LANCEDB_SIMD")) {
    if (std::string_view(env) == "scalar") return false;
  }
  return DetectF16c();
}

std::atomic<bool> g_use_f16c{InitialUseF16c()};

}  // namespace

float HalfToFloat(uint16_t half) noexcept {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1Fu;
  uint32_t mantissa = half & 0x3FFu;
  uint32_t bits;
  if (exponent == 0x1F) {
    // Infinity, or a NaN made quiet with its payload kept.
    bits = sign | 0x7F800000u | (mantissa << 13) | (mantissa != 0 ? 0x00400000u : 0u);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {
    // Subnormal: value = mantissa * 2^-24; normalise the leading one into the hidden bit.
    uint32_t e = 113;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --e;
    }
    bits = sign | (e << 23) | ((mantissa & 0x3FFu) << 13);
  }
  return std::bit_cast<float>(bits);
}

uint16_t FloatToHalf(float value) noexcept {
  const uint32_t x = std::bit_cast<uint32_t>(value);
  const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) {  // NaN
    return sign | kHalfInf | kHalfQuiet | static_cast<uint16_t>((abs >> 13) & 0x3FFu);
  }
  if (abs >= 0x477FF000u) return sign | kHalfInf;  // >= 65520 rounds past 65504
  if (abs >= 0x38800000u) {                        // >= 2^-14: a normal half
    uint32_t half = (abs - 0x38000000u) >> 13;     // rebias the exponent by 127 - 15
    const uint32_t rest = abs & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
    return sign | static_cast<uint16_t>(half);
  }
  if (abs <= 0x33000000u) return sign;  // <= 2^-25 rounds to zero (the tie goes to even)
  // Subnormal half: value / 2^-24 = significand * 2^(exponent - 126).
  const uint32_t exponent = abs >> 23;
  const uint32_t significand = (abs & 0x7FFFFFu) | 0x800000u;
  const uint32_t shift = 126 - exponent;  // 14..24
  uint32_t half = significand >> shift;
  const uint32_t rest = significand & ((1u << shift) - 1u);
  const uint32_t midpoint = 1u << (shift - 1);
  if (rest > midpoint || (rest == midpoint && (half & 1u))) ++half;
  return sign | static_cast<uint16_t>(half);
}

uint16_t DoubleToHalf(double value) noexcept {
  const uint64_t x = std::bit_cast<uint64_t>(value);
  const auto sign = static_cast<uint16_t>((x >> 48) & 0x8000u);
  const uint64_t abs = x & 0x7FFFFFFFFFFFFFFFull;
  constexpr uint64_t kInf = 0x7FF0000000000000ull;
  constexpr uint64_t kOverflow = 0x40EFFE0000000000ull;          // 65520
  constexpr uint64_t kMinNormal = 0x3F10000000000000ull;         // 2^-14
  constexpr uint64_t kHalfMinSubnormal = 0x3E60000000000000ull;  // 2^-25
  if (abs > kInf) return sign | kHalfInf | kHalfQuiet | static_cast<uint16_t>((abs >> 42) & 0x3FFu);
  if (abs >= kOverflow) return sign | kHalfInf;
  if (abs >= kMinNormal) {
    uint64_t half = (abs - (1008ull << 52)) >> 42;  // rebias the exponent by 1023 - 15
    const uint64_t rest = abs & ((1ull << 42) - 1);
    const uint64_t midpoint = 1ull << 41;
    if (rest > midpoint || (rest == midpoint && (half & 1u))) ++half;
    return sign | static_cast<uint16_t>(half);
  }
  if (abs <= kHalfMinSubnormal) return sign;
  const uint64_t exponent = abs >> 52;
  const uint64_t significand = (abs & ((1ull << 52) - 1)) | (1ull << 52);
  const uint64_t shift = 1051 - exponent;  // 43..53
  uint64_t half = significand >> shift;
  const uint64_t rest = significand & ((1ull << shift) - 1);
  const uint64_t midpoint = 1ull << (shift - 1);
  if (rest > midpoint || (rest == midpoint && (half & 1u))) ++half;
  return sign | static_cast<uint16_t>(half);
}

void HalfToFloat(std::span<const uint16_t> in, std::span<float> out) noexcept {
#if LANCEDB_HAVE_X86
  if (g_use_f16c.load(std::memory_order_relaxed)) {
    HalfToFloatF16c(in.data(), out.data(), in.size());
    return;
  }
#endif
  HalfToFloatScalar(in.data(), out.data(), in.size());
}

void FloatToHalf(std::span<const float> in, std::span<uint16_t> out) noexcept {
#if LANCEDB_HAVE_X86
  if (g_use_f16c.load(std::memory_order_relaxed)) {
    FloatToHalfF16c(in.data(), out.data(), in.size());
    return;
  }
#endif
  FloatToHalfScalar(in.data(), out.data(), in.size());
}

namespace internal {

bool HalfUsesF16c() noexcept { return g_use_f16c.load(); }

void SetHalfUsesF16c(bool use) noexcept { g_use_f16c.store(use && DetectF16c()); }

bool CpuHasF16c() noexcept { return DetectF16c(); }

}  // namespace internal

}  // namespace lancedb::array
