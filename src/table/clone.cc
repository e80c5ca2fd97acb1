// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "table/clone.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "table/create_index_op.h"
#include "table/dataset_impl.h"
#include "table/deletion.h"

namespace lancedb::table {
namespace {

constexpr int64_t kCopyChunk = int64_t{8} << 20;

std::string StripScheme(std::string path) {
  if (path.starts_with("file://")) path = path.substr(7);
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

std::string NormalizedRoot(const std::string& root) {
  std::filesystem::path p(StripScheme(root));
  std::error_code ec;
  if (p.is_relative()) {
    auto abs = std::filesystem::absolute(p, ec);
    if (!ec) p = abs;
  }
  std::string out = p.lexically_normal().generic_string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

/// Point every file `proto` and `indices` hold without a base path at a new base path for
/// `source_root` (the source's own files).
void RepointToSource(const std::string& source_root, const std::optional<std::string>& base_name,
                     pb::Manifest* proto, pb::IndexSection* indices) {
  uint32_t id = 0;
  for (const auto& base : proto->base_paths()) id = std::max(id, base.id() + 1);
  auto* base = proto->add_base_paths();
  base->set_id(id);
  if (base_name) base->set_name(*base_name);
  base->set_is_dataset_root(true);
  base->set_path(source_root);
  for (auto& frag : *proto->mutable_fragments()) {
    for (auto& file : *frag.mutable_files()) {
      if (!file.has_base_id()) file.set_base_id(id);
    }
    if (frag.has_deletion_file() && !frag.deletion_file().has_base_id()) {
      frag.mutable_deletion_file()->set_base_id(id);
    }
  }
  for (auto& index : *indices->mutable_indices()) {
    if (!index.has_base_id()) index.set_base_id(id);
  }
}

/// Copy every file the source version references into `target` and drop the base paths.
Status CopyReferencedFiles(const Dataset& source, io::FileSystem& to, const std::string& target,
                           pb::Manifest* proto, pb::IndexSection* indices,
                           std::vector<std::string>* written) {
  io::FileSystem& from = *source.fs();
  const pb::Manifest& m = source.manifest().proto();
  for (auto& frag : *proto->mutable_fragments()) {
    for (auto& file : *frag.mutable_files()) {
      LANCEDB_ASSIGN_OR_RETURN(std::string src, DataFilePath(m, source.path(), file));
      std::string dst = io::JoinPath(io::JoinPath(target, "data"), file.path());
      LANCEDB_RETURN_NOT_OK(CopyFile(from, src, to, dst));
      written->push_back(dst);
      file.clear_base_id();
    }
    if (frag.has_deletion_file()) {
      const auto& del = frag.deletion_file();
      bool dataset_root = true;
      LANCEDB_ASSIGN_OR_RETURN(
          std::string base,
          ResolveBaseRoot(m, source.path(),
                          del.has_base_id() ? std::optional<uint32_t>(del.base_id()) : std::nullopt,
                          &dataset_root));
      const std::string name = DeletionFileName(frag.id(), del);
      std::string dst = io::JoinPath(io::JoinPath(target, "_deletions"), name);
      LANCEDB_RETURN_NOT_OK(
          CopyFile(from, io::JoinPath(io::JoinPath(base, "_deletions"), name), to, dst));
      written->push_back(dst);
      frag.mutable_deletion_file()->clear_base_id();
    }
  }
  for (auto& index : *indices->mutable_indices()) {
    LANCEDB_ASSIGN_OR_RETURN(std::string src, IndexDirPath(m, source.path(), index));
    std::string dst = io::JoinPath(io::JoinPath(target, "_indices"), IndexUuidString(index));
    LANCEDB_RETURN_NOT_OK(CopyDir(from, src, to, dst, written));
    index.clear_base_id();
  }
  proto->clear_base_paths();
  return Status::OK();
}

/// A stable file name for a registered clone: FNV-1a of its root, in hex.
std::string CloneRefName(const std::string& clone_root) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : clone_root) h = (h ^ c) * 0x100000001b3ull;
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return std::string(buf) + ".json";
}

std::string ClonesDir(const std::string& root) {
  return io::JoinPath(io::JoinPath(root, "_refs"), "clones");
}

}  // namespace

std::string StoredRootPath(const io::FileSystem& fs, const std::string& root) {
  if (&fs == io::LocalFileSystem().get()) return NormalizedRoot(root);
  return StripScheme(root);
}

bool SameRoot(const std::string& a, const std::string& b) {
  return NormalizedRoot(a) == NormalizedRoot(b);
}

Status CopyFile(io::FileSystem& from, const std::string& src, io::FileSystem& to,
                const std::string& dst) {
  LANCEDB_ASSIGN_OR_RETURN(int64_t size, from.GetSize(src));
  LANCEDB_ASSIGN_OR_RETURN(auto out, to.OpenOutputStream(dst));
  for (int64_t offset = 0; offset < size; offset += kCopyChunk) {
    auto chunk = from.ReadRange(src, offset, std::min(kCopyChunk, size - offset));
    Status st = chunk.ok() ? out->Write((*chunk)->data(), (*chunk)->size()) : chunk.status();
    if (!st.ok()) {
      out->Abort();
      return st.WithContext("Copying '" + src + "' to '" + dst + "'");
    }
  }
  return out->Close();
}

Status CopyDir(io::FileSystem& from, const std::string& src, io::FileSystem& to,
               const std::string& dst, std::vector<std::string>* written) {
  LANCEDB_ASSIGN_OR_RETURN(auto entries, from.ListDir(src));
  for (const auto& e : entries) {
    const std::string s = io::JoinPath(src, e.name);
    const std::string d = io::JoinPath(dst, e.name);
    if (e.is_dir) {
      LANCEDB_RETURN_NOT_OK(CopyDir(from, s, to, d, written));
    } else {
      LANCEDB_RETURN_NOT_OK(CopyFile(from, s, to, d));
      written->push_back(d);
    }
  }
  return Status::OK();
}

Result<DatasetPtr> CloneDataset(const DatasetPtr& source, const io::FileSystemPtr& target_fs,
                                const std::string& target, const CloneOptions& options) {
  auto existing = FindLatestVersion(*target_fs, target);
  if (existing.ok()) return Status::AlreadyExists("Dataset '" + target + "' already exists");
  if (!existing.status().IsNotFound()) return existing.status();
  if (options.shallow && target_fs.get() != source->fs().get()) {
    return Status::NotSupported(
        "A shallow clone must be on the file system of its source; make a deep clone instead");
  }
  const Manifest& m = source->manifest();
  pb::Manifest proto = m.proto();
  pb::IndexSection indices = m.index_section();
  const std::string source_root = StoredRootPath(*source->fs(), source->path());
  std::vector<std::string> written;
  auto fail = [&](Status st) -> Status {
    for (const auto& p : written) (void)target_fs->DeleteFile(p);
    return st;
  };
  if (options.shallow) {
    RepointToSource(source_root, options.base_name, &proto, &indices);
  } else {
    Status st = CopyReferencedFiles(*source, *target_fs, target, &proto, &indices, &written);
    if (!st.ok()) return fail(st);
  }
  if (options.branch) {
    proto.set_branch(*options.branch);
  } else {
    proto.clear_branch();
  }
  proto.clear_transaction_file();
  proto.clear_transaction_section();
  proto.clear_index_section();
  proto.clear_tag();
  StampWriter(&proto);
  ApplyFeatureFlags(&proto);

  pb::Transaction txn;
  txn.set_read_version(m.version());
  txn.set_uuid(NewUuid());
  auto* clone = txn.mutable_clone();
  clone->set_is_shallow(options.shallow);
  if (options.ref_name) clone->set_ref_name(*options.ref_name);
  clone->set_ref_version(m.version());
  clone->set_ref_path(source_root);
  if (options.branch) clone->set_branch_name(*options.branch);
  const std::string txn_name = std::to_string(m.version()) + "-" + txn.uuid() + ".txn";
  const std::string txn_path = io::JoinPath(io::JoinPath(target, "_transactions"), txn_name);
  Status st = target_fs->WriteFile(txn_path, std::string_view(txn.SerializeAsString()));
  if (!st.ok()) return fail(st);
  written.push_back(txn_path);
  proto.set_transaction_file(txn_name);

  auto made = Manifest::Make(std::move(proto), std::move(indices));
  if (!made.ok()) return fail(made.status());
  const std::string bytes = (*made)->Serialize(&txn);
  st =
      target_fs->PutIfAbsent(io::JoinPath(io::JoinPath(target, "_versions"),
                                          ManifestFileName(m.version(), source->manifest_naming())),
                             std::string_view(bytes));
  if (st.IsAlreadyExists())
    return fail(Status::AlreadyExists("Dataset '" + target + "' already exists"));
  if (!st.ok()) return fail(st);
  WriteVersionHint(*target_fs, target, m.version());
  return MakeDataset(target_fs, target, *made, source->manifest_naming());
}

Status RegisterClone(io::FileSystem& fs, const std::string& root, const std::string& clone_root,
                     uint64_t version) {
  nlohmann::ordered_json j;
  j["path"] = clone_root;
  j["version"] = version;
  j["createdAt"] = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  return fs.WriteFile(io::JoinPath(ClonesDir(root), CloneRefName(clone_root)),
                      std::string_view(j.dump(2)));
}

Result<std::vector<std::string>> ListRegisteredClones(io::FileSystem& fs, const std::string& root) {
  std::vector<std::string> out;
  auto entries = fs.ListDir(ClonesDir(root));
  if (!entries.ok()) {
    if (entries.status().IsNotFound()) return out;
    return entries.status();
  }
  for (const auto& e : *entries) {
    if (e.is_dir || !e.name.ends_with(".json")) continue;
    const std::string path = io::JoinPath(ClonesDir(root), e.name);
    LANCEDB_ASSIGN_OR_RETURN(auto bytes, fs.ReadFile(path));
    auto j = nlohmann::json::parse(std::string_view(reinterpret_cast<const char*>(bytes->data()),
                                                    static_cast<size_t>(bytes->size())),
                                   nullptr, /*allow_exceptions=*/false);
    auto p = j.is_object() ? j.find("path") : j.end();
    if (j.is_discarded() || !j.is_object() || p == j.end() || !p->is_string()) {
      return Status::Corruption("Clone reference '" + path + "' is not valid");
    }
    out.push_back(p->get<std::string>());
  }
  return out;
}

}  // namespace lancedb::table
