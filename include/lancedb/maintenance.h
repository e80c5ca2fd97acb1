// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Table maintenance (LanceDB `optimize`): compaction of small fragments and pruning of old
// versions. Thread-safety: options and stats are values.

#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace lancedb {

/// Options of Table::Compact (Lance's CompactionOptions).
struct CompactionOptions {
  /// Rows per fragment to aim for.
  int64_t target_rows_per_fragment = 1024 * 1024;
  int64_t max_rows_per_group = 1024;
  /// Rewrite fragments whose share of deleted rows exceeds the threshold.
  bool materialize_deletions = true;
  double materialize_deletions_threshold = 0.1;
  /// Fragments rewritten in parallel; unset means one per core.
  std::optional<int> num_threads;
};

struct CompactionStats {
  uint64_t fragments_removed = 0;
  uint64_t fragments_added = 0;
  uint64_t files_removed = 0;
  uint64_t files_added = 0;
};

/// Options of Table::Prune (cleanup of old versions; LanceDB's OptimizeAction::Prune).
struct PruneOptions {
  /// Remove versions older than this (default 7 days). Never the latest or a tagged version.
  std::optional<std::chrono::seconds> older_than;
  /// Files no version references are deleted once 7 days old; with this, whatever their age
  /// (unsafe while others write: their uncommitted files look unreferenced).
  bool delete_unverified = false;
  /// Fail with InvalidArgument, removing nothing, when a tagged version is older than
  /// `older_than` (as LanceDB, the default); false keeps tagged versions silently.
  bool error_if_tagged_old_versions = true;
};

struct RemovalStats {
  uint64_t bytes_removed = 0;
  uint64_t old_versions_removed = 0;
};

/// What Table::Optimize did (compaction, then pruning, then adding unindexed rows to every
/// vector index).
struct OptimizeStats {
  CompactionStats compaction;
  RemovalStats prune;
};

struct OptimizeOptions {
  CompactionOptions compaction;
  PruneOptions prune;
};

}  // namespace lancedb
