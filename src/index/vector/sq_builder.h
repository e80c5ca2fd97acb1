// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// 8-bit scalar quantization: each dimension j is mapped linearly from [lower_j, upper_j]
// (trained on a sample) to 0..255. Thread-safety: immutable after Train.

#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "index/vector/quantizer.h"

namespace lancedb::index::vector {

class ScalarQuantizer final : public Quantizer {
 public:
  /// Learn per-dimension bounds from at most `max_rows` rows sampled with `seed`.
  /// Layout: data (num_rows, dim). `metric` is the index metric (kL2 or kDot).
  static Result<std::unique_ptr<ScalarQuantizer>> Train(std::span<const float> data, size_t dim,
                                                        DistanceType metric, int64_t max_rows,
                                                        std::optional<uint64_t> seed);
  /// Rebuild from persisted bounds. Layout: lower (dim), upper (dim).
  static Result<std::unique_ptr<ScalarQuantizer>> Make(size_t dim, DistanceType metric,
                                                       std::vector<float> lower,
                                                       std::vector<float> upper);

  QuantizerType type() const override { return QuantizerType::kSq; }
  std::unique_ptr<PartitionStorage> Encode(std::span<const float> vectors,
                                           std::span<const float> centroid) const override;
  /// Rebuild a partition's storage from persisted codes. Layout: codes (num_rows, dim).
  std::unique_ptr<PartitionStorage> FromCodes(std::vector<uint8_t> codes) const;

  size_t dim() const { return dim_; }
  DistanceType metric() const { return metric_; }
  std::span<const float> lower() const { return lower_; }
  std::span<const float> upper() const { return upper_; }
  /// Return the decoding step of dimension j.
  float scale(size_t j) const { return scale_[j]; }

 private:
  ScalarQuantizer(size_t dim, DistanceType metric, std::vector<float> lower,
                  std::vector<float> upper);

  size_t dim_;
  DistanceType metric_;
  std::vector<float> lower_;
  std::vector<float> upper_;
  std::vector<float> scale_;  // (upper - lower) / 255
};

}  // namespace lancedb::index::vector
