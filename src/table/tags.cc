// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "table/tags.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

#include "table/branches.h"
#include "table/manifest.h"

namespace lancedb::table {
namespace {

std::string TagsDir(const std::string& root) {
  return io::JoinPath(io::JoinPath(root, "_refs"), "tags");
}

std::string TagPath(const std::string& root, const std::string& name) {
  return io::JoinPath(TagsDir(root), name + ".json");
}

/// Now as RFC 3339 with nanoseconds, as Lance writes it: "2026-11-30T01:41:52.487698559Z".
std::string NowRfc3339() {
  auto now = std::chrono::system_clock::now();
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(ns / 1000000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  char frac[16];
  std::snprintf(frac, sizeof(frac), ".%09lldZ", static_cast<long long>(ns % 1000000000));
  return std::string(buf) + frac;
}

/// The size of the manifest of `version`; NotFound when the version does not exist.
Result<uint64_t> ManifestSize(io::FileSystem& fs, const std::string& root, uint64_t version) {
  LANCEDB_ASSIGN_OR_RETURN(auto listing, ListVersionFiles(fs, root));
  if (!std::binary_search(listing.versions.begin(), listing.versions.end(), version)) {
    std::string latest =
        listing.versions.empty() ? "none" : std::to_string(listing.versions.back());
    return Status::NotFound("Version " + std::to_string(version) +
                            " does not exist (latest version: " + latest + ")");
  }
  LANCEDB_ASSIGN_OR_RETURN(
      int64_t size, fs.GetSize(io::JoinPath(io::JoinPath(root, "_versions"),
                                            ManifestFileName(version, listing.NamingOf(version)))));
  return static_cast<uint64_t>(size);
}

Status WriteTag(io::FileSystem& fs, const std::string& root, const std::string& name,
                const TagContents& tag) {
  std::string json = TagToJson(tag);
  return fs.WriteFile(TagPath(root, name),
                      std::span(reinterpret_cast<const uint8_t*>(json.data()), json.size()));
}

}  // namespace

Status ValidateTagName(const std::string& name) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("Invalid tag name '" + name + "': " + why);
  };
  if (name.empty()) return bad("it is empty");
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) {
      return bad("only letters, digits, '.', '_' and '-' are allowed");
    }
  }
  if (name[0] == '.' || name[0] == '-') return bad("it must not start with '.' or '-'");
  if (name.find("..") != std::string::npos) return bad("it must not contain '..'");
  if (name.size() >= 5 && name.compare(name.size() - 5, 5, ".lock") == 0) {
    return bad("it must not end with '.lock'");
  }
  return Status::OK();
}

std::string TagToJson(const TagContents& tag) {
  // Lance's key order and layout (serde_json's pretty printer: two-space indent).
  nlohmann::ordered_json j;
  j["branch"] = tag.branch ? nlohmann::ordered_json(*tag.branch) : nlohmann::ordered_json(nullptr);
  j["version"] = tag.version;
  j["createdAt"] = tag.created_at;
  j["updatedAt"] = tag.updated_at;
  j["manifestSize"] = tag.manifest_size;
  j["metadata"] = nlohmann::ordered_json::object();
  return j.dump(2);
}

Result<TagContents> TagFromJson(std::string_view json, const std::string& name) {
  const std::string who = "Tag file of '" + name + "'";
  auto j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Corruption(who + " is not valid JSON");
  if (!j.is_object()) return Status::Corruption(who + " is not a JSON object");
  TagContents tag;
  auto version = j.find("version");
  if (version == j.end() || version->is_null()) return Status::Corruption(who + " has no version");
  if (!version->is_number_unsigned()) {
    return Status::Corruption(who + ": version is not a number: " + version->dump());
  }
  tag.version = version->get<uint64_t>();
  auto branch = j.find("branch");
  if (branch != j.end() && branch->is_string() && !branch->get<std::string>().empty() &&
      branch->get<std::string>() != "main") {
    tag.branch = branch->get<std::string>();
  }
  auto size = j.find("manifestSize");
  if (size != j.end() && !size->is_null()) {
    if (!size->is_number_unsigned()) {
      return Status::Corruption(who + ": manifestSize is not a number: " + size->dump());
    }
    tag.manifest_size = size->get<uint64_t>();
  }
  for (auto [key, out] :
       {std::pair{"createdAt", &tag.created_at}, std::pair{"updatedAt", &tag.updated_at}}) {
    auto it = j.find(key);
    if (it != j.end() && it->is_string()) *out = it->get<std::string>();
  }
  return tag;
}

Result<std::map<std::string, TagContents>> ListTags(io::FileSystem& fs, const std::string& root) {
  std::map<std::string, TagContents> out;
  LANCEDB_ASSIGN_OR_RETURN(bool exists, fs.Exists(TagsDir(root)));
  if (!exists) return out;
  auto entries = fs.ListDir(TagsDir(root));
  if (!entries.ok()) {
    if (entries.status().IsNotFound()) return out;
    return entries.status();
  }
  for (const auto& e : *entries) {
    if (e.is_dir || e.name.size() <= 5 || e.name.compare(e.name.size() - 5, 5, ".json") != 0) {
      continue;
    }
    std::string name = e.name.substr(0, e.name.size() - 5);
    LANCEDB_ASSIGN_OR_RETURN(out[name], GetTag(fs, root, name));
  }
  return out;
}

Result<TagContents> GetTag(io::FileSystem& fs, const std::string& root, const std::string& name) {
  LANCEDB_RETURN_NOT_OK(ValidateTagName(name));
  auto file = fs.ReadFile(TagPath(root, name));
  if (!file.ok()) {
    if (file.status().IsNotFound()) return Status::NotFound("Tag '" + name + "' not found");
    return file.status();
  }
  std::string_view text(reinterpret_cast<const char*>((*file)->data()),
                        static_cast<size_t>((*file)->size()));
  return TagFromJson(text, name);
}

Status CreateTag(io::FileSystem& fs, const std::string& root, const std::string& name,
                 uint64_t version, const std::optional<std::string>& branch) {
  LANCEDB_RETURN_NOT_OK(ValidateTagName(name));
  LANCEDB_ASSIGN_OR_RETURN(bool exists, fs.Exists(TagPath(root, name)));
  if (exists) return Status::AlreadyExists("Tag '" + name + "' already exists");
  TagContents tag;
  tag.branch = branch;
  tag.version = version;
  auto size = ManifestSize(fs, BranchDatasetPath(root, branch), version);
  if (!size.ok()) return size.status().WithContext("Cannot create tag '" + name + "'");
  tag.manifest_size = *size;
  tag.created_at = tag.updated_at = NowRfc3339();
  LANCEDB_RETURN_NOT_OK(fs.CreateDir(TagsDir(root)));
  std::string json = TagToJson(tag);
  Status st = fs.PutIfAbsent(TagPath(root, name),
                             std::span(reinterpret_cast<const uint8_t*>(json.data()), json.size()));
  if (st.IsAlreadyExists()) return Status::AlreadyExists("Tag '" + name + "' already exists");
  return st;
}

Status UpdateTag(io::FileSystem& fs, const std::string& root, const std::string& name,
                 uint64_t version, const std::optional<std::string>& branch) {
  LANCEDB_ASSIGN_OR_RETURN(TagContents tag, GetTag(fs, root, name));
  auto size = ManifestSize(fs, BranchDatasetPath(root, branch), version);
  if (!size.ok()) return size.status().WithContext("Cannot update tag '" + name + "'");
  tag.branch = branch;
  tag.version = version;
  tag.manifest_size = *size;
  tag.updated_at = NowRfc3339();
  if (tag.created_at.empty()) tag.created_at = tag.updated_at;
  return WriteTag(fs, root, name, tag);
}

Status DeleteTag(io::FileSystem& fs, const std::string& root, const std::string& name) {
  LANCEDB_RETURN_NOT_OK(GetTag(fs, root, name).status());
  return fs.DeleteFile(TagPath(root, name));
}

}  // namespace lancedb::table
