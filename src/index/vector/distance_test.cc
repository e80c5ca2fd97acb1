// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/distance.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "array/half.h"
#include "index/vector/random.h"

namespace lancedb::index::vector {
namespace LANCEDB_TEST_FILE_NS {

using array::FloatToHalf;
using array::HalfToFloat;

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

// A float16 batch search equals a float32 one over the same (rounded) values, on every
// instruction set, for every distance, including rows with subnormal, infinite and NaN
// elements (a NaN distance is what the searches drop).
TEST_P(DistanceLevels, HalfBatchEqualsFloatBatchOverTheRoundedValues) {
  Rng rng(5);
  for (size_t dim : {1, 7, 8, 16, 17, 33, 128, 129}) {
    const int64_t rows = 40;
    std::vector<uint16_t> halves(static_cast<size_t>(rows) * dim);
    for (auto& h : halves) h = FloatToHalf(static_cast<float>(rng.Normal()));
    halves[dim] = 0x0001;                // row 1: the smallest subnormal
    halves[2 * dim] = 0x83FF;            // row 2: the largest negative subnormal
    halves[3 * dim] = 0x7C00;            // row 3: +inf
    halves[4 * dim + dim / 2] = 0x7E00;  // row 4: NaN
    halves[5 * dim] = 0x7BFF;            // row 5: 65504
    std::vector<float> floats(halves.size());
    array::HalfToFloat(std::span<const uint16_t>(halves), std::span(floats));
    std::vector<uint16_t> query_half(dim);
    for (auto& h : query_half) h = FloatToHalf(static_cast<float>(rng.Normal()));
    std::vector<float> query(dim);
    array::HalfToFloat(std::span<const uint16_t>(query_half), std::span(query));
    for (DistanceType type : {DistanceType::kL2, DistanceType::kCosine, DistanceType::kDot}) {
      std::vector<float> from_half(rows), from_float(rows);
      DistanceBatch(type, ElementType::kFloat16, query_half.data(), halves.data(), rows, dim,
                    from_half.data());
      DistanceBatch(type, ElementType::kFloat32, query.data(), floats.data(), rows, dim,
                    from_float.data());
      for (int64_t r = 0; r < rows; ++r) {
        const float a = from_half[r], b = from_float[r];
        SCOPED_TRACE(::testing::Message()
                     << DistanceTypeName(type) << " dim=" << dim << " row=" << r);
        ASSERT_EQ(std::isnan(a), std::isnan(b));
        if (std::isnan(a)) continue;
        ASSERT_EQ(std::isinf(a), std::isinf(b));
        if (std::isinf(a)) {
          ASSERT_EQ(a, b);
          continue;
        }
        ASSERT_NEAR(a, b, 1e-5 * (1 + std::abs(b)));
      }
    }
    // The NaN row is NaN under every distance; the infinite row under cosine.
    std::vector<float> out(rows);
    for (DistanceType type : {DistanceType::kL2, DistanceType::kCosine, DistanceType::kDot}) {
      DistanceBatch(type, ElementType::kFloat16, query_half.data(), halves.data(), rows, dim,
                    out.data());
      EXPECT_TRUE(std::isnan(out[4])) << DistanceTypeName(type) << " dim=" << dim;
    }
    DistanceBatch(DistanceType::kCosine, ElementType::kFloat16, query_half.data(), halves.data(),
                  rows, dim, out.data());
    EXPECT_TRUE(std::isnan(out[3])) << dim;
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
  // A zero vector is at cosine distance 1; a NaN element makes the distance NaN.
  std::vector<float> zero = {0, 0}, nan = {NAN, 1};
  EXPECT_FLOAT_EQ(Distance(DistanceType::kCosine, a.data(), zero.data(), 2), 1.0f);
  EXPECT_TRUE(std::isnan(Distance(DistanceType::kCosine, a.data(), nan.data(), 2)));
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

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::index::vector
