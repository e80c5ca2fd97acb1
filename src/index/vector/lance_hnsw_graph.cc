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

Result<std::unique_ptr<LanceHnswGraph>> LanceHnswGraph::Make(uint32_t entry_point,
                                                             LanceHnswParams params,
                                                             std::vector<LanceHnswLevel> levels) {
  auto bad = [](const std::string& what) { return Status::InvalidArgument("HNSW graph " + what); };
  while (!levels.empty() && levels.back().nodes.empty()) levels.pop_back();
  const size_t nodes = levels.empty() ? 0 : levels[0].nodes.size();
  if (nodes != 0 && entry_point >= nodes) return bad("entry point is not a node");
  if (levels.size() > params.max_level) return bad("more levels than max_level");
  auto graph = std::unique_ptr<LanceHnswGraph>(new LanceHnswGraph());
  graph->entry_point_ = entry_point;
  graph->params_ = params;
  for (size_t l = 0; l < levels.size(); ++l) {
    const LanceHnswLevel& level = levels[l];
    if (level.offsets.size() != level.nodes.size() + 1 || level.offsets.front() != 0 ||
        level.offsets.back() != level.neighbors.size() ||
        level.distances.size() != level.neighbors.size() ||
        !std::is_sorted(level.offsets.begin(), level.offsets.end())) {
      return bad("level " + std::to_string(l) + " has inconsistent lists");
    }
    std::unordered_map<uint32_t, uint32_t> positions;
    for (size_t i = 0; i < level.nodes.size(); ++i) {
      const uint32_t node = level.nodes[i];
      if (l == 0 ? node != i
                 : node >= nodes || !positions.emplace(node, static_cast<uint32_t>(i)).second) {
        return bad(l == 0 ? "level 0 out of node order"
                          : "level " + std::to_string(l) + " lists a node twice or out of range");
      }
    }
    for (uint32_t n : level.neighbors) {
      if (n >= nodes) return bad("neighbour out of range");
    }
    if (l > 0) graph->positions_.push_back(std::move(positions));
  }
  graph->levels_ = std::move(levels);
  return graph;
}

Result<std::unique_ptr<LanceHnswGraph>> LanceHnswGraph::Read(const array::ArrayData& vector_ids,
                                                             const array::ArrayData& neighbors,
                                                             const array::ArrayData* distances,
                                                             int64_t start, int64_t length,
                                                             const std::string& metadata,
                                                             size_t num_rows) {
  if (length == 0) {
    if (num_rows != 0) return Corrupt("missing for a partition of " + std::to_string(num_rows));
    return std::unique_ptr<LanceHnswGraph>(new LanceHnswGraph());
  }
  json meta = json::parse(metadata, nullptr, /*allow_exceptions=*/false);
  if (!meta.is_object() || !meta.value("entry_point", json()).is_number_unsigned() ||
      !meta.value("level_offsets", json()).is_array()) {
    return Corrupt("metadata lacks entry_point or level_offsets: " + metadata);
  }
  LanceHnswParams params;
  const json& p = meta.value("params", json());
  if (p.is_object()) {
    auto get = [&](const char* key, size_t* out) {
      if (p.contains(key) && p[key].is_number_unsigned()) *out = p[key].get<size_t>();
    };
    get("max_level", &params.max_level);
    get("m", &params.m);
    get("ef_construction", &params.ef_construction);
    params.prefetch_distance.reset();
    if (p.contains("prefetch_distance") && p["prefetch_distance"].is_number_unsigned()) {
      params.prefetch_distance = p["prefetch_distance"].get<size_t>();
    }
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
  params.max_level = std::max(params.max_level, offsets.size() - 1);
  if (start < 0 || start + length > vector_ids.length || vector_ids.length != neighbors.length ||
      neighbors.children.size() != 1 || vector_ids.type->bit_width() != 32 ||
      neighbors.children[0]->type->bit_width() != 32) {
    return Corrupt("columns __vector_id / __neighbors are missing or malformed");
  }
  const bool with_distances = distances != nullptr && distances->length == neighbors.length &&
                              distances->children.size() == 1 &&
                              distances->children[0]->type->bit_width() == 32;
  const auto* ids = vector_ids.GetValues<uint32_t>(1);
  const auto* values = neighbors.children[0]->GetValues<uint32_t>(1);
  const float* dist_values = with_distances ? distances->children[0]->GetValues<float>(1) : nullptr;
  if (static_cast<size_t>(offsets[1]) != num_rows) {
    return Corrupt("has " + std::to_string(offsets[1]) + " nodes for a partition of " +
                   std::to_string(num_rows) + " rows");
  }
  std::vector<LanceHnswLevel> levels(offsets.size() - 1);
  for (size_t l = 0; l + 1 < offsets.size(); ++l) {
    LanceHnswLevel& level = levels[l];
    for (int64_t r = offsets[l]; r < offsets[l + 1]; ++r) {
      level.nodes.push_back(ids[start + r]);
      auto [b, e] = neighbors.GetListRange(start + r);
      const auto [db, de] =
          with_distances ? distances->GetListRange(start + r) : std::pair<int64_t, int64_t>(0, 0);
      if (with_distances && de - db != e - b) return Corrupt("distances do not match neighbours");
      for (int64_t i = b; i < e; ++i) {
        level.neighbors.push_back(values[i]);
        level.distances.push_back(with_distances ? dist_values[db + (i - b)] : 0.0f);
      }
      level.offsets.push_back(static_cast<uint32_t>(level.neighbors.size()));
    }
  }
  auto graph = Make(meta["entry_point"].get<uint32_t>(), params, std::move(levels));
  if (!graph.ok()) {
    return Status::Corruption("LanceDB vector index file index.idx: " + graph.status().message());
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
  std::vector<uint32_t> fresh;
  visited[entry.id] = 1;
  candidates.Push(entry);
  if (accepts(entry.id, entry.distance)) results.Push(entry);
  auto furthest = [&] {
    return results.empty() ? std::numeric_limits<float>::infinity() : results.top().distance;
  };
  while (!candidates.empty()) {
    const HeapNode current = candidates.Pop();
    if (current.distance > furthest() && results.size() == ef) break;
    const LanceHnswLevel& bottom = levels_[0];
    if (!candidates.empty()) {
      // The next node to expand is often the next top: load its neighbour list meanwhile.
      const uint32_t next = candidates.top().id;
      const uint32_t* list = bottom.neighbors.data() + bottom.offsets[next];
      for (uint32_t i = 0; i < bottom.offsets[next + 1] - bottom.offsets[next]; i += 16) {
        __builtin_prefetch(list + i);
      }
    }
    // The unvisited neighbours, marked and prefetched before the first is scored (the same
    // scores in the same order as marking and scoring each when met; their loads overlap).
    fresh.clear();
    for (uint32_t i = bottom.offsets[current.id]; i < bottom.offsets[current.id + 1]; ++i) {
      const uint32_t n = bottom.neighbors[i];
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
    for (size_t l = levels_.size() - 1; l >= 1; --l) {
      const LanceHnswLevel& level = levels_[l];
      while (true) {
        auto it = positions_[l - 1].find(ep.id);
        if (it == positions_[l - 1].end()) break;
        bool moved = false;
        for (uint32_t i = level.offsets[it->second]; i < level.offsets[it->second + 1]; ++i) {
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
