// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Multivector (late interaction) search, as LanceDB does it. A row's `_distance` is the sum,
// over the query's vectors, of the distance to the row's nearest vector (MaxSim), in LanceDB's
// units (dot: 1 - x.y per query vector). Without a usable index the search is exact. With one
// (built over every row vector, cosine only), each query vector fetches its limit * 10
// nearest row vectors from the index segments, the candidates are scored by
// ScoreMultivectorCandidates (no exact distances: LanceDB's XTR-style estimate), and with a
// refine factor the limit * refine_factor best are re-scored exactly. Fragments no segment
// covers are searched exactly and merged after the index's candidates got exact distances.

#include <algorithm>
#include <cmath>
#include <set>

#include "db/vector_search.h"
#include "expr/evaluator.h"
#include "index/vector/multivec.h"
#include "index/vector_index.h"
#include "table/row_ids.h"

namespace lancedb::db {

namespace vec = index::vector;

namespace {

using NeighborLists = std::vector<std::vector<vec::Neighbor>>;

/// How many row vectors each query vector fetches from an index, per result row (LanceDB's
/// LANCE_XTR_OVERFETCH default).
constexpr size_t kOverfetch = 10;

/// The query of a plan, encoded for the kernels.
struct EncodedQuery {
  std::vector<uint8_t> vectors;  // Layout: (num_queries, dim) of the column's element type
  std::vector<float> norms;      // (num_queries)
  size_t num_queries = 0;
};

EncodedQuery Encode(const VectorPlan& plan) {
  EncodedQuery q;
  q.vectors = EncodeQueries(plan);
  q.num_queries = plan.queries.size();
  const size_t row_bytes = plan.dim * vec::ElementSize(plan.element_type);
  for (size_t i = 0; i < q.num_queries; ++i) {
    q.norms.push_back(
        vec::VectorNorm(plan.element_type, q.vectors.data() + i * row_bytes, plan.dim));
  }
  return q;
}

/// Computes the reported MaxSim distance of rows of a multivector array. Externally
/// synchronized (it reuses scratch buffers); `plan` must outlive it.
class RowScorer {
 public:
  RowScorer(const VectorPlan& plan, vec::DistanceType type)
      : plan_(plan), type_(type), query_(Encode(plan)) {}

  /// The distance of row `r` of `vectors` (list<fixed_size_list>); NaN for a null or empty
  /// row.
  float Distance(const array::ArrayData& vectors, int64_t r) {
    if (vectors.IsNull(r)) return std::nanf("");
    const auto [start, end] = vectors.GetListRange(r);
    const array::ArrayData& inner = *vectors.children[0];
    const array::ArrayData& values = *inner.children[0];
    const size_t width = vec::ElementSize(plan_.element_type);
    const size_t row_bytes = plan_.dim * width;
    if (values.buffers.size() < 2 || !values.buffers[1]) return std::nanf("");
    const uint8_t* base = values.buffers[1]->data() + static_cast<size_t>(values.offset) * width;
    const uint8_t* data = nullptr;
    int64_t count = end - start;
    if (inner.null_count == 0) {
      data = base + static_cast<size_t>(inner.GetListRange(start).first) * width;
    } else {
      // Leave the null vectors out.
      compact_.clear();
      count = 0;
      for (int64_t j = start; j < end; ++j) {
        if (inner.IsNull(j)) continue;
        const uint8_t* v = base + static_cast<size_t>(inner.GetListRange(j).first) * width;
        compact_.insert(compact_.end(), v, v + row_bytes);
        ++count;
      }
      data = compact_.data();
    }
    if (count <= 0) return std::nanf("");
    if (scratch_.size() < static_cast<size_t>(count)) scratch_.resize(static_cast<size_t>(count));
    const float d = vec::MultivectorDistance(type_, plan_.element_type, query_.vectors.data(),
                                             query_.num_queries, query_.norms, data, count,
                                             plan_.dim, scratch_);
    return d + static_cast<float>(query_.num_queries) * ReportedDistanceShift(type_);
  }

 private:
  const VectorPlan& plan_;
  vec::DistanceType type_;
  EncodedQuery query_;
  std::vector<float> scratch_;
  std::vector<uint8_t> compact_;
};

bool InRange(const VectorPlan& plan, float distance) {
  const auto& r = plan.request;
  return !(r.lower_bound && distance < *r.lower_bound) &&
         !(r.upper_bound && !(distance < *r.upper_bound));
}

/// The row addresses passing the prefilter (sorted), or nullopt when every row passes.
Result<std::optional<std::vector<uint64_t>>> PrefilterRows(const VectorPlan& plan,
                                                           bool with_deletions) {
  const bool prefilter = plan.request.prefilter && plan.projection.filter;
  if (!prefilter && !with_deletions) return std::optional<std::vector<uint64_t>>();
  LANCEDB_ASSIGN_OR_RETURN(
      auto rows,
      query::MatchingRowAddresses(plan.dataset, prefilter ? &*plan.projection.filter : nullptr));
  std::sort(rows.begin(), rows.end());
  return std::optional<std::vector<uint64_t>>(std::move(rows));
}

/// Exact MaxSim search over the live rows of the fragments accepted by `fragment_filter`.
Result<std::vector<vec::Neighbor>> FlatMultivector(
    const VectorPlan& plan, size_t k, vec::DistanceType type,
    const std::function<bool(uint64_t)>& fragment_filter) {
  LANCEDB_ASSIGN_OR_RETURN(auto allowed, PrefilterRows(plan, false));
  table::ScanOptions options;
  options.columns = {plan.column};
  options.with_row_address = true;
  options.batch_size = 4096;
  LANCEDB_ASSIGN_OR_RETURN(auto scan, plan.dataset->Scan(options));
  RowScorer scorer(plan, type);
  vec::TopK top(std::max<size_t>(k, 1));
  while (true) {
    LANCEDB_ASSIGN_OR_RETURN(auto batch, scan->Next());
    if (!batch) break;
    auto vectors = batch->GetColumnByName(plan.column);
    auto addresses = batch->GetColumnByName(query::kRowAddrColumn);
    if (!vectors || !addresses) return Status::Internal("scan lost the multivector column");
    const uint64_t* address = addresses->GetValues<uint64_t>(1);
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      if (fragment_filter && !fragment_filter(address[r] >> 32)) continue;
      if (allowed && !std::binary_search(allowed->begin(), allowed->end(), address[r])) continue;
      const float d = scorer.Distance(*vectors, r);
      if (!std::isnan(d) && InRange(plan, d)) top.Push(d, address[r]);
    }
  }
  return top.Sorted();
}

/// Replace the distances of `neighbors` with exact ones, drop rows without a distance, sort.
Status RescoreExactly(const VectorPlan& plan, vec::DistanceType type,
                      std::vector<vec::Neighbor>* neighbors) {
  if (neighbors->empty()) return Status::OK();
  std::vector<uint64_t> addresses;
  for (const auto& n : *neighbors) addresses.push_back(n.row_id);
  LANCEDB_ASSIGN_OR_RETURN(auto batch, plan.dataset->Take(addresses, {plan.column}));
  const array::ArrayData& vectors = *batch->column(0);
  RowScorer scorer(plan, type);
  std::vector<vec::Neighbor> out;
  for (size_t i = 0; i < neighbors->size(); ++i) {
    const float d = scorer.Distance(vectors, static_cast<int64_t>(i));
    if (!std::isnan(d)) out.push_back({d, (*neighbors)[i].row_id});
  }
  std::sort(out.begin(), out.end());
  *neighbors = std::move(out);
  return Status::OK();
}

bool HasDeletions(const table::Dataset& dataset) {
  for (const auto& f : dataset.manifest().proto().fragments()) {
    if (f.has_deletion_file()) return true;
  }
  return false;
}

/// Search through the index `segments` (all with the same distance type), as LanceDB does.
Result<std::vector<vec::Neighbor>> IndexedMultivector(
    const VectorPlan& plan, size_t k,
    const std::vector<std::shared_ptr<const index::VectorIndex>>& segments) {
  const auto& r = plan.request;
  const vec::DistanceType type = segments[0]->ivf().distance_type();
  LANCEDB_ASSIGN_OR_RETURN(auto allowed, PrefilterRows(plan, HasDeletions(*plan.dataset)));
  std::function<bool(uint64_t)> accept;
  if (allowed) {
    accept = [&allowed](uint64_t address) {
      return std::binary_search(allowed->begin(), allowed->end(), address);
    };
  }
  // Each query vector's nearest row vectors.
  const size_t fetch = k * kOverfetch;
  NeighborLists lists(plan.queries.size());
  for (size_t q = 0; q < plan.queries.size(); ++q) {
    for (const auto& segment : segments) {
      LANCEDB_ASSIGN_OR_RETURN(
          auto found, SearchIndexSegment(plan, *segment, plan.queries[q], fetch, accept, false));
      lists[q].insert(lists[q].end(), found.begin(), found.end());
    }
    std::sort(lists[q].begin(), lists[q].end());
    if (lists[q].size() > fetch) lists[q].resize(fetch);
  }
  std::vector<vec::Neighbor> out = vec::ScoreMultivectorCandidates(lists);
  if (r.refine_factor) {
    if (out.size() > k * *r.refine_factor) out.resize(k * *r.refine_factor);
    LANCEDB_RETURN_NOT_OK(RescoreExactly(plan, type, &out));
  }
  std::set<uint64_t> covered;
  for (const auto& s : segments) covered.insert(s->fragment_ids().begin(), s->fragment_ids().end());
  bool uncovered = false;
  for (const auto& f : plan.dataset->manifest().proto().fragments()) {
    uncovered |= !covered.count(f.id());
  }
  if (uncovered && !r.fast_search) {
    // As for single vectors: the index's k best get exact distances, then meet the exact
    // results of the fragments no segment covers.
    if (out.size() > k) out.resize(k);
    if (!r.refine_factor) LANCEDB_RETURN_NOT_OK(RescoreExactly(plan, type, &out));
    LANCEDB_ASSIGN_OR_RETURN(auto flat, FlatMultivector(plan, k, type, [&covered](uint64_t f) {
                               return !covered.count(f);
                             }));
    out.insert(out.end(), flat.begin(), flat.end());
    std::sort(out.begin(), out.end());
  }
  std::erase_if(out, [&](const vec::Neighbor& n) { return !InRange(plan, n.distance); });
  if (out.size() > k) out.resize(k);
  return out;
}

}  // namespace

Result<NeighborLists> MultivectorNeighbors(const VectorPlan& plan, size_t k) {
  NeighborLists out(1);
  if (k == 0) return out;
  const vec::DistanceType flat_type = FlatDistanceType(plan);
  std::vector<std::shared_ptr<const index::VectorIndex>> segments;
  if (!plan.request.bypass_vector_index && plan.element_type != vec::ElementType::kUInt8) {
    LANCEDB_ASSIGN_OR_RETURN(segments, index::LoadVectorIndices(*plan.dataset, plan.column));
  }
  if (segments.empty() ||
      (plan.distance_type && *plan.distance_type != segments[0]->ivf().distance_type())) {
    LANCEDB_ASSIGN_OR_RETURN(out[0], FlatMultivector(plan, k, flat_type, nullptr));
    return out;
  }
  LANCEDB_ASSIGN_OR_RETURN(out[0], IndexedMultivector(plan, k, segments));
  return out;
}

}  // namespace lancedb::db
