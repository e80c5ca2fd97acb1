// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/hnsw_builder.h"

#include <algorithm>
#include <cmath>

#include "index/vector/hnsw_search.h"
#include "index/vector/random.h"

namespace lancedb::index::vector {
namespace {

using internal::Candidate;

/// The neighbour-selection heuristic (paper Algorithm 4): keep a candidate only when it is
/// closer to the base node than to every neighbour kept so far. `sorted` is by distance.
std::vector<uint32_t> SelectNeighbors(const FlatStorage& s, const std::vector<Candidate>& sorted,
                                      size_t max_count) {
  std::vector<uint32_t> kept;
  for (const auto& c : sorted) {
    if (kept.size() >= max_count) break;
    bool good = true;
    for (uint32_t k : kept) {
      if (s.Distance(s.row(c.id), k) < c.distance) {
        good = false;
        break;
      }
    }
    if (good) kept.push_back(c.id);
  }
  return kept;
}

int RandomLevel(Rng& rng, double level_mult, int top_level) {
  double u = 1.0 - rng.UniformDouble();  // (0, 1]
  int level = static_cast<int>(-std::log(u) * level_mult);
  return std::min(level, top_level);
}

void Connect(HnswGraph& g, const FlatStorage& s, uint32_t node, int level,
             const std::vector<uint32_t>& neighbors, size_t capacity) {
  g.SetNeighbors(node, level, neighbors);
  for (uint32_t nb : neighbors) {
    auto current = g.Neighbors(nb, level);
    std::vector<uint32_t> list(current.begin(), current.end());
    list.push_back(node);
    if (list.size() > capacity) {
      std::vector<Candidate> cands;
      cands.reserve(list.size());
      const float* base = s.row(nb);
      for (uint32_t x : list) cands.push_back({s.Distance(base, x), x});
      std::sort(cands.begin(), cands.end());
      list = SelectNeighbors(s, cands, capacity);
    }
    g.SetNeighbors(nb, level, list);
  }
}

}  // namespace

std::unique_ptr<HnswGraph> BuildHnsw(const FlatStorage& s, const HnswParams& params) {
  int64_t n = s.num_rows();
  size_t m = std::max<size_t>(params.m, 2);
  auto graph = std::make_unique<HnswGraph>(n, m);
  if (n == 0) return graph;
  Rng rng(params.seed);
  double level_mult = 1.0 / std::log(static_cast<double>(m));
  internal::VisitedSet visited(n);
  auto all = [](uint32_t) { return true; };
  size_t ef_c = std::max(params.ef_construction, m);
  for (int64_t i = 0; i < n; ++i) {
    auto node = static_cast<uint32_t>(i);
    int level = RandomLevel(rng, level_mult, std::max(params.top_level, 0));
    graph->SetLevel(node, level);
    if (i == 0) {
      graph->SetEntryPoint(node, level);
      continue;
    }
    const float* q = s.row(i);
    auto dist = [&](uint32_t id) { return s.Distance(q, id); };
    uint32_t ep = graph->entry_point();
    std::vector<Candidate> entry = {{dist(ep), ep}};
    for (int l = graph->max_level(); l > level; --l) {
      entry = internal::SearchLayer(*graph, dist, entry, 1, l, visited, all);
    }
    for (int l = std::min(level, graph->max_level()); l >= 0; --l) {
      std::vector<Candidate> found =
          internal::SearchLayer(*graph, dist, entry, ef_c, l, visited, all);
      size_t capacity = l == 0 ? 2 * m : m;
      Connect(*graph, s, node, l, SelectNeighbors(s, found, capacity), capacity);
      entry = std::move(found);
    }
    if (level > graph->max_level()) graph->SetEntryPoint(node, level);
  }
  return graph;
}

}  // namespace lancedb::index::vector
