// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Internal: the greedy beam search over one HNSW level, shared by insertion and queries.

#pragma once

#include <algorithm>
#include <cstdint>
#include <queue>
#include <vector>

#include "index/vector/hnsw_index.h"

namespace lancedb::index::vector::internal {

struct Candidate {
  float distance;
  uint32_t id;
  bool operator<(const Candidate& o) const {
    return distance < o.distance || (distance == o.distance && id < o.id);
  }
  bool operator>(const Candidate& o) const { return o < *this; }
};

/// A visited set that is cheap to reset between searches.
class VisitedSet {
 public:
  explicit VisitedSet(int64_t n) : tags_(static_cast<size_t>(n), 0) {}
  /// Make room for ids below `n` (new ids start unmarked).
  void Grow(int64_t n) {
    if (static_cast<size_t>(n) > tags_.size()) tags_.resize(static_cast<size_t>(n), 0);
  }
  void Reset() {
    if (++epoch_ == 0) {
      std::fill(tags_.begin(), tags_.end(), 0);
      epoch_ = 1;
    }
  }
  /// Mark `id`; return true when it was not marked yet.
  bool Insert(uint32_t id) {
    if (tags_[id] == epoch_) return false;
    tags_[id] = epoch_;
    return true;
  }

 private:
  std::vector<uint16_t> tags_;
  uint16_t epoch_ = 0;
};

/// Beam search on `level` from `entries` keeping `ef` results; only nodes for which
/// accept(id) holds enter the results (all nodes are traversed). Returns results sorted by
/// distance. `dist(id)` returns the distance from the query to node id; `prefetch(id)` hints
/// that dist(id) is about to be called: the unvisited neighbours of an expanded node are all
/// prefetched before the first of them is scored, so their (random) rows load in parallel.
template <typename DistFn, typename AcceptFn, typename PrefetchFn>
std::vector<Candidate> SearchLayer(const HnswGraph& graph, DistFn&& dist,
                                   const std::vector<Candidate>& entries, size_t ef, int level,
                                   VisitedSet& visited, AcceptFn&& accept, PrefetchFn&& prefetch) {
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> frontier;
  std::priority_queue<Candidate> results;  // max-heap: worst on top
  visited.Reset();
  for (const auto& e : entries) {
    if (!visited.Insert(e.id)) continue;
    frontier.push(e);
    if (accept(e.id)) results.push(e);
  }
  while (results.size() > ef) results.pop();
  std::vector<uint32_t> fresh;
  fresh.reserve(2 * graph.m());
  while (!frontier.empty()) {
    Candidate c = frontier.top();
    if (results.size() >= ef && c.distance > results.top().distance) break;
    frontier.pop();
    // Same scores in the same order as scoring each neighbour when it is met (a node listed
    // twice is skipped either way); marking them all first lets their loads overlap.
    fresh.clear();
    for (uint32_t nb : graph.Neighbors(c.id, level)) {
      if (!visited.Insert(nb)) continue;
      prefetch(nb);
      fresh.push_back(nb);
    }
    for (uint32_t nb : fresh) {
      float d = dist(nb);
      if (results.size() < ef || d < results.top().distance) {
        frontier.push({d, nb});
        if (accept(nb)) {
          results.push({d, nb});
          if (results.size() > ef) results.pop();
        }
      }
    }
    // The next node to expand is known now: start loading its neighbour list.
    if (level == 0 && !frontier.empty()) graph.PrefetchNeighbors(frontier.top().id);
  }
  std::vector<Candidate> out;
  out.reserve(results.size());
  while (!results.empty()) {
    out.push_back(results.top());
    results.pop();
  }
  std::reverse(out.begin(), out.end());
  return out;
}

/// SearchLayer without prefetching.
template <typename DistFn, typename AcceptFn>
std::vector<Candidate> SearchLayer(const HnswGraph& graph, DistFn&& dist,
                                   const std::vector<Candidate>& entries, size_t ef, int level,
                                   VisitedSet& visited, AcceptFn&& accept) {
  return SearchLayer(graph, dist, entries, ef, level, visited, accept, [](uint32_t) {});
}

}  // namespace lancedb::index::vector::internal
