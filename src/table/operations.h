// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The write operations lancedb-cpp commits (lance-format.md §1.3 Transaction). Which
// concurrently committed operations each can be rebuilt on top of is the conflict table's
// business (conflicts.h); Build finishes the row-level rules when rebuilding on a newer version.

#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "table/commit.h"

namespace lancedb::table {

/// Give a new fragment the stable row ids [next_row_id, +rows) and created/updated versions
/// `version` for all its rows (lance-format.md §3); advances manifest->next_row_id.
void AssignStableRowIds(pb::DataFragment* frag, uint64_t version, pb::Manifest* manifest);

/// Add new fragments (ids assigned at commit, above max_fragment_id).
class AppendOperation : public Operation {
 public:
  explicit AppendOperation(std::vector<pb::DataFragment> fragments)
      : fragments_(std::move(fragments)) {}
  std::string_view name() const override { return "Append"; }
  bool supports_stable_row_ids() const override { return true; }
  Status Build(CommitAttempt* attempt) override;

 private:
  std::vector<pb::DataFragment> fragments_;
};

/// Replace the content and schema (ids restart at 0; indices are dropped). With `create_only`
/// the dataset must not exist yet.
class OverwriteOperation : public Operation {
 public:
  OverwriteOperation(std::vector<pb::DataFragment> fragments, format::LanceSchema schema,
                     bool create_only)
      : fragments_(std::move(fragments)), schema_(std::move(schema)), create_only_(create_only) {}
  std::string_view name() const override { return create_only_ ? "Create" : "Overwrite"; }
  bool supports_stable_row_ids() const override { return true; }
  /// Turn on stable row ids (creation only; a table that has them keeps them anyway).
  void set_enable_stable_row_ids(bool enable) { enable_stable_row_ids_ = enable; }
  /// Fail with a retryable conflict instead of committing over a version newer than the read.
  void set_fail_if_rebased(bool fail) { fail_if_rebased_ = fail; }
  /// The table's data storage version after the overwrite ("2.2" unless set).
  void set_data_format_version(std::string version) { data_format_version_ = std::move(version); }
  Status Build(CommitAttempt* attempt) override;

 private:
  std::vector<pb::DataFragment> fragments_;
  format::LanceSchema schema_;
  std::string data_format_version_ = "2.2";
  bool create_only_;
  bool enable_stable_row_ids_ = false;
  bool fail_if_rebased_ = false;
};

/// Mark row offsets deleted, per fragment. Each attempt writes the union of the base's deletion
/// vector and ours; fragments left with no rows are removed. Rebuilt on a version newer than
/// the one it read, it fails with a retryable conflict when one of its fragments is gone or has
/// other data files, or when one of its rows was deleted concurrently (the row is gone; the
/// delete must be evaluated again to report what it deleted).
class DeleteOperation : public Operation {
 public:
  /// `label` names the operation in conflict messages (an Update deletes the rows it rewrites).
  explicit DeleteOperation(std::map<uint64_t, std::vector<uint32_t>> deletions,
                           std::string_view label = "Delete")
      : deletions_(std::move(deletions)), label_(label) {}
  std::string_view name() const override { return label_; }
  bool supports_stable_row_ids() const override { return true; }
  Status Build(CommitAttempt* attempt) override;
  /// Rows newly deleted by the last built attempt.
  int64_t num_deleted() const { return num_deleted_; }
  /// The row offsets to delete, per fragment.
  const std::map<uint64_t, std::vector<uint32_t>>& deletions() const { return deletions_; }

 private:
  std::map<uint64_t, std::vector<uint32_t>> deletions_;
  std::string_view label_;
  int64_t num_deleted_ = 0;
};

/// Rewrite rows: delete the old rows (as DeleteOperation) and add the rewritten rows as new
/// fragments, in one Update transaction (REWRITE_ROWS).
class UpdateOperation : public Operation {
 public:
  UpdateOperation(std::map<uint64_t, std::vector<uint32_t>> deletions,
                  std::vector<pb::DataFragment> new_fragments)
      : delete_(std::move(deletions), "Update"), new_fragments_(std::move(new_fragments)) {}
  std::string_view name() const override { return "Update"; }
  bool supports_stable_row_ids() const override { return true; }
  /// On a table with stable row ids: the id (and created-at version) each new row keeps, in
  /// the order of the new fragments' rows (lance-format.md §3).
  void set_stable_row_ids(std::vector<uint64_t> ids, std::vector<uint64_t> created) {
    stable_ids_ = std::move(ids);
    created_ = std::move(created);
  }
  Status Build(CommitAttempt* attempt) override;
  /// Rows removed by the last built attempt (rows already deleted concurrently excluded).
  int64_t num_deleted() const { return delete_.num_deleted(); }

 private:
  DeleteOperation delete_;
  std::vector<pb::DataFragment> new_fragments_;
  std::vector<uint64_t> stable_ids_;
  std::vector<uint64_t> created_;
};

/// Make an older version's content the newest version.
class RestoreOperation : public Operation {
 public:
  explicit RestoreOperation(ManifestPtr target) : target_(std::move(target)) {}
  std::string_view name() const override { return "Restore"; }
  bool supports_stable_row_ids() const override { return true; }
  Status Build(CommitAttempt* attempt) override;

 private:
  ManifestPtr target_;
};

/// Register base paths (lance-format.md §1.3 base_paths; Lance's UpdateBases). Each base
/// with id 0 gets the next free id (above the largest registered, from 1). InvalidArgument
/// when a name (an absent name counts, as in Lance 12) or path is already registered (or
/// given twice), or an id is taken.
class UpdateBasesOperation : public Operation {
 public:
  explicit UpdateBasesOperation(std::vector<pb::BasePath> bases) : bases_(std::move(bases)) {}
  std::string_view name() const override { return "UpdateBases"; }
  bool supports_stable_row_ids() const override { return true; }
  Status Build(CommitAttempt* attempt) override;

 private:
  std::vector<pb::BasePath> bases_;
};

}  // namespace lancedb::table
