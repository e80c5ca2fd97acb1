// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Internal: the nearest-centroid kernel of k-means and IVF assignment. The centroids are laid
// out in panels of 16, transposed, so that one SIMD register holds one dimension of 16
// centroids; a row's score against a centroid is bias - sum_j x_j * v_j, accumulated with one
// fused multiply-add per dimension in dimension order. Every instruction set (scalar, AVX2,
// AVX-512) performs the same operations on each score, so the result is the same bits
// everywhere. Thread-safety: the functions are pure.

#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace lancedb::index::vector::internal {

/// Centroids per panel.
constexpr int64_t kPanelWidth = 16;

struct CentroidPanels {
  size_t dim = 0;
  int64_t num_centroids = 0;
  int64_t num_panels = 0;
  /// Layout: (num_panels, dim, kPanelWidth). L2: 2 * c; dot: c. Padding lanes hold 0.
  std::vector<float> values;
  /// Layout: (num_panels, kPanelWidth). L2: ||c||^2; dot: 0. Padding lanes hold +inf.
  std::vector<float> bias;
};

/// Return sum_j x_j^2 accumulated in dimension order with fused multiply-adds (the same bits
/// on every instruction set, unlike Norm2).
float SquaredNorm(const float* x, size_t dim);

/// Prepare `centroids` (num_centroids, dim) for NearestCentroids. With `l2` the scores are
/// ||c||^2 - 2 x·c (squared L2 distance minus ||x||^2); otherwise -x·c.
CentroidPanels MakeCentroidPanels(const float* centroids, int64_t num_centroids, size_t dim,
                                  bool l2);

/// For each of `num_rows` rows, write the index of the centroid of least score (the first one
/// among equal scores) and that score. Row r starts at data + r * row_stride and has
/// panels.dim values.
void NearestCentroids(const CentroidPanels& panels, const float* data, int64_t num_rows,
                      size_t row_stride, uint32_t* best_index, float* best_score);

}  // namespace lancedb::index::vector::internal
