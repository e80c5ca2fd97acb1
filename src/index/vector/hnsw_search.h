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
/// distance. `dist(id)` returns the distance from the query to node id.
template <typename DistFn, typename AcceptFn>
std::vector<Candidate> SearchLayer(const HnswGraph& graph, DistFn&& dist,
                                   const std::vector<Candidate>& entries, size_t ef, int level,
                                   VisitedSet& visited, AcceptFn&& accept) {
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> frontier;
  std::priority_queue<Candidate> results;  // max-heap: worst on top
  visited.Reset();
  for (const auto& e : entries) {
    if (!visited.Insert(e.id)) continue;
    frontier.push(e);
    if (accept(e.id)) results.push(e);
  }
  while (results.size() > ef) results.pop();
  while (!frontier.empty()) {
    Candidate c = frontier.top();
    if (results.size() >= ef && c.distance > results.top().distance) break;
    frontier.pop();
    for (uint32_t nb : graph.Neighbors(c.id, level)) {
      if (!visited.Insert(nb)) continue;
      float d = dist(nb);
      if (results.size() < ef || d < results.top().distance) {
        frontier.push({d, nb});
        if (accept(nb)) {
          results.push({d, nb});
          if (results.size() > ef) results.pop();
        }
      }
    }
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

}  // namespace lancedb::index::vector::internal
