// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Migration of a table's manifest names from the V1 scheme ({version}.manifest) to the V2
// scheme ({u64::MAX - version:020}.manifest), lance-format.md §1.1.
//
// Crash safety. The FileSystem has no rename, so each manifest is moved in two steps: its bytes
// are published under the V2 name with PutIfAbsent (atomic: readers never see a partial file),
// then the V1 file is deleted. Versions move oldest first. At every instant each version is
// present, complete, under at least one name, so a crash anywhere leaves:
//   - older versions under V2 names, newer ones under V1 names, and at most one version under
//     both names (identical bytes);
//   - a table this library reads: ListVersionFiles lists each version under the name it has
//     (the V2 copy when both exist), FindLatestVersion finds the newest version by either name,
//     and the next commit keeps the naming of the newest version;
//   - a state a second migration finishes: a V2 copy already present with the same bytes is
//     kept and its V1 original deleted.
// LanceDB refuses a directory that mixes both schemes ("Found multiple manifest naming
// schemes") until the migration is run again, as it would after its own migration (which
// renames the files one by one) was cut short.

#include <algorithm>

#include "table/manifest.h"

namespace lancedb::table {

Status MigrateManifestNamingToV2(io::FileSystem& fs, const std::string& root) {
  LANCEDB_ASSIGN_OR_RETURN(auto entries, fs.ListDir(io::JoinPath(root, "_versions")));
  std::vector<uint64_t> v1_versions;
  for (const auto& entry : entries) {
    if (entry.is_dir) continue;
    auto parsed = ParseManifestFileName(entry.name);
    if (parsed && parsed->second == ManifestNaming::kV1) v1_versions.push_back(parsed->first);
  }
  std::sort(v1_versions.begin(), v1_versions.end());
  const std::string dir = io::JoinPath(root, "_versions");
  for (uint64_t version : v1_versions) {
    const std::string v1_path = io::JoinPath(dir, ManifestFileName(version, ManifestNaming::kV1));
    const std::string v2_path = io::JoinPath(dir, ManifestFileName(version, ManifestNaming::kV2));
    LANCEDB_ASSIGN_OR_RETURN(auto bytes, fs.ReadFile(v1_path));
    Status put = fs.PutIfAbsent(
        v2_path, std::span<const uint8_t>(bytes->data(), static_cast<size_t>(bytes->size())));
    if (put.IsAlreadyExists()) {
      // An earlier migration copied it and stopped before deleting the original.
      LANCEDB_ASSIGN_OR_RETURN(auto existing, fs.ReadFile(v2_path));
      if (existing->view() != bytes->view()) {
        return Status::Corruption("Version " + std::to_string(version) + " of dataset '" + root +
                                  "' has two different manifests, '" +
                                  ManifestFileName(version, ManifestNaming::kV1) + "' and '" +
                                  ManifestFileName(version, ManifestNaming::kV2) + "'");
      }
    } else if (!put.ok()) {
      return put;
    }
    Status deleted = fs.DeleteFile(v1_path);
    if (!deleted.ok() && !deleted.IsNotFound()) return deleted;
  }
  return Status::OK();
}

}  // namespace lancedb::table
