// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Tags: named references to versions, stored as Lance 12 stores them (lance-format.md §1.5):
// one JSON file per tag, `{root}/_refs/tags/{name}.json` at the table's root, with camelCase keys
// ("branch" names the branch the version is on, null for main):
//   {"branch": null, "version": 3, "createdAt": "2026-…Z", "updatedAt": "…",
//    "manifestSize": 719, "metadata": {}}
// Thread-safety: stateless functions; concurrent writers of the same tag race (last writer
// wins), as in Lance.

#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "io/file_system.h"
#include "lancedb/status.h"

namespace lancedb::table {

struct TagContents {
  /// The branch the version is on (nullopt: main); tags live at the table's root either way.
  std::optional<std::string> branch;
  uint64_t version = 0;
  uint64_t manifest_size = 0;
  std::string created_at;  // RFC 3339, UTC
  std::string updated_at;
};

/// InvalidArgument unless `name` is a valid tag name: non-empty; letters, digits, '.', '_',
/// '-'; not starting with '.' or '-', no "..", not ending in ".lock".
Status ValidateTagName(const std::string& name);

/// Every tag of the dataset at `root`, by name (empty when there is no _refs/tags).
Result<std::map<std::string, TagContents>> ListTags(io::FileSystem& fs, const std::string& root);
/// The tag named `name`; NotFound "Tag 'x' not found".
Result<TagContents> GetTag(io::FileSystem& fs, const std::string& root, const std::string& name);
/// Create tag `name` on `version` of `branch` (main by default) of the table at `root`.
/// AlreadyExists when the tag exists; NotFound when the version does not exist.
Status CreateTag(io::FileSystem& fs, const std::string& root, const std::string& name,
                 uint64_t version, const std::optional<std::string>& branch = {});
/// Point the existing tag `name` at `version` of `branch` (NotFound for a missing tag or
/// version).
Status UpdateTag(io::FileSystem& fs, const std::string& root, const std::string& name,
                 uint64_t version, const std::optional<std::string>& branch = {});
/// Delete tag `name` (NotFound when missing).
Status DeleteTag(io::FileSystem& fs, const std::string& root, const std::string& name);

/// Serialize / parse the tag file (exposed for tests).
std::string TagToJson(const TagContents& tag);
Result<TagContents> TagFromJson(std::string_view json, const std::string& name);

}  // namespace lancedb::table
