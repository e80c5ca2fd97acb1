// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Branches of a table and cherry-picks between them (Table::CreateBranch, Table::CherryPick),
// with the shapes of LanceDB's BranchDiff and CherryPickResult. A branch is a Lance branch:
// `{table}/tree/{name}/`, readable by pylance and LanceDB (docs/format/branches-and-clones.md).

#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lancedb {

/// A branch, as listed by Table::ListBranches.
struct BranchInfo {
  /// The branch it was created from; nullopt for main.
  std::optional<std::string> parent_branch;
  /// The version of the parent it was created from (its first version has this number).
  uint64_t parent_version = 0;
  /// Creation time, seconds since the epoch.
  uint64_t create_at = 0;
  /// Size in bytes of the parent version's manifest.
  uint64_t manifest_size = 0;
};

/// A column in a BranchDiff.
struct ColumnSummary {
  std::string name;
  std::string data_type;
  bool nullable = true;
};

/// A column both sides have with a different type or nullability.
struct ColumnChange {
  std::string name;
  ColumnSummary main;
  ColumnSummary branch;
};

/// An index in a BranchDiff.
struct IndexSummary {
  std::string index_name;
  std::vector<std::string> columns;
  std::optional<std::string> index_type;
  /// "added" (only on the branch) or "removed" (only on the current branch).
  std::string status;
};

/// Rows of the two sides (LanceDB's RowCountSummary): live rows in fragments both have
/// unchanged since the fork, in fragments added on the current branch ("base"), in fragments
/// added on the branch. stale_recompute and inputs_changed concern LanceDB Enterprise's computed
/// columns and are 0; delta_available says whether the branch's history since the fork is there
/// to replay.
struct RowCountSummary {
  uint64_t unchanged = 0;
  uint64_t new_on_base = 0;
  uint64_t new_on_branch = 0;
  uint64_t stale_recompute = 0;
  uint64_t inputs_changed = 0;
  bool delta_available = false;
};

/// A reason a cherry-pick cannot apply. `code` is one of LanceDB's CherryPickErrorCode values
/// (baseMoved, rowCountMismatch, rowsChanged, columnRemoved, columnChanged, nothingToApply,
/// noColumnChanges, inputColumnDependency, parentNotMain) or, for what LanceDB has no code for,
/// indexChanged, historyUnavailable, notImplemented.
struct CherryPickError {
  std::string code;
  std::string message;
};

/// How a branch differs from the branch it was created from ("main" here stands for that
/// branch, as in LanceDB, where it always is main).
struct BranchDiff {
  std::string from_branch;
  uint64_t parent_version = 0;
  uint64_t main_version = 0;
  uint64_t branch_version = 0;
  /// Whether the current branch has commits since the fork.
  bool base_moved = false;
  uint64_t row_count_main = 0;
  uint64_t row_count_branch = 0;
  RowCountSummary row_summary;
  std::vector<ColumnSummary> added_columns;
  std::vector<ColumnSummary> removed_columns;
  std::vector<ColumnChange> changed_columns;
  std::vector<IndexSummary> added_indexes;
  std::vector<IndexSummary> removed_indexes;
  /// Why a cherry-pick would not apply (empty when it would).
  std::vector<CherryPickError> errors;
};

enum class CherryPickStatus : uint8_t {
  kReady,           ///< a dry run found that the cherry-pick applies
  kFailed,          ///< it does not apply (see diff.errors); nothing was committed
  kNotImplemented,  ///< a branch commit is of a kind that cannot be replayed
  kCherryPicked,    ///< applied
};

/// The wire name of a status: "ready", "failed", "notImplemented", "cherryPicked".
const char* CherryPickStatusName(CherryPickStatus status);

struct CherryPickResult {
  CherryPickStatus status = CherryPickStatus::kFailed;
  BranchDiff diff;
  /// Columns the branch adds to the current branch.
  std::vector<std::string> promoted_columns;
  /// The current branch's version after the cherry-pick (kCherryPicked only).
  std::optional<uint64_t> main_version_after;
};

/// The JSON LanceDB's REST protocol and Python API use (camelCase keys).
std::string BranchDiffToJson(const BranchDiff& diff);
std::string CherryPickResultToJson(const CherryPickResult& result);

}  // namespace lancedb
