// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// FaultInjectingFileSystem: a FileSystem that forwards every call to another one and, when
// armed, makes the n-th call of a class of operations fail — with an IOError, or for reads by
// returning fewer bytes than asked (a torn or truncated file). Tests use it to check that every
// write either succeeds or fails with an error and leaves the table as it was, whatever call
// fails. Register it under a URI scheme (RegisterFileSystem) to use it through Connect.
// Thread-safety: internally synchronized.

#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "io/file_system.h"

namespace lancedb::io {

class FaultInjectingFileSystem : public FileSystem {
 public:
  /// The classes of operations a fault can hit.
  enum class Target : uint8_t {
    kWrite,   // WriteFile, PutIfAbsent, CreateDir, and every Write/Close of an OutputStream
    kRead,    // ReadFile, ReadRange, GetSize, Exists, ListDir
    kDelete,  // DeleteFile, DeleteDirRecursive
  };
  enum class Fault : uint8_t {
    kError,      // the call fails with IOError and has no effect
    kShortRead,  // (reads of bytes) the call returns the first half of the bytes
  };

  explicit FaultInjectingFileSystem(FileSystemPtr base) : base_(std::move(base)) {}

  /// From now on count the calls of `target`; make the `n`-th (1-based) fail with `fault`.
  void Arm(Target target, int64_t n, Fault fault = Fault::kError);
  /// Stop injecting.
  void Disarm();
  /// Whether the armed fault has been injected.
  bool fired() const { return fired_.load(); }

  Result<BufferPtr> ReadFile(const std::string& path) override;
  Result<BufferPtr> ReadRange(const std::string& path, int64_t offset, int64_t length) override;
  Result<int64_t> GetSize(const std::string& path) override;
  Result<bool> Exists(const std::string& path) override;
  Status WriteFile(const std::string& path, std::span<const uint8_t> data) override;
  Status PutIfAbsent(const std::string& path, std::span<const uint8_t> data) override;
  Result<std::vector<FileInfo>> ListDir(const std::string& dir) override;
  Status CreateDir(const std::string& dir) override;
  Status DeleteFile(const std::string& path) override;
  Status DeleteDirRecursive(const std::string& dir) override;
  Result<std::unique_ptr<OutputStream>> OpenOutputStream(const std::string& path) override;

  /// The fault to inject into a call of `target` on `path`, if this call is the armed one.
  /// (Public for the output streams.)
  bool Hit(Target target, Fault* fault);

 private:
  FileSystemPtr base_;
  std::mutex mu_;
  bool armed_ = false;
  Target target_ = Target::kWrite;
  Fault fault_ = Fault::kError;
  int64_t remaining_ = 0;
  std::atomic<bool> fired_{false};
};

}  // namespace lancedb::io
