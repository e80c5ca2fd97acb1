// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Layout written here: docs/format/lance-vector-index.md, "IVF_HNSW_*".

#include "index/vector/lance_hnsw_write.h"

#include <nlohmann/json.hpp>

#include "array/builder.h"
#include "index/vector/hnsw_builder.h"
#include "index/vector/lance_pq_storage.h"
#include "index/vector/lance_sq_storage.h"

namespace lancedb::index::vector {
namespace {

using nlohmann::ordered_json;

/// Lance's graphs have levels 0 .. kLanceMaxLevel - 1.
constexpr size_t kLanceMaxLevel = 7;

/// The distance Lance records between two nodes: squared L2 (l2; cosine on normalized
/// vectors) or 1 - x.y (dot).
float EdgeDistance(const FlatStorage& vectors, uint32_t from, uint32_t to) {
  const float d = vectors.Distance(vectors.row(from), to);
  return vectors.metric() == DistanceType::kDot ? 1.0f + d : d;
}

/// The graph metadata of one partition, as Lance serializes it.
std::string GraphMetadata(const LanceHnswGraph& graph, const std::vector<uint32_t>& offsets) {
  const LanceHnswParams& p = graph.params();
  ordered_json params = {{"max_level", p.max_level},
                         {"m", p.m},
                         {"ef_construction", p.ef_construction},
                         {"prefetch_distance", nullptr}};
  if (p.prefetch_distance) params["prefetch_distance"] = *p.prefetch_distance;
  ordered_json meta = {
      {"entry_point", graph.entry_point()}, {"params", params}, {"level_offsets", offsets}};
  return meta.dump();
}

}  // namespace

std::unique_ptr<LanceHnswGraph> BuildLanceHnsw(const FlatStorage& vectors,
                                               const HnswParams& params) {
  HnswParams capped = params;
  capped.top_level = static_cast<int>(kLanceMaxLevel) - 1;
  auto graph = BuildHnsw(vectors, capped);
  LanceHnswParams lance;
  lance.max_level = kLanceMaxLevel;
  lance.m = std::max<size_t>(params.m, 2);
  lance.ef_construction = params.ef_construction;
  const auto n = static_cast<uint32_t>(graph->num_nodes());
  std::vector<LanceHnswLevel> levels(n == 0 ? 0 : static_cast<size_t>(graph->max_level()) + 1);
  for (size_t l = 0; l < levels.size(); ++l) {
    LanceHnswLevel& level = levels[l];
    for (uint32_t node = 0; node < n; ++node) {
      if (graph->level(node) < static_cast<int>(l)) continue;
      level.nodes.push_back(node);
      for (uint32_t nb : graph->Neighbors(node, static_cast<int>(l))) {
        level.neighbors.push_back(nb);
        level.distances.push_back(EdgeDistance(vectors, node, nb));
      }
      level.offsets.push_back(static_cast<uint32_t>(level.neighbors.size()));
    }
  }
  // A graph the builder made is consistent by construction.
  return LanceHnswGraph::Make(graph->entry_point(), lance, std::move(levels)).MoveValueUnsafe();
}

HnswParams LanceHnswBuildParams(const IvfIndex& index, HnswParams fallback) {
  for (int64_t p = 0; p < index.num_partitions(); ++p) {
    const auto* g = dynamic_cast<const LanceHnswGraph*>(index.partition(p).sub_index.get());
    if (g != nullptr && g->num_nodes() > 0) {
      fallback.m = g->params().m;
      fallback.ef_construction = g->params().ef_construction;
      break;
    }
  }
  return fallback;
}

Result<std::vector<float>> DecodeLanceStorage(const Quantizer& quantizer,
                                              const PartitionStorage& storage,
                                              std::span<const float> centroid) {
  const auto rows = static_cast<size_t>(storage.num_rows());
  if (const auto* f = dynamic_cast<const FlatStorage*>(&storage)) {
    return std::vector<float>(f->vectors().begin(), f->vectors().end());
  }
  if (const auto* s = dynamic_cast<const LanceSqStorage*>(&storage)) {
    const auto& sq = static_cast<const LanceScalarQuantizer&>(quantizer);
    const double step = (sq.end() - sq.start()) / 255.0;
    std::vector<float> out(s->codes().size());
    for (size_t i = 0; i < out.size(); ++i) {
      out[i] = static_cast<float>(sq.start() + s->codes()[i] * step);
    }
    return out;
  }
  if (const auto* s = dynamic_cast<const LancePqStorage*>(&storage)) {
    const ProductQuantizer& pq = s->pq();
    const size_t m = pq.num_sub_vectors();
    const size_t sub_dim = pq.sub_dim();
    const size_t dim = pq.dim();
    std::vector<float> out(rows * dim);
    for (size_t r = 0; r < rows; ++r) {
      for (size_t sv = 0; sv < m; ++sv) {
        // Column-major bytes; 4-bit codes two a byte, low nibble first.
        size_t code = 0;
        if (pq.num_bits() == 4) {
          const uint8_t byte = s->codes()[(sv / 2) * rows + r];
          code = sv % 2 == 0 ? byte & 0x0f : byte >> 4;
        } else {
          code = s->codes()[sv * rows + r];
        }
        const float* word = pq.codebook().data() + (sv * pq.num_centroids() + code) * sub_dim;
        for (size_t j = 0; j < sub_dim; ++j) {
          const size_t at = sv * sub_dim + j;
          out[r * dim + at] = word[j] + (pq.use_residual() ? centroid[at] : 0.0f);
        }
      }
    }
    return out;
  }
  return Status::NotSupported("Cannot decode this Lance partition storage");
}

Result<LanceHnswColumns> MakeLanceHnswColumns(const IvfIndex& index) {
  LanceHnswColumns out;
  std::vector<uint32_t> ids;
  std::vector<int64_t> list_offsets = {0};
  std::vector<uint32_t> neighbors;
  std::vector<float> distances;
  ordered_json metas = ordered_json::array();
  for (int64_t p = 0; p < index.num_partitions(); ++p) {
    const auto* graph = dynamic_cast<const LanceHnswGraph*>(index.partition(p).sub_index.get());
    if (graph == nullptr) {
      return Status::InvalidArgument("Partition " + std::to_string(p) +
                                     " has no HNSW graph in Lance's form");
    }
    if (graph->num_nodes() == 0) {  // as Lance writes an empty partition
      metas.push_back("");
      out.rows.push_back(0);
      continue;
    }
    const size_t first = ids.size();
    std::vector<uint32_t> level_offsets = {0};
    for (size_t l = 0; l < graph->params().max_level; ++l) {
      if (l < graph->num_levels()) {
        const LanceHnswLevel& level = graph->levels()[l];
        for (size_t i = 0; i < level.nodes.size(); ++i) {
          ids.push_back(level.nodes[i]);
          neighbors.insert(neighbors.end(), level.neighbors.begin() + level.offsets[i],
                           level.neighbors.begin() + level.offsets[i + 1]);
          distances.insert(distances.end(), level.distances.begin() + level.offsets[i],
                           level.distances.begin() + level.offsets[i + 1]);
          list_offsets.push_back(static_cast<int64_t>(neighbors.size()));
        }
      }
      level_offsets.push_back(static_cast<uint32_t>(ids.size() - first));
    }
    metas.push_back(GraphMetadata(*graph, level_offsets));
    out.rows.push_back(level_offsets.back());
  }
  out.vector_ids = array::MakePrimitive(array::uint32(), ids);
  out.neighbors = array::MakeList(array::list(array::uint32()), list_offsets,
                                  array::MakePrimitive(array::uint32(), neighbors));
  out.distances = array::MakeList(array::list(array::float32()), list_offsets,
                                  array::MakePrimitive(array::float32(), distances));
  out.metadata = metas.dump();
  return out;
}

}  // namespace lancedb::index::vector
