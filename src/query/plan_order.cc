// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Ordered results (QueryRequest::order_by) and fragment restriction. An ordered plain query
// runs in two steps: its sort input — the same filter, takes and fragments, reading only the
// key columns, `_rowid` and `_rowaddr` — streams every matching row; those are ordered
// (array/sort.h, a top-k when there is a limit), [offset, offset + limit) is kept, and the
// output columns are taken for the kept rows only, in order, a batch at a time.

#include <algorithm>
#include <set>
#include <string>

#include "array/sort.h"
#include "expr/evaluator.h"
#include "query/plan.h"
#include "query/plan_internal.h"

namespace lancedb::query {

namespace {

std::string Quoted(const std::string& name) {
  std::string out = "`";
  for (char c : name) out += c == '`' ? std::string("``") : std::string(1, c);
  return out + "`";
}

std::string JoinIds(const std::vector<uint64_t>& ids, size_t at_most) {
  std::string out;
  for (size_t i = 0; i < ids.size() && i < at_most; ++i) {
    out += (i ? ", " : "") + std::to_string(ids[i]);
  }
  if (ids.size() > at_most) out += ", ...";
  return out;
}

/// Streams an ordered plan (see the file comment). Externally synchronized.
class SortedReader : public array::RecordBatchReader {
 public:
  SortedReader(QueryPlan plan, std::unique_ptr<array::RecordBatchReader> keys,
               std::shared_ptr<QueryMetrics> metrics)
      : plan_(std::move(plan)), keys_(std::move(keys)), metrics_(std::move(metrics)) {
    std::set<std::string> columns;
    for (const auto& o : plan_.outputs) {
      for (const auto& c : o.columns) {
        if (!expr::IsVirtualColumn(c)) columns.insert(c);
      }
    }
    take_columns_.assign(columns.begin(), columns.end());
    if (take_columns_.empty()) {
      // Take needs a column to read; a cheap one when the outputs read none.
      for (const auto& f : plan_.dataset->schema()->fields()) {
        if (!f->type()->is_nested()) {
          take_columns_.push_back(f->name());
          break;
        }
      }
      if (take_columns_.empty() && plan_.dataset->schema()->num_fields() > 0) {
        take_columns_.push_back(plan_.dataset->schema()->field(0)->name());
      }
    }
  }

  array::SchemaPtr schema() const override { return plan_.output_schema; }

  Result<array::RecordBatchPtr> Next() override {
    if (keys_) LANCEDB_RETURN_NOT_OK(Order());
    if (next_ >= addresses_.size()) return array::RecordBatchPtr();
    const size_t n = std::min(addresses_.size() - next_, static_cast<size_t>(plan_.batch_size));
    auto slice = [&](const std::vector<uint64_t>& v) {
      return std::vector<uint64_t>(v.begin() + static_cast<std::ptrdiff_t>(next_),
                                   v.begin() + static_cast<std::ptrdiff_t>(next_ + n));
    };
    const std::vector<uint64_t> addresses = slice(addresses_);
    LANCEDB_ASSIGN_OR_RETURN(auto taken, plan_.dataset->Take(addresses, take_columns_));
    if (!row_offsets_.empty()) {
      LANCEDB_ASSIGN_OR_RETURN(
          taken, internal::WithColumns(
                     *taken, {{expr::kRowOffsetColumn, internal::U64Array(slice(row_offsets_))}}));
    }
    auto ids = internal::U64Array(slice(row_ids_));
    next_ += n;
    if (metrics_) metrics_->output_rows += static_cast<int64_t>(n);
    return internal::Project(plan_, *taken, ids, internal::U64Array(addresses));
  }

 private:
  /// Read the sort input whole, order it and keep the rows of [offset, offset + limit).
  Status Order() {
    const array::SchemaPtr schema = keys_->schema();
    LANCEDB_ASSIGN_OR_RETURN(auto batches, keys_->ReadAll());
    keys_.reset();
    if (metrics_) metrics_->output_rows = 0;  // the sort input counted its rows
    if (batches.empty()) return Status::OK();
    LANCEDB_ASSIGN_OR_RETURN(auto all, array::ConcatenateBatches(batches[0]->schema(), batches));
    if (all->num_rows() == 0) return Status::OK();
    std::vector<array::SortKey> keys;
    for (size_t i = 0; i < plan_.order_by.size(); ++i) {
      const auto& k = plan_.order_by[i];
      keys.push_back({all->column(static_cast<int>(i)), k.ascending, k.nulls_first});
    }
    const int64_t limit = plan_.limit >= 0 ? plan_.offset + plan_.limit : -1;
    LANCEDB_ASSIGN_OR_RETURN(auto order, array::SortIndices(keys, limit));
    const uint64_t* ids = all->GetColumnByName(expr::kRowIdColumn)->GetValues<uint64_t>(1);
    const uint64_t* addresses = all->GetColumnByName(kRowAddrColumn)->GetValues<uint64_t>(1);
    auto offsets_column = all->GetColumnByName(expr::kRowOffsetColumn);
    const uint64_t* offsets = offsets_column ? offsets_column->GetValues<uint64_t>(1) : nullptr;
    for (size_t k = static_cast<size_t>(plan_.offset); k < order.size(); ++k) {
      const auto row = static_cast<size_t>(order[k]);
      row_ids_.push_back(ids[row]);
      addresses_.push_back(addresses[row]);
      if (offsets) row_offsets_.push_back(offsets[row]);
    }
    return Status::OK();
  }

  QueryPlan plan_;
  std::unique_ptr<array::RecordBatchReader> keys_;  // null once ordered
  std::shared_ptr<QueryMetrics> metrics_;
  std::vector<std::string> take_columns_;
  // The kept rows, in output order.
  std::vector<uint64_t> row_ids_;
  std::vector<uint64_t> addresses_;
  std::vector<uint64_t> row_offsets_;  // when an output reads _rowoffset
  size_t next_ = 0;
};

}  // namespace

Result<std::vector<OrderKey>> BindOrdering(const std::vector<ColumnOrdering>& ordering,
                                           const array::Schema& schema) {
  std::vector<OrderKey> keys;
  for (const auto& o : ordering) {
    // A top-level column by its name (quoted: any spelling), else a struct member's path.
    const bool top_level = schema.GetFieldIndex(o.column) >= 0;
    auto bound = expr::ParseAndBind(top_level ? Quoted(o.column) : o.column, schema);
    const bool column = bound.ok() && bound->root->op == expr::BoundOp::kColumn &&
                        (top_level || !expr::IsVirtualColumn(bound->root->path[0]));
    if (!column) {
      const auto dot = o.column.find('.');
      if (!bound.ok() && dot != std::string::npos &&
          schema.GetFieldIndex(o.column.substr(0, dot)) >= 0) {
        return bound.status().WithContext("order_by");  // a bad member of a struct column
      }
      // GetFieldByName's NotFound names the column and lists the table's.
      return Status::InvalidArgument("order_by: " +
                                     schema.GetFieldByName(o.column).status().message());
    }
    keys.push_back({bound.MoveValueUnsafe(), o.ascending, o.nulls_first});
  }
  return keys;
}

std::string OrderingText(const std::vector<OrderKey>& keys) {
  std::string out;
  for (size_t i = 0; i < keys.size(); ++i) {
    const auto& k = keys[i];
    std::string name;
    for (const auto& part : k.key.root->path) name += (name.empty() ? "" : ".") + part;
    out += (i ? ", " : "") + name + (k.ascending ? " ASC" : " DESC") +
           (k.nulls_first ? " NULLS FIRST" : " NULLS LAST");
  }
  return out;
}

Result<std::vector<int64_t>> OrderRowsAt(const table::Dataset& dataset,
                                         const std::vector<uint64_t>& addresses,
                                         const std::vector<OrderKey>& keys, int64_t limit) {
  if (addresses.empty()) return std::vector<int64_t>{};
  std::set<std::string> columns;
  for (const auto& k : keys) columns.insert(k.key.columns.begin(), k.key.columns.end());
  LANCEDB_ASSIGN_OR_RETURN(
      auto rows, dataset.Take(addresses, std::vector<std::string>(columns.begin(), columns.end())));
  std::vector<array::SortKey> sort_keys;
  for (const auto& k : keys) {
    LANCEDB_ASSIGN_OR_RETURN(auto values, expr::Evaluate(k.key, *rows));
    sort_keys.push_back({std::move(values), k.ascending, k.nulls_first});
  }
  return array::SortIndices(sort_keys, limit);
}

Result<table::DatasetPtr> RestrictToFragments(const table::DatasetPtr& dataset,
                                              const std::vector<uint64_t>& fragment_ids) {
  const std::set<uint64_t> wanted(fragment_ids.begin(), fragment_ids.end());
  std::set<uint64_t> present;
  std::vector<uint64_t> all;
  for (const auto& f : dataset->manifest().proto().fragments()) {
    present.insert(f.id());
    all.push_back(f.id());
  }
  std::vector<uint64_t> missing;
  for (uint64_t id : wanted) {
    if (!present.count(id)) missing.push_back(id);
  }
  if (!missing.empty()) {
    return Status::InvalidArgument("fragment_ids not found in dataset: " + JoinIds(missing, 20) +
                                   " (version " + std::to_string(dataset->version()) +
                                   " has fragments " + (all.empty() ? "none" : JoinIds(all, 20)) +
                                   ")");
  }
  return internal::FragmentView(dataset, [&wanted](uint64_t f) { return wanted.count(f) > 0; });
}

namespace internal {

Result<QueryPlan> PlanSortInput(const table::DatasetPtr& dataset, const QueryRequest& request,
                                const QueryPlan& plan) {
  QueryRequest input = request;
  input.order_by.clear();
  input.limit.reset();
  input.offset = 0;
  input.select = SelectKind::kDynamic;
  input.columns.clear();
  input.dynamic.clear();
  for (size_t i = 0; i < plan.order_by.size(); ++i) {
    input.dynamic.emplace_back("_key" + std::to_string(i), plan.order_by[i].key.sql);
  }
  bool row_offset = false;
  for (const auto& o : plan.outputs) row_offset |= o.columns.count(expr::kRowOffsetColumn) > 0;
  if (row_offset) input.dynamic.emplace_back(expr::kRowOffsetColumn, expr::kRowOffsetColumn);
  input.with_row_id = true;
  input.with_row_address = true;
  input.max_batch_length = 8192;
  return PlanQuery(dataset, input);
}

std::unique_ptr<array::RecordBatchReader> MakeSortedReader(
    QueryPlan plan, std::unique_ptr<array::RecordBatchReader> keys,
    std::shared_ptr<QueryMetrics> metrics) {
  return std::make_unique<SortedReader>(std::move(plan), std::move(keys), std::move(metrics));
}

std::string ExplainSort(const QueryPlan& plan) {
  std::string top;
  if (plan.limit >= 0) top = "TopK(fetch=" + std::to_string(plan.offset + plan.limit) + "), ";
  return "SortExec: " + top + "expr=[" + OrderingText(plan.order_by) +
         "], preserve_partitioning=[false]";
}

}  // namespace internal

}  // namespace lancedb::query
