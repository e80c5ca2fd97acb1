// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// A partition's 8-bit SQ codes. Distances are computed against the decoded values
// lower_j + code_j * scale_j without materialising them. Thread-safety: immutable.

#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "index/vector/sq_builder.h"

namespace lancedb::index::vector {

class SqStorage final : public PartitionStorage {
 public:
  /// Layout: codes (num_rows, dim).
  SqStorage(const ScalarQuantizer* sq, std::vector<uint8_t> codes)
      : sq_(sq), codes_(std::move(codes)) {}
  int64_t num_rows() const override { return static_cast<int64_t>(codes_.size() / sq_->dim()); }
  std::span<const uint8_t> codes() const { return codes_; }
  std::unique_ptr<DistanceComputer> QueryComputer(std::span<const float> query) const override;

 private:
  const ScalarQuantizer* sq_;  // owned by the index
  std::vector<uint8_t> codes_;
};

}  // namespace lancedb::index::vector
