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

/// Fragments with fewer rows than this count as small in FragmentStatistics (LanceDB's
/// threshold): candidates for compaction.
inline constexpr uint64_t kSmallFragmentRows = 100000;

/// The distribution of the fragments' row counts (deleted rows included), LanceDB's
/// FragmentSummaryStats. Percentiles are elements of the ascending counts: p25 is element
/// n / 4, p50 n / 2, p75 3n / 4, p99 99n / 100 (integer division); `mean` is rounded down.
/// All zero for a table without fragments.
struct FragmentSummaryStats {
  uint64_t min = 0;
  uint64_t max = 0;
  uint64_t mean = 0;
  uint64_t p25 = 0;
  uint64_t p50 = 0;
  uint64_t p75 = 0;
  uint64_t p99 = 0;
};

struct FragmentStatistics {
  uint64_t num_fragments = 0;
  /// Fragments with fewer than kSmallFragmentRows rows.
  uint64_t num_small_fragments = 0;
  FragmentSummaryStats lengths;
};

/// What Table::Stats reports (LanceDB's TableStatistics).
struct TableStatistics {
  /// Bytes of the data files and index files, as their sizes are recorded in the manifest:
  /// deletion files and manifests are not counted, nor files whose size is not recorded.
  uint64_t total_bytes = 0;
  /// Rows, deleted ones excluded.
  uint64_t num_rows = 0;
  /// Indices, as Table::ListIndices lists them.
  uint64_t num_indices = 0;
  FragmentStatistics fragment_stats;
};

struct OptimizeOptions {
  CompactionOptions compaction;
  PruneOptions prune;
};

}  // namespace lancedb
