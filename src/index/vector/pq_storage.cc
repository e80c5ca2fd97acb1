// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/pq_storage.h"

namespace lancedb::index::vector {
namespace {

class PqComputer final : public DistanceComputer {
 public:
  PqComputer(const ProductQuantizer* pq, const uint8_t* codes, std::vector<float> lut)
      : codes_(codes), m_(pq->num_sub_vectors()), k_(pq->num_centroids()), lut_(std::move(lut)) {}

  float Distance(int64_t row) const override {
    const uint8_t* code = codes_ + static_cast<size_t>(row) * m_;
    const float* lut = lut_.data();
    float acc[4] = {0, 0, 0, 0};
    size_t s = 0;
    for (; s + 4 <= m_; s += 4) {
      acc[0] += lut[s * k_ + code[s]];
      acc[1] += lut[(s + 1) * k_ + code[s + 1]];
      acc[2] += lut[(s + 2) * k_ + code[s + 2]];
      acc[3] += lut[(s + 3) * k_ + code[s + 3]];
    }
    for (; s < m_; ++s) acc[0] += lut[s * k_ + code[s]];
    return (acc[0] + acc[1]) + (acc[2] + acc[3]);
  }

 private:
  const uint8_t* codes_;
  size_t m_;
  size_t k_;
  std::vector<float> lut_;
};

}  // namespace

std::unique_ptr<DistanceComputer> PqStorage::QueryComputer(std::span<const float> query) const {
  std::vector<float> q(query.begin(), query.end());
  if (pq_->use_residual()) {
    for (size_t j = 0; j < q.size(); ++j) q[j] -= centroid_[j];
  }
  std::vector<float> lut(pq_->num_sub_vectors() * pq_->num_centroids());
  pq_->BuildLookupTable(q.data(), lut.data());
  return std::make_unique<PqComputer>(pq_, codes_.data(), std::move(lut));
}

}  // namespace lancedb::index::vector
