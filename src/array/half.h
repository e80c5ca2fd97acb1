// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// IEEE 754 binary16 ("halffloat", Arrow's float16) conversions. Values travel as their raw
// uint16_t bits. Float-to-half rounds to nearest, ties to even; overflow gives ±inf; a NaN
// keeps its sign and the top 9 bits of its payload and becomes quiet — what the x86 F16C
// instructions do, so the scalar and the SIMD paths give the same bits for every input.
// Half-to-float is exact (subnormal halves become normal floats); a signalling NaN is made
// quiet, as F16C does.
//
// The span conversions use F16C (AVX) when the CPU has it, chosen once at first use, and a
// scalar loop otherwise; LANCEDB_SIMD=scalar forces the scalar loop.
// Thread-safety: all functions are pure and thread-safe.

#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace lancedb::array {

/// Convert one binary16 value to float (exact).
float HalfToFloat(uint16_t half) noexcept;
/// Convert one float to binary16 (round to nearest even).
uint16_t FloatToHalf(float value) noexcept;
/// Convert one double to binary16, rounding once (not through float).
uint16_t DoubleToHalf(double value) noexcept;

/// Convert `in` to float into `out`. REQUIRES: out.size() >= in.size().
void HalfToFloat(std::span<const uint16_t> in, std::span<float> out) noexcept;
/// Convert `in` to binary16 into `out`. REQUIRES: out.size() >= in.size().
void FloatToHalf(std::span<const float> in, std::span<uint16_t> out) noexcept;

namespace internal {

/// Whether the span conversions use F16C.
bool HalfUsesF16c() noexcept;
/// Use F16C (when the CPU has it) or the scalar loop; for tests and benchmarks. Not
/// thread-safe with concurrent conversions.
void SetHalfUsesF16c(bool use) noexcept;
/// Whether the CPU has AVX and F16C and the operating system saves the YMM registers (CPUID
/// and XCR0; Clang 14's __builtin_cpu_supports does not know "f16c").
bool CpuHasF16c() noexcept;

}  // namespace internal

}  // namespace lancedb::array
