// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "table/cleanup.h"

#include <cstdio>
#include <set>

#include "table/deletion.h"
#include "table/manifest.h"
#include "table/tags.h"

namespace lancedb::table {
namespace {

std::string UuidString(const std::string& bytes) {
  if (bytes.size() != 16) return bytes;
  std::string out;
  char buf[3];
  for (size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    std::snprintf(buf, sizeof(buf), "%02x", static_cast<unsigned char>(bytes[i]));
    out += buf;
  }
  return out;
}

/// Paths (relative to the root) of the files a version references.
void AddReferences(const Manifest& m, std::set<std::string>* refs) {
  for (const auto& frag : m.proto().fragments()) {
    for (const auto& file : frag.files()) {
      if (!file.has_base_id()) refs->insert("data/" + file.path());
    }
    if (frag.has_deletion_file() && !frag.deletion_file().has_base_id()) {
      refs->insert("_deletions/" + DeletionFileName(frag.id(), frag.deletion_file()));
    }
  }
  for (const auto& index : m.index_section().indices()) {
    if (!index.has_base_id()) refs->insert("_indices/" + UuidString(index.uuid().uuid()));
  }
  if (!m.proto().transaction_file().empty()) {
    refs->insert("_transactions/" + m.proto().transaction_file());
  }
}

/// Delete `rel` (a file, or an index directory) unless referenced; add its size.
Status RemoveUnreferenced(io::FileSystem& fs, const std::string& root, const std::string& dir,
                          const std::set<std::string>& keep, const std::set<std::string>& dropped,
                          bool delete_unverified, RemovalStats* stats) {
  auto entries = fs.ListDir(io::JoinPath(root, dir));
  if (!entries.ok()) return entries.status().IsNotFound() ? Status::OK() : entries.status();
  for (const auto& e : *entries) {
    const std::string rel = dir + "/" + e.name;
    if (keep.count(rel) || (!dropped.count(rel) && !delete_unverified)) continue;
    const std::string path = io::JoinPath(root, rel);
    if (e.is_dir) {
      auto files = fs.ListDir(path);
      if (files.ok()) {
        for (const auto& f : *files) stats->bytes_removed += static_cast<uint64_t>(f.size);
      }
      LANCEDB_RETURN_NOT_OK(fs.DeleteDirRecursive(path));
    } else {
      stats->bytes_removed += static_cast<uint64_t>(e.size);
      LANCEDB_RETURN_NOT_OK(fs.DeleteFile(path));
    }
  }
  return Status::OK();
}

}  // namespace

Result<RemovalStats> CleanupOldVersions(const DatasetPtr& ds, const CleanupOptions& options) {
  io::FileSystem& fs = *ds->fs();
  const std::string& root = ds->path();
  LANCEDB_ASSIGN_OR_RETURN(auto listing, ListVersionFiles(fs, root));
  LANCEDB_ASSIGN_OR_RETURN(auto tags, ListTags(fs, root));
  std::set<uint64_t> tagged;
  for (const auto& [name, tag] : tags) tagged.insert(tag.version);
  const int64_t now = std::chrono::duration_cast<std::chrono::microseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  const int64_t cutoff = now - options.older_than.count();
  std::set<std::string> keep, dropped;
  std::vector<uint64_t> removed;
  RemovalStats stats;
  for (uint64_t v : listing.versions) {
    LANCEDB_ASSIGN_OR_RETURN(auto m, ReadManifest(fs, root, v, listing.naming));
    const bool latest = v == listing.versions.back();
    if (latest || tagged.count(v) || m->timestamp_micros() >= cutoff) {
      AddReferences(*m, &keep);
    } else {
      AddReferences(*m, &dropped);
      removed.push_back(v);
    }
  }
  for (const char* dir : {"data", "_deletions", "_indices", "_transactions"}) {
    LANCEDB_RETURN_NOT_OK(
        RemoveUnreferenced(fs, root, dir, keep, dropped, options.delete_unverified, &stats));
  }
  for (uint64_t v : removed) {
    const std::string path =
        io::JoinPath(io::JoinPath(root, "_versions"), ManifestFileName(v, listing.naming));
    auto size = fs.GetSize(path);
    if (size.ok()) stats.bytes_removed += static_cast<uint64_t>(*size);
    LANCEDB_RETURN_NOT_OK(fs.DeleteFile(path));
    ++stats.old_versions_removed;
  }
  return stats;
}

}  // namespace lancedb::table
