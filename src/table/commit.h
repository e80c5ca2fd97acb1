// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The optimistic commit protocol (lance-format.md §1.4; docs/concurrency.md). A write is an
// Operation that can build its transaction and the next manifest on top of any base version.
// CommitOperation writes the transaction file, then creates the next manifest with
// put-if-absent. When another writer got there first it reads every transaction committed since
// the operation's read version, checks each against the conflict table (conflicts.h), rebuilds
// the operation on the newest version and tries again, with a randomized backoff that grows
// with the attempts, until a time limit. Writers of one process commit to a table one at a time
// (they queue instead of racing); other processes and engines race through put-if-absent.
// A failed commit leaves no new manifest and deletes the files the attempt wrote.

#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/file_system.h"
#include "table/dataset.h"
#include "table/manifest.h"

namespace lancedb::table {

/// How long a commit keeps trying.
struct CommitOptions {
  /// After losing races for this long the commit fails with a retryable CommitConflict ("too
  /// much write contention"); the first attempt always runs.
  std::chrono::milliseconds timeout{60000};
};

/// One attempt at committing an operation on top of `base`.
struct CommitAttempt {
  io::FileSystem* fs = nullptr;
  std::string root;
  /// The version the operation was computed from; nullptr when creating the dataset.
  const Manifest* read = nullptr;
  /// The version this attempt builds on: `read`, or a newer version (every transaction
  /// committed since `read` is checked against the operation before it commits); nullptr when
  /// creating the dataset.
  const Manifest* base = nullptr;
  uint64_t read_version = 0;  // base's version
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
  /// Fill `attempt->transaction` and adjust `attempt->manifest` / `attempt->indices`. When the
  /// base is newer than the read version, finish the row-level rebase rules (conflicts.h) and
  /// return RetryableCommitConflict when they fail.
  virtual Status Build(CommitAttempt* attempt) = 0;
  /// Whether the operation maintains stable row ids (writer flag 2) when the table uses them.
  virtual bool supports_stable_row_ids() const { return false; }
  /// Data files written before the commit (full paths), deleted if the commit fails.
  std::vector<std::string> data_files;
};

/// Commit `op`, computed from version `read` (nullptr to create the dataset at `root`), on the
/// newest version, rebasing over every transaction committed since `read` that the conflict
/// table allows. Returns the committed snapshot; CommitConflict (IsRetryable() when executing
/// the write again can succeed) when a conflict or the time limit stops it.
Result<DatasetPtr> CommitOperation(const io::FileSystemPtr& fs, const std::string& root,
                                   ManifestPtr read, ManifestNaming naming, Operation* op,
                                   const CommitOptions& options = {});

/// Commit `op`, computed from the snapshot `read`, as above.
Result<DatasetPtr> CommitOperation(const DatasetPtr& read, Operation* op,
                                   const CommitOptions& options = {});

/// The first unused fragment id of `manifest` (max_fragment_id + 1, or 0).
uint64_t NextFragmentId(const pb::Manifest& manifest);

/// Set max_fragment_id to the max of its current value and the fragments' ids
/// (`reset`: of the fragments' ids only, absent when there are none).
void UpdateMaxFragmentId(pb::Manifest* manifest, bool reset = false);

}  // namespace lancedb::table
