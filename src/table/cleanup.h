// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Cleanup of old versions (Lance `cleanup_old_versions`): delete the manifests of versions
// older than a cutoff, and the data, deletion, index and transaction files that only those
// versions referenced. Never removed: the latest version and any tagged version (with every
// file they reference); with error_if_tagged_old_versions (the default, as Lance) a tagged
// version older than the cutoff fails the cleanup before anything is deleted. Files no
// manifest references ("unverified": e.g. from a write in progress or one that failed) are
// deleted only when they are older than kUnverifiedThreshold, or with delete_unverified, and
// only when last modified before the oldest kept version was committed. Files other datasets
// reach through base paths are never removed: those of the table's other branches (and the
// versions branches were created from, as Lance keeps them) and those of the shallow clones
// registered in the dataset (clone.h). Tags count for the branch they point into. A reader
// still holding a removed version fails with NotFound naming the file.
// Thread-safety: stateless; run it while no write is in flight for delete_unverified.

#pragma once

#include <chrono>
#include <cstdint>

#include "table/dataset.h"

namespace lancedb::table {

/// Age after which a file no manifest references is assumed abandoned (Lance: 7 days).
inline constexpr std::chrono::hours kUnverifiedThreshold{24 * 7};

struct CleanupOptions {
  /// Remove versions committed before now - older_than.
  std::chrono::microseconds older_than = std::chrono::hours(24 * 7);
  /// Delete unreferenced files younger than kUnverifiedThreshold too.
  bool delete_unverified = false;
  /// Fail with InvalidArgument (deleting nothing) when a tagged version is older than the
  /// cutoff, instead of keeping it.
  bool error_if_tagged_old_versions = true;
};

struct RemovalStats {
  uint64_t bytes_removed = 0;
  uint64_t old_versions_removed = 0;
};

/// Clean up the dataset at `dataset`'s path. InvalidArgument naming the tags when
/// error_if_tagged_old_versions and a tagged version is older than the cutoff.
Result<RemovalStats> CleanupOldVersions(const DatasetPtr& dataset, const CleanupOptions& options);

}  // namespace lancedb::table
