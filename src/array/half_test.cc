// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "array/half.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace lancedb::array {
namespace LANCEDB_TEST_FILE_NS {

/// The value of a binary16 bit pattern, from the definition (no bit tricks).
double ReferenceHalfValue(uint16_t h) {
  const int sign = (h & 0x8000) ? -1 : 1;
  const int exponent = (h >> 10) & 0x1F;
  const int mantissa = h & 0x3FF;
  if (exponent == 0x1F) {
    return mantissa == 0 ? sign * std::numeric_limits<double>::infinity()
                         : std::numeric_limits<double>::quiet_NaN();
  }
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

bool IsHalfNan(uint16_t h) { return (h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0; }

/// Restores the conversion path a test changed.
class HalfPathGuard {
 public:
  HalfPathGuard() : saved_(internal::HalfUsesF16c()) {}
  ~HalfPathGuard() { internal::SetHalfUsesF16c(saved_); }

 private:
  bool saved_;
};

/// Float bit patterns covering every exponent, the specials and the half boundaries.
std::vector<float> InterestingFloats() {
  std::vector<float> out = {0.0f,
                            -0.0f,
                            1.0f,
                            -1.0f,
                            65504.0f,
                            65519.99f,
                            65520.0f,
                            -65520.0f,
                            1e6f,
                            std::ldexp(1.0f, -14),
                            std::ldexp(1.0f, -24),
                            std::ldexp(1.0f, -25),
                            std::nextafter(std::ldexp(1.0f, -25), 1.0f),
                            std::ldexp(3.0f, -26),
                            std::numeric_limits<float>::denorm_min(),
                            std::numeric_limits<float>::min(),
                            std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            -std::numeric_limits<float>::quiet_NaN(),
                            std::bit_cast<float>(0x7F800001u),  // signalling NaN
                            std::bit_cast<float>(0x7FC12345u),  // NaN with a payload
                            std::bit_cast<float>(0xFFA00000u)};
  // Every half, and the float halfway between it and the next half, and one float either side.
  for (uint32_t h = 0; h < 0x7C00; ++h) {
    for (uint16_t s : {uint16_t{0}, uint16_t{0x8000}}) {
      const float lo = static_cast<float>(ReferenceHalfValue(static_cast<uint16_t>(h | s)));
      const float hi = static_cast<float>(ReferenceHalfValue(static_cast<uint16_t>((h + 1) | s)));
      const float mid = static_cast<float>((static_cast<double>(lo) + hi) / 2);
      out.insert(out.end(), {lo, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, hi * 2)});
    }
  }
  // A stride through all 2^32 bit patterns.
  for (uint64_t bits = 0; bits < (1ull << 32); bits += 65537) {
    out.push_back(std::bit_cast<float>(static_cast<uint32_t>(bits)));
  }
  return out;
}

TEST(Half, HalfToFloatIsExactForEveryValue) {
  for (uint32_t h = 0; h <= 0xFFFF; ++h) {
    const auto half = static_cast<uint16_t>(h);
    const float f = HalfToFloat(half);
    if (IsHalfNan(half)) {
      ASSERT_TRUE(std::isnan(f)) << h;
      ASSERT_EQ(std::signbit(f), (h & 0x8000) != 0) << h;
      ASSERT_NE(std::bit_cast<uint32_t>(f) & 0x00400000u, 0u) << "NaN not quiet: " << h;
    } else {
      ASSERT_EQ(static_cast<double>(f), ReferenceHalfValue(half)) << h;
      ASSERT_EQ(std::signbit(f), (h & 0x8000) != 0) << h;
    }
  }
}

TEST(Half, FloatToHalfRoundsToNearestEven) {
  EXPECT_EQ(FloatToHalf(0.0f), 0x0000);
  EXPECT_EQ(FloatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(FloatToHalf(65519.99f), 0x7BFF);
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7C00);  // the tie rounds to even: infinity
  EXPECT_EQ(FloatToHalf(-1e6f), 0xFC00);
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -24)), 0x0001);         // smallest subnormal
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -25)), 0x0000);         // tie to even: zero
  EXPECT_EQ(FloatToHalf(std::ldexp(3.0f, -26)), 0x0001);         // 0.75 ulp: up
  EXPECT_EQ(FloatToHalf(std::ldexp(3.0f, -25)), 0x0002);         // 1.5 ulp: tie to even
  EXPECT_EQ(FloatToHalf(std::ldexp(1023.5f, -24)), 0x0400);      // rounds into the normals
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3C00);  // tie to even: down
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(3.0f, -11)), 0x3C02);  // tie to even: up
  EXPECT_EQ(FloatToHalf(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_TRUE(IsHalfNan(FloatToHalf(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(IsHalfNan(FloatToHalf(std::bit_cast<float>(0x7F800001u))));  // payload lost
  EXPECT_EQ(FloatToHalf(std::bit_cast<float>(0xFFC00000u)), 0xFE00);
  for (uint32_t h = 0; h <= 0xFFFF; ++h) {
    if (IsHalfNan(static_cast<uint16_t>(h))) continue;
    ASSERT_EQ(FloatToHalf(HalfToFloat(static_cast<uint16_t>(h))), h) << h;
  }
}

#ifdef __FLT16_MAX__
TEST(Half, ScalarConversionsMatchTheCompilersFloat16) {
  for (float f : InterestingFloats()) {
    const uint16_t expected = std::bit_cast<uint16_t>(static_cast<_Float16>(f));
    const uint16_t got = FloatToHalf(f);
    if (std::isnan(f)) {
      ASSERT_TRUE(IsHalfNan(got)) << f;
    } else {
      ASSERT_EQ(got, expected) << std::hexfloat << f;
    }
    const double d = static_cast<double>(f) * (1.0 + std::ldexp(1.0, -40));
    if (!std::isnan(d)) {
      ASSERT_EQ(DoubleToHalf(d), std::bit_cast<uint16_t>(static_cast<_Float16>(d)))
          << std::hexfloat << d;
    }
  }
}
#endif

TEST(Half, DoubleToHalfRoundsOnce) {
  // 1 + 2^-11 + 2^-40 is above the tie between 1 and 1 + 2^-10: it rounds up, but through
  // float (which drops the 2^-40) it would be the tie and round down to even.
  const double above_tie = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(FloatToHalf(static_cast<float>(above_tie)), 0x3C00);
  EXPECT_EQ(DoubleToHalf(above_tie), 0x3C01);
  EXPECT_EQ(DoubleToHalf(65520.0), 0x7C00);
  EXPECT_EQ(DoubleToHalf(65519.0), 0x7BFF);
  EXPECT_EQ(DoubleToHalf(-0.0), 0x8000);
  EXPECT_EQ(DoubleToHalf(1e-300), 0x0000);
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -24)), 0x0001);
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -25) * (1 + 1e-12)), 0x0001);
  EXPECT_TRUE(IsHalfNan(DoubleToHalf(std::nan(""))));
  EXPECT_EQ(DoubleToHalf(-std::numeric_limits<double>::infinity()), 0xFC00);
  for (uint32_t h = 0; h <= 0xFFFF; ++h) {
    if (IsHalfNan(static_cast<uint16_t>(h))) continue;
    ASSERT_EQ(DoubleToHalf(ReferenceHalfValue(static_cast<uint16_t>(h))), h) << h;
  }
}

TEST(Half, DetectsF16cAsTheKernelReportsIt) {
  // The CPUID check agrees with the flags Linux lists for the CPU.
  std::ifstream cpuinfo("/proc/cpuinfo");
  ASSERT_TRUE(cpuinfo) << "cannot read /proc/cpuinfo (the project builds for Linux)";
  std::string line;
  bool avx = false, f16c = false;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    avx = line.find(" avx ") != std::string::npos || line.ends_with(" avx");
    f16c = line.find(" f16c ") != std::string::npos || line.ends_with(" f16c");
    break;
  }
  HalfPathGuard guard;
  internal::SetHalfUsesF16c(true);
#if defined(__x86_64__) || defined(__i386__)
  EXPECT_EQ(internal::HalfUsesF16c(), avx && f16c);
#else
  EXPECT_FALSE(internal::HalfUsesF16c());
#endif
}

TEST(Half, SpanConversionsGiveTheScalarBitsOnEveryPath) {
  HalfPathGuard guard;
  std::vector<uint16_t> halves(0x10000);
  for (uint32_t h = 0; h <= 0xFFFF; ++h) halves[h] = static_cast<uint16_t>(h);
  const std::vector<float> floats = InterestingFloats();
  for (bool f16c : {false, true}) {
    internal::SetHalfUsesF16c(f16c);
    // Every length up to two vectors and a tail, at every start, so each tail size runs.
    for (size_t start = 0; start < 8; ++start) {
      for (size_t n = 0; n <= 17; ++n) {
        std::vector<float> out(n, -1.0f);
        HalfToFloat(std::span(halves).subspan(0x7BF0 + start, n), std::span(out));
        for (size_t i = 0; i < n; ++i) {
          ASSERT_EQ(std::bit_cast<uint32_t>(out[i]),
                    std::bit_cast<uint32_t>(HalfToFloat(halves[0x7BF0 + start + i])))
              << "f16c=" << f16c << " n=" << n << " i=" << i;
        }
      }
    }
    std::vector<float> all_floats(halves.size());
    HalfToFloat(std::span<const uint16_t>(halves), std::span(all_floats));
    for (size_t h = 0; h < halves.size(); ++h) {
      ASSERT_EQ(std::bit_cast<uint32_t>(all_floats[h]),
                std::bit_cast<uint32_t>(HalfToFloat(halves[h])))
          << "f16c=" << f16c << " half=" << h;
    }
    std::vector<uint16_t> all_halves(floats.size());
    FloatToHalf(std::span<const float>(floats), std::span(all_halves));
    for (size_t i = 0; i < floats.size(); ++i) {
      ASSERT_EQ(all_halves[i], FloatToHalf(floats[i]))
          << "f16c=" << f16c << " float=" << std::hexfloat << floats[i];
    }
  }
}

TEST(Half, F16cIsUsedWhenTheCpuHasIt) {
  HalfPathGuard guard;
  internal::SetHalfUsesF16c(false);
  EXPECT_FALSE(internal::HalfUsesF16c());
  internal::SetHalfUsesF16c(true);
  EXPECT_EQ(internal::HalfUsesF16c(), internal::CpuHasF16c());
}

TEST(Half, RandomFloatsRoundTripWithinHalfAnUlp) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-70000.0f, 70000.0f);
  for (int i = 0; i < 100000; ++i) {
    const float f = dist(rng) / (1 << (i % 30));
    const float back = HalfToFloat(FloatToHalf(f));
    if (std::fabs(f) >= 65520.0f) {
      ASSERT_TRUE(std::isinf(back)) << f;
      continue;
    }
    const uint16_t h = FloatToHalf(f);
    const double ulp = ReferenceHalfValue(static_cast<uint16_t>((h & 0x7FFF) + 1)) -
                       ReferenceHalfValue(static_cast<uint16_t>(h & 0x7FFF));
    ASSERT_LE(std::fabs(static_cast<double>(back) - f), ulp / 2 * (1 + 1e-9)) << f;
  }
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::array
