// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// LocalTable reads and writes driven by SQL expressions: filtered counts, queries, take,
// delete and update.

#include <chrono>
#include <cstdio>
#include <map>
#include <set>

#include "array/c_bridge.h"
#include "db/computed_columns.h"
#include "db/retry.h"
#include "db/table_impl.h"
#include "expr/evaluator.h"
#include "query/plan.h"
#include "table/stable_row_ids.h"

namespace lancedb::db {

namespace {

bool Numeric(expr::ValueKind k) {
  return k == expr::ValueKind::kInt || k == expr::ValueKind::kFloat;
}

/// Whether a value of kind `from` may be stored into a column of kind `to`.
bool Assignable(const expr::BoundExpr& e, expr::ValueKind to) {
  using expr::ValueKind;
  if (e.kind == to || e.kind == ValueKind::kNull) return true;
  if (Numeric(e.kind) && Numeric(to)) return true;
  if (e.kind == ValueKind::kString && e.op == expr::BoundOp::kLiteral) return true;
  if (to == ValueKind::kString) return e.kind != ValueKind::kList && e.kind != ValueKind::kStruct;
  if ((e.kind == ValueKind::kDate || e.kind == ValueKind::kTimestamp) &&
      (to == ValueKind::kDate || to == ValueKind::kTimestamp))
    return true;
  return false;
}

}  // namespace

Result<int64_t> LocalTable::CountRows(const std::string& filter) const {
  if (filter.empty()) return CountRows();
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  return query::CountMatchingRows(ds, filter);
}

Status LocalTable::ExecuteQuery(const QueryRequest& request, ArrowArrayStream* out) const {
  if (out == nullptr) return Status::InvalidArgument("ExecuteQuery needs an output stream");
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  LANCEDB_ASSIGN_OR_RETURN(auto plan, query::PlanQuery(ds, request));
  LANCEDB_ASSIGN_OR_RETURN(auto reader, query::ExecutePlan(std::move(plan)));
  return array::ExportRecordBatchReader(std::move(reader), out);
}

Status LocalTable::QuerySchema(const QueryRequest& request, ArrowSchema* out) const {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  LANCEDB_ASSIGN_OR_RETURN(auto plan, query::PlanQuery(ds, request));
  return array::ExportSchema(*plan.output_schema, out);
}

Result<std::string> LocalTable::ExplainQuery(const QueryRequest& request, bool verbose) const {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  LANCEDB_ASSIGN_OR_RETURN(auto plan, query::PlanQuery(ds, request));
  return query::ExplainPlan(plan, verbose);
}

Result<std::string> LocalTable::AnalyzeQuery(const QueryRequest& request) const {
  const auto start = std::chrono::steady_clock::now();
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  LANCEDB_ASSIGN_OR_RETURN(auto plan, query::PlanQuery(ds, request));
  std::string text = query::ExplainPlan(plan, /*verbose=*/true);
  auto metrics = std::make_shared<query::QueryMetrics>();
  LANCEDB_ASSIGN_OR_RETURN(auto reader, query::ExecutePlan(std::move(plan), metrics));
  while (true) {
    LANCEDB_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (!batch) break;
  }
  metrics->total_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char times[64];
  std::snprintf(times, sizeof(times), "index_time=%.3fms", metrics->index_seconds * 1e3);
  return query::AnalyzeText(
      text,
      "output_rows=" + std::to_string(metrics->output_rows) +
          ", index_candidates=" + std::to_string(metrics->index_candidates) +
          ", index_pages_loaded=" + std::to_string(metrics->index_pages_loaded) +
          ", fragments_scanned=" + std::to_string(metrics->fragments_scanned) +
          ", zones_read=" + std::to_string(metrics->zones_read.load()) +
          ", zones_pruned=" + std::to_string(metrics->zones_pruned.load()) +
          ", rows_scanned=" + std::to_string(metrics->rows_scanned) + ", " + times,
      metrics->total_seconds);
}

Result<DeleteResult> LocalTable::Delete(const std::string& where) {
  LANCEDB_RETURN_NOT_OK(CheckWritable());
  if (where.empty()) return Status::InvalidArgument("Delete needs a predicate");
  // A delete by predicate means the same on any version: when a concurrent writer preempts
  // it (a compaction of its fragments, a delete of its rows), it is evaluated again.
  return ExecuteWithRetry("Delete", kDefaultRetryTimeout, [&](int) -> Result<DeleteResult> {
    LANCEDB_ASSIGN_OR_RETURN(auto latest, LatestForWrite());
    LANCEDB_ASSIGN_OR_RETURN(auto filter, expr::ParseFilter(where, *latest->schema()));
    LANCEDB_ASSIGN_OR_RETURN(auto addresses, query::MatchingRowAddresses(latest, &filter));
    if (addresses.empty()) {
      Publish(latest);
      return DeleteResult{0, latest->version()};
    }
    int64_t deleted = 0;
    LANCEDB_ASSIGN_OR_RETURN(auto written, latest->DeleteRows(addresses, &deleted));
    Publish(written);
    return DeleteResult{static_cast<uint64_t>(deleted), written->version()};
  });
}

Result<UpdateResult> LocalTable::Update(
    const std::optional<std::string>& where,
    const std::vector<std::pair<std::string, std::string>>& updates) {
  LANCEDB_RETURN_NOT_OK(CheckWritable());
  if (updates.empty()) return Status::InvalidArgument("Update needs at least one column to set");
  // Preempted by a concurrent writer (a compaction or an update of the same rows), the update
  // is executed again on the newest version.
  return ExecuteWithRetry("Update", kDefaultRetryTimeout,
                          [&](int) { return UpdateOnce(where, updates); });
}

Result<UpdateResult> LocalTable::UpdateOnce(
    const std::optional<std::string>& where,
    const std::vector<std::pair<std::string, std::string>>& updates) {
  LANCEDB_ASSIGN_OR_RETURN(auto latest, LatestForWrite());
  const array::Schema& schema = *latest->schema();
  // Bind everything before reading any data.
  std::optional<expr::BoundExpression> filter;
  if (where && !where->empty()) {
    LANCEDB_ASSIGN_OR_RETURN(filter, expr::ParseFilter(*where, schema));
  }
  std::map<int, expr::BoundExpression> setters;
  for (const auto& [column, sql] : updates) {
    int index = schema.GetFieldIndex(column);
    if (index < 0) {
      return schema.GetFieldByName(column).status().WithContext("Update");
    }
    if (setters.count(index)) {
      return Status::InvalidArgument("Column '" + column + "' is set twice in one update");
    }
    auto bound = expr::ParseAndBind(sql, schema);
    if (!bound.ok()) return bound.status().WithContext("In update of '" + column + "'");
    const auto& type = schema.field(index)->type();
    LANCEDB_ASSIGN_OR_RETURN(auto kind, expr::KindOf(*type));
    if (!Assignable(*bound->root, kind)) {
      return Status::InvalidArgument("Type error: cannot set column '" + column + "' (" +
                                     type->ToString() + ") to '" + sql + "' of type " +
                                     bound->root->type->ToString());
    }
    setters.emplace(index, bound.MoveValueUnsafe());
  }
  // Computed columns reading a changed column become unfilled: the next refresh recomputes
  // them.
  std::set<std::string> changed;
  for (const auto& entry : setters) changed.insert(schema.field(entry.first)->name());
  LANCEDB_ASSIGN_OR_RETURN(auto stale, ComputedColumnsReading(schema, changed));
  for (int index : stale) {
    LANCEDB_ASSIGN_OR_RETURN(auto null_value, expr::ParseAndBind("NULL", schema));
    setters.emplace(index, std::move(null_value));
  }
  // Read the matching rows whole (blob columns as their payloads, to be written again),
  // compute the new values.
  table::ScanOptions options;
  options.with_row_id = true;
  options.materialize_blobs = true;
  LANCEDB_ASSIGN_OR_RETURN(auto scan, latest->Scan(options));
  std::vector<uint64_t> addresses;
  std::vector<array::RecordBatchPtr> rewritten;
  const int num_fields = schema.num_fields();
  while (true) {
    LANCEDB_ASSIGN_OR_RETURN(auto batch, scan->Next());
    if (!batch) break;
    std::vector<int64_t> keep;
    if (filter) {
      if (filter->columns.count(expr::kRowOffsetColumn)) {
        return Status::NotSupported("_rowoffset is not supported in update filters");
      }
      LANCEDB_ASSIGN_OR_RETURN(keep, expr::EvaluateFilter(*filter, *batch));
    } else {
      for (int64_t i = 0; i < batch->num_rows(); ++i) keep.push_back(i);
    }
    if (keep.empty()) continue;
    std::vector<array::ArrayPtr> columns;
    for (const auto& c : batch->columns()) {
      LANCEDB_ASSIGN_OR_RETURN(auto t, array::Take(c, keep));
      columns.push_back(std::move(t));
    }
    LANCEDB_ASSIGN_OR_RETURN(
        auto selected,
        array::RecordBatch::Make(batch->schema(), columns, static_cast<int64_t>(keep.size())));
    const auto& ids = selected->column(num_fields);
    addresses.insert(addresses.end(), ids->GetValues<uint64_t>(1),
                     ids->GetValues<uint64_t>(1) + ids->length);
    std::vector<array::ArrayPtr> out(columns.begin(), columns.begin() + num_fields);
    for (const auto& [index, setter] : setters) {
      auto value = expr::Evaluate(setter, *selected, schema.field(index)->type());
      if (!value.ok()) {
        return value.status().WithContext("In update of '" + schema.field(index)->name() + "'");
      }
      if (!schema.field(index)->nullable() && (*value)->null_count != 0) {
        return Status::InvalidArgument("Column '" + schema.field(index)->name() +
                                       "' is not nullable but the update produces NULL");
      }
      out[static_cast<size_t>(index)] = value.MoveValueUnsafe();
    }
    LANCEDB_ASSIGN_OR_RETURN(auto row_batch,
                             array::RecordBatch::Make(latest->schema(), std::move(out),
                                                      static_cast<int64_t>(keep.size())));
    rewritten.push_back(std::move(row_batch));
  }
  if (addresses.empty()) {
    Publish(latest);
    return UpdateResult{0, latest->version()};
  }
  // On a table with stable row ids `_rowid` is the id, not the address.
  if (table::UsesStableRowIds(*latest)) {
    LANCEDB_ASSIGN_OR_RETURN(addresses, table::RowIdsToAddresses(*latest, addresses));
  }
  auto reader = array::MakeVectorReader(latest->schema(), std::move(rewritten));
  int64_t updated = 0;
  LANCEDB_ASSIGN_OR_RETURN(auto written, latest->UpdateRows(addresses, reader.get(), &updated));
  Publish(written);
  return UpdateResult{static_cast<uint64_t>(addresses.size()), written->version()};
}

}  // namespace lancedb::db
