// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "table/cleanup.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

#include "table/branches.h"
#include "table/clone.h"
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

/// Paths (relative to `root`) of the files of the dataset at `root` that `m`, a manifest of
/// another dataset (a branch, a shallow clone), reaches through its base paths.
void AddBaseReferences(const Manifest& m, const std::string& root, std::set<std::string>* refs) {
  std::set<uint32_t> ids;
  for (const auto& base : m.proto().base_paths()) {
    if (base.is_dataset_root() && SameRoot(base.path(), root)) ids.insert(base.id());
  }
  if (ids.empty()) return;
  for (const auto& frag : m.proto().fragments()) {
    for (const auto& file : frag.files()) {
      if (file.has_base_id() && ids.count(file.base_id())) refs->insert("data/" + file.path());
    }
    const auto& del = frag.deletion_file();
    if (frag.has_deletion_file() && del.has_base_id() && ids.count(del.base_id())) {
      refs->insert("_deletions/" + DeletionFileName(frag.id(), del));
    }
  }
  for (const auto& index : m.index_section().indices()) {
    if (index.has_base_id() && ids.count(index.base_id())) {
      refs->insert("_indices/" + UuidString(index.uuid().uuid()));
    }
  }
}

/// Add what every version of the dataset at `path` references under `root`.
Status AddDatasetReferences(io::FileSystem& fs, const std::string& path, const std::string& root,
                            std::set<std::string>* refs) {
  LANCEDB_ASSIGN_OR_RETURN(auto listing, ListVersionFiles(fs, path));
  for (uint64_t v : listing.versions) {
    auto m = ReadManifest(fs, path, v, listing.NamingOf(v));
    if (!m.ok()) {
      if (m.status().IsNotFound()) continue;  // cleaned up meanwhile
      return m.status();
    }
    AddBaseReferences(**m, root, refs);
  }
  return Status::OK();
}

/// What other datasets need of the dataset `ds` cleans: the files the other branches of its
/// table and the shallow clones registered in it (with their branches) reference, and the
/// versions branches were created from (kept as Lance keeps them).
struct ExternalReferences {
  std::set<std::string> files;
  std::set<uint64_t> fork_versions;
};

Result<ExternalReferences> FindExternalReferences(const Dataset& ds) {
  io::FileSystem& fs = *ds.fs();
  const std::string& root = ds.path();
  const std::string table_root = TableRootOf(ds);
  const std::optional<std::string> self = BranchOf(ds);
  ExternalReferences out;
  LANCEDB_ASSIGN_OR_RETURN(auto branches, ListBranches(fs, table_root));
  for (const auto& [name, contents] : branches) {
    if (name == self) continue;
    if (contents.parent_branch == self) out.fork_versions.insert(contents.parent_version);
    LANCEDB_RETURN_NOT_OK(
        AddDatasetReferences(fs, BranchDatasetPath(table_root, name), root, &out.files));
  }
  LANCEDB_ASSIGN_OR_RETURN(auto clones, ListRegisteredClones(fs, root));
  for (const auto& clone : clones) {
    LANCEDB_RETURN_NOT_OK(AddDatasetReferences(fs, clone, root, &out.files));
    LANCEDB_ASSIGN_OR_RETURN(auto clone_branches, ListBranches(fs, clone));
    for (const auto& [name, contents] : clone_branches) {
      LANCEDB_RETURN_NOT_OK(
          AddDatasetReferences(fs, BranchDatasetPath(clone, name), root, &out.files));
    }
  }
  return out;
}

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// What the manifests say: the files of the versions kept and of those removed.
struct Inspection {
  std::set<std::string> keep;     // referenced by a version kept
  std::set<std::string> dropped;  // referenced only by removed versions ("verified")
  std::vector<uint64_t> removed;
  std::set<uint64_t> tagged_old;  // tagged versions older than the cutoff
  int64_t earliest_kept_micros = std::numeric_limits<int64_t>::max();
};

/// Whether an entry no manifest references is of a kind Lance's cleanup deletes: a data file,
/// a deletion file, a transaction file or an index directory. Anything else (e.g. blob
/// sidecar directories under data/) is left alone.
bool IsLanceManaged(const std::string& dir, const io::FileInfo& e) {
  if (dir == "_indices") return e.is_dir;
  if (e.is_dir) return false;
  if (dir == "data") return e.name.ends_with(".lance");
  if (dir == "_deletions") return e.name.ends_with(".arrow") || e.name.ends_with(".bin");
  return dir == "_transactions" && e.name.ends_with(".txn");
}

/// Whether the file (or index directory) `dir`/`e` is garbage: referenced only by removed
/// versions, or referenced by none and old enough (or delete_unverified) and, as Lance,
/// last modified before the oldest kept version was committed.
bool IsGarbage(const std::string& dir, const io::FileInfo& e, const Inspection& in,
               const CleanupOptions& options, int64_t now) {
  const std::string rel = dir + "/" + e.name;
  if (in.keep.count(rel)) return false;
  if (in.dropped.count(rel)) return true;
  if (!IsLanceManaged(dir, e)) return false;
  const bool known = e.modified_micros >= 0;
  if (known && e.modified_micros >= in.earliest_kept_micros) return false;
  if (options.delete_unverified) return true;
  const int64_t threshold =
      std::chrono::duration_cast<std::chrono::microseconds>(kUnverifiedThreshold).count();
  return known && e.modified_micros < now - threshold;
}

/// Delete the garbage under `dir`; add its size.
Status RemoveUnreferenced(io::FileSystem& fs, const std::string& root, const std::string& dir,
                          const Inspection& in, const CleanupOptions& options, int64_t now,
                          RemovalStats* stats) {
  auto entries = fs.ListDir(io::JoinPath(root, dir));
  if (!entries.ok()) return entries.status().IsNotFound() ? Status::OK() : entries.status();
  for (const auto& e : *entries) {
    if (!IsGarbage(dir, e, in, options, now)) continue;
    const std::string path = io::JoinPath(root, dir + "/" + e.name);
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

Status TaggedOldVersionsError(const std::map<std::string, TagContents>& tags,
                              const std::set<uint64_t>& tagged_old) {
  std::string names;
  size_t count = 0;
  for (const auto& [name, tag] : tags) {
    if (!tagged_old.count(tag.version)) continue;
    names += std::string(count++ ? ", " : "") + "'" + name + "' (version " +
             std::to_string(tag.version) + ")";
  }
  return Status::InvalidArgument(
      std::to_string(count) + " tagged version(s) are older than the cleanup cutoff: " + names +
      ". Delete the tag(s), or set error_if_tagged_old_versions=false to keep those versions");
}

}  // namespace

Result<RemovalStats> CleanupOldVersions(const DatasetPtr& ds, const CleanupOptions& options) {
  io::FileSystem& fs = *ds->fs();
  const std::string& root = ds->path();
  LANCEDB_ASSIGN_OR_RETURN(auto listing, ListVersionFiles(fs, root));
  // Tags live at the table's root; those on this dataset's branch keep versions here.
  LANCEDB_ASSIGN_OR_RETURN(auto all_tags, ListTags(fs, TableRootOf(*ds)));
  std::map<std::string, TagContents> tags;
  for (const auto& [name, tag] : all_tags) {
    if (tag.branch == BranchOf(*ds)) tags.emplace(name, tag);
  }
  std::set<uint64_t> tagged;
  for (const auto& [name, tag] : tags) tagged.insert(tag.version);
  LANCEDB_ASSIGN_OR_RETURN(auto external, FindExternalReferences(*ds));
  const int64_t now = NowMicros();
  const int64_t cutoff = now - options.older_than.count();
  Inspection in;
  in.keep = std::move(external.files);
  for (uint64_t v : listing.versions) {
    LANCEDB_ASSIGN_OR_RETURN(auto m, ReadManifest(fs, root, v, listing.NamingOf(v)));
    const bool latest = v == listing.versions.back();
    const bool old = !latest && m->timestamp_micros() < cutoff;
    if (old && tagged.count(v)) in.tagged_old.insert(v);
    if (!old || tagged.count(v) || external.fork_versions.count(v)) {
      AddReferences(*m, &in.keep);
      in.earliest_kept_micros = std::min(in.earliest_kept_micros, m->timestamp_micros());
    } else {
      AddReferences(*m, &in.dropped);
      in.removed.push_back(v);
    }
  }
  if (options.error_if_tagged_old_versions && !in.tagged_old.empty()) {
    return TaggedOldVersionsError(tags, in.tagged_old);
  }
  RemovalStats stats;
  // Manifests first, oldest first, then the files: interrupted at any point (a crash, a failed
  // delete), every version still listed has all its files; what is left is garbage for the
  // next cleanup.
  for (uint64_t v : in.removed) {
    const std::string path =
        io::JoinPath(io::JoinPath(root, "_versions"), ManifestFileName(v, listing.NamingOf(v)));
    auto size = fs.GetSize(path);
    if (size.ok()) stats.bytes_removed += static_cast<uint64_t>(*size);
    LANCEDB_RETURN_NOT_OK(fs.DeleteFile(path));
    ++stats.old_versions_removed;
  }
  for (const char* dir : {"data", "_deletions", "_indices", "_transactions"}) {
    LANCEDB_RETURN_NOT_OK(RemoveUnreferenced(fs, root, dir, in, options, now, &stats));
  }
  return stats;
}

}  // namespace lancedb::table
