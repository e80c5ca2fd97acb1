// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include <map>
#include <mutex>

#include "io/file_system.h"
#include "io/s3_file_system.h"
#include "io/s3_options.h"

namespace lancedb::io {

namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, FileSystemPtr, std::less<>> schemes;
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();  // never destroyed: used until exit
  return *registry;
}

Status ResolveS3(const std::string& uri, const std::map<std::string, std::string>& storage_options,
                 FileSystemPtr* fs, std::string* path) {
  std::string bucket;
  std::string key;
  LANCEDB_RETURN_NOT_OK(ParseS3Uri(uri, &bucket, &key));
  auto options = ParseS3Options(storage_options, ProcessEnv());
  if (!options.ok()) return options.status().WithContext("Cannot open '" + uri + "'");
  LANCEDB_ASSIGN_OR_RETURN(*fs, MakeS3FileSystem(bucket, key, std::move(*options)));
  *path = "s3://" + bucket + (key.empty() ? "" : "/" + key);
  return Status::OK();
}

}  // namespace

Status RegisterFileSystem(const std::string& scheme, FileSystemPtr fs) {
  if (scheme.empty() || scheme == "file" || scheme == "memory") {
    return Status::InvalidArgument("Cannot register a file system for scheme '" + scheme + "'");
  }
  Registry& r = GetRegistry();
  std::lock_guard lock(r.mu);
  if (fs) {
    r.schemes[scheme] = std::move(fs);
  } else {
    r.schemes.erase(scheme);
  }
  return Status::OK();
}

Status ResolveUri(const std::string& uri, FileSystemPtr* fs, std::string* path) {
  return ResolveUri(uri, {}, fs, path);
}

Status ResolveUri(const std::string& uri, const std::map<std::string, std::string>& storage_options,
                  FileSystemPtr* fs, std::string* path) {
  if (uri.empty()) return Status::InvalidArgument("URI must not be empty");
  auto starts_with = [&](std::string_view prefix) { return uri.rfind(prefix, 0) == 0; };
  if (starts_with("memory://")) {
    *fs = MemoryFileSystem();
    std::string rest = uri.substr(9);
    *path = "/memory/" + rest;
    return Status::OK();
  }
  if (starts_with("file://")) {
    *fs = LocalFileSystem();
    *path = uri.substr(7);
    if (path->empty()) return Status::InvalidArgument("URI '" + uri + "' has no path");
    return Status::OK();
  }
  size_t scheme = uri.find("://");
  if (scheme != std::string::npos) {
    Registry& r = GetRegistry();
    std::lock_guard lock(r.mu);
    auto it = r.schemes.find(std::string_view(uri).substr(0, scheme));
    if (it != r.schemes.end()) {
      *fs = it->second;
      std::string rest = uri.substr(scheme + 3);
      *path = rest.rfind('/', 0) == 0 ? rest : "/" + rest;
      while (path->size() > 1 && path->back() == '/') path->pop_back();
      return Status::OK();
    }
    if (starts_with("s3://")) return ResolveS3(uri, storage_options, fs, path);
    return Status::NotSupported("URI scheme '" + uri.substr(0, scheme) + "' of '" + uri +
                                "' is not supported yet; use a local path, memory:// or s3://");
  }
  *fs = LocalFileSystem();
  *path = uri;
  while (path->size() > 1 && path->back() == '/') path->pop_back();
  return Status::OK();
}

namespace {

/// A "file" that reads through its FileSystem's ReadRange each time.
class PathRangeFile : public RandomAccessFile {
 public:
  PathRangeFile(FileSystem* fs, std::string path) : fs_(fs), path_(std::move(path)) {}
  Result<BufferPtr> ReadRange(int64_t offset, int64_t length) override {
    return fs_->ReadRange(path_, offset, length);
  }

 private:
  FileSystem* const fs_;
  const std::string path_;
};

}  // namespace

Result<std::unique_ptr<RandomAccessFile>> FileSystem::OpenForRead(const std::string& path) {
  return std::unique_ptr<RandomAccessFile>(std::make_unique<PathRangeFile>(this, path));
}

std::string JoinPath(std::string_view base, std::string_view name) {
  std::string out(base);
  if (!out.empty() && out.back() != '/') out.push_back('/');
  out.append(name);
  return out;
}

}  // namespace lancedb::io
