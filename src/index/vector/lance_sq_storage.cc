// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/lance_sq_storage.h"

#include <cmath>

namespace lancedb::index::vector {
namespace {

/// Start loading the `dim` codes of `row`, a cache line at a time.
void PrefetchCodes(const uint8_t* codes, size_t dim, int64_t row) {
  const uint8_t* c = codes + static_cast<size_t>(row) * dim;
  for (size_t at = 0; at < dim; at += 64) __builtin_prefetch(c + at);
}

/// l2 / cosine: code-space squared L2, scaled back.
class CodeL2Computer final : public DistanceComputer {
 public:
  CodeL2Computer(const uint8_t* codes, std::vector<uint8_t> query, float scale)
      : codes_(codes), query_(std::move(query)), scale_(scale) {}
  float Distance(int64_t row) const override {
    const size_t dim = query_.size();
    const uint8_t* c = codes_ + static_cast<size_t>(row) * dim;
    uint32_t sum = 0;
    for (size_t j = 0; j < dim; ++j) {
      const int32_t d = static_cast<int32_t>(c[j]) - static_cast<int32_t>(query_[j]);
      sum += static_cast<uint32_t>(d * d);
    }
    // As Lance: the u32 sum as f32, times range^2 / 255^2 (in f32).
    return static_cast<float>(sum) * scale_ / (255.0f * 255.0f);
  }
  void Prefetch(int64_t row) const override { PrefetchCodes(codes_, query_.size(), row); }

 private:
  const uint8_t* codes_;
  std::vector<uint8_t> query_;
  float scale_;  // range^2
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
  void Prefetch(int64_t row) const override { PrefetchCodes(codes_, query_.size(), row); }

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
