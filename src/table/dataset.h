// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Dataset: one Lance table (lance-format.md §1) at one version — an immutable snapshot of a
// manifest — plus the write operations that commit new versions with the optimistic
// put-if-absent protocol (§1.4). Thread-safety: a Dataset object is immutable; every write
// returns a new Dataset for the version it committed, so many threads may share one.

#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "array/array.h"
#include "format/blob_bases.h"
#include "format/file_writer.h"
#include "format/lance_schema.h"
#include "format/statistics.h"
#include "io/file_system.h"

namespace lancedb::table {

class Manifest;                       // wraps the lance.table.Manifest proto (manifest.h)
enum class ManifestNaming : uint8_t;  // manifest.h

struct VersionInfo {
  uint64_t version = 0;
  int64_t timestamp_micros = 0;  // commit time, microseconds since the epoch
  std::vector<std::pair<std::string, std::string>> metadata;
};

enum class WriteMode { kCreate, kAppend, kOverwrite };

struct WriteParams {
  WriteMode mode = WriteMode::kCreate;
  int64_t max_rows_per_file = 1024 * 1024;
  int64_t max_rows_per_group = 1024;  // rows per batch handed to the file writer
  /// How long the commit keeps rebasing over concurrent writers before giving up with a
  /// retryable CommitConflict.
  std::chrono::milliseconds commit_timeout{60000};
  /// Only when creating the dataset: give rows stable row ids (feature flag 2, §3).
  bool enable_stable_row_ids = false;
  /// Only when creating the dataset: name manifests with the V2 scheme (§1.1).
  bool enable_v2_manifest_paths = true;
  /// Called after each new data file is complete, with its size in bytes (write progress).
  std::function<void(int64_t file_size_bytes)> on_file_written;
  /// Creation and overwrite: the data storage (file format) version of the new table, "2.1" or
  /// "2.2" ("stable" = "2.2"); empty = 2.2 for a new table and, on overwrite, the version the
  /// table already has when it is one of those. Appends always keep the table's version.
  std::string data_storage_version;
  /// Overwrite only: commit exactly on top of the version the write started from; when another
  /// writer committed after it, fail with a retryable CommitConflict instead of rebasing (for
  /// read-modify-write of a whole table, such as a directory namespace's `__manifest`).
  bool fail_if_rebased = false;
  /// The base paths external blob URIs are written relative to; Append and Overwrite use the
  /// dataset's own when null (docs/format/blobs.md).
  std::shared_ptr<const format::ExternalBlobBases> external_blob_bases;
  /// Store an external blob URI outside every registered base as its absolute URI; when false
  /// such a URI fails the write (InvalidArgument, nothing written). Writes of user data turn
  /// this off unless asked; rewrites of stored rows keep it on.
  bool allow_external_blob_outside_bases = true;
};

/// Parse a data storage version as WriteParams::data_storage_version takes it ("2.1", "2.2",
/// "stable"); NotSupported naming the version for the others ("2.0"/"legacy", "next", ...).
Result<format::FileVersion> ParseDataStorageVersion(std::string_view version);

struct ScanOptions {
  /// Top-level columns to read, in order; empty means all.
  std::vector<std::string> columns;
  /// Append a `_rowid` column (uint64): the row address, or on a table with stable row ids
  /// (lance-format.md §3) the row's id.
  bool with_row_id = false;
  int64_t batch_size = 8192;
  /// Optional: called with the zone statistics of the projected columns over each row range
  /// of a fragment whose files keep statistics (format/statistics.h); a range for which it
  /// returns false is skipped. Files without statistics are read in full.
  format::RangePredicate may_match = nullptr;
  /// Append a `_rowaddr` column (uint64 row address: fragment id << 32 | offset in the
  /// fragment), after `_rowid`.
  bool with_row_address = false;
  /// Read blob columns as their payloads instead of their descriptors (format/blob.h).
  bool materialize_blobs = false;
};

class Dataset {
 public:
  /// Open the latest version (or `version`) of the dataset at `path` on `fs`.
  /// NotFound when there is no dataset or no such version; NotSupported for unknown reader
  /// feature flags; Corruption for a damaged manifest.
  static Result<std::shared_ptr<const Dataset>> Open(io::FileSystemPtr fs, std::string path,
                                                     std::optional<uint64_t> version = {});
  /// Create (mode kCreate: AlreadyExists if a dataset is there; kOverwrite: new version over
  /// any existing one) from a stream of batches. An empty stream with a schema creates an empty
  /// table.
  static Result<std::shared_ptr<const Dataset>> Write(io::FileSystemPtr fs, std::string path,
                                                      array::RecordBatchReader* data,
                                                      const WriteParams& params);

  const std::string& path() const;
  const io::FileSystemPtr& fs() const;
  uint64_t version() const;
  /// The version this snapshot is the latest of when it was opened (for checkout semantics).
  const Manifest& manifest() const;
  /// The manifest as a shared pointer (shares this snapshot's ownership).
  std::shared_ptr<const Manifest> manifest_ptr() const;
  /// How this dataset names its manifests.
  ManifestNaming manifest_naming() const;
  /// The registered base paths of this version (manifest base_paths), for external blobs.
  std::shared_ptr<const format::ExternalBlobBases> external_blob_bases() const;
  const format::LanceSchema& lance_schema() const;
  array::SchemaPtr schema() const;
  /// Rows not deleted.
  Result<int64_t> CountRows() const;
  /// Stream the rows of this version.
  Result<std::unique_ptr<array::RecordBatchReader>> Scan(const ScanOptions& options) const;
  /// Read the rows at `row_addresses` ((fragment_id << 32) | offset), in the order given
  /// (duplicates allowed), projected to `columns` (empty means all). Deleted rows are returned
  /// like any other row. InvalidArgument for an address outside this version.
  /// Blob columns come back as descriptors, or with `materialize_blobs` as their payloads.
  Result<array::RecordBatchPtr> Take(const std::vector<uint64_t>& row_addresses,
                                     const std::vector<std::string>& columns = {},
                                     bool materialize_blobs = false) const;
  /// Every version of the dataset, oldest first.
  Result<std::vector<VersionInfo>> ListVersions() const;
  /// The newest version number on storage.
  Result<uint64_t> LatestVersion() const;

  /// Append batches (schema must match; InvalidArgument naming the difference otherwise).
  /// Commits version latest+1, rebasing over concurrent appends/deletes.
  Result<std::shared_ptr<const Dataset>> Append(array::RecordBatchReader* data,
                                                const WriteParams& params = {}) const;
  /// Replace the table's content (and schema) with `data` as a new version.
  Result<std::shared_ptr<const Dataset>> Overwrite(array::RecordBatchReader* data,
                                                   const WriteParams& params = {}) const;
  /// Delete rows by row address ((fragment_id << 32) | offset): writes deletion files, drops
  /// fully deleted fragments. Returns the new dataset and the number of rows deleted.
  Result<std::shared_ptr<const Dataset>> DeleteRows(const std::vector<uint64_t>& row_addresses,
                                                    int64_t* num_deleted) const;
  /// Replace rows: delete the rows at `row_addresses` and append `new_rows` (the rewritten
  /// rows, with the table's schema) as new fragments, in one Update commit. Returns the new
  /// dataset; `num_updated` receives the number of old rows replaced. On tables with stable
  /// row ids `new_rows` must hold one row per address, in the same order: each keeps the id
  /// and created-at version of the row it replaces (InvalidArgument otherwise).
  Result<std::shared_ptr<const Dataset>> UpdateRows(const std::vector<uint64_t>& row_addresses,
                                                    array::RecordBatchReader* new_rows,
                                                    int64_t* num_updated) const;
  /// Commit this snapshot's content as the newest version (Restore operation).
  Result<std::shared_ptr<const Dataset>> Restore() const;

  ~Dataset();
  struct Impl;
  explicit Dataset(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

using DatasetPtr = std::shared_ptr<const Dataset>;

}  // namespace lancedb::table
