// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The VectorQuery builder (include/lancedb/vector_query.h) and the methods that create one.

#include "lancedb/vector_query.h"

#include "lancedb/table.h"

namespace lancedb {

VectorQuery& VectorQuery::AddQueryVector(std::vector<float> vector) {
  request_.vectors.push_back(std::move(vector));
  return *this;
}

VectorQuery& VectorQuery::Column(std::string column) {
  request_.column = std::move(column);
  return *this;
}

VectorQuery& VectorQuery::DistanceType(std::string distance_type) {
  request_.distance_type = std::move(distance_type);
  return *this;
}

VectorQuery& VectorQuery::Limit(int64_t limit) {
  request_.base.limit = limit;
  return *this;
}

VectorQuery& VectorQuery::Offset(int64_t offset) {
  request_.base.offset = offset;
  return *this;
}

VectorQuery& VectorQuery::Where(const std::string& filter) {
  auto& f = request_.base.filter;
  f = f && !f->empty() ? "(" + *f + ") AND (" + filter + ")" : filter;
  return *this;
}

VectorQuery& VectorQuery::Postfilter() {
  request_.prefilter = false;
  return *this;
}

VectorQuery& VectorQuery::Select(std::vector<std::string> columns) {
  request_.base.select = SelectKind::kColumns;
  request_.base.columns = std::move(columns);
  request_.base.dynamic.clear();
  return *this;
}

VectorQuery& VectorQuery::Select(std::vector<std::pair<std::string, std::string>> expressions) {
  request_.base.select = SelectKind::kDynamic;
  request_.base.dynamic = std::move(expressions);
  request_.base.columns.clear();
  return *this;
}

VectorQuery& VectorQuery::WithRowId(bool with_row_id) {
  request_.base.with_row_id = with_row_id;
  return *this;
}

VectorQuery& VectorQuery::WithRowAddress(bool with_row_address) {
  request_.base.with_row_address = with_row_address;
  return *this;
}

VectorQuery& VectorQuery::OrderBy(std::vector<ColumnOrdering> ordering) {
  request_.base.order_by = std::move(ordering);
  return *this;
}

VectorQuery& VectorQuery::Nprobes(size_t nprobes) {
  request_.minimum_nprobes = nprobes;
  request_.maximum_nprobes = nprobes;
  return *this;
}

VectorQuery& VectorQuery::MinimumNprobes(size_t nprobes) {
  request_.minimum_nprobes = nprobes;
  return *this;
}

VectorQuery& VectorQuery::MaximumNprobes(size_t nprobes) {
  request_.maximum_nprobes = nprobes;
  return *this;
}

VectorQuery& VectorQuery::RefineFactor(uint32_t refine_factor) {
  request_.refine_factor = refine_factor;
  return *this;
}

VectorQuery& VectorQuery::Ef(size_t ef) {
  request_.ef = ef;
  return *this;
}

VectorQuery& VectorQuery::DistanceRange(std::optional<float> lower, std::optional<float> upper) {
  request_.lower_bound = lower;
  request_.upper_bound = upper;
  return *this;
}

VectorQuery& VectorQuery::BypassVectorIndex(bool bypass) {
  request_.bypass_vector_index = bypass;
  return *this;
}

VectorQuery& VectorQuery::FastSearch(bool fast) {
  request_.fast_search = fast;
  return *this;
}

VectorQuery& VectorQuery::MaxBatchLength(int64_t rows) {
  request_.base.max_batch_length = rows;
  return *this;
}

Status VectorQuery::Execute(ArrowArrayStream* out) const {
  if (table_ == nullptr) return Status::InvalidArgument("VectorQuery has no table");
  return table_->ExecuteVectorQuery(request_, out);
}

Result<std::string> VectorQuery::ExplainPlan(bool verbose) const {
  if (table_ == nullptr) return Status::InvalidArgument("VectorQuery has no table");
  return table_->ExplainVectorQuery(request_, verbose);
}

Result<std::string> VectorQuery::AnalyzePlan() const {
  if (table_ == nullptr) return Status::InvalidArgument("VectorQuery has no table");
  return table_->AnalyzeVectorQuery(request_);
}

Status VectorQuery::OutputSchema(ArrowSchema* out) const {
  if (table_ == nullptr) return Status::InvalidArgument("VectorQuery has no table");
  return table_->VectorQuerySchema(request_, out);
}

VectorQuery Query::NearestTo(std::vector<float> vector) const {
  VectorQueryRequest request;
  request.base = request_;
  request.vectors.push_back(std::move(vector));
  return VectorQuery(table_, std::move(request));
}

VectorQuery Query::NearestToMultivector(std::vector<std::vector<float>> vectors) const {
  VectorQueryRequest request;
  request.base = request_;
  request.vectors = std::move(vectors);
  request.multivector = true;
  return VectorQuery(table_, std::move(request));
}

VectorQuery Table::MultivectorSearch(std::vector<std::vector<float>> vectors) const {
  return Query().NearestToMultivector(std::move(vectors));
}

VectorQuery Table::VectorSearch(std::vector<float> vector) const {
  return Query().NearestTo(std::move(vector));
}

}  // namespace lancedb
