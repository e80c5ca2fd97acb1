// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Planning and executing plain queries over one snapshot. Filter pushdown: the scan first
// reads only the columns the filter needs (plus row addresses), evaluates the filter, and then
// takes the remaining columns for the passing rows only; row ranges whose zone statistics prove
// that the filter cannot match are not read (expr/prune.h). Thread-safety: a plan is immutable;
// each execution has its own reader (externally synchronized).

#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "array/array.h"
#include "expr/binder.h"
#include "lancedb/query.h"
#include "table/dataset.h"

namespace lancedb::db {

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
};

/// Bind every expression of `request` against the snapshot's schema (all errors surface here,
/// before any data is read) and decide which columns to read when.
Result<QueryPlan> PlanQuery(table::DatasetPtr dataset, const QueryRequest& request);

/// Stream the plan's result.
Result<std::unique_ptr<array::RecordBatchReader>> ExecutePlan(QueryPlan plan);

/// Row addresses of the rows where `filter` is TRUE (every row when null), in scan order.
Result<std::vector<uint64_t>> MatchingRowAddresses(const table::DatasetPtr& dataset,
                                                   const expr::BoundExpression* filter);

}  // namespace lancedb::db
