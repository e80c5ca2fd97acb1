// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "format/blob_bases.h"

#include <cctype>
#include <filesystem>
#include <optional>
#include <system_error>

namespace lancedb::format {

namespace {

/// The scheme of `uri` ("file", "s3", ...; lowercased), when it starts with one.
std::optional<std::string> SchemeOf(std::string_view uri) {
  if (uri.empty() || !std::isalpha(static_cast<unsigned char>(uri[0]))) return std::nullopt;
  size_t i = 1;
  while (i < uri.size() && (std::isalnum(static_cast<unsigned char>(uri[i])) || uri[i] == '+' ||
                            uri[i] == '-' || uri[i] == '.')) {
    ++i;
  }
  if (i >= uri.size() || uri[i] != ':') return std::nullopt;
  std::string scheme(uri.substr(0, i));
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return scheme;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<std::string> PercentDecode(std::string_view s, std::string_view uri) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    const int hi = i + 2 < s.size() ? HexValue(s[i + 1]) : -1;
    const int lo = i + 2 < s.size() ? HexValue(s[i + 2]) : -1;
    if (hi < 0 || lo < 0) {
      return Status::InvalidArgument("Invalid input, URI '" + std::string(uri) +
                                     "' has a malformed percent escape");
    }
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

std::string PercentEncode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    const bool escape = c <= 0x20 || c >= 0x7F || ch == '"' || ch == '#' || ch == '%' ||
                        ch == '<' || ch == '>' || ch == '?' || ch == '`' || ch == '{' || ch == '}';
    if (escape) {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    } else {
      out.push_back(ch);
    }
  }
  return out;
}

/// Append the segments of `path` (split on '/') to `out`, decoding them when `decode`, and
/// applying "." and ".." as a URL does.
Status AppendSegments(std::string_view path, bool decode, std::string_view uri,
                      std::vector<std::string>* out) {
  size_t begin = 0;
  while (begin <= path.size()) {
    size_t end = path.find('/', begin);
    if (end == std::string_view::npos) end = path.size();
    std::string segment(path.substr(begin, end - begin));
    if (decode) {
      LANCEDB_ASSIGN_OR_RETURN(segment, PercentDecode(segment, uri));
    }
    if (segment == "..") {
      if (!out->empty()) out->pop_back();
    } else if (!segment.empty() && segment != ".") {
      out->push_back(std::move(segment));
    }
    begin = end + 1;
  }
  return Status::OK();
}

/// Whether `prefix` is a proper prefix of `segments`.
bool IsProperPrefix(const std::vector<std::string>& prefix,
                    const std::vector<std::string>& segments) {
  if (prefix.size() >= segments.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (prefix[i] != segments[i]) return false;
  }
  return true;
}

std::string JoinSegments(const std::vector<std::string>& segments, size_t from, bool encode) {
  std::string out;
  for (size_t i = from; i < segments.size(); ++i) {
    if (i > from) out.push_back('/');
    out += encode ? PercentEncode(segments[i]) : segments[i];
  }
  return out;
}

Status NotAbsolute(std::string_view uri) {
  return Status::InvalidArgument("Invalid input, External URI '" + std::string(uri) +
                                 "' is outside registered external bases and is not a valid "
                                 "absolute URI");
}

}  // namespace

Result<BlobLocation> ParseBlobLocation(std::string_view uri) {
  if (uri.empty()) return Status::InvalidArgument("Invalid input, the blob URI is empty");
  BlobLocation location;
  const std::optional<std::string> scheme = SchemeOf(uri);
  std::string_view path;
  if (!scheme) {  // a local path
    location.store = "file";
    std::string absolute(uri);
    if (uri[0] != '/') {
      std::error_code ec;
      const auto cwd = std::filesystem::current_path(ec);
      if (ec) return Status::IOError("Cannot read the working directory: " + ec.message());
      absolute = cwd.string() + "/" + absolute;
    }
    LANCEDB_RETURN_NOT_OK(AppendSegments(absolute, /*decode=*/false, uri, &location.segments));
    return location;
  }
  std::string_view rest = uri.substr(scheme->size() + 1);
  const bool has_authority = rest.substr(0, 2) == "//";
  if (*scheme == "file") {
    location.store = "file";
    if (has_authority) {  // file://host/path: the host names this machine
      rest.remove_prefix(2);
      const size_t slash = rest.find('/');
      rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
    }
    path = rest;
  } else {
    if (!has_authority) return NotAbsolute(uri);
    rest.remove_prefix(2);
    const size_t slash = rest.find('/');
    const std::string_view authority = rest.substr(0, slash);
    location.store = *scheme + "://" + std::string(authority);
    path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  }
  LANCEDB_RETURN_NOT_OK(AppendSegments(path, /*decode=*/true, uri, &location.segments));
  return location;
}

std::string BlobLocationUri(const BlobLocation& location) {
  const std::string path = JoinSegments(location.segments, 0, /*encode=*/true);
  if (location.store == "file") return "file:///" + path;
  return path.empty() ? location.store : location.store + "/" + path;
}

Status OpenBlobLocation(std::string_view uri, io::FileSystemPtr* fs, std::string* path) {
  LANCEDB_ASSIGN_OR_RETURN(auto location, ParseBlobLocation(uri));
  const std::string joined = JoinSegments(location.segments, 0, /*encode=*/false);
  if (location.store == "file") {
    *fs = io::LocalFileSystem();
    *path = "/" + joined;
    return Status::OK();
  }
  return io::ResolveUri(location.store + "/" + joined, fs, path);
}

Result<BlobReference> ExternalBlobBases::Reference(std::string_view uri, bool allow_outside) const {
  // A URI that does not parse lies under no base.
  auto location = ParseBlobLocation(uri);
  if (location.ok()) {
    const BlobBase* best = nullptr;
    size_t best_depth = 0;
    BlobLocation best_location;
    for (const auto& base : bases_) {
      if (base.is_dataset_root) continue;
      auto base_location = ParseBlobLocation(base.path);
      if (!base_location.ok() || base_location->store != location->store ||
          !IsProperPrefix(base_location->segments, location->segments)) {
        continue;
      }
      if (best == nullptr || base_location->segments.size() > best_depth) {
        best = &base;
        best_depth = base_location->segments.size();
      }
    }
    if (best != nullptr) {
      return BlobReference{best->id, JoinSegments(location->segments, best_depth, false)};
    }
  }
  if (!allow_outside) {
    return Status::InvalidArgument(
        "Invalid input, External blob URI '" + std::string(uri) +
        "' is outside registered external bases (dataset root is not allowed). Set "
        "allow_external_blob_outside_bases=true to store it as absolute external URI.");
  }
  if (!SchemeOf(uri)) return NotAbsolute(uri);
  if (!location.ok()) return location.status();
  return BlobReference{0, BlobLocationUri(*location)};
}

Result<std::string> ExternalBlobBases::Resolve(uint32_t base_id, std::string_view uri) const {
  if (base_id == 0) return std::string(uri);
  for (const auto& base : bases_) {
    if (base.id != base_id) continue;
    if (uri.empty() || uri == ".." || uri.substr(0, 3) == "../" ||
        uri.find("/../") != std::string_view::npos ||
        (uri.size() >= 3 && uri.substr(uri.size() - 3) == "/..")) {
      return Status::Corruption("Invalid relative external blob path '" + std::string(uri) + "'");
    }
    LANCEDB_ASSIGN_OR_RETURN(auto location, ParseBlobLocation(base.path));
    LANCEDB_RETURN_NOT_OK(AppendSegments(uri, /*decode=*/false, uri, &location.segments));
    return BlobLocationUri(location);
  }
  return Status::Corruption("External blob references unknown base_id " + std::to_string(base_id));
}

}  // namespace lancedb::format
