// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// LocalTable reads and writes driven by SQL expressions: filtered counts, queries, take,
// delete and update.

#include "db/table_impl.h"

namespace lancedb::db {

Result<int64_t> LocalTable::CountRows(const std::string& filter) const {
  if (filter.empty()) return CountRows();
  return Status::NotSupported("CountRows(filter) is not implemented yet");
}

Status LocalTable::ExecuteQuery(const QueryRequest& request, ArrowArrayStream* out) const {
  return Status::NotSupported("Query is not implemented yet");
}

Status LocalTable::QuerySchema(const QueryRequest& request, ArrowSchema* out) const {
  return Status::NotSupported("Query is not implemented yet");
}

Result<DeleteResult> LocalTable::Delete(const std::string& where) {
  return Status::NotSupported("Delete is not implemented yet");
}

Result<UpdateResult> LocalTable::Update(
    const std::optional<std::string>& where,
    const std::vector<std::pair<std::string, std::string>>& updates) {
  return Status::NotSupported("Update is not implemented yet");
}

}  // namespace lancedb::db
