// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "table/branches.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <nlohmann/json.hpp>
#include <set>

#include "table/clone.h"
#include "table/dataset_impl.h"
#include "table/tags.h"

namespace lancedb::table {
namespace {

std::string BranchesDir(const std::string& root) {
  return io::JoinPath(io::JoinPath(root, "_refs"), "branches");
}

/// The metadata file name of `name`: '/' is written as %2F (as Lance's object store paths).
std::string EncodeName(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '/') {
      out += "%2F";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string DecodeName(const std::string& file) {
  std::string out;
  for (size_t i = 0; i < file.size(); ++i) {
    if (file[i] == '%' && i + 2 < file.size() && file[i + 1] == '2' &&
        (file[i + 2] == 'F' || file[i + 2] == 'f')) {
      out.push_back('/');
      i += 2;
    } else {
      out.push_back(file[i]);
    }
  }
  return out;
}

std::string RefPath(const std::string& root, const std::string& name) {
  return io::JoinPath(BranchesDir(root), EncodeName(name) + ".json");
}

bool IsPrefix(const std::vector<std::pair<uint64_t, std::string>>& prefix,
              const std::vector<std::pair<uint64_t, std::string>>& of) {
  return prefix.size() < of.size() && std::equal(prefix.begin(), prefix.end(), of.begin());
}

/// List `dir` (the branches directory or, on stores that expose the encoded separator as a
/// directory, one of its subdirectories) into `out`.
Status ListInto(io::FileSystem& fs, const std::string& root, const std::string& dir,
                const std::string& prefix, std::map<std::string, BranchContents>* out) {
  auto entries = fs.ListDir(dir);
  if (!entries.ok()) return entries.status().IsNotFound() ? Status::OK() : entries.status();
  for (const auto& e : *entries) {
    if (e.is_dir) {
      LANCEDB_RETURN_NOT_OK(
          ListInto(fs, root, io::JoinPath(dir, e.name), prefix + DecodeName(e.name) + "/", out));
      continue;
    }
    if (!e.name.ends_with(".json")) continue;
    const std::string name = prefix + DecodeName(e.name.substr(0, e.name.size() - 5));
    LANCEDB_ASSIGN_OR_RETURN(auto bytes, fs.ReadFile(io::JoinPath(dir, e.name)));
    LANCEDB_ASSIGN_OR_RETURN(
        (*out)[name], BranchFromJson(std::string_view(reinterpret_cast<const char*>(bytes->data()),
                                                      static_cast<size_t>(bytes->size())),
                                     name));
  }
  return Status::OK();
}

/// Remove the dataset of branch `name` and then its directories that became empty; the
/// directories of `remaining` branches nested under it stay.
Status RemoveBranchDirectory(io::FileSystem& fs, const std::string& root, const std::string& name,
                             const std::vector<std::string>& remaining) {
  const std::string tree = io::JoinPath(root, "tree");
  const std::string dir = io::JoinPath(tree, name);
  auto nests = [&](const std::string& entry) {
    const std::string sub = name + "/" + entry;
    return std::any_of(remaining.begin(), remaining.end(),
                       [&](const std::string& b) { return b == sub || b.starts_with(sub + "/"); });
  };
  LANCEDB_ASSIGN_OR_RETURN(auto entries, fs.ListDir(dir));
  for (const auto& e : entries) {
    const std::string path = io::JoinPath(dir, e.name);
    if (e.is_dir && nests(e.name)) continue;
    LANCEDB_RETURN_NOT_OK(e.is_dir ? fs.DeleteDirRecursive(path) : fs.DeleteFile(path));
  }
  for (std::string rel = name; !rel.empty();) {
    const std::string d = io::JoinPath(tree, rel);
    LANCEDB_ASSIGN_OR_RETURN(auto left, fs.ListDir(d));
    if (!left.empty()) break;
    LANCEDB_RETURN_NOT_OK(fs.DeleteDirRecursive(d));
    const size_t slash = rel.rfind('/');
    rel = slash == std::string::npos ? std::string() : rel.substr(0, slash);
  }
  return Status::OK();
}

std::string UuidHex() {
  std::string out;
  for (char c : NewUuid()) {
    if (c != '-') out.push_back(c);
  }
  return out;
}

}  // namespace

Status ValidateBranchName(const std::string& name) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("Invalid branch name '" + name + "': " + why);
  };
  if (name.empty())
    return Status::InvalidArgument("Invalid input, branch name must be a non-empty string");
  if (name == "main") return bad("'main' names the main branch");
  if (name.front() == '/' || name.back() == '/') return bad("it must not start or end with '/'");
  if (name.find("//") != std::string::npos) return bad("it must not contain '//'");
  if (name.find("..") != std::string::npos) return bad("it must not contain '..'");
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ||
          c == '/')) {
      return bad("only letters, digits, '.', '_', '-' and '/' between segments are allowed");
    }
  }
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find('/', start);
    if (end == std::string::npos) end = name.size();
    const std::string segment = name.substr(start, end - start);
    if (segment == ".") return bad("a segment must not be '.'");
    start = end + 1;
  }
  if (name.ends_with(".lock")) return bad("it must not end with '.lock'");
  return Status::OK();
}

Result<std::optional<std::string>> NormalizeBranchName(const std::string& name) {
  if (name.empty() || name == "main") return std::optional<std::string>();
  LANCEDB_RETURN_NOT_OK(ValidateBranchName(name));
  return std::optional<std::string>(name);
}

std::string BranchDatasetPath(const std::string& root, const std::optional<std::string>& branch) {
  return branch ? io::JoinPath(io::JoinPath(root, "tree"), *branch) : root;
}

std::optional<std::string> BranchOf(const Dataset& dataset) {
  const auto& proto = dataset.manifest().proto();
  if (!proto.has_branch() || proto.branch().empty() || proto.branch() == "main") return {};
  return proto.branch();
}

std::string TableRootOf(const Dataset& dataset) {
  auto branch = BranchOf(dataset);
  std::string path = dataset.path();
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (!branch) return path;
  const std::string suffix = "/tree/" + *branch;
  if (path.size() > suffix.size() && path.ends_with(suffix)) {
    return path.substr(0, path.size() - suffix.size());
  }
  return path;  // a branch's dataset opened on its own (or copied elsewhere)
}

std::string BranchToJson(const BranchContents& branch) {
  // Lance's key order and layout (serde_json's pretty printer: two-space indent).
  nlohmann::ordered_json j;
  j["parentBranch"] = branch.parent_branch ? nlohmann::ordered_json(*branch.parent_branch)
                                           : nlohmann::ordered_json(nullptr);
  auto mapping = nlohmann::ordered_json::array();
  for (const auto& [version, uuid] : branch.identifier) {
    mapping.push_back(nlohmann::ordered_json::array({version, uuid}));
  }
  j["identifier"] = {{"version_mapping", mapping}};
  j["parentVersion"] = branch.parent_version;
  j["createAt"] = branch.create_at;
  j["manifestSize"] = branch.manifest_size;
  j["metadata"] = nlohmann::ordered_json::object();
  for (const auto& [k, v] : branch.metadata) j["metadata"][k] = v;
  return j.dump(2);
}

Result<BranchContents> BranchFromJson(std::string_view json, const std::string& name) {
  const std::string who = "Branch file of '" + name + "'";
  auto j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Status::Corruption(who + " is not a JSON object");
  BranchContents b;
  auto u64 = [&](const char* key, bool required, uint64_t* out) -> Status {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) {
      return required ? Status::Corruption(who + " has no " + key) : Status::OK();
    }
    if (!it->is_number_unsigned()) return Status::Corruption(who + ": " + key + " is not a number");
    *out = it->get<uint64_t>();
    return Status::OK();
  };
  LANCEDB_RETURN_NOT_OK(u64("parentVersion", true, &b.parent_version));
  LANCEDB_RETURN_NOT_OK(u64("createAt", false, &b.create_at));
  LANCEDB_RETURN_NOT_OK(u64("manifestSize", false, &b.manifest_size));
  auto parent = j.find("parentBranch");
  if (parent != j.end() && parent->is_string()) b.parent_branch = parent->get<std::string>();
  if (b.parent_branch && (b.parent_branch->empty() || *b.parent_branch == "main")) {
    b.parent_branch.reset();
  }
  auto id = j.find("identifier");
  if (id != j.end() && id->is_object()) {
    auto mapping = id->find("version_mapping");
    if (mapping != id->end() && mapping->is_array()) {
      for (const auto& pair : *mapping) {
        if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_unsigned() ||
            !pair[1].is_string()) {
          return Status::Corruption(who + ": bad identifier " + pair.dump());
        }
        b.identifier.emplace_back(pair[0].get<uint64_t>(), pair[1].get<std::string>());
      }
    }
  }
  auto meta = j.find("metadata");
  if (meta != j.end() && meta->is_object()) {
    for (auto it = meta->begin(); it != meta->end(); ++it) {
      if (it.value().is_string()) b.metadata[it.key()] = it.value().get<std::string>();
    }
  }
  return b;
}

Result<std::map<std::string, BranchContents>> ListBranches(io::FileSystem& fs,
                                                           const std::string& root) {
  std::map<std::string, BranchContents> out;
  LANCEDB_RETURN_NOT_OK(ListInto(fs, root, BranchesDir(root), "", &out));
  return out;
}

Result<BranchContents> GetBranch(io::FileSystem& fs, const std::string& root,
                                 const std::string& name) {
  LANCEDB_RETURN_NOT_OK(ValidateBranchName(name));
  auto file = fs.ReadFile(RefPath(root, name));
  if (!file.ok()) {
    if (file.status().IsNotFound()) return Status::NotFound("Branch '" + name + "' not found");
    return file.status();
  }
  return BranchFromJson(std::string_view(reinterpret_cast<const char*>((*file)->data()),
                                         static_cast<size_t>((*file)->size())),
                        name);
}

Result<DatasetPtr> CreateBranch(const DatasetPtr& source, const std::string& root,
                                const std::string& name) {
  LANCEDB_RETURN_NOT_OK(ValidateBranchName(name));
  io::FileSystem& fs = *source->fs();
  const std::string ref = RefPath(root, name);
  LANCEDB_ASSIGN_OR_RETURN(bool exists, fs.Exists(ref));
  if (exists) return Status::AlreadyExists("Branch '" + name + "' already exists");
  const std::optional<std::string> parent = BranchOf(*source);
  BranchContents contents;
  if (parent) {
    LANCEDB_ASSIGN_OR_RETURN(auto p, GetBranch(fs, root, *parent));
    contents.identifier = std::move(p.identifier);
  }
  const uint64_t version = source->version();
  contents.parent_branch = parent;
  contents.identifier.emplace_back(version, UuidHex());
  contents.parent_version = version;
  contents.create_at =
      static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count());
  LANCEDB_ASSIGN_OR_RETURN(
      int64_t size, fs.GetSize(io::JoinPath(io::JoinPath(source->path(), "_versions"),
                                            ManifestFileName(version, source->manifest_naming()))));
  contents.manifest_size = static_cast<uint64_t>(size);
  // Claim the name first: of two writers creating the same branch, one gets AlreadyExists.
  Status st = fs.PutIfAbsent(ref, std::string_view(BranchToJson(contents)));
  if (st.IsAlreadyExists()) return Status::AlreadyExists("Branch '" + name + "' already exists");
  LANCEDB_RETURN_NOT_OK(st);
  const std::string dir = BranchDatasetPath(root, name);
  // What a failed creation left behind (by any engine) is not a branch: the name is ours now.
  for (const char* sub : {"_versions", "_transactions", "data", "_deletions", "_indices"}) {
    (void)fs.DeleteDirRecursive(io::JoinPath(dir, sub));
  }
  CloneOptions options;
  options.branch = name;
  options.base_name = parent;
  auto branch = CloneDataset(source, source->fs(), dir, options);
  if (!branch.ok()) {
    (void)fs.DeleteFile(ref);
    return branch.status().WithContext("Cannot create branch '" + name + "'");
  }
  return branch;
}

Status DeleteBranch(io::FileSystem& fs, const std::string& root, const std::string& name) {
  LANCEDB_RETURN_NOT_OK(ValidateBranchName(name));
  LANCEDB_ASSIGN_OR_RETURN(auto all, ListBranches(fs, root));
  auto it = all.find(name);
  if (it == all.end()) return Status::NotFound("Branch '" + name + "' not found");
  std::string children;
  for (const auto& [other, contents] : all) {
    if (other == name || contents.parent_branch != name) continue;
    if (!it->second.identifier.empty() && !contents.identifier.empty() &&
        !IsPrefix(it->second.identifier, contents.identifier)) {
      continue;  // created from an earlier branch of the same name
    }
    children += std::string(children.empty() ? "" : ", ") + "'" + other + "' (from version " +
                std::to_string(contents.parent_version) + ")";
  }
  if (!children.empty()) {
    return Status::InvalidArgument("Branch '" + name + "' cannot be deleted: branches " + children +
                                   " were created from it; delete them first");
  }
  LANCEDB_ASSIGN_OR_RETURN(auto tags, ListTags(fs, root));
  std::string tagged;
  for (const auto& [tag, contents] : tags) {
    if (contents.branch != name) continue;
    tagged += std::string(tagged.empty() ? "" : ", ") + "'" + tag + "' (version " +
              std::to_string(contents.version) + ")";
  }
  if (!tagged.empty()) {
    return Status::InvalidArgument("Branch '" + name + "' cannot be deleted: tags " + tagged +
                                   " point into it; delete them first");
  }
  LANCEDB_RETURN_NOT_OK(fs.DeleteFile(RefPath(root, name)));
  std::vector<std::string> remaining;
  for (const auto& [other, contents] : all) {
    if (other != name) remaining.push_back(other);
  }
  return RemoveBranchDirectory(fs, root, name, remaining);
}

}  // namespace lancedb::table
