// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// LocalTable index management: create, list, statistics, drop, wait and incremental optimize,
// over the index layer (src/index/vector_index.h, index_manager.h). Writes start from the
// newest version and publish what they commit.

#include "db/table_impl.h"
#include "index/index_manager.h"
#include "index/vector_index.h"
#include "table/stable_row_ids.h"

namespace lancedb::db {

Status LocalTable::CreateIndex(const std::string& column, const VectorIndexConfig& config,
                               const CreateIndexOptions& options) {
  LANCEDB_RETURN_NOT_OK(CheckWritable());
  LANCEDB_ASSIGN_OR_RETURN(auto latest, LatestForWrite());
  LANCEDB_ASSIGN_OR_RETURN(auto written, index::CreateVectorIndex(latest, column, config, options));
  Publish(written);
  return Status::OK();
}

Result<std::vector<IndexInfo>> LocalTable::ListIndices() const {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  return index::ListIndices(*ds);
}

Result<IndexStatistics> LocalTable::IndexStats(const std::string& name) const {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  return index::GetIndexStatistics(*ds, name);
}

Status LocalTable::DropIndex(const std::string& name) {
  LANCEDB_RETURN_NOT_OK(CheckWritable());
  LANCEDB_ASSIGN_OR_RETURN(auto latest, LatestForWrite());
  LANCEDB_ASSIGN_OR_RETURN(auto written, index::DropIndex(latest, name));
  Publish(written);
  return Status::OK();
}

Status LocalTable::WaitForIndex(const std::vector<std::string>& names,
                                std::chrono::milliseconds timeout) const {
  if (timeout.count() < 0) return Status::InvalidArgument("wait_for_index: negative timeout");
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  LANCEDB_ASSIGN_OR_RETURN(auto indices, index::ListIndices(*ds));
  for (const auto& name : names) {
    bool found = false;
    for (const auto& info : indices) found |= info.name == name;
    if (!found) return Status::NotFound("Index '" + name + "' not found");
  }
  return Status::OK();
}

Status LocalTable::OptimizeIndices(const CreateIndexOptions& options) {
  LANCEDB_RETURN_NOT_OK(CheckWritable());
  LANCEDB_ASSIGN_OR_RETURN(auto latest, LatestForWrite());
  // On a table with stable row ids a row updated since indexing keeps its id in a new
  // fragment; extending the segment would index that id twice (once with its stale vector).
  // Such tables keep new rows unindexed (searched exactly) until the index is recreated.
  if (table::UsesStableRowIds(*latest)) {
    Publish(latest);
    return Status::OK();
  }
  LANCEDB_ASSIGN_OR_RETURN(auto indices, index::ListIndices(*latest));
  for (const auto& info : indices) {
    if (info.type_url != index::kVectorIndexTypeUrl) continue;
    LANCEDB_ASSIGN_OR_RETURN(latest, index::OptimizeVectorIndex(latest, info.name, options));
  }
  Publish(latest);
  return Status::OK();
}

}  // namespace lancedb::db
