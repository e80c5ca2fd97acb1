// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Branches of a table, stored as Lance 12 stores them (lance-format.md §1.5;
// docs/format/branches-and-clones.md):
//   {root}/_refs/branches/{name, '/' written as %2F}.json   the branch's metadata, camelCase:
//     {"parentBranch": null | "b", "identifier": {"version_mapping": [[v, "<uuid hex>"], …]},
//      "parentVersion": v, "createAt": <unix seconds>, "manifestSize": n, "metadata": {}}
//   {root}/tree/{name}/                                      the branch's dataset
// A branch's dataset is a shallow clone (clone.h) of its parent's version `parentVersion`: its
// first manifest has that version number, `branch = name`, and reaches the parent's files
// through base paths; its later versions continue the numbering. `identifier` is the parent's
// identifier plus (parentVersion, a new uuid): a child branch's identifier extends its parent's,
// which tells a branch re-created under the same name from the one its children came from.
// "main" (or no name) is the table's main dataset, at the root.
// Thread-safety: stateless functions. Creating the same name twice races on put-if-absent of the
// metadata file: one wins, the other gets AlreadyExists.

#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "table/dataset.h"

namespace lancedb::table {

struct BranchContents {
  std::optional<std::string> parent_branch;  ///< nullopt: main
  /// (version, uuid) pairs from the main branch down to this one.
  std::vector<std::pair<uint64_t, std::string>> identifier;
  uint64_t parent_version = 0;
  uint64_t create_at = 0;  ///< seconds since the epoch
  uint64_t manifest_size = 0;
  std::map<std::string, std::string> metadata;
};

/// InvalidArgument unless `name` is a valid branch name: non-empty, '/'-separated segments of
/// letters, digits, '.', '-', '_' (no empty segment, so no leading, trailing or doubled '/'),
/// no "..", not ending in ".lock", not "main".
Status ValidateBranchName(const std::string& name);
/// "main" and "" name the main branch (nullopt); any other name must be valid.
Result<std::optional<std::string>> NormalizeBranchName(const std::string& name);

/// The dataset directory of `branch` of the table at `root` (the root itself for main).
std::string BranchDatasetPath(const std::string& root, const std::optional<std::string>& branch);
/// The branch a dataset snapshot is on (its manifest's `branch`; nullopt for main).
std::optional<std::string> BranchOf(const Dataset& dataset);
/// The root of the table a dataset snapshot belongs to: its path without `/tree/{branch}`.
std::string TableRootOf(const Dataset& dataset);

/// Every branch of the table at `root`, by name (empty when there is none).
Result<std::map<std::string, BranchContents>> ListBranches(io::FileSystem& fs,
                                                           const std::string& root);
/// Branch `name`; NotFound "Branch 'x' not found".
Result<BranchContents> GetBranch(io::FileSystem& fs, const std::string& root,
                                 const std::string& name);
/// Create branch `name` of the table at `root` from the snapshot `source` (a version of main or
/// of another branch of that table) and return the branch's first version. InvalidArgument for
/// a bad name; AlreadyExists when the branch exists. Nothing is written on error.
Result<DatasetPtr> CreateBranch(const DatasetPtr& source, const std::string& root,
                                const std::string& name);
/// Delete branch `name` and its directory. NotFound when missing; InvalidArgument while a tag
/// points into it or another branch was created from it (as Lance: delete those first).
Status DeleteBranch(io::FileSystem& fs, const std::string& root, const std::string& name);

/// Serialize / parse the branch metadata file (exposed for tests).
std::string BranchToJson(const BranchContents& branch);
Result<BranchContents> BranchFromJson(std::string_view json, const std::string& name);

}  // namespace lancedb::table
