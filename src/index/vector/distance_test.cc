// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/distance.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "index/vector/random.h"

namespace lancedb::index::vector {
namespace {

double RefL2(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
  return s;
}
double RefDot(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += double(a[i]) * b[i];
  return s;
}

class DistanceLevels : public ::testing::TestWithParam<SimdLevel> {
 protected:
  void SetUp() override {
    saved_ = ActiveSimdLevel();
    if (GetParam() > DetectSimdLevel()) GTEST_SKIP() << "CPU lacks " << SimdLevelName(GetParam());
    SetSimdLevel(GetParam());
  }
  void TearDown() override { SetSimdLevel(saved_); }
  SimdLevel saved_ = SimdLevel::kScalar;
};

TEST_P(DistanceLevels, FloatKernelsMatchReferenceForEveryLength) {
  Rng rng(7);
  for (size_t dim : {1, 3, 7, 8, 15, 16, 17, 31, 33, 64, 100, 128, 129, 768}) {
    std::vector<float> a(dim), b(dim);
    for (size_t i = 0; i < dim; ++i) a[i] = float(rng.Normal()), b[i] = float(rng.Normal());
    EXPECT_NEAR(L2(a.data(), b.data(), dim), RefL2(a, b), 1e-3 * (1 + RefL2(a, b))) << dim;
    EXPECT_NEAR(Dot(a.data(), b.data(), dim), RefDot(a, b), 1e-3 * (1 + std::abs(RefDot(a, b))));
    std::vector<uint16_t> ha(dim), hb(dim);
    std::vector<float> ra(dim), rb(dim);
    std::vector<double> da(dim), db(dim);
    for (size_t i = 0; i < dim; ++i) {
      ha[i] = FloatToHalf(a[i]), hb[i] = FloatToHalf(b[i]);
      ra[i] = HalfToFloat(ha[i]), rb[i] = HalfToFloat(hb[i]);
      da[i] = a[i], db[i] = b[i];
    }
    EXPECT_NEAR(L2F16(ha.data(), hb.data(), dim), RefL2(ra, rb), 1e-3 * (1 + RefL2(ra, rb)));
    EXPECT_NEAR(DotF16(ha.data(), hb.data(), dim), RefDot(ra, rb),
                1e-3 * (1 + std::abs(RefDot(ra, rb))));
    EXPECT_NEAR(L2F64(da.data(), db.data(), dim), RefL2(a, b), 1e-9 * (1 + RefL2(a, b)));
    EXPECT_NEAR(DotF64(da.data(), db.data(), dim), RefDot(a, b),
                1e-9 * (1 + std::abs(RefDot(a, b))));
  }
}

TEST_P(DistanceLevels, HammingCountsDifferingBits) {
  std::vector<uint8_t> a(21, 0), b(21, 0);
  a[0] = 0xFF;
  b[20] = 0x0F;
  a[9] = 0x01;
  b[9] = 0x03;
  EXPECT_EQ(Hamming(a.data(), b.data(), 21), 8u + 4u + 1u);
}

TEST_P(DistanceLevels, Pq4ScanBlockEqualsOneRowScan) {
  Rng rng(11);
  for (size_t m : {1, 2, 3, 4, 5, 8, 16, 17, 32, 64}) {
    std::vector<float> lut(m * 16);
    for (auto& x : lut) x = float(rng.Normal());
    std::vector<uint8_t> codes(m * kPq4BlockRows);
    for (auto& c : codes) c = static_cast<uint8_t>(rng.Next() & 15);
    float out[kPq4BlockRows];
    Pq4ScanBlock(lut.data(), codes.data(), m, out);
    for (size_t r = 0; r < kPq4BlockRows; ++r) {
      float acc[4] = {0, 0, 0, 0};
      size_t s = 0;
      for (; s + 4 <= m; s += 4) {
        for (size_t j = 0; j < 4; ++j) acc[j] += lut[(s + j) * 16 + codes[(s + j) * 16 + r]];
      }
      for (; s < m; ++s) acc[0] += lut[s * 16 + codes[s * 16 + r]];
      // Bit-exact: the same additions in the same order.
      EXPECT_EQ(out[r], (acc[0] + acc[1]) + (acc[2] + acc[3])) << "m=" << m << " row " << r;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllLevels, DistanceLevels,
                         ::testing::Values(SimdLevel::kScalar, SimdLevel::kAvx2,
                                           SimdLevel::kAvx512));

TEST(Distance, TypesFollowLanceDbConventions) {
  std::vector<float> a = {1, 0}, b = {0, 2};
  EXPECT_FLOAT_EQ(Distance(DistanceType::kL2, a.data(), b.data(), 2), 5.0f);
  EXPECT_FLOAT_EQ(Distance(DistanceType::kCosine, a.data(), b.data(), 2), 1.0f);
  EXPECT_FLOAT_EQ(Distance(DistanceType::kCosine, a.data(), a.data(), 2), 0.0f);
  std::vector<float> c = {2, 0};
  EXPECT_FLOAT_EQ(Distance(DistanceType::kDot, a.data(), c.data(), 2), -2.0f);
}

TEST(Distance, ParseNamesAndRejectUnknown) {
  EXPECT_EQ(*ParseDistanceType("L2"), DistanceType::kL2);
  EXPECT_EQ(*ParseDistanceType("euclidean"), DistanceType::kL2);
  EXPECT_EQ(*ParseDistanceType("cosine"), DistanceType::kCosine);
  EXPECT_EQ(*ParseDistanceType("dot"), DistanceType::kDot);
  EXPECT_EQ(*ParseDistanceType("hamming"), DistanceType::kHamming);
  auto bad = ParseDistanceType("manhattan");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsInvalidArgument());
  EXPECT_NE(bad.status().message().find("manhattan"), std::string::npos);
}

TEST(Distance, HalfConversionRoundTrips) {
  for (float f : {0.0f, -0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f, 0.333f}) {
    EXPECT_NEAR(HalfToFloat(FloatToHalf(f)), f, std::abs(f) * 1e-3 + 1e-8) << f;
  }
  EXPECT_TRUE(std::isinf(HalfToFloat(FloatToHalf(1e6f))));
  EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(NAN))));
  for (uint32_t h = 0; h < 0x7C00; h += 7) {  // every finite positive half round-trips exactly
    EXPECT_EQ(FloatToHalf(HalfToFloat(static_cast<uint16_t>(h))), h);
  }
}

TEST(Distance, BatchCoversEveryElementType) {
  std::vector<double> q = {1, 2, 3}, d = {1, 2, 3, 3, 2, 1};
  float out[2];
  DistanceBatch(DistanceType::kL2, ElementType::kFloat64, q.data(), d.data(), 2, 3, out);
  EXPECT_FLOAT_EQ(out[0], 0.0f);
  EXPECT_FLOAT_EQ(out[1], 8.0f);
  DistanceBatch(DistanceType::kCosine, ElementType::kFloat64, q.data(), d.data(), 2, 3, out);
  EXPECT_NEAR(out[0], 0.0f, 1e-6);
  EXPECT_NEAR(out[1], 1.0f - 10.0f / 14.0f, 1e-6);
  std::vector<uint8_t> bq = {0xF0}, bd = {0xF0, 0x0F};
  DistanceBatch(DistanceType::kHamming, ElementType::kUInt8, bq.data(), bd.data(), 2, 1, out);
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_EQ(out[1], 8.0f);
}

}  // namespace
}  // namespace lancedb::index::vector
