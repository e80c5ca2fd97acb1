// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The CreateIndex operation (lance-format.md §1.3 Transaction, op 103 {1 new_indices,
// 2 removed_indices}): registers index segments in the manifest's IndexSection and removes
// others, in one commit. It serves create_index (with replace), drop_index (no new indices)
// and incremental optimize (replace one segment by a merged one).
//
// Rebase rules (§1.4): over a concurrent Append, Delete, Update, CreateIndex, ReserveFragments
// or UpdateConfig the operation is rebuilt on the newer version (new fragments are simply not
// covered); over Overwrite, Restore, Rewrite (compaction moves rows), Merge or DataReplacement
// it conflicts. A removed segment that disappeared concurrently is a conflict, as is a new
// name taken concurrently when `replace` is false.
#pragma once

#include <string>
#include <vector>

#include "table/commit.h"

namespace lancedb::table {

/// Add and remove index segments. Externally synchronized.
class CreateIndexOperation : public Operation {
 public:
  /// Register `new_indices` and unregister the segments whose uuids match `removed`. With
  /// `replace`, every other segment named like a new index is removed too; without it such a
  /// segment makes Build fail with AlreadyExists.
  CreateIndexOperation(std::vector<pb::IndexMetadata> new_indices,
                       std::vector<pb::IndexMetadata> removed, bool replace)
      : new_indices_(std::move(new_indices)), removed_(std::move(removed)), replace_(replace) {}

  std::string_view name() const override { return "CreateIndex"; }
  Status Build(CommitAttempt* attempt) override;
  /// Index segments on a table with stable row ids (flag 2) store those ids; the operation
  /// changes no fragment, so the table's row-id sequences stay as they are.
  bool supports_stable_row_ids() const override { return true; }

 private:
  std::vector<pb::IndexMetadata> new_indices_;
  std::vector<pb::IndexMetadata> removed_;
  bool replace_;
};

/// Return the hyphenated text form ("8-4-4-4-12", lower-case hex) of an index uuid.
std::string IndexUuidString(const pb::IndexMetadata& index);

/// The directory holding the files of `index`, of the dataset at `root` whose manifest is
/// `manifest`: `{root}/_indices/{uuid}`, or under the base path `index.base_id` names (an index
/// a branch or shallow clone inherited). NotFound for an undeclared base id.
Result<std::string> IndexDirPath(const pb::Manifest& manifest, const std::string& root,
                                 const pb::IndexMetadata& index);

}  // namespace lancedb::table
