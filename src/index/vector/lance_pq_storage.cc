// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/lance_pq_storage.h"

#include <algorithm>
#include <cmath>

#include "array/half.h"

namespace lancedb::index::vector {
namespace {

constexpr size_t kLanes = 16;

template <typename Term>
float LaneSum(const float* x, const float* y, size_t n, Term term) noexcept {
  const size_t chunks = n / kLanes;
  float tail = 0.0f;
  for (size_t i = chunks * kLanes; i < n; ++i) tail += term(x[i], y[i]);
  float lanes[kLanes] = {};
  for (size_t c = 0; c < chunks; ++c) {
    for (size_t l = 0; l < kLanes; ++l) lanes[l] += term(x[c * kLanes + l], y[c * kLanes + l]);
  }
  float sum = 0.0f;
  for (float v : lanes) sum += v;
  return tail + sum;
}

class LancePqComputer final : public DistanceComputer {
 public:
  LancePqComputer(const LancePqStorage* storage, std::span<const float> query)
      : s_(storage),
        m_(storage->pq().num_sub_vectors()),
        four_bit_(storage->pq().num_bits() == 4),
        dot_(storage->pq().metric() == DistanceType::kDot) {
    const ProductQuantizer& pq = s_->pq();
    std::vector<float> q(query.begin(), query.end());
    if (pq.use_residual()) {
      for (size_t j = 0; j < q.size(); ++j) q[j] -= s_->centroid()[j];
      if (s_->half_precision()) {
        for (float& v : q) v = array::HalfToFloat(array::FloatToHalf(v));
      }
    }
    const size_t k = pq.num_centroids();
    const size_t sub = pq.sub_dim();
    lut_.resize(m_ * k);
    for (size_t s = 0; s < m_; ++s) {
      const float* book = pq.codebook().data() + s * k * sub;
      for (size_t c = 0; c < k; ++c) {
        lut_[s * k + c] = dot_ ? 1.0f - LanceDot(q.data() + s * sub, book + c * sub, sub)
                               : LanceL2(q.data() + s * sub, book + c * sub, sub);
      }
    }
  }

  float Distance(int64_t row) const override {
    return ToIndexMetric(RawSum(static_cast<size_t>(row)));
  }

  /// A block of rows, a sub-vector (code byte) at a time: the same sums in the same order as
  /// RawSum, reading the column-major codes sequentially.
  void Distances(int64_t begin, int64_t count, float* out) const override {
    const size_t n = static_cast<size_t>(s_->num_rows());
    const uint8_t* codes = s_->codes().data() + begin;
    const auto rows = static_cast<size_t>(count);
    std::fill(out, out + rows, 0.0f);
    if (four_bit_) {
      for (size_t b = 0; b < m_ / 2; ++b) {
        const float* lo = lut_.data() + 2 * b * 16;
        const float* hi = lo + 16;
        for (size_t i = 0; i < rows; ++i) {
          const uint8_t code = codes[b * n + i];
          out[i] += lo[code & 0x0f];
          out[i] += hi[code >> 4];
        }
      }
    } else {
      for (size_t s = 0; s < m_; ++s) {
        const float* table = lut_.data() + s * 256;
        const uint8_t* column = codes + s * n;
        for (size_t i = 0; i < rows; ++i) out[i] += table[column[i]];
      }
    }
    for (size_t i = 0; i < rows; ++i) out[i] = ToIndexMetric(out[i]);
  }

  bool LanceScanAll(size_t k, float* out) const override {
    if (!four_bit_) return false;  // the scan sums the table as Distance does
    const size_t n = static_cast<size_t>(s_->num_rows());
    if (n == 0) return true;
    constexpr size_t kExactRows = 200;
    const size_t exact = std::min(std::max(kExactRows, k), n);
    std::vector<float> raw(n, 0.0f);
    for (size_t r = 0; r < exact; ++r) raw[r] = RawSum(r);
    const float qmax = *std::max_element(raw.begin(), raw.begin() + static_cast<int64_t>(exact));
    const float qmin = *std::min_element(lut_.begin(), lut_.end());
    const float factor = 255.0f / (qmax - qmin);
    std::vector<uint8_t> table(lut_.size());
    for (size_t i = 0; i < lut_.size(); ++i) {
      const float v = std::round((lut_[i] - qmin) * factor);
      table[i] = !(v > 0) ? 0 : v >= 255 ? 255 : static_cast<uint8_t>(v);
    }
    const size_t remainder = n % 16;
    const float step = (qmax - qmin) / 255.0f;
    const auto codes = s_->codes();
    for (size_t r = exact; r < n - remainder; ++r) {
      uint32_t sum = 0;  // saturating 8-bit additions, in Lance's order
      for (size_t b = 0; b < m_ / 2; ++b) {
        const uint8_t code = codes[b * n + r];
        sum = std::min<uint32_t>(255, sum + table[2 * b * 16 + (code & 0x0f)]);
        sum = std::min<uint32_t>(255, sum + table[(2 * b + 1) * 16 + (code >> 4)]);
      }
      raw[r] = static_cast<float>(sum) * step + qmin;
    }
    for (size_t r = std::max(n - remainder, exact); r < n; ++r) raw[r] = RawSum(r);
    for (size_t r = 0; r < n; ++r) out[r] = ToIndexMetric(raw[r]);
    return true;
  }

 private:
  float RawSum(size_t row) const {
    const size_t n = static_cast<size_t>(s_->num_rows());
    const auto codes = s_->codes();
    float sum = 0.0f;
    if (four_bit_) {
      for (size_t b = 0; b < m_ / 2; ++b) {
        const uint8_t code = codes[b * n + row];
        sum += lut_[2 * b * 16 + (code & 0x0f)];
        sum += lut_[(2 * b + 1) * 16 + (code >> 4)];
      }
    } else {
      for (size_t s = 0; s < m_; ++s) sum += lut_[s * 256 + codes[s * n + row]];
    }
    return sum;
  }

  float ToIndexMetric(float raw) const {
    return dot_ ? raw - static_cast<float>(m_ - 1) - 1.0f : raw;
  }

  const LancePqStorage* s_;
  size_t m_;
  bool four_bit_;
  bool dot_;
  std::vector<float> lut_;  // (num_sub_vectors, 2^num_bits)
};

}  // namespace

float LanceL2(const float* x, const float* y, size_t n) noexcept {
  return LaneSum(x, y, n, [](float a, float b) {
    const float d = a - b;
    return d * d;
  });
}

float LanceDot(const float* x, const float* y, size_t n) noexcept {
  return LaneSum(x, y, n, [](float a, float b) { return a * b; });
}

void LanceNormalize(std::span<float> v) noexcept {
  float sum = 0.0f;
  for (float x : v) sum += x * x;
  const float norm = std::sqrt(sum);
  for (float& x : v) x /= norm;
}

std::unique_ptr<DistanceComputer> LancePqStorage::QueryComputer(
    std::span<const float> query) const {
  return std::make_unique<LancePqComputer>(this, query);
}

}  // namespace lancedb::index::vector
