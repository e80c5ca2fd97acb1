// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Layout read here: docs/format/lance-vector-index.md, "IVF_HNSW_*".

#include "index/vector/lance_hnsw_graph.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace lancedb::index::vector {
namespace {

using nlohmann::json;

Status Corrupt(const std::string& what) {
  return Status::Corruption("LanceDB vector index file index.idx: HNSW graph " + what);
}

}  // namespace

Result<std::unique_ptr<LanceHnswGraph>> LanceHnswGraph::Read(const array::ArrayData& vector_ids,
                                                             const array::ArrayData& neighbors,
                                                             int64_t start, int64_t length,
                                                             const std::string& metadata,
                                                             size_t num_rows) {
  auto graph = std::unique_ptr<LanceHnswGraph>(new LanceHnswGraph());
  if (length == 0) {
    if (num_rows != 0) return Corrupt("missing for a partition of " + std::to_string(num_rows));
    return graph;
  }
  json meta = json::parse(metadata, nullptr, /*allow_exceptions=*/false);
  if (!meta.is_object() || !meta.value("entry_point", json()).is_number_unsigned() ||
      !meta.value("level_offsets", json()).is_array()) {
    return Corrupt("metadata lacks entry_point or level_offsets: " + metadata);
  }
  std::vector<int64_t> offsets;
  for (const auto& v : meta["level_offsets"]) {
    if (!v.is_number_unsigned()) return Corrupt("level offset is not a number");
    offsets.push_back(v.get<int64_t>());
  }
  if (offsets.size() < 2 || offsets.front() != 0 || offsets.back() != length ||
      !std::is_sorted(offsets.begin(), offsets.end())) {
    return Corrupt("level offsets do not cover its " + std::to_string(length) + " rows");
  }
  if (start < 0 || start + length > vector_ids.length || vector_ids.length != neighbors.length ||
      neighbors.children.size() != 1 || vector_ids.type->bit_width() != 32 ||
      neighbors.children[0]->type->bit_width() != 32) {
    return Corrupt("columns __vector_id / __neighbors are missing or malformed");
  }
  const auto* ids = vector_ids.GetValues<uint32_t>(1);
  const auto* values = neighbors.children[0]->GetValues<uint32_t>(1);
  const size_t nodes = static_cast<size_t>(offsets[1]);
  if (nodes != num_rows) {
    return Corrupt("has " + std::to_string(nodes) + " nodes for a partition of " +
                   std::to_string(num_rows) + " rows");
  }
  graph->entry_point_ = meta["entry_point"].get<uint32_t>();
  if (graph->entry_point_ >= nodes) return Corrupt("entry point out of range");
  auto valid = [&](uint32_t n) { return n < nodes; };
  // Level 0 lists every node once, in node order.
  graph->bottom_offsets_.assign(1, 0);
  for (int64_t r = 0; r < offsets[1]; ++r) {
    if (ids[start + r] != static_cast<uint32_t>(r)) return Corrupt("level 0 out of node order");
    auto [b, e] = neighbors.GetListRange(start + r);
    for (int64_t i = b; i < e; ++i) {
      if (!valid(values[i])) return Corrupt("neighbour out of range");
      graph->bottom_.push_back(values[i]);
    }
    graph->bottom_offsets_.push_back(static_cast<uint32_t>(graph->bottom_.size()));
  }
  for (size_t l = 1; l + 1 < offsets.size(); ++l) {
    if (offsets[l] == offsets[l + 1]) break;  // the levels above the graph's height are empty
    Level level;
    for (int64_t r = offsets[l]; r < offsets[l + 1]; ++r) {
      const uint32_t node = ids[start + r];
      if (!valid(node)) return Corrupt("node out of range");
      auto [b, e] = neighbors.GetListRange(start + r);
      const auto first = static_cast<uint32_t>(level.neighbors.size());
      for (int64_t i = b; i < e; ++i) {
        if (!valid(values[i])) return Corrupt("neighbour out of range");
        level.neighbors.push_back(values[i]);
      }
      level.ranges[node] = {first, static_cast<uint32_t>(level.neighbors.size())};
    }
    graph->upper_.push_back(std::move(level));
  }
  return graph;
}

std::vector<HeapNode> LanceHnswGraph::Beam(const DistanceComputer& distances, HeapNode entry,
                                           const Query& query,
                                           const std::vector<uint8_t>* passing) const {
  const size_t ef = query.ef;
  auto accepts = [&](uint32_t node, float d) {
    return (passing == nullptr || (*passing)[node]) && (!query.in_range || query.in_range(d));
  };
  std::vector<uint8_t> visited(num_nodes(), 0);
  RustHeap</*kMin=*/true> candidates;
  RustHeap</*kMin=*/false> results;
  visited[entry.id] = 1;
  candidates.Push(entry);
  if (accepts(entry.id, entry.distance)) results.Push(entry);
  auto furthest = [&] {
    return results.empty() ? std::numeric_limits<float>::infinity() : results.top().distance;
  };
  std::vector<uint32_t> fresh;  // the unvisited neighbours of the current node, in list order
  while (!candidates.empty()) {
    const HeapNode current = candidates.Pop();
    if (current.distance > furthest() && results.size() == ef) break;
    if (!candidates.empty()) {
      // The next node to expand is often the next top: load its neighbour list meanwhile.
      const uint32_t next = candidates.top().id;
      const uint32_t* list = bottom_.data() + bottom_offsets_[next];
      for (uint32_t i = 0; i < bottom_offsets_[next + 1] - bottom_offsets_[next]; i += 16) {
        __builtin_prefetch(list + i);
      }
    }
    // Mark and prefetch them all first, then score them in the same order: their rows load
    // in parallel instead of one cache miss after another.
    fresh.clear();
    for (uint32_t i = bottom_offsets_[current.id]; i < bottom_offsets_[current.id + 1]; ++i) {
      const uint32_t n = bottom_[i];
      if (visited[n]) continue;
      visited[n] = 1;
      distances.Prefetch(n);
      fresh.push_back(n);
    }
    for (const uint32_t n : fresh) {
      const float d = distances.Distance(n);
      if (!(d <= furthest() || results.size() < ef)) continue;
      if (accepts(n, d)) {
        if (results.size() < ef) {
          results.Push({d, n});
        } else if (d < results.top().distance) {
          results.Pop();
          results.Push({d, n});
        }
      }
      candidates.Push({d, n});
    }
  }
  return std::move(results).IntoSortedVec();
}

std::vector<HeapNode> LanceHnswGraph::Flat(const DistanceComputer& distances, const Query& query,
                                           const std::vector<uint8_t>& passing) const {
  RustHeap</*kMin=*/false> heap;
  for (uint32_t n = 0; n < num_nodes(); ++n) {
    if (!passing[n]) continue;
    const float d = distances.Distance(n);
    if (query.in_range && !query.in_range(d)) continue;
    if (heap.size() < query.k) {
      heap.Push({d, n});
    } else if (d < heap.top().distance) {
      heap.Pop();
      heap.Push({d, n});
    }
  }
  return std::move(heap).IntoSortedVec();
}

std::vector<Neighbor> LanceHnswGraph::SearchAsLance(const DistanceComputer& distances,
                                                    const Query& query) const {
  const size_t nodes = num_nodes();
  if (nodes == 0 || query.k == 0) return {};
  std::vector<uint8_t> passing;
  size_t remained = nodes;
  if (query.accept) {
    passing.resize(nodes);
    remained = 0;
    for (size_t n = 0; n < nodes; ++n) {
      passing[n] = query.accept(static_cast<int64_t>(n)) ? 1 : 0;
      remained += passing[n];
    }
  }
  std::vector<HeapNode> found;
  if (remained < nodes && remained < nodes * 10 / 100) {
    found = Flat(distances, query, passing);
  } else {
    HeapNode ep{distances.Distance(entry_point_), entry_point_};
    for (size_t l = upper_.size(); l >= 1; --l) {
      const Level& level = upper_[l - 1];
      while (true) {
        auto it = level.ranges.find(ep.id);
        if (it == level.ranges.end()) break;
        bool moved = false;
        for (uint32_t i = it->second.first; i < it->second.second; ++i) {
          const float d = distances.Distance(level.neighbors[i]);
          if (d < ep.distance) {
            ep = {d, level.neighbors[i]};
            moved = true;
          }
        }
        if (!moved) break;
      }
    }
    found = Beam(distances, ep, query, remained < nodes ? &passing : nullptr);
  }
  std::vector<Neighbor> out;
  for (size_t i = 0; i < found.size() && i < query.k; ++i) {
    out.push_back({found[i].distance, found[i].id});
  }
  return out;
}

void LanceHnswGraph::Search(const DistanceComputer& distances, int64_t /*num_rows*/,
                            const SubIndexSearchParams& params, const RowPredicate& accept,
                            TopK& out) const {
  Query query;
  query.k = params.k;
  query.ef = std::max(params.ef > 0 ? params.ef : params.k + params.k / 2, params.k);
  query.accept = accept;
  for (const auto& n : SearchAsLance(distances, query)) out.Push(n.distance, n.row_id);
}

}  // namespace lancedb::index::vector
