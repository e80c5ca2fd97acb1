// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Row-level change detection between two versions of a table with stable row ids
// (lance-format.md §3). A row is identified by its stable id; its content is identified by the
// version that last wrote it (the fragment's last-updated-at sequence). A fragment present in
// both versions with the same row-id and last-updated-at sequences holds the same rows at the
// same offsets: only the rows its newer deletion file removed can have changed. The rows of
// every other fragment are matched by id across the two versions and compared by
// last-updated-at version, so the cost follows what changed, not the table's size. Compaction moves
// rows without changing either, and index or schema-only operations touch no row, so none of them
// shows up as a change. Operations that rewrite history (Restore, Overwrite, DataReplacement)
// cannot be diffed row by row: they are reported as a rebuild reason instead. Thread-safety:
// stateless.

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lancedb/status.h"
#include "table/dataset.h"

namespace lancedb::table {

/// The stable row ids that changed between two versions, each list sorted ascending.
struct RowChanges {
  /// Live in the newer version, not in the older one.
  std::vector<uint64_t> inserted;
  /// Live in both, rewritten in between (their last-updated-at versions differ).
  std::vector<uint64_t> updated;
  /// Live in the older version, not in the newer one.
  std::vector<uint64_t> deleted;
  /// Non-empty when the lists above cannot describe the difference (a Restore, Overwrite or
  /// DataReplacement in between, a transaction no longer on storage, or `to` older than
  /// `from`): a reader must recompute from scratch. Names the cause.
  std::string rebuild_reason;
};

/// The rows of `to` that differ from `from` (two versions of the same dataset).
/// InvalidArgument when the dataset does not use stable row ids or the two are different
/// datasets; Corruption for a damaged row-id or version sequence.
Result<RowChanges> DiffRows(const Dataset& from, const Dataset& to);

/// Row addresses of the live rows of `dataset` whose `column` (uint64, or int64 compared as its
/// bit pattern) holds one of `keys` (any order, duplicates allowed), in scan order; nulls match
/// nothing. One pass over that column: how a materialized view finds the rows of the source
/// rows that changed (its `__source_row_id`). InvalidArgument for a missing column or another
/// type.
Result<std::vector<uint64_t>> RowAddressesWhereIn(const Dataset& dataset, const std::string& column,
                                                  std::vector<uint64_t> keys);

}  // namespace lancedb::table
