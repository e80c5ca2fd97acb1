// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Planning and executing full-text queries over one snapshot (include/lancedb/fts_query.h).
// Planning resolves the columns (a query without a column searches every FTS-indexed column),
// checks the query (empty text, phrase without positions, unknown columns) and binds filter and
// projection before any data is read. Execution scores the query tree with BM25 — through the
// column's inverted index for the fragments it covers, exactly over the rows appended since —
// drops deleted rows, applies the filter (before or after ranking) and reads the output columns
// of the top rows only.
// Thread-safety: a plan is immutable; executing it is thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "array/array.h"
#include "index/fts_index_manager.h"
#include "lancedb/fts_query.h"
#include "query/plan.h"
#include "table/dataset.h"

namespace lancedb::db {

struct FtsPlan {
  table::DatasetPtr dataset;
  /// The filter and output expressions.
  query::QueryPlan projection;
  FtsQueryRequest request;
  /// The query with every column resolved (a column-less match over several indexed columns
  /// becomes a multi-match).
  FullTextQuery query;
  std::shared_ptr<const std::vector<index::FtsSegment>> segments;
  int64_t limit = 10;
  int64_t offset = 0;
  /// The ordering of the limit + offset best rows (empty: by score).
  std::vector<query::OrderKey> order_by;
  array::SchemaPtr output_schema;
};

/// Bind and check `request` against the snapshot.
Result<FtsPlan> PlanFtsQuery(table::DatasetPtr dataset, const FtsQueryRequest& request);

/// Run the plan: the top rows with `_score`.
Result<std::unique_ptr<array::RecordBatchReader>> ExecuteFtsPlan(const FtsPlan& plan);

/// The plan as text, in LanceDB's explain_plan shape.
std::string ExplainFtsPlan(const FtsPlan& plan, bool verbose);

}  // namespace lancedb::db
