// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/pq_storage.h"

namespace lancedb::index::vector {
namespace {

class PqComputer final : public DistanceComputer {
 public:
  PqComputer(const ProductQuantizer* pq, const uint8_t* codes, const uint8_t* blocked_codes,
             std::vector<float> lut)
      : codes_(codes),
        blocked_codes_(blocked_codes),
        m_(pq->num_sub_vectors()),
        k_(pq->num_centroids()),
        lut_(std::move(lut)) {}

  void Distances(int64_t begin, int64_t n, float* out) const override {
    constexpr auto kRows = static_cast<int64_t>(kPq4BlockRows);
    int64_t i = 0;
    if (blocked_codes_ != nullptr) {
      for (; i < n && (begin + i) % kRows != 0; ++i) out[i] = Distance(begin + i);
      for (; i + kRows <= n; i += kRows) {
        const size_t block = static_cast<size_t>((begin + i) / kRows);
        Pq4ScanBlock(lut_.data(), blocked_codes_ + block * m_ * kPq4BlockRows, m_, out + i);
      }
    }
    for (; i < n; ++i) out[i] = Distance(begin + i);
  }

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
  const uint8_t* blocked_codes_;  // null unless 4-bit (PqStorage::blocked_codes_)
  size_t m_;
  size_t k_;
  std::vector<float> lut_;
};

}  // namespace

PqStorage::PqStorage(const ProductQuantizer* pq, std::vector<uint8_t> codes,
                     std::span<const float> centroid)
    : pq_(pq), codes_(std::move(codes)), centroid_(centroid.begin(), centroid.end()) {
  if (pq_->num_bits() != 4) return;
  const size_t m = pq_->num_sub_vectors();
  const size_t rows = static_cast<size_t>(num_rows());
  const size_t blocks = (rows + kPq4BlockRows - 1) / kPq4BlockRows;
  blocked_codes_.assign(blocks * m * kPq4BlockRows, 0);
  for (size_t r = 0; r < rows; ++r) {
    uint8_t* block = blocked_codes_.data() + (r / kPq4BlockRows) * m * kPq4BlockRows;
    for (size_t s = 0; s < m; ++s) block[s * kPq4BlockRows + r % kPq4BlockRows] = codes_[r * m + s];
  }
}

std::unique_ptr<DistanceComputer> PqStorage::QueryComputer(std::span<const float> query) const {
  std::vector<float> q(query.begin(), query.end());
  if (pq_->use_residual()) {
    for (size_t j = 0; j < q.size(); ++j) q[j] -= centroid_[j];
  }
  std::vector<float> lut(pq_->num_sub_vectors() * pq_->num_centroids());
  pq_->BuildLookupTable(q.data(), lut.data());
  return std::make_unique<PqComputer>(
      pq_, codes_.data(), blocked_codes_.empty() ? nullptr : blocked_codes_.data(), std::move(lut));
}

}  // namespace lancedb::index::vector
