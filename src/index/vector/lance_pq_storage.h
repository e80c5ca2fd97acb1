// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// A partition of a LanceDB-built IVF_PQ index, scored with LanceDB's arithmetic so that
// searches over its files give LanceDB's candidates and distances
// (docs/format/lance-vector-index.md):
//   - the query table holds, per sub-vector and centroid, the squared L2 distance (l2 and
//     cosine, on the residual of the query) or 1 - q.c (dot), each computed in Lance's
//     16-lane order (LanceL2 / LanceDot);
//   - a row's distance is the sum of its entries in sub-vector order; for dot minus
//     (num_sub_vectors - 1), so that it is 1 - q.x (the index metric is one less: the query
//     layer adds 1 back);
//   - 4-bit codes (two a byte, low nibble first): LanceDB's unfiltered scan of a partition
//     scores its first max(200, k) rows exactly and estimates the others from the table
//     quantized to 8 bits (LanceScanAll).
// Codes are kept in Lance's layout: byte b of row r at b * num_rows + r.
// Thread-safety: immutable.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "index/vector/pq_builder.h"

namespace lancedb::index::vector {

/// Squared L2 distance summed as Lance sums it: 16 lanes over the 16-wide chunks, lanes added
/// in order, after the sum of the remainder.
float LanceL2(const float* x, const float* y, size_t n) noexcept;
/// Dot product summed as Lance sums it (as LanceL2).
float LanceDot(const float* x, const float* y, size_t n) noexcept;
/// Normalize `v` in place as Lance normalizes a cosine query (sum of squares in order, then
/// each value divided by the root). Layout: v (dim).
void LanceNormalize(std::span<float> v) noexcept;
/// Normalize `v` in place as Lance normalizes a cosine query on a float64 column: the values
/// widened to double, the sum of squares, root and quotients in double, rounded back to float.
void LanceNormalizeAsDouble(std::span<float> v) noexcept;

class LancePqStorage final : public PartitionStorage {
 public:
  /// `pq` (outliving the storage) holds the codebook, residual use and index metric.
  /// `half_precision`: the index is on a float16 column, so Lance rounds the residual query
  /// to float16. Layout: codes (bytes per row, num_rows); centroid (dim).
  LancePqStorage(const ProductQuantizer* pq, std::vector<uint8_t> codes, size_t num_rows,
                 std::span<const float> centroid, bool half_precision)
      : pq_(pq),
        codes_(std::move(codes)),
        num_rows_(num_rows),
        centroid_(centroid.begin(), centroid.end()),
        half_precision_(half_precision) {}

  int64_t num_rows() const override { return static_cast<int64_t>(num_rows_); }
  std::unique_ptr<DistanceComputer> QueryComputer(std::span<const float> query) const override;

  const ProductQuantizer& pq() const { return *pq_; }
  std::span<const uint8_t> codes() const { return codes_; }
  std::span<const float> centroid() const { return centroid_; }
  bool half_precision() const { return half_precision_; }

 private:
  const ProductQuantizer* pq_;
  std::vector<uint8_t> codes_;
  size_t num_rows_;
  std::vector<float> centroid_;
  bool half_precision_;
};

}  // namespace lancedb::index::vector
