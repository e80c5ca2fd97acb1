// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The in-memory FileSystem behind memory:// URIs: a process-wide map from path to immutable
// buffer, guarded by one mutex. Directories are implied by the paths of the files under them.

#include <map>
#include <mutex>

#include "io/file_system.h"

namespace lancedb::io {
namespace {

std::string Normalize(const std::string& path) {
  std::string out;
  out.reserve(path.size());
  for (char c : path) {
    if (c == '/' && !out.empty() && out.back() == '/') continue;
    out.push_back(c);
  }
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

class MemoryFs;

class MemoryOutputStream : public OutputStream {
 public:
  MemoryOutputStream(MemoryFs* fs, std::string path) : fs_(fs), path_(std::move(path)) {}
  Status Write(const void* data, int64_t size) override {
    if (closed_) return Status::IOError("Write to a closed stream for '" + path_ + "'");
    builder_.Append(data, size);
    return Status::OK();
  }
  int64_t Tell() const override { return builder_.size(); }
  Status Close() override;
  void Abort() override { closed_ = true; }

 private:
  MemoryFs* fs_;
  std::string path_;
  BufferBuilder builder_;
  bool closed_ = false;
};

class MemoryFs : public FileSystem {
 public:
  Result<BufferPtr> ReadFile(const std::string& path) override {
    std::lock_guard lock(mu_);
    auto it = files_.find(Normalize(path));
    if (it == files_.end()) return Status::NotFound("File '" + path + "' not found");
    return it->second;
  }

  Result<BufferPtr> ReadRange(const std::string& path, int64_t offset, int64_t length) override {
    LANCEDB_ASSIGN_OR_RETURN(BufferPtr data, ReadFile(path));
    if (offset < 0 || length < 0 || offset + length > data->size()) {
      return Status::IOError("Range [" + std::to_string(offset) + ", " +
                             std::to_string(offset + length) + ") is past the end of '" + path +
                             "' (" + std::to_string(data->size()) + " bytes)");
    }
    return Buffer::Slice(data, offset, length);
  }

  Result<int64_t> GetSize(const std::string& path) override {
    LANCEDB_ASSIGN_OR_RETURN(BufferPtr data, ReadFile(path));
    return data->size();
  }

  Result<bool> Exists(const std::string& path) override {
    std::lock_guard lock(mu_);
    std::string key = Normalize(path);
    if (files_.count(key)) return true;
    auto it = files_.lower_bound(key + "/");
    return it != files_.end() && it->first.compare(0, key.size() + 1, key + "/") == 0;
  }

  Status WriteFile(const std::string& path, std::span<const uint8_t> data) override {
    auto buffer = Buffer::Copy(data.data(), static_cast<int64_t>(data.size()));
    std::lock_guard lock(mu_);
    files_[Normalize(path)] = std::move(buffer);
    return Status::OK();
  }

  Status PutIfAbsent(const std::string& path, std::span<const uint8_t> data) override {
    auto buffer = Buffer::Copy(data.data(), static_cast<int64_t>(data.size()));
    std::lock_guard lock(mu_);
    auto [it, inserted] = files_.emplace(Normalize(path), std::move(buffer));
    if (!inserted) return Status::AlreadyExists("File '" + path + "' already exists");
    return Status::OK();
  }

  Result<std::vector<FileInfo>> ListDir(const std::string& dir) override {
    std::lock_guard lock(mu_);
    std::string prefix = Normalize(dir) + "/";
    std::vector<FileInfo> out;
    for (auto it = files_.lower_bound(prefix);
         it != files_.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
      std::string rest = it->first.substr(prefix.size());
      size_t slash = rest.find('/');
      if (slash == std::string::npos) {
        out.push_back({rest, it->second->size(), false, -1});
      } else {
        std::string name = rest.substr(0, slash);
        if (out.empty() || out.back().name != name || !out.back().is_dir) {
          out.push_back({name, 0, true, -1});
        }
      }
    }
    return out;
  }

  Status CreateDir(const std::string&) override { return Status::OK(); }

  Status DeleteFile(const std::string& path) override {
    std::lock_guard lock(mu_);
    if (files_.erase(Normalize(path)) == 0) {
      return Status::NotFound("File '" + path + "' not found");
    }
    return Status::OK();
  }

  Status DeleteDirRecursive(const std::string& dir) override {
    std::lock_guard lock(mu_);
    std::string prefix = Normalize(dir) + "/";
    auto it = files_.lower_bound(prefix);
    while (it != files_.end() && it->first.compare(0, prefix.size(), prefix) == 0) {
      it = files_.erase(it);
    }
    return Status::OK();
  }

  Result<std::unique_ptr<OutputStream>> OpenOutputStream(const std::string& path) override {
    return std::unique_ptr<OutputStream>(new MemoryOutputStream(this, path));
  }

 private:
  std::mutex mu_;
  std::map<std::string, BufferPtr> files_;
};

Status MemoryOutputStream::Close() {
  if (closed_) return Status::IOError("Stream for '" + path_ + "' is already closed");
  closed_ = true;
  auto data = builder_.Finish();
  return fs_->WriteFile(path_, data->span());
}

}  // namespace

FileSystemPtr MemoryFileSystem() {
  static FileSystemPtr fs = std::make_shared<MemoryFs>();
  return fs;
}

FileSystemPtr NewMemoryFileSystem() { return std::make_shared<MemoryFs>(); }

}  // namespace lancedb::io
