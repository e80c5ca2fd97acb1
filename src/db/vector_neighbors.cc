// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Choosing how a vector query finds its neighbours. Without a usable index (none on the column,
// BypassVectorIndex, a distance type other than the index's, a uint8 column): exact search
// over the snapshot. Otherwise each index segment is searched for the fragments it covers —
// with a row-address prefilter holding the live rows (and, with a prefilter, those passing
// the filter) — the fragments no segment covers are searched exactly (unless FastSearch), and
// the lists are merged, the index's candidates first re-ranked with exact distances (as
// LanceDB's plan does).

#include <algorithm>
#include <set>

#include "db/vector_column_cache.h"
#include "db/vector_search.h"
#include "index/vector_index.h"

namespace lancedb::db {

namespace vec = index::vector;

namespace {

using NeighborLists = std::vector<std::vector<vec::Neighbor>>;

bool HasDeletions(const table::Dataset& dataset) {
  for (const auto& f : dataset.manifest().proto().fragments()) {
    if (f.has_deletion_file()) return true;
  }
  return false;
}

}  // namespace

Result<std::vector<vec::Neighbor>> SearchIndexSegment(const VectorPlan& plan,
                                                      const index::VectorIndex& segment,
                                                      const std::vector<float>& query, size_t k,
                                                      const std::function<bool(uint64_t)>& accept,
                                                      bool whole_rows) {
  VectorQueryRequest r = plan.request;
  if (!whole_rows) {
    r.refine_factor.reset();
    r.lower_bound.reset();
    r.upper_bound.reset();
  }
  const size_t partitions = static_cast<size_t>(segment.ivf().num_partitions());
  size_t max_probes = r.maximum_nprobes ? *r.maximum_nprobes : r.minimum_nprobes;
  if (max_probes == 0 || max_probes > partitions) max_probes = partitions;
  index::VectorSearchParams params;
  params.k = k;
  params.refine_factor = r.refine_factor.value_or(0);
  params.ef = r.ef.value_or(0);
  params.accept = accept;
  if (r.lower_bound) params.lower_bound = *r.lower_bound;
  if (r.upper_bound) params.upper_bound = *r.upper_bound;
  params.fragment_vectors = [&plan](uint64_t fragment_id) -> Result<array::ArrayPtr> {
    const table::Dataset& dataset = *plan.dataset;
    const format::LanceField* field = dataset.lance_schema().FindTopLevel(plan.column);
    if (field == nullptr) return array::ArrayPtr();
    for (const auto& frag : dataset.manifest().proto().fragments()) {
      if (frag.id() == fragment_id) return ResidentFragmentColumn(dataset, frag, field->id);
    }
    return array::ArrayPtr();
  };
  params.nprobes = std::min(r.minimum_nprobes, partitions);
  while (true) {
    LANCEDB_ASSIGN_OR_RETURN(auto found, segment.Search(query, params, *plan.dataset));
    const float shift = ReportedDistanceShift(segment.ivf().distance_type());
    std::erase_if(found, [&](const vec::Neighbor& n) {
      return (r.lower_bound && n.distance + shift < *r.lower_bound) ||
             (r.upper_bound && !(n.distance + shift < *r.upper_bound));
    });
    if (found.size() >= k || params.nprobes >= max_probes) return found;
    params.nprobes = std::min(max_probes, params.nprobes * 2);
  }
}

namespace {

// Neighbors in the kernels' units; sets *used to the distance type that produced them.
Result<NeighborLists> SearchNeighbors(const VectorPlan& plan, size_t k, vec::DistanceType* used) {
  const auto& r = plan.request;
  *used = FlatDistanceType(plan);
  if (r.bypass_vector_index) {
    return FlatNeighbors(plan, k, *used, nullptr);
  }
  LANCEDB_ASSIGN_OR_RETURN(auto segments, index::LoadVectorIndices(*plan.dataset, plan.column));
  if (segments.empty() ||
      (plan.distance_type && *plan.distance_type != segments[0]->ivf().distance_type())) {
    return FlatNeighbors(plan, k, *used, nullptr);
  }
  const vec::DistanceType distance_type = segments[0]->ivf().distance_type();
  *used = distance_type;
  std::set<uint64_t> covered;
  for (const auto& s : segments) covered.insert(s->fragment_ids().begin(), s->fragment_ids().end());

  // Row addresses the index may return: live rows passing the prefilter.
  std::optional<std::vector<uint64_t>> allowed;
  const bool prefilter = r.prefilter && plan.projection.filter;
  if (prefilter || HasDeletions(*plan.dataset)) {
    LANCEDB_ASSIGN_OR_RETURN(
        allowed,
        query::MatchingRowAddresses(plan.dataset, prefilter ? &*plan.projection.filter : nullptr));
    std::sort(allowed->begin(), allowed->end());
  }
  std::function<bool(uint64_t)> accept;
  if (allowed) {
    accept = [&allowed](uint64_t address) {
      return std::binary_search(allowed->begin(), allowed->end(), address);
    };
  }

  bool uncovered = false;
  for (const auto& f : plan.dataset->manifest().proto().fragments()) {
    uncovered |= !covered.count(f.id());
  }
  const bool search_uncovered = uncovered && !r.fast_search;
  NeighborLists out(plan.queries.size());
  for (size_t q = 0; q < plan.queries.size(); ++q) {
    for (const auto& segment : segments) {
      LANCEDB_ASSIGN_OR_RETURN(auto found,
                               SearchIndexSegment(plan, *segment, plan.queries[q], k, accept));
      out[q].insert(out[q].end(), found.begin(), found.end());
    }
    if (search_uncovered) {
      // As LanceDB: the index's k best candidates get exact distances before they meet the
      // exact results of the fragments no segment covers.
      std::sort(out[q].begin(), out[q].end());
      if (out[q].size() > k) out[q].resize(k);
      LANCEDB_RETURN_NOT_OK(index::RerankExactly(*plan.dataset, plan.column, distance_type,
                                                 plan.queries[q], &out[q]));
    }
  }
  if (search_uncovered) {
    LANCEDB_ASSIGN_OR_RETURN(auto flat,
                             FlatNeighbors(plan, k, distance_type, [&covered](uint64_t fragment) {
                               return !covered.count(fragment);
                             }));
    for (size_t q = 0; q < out.size(); ++q) {
      out[q].insert(out[q].end(), flat[q].begin(), flat[q].end());
    }
  }
  for (auto& list : out) {
    std::sort(list.begin(), list.end());
    if (list.size() > k) list.resize(k);
  }
  return out;
}

}  // namespace

Result<NeighborLists> FindNeighbors(const VectorPlan& plan, size_t k) {
  if (plan.multivector) return MultivectorNeighbors(plan, k);
  vec::DistanceType used;
  LANCEDB_ASSIGN_OR_RETURN(auto out, SearchNeighbors(plan, k, &used));
  const float shift = ReportedDistanceShift(used);
  if (shift != 0.0f) {
    for (auto& list : out) {
      for (auto& n : list) n.distance += shift;
    }
  }
  return out;
}

}  // namespace lancedb::db
