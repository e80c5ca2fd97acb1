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

struct QueryPlan {
  table::DatasetPtr dataset;
  std::optional<expr::BoundExpression> filter;
  std::vector<std::string> output_names;
  std::vector<expr::BoundExpression> outputs;
  bool with_row_id = false;
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

/// Bind every expression of `request` against the snapshot's schema (all errors surface here,
/// before any data is read) and decide which columns to read when.
Result<QueryPlan> PlanQuery(table::DatasetPtr dataset, const QueryRequest& request);

/// Stream the plan's result. With `metrics`, counters are added to it as the stream is read.
Result<std::unique_ptr<array::RecordBatchReader>> ExecutePlan(
    QueryPlan plan, std::shared_ptr<QueryMetrics> metrics = nullptr);

/// Row addresses of the rows where `filter` is TRUE (every row when null): for the fragments
/// an exact index filter covers, straight from the index lookups (ascending); the other
/// fragments are scanned (in scan order).
Result<std::vector<uint64_t>> MatchingRowAddresses(const table::DatasetPtr& dataset,
                                                   const expr::BoundExpression* filter);

/// The number of rows where `filter` (SQL) is TRUE; the index lookups answer without reading
/// rows where the filter is exactly theirs.
Result<int64_t> CountMatchingRows(const table::DatasetPtr& dataset, const std::string& filter);

}  // namespace lancedb::query
