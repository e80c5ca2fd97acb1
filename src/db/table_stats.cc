// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Table statistics (LanceDB `stats`) and the manifest naming of a LocalTable.

#include <algorithm>

#include "db/table_impl.h"
#include "index/index_manager.h"
#include "table/manifest.h"

namespace lancedb {

Result<TableStatistics> Table::Stats() const {
  return Status::NotSupported("Stats is not supported by this table");
}

Result<bool> Table::UsesV2ManifestPaths() const {
  return Status::NotSupported("UsesV2ManifestPaths is not supported by this table");
}

Status Table::MigrateManifestPathsV2() {
  return Status::NotSupported("MigrateManifestPathsV2 is not supported by this table");
}

namespace db {

namespace {

/// The row-count distribution of fragments with `rows` (any order). Percentiles pick elements
/// of the sorted counts as LanceDB does (maintenance.h).
FragmentStatistics SummarizeFragments(std::vector<uint64_t> rows) {
  FragmentStatistics stats;
  const size_t n = rows.size();
  stats.num_fragments = n;
  if (n == 0) return stats;
  std::sort(rows.begin(), rows.end());
  uint64_t sum = 0;
  for (uint64_t r : rows) {
    sum += r;
    if (r < kSmallFragmentRows) ++stats.num_small_fragments;
  }
  FragmentSummaryStats& lengths = stats.lengths;
  lengths.min = rows.front();
  lengths.max = rows.back();
  lengths.mean = sum / n;
  lengths.p25 = rows[n / 4];
  lengths.p50 = rows[n / 2];
  lengths.p75 = rows[n * 3 / 4];
  lengths.p99 = rows[n * 99 / 100];
  return stats;
}

/// Bytes of the data files and index files the manifest records sizes for (LanceDB counts
/// these; deletion files and manifests are left out).
uint64_t RecordedFileBytes(const table::Manifest& manifest) {
  uint64_t total = 0;
  for (const auto& frag : manifest.proto().fragments()) {
    for (const auto& file : frag.files()) total += file.file_size_bytes();
  }
  for (const auto& index : manifest.index_section().indices()) {
    for (const auto& file : index.files()) total += file.size_bytes();
  }
  return total;
}

}  // namespace

Result<TableStatistics> LocalTable::Stats() const {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  TableStatistics stats;
  LANCEDB_ASSIGN_OR_RETURN(int64_t rows, ds->CountRows());
  stats.num_rows = static_cast<uint64_t>(rows);
  LANCEDB_ASSIGN_OR_RETURN(auto indices, index::ListIndices(*ds));
  stats.num_indices = indices.size();
  stats.total_bytes = RecordedFileBytes(ds->manifest());
  std::vector<uint64_t> lengths;
  for (const auto& frag : ds->manifest().proto().fragments()) {
    lengths.push_back(frag.physical_rows());
  }
  stats.fragment_stats = SummarizeFragments(std::move(lengths));
  return stats;
}

Result<bool> LocalTable::UsesV2ManifestPaths() const {
  table::DatasetPtr current = Current();
  LANCEDB_ASSIGN_OR_RETURN(auto latest, table::FindLatestVersion(*current->fs(), current->path()));
  return latest.second == table::ManifestNaming::kV2;
}

Status LocalTable::MigrateManifestPathsV2() {
  LANCEDB_RETURN_NOT_OK(CheckWritable());
  table::DatasetPtr current = Current();
  LANCEDB_RETURN_NOT_OK(table::MigrateManifestNamingToV2(*current->fs(), current->path()));
  // Follow the newest version under its new name (the handle's snapshot still names V1).
  LANCEDB_ASSIGN_OR_RETURN(auto latest, LatestForWrite());
  MutexLock lock(&mu_);
  if (!pinned_version_ && latest->version() >= dataset_->version()) dataset_ = latest;
  return Status::OK();
}

}  // namespace db
}  // namespace lancedb
