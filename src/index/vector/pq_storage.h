// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// A partition's PQ codes with asymmetric distance computation (ADC): per query, a table of
// the distances from each query slice to each codebook centroid; a row's distance is the sum
// of num_sub_vectors table entries. Thread-safety: immutable.

#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "index/vector/pq_builder.h"

namespace lancedb::index::vector {

class PqStorage final : public PartitionStorage {
 public:
  /// Layout: codes (num_rows, num_sub_vectors), one code per byte; centroid (dim).
  PqStorage(const ProductQuantizer* pq, std::vector<uint8_t> codes,
            std::span<const float> centroid);

  int64_t num_rows() const override {
    return static_cast<int64_t>(codes_.size() / pq_->num_sub_vectors());
  }
  std::span<const uint8_t> codes() const { return codes_; }
  std::unique_ptr<DistanceComputer> QueryComputer(std::span<const float> query) const override;

 private:
  const ProductQuantizer* pq_;  // outlives the storage (owned by the index)
  std::vector<uint8_t> codes_;
  std::vector<float> centroid_;
  /// 4-bit codes only: the codes again in blocks of kPq4BlockRows rows, transposed for the
  /// SIMD scan (the last block zero-padded). Layout: (num_blocks, num_sub_vectors,
  /// kPq4BlockRows).
  std::vector<uint8_t> blocked_codes_;
};

}  // namespace lancedb::index::vector
