// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The Query builder (include/lancedb/query.h) and the Table methods that create one.

#include "lancedb/query.h"

#include "lancedb/table.h"

namespace lancedb {

Query& Query::Where(const std::string& filter) {
  if (request_.filter && !request_.filter->empty()) {
    request_.filter = "(" + *request_.filter + ") AND (" + filter + ")";
  } else {
    request_.filter = filter;
  }
  return *this;
}

Query& Query::Select(std::vector<std::string> columns) {
  request_.select = SelectKind::kColumns;
  request_.columns = std::move(columns);
  request_.dynamic.clear();
  return *this;
}

Query& Query::Select(std::vector<std::pair<std::string, std::string>> expressions) {
  request_.select = SelectKind::kDynamic;
  request_.dynamic = std::move(expressions);
  request_.columns.clear();
  return *this;
}

Query& Query::Limit(int64_t limit) {
  request_.limit = limit;
  return *this;
}

Query& Query::Offset(int64_t offset) {
  request_.offset = offset;
  return *this;
}

Query& Query::WithRowId(bool with_row_id) {
  request_.with_row_id = with_row_id;
  return *this;
}

Query& Query::MaxBatchLength(int64_t rows) {
  request_.max_batch_length = rows;
  return *this;
}

Status Query::Execute(ArrowArrayStream* out) const {
  if (table_ == nullptr) return Status::InvalidArgument("Query has no table");
  return table_->ExecuteQuery(request_, out);
}

Status Query::OutputSchema(ArrowSchema* out) const {
  if (table_ == nullptr) return Status::InvalidArgument("Query has no table");
  return table_->QuerySchema(request_, out);
}

lancedb::Query Table::Query() const { return lancedb::Query(shared_from_this()); }

lancedb::Query Table::TakeOffsets(std::vector<uint64_t> offsets) const {
  QueryRequest request;
  request.take_offsets = std::move(offsets);
  return lancedb::Query(shared_from_this(), std::move(request));
}

lancedb::Query Table::TakeRowIds(std::vector<uint64_t> row_ids) const {
  QueryRequest request;
  request.take_row_ids = std::move(row_ids);
  return lancedb::Query(shared_from_this(), std::move(request));
}

}  // namespace lancedb

namespace lancedb {

Query& Query::UseScalarIndex(bool use) {
  request_.use_scalar_index = use;
  return *this;
}

Query& Query::OrderBy(std::vector<ColumnOrdering> ordering) {
  request_.order_by = std::move(ordering);
  return *this;
}

Query& Query::WithRowAddress(bool with_row_address) {
  request_.with_row_address = with_row_address;
  return *this;
}

Query& Query::FragmentIds(std::vector<uint64_t> fragment_ids) {
  request_.fragment_ids = std::move(fragment_ids);
  return *this;
}

Result<std::string> Query::ExplainPlan(bool verbose) const {
  return table_->ExplainQuery(request_, verbose);
}

Result<std::string> Query::AnalyzePlan() const { return table_->AnalyzeQuery(request_); }

Status Table::CreateScalarIndex(const std::string&, ScalarIndexType, const CreateIndexOptions&) {
  return Status::NotSupported("create_scalar_index is not supported by this table");
}

Result<std::string> Table::ExplainQuery(const QueryRequest&, bool) const {
  return Status::NotSupported("explain_plan is not supported by this table");
}

Result<std::string> Table::AnalyzeQuery(const QueryRequest&) const {
  return Status::NotSupported("analyze_plan is not supported by this table");
}

Result<std::string> Table::ExplainVectorQuery(const VectorQueryRequest&, bool) const {
  return Status::NotSupported("explain_plan is not supported by this table");
}

Result<std::string> Table::AnalyzeVectorQuery(const VectorQueryRequest&) const {
  return Status::NotSupported("analyze_plan is not supported by this table");
}

}  // namespace lancedb
