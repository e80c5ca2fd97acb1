// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/hnsw_index.h"

#include <algorithm>

#include "index/vector/hnsw_search.h"

namespace lancedb::index::vector {

HnswGraph::HnswGraph(int64_t num_nodes, size_t m)
    : m_(m),
      levels_(static_cast<size_t>(num_nodes), 0),
      level0_(static_cast<size_t>(num_nodes) * 2 * m, 0),
      level0_count_(static_cast<size_t>(num_nodes), 0) {}

std::span<const uint32_t> HnswGraph::Neighbors(uint32_t node, int level) const {
  if (level == 0) {
    return {&level0_[static_cast<size_t>(node) * 2 * m_], level0_count_[node]};
  }
  const auto& lists = upper_.at(node);
  return lists[level - 1];
}

void HnswGraph::SetLevel(uint32_t node, int level) {
  levels_[node] = static_cast<uint8_t>(level);
  if (level > 0) upper_[node].resize(level);
}

void HnswGraph::SetNeighbors(uint32_t node, int level, std::span<const uint32_t> neighbors) {
  size_t n = std::min(neighbors.size(), Capacity(level));
  if (level == 0) {
    std::copy_n(neighbors.begin(), n, &level0_[static_cast<size_t>(node) * 2 * m_]);
    level0_count_[node] = static_cast<uint16_t>(n);
  } else {
    upper_.at(node)[level - 1].assign(neighbors.begin(), neighbors.begin() + n);
  }
}

void HnswGraph::Search(const DistanceComputer& distances, int64_t num_rows,
                       const SubIndexSearchParams& params, const RowPredicate& accept,
                       TopK& out) const {
  if (num_nodes() == 0 || max_level_ < 0) return;
  auto dist = [&](uint32_t id) { return distances.Distance(id); };
  auto all = [](uint32_t) { return true; };
  internal::VisitedSet visited(num_nodes());
  std::vector<internal::Candidate> entry = {{dist(entry_point_), entry_point_}};
  for (int level = max_level_; level > 0; --level) {
    entry = internal::SearchLayer(*this, dist, entry, 1, level, visited, all);
  }
  size_t ef = params.ef > 0 ? params.ef : params.k + params.k / 2;
  ef = std::max(ef, params.k);
  std::vector<internal::Candidate> found;
  if (accept) {
    auto pred = [&](uint32_t id) { return accept(id); };
    found = internal::SearchLayer(*this, dist, entry, ef, 0, visited, pred);
  } else {
    found = internal::SearchLayer(*this, dist, entry, ef, 0, visited, all);
  }
  for (const auto& c : found) out.Push(c.distance, c.id);
}

}  // namespace lancedb::index::vector
