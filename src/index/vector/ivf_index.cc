// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/ivf_index.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "array/half.h"
#include "index/vector/binary_vectors.h"
#include "index/vector/kmeans.h"
#include "index/vector/lance_heap.h"
#include "index/vector/lance_hnsw_graph.h"
#include "index/vector/lance_pq_storage.h"

namespace lancedb::index::vector {

int64_t IvfIndex::num_rows() const {
  int64_t n = 0;
  for (const auto& p : partitions_) n += static_cast<int64_t>(p.row_ids.size());
  return n;
}

std::vector<uint32_t> IvfIndex::FindPartitions(std::span<const float> query, size_t nprobes) const {
  DistanceType metric = IndexMetric(distance_type_);
  int64_t p = num_partitions();
  std::vector<Neighbor> d(p);
  std::vector<uint8_t> packed;
  if (metric == DistanceType::kHamming) packed = PackByteFloats(query.data(), dim_);
  for (int64_t i = 0; i < p; ++i) {
    const float* c = &centroids_[i * dim_];
    float distance = metric == DistanceType::kHamming ? HammingToByteFloats(packed.data(), c, dim_)
                                                      : Distance(metric, query.data(), c, dim_);
    if (style_.as_lancedb && metric != DistanceType::kHamming) {
      distance = metric == DistanceType::kDot ? 1.0f - LanceDot(query.data(), c, dim_)
                                              : LanceL2(query.data(), c, dim_);
    }
    d[i] = {distance, static_cast<uint64_t>(i)};
  }
  size_t n = std::min<size_t>(nprobes, static_cast<size_t>(p));
  std::partial_sort(d.begin(), d.begin() + n, d.end());
  std::vector<uint32_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint32_t>(d[i].row_id);
  return out;
}

Result<std::vector<float>> IvfIndex::PrepareQuery(std::span<const float> query) const {
  if (query.size() != dim_) {
    return Status::InvalidArgument("Query vector has dimension " + std::to_string(query.size()) +
                                   " but the index has dimension " + std::to_string(dim_));
  }
  for (float v : query) {
    if (!std::isfinite(v)) return Status::InvalidArgument("Query vector contains NaN or infinity");
  }
  if (distance_type_ == DistanceType::kHamming && !AreByteFloats(query.data(), query.size())) {
    return Status::InvalidArgument("A hamming query vector must hold uint8 values (0..255)");
  }
  std::vector<float> q(query.begin(), query.end());
  if (distance_type_ == DistanceType::kCosine) {
    if (style_.as_lancedb) {
      LanceNormalize(q);
      if (style_.half_precision) {
        std::vector<uint16_t> halves(q.size());
        array::FloatToHalf(q, std::span(halves));
        array::HalfToFloat(halves, std::span(q));
      }
    } else {
      NormalizeRows(q.data(), 1, dim_);
    }
  }
  return q;
}

std::vector<Neighbor> IvfIndex::SearchPartitions(std::span<const float> q, size_t k,
                                                 const IvfSearchParams& params) const {
  TopK top(k);
  SubIndexSearchParams sub{k, params.ef};
  for (uint32_t p : FindPartitions(q, std::max<size_t>(params.nprobes, 1))) {
    const IvfPartition& part = partitions_[p];
    if (part.row_ids.empty()) continue;
    auto dc = part.storage->QueryComputer(q);
    RowPredicate accept;
    if (params.accept) {
      accept = [&](int64_t r) { return params.accept(part.row_ids[r]); };
    }
    TopK local(k);
    part.sub_index->Search(*dc, static_cast<int64_t>(part.row_ids.size()), sub, accept, local);
    for (const auto& n : local.Sorted()) top.Push(n.distance, part.row_ids[n.row_id]);
  }
  return top.Sorted();
}

std::vector<Neighbor> IvfIndex::SearchPartitionsAsLance(std::span<const float> q, size_t k,
                                                        const IvfSearchParams& params) const {
  LanceHeap all(k);
  std::vector<Neighbor> found;  // the HNSW partitions' results
  std::vector<float> all_rows;
  // The distance as the query reports it (the query layer adds 1 to dot distances).
  auto in_range = [&](float d) {
    float reported = d;
    if (distance_type_ == DistanceType::kDot) reported = d + 1.0f;
    if (distance_type_ == DistanceType::kCosine && style_.cosine == CosineReport::kHalved) {
      reported = ToUserDistance(distance_type_, d);
    }
    return !(reported < params.lower_bound) && reported < params.upper_bound;
  };
  constexpr int64_t kBlock = 64;
  float d[kBlock];
  for (uint32_t p : FindPartitions(q, std::max<size_t>(params.nprobes, 1))) {
    const IvfPartition& part = partitions_[p];
    const auto rows = static_cast<int64_t>(part.row_ids.size());
    if (rows == 0) continue;
    auto dc = part.storage->QueryComputer(q);
    if (sub_index_type_ == SubIndexType::kHnsw) {
      // Each of LanceDB's HNSW partitions hands on its own best k; the query keeps the best k
      // of them all by (distance, row id).
      for (const auto& n : SearchLanceHnsw(part, *dc, k, params, in_range)) {
        found.push_back({n.distance, part.row_ids[n.row_id]});
      }
      continue;
    }
    // LanceDB keeps one top-k for all the probed partitions (not one per partition): the rows
    // of each partition in turn, in storage order, each replacing the farthest row kept when
    // strictly closer. Which of several equally distant rows survive depends on that order.
    if (!params.accept) {
      all_rows.resize(static_cast<size_t>(rows));
      if (dc->LanceScanAll(k, all_rows.data())) {
        for (int64_t r = 0; r < rows; ++r) {
          if (in_range(all_rows[r])) all.Offer(all_rows[r], part.row_ids[r]);
        }
        continue;
      }
    }
    for (int64_t b = 0; b < rows; b += kBlock) {
      const int64_t n = std::min(kBlock, rows - b);
      dc->Distances(b, n, d);
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t id = part.row_ids[b + i];
        if (in_range(d[i]) && (!params.accept || params.accept(id))) all.Offer(d[i], id);
      }
    }
  }
  // LanceDB sorts the results by (distance, row id).
  std::vector<Neighbor> out = all.entries();
  out.insert(out.end(), found.begin(), found.end());
  const size_t n = std::min(k, out.size());
  std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n), out.end());
  out.resize(n);
  return out;
}

std::vector<Neighbor> IvfIndex::SearchLanceHnsw(const IvfPartition& part,
                                                const DistanceComputer& distances, size_t k,
                                                const IvfSearchParams& params,
                                                const std::function<bool(float)>& in_range) {
  const auto* graph = dynamic_cast<const LanceHnswGraph*>(part.sub_index.get());
  if (graph == nullptr) return {};
  LanceHnswGraph::Query query;
  query.k = k;
  // LanceDB's default breadth: 1.5 times the rows asked of a partition (k * refine_factor).
  query.ef = std::max(params.ef > 0 ? params.ef : k + k / 2, k);
  if (params.accept) {
    query.accept = [&](int64_t r) { return params.accept(part.row_ids[r]); };
  }
  if (params.lower_bound > -std::numeric_limits<float>::infinity() ||
      params.upper_bound < std::numeric_limits<float>::infinity()) {
    query.in_range = in_range;
  }
  return graph->SearchAsLance(distances, query);
}

Result<std::vector<Neighbor>> IvfIndex::Search(std::span<const float> query,
                                               const IvfSearchParams& params) const {
  LANCEDB_ASSIGN_OR_RETURN(std::vector<float> q, PrepareQuery(query));
  bool refine = params.refine_factor > 0 && params.exact_distance;
  size_t k = refine ? params.k * params.refine_factor : params.k;
  if (style_.as_lancedb && sub_index_type_ == SubIndexType::kHnsw && params.ef > 0 &&
      params.ef < k) {
    return Status::InvalidArgument("ef must be greater than or equal to k: ef is " +
                                   std::to_string(params.ef) + ", k (limit * refine_factor) is " +
                                   std::to_string(k));
  }
  std::vector<Neighbor> out =
      style_.as_lancedb ? SearchPartitionsAsLance(q, k, params) : SearchPartitions(q, k, params);
  if (refine) {
    TopK exact(params.k);
    for (const auto& n : out) exact.Push(params.exact_distance(n.row_id), n.row_id);
    return exact.Sorted();
  }
  if (style_.cosine == CosineReport::kAsFound) return out;
  for (auto& n : out) n.distance = ToUserDistance(distance_type_, n.distance);
  return out;
}

}  // namespace lancedb::index::vector
