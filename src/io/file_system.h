// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// FileSystem: the storage interface every upper layer goes through. Paths are '/'-separated
// strings; for the local disk they are absolute or relative OS paths, for memory:// they are
// keys in a process-wide in-memory store. Implementations are internally synchronized: one
// instance may be used from many threads.

#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/buffer.h"
#include "lancedb/status.h"

namespace lancedb::io {

struct FileInfo {
  std::string name;  // base name within the listed directory
  int64_t size = 0;
  bool is_dir = false;
  /// Last modification, microseconds since the Unix epoch; -1 when the store does not say.
  int64_t modified_micros = -1;
};

/// One file opened for range reads: a file that is not replaced while open (Lance data, index
/// and deletion files). Thread-safety: internally synchronized.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  /// Read `length` bytes at `offset`, as FileSystem::ReadRange.
  virtual Result<BufferPtr> ReadRange(int64_t offset, int64_t length) = 0;
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;

  /// Read the whole file. NotFound when it does not exist.
  virtual Result<BufferPtr> ReadFile(const std::string& path) = 0;
  /// Read `length` bytes at `offset`. IOError (naming the file) when the range is past the end.
  virtual Result<BufferPtr> ReadRange(const std::string& path, int64_t offset, int64_t length) = 0;
  virtual Result<int64_t> GetSize(const std::string& path) = 0;
  virtual Result<bool> Exists(const std::string& path) = 0;
  /// Write the whole file, replacing any existing one; readers never see a partial file.
  /// Creates parent directories.
  virtual Status WriteFile(const std::string& path, std::span<const uint8_t> data) = 0;
  /// Atomically create `path` with `data` only if it does not exist: AlreadyExists otherwise.
  /// Creates parent directories. This is the commit primitive.
  virtual Status PutIfAbsent(const std::string& path, std::span<const uint8_t> data) = 0;
  /// List the entries directly under `dir` (not recursive), sorted by name. A missing
  /// directory lists as empty.
  virtual Result<std::vector<FileInfo>> ListDir(const std::string& dir) = 0;
  virtual Status CreateDir(const std::string& dir) = 0;
  /// Delete one file. NotFound when missing.
  virtual Status DeleteFile(const std::string& path) = 0;
  /// Delete a directory and everything under it. OK when missing.
  virtual Status DeleteDirRecursive(const std::string& dir) = 0;
  /// Open a streaming writer for a new file at `path` (see OutputStream).
  virtual Result<std::unique_ptr<class OutputStream>> OpenOutputStream(const std::string& path) = 0;
  /// Open `path` for many range reads without reopening it for each (the local disk keeps a
  /// descriptor). The default reads through ReadRange(path, ...). REQUIRES: this FileSystem
  /// outlives the returned file.
  virtual Result<std::unique_ptr<RandomAccessFile>> OpenForRead(const std::string& path);

  Status WriteFile(const std::string& path, std::string_view data) {
    return WriteFile(
        path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(data.data()), data.size()));
  }
  Status PutIfAbsent(const std::string& path, std::string_view data) {
    return PutIfAbsent(
        path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(data.data()), data.size()));
  }
};

using FileSystemPtr = std::shared_ptr<FileSystem>;

/// The local disk.
FileSystemPtr LocalFileSystem();
/// The process-wide in-memory store ResolveUri serves memory:// URIs from.
FileSystemPtr MemoryFileSystem();
/// A new, empty in-memory store of its own (each memory:// connection has one, as in LanceDB).
FileSystemPtr NewMemoryFileSystem();

/// Resolve a URI ("/abs/dir", "rel/dir", "file:///abs", "memory://name", "s3://bucket/prefix",
/// or a scheme given to RegisterFileSystem) to a file system and a path within it.
/// NotSupported for other schemes. For s3:// the path is the URI itself (trailing '/'
/// removed) and `storage_options` configure the store (io/s3_options.h; InvalidArgument for an
/// unknown key, a bad value or missing credentials); other file systems ignore them.
Status ResolveUri(const std::string& uri, const std::map<std::string, std::string>& storage_options,
                  FileSystemPtr* fs, std::string* path);
/// ResolveUri without storage options (s3:// then takes its settings from the environment).
Status ResolveUri(const std::string& uri, FileSystemPtr* fs, std::string* path);

/// Serve URIs "{scheme}://{path}" from `fs`, at path "/{path}" (an application's own storage,
/// or a test's fault-injecting one). Replaces an earlier registration of the scheme; `fs` null
/// removes it. InvalidArgument for an empty scheme or one of the built-in ones (file, memory).
Status RegisterFileSystem(const std::string& scheme, FileSystemPtr fs);

/// Join path components with '/'.
std::string JoinPath(std::string_view base, std::string_view name);

/// A writer that streams to a local temp file or memory, then publishes atomically on Close().
/// Externally synchronized.
class OutputStream {
 public:
  virtual ~OutputStream() = default;
  virtual Status Write(const void* data, int64_t size) = 0;
  /// Bytes written so far.
  virtual int64_t Tell() const = 0;
  /// Flush and publish the file at its final path.
  virtual Status Close() = 0;
  /// Discard everything written (the final path never appears).
  virtual void Abort() = 0;
};

}  // namespace lancedb::io
