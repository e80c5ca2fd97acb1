// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/rq_storage.h"

#include <cmath>

namespace lancedb::index::vector {
namespace {

/// L2: |q - x|^2 = |q - c|^2 + |r|^2 - 2 |r| <q - c, o>.
/// Dot: -<q, x> = -<q, c> - |r| <q, o>.
/// with <v, o> ~= <P^T v, sign bits as +-1> / sqrt(D) / <o_bar, o>.
class RqComputer final : public DistanceComputer {
 public:
  RqComputer(const RqStorage* s, const RabitQuantizer* rq, std::span<const float> query,
             std::span<const float> centroid)
      : s_(s), bytes_(rq->code_bytes()), dot_(rq->metric() == DistanceType::kDot) {
    size_t dim = rq->dim();
    std::vector<float> v(query.begin(), query.end());
    if (dot_) {
      base_ = -Dot(query.data(), centroid.data(), dim);
    } else {
      for (size_t j = 0; j < dim; ++j) v[j] -= centroid[j];
      base_ = Norm2(v.data(), dim);
    }
    std::vector<float> rotated(dim);
    rq->Rotate(v.data(), rotated.data());
    float total = 0;
    for (float x : rotated) total += x;
    // sum_j s_j v_j with s_j = +-1 equals 2 * sum_{bit set} v_j - sum_j v_j.
    lut_.assign(bytes_ * 256, 0.0f);
    for (size_t g = 0; g < bytes_; ++g) {
      float* t = &lut_[g * 256];
      for (int b = 0; b < 8; ++b) {
        size_t j = g * 8 + b;
        float val = j < dim ? rotated[j] : 0.0f;
        int bit = 1 << b;
        for (int p = 0; p < bit; ++p) t[p | bit] = t[p] + val;
      }
    }
    offset_ = -total;
    scale_ = 2.0f;
    inv_sqrt_d_ = 1.0f / std::sqrt(static_cast<float>(dim));
  }

  float Distance(int64_t row) const override {
    const uint8_t* code = s_->codes().data() + static_cast<size_t>(row) * bytes_;
    float sum = 0;
    for (size_t g = 0; g < bytes_; ++g) sum += lut_[g * 256 + code[g]];
    float ip = (scale_ * sum + offset_) * inv_sqrt_d_ / s_->factors()[row];
    float norm = s_->norms()[row];
    if (dot_) return base_ - norm * ip;
    return base_ + norm * norm - 2.0f * norm * ip;
  }

 private:
  const RqStorage* s_;
  size_t bytes_;
  bool dot_;
  float base_ = 0;
  float offset_ = 0;
  float scale_ = 2.0f;
  float inv_sqrt_d_ = 1.0f;
  std::vector<float> lut_;
};

}  // namespace

std::unique_ptr<DistanceComputer> RqStorage::QueryComputer(std::span<const float> query) const {
  return std::make_unique<RqComputer>(this, rq_, query, centroid_);
}

}  // namespace lancedb::index::vector
