// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Cherry-pick: replay the commits a branch made after it was created onto the branch it was
// created from (docs/format/branches-and-clones.md).
//
// Both sides share every version up to the fork F (the branch's parentVersion): the source's
// versions F+1..B and the target's versions F+1..M were committed independently. Each source
// commit is replayed from its transaction (`_transactions/*.txn` or the inline one) as a new
// target commit, in order, the way a concurrent writer is rebased by the commit protocol
// (commit.h, conflicts.h): it is first checked against every target transaction after F with the
// conflict table, then rebuilt on the target (fragment ids the source allocated after F are
// given fresh target ids; files the target cannot reach are copied into it; deletion vectors of
// shared fragments are merged, and a row both sides deleted or updated is a conflict). The
// whole replay is simulated first, writing nothing; only when every commit applies is it run
// for real. Conflicts are reported, never raised.
// Thread-safety: stateless; the real run commits through CommitOperation, so it is safe against
// concurrent writers of the target.

#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "table/dataset.h"

namespace lancedb::table {

/// How a replay went, with the figures of the diff.
struct CherryPickOutcome {
  uint64_t fork_version = 0;
  uint64_t target_version = 0;  ///< the target's latest version when the replay started
  uint64_t source_version = 0;  ///< the source's latest version
  /// Source commits after the fork (the ones replayed).
  std::vector<uint64_t> source_commits;
  /// Live rows of fragments both sides have unchanged since the fork, of fragments only the
  /// target added, of fragments only the source added.
  uint64_t rows_unchanged = 0;
  uint64_t rows_new_on_target = 0;
  uint64_t rows_new_on_source = 0;
  /// Whether every transaction the replay needs is still on storage.
  bool history_available = true;
  /// "ready" (a dry run that would apply), "cherryPicked", "failed" or "notImplemented" (a
  /// commit of a kind the replay cannot rebuild).
  std::string status;
  /// (code, message) for each problem found; codes as LanceDB's CherryPickErrorCode
  /// ("rowsChanged", "columnChanged", "baseMoved", "nothingToApply", …).
  std::vector<std::pair<std::string, std::string>> errors;
  /// The target's latest version after a replay that committed.
  std::optional<uint64_t> version_after;
  /// Target commits made (a replay interrupted by a concurrent writer may stop part way).
  size_t num_applied = 0;
};

/// Replay the commits `source` (the latest version of a branch created from the target at
/// `fork_version`) made after the fork onto `target` (the latest version of that parent); with
/// `dry_run`, only check that they apply. `label` ("branch@version") is recorded in the
/// transaction properties of each commit made. Errors are returned for storage failures only.
Result<CherryPickOutcome> CherryPickCommits(const DatasetPtr& target, const DatasetPtr& source,
                                            uint64_t fork_version, const std::string& label,
                                            bool dry_run);

}  // namespace lancedb::table
