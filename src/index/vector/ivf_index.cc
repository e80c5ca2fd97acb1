// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/ivf_index.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_set>

#include "array/half.h"
#include "index/vector/binary_vectors.h"
#include "index/vector/kmeans.h"
#include "index/vector/lance_heap.h"
#include "index/vector/lance_hnsw_graph.h"
#include "index/vector/lance_pq_storage.h"
#include "index/vector/parallel.h"

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
    float distance;
    if (style_.as_lancedb && metric != DistanceType::kHamming) {
      distance = metric == DistanceType::kDot ? 1.0f - LanceDot(query.data(), c, dim_)
                                              : LanceL2(query.data(), c, dim_);
    } else if (metric == DistanceType::kHamming) {
      distance = HammingToByteFloats(packed.data(), c, dim_);
    } else {
      distance = Distance(metric, query.data(), c, dim_);
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
      if (style_.double_precision) {
        LanceNormalizeAsDouble(q);
      } else {
        LanceNormalize(q);
      }
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
  // The distance as the query reports it (the query layer adds 1 to dot distances).
  auto reported = [&](float d) {
    if (distance_type_ == DistanceType::kDot && !style_.dot_as_found) return d + 1.0f;
    if (distance_type_ == DistanceType::kCosine && style_.cosine == CosineReport::kHalved) {
      return ToUserDistance(distance_type_, d);
    }
    return d;
  };
  const std::function<bool(float)> in_range = [&](float d) {
    return !(reported(d) < params.lower_bound) && reported(d) < params.upper_bound;
  };
  const std::function<bool(float)> below_upper = [&](float d) {
    return reported(d) < params.upper_bound;
  };
  // Unbounded, in_range(d) is d < infinity (NaN and infinite distances are never kept).
  const bool bounded = params.lower_bound > -std::numeric_limits<float>::infinity() ||
                       params.upper_bound < std::numeric_limits<float>::infinity();
  constexpr float kInfinity = std::numeric_limits<float>::infinity();
  const std::vector<uint32_t> probes = FindPartitions(q, std::max<size_t>(params.nprobes, 1));

  if (sub_index_type_ == SubIndexType::kHnsw) {
    // Each of LanceDB's HNSW partitions hands on its own best k, each row once (the nearest of
    // a multivector row's vectors; the others are dropped, not replaced); the query keeps the
    // best k of them all by (distance, row id). Partitions are searched independently, on the
    // cores when the walks are long enough to pay for a thread (a thread costs tens of
    // microseconds, a walk of breadth ef about ef microseconds), and merged in probe order.
    std::vector<std::vector<Neighbor>> per_probe(probes.size());
    auto walk = [&](int64_t i) {
      const IvfPartition& part = partitions_[probes[static_cast<size_t>(i)]];
      if (part.row_ids.empty()) return;
      auto dc = part.storage->QueryComputer(q);
      std::unordered_set<uint64_t> seen;
      for (const auto& n : SearchLanceHnsw(part, *dc, k, params, in_range)) {
        const uint64_t row = part.row_ids[n.row_id];
        if (seen.insert(row).second) per_probe[static_cast<size_t>(i)].push_back({n.distance, row});
      }
    };
    const size_t ef = std::max(params.ef > 0 ? params.ef : k + k / 2, k);
    constexpr size_t kParallelWalk = 320;  // sum of the breadths: ef 32 at 10 probes
    static const int kThreads = DefaultNumThreads();
    ParallelFor(static_cast<int64_t>(probes.size()),
                probes.size() > 1 && ef * probes.size() >= kParallelWalk ? kThreads : 1, walk);
    std::vector<Neighbor> found;
    for (auto& part : per_probe) found.insert(found.end(), part.begin(), part.end());
    const size_t n = std::min(k, found.size());
    std::partial_sort(found.begin(), found.begin() + static_cast<std::ptrdiff_t>(n), found.end());
    found.resize(n);
    return found;
  }

  // FLAT / PQ / SQ / RQ: LanceDB keeps one top-k for all the probed partitions (not one per
  // partition): the rows of each partition in turn (probe order), in storage order, each
  // replacing the farthest row kept when strictly closer, so which of several equally distant
  // rows survive depends on that order. The distances, the costly part, are computed first, a
  // partition per task (long scans on several threads); the rows are then offered in that
  // order, so the result does not depend on the number of threads. A storage whose scan
  // consults the top-k (multi-bit RaBitQ: OfferAsLance) scans in the offering pass.
  struct Scanned {
    std::unique_ptr<DistanceComputer> dc;
    std::vector<float> distances;  // NaN: not accepted or out of range
  };
  std::vector<Scanned> scans(probes.size());
  auto scan = [&](int64_t i) {
    const IvfPartition& part = partitions_[probes[static_cast<size_t>(i)]];
    const auto rows = static_cast<int64_t>(part.row_ids.size());
    if (rows == 0) return;
    Scanned& out = scans[static_cast<size_t>(i)];
    out.dc = part.storage->QueryComputer(q);
    if (out.dc->ScansIntoHeap()) return;
    std::vector<float>& d = out.distances;
    d.resize(static_cast<size_t>(rows));
    if (params.accept || !out.dc->LanceScanAll(k, d.data())) {
      constexpr int64_t kBlock = 256;
      for (int64_t b = 0; b < rows; b += kBlock) {
        out.dc->Distances(b, std::min(kBlock, rows - b), d.data() + b);
      }
    }
    constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
    for (int64_t r = 0; r < rows; ++r) {
      float& x = d[static_cast<size_t>(r)];
      if (!(bounded ? in_range(x) : x < kInfinity) ||
          (params.accept && !params.accept(part.row_ids[static_cast<size_t>(r)]))) {
        x = kNaN;
      }
    }
  };
  size_t rows = 0;
  for (uint32_t p : probes) rows += partitions_[p].row_ids.size();
  constexpr size_t kParallelRows = 16384;
  static const int kThreads = DefaultNumThreads();
  ParallelFor(static_cast<int64_t>(probes.size()), rows >= kParallelRows ? kThreads : 1, scan);
  LanceHeap all(k);
  for (size_t i = 0; i < probes.size(); ++i) {
    const IvfPartition& part = partitions_[probes[i]];
    Scanned& s = scans[i];
    if (s.dc == nullptr) continue;
    if (s.dc->ScansIntoHeap()) {
      RowPredicate accept;
      if (params.accept) {
        accept = [&](int64_t r) { return params.accept(part.row_ids[static_cast<size_t>(r)]); };
      }
      s.dc->OfferAsLance(accept, in_range, below_upper, part.row_ids, all);
      continue;
    }
    for (size_t r = 0; r < s.distances.size(); ++r) {
      if (s.distances[r] < kInfinity) all.Offer(s.distances[r], part.row_ids[r]);
    }
  }
  // LanceDB sorts the results by (distance, row id).
  std::vector<Neighbor> out = all.entries();
  std::sort(out.begin(), out.end());
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
  // LanceDB's HNSW refuses a breadth below the rows asked of a partition; so do ours, in
  // either layout.
  if (sub_index_type_ == SubIndexType::kHnsw && params.ef > 0 && params.ef < k) {
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
  if (style_.dot_as_found && distance_type_ == DistanceType::kDot) {
    for (auto& n : out) n.distance -= 1.0f;
  }
  if (style_.cosine == CosineReport::kAsFound) return out;
  for (auto& n : out) n.distance = ToUserDistance(distance_type_, n.distance);
  return out;
}

}  // namespace lancedb::index::vector
