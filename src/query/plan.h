// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Plans of plain reads over one snapshot, and their execution: every read becomes a plan of
// a few operators — index lookups (index_filter.h) for the fragments scalar indices cover, a
// scan with projection and zone-statistics pruning (expr/prune.h) of the others, the filter,
// takes of the remaining columns for the passing rows only (late materialization), limit /
// offset, and the projection — which db builds (PlanQuery) and runs (ExecutePlan), and which
// ExplainPlan prints in LanceDB's vocabulary (docs/query-planning.md). Vector search
// (db/vector_search.h) plans its filter and projection through here. Thread-safety: a plan is
// immutable; each execution has its own reader (externally synchronized).

#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "array/array.h"
#include "expr/binder.h"
#include "lancedb/query.h"
#include "query/index_filter.h"
#include "table/dataset.h"

namespace lancedb::query {

/// The name of the row address column (uint64: fragment id << 32 | offset in the fragment).
inline constexpr const char* kRowAddrColumn = "_rowaddr";

/// One key of an ordering, bound on a snapshot's schema.
struct OrderKey {
  /// A column reference (top-level, or a struct member's path).
  expr::BoundExpression key;
  bool ascending = true;
  bool nulls_first = false;
};

struct QueryPlan {
  table::DatasetPtr dataset;
  std::optional<expr::BoundExpression> filter;
  std::vector<std::string> output_names;
  std::vector<expr::BoundExpression> outputs;
  bool with_row_id = false;
  bool with_row_address = false;
  int64_t offset = 0;
  int64_t limit = -1;  // -1: no limit
  int64_t batch_size = 1024;
  /// Columns read by the scan (the filter's), and those taken afterwards for passing rows.
  std::vector<std::string> scan_columns;
  std::vector<std::string> late_columns;
  bool needs_row_offset = false;
  std::optional<std::vector<uint64_t>> take_offsets;
  std::optional<std::vector<uint64_t>> take_row_ids;
  array::SchemaPtr output_schema;
  /// The scalar index segments of the snapshot (owned here: index_filter points into them).
  std::shared_ptr<const std::vector<index::ScalarSegment>> segments;
  /// What scalar indices answer of the filter; the other fragments are scanned.
  std::optional<IndexFilter> index_filter;
  /// The ordering; when set, `sort_input` reads the keys, `_rowid`, `_rowaddr` (and
  /// `_rowoffset` when an output uses it) of every matching row. With a small limit
  /// (`late_sort`) the output columns are then taken for the rows in [offset, offset + limit)
  /// only; otherwise the sort input reads them too (one sequential read beats taking most
  /// rows of the table one by one).
  std::vector<OrderKey> order_by;
  std::shared_ptr<const QueryPlan> sort_input;
  bool late_sort = false;
};

/// Counters of one execution (analyze_plan).
struct QueryMetrics {
  int64_t index_candidates = 0;          // rows the index lookups returned
  int64_t fragments_scanned = 0;         // fragments read by the scan
  std::atomic<int64_t> zones_read{0};    // row ranges the scan read (statistics kept)
  std::atomic<int64_t> zones_pruned{0};  // row ranges skipped: statistics prove no match
  int64_t rows_scanned = 0;              // rows the scan and the index takes read
  int64_t output_rows = 0;
  int64_t index_pages_loaded = 0;  // scalar index pages decoded
  double index_seconds = 0;
  double total_seconds = 0;
};

/// The plan as text, in LanceDB's explain_plan shape (with `verbose`, the full projection).
std::string ExplainPlan(const QueryPlan& plan, bool verbose);

/// An analyzed plan in LanceDB's analyze_plan shape: an `AnalyzeExec` line with the measured
/// `metrics` ("output_rows=..., ...", without brackets) and `seconds`, above the `plan` text
/// indented one level.
std::string AnalyzeText(const std::string& plan, const std::string& metrics, double seconds);

/// Bind every expression of `request` against the snapshot's schema (all errors surface here,
/// before any data is read) and decide which columns to read when.
Result<QueryPlan> PlanQuery(table::DatasetPtr dataset, const QueryRequest& request);

/// Stream the plan's result. With `metrics`, counters are added to it as the stream is read.
Result<std::unique_ptr<array::RecordBatchReader>> ExecutePlan(
    QueryPlan plan, std::shared_ptr<QueryMetrics> metrics = nullptr);

/// Bind the keys of `ordering` on `schema`: each must name a column of the table (a dot path
/// for a struct member; not `_rowid` or a selection alias). InvalidArgument otherwise.
Result<std::vector<OrderKey>> BindOrdering(const std::vector<ColumnOrdering>& ordering,
                                           const array::Schema& schema);

/// `keys` as explain_plan prints them: "a ASC NULLS LAST, s.x DESC NULLS FIRST".
std::string OrderingText(const std::vector<OrderKey>& keys);

/// The order of the rows at `addresses` by `keys`: positions into `addresses`, the first
/// `limit` only when `limit` >= 0. The key columns are read with one Take.
Result<std::vector<int64_t>> OrderRowsAt(const table::Dataset& dataset,
                                         const std::vector<uint64_t>& addresses,
                                         const std::vector<OrderKey>& keys, int64_t limit);

/// `dataset` restricted to the fragments with ids `fragment_ids`. InvalidArgument naming the
/// ids the snapshot does not have.
Result<table::DatasetPtr> RestrictToFragments(const table::DatasetPtr& dataset,
                                              const std::vector<uint64_t>& fragment_ids);

/// Row addresses of the rows where `filter` is TRUE (every row when null): for the fragments
/// an exact index filter covers, straight from the index lookups (ascending); the other
/// fragments are scanned (in scan order).
Result<std::vector<uint64_t>> MatchingRowAddresses(const table::DatasetPtr& dataset,
                                                   const expr::BoundExpression* filter);

/// The number of rows where `filter` (SQL) is TRUE; the index lookups answer without reading
/// rows where the filter is exactly theirs.
Result<int64_t> CountMatchingRows(const table::DatasetPtr& dataset, const std::string& filter);

}  // namespace lancedb::query
