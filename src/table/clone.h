// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Clones of one version of a dataset (lance-format.md §1.1; §1.3 base_paths and the Clone
// transaction, 113; docs/format/branches-and-clones.md).
//
// A shallow clone is a new dataset whose first manifest is the source version's manifest, with
// the same version number, a Clone transaction, and every file the source holds itself (a data
// file, deletion file or index directory without base_id) re-pointed at the source directory
// through a new BasePath {is_dataset_root: true, path: <absolute source root>}. Nothing is
// copied; files the source already reached through base paths keep them. Branches are shallow
// clones under `{root}/tree/{branch}/` (branches.h). A deep clone copies every file the version
// references into the new dataset and references nothing outside it.
//
// Files a shallow clone references must outlive the source's cleanup: Lance keeps the files of a
// table's branches, but knows nothing of clones made elsewhere. lancedb-cpp records each shallow
// clone in every dataset it references, as `{source}/_refs/clones/{hash}.json`
// ({"path": <clone root>, "version": N, "createdAt": "…"}); cleanup keeps what registered clones
// still reference (cleanup.h). Lance ignores that directory.
// Thread-safety: stateless functions.

#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "table/dataset.h"
#include "table/manifest.h"

namespace lancedb::table {

struct CloneOptions {
  /// Reference the source's files (true) or copy them (false).
  bool shallow = true;
  /// For a branch: the manifest's `branch` and the Clone transaction's branch_name.
  std::optional<std::string> branch;
  /// The name of the new base path (Lance names a parent branch's base after the branch).
  std::optional<std::string> base_name;
  /// The tag the source version was chosen by (Clone.ref_name).
  std::optional<std::string> ref_name;
};

/// Create the dataset at `target` on `target_fs` as a clone of the version `source` reads. Its
/// first version has the source's version number and manifest naming. AlreadyExists when a
/// dataset exists at `target`; NotSupported for a shallow clone onto another file system. A
/// failed clone leaves no manifest and removes the files it copied.
Result<DatasetPtr> CloneDataset(const DatasetPtr& source, const io::FileSystemPtr& target_fs,
                                const std::string& target, const CloneOptions& options);

/// `root` as base paths store it: absolute for the local disk (as Lance writes it), without a
/// "file://" prefix or a trailing '/'; unchanged on other file systems.
std::string StoredRootPath(const io::FileSystem& fs, const std::string& root);
/// Whether two dataset roots (stored base paths or dataset paths) name the same directory.
bool SameRoot(const std::string& a, const std::string& b);

/// Copy one file (streamed in chunks), possibly across file systems.
Status CopyFile(io::FileSystem& from, const std::string& src, io::FileSystem& to,
                const std::string& dst);
/// Copy a directory tree; returns the files written in `written`.
Status CopyDir(io::FileSystem& from, const std::string& src, io::FileSystem& to,
               const std::string& dst, std::vector<std::string>* written);

/// Record that the dataset at `clone_root` references files of the dataset at `root`.
Status RegisterClone(io::FileSystem& fs, const std::string& root, const std::string& clone_root,
                     uint64_t version);
/// The roots of the clones registered in the dataset at `root` (empty when none).
Result<std::vector<std::string>> ListRegisteredClones(io::FileSystem& fs, const std::string& root);

}  // namespace lancedb::table
