// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "table/tags.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>

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

/// A scanner over one flat JSON object (values: strings, numbers, null, booleans, objects).
class JsonScanner {
 public:
  explicit JsonScanner(std::string_view s) : s_(s) {}
  void SkipSpace() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool Consume(char c) {
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool String(std::string* out) {
    if (!Consume('"')) return false;
    out->clear();
    while (pos_ < s_.size() && s_[pos_] != '"') {
      if (s_[pos_] == '\\' && pos_ + 1 < s_.size()) ++pos_;
      out->push_back(s_[pos_++]);
    }
    return Consume('"');
  }
  /// Any value, returned as its raw text (strings unquoted).
  bool Value(std::string* out) {
    SkipSpace();
    if (pos_ >= s_.size()) return false;
    if (s_[pos_] == '"') return String(out);
    size_t start = pos_;
    if (s_[pos_] == '{' || s_[pos_] == '[') {
      int depth = 0;
      bool in_string = false;
      for (; pos_ < s_.size(); ++pos_) {
        char c = s_[pos_];
        if (in_string) {
          if (c == '\\')
            ++pos_;
          else if (c == '"')
            in_string = false;
        } else if (c == '"') {
          in_string = true;
        } else if (c == '{' || c == '[') {
          ++depth;
        } else if ((c == '}' || c == ']') && --depth == 0) {
          ++pos_;
          break;
        }
      }
    } else {
      while (pos_ < s_.size() && s_[pos_] != ',' && s_[pos_] != '}' &&
             !std::isspace(static_cast<unsigned char>(s_[pos_]))) {
        ++pos_;
      }
    }
    *out = std::string(s_.substr(start, pos_ - start));
    return !out->empty();
  }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

Result<uint64_t> ParseU64(const std::string& s, const std::string& what) {
  if (s.empty() || s.size() > 20) return Status::Corruption(what + " is not a number: " + s);
  uint64_t v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      return Status::Corruption(what + " is not a number: " + s);
    }
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
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
  LANCEDB_ASSIGN_OR_RETURN(int64_t size,
                           fs.GetSize(io::JoinPath(io::JoinPath(root, "_versions"),
                                                   ManifestFileName(version, listing.naming))));
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
  return "{\n  \"branch\": null,\n  \"version\": " + std::to_string(tag.version) +
         ",\n  \"createdAt\": \"" + tag.created_at + "\",\n  \"updatedAt\": \"" + tag.updated_at +
         "\",\n  \"manifestSize\": " + std::to_string(tag.manifest_size) +
         ",\n  \"metadata\": {}\n}";
}

Result<TagContents> TagFromJson(std::string_view json, const std::string& name) {
  const std::string who = "Tag file of '" + name + "'";
  JsonScanner scan(json);
  if (!scan.Consume('{')) return Status::Corruption(who + " is not a JSON object");
  TagContents tag;
  bool has_version = false;
  if (!scan.Consume('}')) {
    do {
      std::string key, value;
      if (!scan.String(&key) || !scan.Consume(':') || !scan.Value(&value)) {
        return Status::Corruption(who + " is not valid JSON");
      }
      if (key == "version") {
        LANCEDB_ASSIGN_OR_RETURN(tag.version, ParseU64(value, who + ": version"));
        has_version = true;
      } else if (key == "manifestSize") {
        LANCEDB_ASSIGN_OR_RETURN(tag.manifest_size, ParseU64(value, who + ": manifestSize"));
      } else if (key == "createdAt") {
        tag.created_at = value;
      } else if (key == "updatedAt") {
        tag.updated_at = value;
      }
    } while (scan.Consume(','));
    if (!scan.Consume('}')) return Status::Corruption(who + " is not valid JSON");
  }
  if (!has_version) return Status::Corruption(who + " has no version");
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
                 uint64_t version) {
  LANCEDB_RETURN_NOT_OK(ValidateTagName(name));
  LANCEDB_ASSIGN_OR_RETURN(bool exists, fs.Exists(TagPath(root, name)));
  if (exists) return Status::AlreadyExists("Tag '" + name + "' already exists");
  TagContents tag;
  tag.version = version;
  auto size = ManifestSize(fs, root, version);
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
                 uint64_t version) {
  LANCEDB_ASSIGN_OR_RETURN(TagContents tag, GetTag(fs, root, name));
  auto size = ManifestSize(fs, root, version);
  if (!size.ok()) return size.status().WithContext("Cannot update tag '" + name + "'");
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
