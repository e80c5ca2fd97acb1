// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// A partition's RaBitQ codes and factors. Per query the storage builds a byte lookup table:
// for each group of 8 dimensions, the sum of the rotated query over every bit pattern, so a
// row's estimate costs code_bytes table reads. Thread-safety: immutable.

#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "index/vector/rq_builder.h"

namespace lancedb::index::vector {

class RqStorage final : public PartitionStorage {
 public:
  RqStorage(const RabitQuantizer* rq, std::vector<uint8_t> codes, std::vector<float> norms,
            std::vector<float> factors, std::span<const float> centroid)
      : rq_(rq),
        codes_(std::move(codes)),
        norms_(std::move(norms)),
        factors_(std::move(factors)),
        centroid_(centroid.begin(), centroid.end()) {}

  int64_t num_rows() const override { return static_cast<int64_t>(norms_.size()); }
  /// Layout: (num_rows, code_bytes); bit j of row r is bit (j % 8) of byte j / 8.
  std::span<const uint8_t> codes() const { return codes_; }
  std::span<const float> norms() const { return norms_; }
  std::span<const float> factors() const { return factors_; }
  std::unique_ptr<DistanceComputer> QueryComputer(std::span<const float> query) const override;

 private:
  const RabitQuantizer* rq_;  // owned by the index
  std::vector<uint8_t> codes_;
  std::vector<float> norms_;    // |x - c|
  std::vector<float> factors_;  // <o_bar, o>
  std::vector<float> centroid_;
};

}  // namespace lancedb::index::vector
