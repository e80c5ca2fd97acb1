// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Planning and executing vector queries over one snapshot (include/lancedb/vector_query.h).
// Planning validates everything (column inference, dimension, NaN, distance type, filter and
// projection) before any data is read. Execution finds the nearest row addresses per query
// vector — exactly over the snapshot, or through the column's indices for the fragments they
// cover plus exactly over the rest — then reads the output columns for those rows only.
// Thread-safety: a plan is immutable; executing it is thread-safe.

#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "array/array.h"
#include "index/vector/distance.h"
#include "index/vector/flat_search.h"
#include "lancedb/vector_query.h"
#include "query/plan.h"
#include "table/dataset.h"

namespace lancedb::index {
class VectorIndex;
}  // namespace lancedb::index

namespace lancedb::db {

struct VectorPlan {
  table::DatasetPtr dataset;
  /// The filter and the output expressions (bound on the snapshot's schema).
  query::QueryPlan projection;
  std::string column;
  /// Elements per vector (bytes for uint8 vectors).
  size_t dim = 0;
  index::vector::ElementType element_type = index::vector::ElementType::kFloat32;
  /// Set when the request names one; otherwise the index's, else l2 (hamming for uint8).
  std::optional<index::vector::DistanceType> distance_type;
  std::vector<std::vector<float>> queries;
  VectorQueryRequest request;
  int64_t limit = 10;
  int64_t offset = 0;
  bool batch = false;
  /// The column is a multivector column (list<fixed_size_list>): `queries` are one query,
  /// scored by late interaction (MaxSim; db/multivector_search.cc).
  bool multivector = false;
  /// The ordering of each query vector's limit + offset nearest rows (empty: by distance).
  std::vector<query::OrderKey> order_by;
  array::SchemaPtr output_schema;
};

/// Read `wanted` columns of the rows at `addresses` (in order), then `_rowid` holding
/// `row_ids`; virtual columns in `wanted` are skipped (a cheap column is read when none is
/// left).
Result<array::RecordBatchPtr> TakeRowsWithIds(const table::Dataset& ds,
                                              const std::vector<uint64_t>& addresses,
                                              const std::vector<uint64_t>& row_ids,
                                              const std::set<std::string>& wanted);

/// The filter and output expressions of a ranked query (vector, full-text) bound on the
/// snapshot: `base` without its limit, offset, takes, ordering, `_rowid` and `_rowaddr` (the
/// ranking applies those). NotSupported for a filter on `_rowoffset` and for fragment_ids;
/// `kind` names the query in those messages.
Result<query::QueryPlan> PlanRankedProjection(const table::DatasetPtr& dataset, QueryRequest base,
                                              std::string_view kind);

/// Bind and check `request` against the snapshot.
Result<VectorPlan> PlanVectorQuery(table::DatasetPtr dataset, const VectorQueryRequest& request);

/// Search one index segment for one query vector: its k nearest (row address, distance), in
/// the kernels' units, probing more partitions (up to maximum_nprobes) while fewer than k
/// were found. With `whole_rows` the plan's refine factor and distance range apply; without,
/// neither does (a multivector search's per-sub-vector candidates).
Result<std::vector<index::vector::Neighbor>> SearchIndexSegment(
    const VectorPlan& plan, const index::VectorIndex& segment, const std::vector<float>& query,
    size_t k, const std::function<bool(uint64_t row_address)>& accept, bool whole_rows = true);

/// The query vectors in the column's element type. Layout: (num_queries, dim).
std::vector<uint8_t> EncodeQueries(const VectorPlan& plan);

/// Find the neighbours of the multivector query of `plan` (plan.multivector): exactly, or
/// through the column's indices as LanceDB does (db/multivector_search.cc). One sorted list of
/// row addresses with reported distances.
Result<std::vector<std::vector<index::vector::Neighbor>>> MultivectorNeighbors(
    const VectorPlan& plan, size_t k);

/// The distance type a flat search uses for `plan` (no index involved).
index::vector::DistanceType FlatDistanceType(const VectorPlan& plan);

/// Return the `k` nearest rows to each query of `plan` among the live rows of the fragments
/// accepted by `fragment_filter` (null: all) — and, with prefilter, passing the filter — by
/// exact search with `distance_type`. One sorted list of row addresses per query.
Result<std::vector<std::vector<index::vector::Neighbor>>> FlatNeighbors(
    const VectorPlan& plan, size_t k, index::vector::DistanceType distance_type,
    const std::function<bool(uint64_t fragment_id)>& fragment_filter);

/// The plan as text (VectorQuery::ExplainPlan): the index segments searched or the flat scan,
/// the top-k, the prefilter's plan, the output take.
Result<std::string> ExplainVectorPlan(const VectorPlan& plan, bool verbose);

/// Find the neighbours (flat or through an index) and stream the result rows.
Result<std::unique_ptr<array::RecordBatchReader>> ExecuteVectorPlan(const VectorPlan& plan);

/// Find the neighbours of every query of `plan` (k = limit + offset each, before postfilter),
/// using the column's indices unless bypassed. One sorted list of row addresses per query.
Result<std::vector<std::vector<index::vector::Neighbor>>> FindNeighbors(const VectorPlan& plan,
                                                                        size_t k);

/// The `_rowid` values of the rows at `addresses`: the addresses themselves, or on a table with
/// stable row ids (lance-format.md §3) the rows' ids.
Result<std::vector<uint64_t>> RowIdsOf(const table::Dataset& dataset,
                                       const std::vector<uint64_t>& addresses);

/// What the kernels compute plus this is the `_distance` LanceDB reports: the dot kernels give
/// -x·y, LanceDB reports 1 - x·y.
float ReportedDistanceShift(index::vector::DistanceType type);

}  // namespace lancedb::db
