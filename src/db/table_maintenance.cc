// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Compaction and pruning of a LocalTable (table/compaction.h, table/cleanup.h).

#include "db/table_impl.h"
#include "index/fts_index_manager.h"
#include "index/index_details.h"
#include "index/scalar_index_manager.h"
#include "index/vector_index.h"
#include "table/cleanup.h"
#include "table/compaction.h"

namespace lancedb {

Result<CompactionStats> Table::Compact(const CompactionOptions&) {
  return Status::NotSupported("Compact is not supported by this table");
}

Result<RemovalStats> Table::Prune(const PruneOptions&) {
  return Status::NotSupported("Prune is not supported by this table");
}

Result<OptimizeStats> Table::Optimize(const OptimizeOptions& options) {
  OptimizeStats stats;
  LANCEDB_ASSIGN_OR_RETURN(stats.compaction, Compact(options.compaction));
  LANCEDB_ASSIGN_OR_RETURN(stats.prune, Prune(options.prune));
  // Index the rows compaction moved out of the indices' fragments, and any appended rows.
  LANCEDB_RETURN_NOT_OK(OptimizeIndices());
  return stats;
}

namespace db {

Result<CompactionStats> LocalTable::Compact(const CompactionOptions& options) {
  LANCEDB_RETURN_NOT_OK(CheckWritable());
  if (options.num_threads && *options.num_threads <= 0) {
    return Status::InvalidArgument("num_threads must be positive");
  }
  LANCEDB_ASSIGN_OR_RETURN(auto latest, LatestForWrite());
  table::CompactionOptions o;
  o.target_rows_per_fragment = options.target_rows_per_fragment;
  o.max_rows_per_group = options.max_rows_per_group;
  o.materialize_deletions = options.materialize_deletions;
  o.materialize_deletions_threshold = options.materialize_deletions_threshold;
  o.num_threads = options.num_threads.value_or(0);
  // Scalar, FTS and Lance-layout vector indices are rewritten for the moved rows in the same
  // commit (as LanceDB remaps).
  o.remap_index = [](const table::Dataset& read, const table::pb::IndexMetadata& meta,
                     const std::function<std::optional<uint64_t>(uint64_t)>& map,
                     const std::vector<uint64_t>& new_fragments) {
    if (meta.index_details().type_url() == index::fts::kInvertedIndexTypeUrl) {
      return index::RemapFtsIndex(read, meta, map, new_fragments);
    }
    if (meta.index_details().type_url() == index::kLanceVectorIndexTypeUrl) {
      return index::RemapVectorIndex(read, meta, map, new_fragments);
    }
    return index::RemapScalarIndex(read, meta, map, new_fragments);
  };
  table::CompactionMetrics metrics;
  LANCEDB_ASSIGN_OR_RETURN(auto compacted, table::CompactFiles(latest, o, &metrics));
  Publish(compacted);
  return CompactionStats{metrics.fragments_removed, metrics.fragments_added, metrics.files_removed,
                         metrics.files_added};
}

Result<RemovalStats> LocalTable::Prune(const PruneOptions& options) {
  LANCEDB_RETURN_NOT_OK(CheckWritable());
  LANCEDB_ASSIGN_OR_RETURN(auto latest, LatestForWrite());
  table::CleanupOptions o;
  if (options.older_than) {
    if (options.older_than->count() < 0) {
      return Status::InvalidArgument("older_than must not be negative");
    }
    o.older_than = *options.older_than;
  }
  o.delete_unverified = options.delete_unverified;
  o.error_if_tagged_old_versions = options.error_if_tagged_old_versions;
  LANCEDB_ASSIGN_OR_RETURN(auto stats, table::CleanupOldVersions(latest, o));
  return RemovalStats{stats.bytes_removed, stats.old_versions_removed};
}

}  // namespace db
}  // namespace lancedb
