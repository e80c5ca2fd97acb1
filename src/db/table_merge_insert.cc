// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// LocalTable::ExecuteMergeInsert: a hash join of the input (build side, held in memory and
// indexed by its typed keys, merge_keys.h) with a streaming scan of the table's key columns
// (probe side; the columns of a by-source delete condition are read along, the other columns
// only for the matched rows an update condition must see). Matched table rows that are updated
// and unmatched rows deleted by source become deletion-file entries in their fragments; the input
// rows that replace them and the inserted rows are written as new fragments, all in one Update
// commit (table/merge_rows.h; an Append when only inserting), which keeps stable row ids. A
// commit conflict the table layer cannot rebase over re-runs the whole merge on the newest
// version until the request's timeout.

#include <algorithm>
#include <chrono>
#include <optional>
#include <set>
#include <string>

#include "array/c_bridge.h"
#include "db/merge_keys.h"
#include "db/retry.h"
#include "db/table_impl.h"
#include "expr/evaluator.h"
#include "expr/vec.h"
#include "lancedb/table.h"
#include "query/plan.h"
#include "table/merge_rows.h"
#include "table/stable_row_ids.h"

namespace lancedb {

MergeInsertBuilder::MergeInsertBuilder(std::shared_ptr<Table> table, std::vector<std::string> on)
    : table_(std::move(table)) {
  request_.on = std::move(on);
}

MergeInsertBuilder& MergeInsertBuilder::WhenMatchedUpdateAll(std::optional<std::string> condition) {
  request_.when_matched_update_all = true;
  request_.when_matched_update_condition = std::move(condition);
  return *this;
}

MergeInsertBuilder& MergeInsertBuilder::WhenNotMatchedInsertAll() {
  request_.when_not_matched_insert_all = true;
  return *this;
}

MergeInsertBuilder& MergeInsertBuilder::WhenNotMatchedBySourceDelete(
    std::optional<std::string> condition) {
  request_.when_not_matched_by_source_delete = true;
  request_.when_not_matched_by_source_condition = std::move(condition);
  return *this;
}

MergeInsertBuilder& MergeInsertBuilder::Timeout(std::chrono::milliseconds timeout) {
  request_.timeout = timeout;
  request_.timeout_applies_to_first_attempt = true;
  return *this;
}

Result<MergeResult> MergeInsertBuilder::Execute(ArrowArrayStream* data) {
  return table_->ExecuteMergeInsert(request_, data);
}

MergeInsertBuilder Table::MergeInsert(std::vector<std::string> on) {
  return MergeInsertBuilder(shared_from_this(), std::move(on));
}

Result<MergeResult> Table::ExecuteMergeInsert(const MergeInsertRequest&, ArrowArrayStream*) {
  return Status::NotSupported("merge_insert is not supported by this table");
}

namespace db {
namespace {

std::string DescribeKey(const array::RecordBatch& batch, const std::vector<std::string>& on,
                        int64_t row) {
  std::string out;
  for (const auto& name : on) {
    auto col = batch.GetColumnByName(name);
    std::string v = array::ArrayToString(*array::Slice(col, row, 1), 1);
    if (v.size() >= 2 && v.front() == '[' && v.back() == ']') v = v.substr(1, v.size() - 2);
    out += (out.empty() ? "" : ", ") + name + "=" + v;
  }
  return out;
}

Result<array::RecordBatchPtr> TakeBatch(const array::RecordBatch& batch,
                                        const std::vector<int64_t>& rows) {
  std::vector<array::ArrayPtr> columns;
  columns.reserve(static_cast<size_t>(batch.num_columns()));
  for (const auto& c : batch.columns()) {
    LANCEDB_ASSIGN_OR_RETURN(auto taken, array::Take(c, rows));
    columns.push_back(std::move(taken));
  }
  return array::RecordBatch::Make(batch.schema(), std::move(columns),
                                  static_cast<int64_t>(rows.size()));
}

/// The input, validated and projected to the table's schema, with its key index. A source with
/// a subset of the table's columns (every key among them) has NULLs in the others: updated rows
/// keep the table's values there, inserted rows NULLs (the columns must be nullable).
struct MergeSource {
  array::RecordBatchPtr rows;
  std::optional<KeyIndex> index;
  std::vector<int64_t> unkeyed;  // rows with a NULL key part
  std::vector<int> missing;      // the table's columns the source lacks
};

Result<MergeSource> PrepareSource(const MergeInsertRequest& request, const array::Schema& table,
                                  array::RecordBatchReader* data) {
  if (request.on.empty()) {
    return Status::InvalidArgument("merge_insert requires at least one key column in 'on'");
  }
  for (const auto& key : request.on) {
    if (table.GetFieldIndex(key) < 0) {
      std::string names;
      for (const auto& f : table.fields()) names += (names.empty() ? "" : ", ") + f->name();
      return Status::InvalidArgument("merge_insert key column '" + key +
                                     "' not found in the table; columns are: " + names);
    }
  }
  if (!request.when_matched_update_all && !request.when_not_matched_insert_all &&
      !request.when_not_matched_by_source_delete) {
    return Status::InvalidArgument(
        "merge_insert does nothing: call when_matched_update_all, when_not_matched_insert_all "
        "or when_not_matched_by_source_delete");
  }
  const array::SchemaPtr& in_schema = data->schema();
  if (!in_schema) return Status::InvalidArgument("The merge_insert data has no schema");
  LANCEDB_ASSIGN_OR_RETURN(auto batches, data->ReadAll());
  LANCEDB_ASSIGN_OR_RETURN(auto all, array::ConcatenateBatches(in_schema, batches));
  std::vector<array::ArrayPtr> columns;
  std::vector<array::FieldPtr> fields;
  std::vector<int> missing;
  for (const auto& f : table.fields()) {
    int i = in_schema->GetFieldIndex(f->name());
    if (i < 0) {
      if (std::find(request.on.begin(), request.on.end(), f->name()) != request.on.end()) {
        return Status::InvalidArgument("The merge_insert data has no key column '" + f->name() +
                                       "'");
      }
      missing.push_back(static_cast<int>(columns.size()));
      columns.push_back(array::MakeNullArray(f->type(), all->num_rows()));
      continue;
    }
    if (!in_schema->field(i)->type()->Equals(*f->type())) {
      return Status::InvalidArgument("Column '" + f->name() + "' of the merge_insert data is " +
                                     in_schema->field(i)->type()->ToString() +
                                     " but the table's is " + f->type()->ToString());
    }
    columns.push_back(all->column(i));
    if (!f->nullable() && all->column(i)->null_count != 0) {
      return Status::InvalidArgument("Column '" + f->name() +
                                     "' is not nullable but the merge_insert data has NULLs");
    }
  }
  if (in_schema->num_fields() + static_cast<int>(missing.size()) != table.num_fields()) {
    for (const auto& f : in_schema->fields()) {
      if (table.GetFieldIndex(f->name()) < 0) {
        return Status::InvalidArgument("The merge_insert data has column '" + f->name() +
                                       "' which the table does not have");
      }
    }
  }
  MergeSource source;
  source.missing = std::move(missing);
  auto schema = std::make_shared<array::Schema>(table.fields());
  LANCEDB_ASSIGN_OR_RETURN(source.rows,
                           array::RecordBatch::Make(schema, std::move(columns), all->num_rows()));
  std::vector<array::ArrayPtr> key_columns;
  for (const auto& key : request.on) key_columns.push_back(source.rows->GetColumnByName(key));
  int64_t duplicate = -1;
  source.index.emplace(KeyColumns(std::move(key_columns), source.rows->num_rows()), &source.unkeyed,
                       &duplicate);
  if (duplicate >= 0) {
    return Status::InvalidArgument(
        "Ambiguous merge_insert: the data has more than one row with key (" +
        DescribeKey(*source.rows, request.on, duplicate) +
        "); keys in the data given to merge_insert must be unique");
  }
  return source;
}

/// A record batch of two struct columns, `target` and `source`, for the update condition.
Result<array::RecordBatchPtr> QualifiedBatch(const array::RecordBatchPtr& target,
                                             const array::RecordBatchPtr& source) {
  auto t = target->ToStructArray();
  auto s = source->ToStructArray();
  auto schema = std::make_shared<array::Schema>(std::vector<array::FieldPtr>{
      array::field("target", t->type, false), array::field("source", s->type, false)});
  return array::RecordBatch::Make(schema, {t, s}, target->num_rows());
}

/// The merge's conditions, bound, and the table columns the probe scan reads.
struct MergeConditions {
  std::optional<expr::BoundExpression> update_if;  // over QualifiedBatch(target, source)
  std::optional<std::string> delete_if;            // bound to the scan's schema
  std::vector<std::string> scan_columns;           // the keys, then the delete condition's
};

Result<MergeConditions> BindConditions(const MergeInsertRequest& request,
                                       const array::SchemaPtr& schema) {
  MergeConditions out;
  out.scan_columns = request.on;
  if (request.when_matched_update_all && request.when_matched_update_condition &&
      !request.when_matched_update_condition->empty()) {
    std::vector<array::ArrayPtr> cols;
    for (const auto& f : schema->fields()) cols.push_back(array::MakeNullArray(f->type(), 0));
    LANCEDB_ASSIGN_OR_RETURN(
        auto empty,
        array::RecordBatch::Make(std::make_shared<array::Schema>(schema->fields()), cols, 0));
    LANCEDB_ASSIGN_OR_RETURN(auto qualified, QualifiedBatch(empty, empty));
    auto bound = expr::ParseFilter(*request.when_matched_update_condition, *qualified->schema());
    if (!bound.ok()) return bound.status().WithContext("In when_matched_update_all(where=...)");
    out.update_if = bound.MoveValueUnsafe();
  }
  if (request.when_not_matched_by_source_delete && request.when_not_matched_by_source_condition &&
      !request.when_not_matched_by_source_condition->empty()) {
    auto bound = expr::ParseFilter(*request.when_not_matched_by_source_condition, *schema);
    if (!bound.ok()) {
      return bound.status().WithContext("In when_not_matched_by_source_delete(condition)");
    }
    for (const auto& c : bound->columns) {
      if (schema->GetFieldIndex(c) >= 0 &&
          std::find(out.scan_columns.begin(), out.scan_columns.end(), c) ==
              out.scan_columns.end()) {
        out.scan_columns.push_back(c);
      }
    }
    out.delete_if = *request.when_not_matched_by_source_condition;
  }
  return out;
}

/// What one merge attempt decided. Row ids are the scan's `_rowid` (stable ids on tables that
/// have them) until ResolveAddresses turns them into row addresses.
struct MergePlan {
  table::MergeChanges changes;    // replaced: matched rows; removed: rows deleted by source
  std::vector<int64_t> matches;   // per replaced row: the source row matched
  std::vector<int64_t> new_rows;  // source rows to write (updates then inserts)
  uint64_t num_updated = 0;
  uint64_t num_inserted = 0;
  uint64_t num_deleted = 0;
};

/// Match one batch of the table's key columns with the source; collect matches and, when the
/// request deletes unmatched rows, the rows to delete.
Status ProbeBatch(const MergeInsertRequest& request, const MergeSource& source,
                  const array::RecordBatch& batch, const expr::BoundExpression* delete_if,
                  std::vector<bool>* matched, MergePlan* plan) {
  const int64_t n = batch.num_rows();
  const uint64_t* row_ids = batch.GetColumnByName(expr::kRowIdColumn)->GetValues<uint64_t>(1);
  std::vector<array::ArrayPtr> key_columns;
  for (const auto& key : request.on) key_columns.push_back(batch.GetColumnByName(key));
  std::vector<int64_t> found;
  source.index->Probe(KeyColumns(std::move(key_columns), n), &found);
  std::vector<int64_t> missed;
  for (int64_t r = 0; r < n; ++r) {
    const int64_t s = found[static_cast<size_t>(r)];
    if (s < 0) {
      if (request.when_not_matched_by_source_delete) missed.push_back(r);
    } else {
      (*matched)[static_cast<size_t>(s)] = true;
      if (request.when_matched_update_all) {
        plan->changes.replaced.push_back(row_ids[r]);
        plan->matches.push_back(s);
      }
    }
  }
  if (!request.when_not_matched_by_source_delete || missed.empty()) return Status::OK();
  if (delete_if != nullptr) {
    LANCEDB_ASSIGN_OR_RETURN(auto rows, TakeBatch(batch, missed));
    LANCEDB_ASSIGN_OR_RETURN(auto pass, expr::EvaluateFilter(*delete_if, *rows));
    for (int64_t k : pass) plan->changes.removed.push_back(row_ids[missed[static_cast<size_t>(k)]]);
    plan->num_deleted += pass.size();
  } else {
    for (int64_t r : missed) plan->changes.removed.push_back(row_ids[r]);
    plan->num_deleted += missed.size();
  }
  return Status::OK();
}

/// On a table with stable row ids, turn the plan's row ids into row addresses.
Status ResolveAddresses(const table::Dataset& dataset, MergePlan* plan) {
  if (!table::UsesStableRowIds(dataset)) return Status::OK();
  auto& changes = plan->changes;
  if (changes.replaced.empty() && changes.removed.empty()) return Status::OK();
  std::vector<uint64_t> ids = changes.replaced;
  ids.insert(ids.end(), changes.removed.begin(), changes.removed.end());
  LANCEDB_ASSIGN_OR_RETURN(auto addresses, table::RowIdsToAddresses(dataset, ids));
  const auto split = addresses.begin() + static_cast<std::ptrdiff_t>(changes.replaced.size());
  changes.replaced.assign(addresses.begin(), split);
  changes.removed.assign(split, addresses.end());
  return Status::OK();
}

/// Keep the matched rows for which the update condition holds; reads the other columns of the
/// matched table rows only.
Status FilterUpdates(const expr::BoundExpression& update_if, const MergeSource& source,
                     const table::Dataset& dataset, MergePlan* plan) {
  constexpr size_t kChunk = 8192;
  std::vector<uint64_t> replaced;
  std::vector<int64_t> matches;
  for (size_t start = 0; start < plan->matches.size(); start += kChunk) {
    const auto first = static_cast<std::ptrdiff_t>(start);
    const auto last = static_cast<std::ptrdiff_t>(std::min(plan->matches.size(), start + kChunk));
    std::vector<uint64_t> addresses(plan->changes.replaced.begin() + first,
                                    plan->changes.replaced.begin() + last);
    std::vector<int64_t> rows(plan->matches.begin() + first, plan->matches.begin() + last);
    LANCEDB_ASSIGN_OR_RETURN(auto target, dataset.Take(addresses, dataset.schema()->field_names()));
    LANCEDB_ASSIGN_OR_RETURN(auto s, TakeBatch(*source.rows, rows));
    LANCEDB_ASSIGN_OR_RETURN(auto q, QualifiedBatch(target, s));
    LANCEDB_ASSIGN_OR_RETURN(auto pass, expr::EvaluateFilter(update_if, *q));
    for (int64_t k : pass) {
      replaced.push_back(addresses[static_cast<size_t>(k)]);
      matches.push_back(rows[static_cast<size_t>(k)]);
    }
  }
  plan->changes.replaced = std::move(replaced);
  plan->matches = std::move(matches);
  return Status::OK();
}

/// `key IN (...)` over the source's distinct keys, when the merge has one integer or string key
/// column and at most kMaxIndexedKeys of them (SQL the query planner hands to a BTREE on the
/// key); nullopt otherwise.
std::optional<std::string> KeyFilter(const MergeInsertRequest& request, const MergeSource& source) {
  constexpr size_t kMaxIndexedKeys = 50000;
  if (request.on.size() != 1 || request.when_not_matched_by_source_delete) return std::nullopt;
  const auto keys = source.rows->GetColumnByName(request.on[0]);
  if (!keys || static_cast<size_t>(keys->length) > kMaxIndexedKeys) return std::nullopt;
  std::string column = "`";
  for (char c : request.on[0]) column += c == '`' ? std::string("``") : std::string(1, c);
  column += "`";
  // Integer or utf8 keys only (large strings, binary, floats and temporal keys scan).
  const auto id = keys->type->id();
  if (id != array::TypeId::kString && (id < array::TypeId::kInt8 || id > array::TypeId::kUInt64)) {
    return std::nullopt;
  }
  auto kind = expr::KindOf(*keys->type);
  if (!kind.ok()) return std::nullopt;
  auto values = expr::FromArray(keys, *kind);
  if (!values.ok()) return std::nullopt;
  std::set<std::string> literals;
  for (int64_t r = 0; r < keys->length; ++r) {
    if (!values->IsValid(r)) continue;  // a NULL key matches nothing
    const auto row = static_cast<size_t>(r);
    if (*kind == expr::ValueKind::kInt) {
      literals.insert(values->is_unsigned ? std::to_string(static_cast<uint64_t>(values->ints[row]))
                                          : std::to_string(values->ints[row]));
      continue;
    }
    std::string quoted = "'";
    for (char c : values->strings[row]) quoted += c == '\'' ? std::string("''") : std::string(1, c);
    literals.insert(quoted + "'");
  }
  if (literals.empty()) return std::nullopt;
  std::string sql = column + " IN (";
  bool first = true;
  for (const auto& l : literals) {
    sql += (first ? "" : ", ") + l;
    first = false;
  }
  return sql + ")";
}

Result<MergePlan> PlanMerge(const MergeInsertRequest& request, const MergeSource& source,
                            const table::DatasetPtr& dataset) {
  LANCEDB_ASSIGN_OR_RETURN(auto conditions, BindConditions(request, dataset->schema()));
  std::unique_ptr<array::RecordBatchReader> scan;
  // Rows that can match: through a scalar index on the key where one covers the table (the
  // planner scans the fragments it does not cover), else every row's keys.
  if (auto filter = KeyFilter(request, source)) {
    QueryRequest lookup;
    lookup.filter = *filter;
    lookup.select = SelectKind::kColumns;
    lookup.columns = conditions.scan_columns;
    lookup.with_row_id = true;
    lookup.max_batch_length = 8192;
    LANCEDB_ASSIGN_OR_RETURN(auto planned, query::PlanQuery(dataset, lookup));
    if (planned.index_filter) {
      LANCEDB_ASSIGN_OR_RETURN(scan, query::ExecutePlan(std::move(planned)));
    }
  }
  if (!scan) {
    table::ScanOptions options;
    options.with_row_id = true;
    options.columns = conditions.scan_columns;
    LANCEDB_ASSIGN_OR_RETURN(scan, dataset->Scan(options));
  }
  std::optional<expr::BoundExpression> delete_if;
  if (conditions.delete_if) {
    LANCEDB_ASSIGN_OR_RETURN(delete_if, expr::ParseFilter(*conditions.delete_if, *scan->schema()));
  }
  MergePlan plan;
  std::vector<bool> matched(static_cast<size_t>(source.rows->num_rows()), false);
  while (true) {
    LANCEDB_ASSIGN_OR_RETURN(auto batch, scan->Next());
    if (!batch) break;
    LANCEDB_RETURN_NOT_OK(
        ProbeBatch(request, source, *batch, delete_if ? &*delete_if : nullptr, &matched, &plan));
  }
  LANCEDB_RETURN_NOT_OK(ResolveAddresses(*dataset, &plan));
  if (conditions.update_if) {
    LANCEDB_RETURN_NOT_OK(FilterUpdates(*conditions.update_if, source, *dataset, &plan));
  }
  plan.num_updated = plan.matches.size();
  plan.new_rows = plan.matches;
  if (request.when_not_matched_insert_all) {
    for (size_t s = 0; s < matched.size(); ++s) {
      if (!matched[s]) plan.new_rows.push_back(static_cast<int64_t>(s));
    }
    plan.num_inserted = plan.new_rows.size() - plan.num_updated;
  }
  return plan;
}

/// The rows to write with the columns the source lacks: the table's values for the updated rows
/// (the first plan.matches.size(), in the order of changes.replaced), NULLs for the inserted
/// ones, which a non-nullable column refuses.
Result<array::RecordBatchPtr> FillMissing(const table::Dataset& dataset, const MergeSource& source,
                                          const MergePlan& plan, array::RecordBatchPtr rows) {
  if (source.missing.empty()) return rows;
  const auto& schema = *dataset.schema();
  const auto updated = static_cast<int64_t>(plan.matches.size());
  if (rows->num_rows() > updated) {
    for (int c : source.missing) {
      if (!schema.field(c)->nullable()) {
        return Status::InvalidArgument("The merge_insert data has no column '" +
                                       schema.field(c)->name() +
                                       "', which is not nullable, for the rows it inserts");
      }
    }
  }
  if (updated == 0) return rows;
  std::vector<std::string> names;
  for (int c : source.missing) names.push_back(schema.field(c)->name());
  LANCEDB_ASSIGN_OR_RETURN(auto kept, dataset.Take(plan.changes.replaced, names));
  auto columns = rows->columns();
  std::vector<int64_t> head(static_cast<size_t>(updated)), tail;
  for (int64_t r = 0; r < updated; ++r) head[static_cast<size_t>(r)] = r;
  for (int64_t r = updated; r < rows->num_rows(); ++r) tail.push_back(r);
  LANCEDB_ASSIGN_OR_RETURN(auto updated_rows, TakeBatch(*rows, head));
  auto updated_columns = updated_rows->columns();
  for (size_t k = 0; k < source.missing.size(); ++k) {
    updated_columns[static_cast<size_t>(source.missing[k])] = kept->column(static_cast<int>(k));
  }
  LANCEDB_ASSIGN_OR_RETURN(
      updated_rows, array::RecordBatch::Make(rows->schema(), std::move(updated_columns), updated));
  if (tail.empty()) return updated_rows;
  LANCEDB_ASSIGN_OR_RETURN(auto inserted, TakeBatch(*rows, tail));
  return array::ConcatenateBatches(rows->schema(), {updated_rows, inserted});
}

/// Commit the plan on top of `dataset`; returns `dataset` itself when nothing changes.
Result<table::DatasetPtr> CommitMerge(const table::DatasetPtr& dataset, const MergeSource& source,
                                      const MergePlan& plan) {
  const auto& changes = plan.changes;
  if (changes.replaced.empty() && changes.removed.empty() && plan.new_rows.empty()) {
    return dataset;
  }
  if (plan.new_rows.empty()) {
    int64_t deleted = 0;
    return dataset->DeleteRows(changes.removed, &deleted);
  }
  LANCEDB_ASSIGN_OR_RETURN(auto rows, TakeBatch(*source.rows, plan.new_rows));
  LANCEDB_ASSIGN_OR_RETURN(rows, FillMissing(*dataset, source, plan, std::move(rows)));
  LANCEDB_ASSIGN_OR_RETURN(
      rows, array::RecordBatch::Make(dataset->schema(), rows->columns(), rows->num_rows()));
  auto reader = array::MakeVectorReader(dataset->schema(), {rows});
  // As LanceDB: new values name no external blob outside the registered base paths.
  if (changes.replaced.empty() && changes.removed.empty()) {
    table::WriteParams params;
    params.allow_external_blob_outside_bases = false;
    return dataset->Append(reader.get(), params);
  }
  table::MergeRowsOptions options;
  options.allow_external_blob_outside_bases = false;
  return table::MergeRows(dataset, changes, reader.get(), nullptr, options);
}

}  // namespace

Result<MergeResult> LocalTable::ExecuteMergeInsert(const MergeInsertRequest& request,
                                                   ArrowArrayStream* data) {
  if (data == nullptr || data->release == nullptr) {
    return Status::InvalidArgument("merge_insert requires a valid ArrowArrayStream");
  }
  const auto start = std::chrono::steady_clock::now();
  LANCEDB_ASSIGN_OR_RETURN(auto reader, array::ImportArrayStream(data));
  LANCEDB_RETURN_NOT_OK(CheckWritable());
  LANCEDB_ASSIGN_OR_RETURN(auto first, LatestForWrite());
  LANCEDB_ASSIGN_OR_RETURN(MergeSource source,
                           PrepareSource(request, *first->schema(), reader.get()));
  const auto deadline = start + request.timeout;
  auto timed_out = [&] {
    return request.timeout_applies_to_first_attempt && std::chrono::steady_clock::now() >= deadline;
  };
  return ExecuteWithRetry("merge_insert", request.timeout, [&](int attempt) -> Result<MergeResult> {
    if (timed_out()) return Status::Cancelled("merge insert timed out");
    table::DatasetPtr latest = first;
    if (attempt > 1) {
      LANCEDB_ASSIGN_OR_RETURN(latest, LatestForWrite());
      if (!latest->schema()->Equals(*source.rows->schema())) {
        return Status::CommitConflict("The table's schema changed during merge_insert");
      }
    }
    LANCEDB_ASSIGN_OR_RETURN(MergePlan plan, PlanMerge(request, source, latest));
    if (timed_out()) return Status::Cancelled("merge insert timed out");
    LANCEDB_ASSIGN_OR_RETURN(auto committed, CommitMerge(latest, source, plan));
    Publish(committed);
    return MergeResult{committed->version(), plan.num_inserted, plan.num_updated, plan.num_deleted,
                       static_cast<uint32_t>(attempt)};
  });
}

}  // namespace db
}  // namespace lancedb
