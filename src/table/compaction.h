// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Compaction (Lance `compact_files`): rewrite runs of small fragments, and fragments with many
// deleted rows, into fragments of about target_rows_per_fragment live rows.
//
// Plan: walk the fragments in order; a fragment is a candidate when it has fewer live rows
// than the target or (materialize_deletions) more than the threshold share of its rows deleted.
// Adjacent candidates form bins of up to the target rows; a bin of one fragment without
// deletions to materialize is left alone. Each bin is rewritten independently (in parallel,
// num_threads), streaming, so memory is bounded by a bin's batches, not the table.
// Commit: one ReserveFragments transaction (107) reserves the ids of all new fragments, then one
// Rewrite transaction (104) with one group per bin replaces the old fragments in place.
// With stable row ids, the new fragments carry the rows' ids and created/updated versions, so
// `_rowid` survives compaction. Indices keep working: the rewritten fragments are removed from each
// index's fragment bitmap, so queries read those rows through the unindexed path until the index is
// optimized. Thread-safety: stateless functions over immutable snapshots.

#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "table/commit.h"
#include "table/dataset.h"

namespace lancedb::table {

/// Rewrites index segment `meta` of `read` for a compaction: row addresses moved by `map`
/// (nullopt: the row was deleted), covering `new_fragments`. Returns the new segment's
/// metadata (files written), or nullopt for an index it does not rewrite.
using IndexRemapFn = std::function<Result<std::optional<pb::IndexMetadata>>(
    const Dataset& read, const pb::IndexMetadata& meta,
    const std::function<std::optional<uint64_t>(uint64_t)>& map,
    const std::vector<uint64_t>& new_fragments)>;

struct CompactionOptions {
  int64_t target_rows_per_fragment = 1024 * 1024;
  int64_t max_rows_per_group = 1024;
  bool materialize_deletions = true;
  double materialize_deletions_threshold = 0.1;
  /// Bins rewritten at once; 0 means one per hardware thread.
  int num_threads = 0;
  /// When set (and the table has no stable row ids), index segments covering rewritten
  /// fragments are rewritten for the new row addresses in the same Rewrite commit; bins then
  /// never mix fragments different indices cover.
  IndexRemapFn remap_index;
};

struct CompactionMetrics {
  uint64_t fragments_removed = 0;
  uint64_t fragments_added = 0;
  uint64_t files_removed = 0;
  uint64_t files_added = 0;
};

/// Compact `dataset`. Returns the new snapshot (the same one when there is nothing to do) and
/// fills `metrics`. InvalidArgument for bad options.
Result<DatasetPtr> CompactFiles(const DatasetPtr& dataset, const CompactionOptions& options,
                                CompactionMetrics* metrics);

/// Raise max_fragment_id by `num_fragments` (ReserveFragments).
class ReserveFragmentsOperation : public Operation {
 public:
  explicit ReserveFragmentsOperation(uint32_t num_fragments) : num_fragments_(num_fragments) {}
  std::string_view name() const override { return "ReserveFragments"; }
  bool supports_stable_row_ids() const override { return true; }
  Status Build(CommitAttempt* attempt) override;

 private:
  uint32_t num_fragments_;
};

/// Replace groups of fragments by rewritten ones (Rewrite). Conflicts (retryably) with writes
/// that changed or removed any of the old fragments since compaction read them.
class RewriteOperation : public Operation {
 public:
  struct Group {
    std::vector<pb::DataFragment> old_fragments;
    std::vector<pb::DataFragment> new_fragments;  // ids already assigned (reserved)
  };
  /// `remapped`: index segments replacing those of the same uuid (rewritten for the new row
  /// addresses; recorded as the transaction's rewritten_indices).
  explicit RewriteOperation(
      std::vector<Group> groups,
      std::vector<std::pair<pb::IndexMetadata, pb::IndexMetadata>> remapped = {})
      : groups_(std::move(groups)), remapped_(std::move(remapped)) {}
  std::string_view name() const override { return "Rewrite"; }
  /// New fragments carry the old rows' stable row ids (set when the bins are rewritten).
  bool supports_stable_row_ids() const override { return true; }
  Status Build(CommitAttempt* attempt) override;

 private:
  std::vector<Group> groups_;
  std::vector<std::pair<pb::IndexMetadata, pb::IndexMetadata>> remapped_;  // (old, new)
};

}  // namespace lancedb::table
