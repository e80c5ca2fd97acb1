// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/lance_pq_storage.h"

#include <algorithm>
#include <cmath>

#include "array/half.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

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

// The distance table of one sub-vector: for each of `k` centroids, LaneSum(q, centroid, sub)
// of the squared difference (l2) or 1 - LaneSum of the product (dot), with each centroid's sums
// in LaneSum's order (the remainder first, then the 16 lanes over the chunks, the lanes added
// in order), vectorized across the centroids. Layout: book (sub, k): the centroids side by
// side; out (k). REQUIRES: k <= 256.
template <bool kDot>
void SubVectorTableBody(const float* q, const float* book, size_t sub, size_t k,
                        float* out) noexcept {
  auto term = [](float a, float b) {
    if constexpr (kDot) {
      return a * b;
    } else {
      const float d = a - b;
      return d * d;
    }
  };
  float tail[256];
  float sum[256];
  float lane[256];
  std::fill(tail, tail + k, 0.0f);
  std::fill(sum, sum + k, 0.0f);
  const size_t chunks = sub / kLanes;
  for (size_t j = chunks * kLanes; j < sub; ++j) {
    const float x = q[j];
    const float* y = book + j * k;
    for (size_t c = 0; c < k; ++c) tail[c] += term(x, y[c]);
  }
  if (chunks > 0) {
    for (size_t l = 0; l < kLanes; ++l) {
      std::fill(lane, lane + k, 0.0f);
      for (size_t chunk = 0; chunk < chunks; ++chunk) {
        const size_t j = chunk * kLanes + l;
        const float x = q[j];
        const float* y = book + j * k;
        for (size_t c = 0; c < k; ++c) lane[c] += term(x, y[c]);
      }
      for (size_t c = 0; c < k; ++c) sum[c] += lane[c];
    }
  }
  for (size_t c = 0; c < k; ++c) out[c] = kDot ? 1.0f - (tail[c] + sum[c]) : tail[c] + sum[c];
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) inline __m256 TermAvx2(__m256 x, __m256 y, bool dot) noexcept {
  if (dot) return _mm256_mul_ps(x, y);
  const __m256 d = _mm256_sub_ps(x, y);
  return _mm256_mul_ps(d, d);
}

// LaneSum with the 16 lanes in two AVX2 registers: the same products and sums in the same
// order (no FMA), so the same bits.
__attribute__((target("avx2"))) float LaneSumAvx2(const float* x, const float* y, size_t n,
                                                  bool dot) noexcept {
  const size_t chunks = n / kLanes;
  float tail = 0.0f;
  for (size_t i = chunks * kLanes; i < n; ++i) {
    const float d = x[i] - y[i];
    tail += dot ? x[i] * y[i] : d * d;
  }
  __m256 lo = _mm256_setzero_ps();
  __m256 hi = _mm256_setzero_ps();
  for (size_t c = 0; c < chunks; ++c) {
    const float* xc = x + c * kLanes;
    const float* yc = y + c * kLanes;
    lo = _mm256_add_ps(lo, TermAvx2(_mm256_loadu_ps(xc), _mm256_loadu_ps(yc), dot));
    hi = _mm256_add_ps(hi, TermAvx2(_mm256_loadu_ps(xc + 8), _mm256_loadu_ps(yc + 8), dot));
  }
  float lanes[kLanes];
  _mm256_storeu_ps(lanes, lo);
  _mm256_storeu_ps(lanes + 8, hi);
  float sum = 0.0f;
  for (float v : lanes) sum += v;
  return tail + sum;
}

bool HasAvx2() {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2;
}

// SubVectorTableBody with eight centroids in one AVX2 register and the sums kept in registers;
// no FMA, so that each product and sum is rounded separately, as in LanceL2 / LanceDot.
// REQUIRES: k % 8 == 0.
__attribute__((target("avx2"))) void SubVectorTableAvx2(const float* q, const float* book,
                                                        size_t sub, size_t k, bool dot,
                                                        float* out) noexcept {
  const size_t chunks = sub / kLanes;
  for (size_t c = 0; c < k; c += 8) {
    __m256 tail = _mm256_setzero_ps();
    for (size_t j = chunks * kLanes; j < sub; ++j) {
      tail = _mm256_add_ps(tail,
                           TermAvx2(_mm256_set1_ps(q[j]), _mm256_loadu_ps(book + j * k + c), dot));
    }
    __m256 sum = _mm256_setzero_ps();
    for (size_t l = 0; l < kLanes && chunks > 0; ++l) {
      __m256 lane = _mm256_setzero_ps();
      for (size_t chunk = 0; chunk < chunks; ++chunk) {
        const size_t j = chunk * kLanes + l;
        lane = _mm256_add_ps(
            lane, TermAvx2(_mm256_set1_ps(q[j]), _mm256_loadu_ps(book + j * k + c), dot));
      }
      sum = _mm256_add_ps(sum, lane);
    }
    __m256 total = _mm256_add_ps(tail, sum);
    if (dot) total = _mm256_sub_ps(_mm256_set1_ps(1.0f), total);
    _mm256_storeu_ps(out + c, total);
  }
}
#endif

void SubVectorTableDefault(const float* q, const float* book, size_t sub, size_t k, bool dot,
                           float* out) noexcept {
  if (dot) {
    SubVectorTableBody<true>(q, book, sub, k, out);
  } else {
    SubVectorTableBody<false>(q, book, sub, k, out);
  }
}

using SubVectorTableFn = void (*)(const float*, const float*, size_t, size_t, bool,
                                  float*) noexcept;

SubVectorTableFn SubVectorTable() {
#if defined(__x86_64__)
  if (HasAvx2()) return SubVectorTableAvx2;
#endif
  return SubVectorTableDefault;
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
    const SubVectorTableFn table = SubVectorTable();
    for (size_t s = 0; s < m_; ++s) {
      table(q.data() + s * sub, pq.codebook_by_dim().data() + s * sub * k, sub, k, dot_,
            lut_.data() + s * k);
    }
  }

  float Distance(int64_t row) const override {
    return ToIndexMetric(RawSum(static_cast<size_t>(row)));
  }

  /// A block of rows: the same sums in the same order as RawSum (4-bit codes a code byte at a
  /// time over the rows, 8-bit codes four rows at a time).
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
      // Four rows at a time, their sums in registers (each still in sub-vector order).
      size_t i = 0;
      for (; i + 4 <= rows; i += 4) {
        float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
        for (size_t s = 0; s < m_; ++s) {
          const float* table = lut_.data() + s * 256;
          const uint8_t* column = codes + s * n + i;
          s0 += table[column[0]];
          s1 += table[column[1]];
          s2 += table[column[2]];
          s3 += table[column[3]];
        }
        out[i] = s0;
        out[i + 1] = s1;
        out[i + 2] = s2;
        out[i + 3] = s3;
      }
      for (; i < rows; ++i) {
        for (size_t s = 0; s < m_; ++s) out[i] += lut_[s * 256 + codes[s * n + i]];
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
#if defined(__x86_64__)
  if (n >= kLanes && HasAvx2()) return LaneSumAvx2(x, y, n, /*dot=*/false);
#endif
  return LaneSum(x, y, n, [](float a, float b) {
    const float d = a - b;
    return d * d;
  });
}

float LanceDot(const float* x, const float* y, size_t n) noexcept {
#if defined(__x86_64__)
  if (n >= kLanes && HasAvx2()) return LaneSumAvx2(x, y, n, /*dot=*/true);
#endif
  return LaneSum(x, y, n, [](float a, float b) { return a * b; });
}

void LanceNormalize(std::span<float> v) noexcept {
  float sum = 0.0f;
  for (float x : v) sum += x * x;
  const float norm = std::sqrt(sum);
  for (float& x : v) x /= norm;
}

void LanceNormalizeAsDouble(std::span<float> v) noexcept {
  double sum = 0.0;
  for (float x : v) sum += static_cast<double>(x) * static_cast<double>(x);
  const double norm = std::sqrt(sum);
  for (float& x : v) x = static_cast<float>(static_cast<double>(x) / norm);
}

std::unique_ptr<DistanceComputer> LancePqStorage::QueryComputer(
    std::span<const float> query) const {
  return std::make_unique<LancePqComputer>(this, query);
}

}  // namespace lancedb::index::vector
