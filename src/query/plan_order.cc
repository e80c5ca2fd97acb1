// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Ordered results (QueryRequest::order_by) and fragment restriction. An ordered plain query
// runs in two steps: its sort input — the same filter, takes and fragments, reading the key
// columns, `_rowid` and `_rowaddr` (and, without a small limit, the output columns) — streams
// every matching row; those are ordered (array/sort.h, a top-k when there is a limit),
// [offset, offset + limit) is kept, and the output columns are gathered for the kept rows, a
// batch at a time. With a small limit (QueryPlan::late_sort) the output columns are read for
// the kept rows only, with one Take.

#include <algorithm>
#include <numeric>
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

/// The top-level columns of `schema` the outputs of `plan` read (a cheap one when they read
/// none: a batch needs a column to have rows).
std::vector<std::string> OutputColumns(const QueryPlan& plan, const array::Schema& schema) {
  std::set<std::string> columns;
  for (const auto& o : plan.outputs) {
    for (const auto& c : o.columns) {
      if (!expr::IsVirtualColumn(c)) columns.insert(c);
    }
  }
  std::vector<std::string> out(columns.begin(), columns.end());
  if (out.empty()) {
    for (const auto& f : schema.fields()) {
      if (!f->type()->is_nested()) {
        out.push_back(f->name());
        break;
      }
    }
    if (out.empty() && schema.num_fields() > 0) out.push_back(schema.field(0)->name());
  }
  return out;
}

/// Streams an ordered plan (see the file comment). Externally synchronized.
class SortedReader : public array::RecordBatchReader {
 public:
  SortedReader(QueryPlan plan, std::unique_ptr<array::RecordBatchReader> keys,
               std::shared_ptr<QueryMetrics> metrics)
      : plan_(std::move(plan)),
        keys_(std::move(keys)),
        metrics_(std::move(metrics)),
        columns_(OutputColumns(plan_, *plan_.dataset->schema())) {}

  array::SchemaPtr schema() const override { return plan_.output_schema; }

  Result<array::RecordBatchPtr> Next() override {
    if (keys_) LANCEDB_RETURN_NOT_OK(Order());
    if (next_ >= order_.size()) return array::RecordBatchPtr();
    const size_t n = std::min(order_.size() - next_, static_cast<size_t>(plan_.batch_size));
    const std::vector<int64_t> chunk(order_.begin() + static_cast<std::ptrdiff_t>(next_),
                                     order_.begin() + static_cast<std::ptrdiff_t>(next_ + n));
    next_ += n;
    std::vector<array::ArrayPtr> columns;
    for (const auto& c : rows_->columns()) {
      LANCEDB_ASSIGN_OR_RETURN(auto taken, array::Take(c, chunk));
      columns.push_back(std::move(taken));
    }
    LANCEDB_ASSIGN_OR_RETURN(
        auto input, array::RecordBatch::Make(rows_->schema(), columns, static_cast<int64_t>(n)));
    LANCEDB_ASSIGN_OR_RETURN(auto ids, array::Take(row_ids_, chunk));
    LANCEDB_ASSIGN_OR_RETURN(auto addresses, array::Take(addresses_, chunk));
    if (metrics_) metrics_->output_rows += static_cast<int64_t>(n);
    return internal::Project(plan_, *input, ids, addresses);
  }

 private:
  /// Read the sort input whole, order it, keep the rows of [offset, offset + limit) and have
  /// their output columns at hand: from the sort input, or (late_sort) taken now.
  Status Order() {
    const int64_t limit = plan_.limit >= 0 ? plan_.offset + plan_.limit : -1;
    array::RecordBatchPtr all;
    if (plan_.late_sort) {
      LANCEDB_ASSIGN_OR_RETURN(all, BestRows(limit));
      order_.resize(all ? static_cast<size_t>(all->num_rows()) : 0);
      std::iota(order_.begin(), order_.end(), int64_t{0});  // already in order
    } else {
      LANCEDB_ASSIGN_OR_RETURN(auto batches, keys_->ReadAll());
      if (!batches.empty()) {
        LANCEDB_ASSIGN_OR_RETURN(all, array::ConcatenateBatches(batches[0]->schema(), batches));
      }
      if (all && all->num_rows() > 0) {
        LANCEDB_ASSIGN_OR_RETURN(order_, array::SortIndices(SortKeys(*all), limit));
      }
    }
    keys_.reset();
    if (metrics_) metrics_->output_rows = 0;  // the sort input counted its rows
    if (!all || order_.empty()) {
      order_.clear();
      return Status::OK();
    }
    order_.erase(order_.begin(),
                 order_.begin() + std::min<std::ptrdiff_t>(
                                      static_cast<std::ptrdiff_t>(order_.size()), plan_.offset));
    row_ids_ = all->GetColumnByName(expr::kRowIdColumn);
    addresses_ = all->GetColumnByName(kRowAddrColumn);
    if (!plan_.late_sort) {
      std::vector<std::string> names = columns_;
      if (all->GetColumnByName(expr::kRowOffsetColumn)) names.push_back(expr::kRowOffsetColumn);
      LANCEDB_ASSIGN_OR_RETURN(rows_, all->SelectColumns(names));
      return Status::OK();
    }
    // Few rows are kept: take their output columns now, in order, with one Take.
    LANCEDB_ASSIGN_OR_RETURN(row_ids_, array::Take(row_ids_, order_));
    LANCEDB_ASSIGN_OR_RETURN(addresses_, array::Take(addresses_, order_));
    std::vector<uint64_t> kept(addresses_->GetValues<uint64_t>(1),
                               addresses_->GetValues<uint64_t>(1) + addresses_->length);
    LANCEDB_ASSIGN_OR_RETURN(rows_, plan_.dataset->Take(kept, columns_));
    if (auto offsets = all->GetColumnByName(expr::kRowOffsetColumn)) {
      LANCEDB_ASSIGN_OR_RETURN(offsets, array::Take(offsets, order_));
      LANCEDB_ASSIGN_OR_RETURN(rows_,
                               internal::WithColumns(*rows_, {{expr::kRowOffsetColumn, offsets}}));
    }
    std::iota(order_.begin(), order_.end(), int64_t{0});
    return Status::OK();
  }

  /// The sort keys of the rows of a sort input batch.
  std::vector<array::SortKey> SortKeys(const array::RecordBatch& rows) const {
    std::vector<array::SortKey> keys;
    for (size_t i = 0; i < plan_.order_by.size(); ++i) {
      const auto& k = plan_.order_by[i];
      keys.push_back({rows.GetColumnByName(internal::kSortKeyPrefix + std::to_string(i)),
                      k.ascending, k.nulls_first});
    }
    return keys;
  }

  /// The first `limit` rows of the sort input in order, kept batch by batch (a top-k that
  /// holds at most `limit` rows besides the batch read). Earlier rows come first in each
  /// merge, so ties keep their scan order. Null when the input has no batch.
  Result<array::RecordBatchPtr> BestRows(int64_t limit) {
    array::RecordBatchPtr best;
    while (true) {
      LANCEDB_ASSIGN_OR_RETURN(auto batch, keys_->Next());
      if (!batch) break;
      if (batch->num_rows() == 0 && best) continue;
      auto candidates = batch;
      if (best) {
        LANCEDB_ASSIGN_OR_RETURN(candidates,
                                 array::ConcatenateBatches(best->schema(), {best, batch}));
      }
      LANCEDB_ASSIGN_OR_RETURN(auto order, array::SortIndices(SortKeys(*candidates), limit));
      std::vector<array::ArrayPtr> columns;
      for (const auto& c : candidates->columns()) {
        LANCEDB_ASSIGN_OR_RETURN(auto kept, array::Take(c, order));
        columns.push_back(std::move(kept));
      }
      LANCEDB_ASSIGN_OR_RETURN(best,
                               array::RecordBatch::Make(candidates->schema(), std::move(columns),
                                                        static_cast<int64_t>(order.size())));
    }
    return best;
  }

  QueryPlan plan_;
  std::unique_ptr<array::RecordBatchReader> keys_;  // null once ordered
  std::shared_ptr<QueryMetrics> metrics_;
  const std::vector<std::string> columns_;  // read by the outputs
  // The rows at hand (output columns, `_rowoffset`), their `_rowid` and `_rowaddr`, and the
  // positions of the kept rows among them in output order.
  array::RecordBatchPtr rows_;
  array::ArrayPtr row_ids_;
  array::ArrayPtr addresses_;
  std::vector<int64_t> order_;
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
    input.dynamic.emplace_back(kSortKeyPrefix + std::to_string(i), plan.order_by[i].key.sql);
  }
  if (!plan.late_sort) {
    for (const auto& c : OutputColumns(plan, *dataset->schema())) {
      input.dynamic.emplace_back(c, Quoted(c));
    }
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
