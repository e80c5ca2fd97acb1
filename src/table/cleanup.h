// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Cleanup of old versions (Lance `cleanup_old_versions`): delete the manifests of versions
// older than a cutoff, and the data, deletion, index and transaction files that only those
// versions referenced. Never removed: the latest version and any tagged version (with every
// file they reference). Files no manifest references ("unverified": e.g. from a failed write
// still in progress) are only deleted with delete_unverified, since a writer may be about to
// commit them. A reader still holding a removed version fails with NotFound naming the file.
// Thread-safety: stateless; run it while no write is in flight for delete_unverified.

#pragma once

#include <chrono>
#include <cstdint>

#include "table/dataset.h"

namespace lancedb::table {

struct CleanupOptions {
  /// Remove versions committed before now - older_than.
  std::chrono::microseconds older_than = std::chrono::hours(24 * 7);
  bool delete_unverified = false;
};

struct RemovalStats {
  uint64_t bytes_removed = 0;
  uint64_t old_versions_removed = 0;
};

/// Clean up the dataset at `dataset`'s path.
Result<RemovalStats> CleanupOldVersions(const DatasetPtr& dataset, const CleanupOptions& options);

}  // namespace lancedb::table
