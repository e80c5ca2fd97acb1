// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/ivf_index.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "index/vector/kmeans.h"

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
  for (int64_t i = 0; i < p; ++i) {
    d[i] = {Distance(metric, query.data(), &centroids_[i * dim_], dim_), static_cast<uint64_t>(i)};
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
  std::vector<float> q(query.begin(), query.end());
  if (distance_type_ == DistanceType::kCosine) NormalizeRows(q.data(), 1, dim_);
  return q;
}

Result<std::vector<Neighbor>> IvfIndex::Search(std::span<const float> query,
                                               const IvfSearchParams& params) const {
  LANCEDB_ASSIGN_OR_RETURN(std::vector<float> q, PrepareQuery(query));
  bool refine = params.refine_factor > 0 && params.exact_distance;
  size_t k = refine ? params.k * params.refine_factor : params.k;
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
  std::vector<Neighbor> out = top.Sorted();
  if (refine) {
    TopK exact(params.k);
    for (const auto& n : out) exact.Push(params.exact_distance(n.row_id), n.row_id);
    return exact.Sorted();
  }
  for (auto& n : out) n.distance = ToUserDistance(distance_type_, n.distance);
  return out;
}

}  // namespace lancedb::index::vector
