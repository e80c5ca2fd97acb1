// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// LocalTable::ExecuteMergeInsert: a hash join of the input (build side, held in memory) with a
// scan of the table (probe side). Matched table rows that are updated and unmatched rows deleted
// by source become deletion-file entries; the input rows that replace them and the inserted rows
// are written as new fragments, all in one Update commit (an Append when only inserting). A
// commit conflict the table layer cannot rebase over re-runs the whole merge on the newest
// version until the request's timeout.

#include <chrono>
#include <cstring>
#include <unordered_map>

#include "array/c_bridge.h"
#include "common/bit_util.h"
#include "db/query_exec.h"
#include "db/table_impl.h"
#include "expr/evaluator.h"
#include "lancedb/table.h"
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

/// Append a self-delimiting encoding of value `i` of `a` to `key`; false for NULL.
bool AppendKey(const array::ArrayData& a, int64_t i, std::string* key) {
  if (a.IsNull(i)) return false;
  const auto& type = *a.type;
  if (type.id() == array::TypeId::kBool) {
    key->push_back(bit_util::GetBit(a.buffers[1]->data(), a.offset + i) ? '\1' : '\0');
  } else if (type.is_binary_like()) {
    std::string_view v = a.GetView(i);
    uint64_t n = v.size();
    key->append(reinterpret_cast<const char*>(&n), sizeof(n));
    key->append(v);
  } else if (!type.is_nested() && type.byte_width() > 0) {
    const int w = type.byte_width();
    key->append(reinterpret_cast<const char*>(a.buffers[1]->data()) + (a.offset + i) * w,
                static_cast<size_t>(w));
  } else {
    std::string s =
        array::ArrayToString(*array::Slice(std::make_shared<array::ArrayData>(a), i, 1), 1 << 20);
    uint64_t n = s.size();
    key->append(reinterpret_cast<const char*>(&n), sizeof(n));
    key->append(s);
  }
  return true;
}

/// Keys of every row of `columns`; nullopt for rows with a NULL key part.
std::vector<std::optional<std::string>> EncodeKeys(const std::vector<array::ArrayPtr>& columns,
                                                   int64_t num_rows) {
  std::vector<std::optional<std::string>> keys(static_cast<size_t>(num_rows));
  for (int64_t r = 0; r < num_rows; ++r) {
    std::string key;
    bool valid = true;
    for (const auto& c : columns) valid = valid && AppendKey(*c, r, &key);
    if (valid) keys[static_cast<size_t>(r)] = std::move(key);
  }
  return keys;
}

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

/// The input, validated and projected to the table's schema, with its key index.
struct MergeSource {
  array::RecordBatchPtr rows;
  std::unordered_map<std::string, int64_t> index;  // key -> row
  std::vector<int64_t> unkeyed;                    // rows with a NULL key part
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
  for (const auto& f : table.fields()) {
    int i = in_schema->GetFieldIndex(f->name());
    if (i < 0) {
      return Status::InvalidArgument("The merge_insert data has no column '" + f->name() +
                                     "'; it must have every column of the table");
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
  if (in_schema->num_fields() != table.num_fields()) {
    for (const auto& f : in_schema->fields()) {
      if (table.GetFieldIndex(f->name()) < 0) {
        return Status::InvalidArgument("The merge_insert data has column '" + f->name() +
                                       "' which the table does not have");
      }
    }
  }
  MergeSource source;
  auto schema = std::make_shared<array::Schema>(table.fields());
  LANCEDB_ASSIGN_OR_RETURN(source.rows,
                           array::RecordBatch::Make(schema, std::move(columns), all->num_rows()));
  std::vector<array::ArrayPtr> key_columns;
  for (const auto& key : request.on) key_columns.push_back(source.rows->GetColumnByName(key));
  auto keys = EncodeKeys(key_columns, source.rows->num_rows());
  source.index.reserve(keys.size());
  for (int64_t r = 0; r < source.rows->num_rows(); ++r) {
    auto& key = keys[static_cast<size_t>(r)];
    if (!key) {
      source.unkeyed.push_back(r);
      continue;
    }
    auto [it, inserted] = source.index.emplace(std::move(*key), r);
    if (!inserted) {
      return Status::InvalidArgument(
          "Ambiguous merge_insert: the data has more than one row with key (" +
          DescribeKey(*source.rows, request.on, r) +
          "); keys in the data given to merge_insert must be unique");
    }
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

/// What one merge attempt decided.
struct MergePlan {
  std::vector<uint64_t> removed;  // row addresses replaced or deleted
  std::vector<int64_t> new_rows;  // source rows to write (updates then inserts)
  uint64_t num_updated = 0;
  uint64_t num_inserted = 0;
  uint64_t num_deleted = 0;
};

Result<MergePlan> PlanMerge(const MergeInsertRequest& request, const MergeSource& source,
                            const table::DatasetPtr& dataset) {
  const array::SchemaPtr& schema = dataset->schema();
  std::optional<expr::BoundExpression> update_if;
  std::optional<expr::BoundExpression> delete_if;
  if (request.when_matched_update_all && request.when_matched_update_condition &&
      !request.when_matched_update_condition->empty()) {
    auto t = std::make_shared<array::Schema>(schema->fields());
    auto empty = array::RecordBatch::Make(
        t,
        [&] {
          std::vector<array::ArrayPtr> cols;
          for (const auto& f : t->fields()) cols.push_back(array::MakeNullArray(f->type(), 0));
          return cols;
        }(),
        0);
    LANCEDB_RETURN_NOT_OK(empty.status());
    LANCEDB_ASSIGN_OR_RETURN(auto qualified, QualifiedBatch(*empty, *empty));
    auto bound = expr::ParseFilter(*request.when_matched_update_condition, *qualified->schema());
    if (!bound.ok()) return bound.status().WithContext("In when_matched_update_all(where=...)");
    update_if = bound.MoveValueUnsafe();
  }
  if (request.when_not_matched_by_source_delete && request.when_not_matched_by_source_condition &&
      !request.when_not_matched_by_source_condition->empty()) {
    auto bound = expr::ParseFilter(*request.when_not_matched_by_source_condition, *schema);
    if (!bound.ok()) {
      return bound.status().WithContext("In when_not_matched_by_source_delete(condition)");
    }
    delete_if = bound.MoveValueUnsafe();
  }
  table::ScanOptions options;
  options.with_row_id = true;
  if (!update_if && !delete_if) options.columns = request.on;
  LANCEDB_ASSIGN_OR_RETURN(auto scan, dataset->Scan(options));
  MergePlan plan;
  std::vector<bool> matched(static_cast<size_t>(source.rows->num_rows()), false);
  while (true) {
    LANCEDB_ASSIGN_OR_RETURN(auto batch, scan->Next());
    if (!batch) break;
    const int64_t n = batch->num_rows();
    const uint64_t* row_ids = batch->GetColumnByName(expr::kRowIdColumn)->GetValues<uint64_t>(1);
    std::vector<array::ArrayPtr> key_columns;
    for (const auto& key : request.on) key_columns.push_back(batch->GetColumnByName(key));
    auto keys = EncodeKeys(key_columns, n);
    std::vector<int64_t> hit_target, hit_source, missed;
    for (int64_t r = 0; r < n; ++r) {
      const auto& key = keys[static_cast<size_t>(r)];
      auto it = key ? source.index.find(*key) : source.index.end();
      if (it == source.index.end()) {
        missed.push_back(r);
      } else {
        matched[static_cast<size_t>(it->second)] = true;
        hit_target.push_back(r);
        hit_source.push_back(it->second);
      }
    }
    if (request.when_matched_update_all && !hit_target.empty()) {
      std::vector<int64_t> pass;
      if (update_if) {
        LANCEDB_ASSIGN_OR_RETURN(auto table_cols, batch->SelectColumns(schema->field_names()));
        LANCEDB_ASSIGN_OR_RETURN(auto t, TakeBatch(*table_cols, hit_target));
        LANCEDB_ASSIGN_OR_RETURN(auto s, TakeBatch(*source.rows, hit_source));
        LANCEDB_ASSIGN_OR_RETURN(auto q, QualifiedBatch(t, s));
        LANCEDB_ASSIGN_OR_RETURN(pass, expr::EvaluateFilter(*update_if, *q));
      } else {
        for (size_t k = 0; k < hit_target.size(); ++k) pass.push_back(static_cast<int64_t>(k));
      }
      for (int64_t k : pass) {
        plan.removed.push_back(row_ids[hit_target[static_cast<size_t>(k)]]);
        plan.new_rows.push_back(hit_source[static_cast<size_t>(k)]);
      }
      plan.num_updated += pass.size();
    }
    if (request.when_not_matched_by_source_delete && !missed.empty()) {
      std::vector<int64_t> pass;
      if (delete_if) {
        LANCEDB_ASSIGN_OR_RETURN(auto t, TakeBatch(*batch, missed));
        LANCEDB_ASSIGN_OR_RETURN(pass, expr::EvaluateFilter(*delete_if, *t));
        for (auto& k : pass) k = missed[static_cast<size_t>(k)];
      } else {
        pass = std::move(missed);
      }
      for (int64_t r : pass) plan.removed.push_back(row_ids[r]);
      plan.num_deleted += pass.size();
    }
  }
  if (table::UsesStableRowIds(*dataset) && !plan.removed.empty()) {
    LANCEDB_ASSIGN_OR_RETURN(plan.removed, table::RowIdsToAddresses(*dataset, plan.removed));
  }
  if (request.when_not_matched_insert_all) {
    for (size_t s = 0; s < matched.size(); ++s) {
      if (!matched[s]) plan.new_rows.push_back(static_cast<int64_t>(s));
    }
    plan.num_inserted = plan.new_rows.size() - plan.num_updated;
  }
  return plan;
}

/// Commit the plan on top of `dataset`; returns `dataset` itself when nothing changes.
Result<table::DatasetPtr> CommitMerge(const table::DatasetPtr& dataset, const MergeSource& source,
                                      const MergePlan& plan) {
  if (plan.removed.empty() && plan.new_rows.empty()) return dataset;
  if (plan.new_rows.empty()) {
    int64_t deleted = 0;
    return dataset->DeleteRows(plan.removed, &deleted);
  }
  LANCEDB_ASSIGN_OR_RETURN(auto rows, TakeBatch(*source.rows, plan.new_rows));
  LANCEDB_ASSIGN_OR_RETURN(
      rows, array::RecordBatch::Make(dataset->schema(), rows->columns(), rows->num_rows()));
  auto reader = array::MakeVectorReader(dataset->schema(), {rows});
  if (plan.removed.empty()) return dataset->Append(reader.get());
  if (table::UsesStableRowIds(*dataset) && plan.new_rows.size() != plan.removed.size()) {
    return Status::NotSupported(
        "merge_insert combining updates with inserts or deletes is not supported on tables with "
        "stable row ids yet");
  }
  int64_t replaced = 0;
  return dataset->UpdateRows(plan.removed, reader.get(), &replaced);
}

}  // namespace

Result<MergeResult> LocalTable::ExecuteMergeInsert(const MergeInsertRequest& request,
                                                   ArrowArrayStream* data) {
  if (data == nullptr || data->release == nullptr) {
    return Status::InvalidArgument("merge_insert requires a valid ArrowArrayStream");
  }
  LANCEDB_ASSIGN_OR_RETURN(auto reader, array::ImportArrayStream(data));
  LANCEDB_RETURN_NOT_OK(CheckWritable());
  LANCEDB_ASSIGN_OR_RETURN(auto first, LatestForWrite());
  LANCEDB_ASSIGN_OR_RETURN(MergeSource source,
                           PrepareSource(request, *first->schema(), reader.get()));
  const auto deadline = std::chrono::steady_clock::now() + request.timeout;
  table::DatasetPtr latest = first;
  for (uint32_t attempt = 1;; ++attempt) {
    if (attempt > 1) {
      LANCEDB_ASSIGN_OR_RETURN(latest, LatestForWrite());
      if (!latest->schema()->Equals(*source.rows->schema())) {
        return Status::CommitConflict("The table's schema changed during merge_insert");
      }
    }
    LANCEDB_ASSIGN_OR_RETURN(MergePlan plan, PlanMerge(request, source, latest));
    auto committed = CommitMerge(latest, source, plan);
    if (!committed.ok()) {
      if (committed.status().IsCommitConflict() && std::chrono::steady_clock::now() < deadline) {
        continue;
      }
      return committed.status().WithContext("merge_insert (attempt " + std::to_string(attempt) +
                                            ")");
    }
    Publish(*committed);
    return MergeResult{(*committed)->version(), plan.num_inserted, plan.num_updated,
                       plan.num_deleted, attempt};
  }
}

}  // namespace db
}  // namespace lancedb
