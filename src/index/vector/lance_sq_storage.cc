// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/lance_sq_storage.h"

#include <cmath>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace lancedb::index::vector {
namespace {

/// Sum over j of (a[j] - b[j])^2 in integers (exact in any order).
uint32_t CodeL2Scalar(const uint8_t* a, const uint8_t* b, size_t dim) noexcept {
  uint32_t sum = 0;
  for (size_t j = 0; j < dim; ++j) {
    const int32_t d = static_cast<int32_t>(a[j]) - static_cast<int32_t>(b[j]);
    sum += static_cast<uint32_t>(d * d);
  }
  return sum;
}

#if defined(__x86_64__)
/// CodeL2Scalar sixteen codes at a time: differences as int16, squares summed in pairs into
/// int32 lanes (at most 2 * 255^2 per pair).
__attribute__((target("avx2"))) uint32_t CodeL2Avx2(const uint8_t* a, const uint8_t* b,
                                                    size_t dim) noexcept {
  __m256i acc = _mm256_setzero_si256();
  size_t j = 0;
  for (; j + 16 <= dim; j += 16) {
    const __m256i x =
        _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + j)));
    const __m256i y =
        _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + j)));
    const __m256i d = _mm256_sub_epi16(x, y);
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(d, d));
  }
  alignas(32) uint32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc);
  uint32_t sum = 0;
  for (uint32_t v : lanes) sum += v;
  return sum + CodeL2Scalar(a + j, b + j, dim - j);
}
#endif

using CodeL2Fn = uint32_t (*)(const uint8_t*, const uint8_t*, size_t) noexcept;

CodeL2Fn ChooseCodeL2() {
#if defined(__x86_64__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return CodeL2Avx2;
#endif
  return CodeL2Scalar;
}

/// Prefetch the `dim` codes of `row`.
void PrefetchRow(const uint8_t* codes, int64_t row, size_t dim) noexcept {
  const uint8_t* c = codes + static_cast<size_t>(row) * dim;
  for (size_t off = 0; off < dim; off += 64) __builtin_prefetch(c + off);
  __builtin_prefetch(c + dim - 1);
}

/// l2 / cosine: code-space squared L2, scaled back.
class CodeL2Computer final : public DistanceComputer {
 public:
  CodeL2Computer(const uint8_t* codes, std::vector<uint8_t> query, float scale)
      : codes_(codes), query_(std::move(query)), scale_(scale), code_l2_(ChooseCodeL2()) {}
  float Distance(int64_t row) const override {
    const size_t dim = query_.size();
    const uint32_t sum = code_l2_(codes_ + static_cast<size_t>(row) * dim, query_.data(), dim);
    // As Lance: the u32 sum as f32, times range^2 / 255^2 (in f32).
    return static_cast<float>(sum) * scale_ / (255.0f * 255.0f);
  }
  void Prefetch(int64_t row) const override { PrefetchRow(codes_, row, query_.size()); }

 private:
  const uint8_t* codes_;
  std::vector<uint8_t> query_;
  float scale_;  // range^2
  CodeL2Fn code_l2_;
};

/// dot: minus the dot product with the decoded row, start * sum(q) + step * sum(q_j c_j).
class DecodedDotComputer final : public DistanceComputer {
 public:
  DecodedDotComputer(const uint8_t* codes, std::vector<float> query, float start, float step)
      : codes_(codes), query_(std::move(query)), step_(step) {
    double sum = 0;
    for (float v : query_) sum += v;
    bias_ = static_cast<float>(sum) * start;
  }
  float Distance(int64_t row) const override {
    const size_t dim = query_.size();
    const uint8_t* c = codes_ + static_cast<size_t>(row) * dim;
    float acc = 0;
    for (size_t j = 0; j < dim; ++j) acc += query_[j] * static_cast<float>(c[j]);
    return -(bias_ + step_ * acc);
  }
  void Prefetch(int64_t row) const override { PrefetchRow(codes_, row, query_.size()); }

 private:
  const uint8_t* codes_;
  std::vector<float> query_;
  float step_;
  float bias_ = 0;
};

}  // namespace

std::unique_ptr<DistanceComputer> LanceSqStorage::QueryComputer(
    std::span<const float> query) const {
  const float range = static_cast<float>(sq_->end() - sq_->start());
  if (sq_->metric() == DistanceType::kDot) {
    return std::make_unique<DecodedDotComputer>(codes_.data(),
                                                std::vector<float>(query.begin(), query.end()),
                                                static_cast<float>(sq_->start()), range / 255.0f);
  }
  std::vector<uint8_t> q(query.size());
  sq_->Quantize(query, q.data());
  return std::make_unique<CodeL2Computer>(codes_.data(), std::move(q), range * range);
}

void LanceScalarQuantizer::Quantize(std::span<const float> values, uint8_t* out) const noexcept {
  const double range = end_ - start_;
  for (size_t i = 0; i < values.size(); ++i) {
    if (range == 0) {
      out[i] = 0;
      continue;
    }
    // Truncation toward zero, saturated (NaN gives 0), as Rust's `as u8`.
    const double v = (static_cast<double>(values[i]) - start_) * 255.0 / range;
    out[i] = !(v > 0) ? 0 : v >= 255 ? 255 : static_cast<uint8_t>(v);
  }
}

std::unique_ptr<PartitionStorage> LanceScalarQuantizer::Encode(
    std::span<const float> vectors, std::span<const float> /*centroid*/) const {
  std::vector<uint8_t> codes(vectors.size());
  Quantize(vectors, codes.data());
  return FromCodes(std::move(codes));
}

std::unique_ptr<PartitionStorage> LanceScalarQuantizer::FromCodes(
    std::vector<uint8_t> codes) const {
  return std::make_unique<LanceSqStorage>(this, std::move(codes));
}

}  // namespace lancedb::index::vector
