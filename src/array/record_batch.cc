// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include <algorithm>
#include <utility>

#include "array/array.h"

namespace lancedb::array {

Result<std::shared_ptr<RecordBatch>> RecordBatch::Make(SchemaPtr schema,
                                                       std::vector<ArrayPtr> columns,
                                                       int64_t num_rows) {
  if (schema == nullptr) return Status::InvalidArgument("RecordBatch needs a schema");
  if (static_cast<int>(columns.size()) != schema->num_fields()) {
    return Status::InvalidArgument("RecordBatch has " + std::to_string(columns.size()) +
                                   " columns but the schema has " +
                                   std::to_string(schema->num_fields()) + " fields");
  }
  if (num_rows < 0) num_rows = columns.empty() ? 0 : (columns[0] ? columns[0]->length : 0);
  for (size_t i = 0; i < columns.size(); ++i) {
    const Field& f = *schema->field(static_cast<int>(i));
    if (columns[i] == nullptr) {
      return Status::InvalidArgument("Column '" + f.name() + "' is missing (null array)");
    }
    if (!columns[i]->type->Equals(*f.type())) {
      return Status::InvalidArgument("Column '" + f.name() + "' has type " +
                                     columns[i]->type->ToString() + " but the schema says " +
                                     f.type()->ToString());
    }
    if (columns[i]->length != num_rows) {
      return Status::InvalidArgument("Column '" + f.name() + "' has " +
                                     std::to_string(columns[i]->length) + " rows, expected " +
                                     std::to_string(num_rows));
    }
  }
  return std::make_shared<RecordBatch>(std::move(schema), std::move(columns), num_rows);
}

ArrayPtr RecordBatch::GetColumnByName(std::string_view name) const {
  int i = schema_->GetFieldIndex(name);
  return i < 0 ? nullptr : columns_[i];
}

std::shared_ptr<RecordBatch> RecordBatch::Slice(int64_t offset, int64_t length) const {
  offset = std::clamp<int64_t>(offset, 0, num_rows_);
  length = std::clamp<int64_t>(length, 0, num_rows_ - offset);
  std::vector<ArrayPtr> columns;
  columns.reserve(columns_.size());
  for (const auto& c : columns_) columns.push_back(array::Slice(c, offset, length));
  return std::make_shared<RecordBatch>(schema_, std::move(columns), length);
}

Result<std::shared_ptr<RecordBatch>> RecordBatch::SelectColumns(
    const std::vector<std::string>& names) const {
  std::vector<FieldPtr> fields;
  std::vector<ArrayPtr> columns;
  for (const auto& name : names) {
    LANCEDB_ASSIGN_OR_RETURN(FieldPtr f, schema_->GetFieldByName(name));
    fields.push_back(std::move(f));
    columns.push_back(columns_[schema_->GetFieldIndex(name)]);
  }
  return std::make_shared<RecordBatch>(array::schema(std::move(fields), schema_->metadata()),
                                       std::move(columns), num_rows_);
}

ArrayPtr RecordBatch::ToStructArray() const {
  return ArrayData::Make(struct_(schema_->fields()), num_rows_, {nullptr}, columns_, 0);
}

bool RecordBatch::Equals(const RecordBatch& other, bool check_metadata) const {
  if (num_rows_ != other.num_rows_ || !schema_->Equals(*other.schema_, check_metadata)) {
    return false;
  }
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (!ArrayEquals(*columns_[i], *other.columns_[i])) return false;
  }
  return true;
}

std::string RecordBatch::ToString() const {
  std::string s;
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (i > 0) s += "\n";
    s += schema_->field(static_cast<int>(i))->name() + ": " + ArrayToString(*columns_[i]);
  }
  return s;
}

Result<RecordBatchPtr> ConcatenateBatches(const SchemaPtr& schema,
                                          const std::vector<RecordBatchPtr>& batches) {
  std::vector<ArrayPtr> columns;
  int64_t num_rows = 0;
  for (size_t b = 0; b < batches.size(); ++b) {
    if (!batches[b]->schema()->Equals(*schema)) {
      return Status::InvalidArgument("ConcatenateBatches: batch " + std::to_string(b) +
                                     " has schema {" + batches[b]->schema()->ToString() +
                                     "}, expected {" + schema->ToString() + "}");
    }
    num_rows += batches[b]->num_rows();
  }
  for (int c = 0; c < schema->num_fields(); ++c) {
    if (batches.empty()) {
      columns.push_back(MakeNullArray(schema->field(c)->type(), 0));
      continue;
    }
    std::vector<ArrayPtr> parts;
    parts.reserve(batches.size());
    for (const auto& batch : batches) parts.push_back(batch->column(c));
    LANCEDB_ASSIGN_OR_RETURN(ArrayPtr column, Concatenate(parts));
    columns.push_back(std::move(column));
  }
  return std::make_shared<RecordBatch>(schema, std::move(columns), num_rows);
}

Result<std::vector<RecordBatchPtr>> RecordBatchReader::ReadAll() {
  std::vector<RecordBatchPtr> batches;
  while (true) {
    LANCEDB_ASSIGN_OR_RETURN(RecordBatchPtr batch, Next());
    if (batch == nullptr) break;
    batches.push_back(std::move(batch));
  }
  return batches;
}

namespace {

/// Replays batches held in memory. Externally synchronized.
class VectorReader : public RecordBatchReader {
 public:
  VectorReader(SchemaPtr schema, std::vector<RecordBatchPtr> batches)
      : schema_(std::move(schema)), batches_(std::move(batches)) {}

  SchemaPtr schema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override {
    if (next_ >= batches_.size()) return RecordBatchPtr();
    return batches_[next_++];
  }

 private:
  SchemaPtr schema_;
  std::vector<RecordBatchPtr> batches_;
  size_t next_ = 0;
};

}  // namespace

std::unique_ptr<RecordBatchReader> MakeVectorReader(SchemaPtr schema,
                                                    std::vector<RecordBatchPtr> batches) {
  return std::make_unique<VectorReader>(std::move(schema), std::move(batches));
}

}  // namespace lancedb::array
