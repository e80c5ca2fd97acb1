// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/hnsw_index.h"

#include <algorithm>

#include "index/vector/hnsw_search.h"
#include "index/vector/sq_storage.h"

namespace lancedb::index::vector {

HnswGraph::HnswGraph(int64_t num_nodes, size_t m)
    : m_(m),
      levels_(static_cast<size_t>(num_nodes), 0),
      level0_(static_cast<size_t>(num_nodes) * 2 * m, 0),
      level0_count_(static_cast<size_t>(num_nodes), 0) {}

std::span<const uint32_t> HnswGraph::UpperNeighbors(uint32_t node, int level) const {
  return upper_.at(node)[level - 1];
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

namespace {

/// The search of HnswGraph::Search with a given distance and prefetch function.
template <typename DistFn, typename PrefetchFn>
void SearchGraph(const HnswGraph& graph, DistFn&& dist, PrefetchFn&& prefetch,
                 const SubIndexSearchParams& params, const RowPredicate& accept, TopK& out) {
  // One visited set per thread, reused by every partition and query it searches.
  thread_local internal::VisitedSet visited(0);
  visited.Grow(graph.num_nodes());
  auto all = [](uint32_t) { return true; };
  const uint32_t ep = graph.entry_point();
  std::vector<internal::Candidate> entry = {{dist(ep), ep}};
  for (int level = graph.max_level(); level > 0; --level) {
    entry = internal::SearchLayer(graph, dist, entry, 1, level, visited, all, prefetch);
  }
  size_t ef = params.ef > 0 ? params.ef : params.k + params.k / 2;
  ef = std::max(ef, params.k);
  std::vector<internal::Candidate> found;
  if (accept) {
    auto pred = [&](uint32_t id) { return accept(id); };
    found = internal::SearchLayer(graph, dist, entry, ef, 0, visited, pred, prefetch);
  } else {
    found = internal::SearchLayer(graph, dist, entry, ef, 0, visited, all, prefetch);
  }
  for (const auto& c : found) out.Push(c.distance, c.id);
}

}  // namespace

void HnswGraph::Search(const DistanceComputer& distances, int64_t num_rows,
                       const SubIndexSearchParams& params, const RowPredicate& accept,
                       TopK& out) const {
  if (num_nodes() == 0 || max_level_ < 0) return;
  // SQ codes (IVF_HNSW_SQ) are scored without a virtual call, and prefetched.
  if (const auto* sq = dynamic_cast<const SqDistanceComputer*>(&distances)) {
    SearchGraph(
        *this, [sq](uint32_t id) { return sq->Score(id); }, [sq](uint32_t id) { sq->Prefetch(id); },
        params, accept, out);
    return;
  }
  SearchGraph(
      *this, [&distances](uint32_t id) { return distances.Distance(id); }, [](uint32_t) {}, params,
      accept, out);
}

}  // namespace lancedb::index::vector
