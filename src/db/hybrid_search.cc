// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Hybrid queries (include/lancedb/fts_query.h): a vector query and a full-text query planned on
// one snapshot, fused by reciprocal rank as LanceDB's default RRFReranker does.

#include <algorithm>
#include <unordered_map>

#include "array/c_bridge.h"
#include "common/buffer.h"
#include "db/fts_search.h"
#include "db/table_impl.h"
#include "db/vector_search.h"
#include "expr/binder.h"

namespace lancedb {

HybridQuery& HybridQuery::Limit(int64_t limit) {
  request_.base.limit = limit;
  return *this;
}

HybridQuery& HybridQuery::Offset(int64_t offset) {
  request_.base.offset = offset;
  return *this;
}

HybridQuery& HybridQuery::Where(const std::string& filter) {
  auto& f = request_.base.filter;
  f = f && !f->empty() ? "(" + *f + ") AND (" + filter + ")" : filter;
  return *this;
}

HybridQuery& HybridQuery::Postfilter() {
  request_.prefilter = false;
  return *this;
}

HybridQuery& HybridQuery::Select(std::vector<std::string> columns) {
  request_.base.select = SelectKind::kColumns;
  request_.base.columns = std::move(columns);
  return *this;
}

HybridQuery& HybridQuery::WithRowId(bool with_row_id) {
  request_.base.with_row_id = with_row_id;
  return *this;
}

HybridQuery& HybridQuery::RrfK(double k) {
  request_.rrf_k = k;
  return *this;
}

Status HybridQuery::Execute(ArrowArrayStream* out) const {
  return table_->ExecuteHybridQuery(request_, out);
}

HybridQuery Table::HybridSearch(std::vector<float> vector, FullTextQuery text) const {
  HybridQueryRequest request;
  request.vector.vectors.push_back(std::move(vector));
  request.text = std::move(text);
  return HybridQuery(shared_from_this(), std::move(request));
}

Status Table::ExecuteHybridQuery(const HybridQueryRequest&, ArrowArrayStream*) const {
  return Status::NotSupported("Hybrid search is not supported by this table");
}

namespace db {

namespace {

/// All rows of `reader` as one batch.
Result<array::RecordBatchPtr> ReadAll(array::RecordBatchReader& reader) {
  std::vector<array::RecordBatchPtr> batches;
  while (true) {
    LANCEDB_ASSIGN_OR_RETURN(auto batch, reader.Next());
    if (!batch) break;
    batches.push_back(std::move(batch));
  }
  return array::ConcatenateBatches(reader.schema(), batches);
}

}  // namespace

Status LocalTable::ExecuteHybridQuery(const HybridQueryRequest& request,
                                      ArrowArrayStream* out) const {
  if (out == nullptr) return Status::InvalidArgument("ExecuteHybridQuery needs an output stream");
  if (!(request.rrf_k > 0)) return Status::InvalidArgument("RRF k must be positive");
  if (!request.base.order_by.empty()) {
    return Status::NotSupported("order_by is not supported on hybrid queries");
  }
  if (request.base.with_row_address) {
    return Status::NotSupported("with_row_address is not supported on hybrid queries");
  }
  if (request.base.limit && *request.base.limit < 0) {
    return Status::InvalidArgument("Limit must be non-negative");
  }
  if (request.base.offset < 0) return Status::InvalidArgument("Offset must be non-negative");
  const int64_t limit = request.base.limit && *request.base.limit > 0 ? *request.base.limit : 10;
  const int64_t offset = request.base.offset;
  // Each half returns limit + offset rows with their row ids, filtered and projected alike.
  QueryRequest half = request.base;
  half.limit = limit + offset;
  half.offset = 0;
  half.with_row_id = true;
  VectorQueryRequest vq = request.vector;
  vq.base = half;
  vq.prefilter = request.prefilter;
  FtsQueryRequest fq;
  fq.query = request.text;
  fq.base = half;
  fq.prefilter = request.prefilter;
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  LANCEDB_ASSIGN_OR_RETURN(auto vplan, PlanVectorQuery(ds, vq));
  if (vplan.batch) return Status::InvalidArgument("A hybrid query takes one query vector");
  LANCEDB_ASSIGN_OR_RETURN(auto fplan, PlanFtsQuery(ds, fq));
  LANCEDB_ASSIGN_OR_RETURN(auto vreader, ExecuteVectorPlan(vplan));
  LANCEDB_ASSIGN_OR_RETURN(auto vrows, ReadAll(*vreader));
  LANCEDB_ASSIGN_OR_RETURN(auto freader, ExecuteFtsPlan(fplan));
  LANCEDB_ASSIGN_OR_RETURN(auto frows, ReadAll(*freader));

  // Reciprocal-rank fusion; the union keeps vector rows first, then full-text-only rows.
  const auto* vids = vrows->GetColumnByName(expr::kRowIdColumn)->GetValues<uint64_t>(1);
  const auto* fids = frows->GetColumnByName(expr::kRowIdColumn)->GetValues<uint64_t>(1);
  const int64_t nv = vrows->num_rows(), nf = frows->num_rows();
  std::unordered_map<uint64_t, size_t> slot;  // row id -> index in `fused`
  struct Fused {
    uint64_t row_id;
    int64_t source_row;  // in the concatenation: vector rows, then full-text rows
    double score;
  };
  std::vector<Fused> fused;
  for (int64_t i = 0; i < nv; ++i) {
    if (slot.emplace(vids[i], fused.size()).second) {
      fused.push_back({vids[i], i, 1.0 / (static_cast<double>(i + 1) + request.rrf_k)});
    }
  }
  for (int64_t j = 0; j < nf; ++j) {
    const double s = 1.0 / (static_cast<double>(j + 1) + request.rrf_k);
    auto [it, inserted] = slot.emplace(fids[j], fused.size());
    if (inserted) {
      fused.push_back({fids[j], nv + j, s});
    } else {
      fused[it->second].score += s;
    }
  }
  std::stable_sort(fused.begin(), fused.end(), [](const Fused& a, const Fused& b) {
    return static_cast<float>(a.score) > static_cast<float>(b.score);
  });
  const size_t begin = std::min(fused.size(), static_cast<size_t>(offset));
  const size_t end = std::min(fused.size(), begin + static_cast<size_t>(limit));
  std::vector<int64_t> take;
  std::vector<float> relevance;
  for (size_t i = begin; i < end; ++i) {
    take.push_back(fused[i].source_row);
    relevance.push_back(static_cast<float>(fused[i].score));
  }
  // The projected columns (the same in both halves), then _relevance_score, then _rowid.
  std::vector<array::FieldPtr> fields;
  std::vector<array::ArrayPtr> columns;
  const auto n = static_cast<int64_t>(take.size());
  for (const auto& f : vplan.projection.output_schema->fields()) {
    auto v = vrows->GetColumnByName(f->name());
    auto t = frows->GetColumnByName(f->name());
    if (!v || !t) return Status::Internal("hybrid: column " + f->name() + " missing in a half");
    LANCEDB_ASSIGN_OR_RETURN(auto both, array::Concatenate({v, t}));
    LANCEDB_ASSIGN_OR_RETURN(auto picked, array::Take(both, take));
    fields.push_back(f);
    columns.push_back(std::move(picked));
  }
  fields.push_back(array::field("_relevance_score", array::float32()));
  columns.push_back(
      array::ArrayData::Make(array::float32(), n, {nullptr, Buffer::FromVector(relevance)}));
  if (request.base.with_row_id) {
    std::vector<uint64_t> ids;
    for (size_t i = begin; i < end; ++i) ids.push_back(fused[i].row_id);
    fields.push_back(array::field(expr::kRowIdColumn, array::uint64(), false));
    columns.push_back(
        array::ArrayData::Make(array::uint64(), n, {nullptr, Buffer::FromVector(ids)}));
  }
  auto schema = array::schema(std::move(fields));
  LANCEDB_ASSIGN_OR_RETURN(auto batch, array::RecordBatch::Make(schema, std::move(columns), n));
  std::vector<array::RecordBatchPtr> batches;
  if (n > 0) batches.push_back(std::move(batch));
  return array::ExportRecordBatchReader(array::MakeVectorReader(schema, std::move(batches)), out);
}

}  // namespace db
}  // namespace lancedb
