// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/multivec.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>

#include "index/vector/kmeans.h"

namespace lancedb::index::vector {

float MultivectorDistance(DistanceType type, ElementType element_type, const void* queries,
                          size_t num_queries, std::span<const float> query_norms,
                          const void* vectors, int64_t num_vectors, size_t dim,
                          std::span<float> scratch) noexcept {
  if (num_vectors <= 0) return std::numeric_limits<float>::quiet_NaN();
  const size_t row_bytes = dim * ElementSize(element_type);
  const auto* q = static_cast<const uint8_t*>(queries);
  float total = 0.0f;
  for (size_t i = 0; i < num_queries; ++i) {
    std::optional<float> norm;
    if (type == DistanceType::kCosine && i < query_norms.size()) norm = query_norms[i];
    DistanceBatch(type, element_type, q + i * row_bytes, vectors, num_vectors, dim, scratch.data(),
                  norm);
    float best = scratch[0];
    for (int64_t v = 1; v < num_vectors && !std::isnan(best); ++v) {
      const float d = scratch[static_cast<size_t>(v)];
      if (std::isnan(d) || d < best) best = d;
    }
    total += best;
  }
  return total;
}

std::vector<Neighbor> ScoreMultivectorCandidates(std::span<const std::vector<Neighbor>> lists) {
  // Similarity sums per row, in the order LanceDB accumulates them (float32).
  std::unordered_map<uint64_t, float> sims;
  float missed = 0.0f;  // the sum of the imputed similarities of the lists seen so far
  for (const auto& list : lists) {
    const float min_sim = list.empty() ? 0.0f : 1.0f - list.back().distance;
    std::unordered_map<uint64_t, float> found;
    found.reserve(list.size());
    for (const auto& n : list) found.emplace(n.row_id, 1.0f - n.distance);  // first one counts
    for (auto& [row, sim] : sims) {
      auto it = found.find(row);
      sim += it == found.end() ? min_sim : it->second;
    }
    for (const auto& [row, sim] : found) sims.emplace(row, sim + missed);
    missed += min_sim;
  }
  const float num_queries = static_cast<float>(lists.size());
  std::vector<Neighbor> out;
  out.reserve(sims.size());
  for (const auto& [row, sim] : sims) out.push_back({num_queries - sim, row});
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<float> VectorsOfPartition(std::span<const float> vectors,
                                      std::span<const int64_t> counts, size_t dim,
                                      std::span<const float> centroids, int64_t num_partitions,
                                      DistanceType distance_type, int64_t partition) {
  const auto n = static_cast<int64_t>(vectors.size() / dim);
  std::vector<float> data(vectors.begin(), vectors.end());
  if (distance_type == DistanceType::kCosine) NormalizeRows(data.data(), n, dim);
  std::vector<uint32_t> assignment(static_cast<size_t>(n));
  // As the builder assigns (ivf_builder.cc).
  AssignToCentroids(data.data(), n, centroids.data(), num_partitions, dim,
                    distance_type == DistanceType::kDot ? DistanceType::kDot : DistanceType::kL2,
                    assignment.data(), nullptr);
  std::vector<float> out;
  int64_t v = 0;
  for (int64_t count : counts) {
    for (int64_t j = 0; j < count; ++j, ++v) {
      if (assignment[static_cast<size_t>(v)] != static_cast<uint32_t>(partition)) continue;
      out.insert(out.end(), vectors.begin() + v * static_cast<int64_t>(dim),
                 vectors.begin() + (v + 1) * static_cast<int64_t>(dim));
    }
  }
  return out;
}

}  // namespace lancedb::index::vector
