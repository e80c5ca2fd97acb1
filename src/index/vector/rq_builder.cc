// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/rq_builder.h"

#include <cmath>

#include "index/vector/random.h"
#include "index/vector/rq_storage.h"

namespace lancedb::index::vector {

std::unique_ptr<RabitQuantizer> RabitQuantizer::Create(size_t dim, DistanceType metric,
                                                       uint64_t seed) {
  // Gaussian matrix, orthonormalized row by row with modified Gram-Schmidt (in double).
  Rng rng(seed);
  std::vector<double> m(dim * dim);
  for (auto& v : m) v = rng.Normal();
  for (size_t i = 0; i < dim; ++i) {
    double* row = &m[i * dim];
    for (size_t p = 0; p < i; ++p) {
      const double* prev = &m[p * dim];
      double dot = 0;
      for (size_t j = 0; j < dim; ++j) dot += row[j] * prev[j];
      for (size_t j = 0; j < dim; ++j) row[j] -= dot * prev[j];
    }
    double norm = 0;
    for (size_t j = 0; j < dim; ++j) norm += row[j] * row[j];
    norm = std::sqrt(norm);
    for (size_t j = 0; j < dim; ++j) row[j] /= norm;
  }
  std::vector<float> rotation(m.begin(), m.end());
  return std::unique_ptr<RabitQuantizer>(new RabitQuantizer(dim, metric, std::move(rotation)));
}

Result<std::unique_ptr<RabitQuantizer>> RabitQuantizer::Make(size_t dim, DistanceType metric,
                                                             std::vector<float> rotation) {
  if (rotation.size() != dim * dim) return Status::Corruption("RQ rotation has the wrong size");
  return std::unique_ptr<RabitQuantizer>(new RabitQuantizer(dim, metric, std::move(rotation)));
}

void RabitQuantizer::Rotate(const float* v, float* out) const {
  for (size_t i = 0; i < dim_; ++i) out[i] = Dot(&rotation_[i * dim_], v, dim_);
}

std::unique_ptr<PartitionStorage> RabitQuantizer::Encode(std::span<const float> vectors,
                                                         std::span<const float> centroid) const {
  size_t n = vectors.size() / dim_;
  size_t bytes = code_bytes();
  std::vector<uint8_t> codes(n * bytes, 0);
  std::vector<float> norms(n), factors(n);
  std::vector<float> residual(dim_), rotated(dim_);
  float inv_sqrt_d = 1.0f / std::sqrt(static_cast<float>(dim_));
  for (size_t r = 0; r < n; ++r) {
    for (size_t j = 0; j < dim_; ++j) residual[j] = vectors[r * dim_ + j] - centroid[j];
    float norm = std::sqrt(Norm2(residual.data(), dim_));
    Rotate(residual.data(), rotated.data());
    float abs_sum = 0;
    uint8_t* code = &codes[r * bytes];
    for (size_t j = 0; j < dim_; ++j) {
      if (rotated[j] > 0) code[j / 8] |= static_cast<uint8_t>(1u << (j % 8));
      abs_sum += std::fabs(rotated[j]);
    }
    norms[r] = norm;
    // <o_bar, o> = sum |P^T o|_j / sqrt(D); 1 for a zero residual (the estimate is then 0).
    factors[r] = norm > 0 ? abs_sum / norm * inv_sqrt_d : 1.0f;
  }
  return FromParts(std::move(codes), std::move(norms), std::move(factors), centroid);
}

std::unique_ptr<PartitionStorage> RabitQuantizer::FromParts(std::vector<uint8_t> codes,
                                                            std::vector<float> norms,
                                                            std::vector<float> factors,
                                                            std::span<const float> centroid) const {
  return std::make_unique<RqStorage>(this, std::move(codes), std::move(norms), std::move(factors),
                                     centroid);
}

}  // namespace lancedb::index::vector
