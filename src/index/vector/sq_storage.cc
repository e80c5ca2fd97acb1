// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/sq_storage.h"

namespace lancedb::index::vector {
namespace {

/// L2: sum_j (q'_j - code_j)^2 * scale_j^2 with q'_j = (q_j - lower_j) / scale_j, written as
/// sum_j (a_j - b_j * code_j)^2 with a_j = q_j - lower_j and b_j = scale_j.
/// Dot: -(sum_j q_j lower_j + sum_j q_j scale_j code_j).
class SqComputer final : public DistanceComputer {
 public:
  SqComputer(const ScalarQuantizer* sq, const uint8_t* codes, std::span<const float> query)
      : codes_(codes), dim_(sq->dim()), dot_(sq->metric() == DistanceType::kDot) {
    a_.resize(dim_);
    b_.resize(dim_);
    for (size_t j = 0; j < dim_; ++j) {
      if (dot_) {
        bias_ += query[j] * sq->lower()[j];
        b_[j] = query[j] * sq->scale(j);
      } else {
        a_[j] = query[j] - sq->lower()[j];
        b_[j] = sq->scale(j);
      }
    }
  }

  float Distance(int64_t row) const override {
    const uint8_t* c = codes_ + static_cast<size_t>(row) * dim_;
    const float* a = a_.data();
    const float* b = b_.data();
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    size_t j = 0;
    if (dot_) {
      for (; j + 8 <= dim_; j += 8) {
        for (size_t u = 0; u < 8; ++u) acc[u] += b[j + u] * static_cast<float>(c[j + u]);
      }
      for (; j < dim_; ++j) acc[0] += b[j] * static_cast<float>(c[j]);
      float s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
      return -(bias_ + s);
    }
    for (; j + 8 <= dim_; j += 8) {
      for (size_t u = 0; u < 8; ++u) {
        float d = a[j + u] - b[j + u] * static_cast<float>(c[j + u]);
        acc[u] += d * d;
      }
    }
    for (; j < dim_; ++j) {
      float d = a[j] - b[j] * static_cast<float>(c[j]);
      acc[0] += d * d;
    }
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  }

 private:
  const uint8_t* codes_;
  size_t dim_;
  bool dot_;
  float bias_ = 0;
  std::vector<float> a_;
  std::vector<float> b_;
};

}  // namespace

std::unique_ptr<DistanceComputer> SqStorage::QueryComputer(std::span<const float> query) const {
  return std::make_unique<SqComputer>(sq_, codes_.data(), query);
}

}  // namespace lancedb::index::vector
