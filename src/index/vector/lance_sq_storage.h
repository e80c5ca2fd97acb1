// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Lance's 8-bit scalar quantization, as LanceDB's IVF_SQ indices store and search it
// (docs/format/lance-vector-index.md): one range [start, end] shared by every dimension; a value
// v has the code floor((v - start) * 255 / (end - start)), saturated to 0..255. Distances are
// Lance's, so that searches over LanceDB's files give LanceDB's results:
//   l2 (and cosine, on normalized vectors): the squared L2 distance between the codes of the
//     row and of the query, times ((end - start) / 255)^2;
//   dot: minus the dot product of the query and the decoded row start + code * step (the index
//     metric; the query layer reports 1 - x.y, as Lance).
// Thread-safety: immutable.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "index/vector/quantizer.h"

namespace lancedb::index::vector {

class LanceScalarQuantizer final : public Quantizer {
 public:
  /// `metric` is the index metric (kL2 for l2 and cosine, kDot).
  LanceScalarQuantizer(size_t dim, DistanceType metric, double start, double end)
      : dim_(dim), metric_(metric), start_(start), end_(end) {}

  QuantizerType type() const override { return QuantizerType::kSq; }
  std::unique_ptr<PartitionStorage> Encode(std::span<const float> vectors,
                                           std::span<const float> centroid) const override;
  /// Rebuild a partition's storage from its codes. Layout: codes (num_rows, dim).
  std::unique_ptr<PartitionStorage> FromCodes(std::vector<uint8_t> codes) const;

  /// Write the codes of `values` (any length) to `out`.
  void Quantize(std::span<const float> values, uint8_t* out) const noexcept;

  size_t dim() const { return dim_; }
  DistanceType metric() const { return metric_; }
  double start() const { return start_; }
  double end() const { return end_; }

 private:
  size_t dim_;
  DistanceType metric_;
  double start_;
  double end_;
};

/// A partition's codes under a LanceScalarQuantizer. Layout: codes (num_rows, dim).
class LanceSqStorage final : public PartitionStorage {
 public:
  /// `sq` (outliving the storage) holds the range and the index metric.
  LanceSqStorage(const LanceScalarQuantizer* sq, std::vector<uint8_t> codes)
      : sq_(sq), codes_(std::move(codes)) {}

  int64_t num_rows() const override { return static_cast<int64_t>(codes_.size() / sq_->dim()); }
  std::unique_ptr<DistanceComputer> QueryComputer(std::span<const float> query) const override;
  std::span<const uint8_t> codes() const { return codes_; }

 private:
  const LanceScalarQuantizer* sq_;
  std::vector<uint8_t> codes_;
};

}  // namespace lancedb::index::vector
