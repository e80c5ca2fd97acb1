// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// RaBitQ-style 1-bit quantization (IVF_RQ). A row x of a partition with centroid c is stored
// as the signs of P^T (x - c) for a random orthogonal P (one bit per dimension), plus two
// factors: |x - c| and <o_bar, o> where o is the unit residual and o_bar = sign(P^T o)/sqrt(D)
// its quantized form. The inner product <q', o> is estimated without bias as
// <P^T q', sign bits>/sqrt(D) / <o_bar, o> (Gao & Long, SIGMOD 2024). Thread-safety: immutable.

#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "index/vector/quantizer.h"

namespace lancedb::index::vector {

class RabitQuantizer final : public Quantizer {
 public:
  /// Draw the rotation from `seed`. `metric` is the index metric (kL2 or kDot).
  static std::unique_ptr<RabitQuantizer> Create(size_t dim, DistanceType metric, uint64_t seed);
  /// Rebuild from a persisted rotation. Layout: rotation (dim, dim), row-major, orthonormal
  /// columns.
  static Result<std::unique_ptr<RabitQuantizer>> Make(size_t dim, DistanceType metric,
                                                      std::vector<float> rotation);

  QuantizerType type() const override { return QuantizerType::kRq; }
  std::unique_ptr<PartitionStorage> Encode(std::span<const float> vectors,
                                           std::span<const float> centroid) const override;
  /// Rebuild a partition from persisted parts. Layout: codes (num_rows, code_bytes);
  /// norms, factors (num_rows).
  std::unique_ptr<PartitionStorage> FromParts(std::vector<uint8_t> codes, std::vector<float> norms,
                                              std::vector<float> factors,
                                              std::span<const float> centroid) const;

  size_t dim() const { return dim_; }
  size_t code_bytes() const { return (dim_ + 7) / 8; }
  DistanceType metric() const { return metric_; }
  /// Layout: (dim, dim).
  std::span<const float> rotation() const { return rotation_; }
  /// out = P^T v. Layout: v (dim), out (dim).
  void Rotate(const float* v, float* out) const;

 private:
  RabitQuantizer(size_t dim, DistanceType metric, std::vector<float> rotation)
      : dim_(dim), metric_(metric), rotation_(std::move(rotation)) {}

  size_t dim_;
  DistanceType metric_;
  std::vector<float> rotation_;  // stored transposed: row i is column i of P
};

}  // namespace lancedb::index::vector
