// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// MergeRows: commit the outcome of a merge (merge_insert) in one Update transaction with
// update_mode REWRITE_ROWS (lance-format.md §1.3): rewritten rows and removed rows get
// deletion-file entries in their (otherwise untouched) fragments; the new versions of the
// rewritten rows and the inserted rows are written as new fragments. On a table with stable row
// ids (§3) a rewritten row keeps its id and created-at version, an inserted row gets a fresh id
// from the manifest's next_row_id (assigned at commit, so a retried commit takes the ids the
// newest version leaves free), and every new row is last updated by the committed version.
// Thread-safety: stateless.

#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "array/array.h"
#include "table/dataset.h"

namespace lancedb::table {

/// What a merge changes, by row address ((fragment_id << 32) | offset).
struct MergeChanges {
  /// Rows replaced by the first `replaced.size()` rows of the new rows, in the same order.
  std::vector<uint64_t> replaced;
  /// Rows removed without a replacement.
  std::vector<uint64_t> removed;
};

/// How MergeRows commits.
struct MergeRowsOptions {
  /// Replace the table's schema metadata with this, in the same commit.
  std::optional<array::KeyValueMetadata> schema_metadata;
  /// Fail with a (non-retryable) CommitConflict instead of rebasing when another writer
  /// committed a version after `dataset`: the commit lands on exactly the next version.
  bool fail_if_moved = false;
  /// Store external blob URIs outside every registered base as absolute URIs; when false such
  /// a URI fails the merge (InvalidArgument, nothing committed).
  bool allow_external_blob_outside_bases = true;
};

/// Commit `changes` and `new_rows` (the replacement rows first, then the inserted rows; the
/// table's schema) on top of `dataset` as one Update. InvalidArgument when an address is not
/// in this version, when it is given twice, or when `new_rows` holds fewer rows than
/// `changes.replaced`; NotSupported on data files older than 2.2. Nothing is committed (and the
/// files written are deleted) on error. Returns the new snapshot; `num_removed` (optional)
/// receives the number of old rows deleted (replaced or removed).
Result<DatasetPtr> MergeRows(const DatasetPtr& dataset, const MergeChanges& changes,
                             array::RecordBatchReader* new_rows, int64_t* num_removed = nullptr,
                             const MergeRowsOptions& options = {});

}  // namespace lancedb::table
