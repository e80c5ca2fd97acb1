// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Computed columns on a LocalTable: AddComputedColumns declares columns whose SQL expression is
// kept in their field metadata (keys in lancedb/schema_evolution.h); RefreshColumn fills the
// rows that hold no value yet. A row is "unfilled" while its value is NULL, so rows appended
// after a refresh are filled by the next one. A refresh reads one snapshot, evaluates the
// expression over its unfilled rows (a failing batch again row by row, so one bad row fails
// alone), and publishes the values by rewriting the column in the fragments that got any
// (table::ReplaceColumnValues, a Merge commit), then records the refresh in the field metadata
// (a Project commit).

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "db/computed_columns.h"
#include "db/retry.h"
#include "db/table_impl.h"
#include "expr/binder.h"
#include "expr/evaluator.h"
#include "lancedb/table.h"
#include "table/schema_evolution.h"

namespace lancedb {

Result<AddColumnsResult> Table::AddComputedColumns(
    const std::vector<std::pair<std::string, std::string>>&) {
  return Status::NotSupported("computed columns are not supported by this table");
}

Result<RefreshColumnResult> Table::RefreshColumn(const std::string&, const RefreshColumnOptions&) {
  return Status::NotSupported("refresh_column is not supported by this table");
}

namespace db {
namespace {

std::string JsonString(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\u00";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

/// The JSON list of the stored columns `bound` reads.
std::string InputsJson(const expr::BoundExpression& bound) {
  std::string out = "[";
  for (const auto& c : bound.columns) {
    if (out.size() > 1) out += ",";
    out += JsonString(c);
  }
  return out + "]";
}

Status CheckCancelled(const RefreshColumnOptions& options, const std::string& column) {
  if (options.cancel && options.cancel->load()) {
    return Status::Cancelled("refresh_column('" + column + "') was cancelled");
  }
  return Status::OK();
}

/// The values a refresh computed, before they are published.
struct Assignments {
  /// Evaluated values, one chunk per scanned batch with unfilled rows.
  std::vector<array::ArrayPtr> chunks;
  /// Fragment id -> (offset in the fragment, chunk, row in the chunk) of each non-NULL value.
  std::map<uint64_t, std::vector<std::tuple<int64_t, size_t, int64_t>>> by_fragment;
  uint64_t assigned = 0;
  uint64_t failed = 0;
};

/// Evaluate `bound` over `rows`; when the batch fails, row by row, failures becoming NULL and
/// counted in `*failed`.
Result<array::ArrayPtr> EvaluateRows(const expr::BoundExpression& bound,
                                     const array::RecordBatch& rows, const array::DataTypePtr& type,
                                     uint64_t* failed) {
  auto whole = expr::Evaluate(bound, rows, type);
  if (whole.ok()) return whole;
  std::vector<array::ArrayPtr> singles;
  singles.reserve(static_cast<size_t>(rows.num_rows()));
  for (int64_t i = 0; i < rows.num_rows(); ++i) {
    auto one = expr::Evaluate(bound, *rows.Slice(i, 1), type);
    if (one.ok()) {
      singles.push_back(one.MoveValueUnsafe());
    } else {
      ++*failed;
      singles.push_back(array::MakeNullArray(type, 1));
    }
  }
  return array::Concatenate(singles);
}

/// Scan the unfilled rows of `column` in `ds` and evaluate `bound` over them.
Result<Assignments> ComputeUnfilled(const table::DatasetPtr& ds, const std::string& column,
                                    const array::DataTypePtr& type,
                                    const expr::BoundExpression& bound,
                                    const RefreshColumnOptions& options) {
  table::ScanOptions scan;
  for (const auto& c : bound.columns) scan.columns.push_back(c);
  if (!bound.columns.count(column)) scan.columns.push_back(column);
  scan.with_row_address = true;
  LANCEDB_ASSIGN_OR_RETURN(auto reader, ds->Scan(scan));
  Assignments out;
  while (true) {
    LANCEDB_RETURN_NOT_OK(CheckCancelled(options, column));
    LANCEDB_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (batch == nullptr) break;
    const array::ArrayPtr& current = batch->GetColumnByName(column);
    const array::ArrayPtr& addresses = batch->GetColumnByName("_rowaddr");
    std::vector<int64_t> unfilled;
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      if (current->IsNull(i)) unfilled.push_back(i);
    }
    if (unfilled.empty()) continue;
    std::vector<array::ArrayPtr> taken;
    for (const auto& c : batch->columns()) {
      LANCEDB_ASSIGN_OR_RETURN(auto t, array::Take(c, unfilled));
      taken.push_back(std::move(t));
    }
    LANCEDB_ASSIGN_OR_RETURN(auto rows,
                             array::RecordBatch::Make(batch->schema(), std::move(taken),
                                                      static_cast<int64_t>(unfilled.size())));
    LANCEDB_ASSIGN_OR_RETURN(auto values, EvaluateRows(bound, *rows, type, &out.failed));
    const uint64_t* addr = addresses->GetValues<uint64_t>(1);
    const size_t chunk = out.chunks.size();
    for (size_t k = 0; k < unfilled.size(); ++k) {
      if (values->IsNull(static_cast<int64_t>(k))) continue;
      const uint64_t a = addr[unfilled[k]];
      out.by_fragment[a >> 32].emplace_back(static_cast<int64_t>(a & 0xFFFFFFFFu), chunk,
                                            static_cast<int64_t>(k));
      ++out.assigned;
    }
    out.chunks.push_back(std::move(values));
  }
  return out;
}

/// The whole new column of each fragment with assignments: its current values with the
/// assigned rows replaced.
Result<std::map<uint64_t, array::ArrayPtr>> MergeIntoFragments(const table::DatasetPtr& ds,
                                                               const std::string& column,
                                                               const Assignments& assignments) {
  std::map<uint64_t, int64_t> physical_rows;
  for (const auto& frag : ds->manifest().proto().fragments()) {
    physical_rows[frag.id()] = static_cast<int64_t>(frag.physical_rows());
  }
  std::map<uint64_t, array::ArrayPtr> out;
  for (const auto& entry : assignments.by_fragment) {
    const uint64_t fragment = entry.first;
    const auto& rows = entry.second;
    const int64_t n = physical_rows.at(fragment);
    std::vector<uint64_t> addresses(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      addresses[static_cast<size_t>(i)] = (fragment << 32) | static_cast<uint64_t>(i);
    }
    LANCEDB_ASSIGN_OR_RETURN(auto old_rows, ds->Take(addresses, {column}));
    // Gather the new values, then pick each row from the old column or from them.
    std::vector<array::ArrayPtr> parts{old_rows->column(0)};
    std::vector<int64_t> pick(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) pick[static_cast<size_t>(i)] = i;
    int64_t next = n;
    for (const auto& [offset, chunk, row] : rows) {
      parts.push_back(array::Slice(assignments.chunks[chunk], row, 1));
      pick[static_cast<size_t>(offset)] = next++;
    }
    LANCEDB_ASSIGN_OR_RETURN(auto all, array::Concatenate(parts));
    LANCEDB_ASSIGN_OR_RETURN(auto merged, array::Take(all, pick));
    out.emplace(fragment, std::move(merged));
  }
  return out;
}

/// Set `key` to `value` in the metadata of top-level field `column` of the newest version.
Result<table::DatasetPtr> RecordRefresh(const table::DatasetPtr& ds, const std::string& column,
                                        const std::string& key, const std::string& value) {
  const format::LanceSchema& current = ds->manifest().schema();
  std::vector<format::LanceField> fields = current.fields();
  for (auto& f : fields) {
    if (f.name != column) continue;
    auto it = std::find_if(f.metadata.begin(), f.metadata.end(),
                           [&](const auto& kv) { return kv.first == key; });
    if (it != f.metadata.end()) {
      it->second = value;
    } else {
      f.metadata.emplace_back(key, value);
    }
  }
  return table::CommitProjectedSchema(ds,
                                      format::LanceSchema(std::move(fields), current.metadata()));
}

/// The top-level columns the expression of computed field `field` reads; empty for other
/// fields or an expression that no longer binds.
std::set<std::string> InputsOf(const array::Schema& schema, const array::Field& field) {
  if (array::GetMetadata(field.metadata(), kComputedColumnKey) != "true") return {};
  auto sql = array::GetMetadata(field.metadata(), kComputedColumnExpressionKey);
  if (!sql) return {};
  auto bound = expr::ParseAndBind(*sql, schema);
  if (!bound.ok()) return {};
  return bound->columns;
}

}  // namespace

Result<std::set<int>> ComputedColumnsReading(const array::Schema& schema,
                                             const std::set<std::string>& changed) {
  std::set<std::string> stale = changed;
  std::set<int> out;
  bool grew = true;
  while (grew) {
    grew = false;
    for (int i = 0; i < schema.num_fields(); ++i) {
      const auto& field = *schema.field(i);
      if (out.count(i) || changed.count(field.name())) continue;
      for (const auto& input : InputsOf(schema, field)) {
        if (stale.count(input)) {
          out.insert(i);
          stale.insert(field.name());
          grew = true;
          break;
        }
      }
    }
  }
  return out;
}

Status CheckNotReadByComputed(const array::Schema& schema, const std::string& column) {
  for (const auto& field : schema.fields()) {
    if (field->name() == column) continue;
    if (InputsOf(schema, *field).count(column)) {
      return Status::InvalidArgument("Invalid input, column '" + column +
                                     "' is read by computed column '" + field->name() +
                                     "'; drop that column first");
    }
  }
  return Status::OK();
}

Result<AddColumnsResult> LocalTable::AddComputedColumns(
    const std::vector<std::pair<std::string, std::string>>& columns) {
  LANCEDB_RETURN_NOT_OK(CheckWritable());
  if (columns.empty()) return Status::InvalidArgument("add_columns got no computed columns");
  LANCEDB_ASSIGN_OR_RETURN(auto latest, LatestForWrite());
  // Each expression binds against the table plus the columns declared before it.
  std::vector<array::FieldPtr> visible = latest->schema()->fields();
  std::vector<array::FieldPtr> added;
  for (const auto& [name, sql] : columns) {
    const array::Schema schema(visible);
    if (schema.GetFieldIndex(name) >= 0) {
      return Status::AlreadyExists("Column '" + name + "' already exists");
    }
    auto bound = expr::ParseAndBind(sql, schema);
    if (!bound.ok()) {
      return Status::InvalidArgument("Invalid expression for column '" + name +
                                     "': " + bound.status().message());
    }
    for (const auto& c : bound->columns) {
      if (expr::IsVirtualColumn(c)) {
        return Status::InvalidArgument("Invalid expression for column '" + name +
                                       "': computed columns cannot read " + c);
      }
    }
    auto type = bound->root->type;
    if (type == nullptr || type->id() == array::TypeId::kNull) {
      return Status::InvalidArgument("Invalid expression for column '" + name +
                                     "': it has no type (NULL); cast it, e.g. CAST(NULL AS INT)");
    }
    array::KeyValueMetadata metadata{
        {kComputedColumnKey, "true"},         {kComputedColumnKindKey, "sql"},
        {kComputedColumnExpressionKey, sql},  {kComputedColumnInputsKey, InputsJson(*bound)},
        {kComputedRefreshSignatureKey, "{}"},
    };
    auto field = array::field(name, type, true, std::move(metadata));
    visible.push_back(field);
    added.push_back(std::move(field));
  }
  LANCEDB_ASSIGN_OR_RETURN(auto written,
                           table::AddColumns(latest, array::Schema(added), {}, nullptr));
  Publish(written);
  return AddColumnsResult{written->version()};
}

Result<RefreshColumnResult> LocalTable::RefreshColumn(const std::string& column,
                                                      const RefreshColumnOptions& options) {
  LANCEDB_RETURN_NOT_OK(CheckWritable());
  return ExecuteWithRetry(
      "refresh_column", kDefaultRetryTimeout,
      [&](int) -> Result<RefreshColumnResult> { return RefreshColumnOnce(column, options); });
}

Result<RefreshColumnResult> LocalTable::RefreshColumnOnce(const std::string& column,
                                                          const RefreshColumnOptions& options) {
  LANCEDB_ASSIGN_OR_RETURN(auto latest, LatestForWrite());
  const array::Schema& schema = *latest->schema();
  const int index = schema.GetFieldIndex(column);
  if (index < 0) return Status::NotFound("Column '" + column + "' was not found");
  const array::FieldPtr& field = schema.field(index);
  if (array::GetMetadata(field->metadata(), kComputedColumnKey) != "true") {
    return Status::InvalidArgument("Column '" + column + "' is not a computed column");
  }
  auto kind = array::GetMetadata(field->metadata(), kComputedColumnKindKey);
  if (kind && *kind != "sql") {
    return Status::NotSupported("Computed column '" + column + "' is of kind '" + *kind +
                                "'; only SQL computed columns can be refreshed locally");
  }
  auto sql = array::GetMetadata(field->metadata(), kComputedColumnExpressionKey);
  if (!sql) {
    return Status::Corruption("Computed column '" + column + "' has no expression in its metadata");
  }
  auto bound = expr::ParseAndBind(*sql, schema);
  if (!bound.ok()) {
    return Status::InvalidArgument("Invalid expression for column '" + column +
                                   "': " + bound.status().message());
  }
  RefreshColumnResult result;
  result.source_version = latest->version();
  LANCEDB_ASSIGN_OR_RETURN(auto assignments,
                           ComputeUnfilled(latest, column, field->type(), *bound, options));
  result.rows_assigned = assignments.assigned;
  result.rows_failed = assignments.failed;
  result.rows_remaining = assignments.failed;
  if (assignments.assigned == 0) {
    Publish(latest);
    return result;
  }
  LANCEDB_ASSIGN_OR_RETURN(auto values, MergeIntoFragments(latest, column, assignments));
  LANCEDB_RETURN_NOT_OK(CheckCancelled(options, column));
  LANCEDB_ASSIGN_OR_RETURN(auto filled, table::ReplaceColumnValues(latest, column, values));
  Publish(filled);
  // The values are published; recording the refresh is retried on its own.
  LANCEDB_ASSIGN_OR_RETURN(
      auto recorded, ExecuteWithRetry("refresh_column", kDefaultRetryTimeout,
                                      [&](int attempt) -> Result<table::DatasetPtr> {
                                        table::DatasetPtr base = filled;
                                        if (attempt > 1) {
                                          LANCEDB_ASSIGN_OR_RETURN(base, LatestForWrite());
                                        }
                                        return RecordRefresh(base, column,
                                                             kComputedRefreshVersionKey,
                                                             std::to_string(filled->version()));
                                      }));
  Publish(recorded);
  result.published_version = recorded->version();
  return result;
}

}  // namespace db
}  // namespace lancedb
