// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The optimistic commit protocol (lance-format.md §1.4). A write is an Operation that can
// build its transaction and the next manifest on top of any base version. CommitOperation
// writes the transaction file, then creates the next manifest with put-if-absent; when another
// writer got there first it reads the transactions committed since, asks the Operation whether
// it can rebase over each, rebuilds on the newest version and retries with randomized backoff.
// A failed commit leaves no new manifest and deletes the files the attempt wrote.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/file_system.h"
#include "table/dataset.h"
#include "table/manifest.h"

namespace lancedb::table {

/// One attempt at committing an operation on top of `base`.
struct CommitAttempt {
  io::FileSystem* fs = nullptr;
  std::string root;
  /// The version this attempt builds on; nullptr when creating the dataset.
  const Manifest* base = nullptr;
  uint64_t read_version = 0;
  /// The operation fills in its oneof member.
  pb::Transaction transaction;
  /// Pre-filled with a copy of the base manifest at version read_version + 1.
  pb::Manifest manifest;
  /// Pre-filled with the base's indices.
  pb::IndexSection indices;
  /// Files the attempt wrote (deletion files); deleted when the attempt does not commit.
  std::vector<std::string> written_files;
};

/// A write that can be (re)built on any base version. Externally synchronized.
class Operation {
 public:
  virtual ~Operation() = default;
  /// Human name used in error messages ("Append", "Delete", ...).
  virtual std::string_view name() const = 0;
  /// Fill `attempt->transaction` and adjust `attempt->manifest` / `attempt->indices`.
  virtual Status Build(CommitAttempt* attempt) = 0;
  /// OK when this operation can be rebased over `theirs`, committed as `their_version`;
  /// CommitConflict (or another code) explaining why not otherwise.
  virtual Status CheckConflict(const pb::Transaction& theirs, uint64_t their_version) const = 0;
  /// Whether the operation maintains stable row ids (writer flag 2) when the table uses them.
  virtual bool supports_stable_row_ids() const { return false; }
  /// Data files written before the commit (full paths), deleted if the commit fails.
  std::vector<std::string> data_files;
};

/// Commit `op` on top of `read` (nullptr to create the dataset at `root`), retrying up to
/// `max_retries` times on conflicts. Returns the committed snapshot.
Result<DatasetPtr> CommitOperation(const io::FileSystemPtr& fs, const std::string& root,
                                   ManifestPtr read, ManifestNaming naming, Operation* op,
                                   int max_retries);

/// The name of a transaction's operation ("Append", "Overwrite", ..., "Unknown").
std::string_view OperationName(const pb::Transaction& txn);

/// The first unused fragment id of `manifest` (max_fragment_id + 1, or 0).
uint64_t NextFragmentId(const pb::Manifest& manifest);

/// Set max_fragment_id to the max of its current value and the fragments' ids
/// (`reset`: of the fragments' ids only, absent when there are none).
void UpdateMaxFragmentId(pb::Manifest* manifest, bool reset = false);

}  // namespace lancedb::table
