// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "query/plan.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "expr/evaluator.h"
#include "expr/parser.h"
#include "expr/prune.h"
#include "format/blob.h"
#include "index/scalar_index_manager.h"
#include "query/plan_internal.h"
#include "table/dataset_impl.h"
#include "table/deletion.h"
#include "table/manifest.h"
#include "table/row_ids.h"
#include "table/stable_row_ids.h"

namespace lancedb::query {

namespace internal {

array::ArrayPtr U64Array(const std::vector<uint64_t>& values) {
  return array::ArrayData::Make(array::uint64(), static_cast<int64_t>(values.size()),
                                {nullptr, Buffer::FromVector(values)});
}

Result<array::RecordBatchPtr> Project(const QueryPlan& plan, const array::RecordBatch& input,
                                      const array::ArrayPtr& row_ids,
                                      const array::ArrayPtr& addresses) {
  std::vector<array::ArrayPtr> columns;
  for (const auto& out : plan.outputs) {
    LANCEDB_ASSIGN_OR_RETURN(auto col, expr::Evaluate(out, input));
    columns.push_back(std::move(col));
  }
  if (plan.with_row_id) columns.push_back(row_ids);
  if (plan.with_row_address) columns.push_back(addresses);
  return array::RecordBatch::Make(plan.output_schema, std::move(columns), input.num_rows());
}

Result<array::RecordBatchPtr> WithColumns(
    const array::RecordBatch& batch,
    const std::vector<std::pair<std::string, array::ArrayPtr>>& extra, bool nullable) {
  auto fields = batch.schema()->fields();
  auto columns = batch.columns();
  for (const auto& [name, arr] : extra) {
    fields.push_back(array::field(name, arr->type, nullable));
    columns.push_back(arr);
  }
  return array::RecordBatch::Make(array::schema(fields), columns, batch.num_rows());
}

Result<table::DatasetPtr> FragmentView(const table::DatasetPtr& dataset,
                                       const std::function<bool(uint64_t)>& keep) {
  table::pb::Manifest subset = dataset->manifest().proto();
  subset.clear_fragments();
  for (const auto& f : dataset->manifest().proto().fragments()) {
    if (keep(f.id())) *subset.add_fragments() = f;
  }
  LANCEDB_ASSIGN_OR_RETURN(auto manifest, table::Manifest::Make(std::move(subset), {}));
  return table::MakeDataset(dataset->fs(), dataset->path(), manifest, dataset->manifest_naming());
}

}  // namespace internal

namespace {

using internal::FragmentView;
using internal::Project;
using internal::U64Array;
using internal::WithColumns;

/// A column the scan can always read cheaply when the filter needs none.
std::string CheapestColumn(const array::Schema& schema) {
  for (const auto& f : schema.fields()) {
    if (!f->type()->is_nested()) return f->name();
  }
  return schema.num_fields() > 0 ? schema.field(0)->name() : "";
}

/// Streams a filtered, projected scan. Externally synchronized.
class QueryReader : public array::RecordBatchReader {
 public:
  QueryReader(QueryPlan plan, std::unique_ptr<array::RecordBatchReader> scan,
              std::shared_ptr<QueryMetrics> metrics = nullptr)
      : plan_(std::move(plan)), scan_(std::move(scan)), metrics_(std::move(metrics)) {}

  array::SchemaPtr schema() const override { return plan_.output_schema; }
  const QueryPlan& plan() const { return plan_; }
  void SetScan(std::unique_ptr<array::RecordBatchReader> scan) { scan_ = std::move(scan); }

  Result<array::RecordBatchPtr> Next() override {
    // Gather passing rows over scan batches until a full output batch, so that the late
    // columns are taken in few, large Take calls (each opens the data files).
    while (pending_rows_ < plan_.batch_size && !scan_done_) {
      LANCEDB_ASSIGN_OR_RETURN(auto selected, NextSelected());
      if (selected == nullptr) {
        scan_done_ = true;
      } else if (selected->num_rows() > 0) {
        pending_rows_ += selected->num_rows();
        pending_.push_back(std::move(selected));
      }
    }
    if (pending_.empty()) return array::RecordBatchPtr();
    array::RecordBatchPtr all = pending_.front();
    if (pending_.size() > 1) {
      LANCEDB_ASSIGN_OR_RETURN(all,
                               array::ConcatenateBatches(pending_.front()->schema(), pending_));
    }
    pending_.clear();
    pending_rows_ = 0;
    array::RecordBatchPtr out = all;
    if (all->num_rows() > plan_.batch_size) {
      out = all->Slice(0, plan_.batch_size);
      pending_.push_back(all->Slice(plan_.batch_size, all->num_rows() - plan_.batch_size));
      pending_rows_ = pending_.back()->num_rows();
    }
    auto ids = out->GetColumnByName(expr::kRowIdColumn);
    auto addrs = out->GetColumnByName(kRowAddrColumn);
    if (!plan_.late_columns.empty()) {
      std::vector<uint64_t> addresses(addrs->GetValues<uint64_t>(1),
                                      addrs->GetValues<uint64_t>(1) + addrs->length);
      LANCEDB_ASSIGN_OR_RETURN(auto late, plan_.dataset->Take(addresses, plan_.late_columns));
      std::vector<std::pair<std::string, array::ArrayPtr>> extra;
      for (int i = 0; i < late->num_columns(); ++i) {
        extra.emplace_back(late->schema()->field(i)->name(), late->column(i));
      }
      LANCEDB_ASSIGN_OR_RETURN(out, WithColumns(*out, extra));
    }
    if (metrics_) metrics_->output_rows += out->num_rows();
    return Project(plan_, *out, ids, addrs);
  }

 private:
  /// The next scan batch reduced to its passing rows (after OFFSET and LIMIT); nullptr at the
  /// end of the scan or once LIMIT rows were passed.
  Result<array::RecordBatchPtr> NextSelected() {
    if (plan_.limit >= 0 && emitted_ >= plan_.limit) return array::RecordBatchPtr();
    LANCEDB_ASSIGN_OR_RETURN(auto batch, scan_->Next());
    if (batch == nullptr) return batch;
    const int64_t n = batch->num_rows();
    if (plan_.needs_row_offset) {
      std::vector<uint64_t> offsets(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i)
        offsets[static_cast<size_t>(i)] = static_cast<uint64_t>(seen_ + i);
      LANCEDB_ASSIGN_OR_RETURN(batch,
                               WithColumns(*batch, {{expr::kRowOffsetColumn, U64Array(offsets)}}));
    }
    seen_ += n;
    if (metrics_) metrics_->rows_scanned += n;
    std::vector<int64_t> keep;
    if (plan_.filter) {
      LANCEDB_ASSIGN_OR_RETURN(keep, expr::EvaluateFilter(*plan_.filter, *batch));
    } else {
      keep.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) keep[static_cast<size_t>(i)] = i;
    }
    // OFFSET and LIMIT apply to the matching rows.
    if (skipped_ < plan_.offset) {
      int64_t drop = std::min<int64_t>(plan_.offset - skipped_, static_cast<int64_t>(keep.size()));
      keep.erase(keep.begin(), keep.begin() + drop);
      skipped_ += drop;
    }
    if (plan_.limit >= 0 && emitted_ + static_cast<int64_t>(keep.size()) > plan_.limit) {
      keep.resize(static_cast<size_t>(plan_.limit - emitted_));
    }
    emitted_ += static_cast<int64_t>(keep.size());
    return Select(*batch, keep);
  }

  static Result<array::RecordBatchPtr> Select(const array::RecordBatch& batch,
                                              const std::vector<int64_t>& keep) {
    if (static_cast<int64_t>(keep.size()) == batch.num_rows()) {
      return std::make_shared<array::RecordBatch>(batch);
    }
    std::vector<array::ArrayPtr> columns;
    for (const auto& c : batch.columns()) {
      LANCEDB_ASSIGN_OR_RETURN(auto t, array::Take(c, keep));
      columns.push_back(std::move(t));
    }
    return array::RecordBatch::Make(batch.schema(), std::move(columns),
                                    static_cast<int64_t>(keep.size()));
  }

  QueryPlan plan_;
  std::unique_ptr<array::RecordBatchReader> scan_;
  std::shared_ptr<QueryMetrics> metrics_;
  std::vector<array::RecordBatchPtr> pending_;  // passing rows not yet returned
  int64_t pending_rows_ = 0;
  bool scan_done_ = false;
  int64_t seen_ = 0;
  int64_t skipped_ = 0;
  int64_t emitted_ = 0;
};

/// A bound reference to a top-level column of any type (Evaluate returns it unchanged).
expr::BoundExpression PassThrough(const array::Field& field) {
  auto root = std::make_shared<expr::BoundExpr>();
  root->op = expr::BoundOp::kColumn;
  root->path = {field.name()};
  root->type = field.type();
  expr::BoundExpression out;
  out.root = std::move(root);
  out.columns = {field.name()};
  out.sql = field.name();
  return out;
}

/// The scan of the plan's columns (and row ids) over `dataset`, skipping the row ranges whose
/// statistics prove the filter cannot match (_rowoffset counts every row, so it needs them all).
Result<std::unique_ptr<array::RecordBatchReader>> ScanReader(const QueryPlan& plan,
                                                             const table::DatasetPtr& dataset,
                                                             QueryMetrics* metrics) {
  table::ScanOptions options;
  options.columns = plan.scan_columns;
  options.with_row_id = true;
  options.with_row_address = true;
  // A filter passes few rows per scanned batch: scan in larger batches (output batches keep
  // at most plan.batch_size rows).
  options.batch_size = plan.filter ? std::max<int64_t>(plan.batch_size, 8192) : plan.batch_size;
  if (plan.filter && !plan.needs_row_offset) {
    options.may_match = expr::MakeRangePredicate(plan.filter->root);
    if (metrics) {
      options.may_match =
          [metrics, may = std::move(options.may_match)](const format::RangeStatsLookup& stats) {
            const bool read = may(stats);
            (read ? metrics->zones_read : metrics->zones_pruned) += 1;
            return read;
          };
    }
  }
  if (metrics) metrics->fragments_scanned += dataset->manifest().proto().fragments_size();
  return dataset->Scan(options);
}

/// The `_rowid` values of rows at `addresses`: the addresses, or their stable ids.
Result<std::vector<uint64_t>> RowIdsOf(const table::Dataset& dataset,
                                       const std::vector<uint64_t>& addresses) {
  if (!table::UsesStableRowIds(dataset)) return addresses;
  std::map<uint64_t, std::vector<uint64_t>> ids_of;
  std::map<uint64_t, const table::pb::DataFragment*> frags;
  for (const auto& f : dataset.manifest().proto().fragments()) frags[f.id()] = &f;
  std::vector<uint64_t> out;
  out.reserve(addresses.size());
  for (uint64_t addr : addresses) {
    const uint64_t frag = addr >> 32;
    auto it = ids_of.find(frag);
    if (it == ids_of.end()) {
      LANCEDB_ASSIGN_OR_RETURN(
          auto ids, table::FragmentRowIds(*dataset.fs(), dataset.path(), *frags.at(frag)));
      it = ids_of.emplace(frag, std::move(ids)).first;
    }
    out.push_back(it->second.at(addr & 0xFFFFFFFFu));
  }
  return out;
}

/// The rows an index lookup returned (taken in chunks, with `_rowid`), then a scan of the
/// fragments the lookups do not cover: the input of a QueryReader. Externally synchronized.
class IndexedScanReader : public array::RecordBatchReader {
 public:
  IndexedScanReader(const QueryPlan& plan, std::vector<uint64_t> candidates,
                    std::shared_ptr<QueryMetrics> metrics)
      : plan_(plan), candidates_(std::move(candidates)), metrics_(std::move(metrics)) {}

  array::SchemaPtr schema() const override { return nullptr; }

  Result<array::RecordBatchPtr> Next() override {
    if (next_ < candidates_.size()) {
      const size_t n = std::min(kChunk, candidates_.size() - next_);
      std::vector<uint64_t> chunk(candidates_.begin() + next_, candidates_.begin() + next_ + n);
      next_ += n;
      LANCEDB_ASSIGN_OR_RETURN(auto taken, plan_.dataset->Take(chunk, plan_.scan_columns));
      LANCEDB_ASSIGN_OR_RETURN(auto ids, RowIdsOf(*plan_.dataset, chunk));
      return WithColumns(*taken,
                         {{expr::kRowIdColumn, U64Array(ids)}, {kRowAddrColumn, U64Array(chunk)}},
                         /*nullable=*/false);
    }
    if (!scan_) {
      const auto& covered = plan_.index_filter->fragments;
      LANCEDB_ASSIGN_OR_RETURN(
          auto rest, FragmentView(plan_.dataset, [&](uint64_t f) { return !covered.count(f); }));
      LANCEDB_ASSIGN_OR_RETURN(scan_, ScanReader(plan_, rest, metrics_.get()));
    }
    return scan_->Next();
  }

 private:
  static constexpr size_t kChunk = 8192;
  const QueryPlan& plan_;  // owned by the QueryReader this feeds
  std::vector<uint64_t> candidates_;
  size_t next_ = 0;
  std::unique_ptr<array::RecordBatchReader> scan_;
  std::shared_ptr<QueryMetrics> metrics_;
};

}  // namespace

Result<QueryPlan> PlanQuery(table::DatasetPtr dataset, const QueryRequest& request) {
  QueryPlan plan;
  bool use_scalar_index = request.use_scalar_index;
  if (request.fragment_ids) {
    if (request.take_offsets || request.take_row_ids) {
      return Status::NotSupported(
          "fragment_ids cannot restrict take_offsets / take_row_ids; restrict a scan");
    }
    LANCEDB_ASSIGN_OR_RETURN(dataset, RestrictToFragments(dataset, *request.fragment_ids));
    // The scalar indices answer for whole fragments of the table, not of the view: scan.
    use_scalar_index = false;
  }
  const array::Schema& schema = *dataset->schema();
  if (request.filter && !request.filter->empty()) {
    LANCEDB_ASSIGN_OR_RETURN(auto filter, expr::ParseFilter(*request.filter, schema));
    plan.filter = std::move(filter);
  }
  std::vector<std::pair<std::string, std::string>> outputs;
  switch (request.select) {
    case SelectKind::kAll:
      for (const auto& f : schema.fields()) {
        std::string quoted = "`";
        for (char c : f->name()) quoted += c == '`' ? std::string("``") : std::string(1, c);
        outputs.emplace_back(f->name(), quoted + "`");
      }
      break;
    case SelectKind::kColumns:
      for (const auto& c : request.columns) outputs.emplace_back(c, c);
      break;
    case SelectKind::kDynamic:
      outputs = request.dynamic;
      break;
  }
  std::set<std::string> output_columns;
  std::vector<array::FieldPtr> fields;
  // A column passed through unchanged keeps its field: nullability and metadata included.
  std::vector<array::FieldPtr> passthrough(outputs.size());
  // Blob columns are read (and passed through) as their descriptors.
  LANCEDB_ASSIGN_OR_RETURN(auto read_schema,
                           format::BlobReadSchema(dataset->manifest().schema(), false));
  if (request.select == SelectKind::kAll) {
    passthrough = read_schema->fields();
  } else if (request.select == SelectKind::kColumns) {
    for (size_t i = 0; i < outputs.size(); ++i) {
      int index = read_schema->GetFieldIndex(outputs[i].second);
      if (index >= 0) passthrough[i] = read_schema->field(index);
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto& [name, sql] = outputs[i];
    if (passthrough[i] != nullptr) {
      // A plain column needs no expression support for its type: it is passed through as read.
      plan.outputs.push_back(PassThrough(*passthrough[i]));
      output_columns.insert(passthrough[i]->name());
      fields.push_back(passthrough[i]->WithName(name));
      plan.output_names.push_back(name);
      continue;
    }
    auto bound = expr::ParseAndBind(sql, schema);
    if (!bound.ok()) return bound.status().WithContext("In select '" + name + "'");
    output_columns.insert(bound->columns.begin(), bound->columns.end());
    fields.push_back(array::field(name, bound->root->type));
    plan.output_names.push_back(name);
    plan.outputs.push_back(bound.MoveValueUnsafe());
  }
  plan.with_row_id = request.with_row_id;
  if (plan.with_row_id) fields.push_back(array::field(expr::kRowIdColumn, array::uint64(), false));
  plan.with_row_address = request.with_row_address;
  if (plan.with_row_address) fields.push_back(array::field(kRowAddrColumn, array::uint64(), false));
  plan.output_schema = array::schema(std::move(fields), request.select == SelectKind::kAll
                                                            ? schema.metadata()
                                                            : array::KeyValueMetadata{});
  if (request.offset < 0) return Status::InvalidArgument("Offset must be non-negative");
  if (request.limit && *request.limit < 0)
    return Status::InvalidArgument("Limit must be non-negative");
  plan.offset = request.offset;
  plan.limit = request.limit && *request.limit > 0 ? *request.limit : -1;
  plan.batch_size = std::max<int64_t>(request.max_batch_length, 1);
  if (!request.order_by.empty()) {
    LANCEDB_ASSIGN_OR_RETURN(plan.order_by, BindOrdering(request.order_by, schema));
  }
  plan.needs_row_offset = output_columns.count(expr::kRowOffsetColumn) > 0;
  std::set<std::string> scan;
  if (plan.filter) {
    plan.needs_row_offset |= plan.filter->columns.count(expr::kRowOffsetColumn) > 0;
    for (const auto& c : plan.filter->columns) {
      if (!expr::IsVirtualColumn(c)) scan.insert(c);
    }
    for (const auto& c : output_columns) {
      if (!expr::IsVirtualColumn(c) && !scan.count(c)) plan.late_columns.push_back(c);
    }
  } else {
    for (const auto& c : output_columns) {
      if (!expr::IsVirtualColumn(c)) scan.insert(c);
    }
  }
  if (scan.empty() && schema.num_fields() > 0) scan.insert(CheapestColumn(schema));
  plan.scan_columns.assign(scan.begin(), scan.end());
  // As LanceDB does, taken rows come back in table order (duplicates kept), not request order.
  plan.take_offsets = request.take_offsets;
  if (plan.take_offsets) std::sort(plan.take_offsets->begin(), plan.take_offsets->end());
  // A row id names one row: repeated ids give it once (offsets, positions, repeat it).
  plan.take_row_ids = request.take_row_ids;
  if (plan.take_row_ids) {
    auto& ids = *plan.take_row_ids;
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  }
  // Scalar indices answer the filter where they cover the table (not with _rowoffset, which
  // numbers the rows of a full scan, nor for takes).
  // An ordered plan reads through its sort input, which makes this choice for itself.
  if (plan.filter && !plan.needs_row_offset && !plan.take_offsets && !plan.take_row_ids &&
      use_scalar_index && plan.order_by.empty()) {
    LANCEDB_ASSIGN_OR_RETURN(auto segments, index::LoadScalarIndices(*dataset));
    if (!segments.empty()) {
      plan.segments =
          std::make_shared<const std::vector<index::ScalarSegment>>(std::move(segments));
      plan.index_filter = PlanIndexFilter(*plan.filter->root, *plan.segments);
    }
  }
  if (plan.index_filter && plan.index_filter->exact &&
      plan.index_filter->fragments.size() ==
          static_cast<size_t>(dataset->manifest().proto().fragments_size())) {
    // Every row read comes from the lookups and passes the filter: read all columns at once
    // (late materialization only pays when a scan's rows may fail the filter).
    plan.scan_columns.insert(plan.scan_columns.end(), plan.late_columns.begin(),
                             plan.late_columns.end());
    plan.late_columns.clear();
  }
  if (!plan.order_by.empty()) {
    QueryRequest input = request;
    input.fragment_ids.reset();  // `dataset` is already the view
    input.use_scalar_index = use_scalar_index;
    // Rows kept at most for which the output columns are taken after sorting.
    constexpr int64_t kLateSortRows = 16384;
    plan.late_sort = plan.limit >= 0 && plan.offset + plan.limit <= kLateSortRows;
    LANCEDB_ASSIGN_OR_RETURN(auto keys, internal::PlanSortInput(dataset, input, plan));
    plan.sort_input = std::make_shared<const QueryPlan>(std::move(keys));
  }
  plan.dataset = std::move(dataset);
  return plan;
}

namespace {

/// A plan reading only `_rowaddr` of the rows where `filter` (SQL) is TRUE.
Result<QueryPlan> PlanRowIds(const table::DatasetPtr& dataset, const std::string* filter,
                             bool use_scalar_index) {
  QueryRequest request;
  if (filter) request.filter = *filter;
  request.select = SelectKind::kDynamic;
  request.with_row_address = true;
  request.max_batch_length = 8192;
  request.use_scalar_index = use_scalar_index;
  return PlanQuery(dataset, request);
}

/// Run a PlanRowIds plan: the `_rowaddr` values (or only their number, with `count_only`).
Status RunRowIds(QueryPlan plan, bool count_only, std::vector<uint64_t>* ids, int64_t* count) {
  LANCEDB_ASSIGN_OR_RETURN(auto reader, ExecutePlan(std::move(plan)));
  while (true) {
    LANCEDB_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (!batch) break;
    *count += batch->num_rows();
    if (count_only) continue;
    const auto& col = batch->column(batch->num_columns() - 1);
    ids->insert(ids->end(), col->GetValues<uint64_t>(1), col->GetValues<uint64_t>(1) + col->length);
  }
  return Status::OK();
}

/// The rows where `filter` is TRUE: addresses (ascending within the indexed fragments, then in
/// scan order) unless `count_only`, and their number. An exact index filter answers for the
/// fragments it covers without reading them; the others are scanned.
Status Matching(const table::DatasetPtr& dataset, const std::string* filter, bool count_only,
                std::vector<uint64_t>* addresses, int64_t* count) {
  LANCEDB_ASSIGN_OR_RETURN(auto plan, PlanRowIds(dataset, filter, /*use_scalar_index=*/true));
  *count = 0;
  std::vector<uint64_t> ids;  // addresses of the scanned part
  if (plan.index_filter && plan.index_filter->exact) {
    if (count_only) {
      LANCEDB_ASSIGN_OR_RETURN(*count, CountIndexFilter(*plan.index_filter, *dataset));
    } else {
      LANCEDB_ASSIGN_OR_RETURN(*addresses, EvaluateIndexFilter(*plan.index_filter, *dataset));
      *count = static_cast<int64_t>(addresses->size());
    }
    const std::set<uint64_t> covered = plan.index_filter->fragments;
    LANCEDB_ASSIGN_OR_RETURN(auto rest,
                             FragmentView(dataset, [&](uint64_t f) { return !covered.count(f); }));
    if (rest->manifest().proto().fragments_size() > 0) {
      LANCEDB_ASSIGN_OR_RETURN(auto scan, PlanRowIds(rest, filter, /*use_scalar_index=*/false));
      LANCEDB_RETURN_NOT_OK(RunRowIds(std::move(scan), count_only, &ids, count));
    }
  } else {
    LANCEDB_RETURN_NOT_OK(RunRowIds(std::move(plan), count_only, &ids, count));
  }
  if (count_only || ids.empty()) return Status::OK();
  addresses->insert(addresses->end(), ids.begin(), ids.end());
  return Status::OK();
}

}  // namespace

Result<std::vector<uint64_t>> MatchingRowAddresses(const table::DatasetPtr& dataset,
                                                   const expr::BoundExpression* filter) {
  std::vector<uint64_t> out;
  int64_t count = 0;
  LANCEDB_RETURN_NOT_OK(
      Matching(dataset, filter ? &filter->sql : nullptr, /*count_only=*/false, &out, &count));
  return out;
}

Result<int64_t> CountMatchingRows(const table::DatasetPtr& dataset, const std::string& filter) {
  std::vector<uint64_t> unused;
  int64_t count = 0;
  LANCEDB_RETURN_NOT_OK(Matching(dataset, &filter, /*count_only=*/true, &unused, &count));
  return count;
}

namespace {

// Row addresses of the live rows at `offsets` (sorted ascending; an offset counts the rows not
// deleted, in table order). Only fragments holding a requested offset have their deletion
// files read; a fragment whose row count the manifest does not give falls back to a scan.
Result<std::vector<uint64_t>> OffsetsToAddresses(const table::DatasetPtr& dataset,
                                                 const std::vector<uint64_t>& offsets) {
  const auto& proto = dataset->manifest().proto();
  std::vector<uint64_t> out;
  out.reserve(offsets.size());
  size_t next = 0;    // first offset not yet resolved
  uint64_t base = 0;  // live rows in earlier fragments
  for (const auto& frag : proto.fragments()) {
    if (frag.physical_rows() == 0 && frag.files_size() > 0) {
      LANCEDB_ASSIGN_OR_RETURN(auto all, MatchingRowAddresses(dataset, nullptr));
      out.clear();
      for (uint64_t off : offsets) {
        if (off >= all.size()) break;
        out.push_back(all[off]);
      }
      base = all.size();
      next = out.size();
      break;
    }
    const uint64_t physical = frag.physical_rows();
    const bool has_deletions = frag.has_deletion_file();
    uint64_t live = physical;
    if (has_deletions && frag.deletion_file().num_deleted_rows() > 0) {
      live = physical - std::min(physical, frag.deletion_file().num_deleted_rows());
    }
    const bool count_known = !has_deletions || frag.deletion_file().num_deleted_rows() > 0;
    if (next < offsets.size() && (!count_known || offsets[next] < base + live)) {
      std::vector<uint32_t> deleted;
      if (has_deletions) {
        LANCEDB_ASSIGN_OR_RETURN(
            deleted, table::ReadDeletions(*dataset->fs(), dataset->path(), proto, frag));
        std::sort(deleted.begin(), deleted.end());
        deleted.erase(std::unique(deleted.begin(), deleted.end()), deleted.end());
        live = physical - std::min<uint64_t>(physical, deleted.size());
      }
      // Walk the requested offsets inside this fragment and the deleted rows together.
      size_t d = 0;
      uint64_t skipped = 0;  // deleted rows before the current physical position
      while (next < offsets.size() && offsets[next] < base + live) {
        uint64_t physical_row = offsets[next] - base + skipped;
        while (d < deleted.size() && deleted[d] <= physical_row) {
          ++d;
          ++skipped;
          physical_row = offsets[next] - base + skipped;
        }
        out.push_back((frag.id() << 32) | physical_row);
        ++next;
      }
    }
    base += live;
  }
  if (next < offsets.size()) {
    return Status::InvalidArgument("Offset " + std::to_string(offsets[next]) +
                                   " is out of range; the table has " + std::to_string(base) +
                                   " rows");
  }
  return out;
}

}  // namespace

namespace {

/// Stream a plan whose filter scalar indices answer (in part).
Result<std::unique_ptr<array::RecordBatchReader>> ExecuteWithIndex(
    QueryPlan plan, std::shared_ptr<QueryMetrics> metrics) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<int64_t> pages_before;
  for (const auto& s : *plan.segments) pages_before.push_back(s.index->pages_loaded());
  LANCEDB_ASSIGN_OR_RETURN(auto candidates, EvaluateIndexFilter(*plan.index_filter, *plan.dataset));
  if (metrics) {
    metrics->index_candidates += static_cast<int64_t>(candidates.size());
    metrics->index_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (size_t i = 0; i < plan.segments->size(); ++i) {
      metrics->index_pages_loaded += (*plan.segments)[i].index->pages_loaded() - pages_before[i];
    }
  }
  auto reader = std::make_unique<QueryReader>(std::move(plan), nullptr, metrics);
  reader->SetScan(
      std::make_unique<IndexedScanReader>(reader->plan(), std::move(candidates), metrics));
  return std::unique_ptr<array::RecordBatchReader>(std::move(reader));
}

}  // namespace

Result<std::unique_ptr<array::RecordBatchReader>> ExecutePlan(
    QueryPlan plan, std::shared_ptr<QueryMetrics> metrics) {
  if (plan.sort_input) {
    LANCEDB_ASSIGN_OR_RETURN(auto keys, ExecutePlan(*plan.sort_input, metrics));
    return internal::MakeSortedReader(std::move(plan), std::move(keys), std::move(metrics));
  }
  if (plan.take_offsets || plan.take_row_ids) {
    std::vector<uint64_t> addresses;
    std::vector<uint64_t> row_ids;
    if (plan.take_row_ids) {
      addresses = row_ids = *plan.take_row_ids;
      if (table::UsesStableRowIds(*plan.dataset)) {
        LANCEDB_ASSIGN_OR_RETURN(addresses, table::RowIdsToAddresses(*plan.dataset, addresses));
      }
    } else {
      LANCEDB_ASSIGN_OR_RETURN(addresses, OffsetsToAddresses(plan.dataset, *plan.take_offsets));
      LANCEDB_ASSIGN_OR_RETURN(row_ids, RowIdsOf(*plan.dataset, addresses));
    }
    std::set<std::string> cols;
    for (const auto& o : plan.outputs) cols.insert(o.columns.begin(), o.columns.end());
    if (plan.filter) cols.insert(plan.filter->columns.begin(), plan.filter->columns.end());
    std::vector<std::string> names;
    for (const auto& c : cols) {
      if (!expr::IsVirtualColumn(c)) names.push_back(c);
    }
    if (names.empty()) names.push_back(CheapestColumn(*plan.dataset->schema()));
    LANCEDB_ASSIGN_OR_RETURN(auto taken, plan.dataset->Take(addresses, names));
    LANCEDB_ASSIGN_OR_RETURN(taken, WithColumns(*taken,
                                                {{expr::kRowIdColumn, U64Array(row_ids)},
                                                 {kRowAddrColumn, U64Array(addresses)}},
                                                /*nullable=*/false));
    auto reader = array::MakeVectorReader(taken->schema(), {taken});
    plan.scan_columns = names;
    plan.late_columns.clear();
    plan.needs_row_offset = false;
    return std::unique_ptr<array::RecordBatchReader>(
        std::make_unique<QueryReader>(std::move(plan), std::move(reader), std::move(metrics)));
  }
  if (plan.index_filter) return ExecuteWithIndex(std::move(plan), std::move(metrics));
  LANCEDB_ASSIGN_OR_RETURN(auto scan, ScanReader(plan, plan.dataset, metrics.get()));
  return std::unique_ptr<array::RecordBatchReader>(
      std::make_unique<QueryReader>(std::move(plan), std::move(scan), std::move(metrics)));
}

namespace {

void FlattenAnd(const expr::NodePtr& node, std::vector<expr::NodePtr>* out) {
  if (node->kind == expr::NodeKind::kBinary && node->op == expr::BinaryOp::kAnd) {
    FlattenAnd(node->args[0], out);
    FlattenAnd(node->args[1], out);
  } else {
    out->push_back(node);
  }
}

/// The conjuncts of `filter` (its top-level AND chain) numbered in `residual`, as SQL joined
/// by AND; "--" when none.
std::string ResidualSql(const std::string& filter, const std::vector<size_t>& residual) {
  if (residual.empty()) return "--";
  auto parsed = expr::Parse(filter);
  if (!parsed.ok()) return filter;
  std::vector<expr::NodePtr> conjuncts;
  FlattenAnd(*parsed, &conjuncts);
  std::string out;
  for (size_t i : residual) {
    if (i >= conjuncts.size()) return filter;
    out += (out.empty() ? "" : " AND ") + expr::ToSql(*conjuncts[i]);
  }
  return out;
}

}  // namespace

std::string AnalyzeText(const std::string& plan, const std::string& metrics, double seconds) {
  char elapsed[48];
  std::snprintf(elapsed, sizeof(elapsed), "elapsed=%.3fms", seconds * 1e3);
  std::string out =
      std::string("AnalyzeExec verbose=true, ") + elapsed + ", metrics=[" + metrics + "]\n";
  for (size_t start = 0; start < plan.size();) {
    size_t end = plan.find('\n', start);
    if (end == std::string::npos) end = plan.size();
    out += "  " + plan.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

std::string ExplainPlan(const QueryPlan& plan, bool verbose) {
  std::string out;
  std::string indent;
  auto line = [&](const std::string& text) {
    out += indent + text + "\n";
    indent += "  ";
  };
  if (verbose) {
    std::string exprs;
    for (size_t i = 0; i < plan.outputs.size(); ++i) {
      exprs += (i ? ", " : "") + plan.outputs[i].sql + " as " + plan.output_names[i];
    }
    line("ProjectionExec: expr=[" + exprs + "]");
  }
  if (plan.limit >= 0 || plan.offset > 0) {
    line("GlobalLimitExec: skip=" + std::to_string(plan.offset) +
         ", fetch=" + (plan.limit >= 0 ? std::to_string(plan.limit) : std::string("None")));
  }
  if (plan.sort_input) {
    // The ordering reads the keys of every matching row, then the outputs of the kept ones.
    line(internal::ExplainSort(plan));
    std::string input = ExplainPlan(*plan.sort_input, /*verbose=*/false);
    for (size_t start = 0; start < input.size();) {
      const size_t end = input.find('\n', start);
      out += indent + input.substr(start, end - start) + "\n";
      start = end == std::string::npos ? input.size() : end + 1;
    }
    return out;
  }
  std::string projection;
  for (size_t i = 0; i < plan.scan_columns.size(); ++i) {
    projection += (i ? ", " : "") + plan.scan_columns[i];
  }
  const int fragments = plan.dataset->manifest().proto().fragments_size();
  const std::string filter = plan.filter ? plan.filter->sql : "--";
  std::string refine = filter;
  if (plan.index_filter) refine = ResidualSql(filter, plan.index_filter->residual);
  std::string read =
      "LanceRead: uri=" + io::JoinPath(plan.dataset->path(), "data") + ", projection=[" +
      projection + "], num_fragments=" + std::to_string(fragments) +
      ", range_before=None, range_after=None, row_id=" + (plan.with_row_id ? "true" : "false") +
      ", row_addr=" + (plan.with_row_address ? "true" : "false") + ", full_filter=" + filter +
      ", refine_filter=" + refine;
  if (!plan.late_columns.empty()) {
    std::string late;
    for (size_t i = 0; i < plan.late_columns.size(); ++i) {
      late += (i ? ", " : "") + plan.late_columns[i];
    }
    line("LanceRead: uri=" + io::JoinPath(plan.dataset->path(), "data") + ", projection=[" + late +
         "], source=stream(_rowid)");
  }
  line(read);
  if (plan.index_filter) {
    line("ScalarIndexQuery: query=" + plan.index_filter->root.ToString());
    const int uncovered = fragments - static_cast<int>(plan.index_filter->fragments.size());
    if (uncovered > 0) {
      out += indent.substr(2) + "FragmentScan: fragments=" + std::to_string(uncovered) +
             " (not covered by the index), filter=" + filter + "\n";
    }
  }
  return out;
}

}  // namespace lancedb::query
