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

/// Distances from one query to the SQ codes of one partition. Public (not hidden behind
/// DistanceComputer) so that graph searches, which score rows in random order, can call the
/// kernel without a virtual call and prefetch the rows they are about to score.
/// Thread-safety: belongs to one thread.
class SqDistanceComputer final : public DistanceComputer {
 public:
  /// Layout: codes (num_rows, dim); query (dim), in index space.
  SqDistanceComputer(const ScalarQuantizer* sq, const uint8_t* codes, std::span<const float> query);

  float Distance(int64_t row) const override { return Score(row); }

  /// The distance to local row `row`: squared L2 or negative inner product on the decoded row.
  float Score(int64_t row) const noexcept {
    const uint8_t* c = codes_ + static_cast<size_t>(row) * dim_;
    return dot_ ? -(bias_ + kernel_(c, b_.data(), b_.data(), dim_, true))
                : kernel_(c, a_.data(), b_.data(), dim_, false);
  }

  /// Hint that row `row` will be scored soon (brings its codes towards the cache).
  void Prefetch(int64_t row) const noexcept override {
    const uint8_t* c = codes_ + static_cast<size_t>(row) * dim_;
    for (size_t off = 0; off < dim_; off += 64) __builtin_prefetch(c + off);
    __builtin_prefetch(c + dim_ - 1);
  }

  /// Sum over j of (a_j - b_j c_j)^2 (l2), or of b_j c_j (dot). Eight lanes, lane u summing
  /// the dimensions j = u mod 8, then added pairwise: every kernel variant gives the same bits.
  using Kernel = float (*)(const uint8_t* codes, const float* a, const float* b, size_t dim,
                           bool dot) noexcept;

 private:
  const uint8_t* codes_;
  size_t dim_;
  bool dot_;
  float bias_ = 0;
  Kernel kernel_;
  std::vector<float> a_;
  std::vector<float> b_;
};

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
