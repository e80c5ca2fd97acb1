// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The local-disk FileSystem. Whole-file writes go to a uniquely named temp file in the
// target directory and are renamed into place, so readers never see a partial file.
// PutIfAbsent links the finished temp file to its final name (link(2) fails with EEXIST when
// the name is taken), which is the atomic commit primitive Lance uses on local disks.

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <system_error>

#include "common/random.h"
#include "io/file_system.h"

namespace lancedb::io {
namespace {

namespace stdfs = std::filesystem;

Status ErrnoStatus(const std::string& what, const std::string& path, int err) {
  std::string msg = what + " '" + path + "': " + std::strerror(err);
  if (err == ENOENT) return Status::NotFound(msg);
  if (err == EEXIST) return Status::AlreadyExists(msg);
  return Status::IOError(msg);
}

std::string TempName(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  return path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
         std::to_string(RandomU64() & 0xffffffff);
}

Status EnsureParent(const std::string& path) {
  stdfs::path parent = stdfs::path(path).parent_path();
  if (parent.empty()) return Status::OK();
  std::error_code ec;
  stdfs::create_directories(parent, ec);
  if (ec)
    return Status::IOError("Cannot create directory '" + parent.string() + "': " + ec.message());
  return Status::OK();
}

Status WriteAll(int fd, const uint8_t* data, size_t size, const std::string& path) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("Cannot write", path, errno);
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return Status::OK();
}

// Write `data` to a fresh temp file next to `path`; return its name.
Result<std::string> WriteTemp(const std::string& path, std::span<const uint8_t> data) {
  LANCEDB_RETURN_NOT_OK(EnsureParent(path));
  std::string tmp = TempName(path);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus("Cannot create", tmp, errno);
  Status st = WriteAll(fd, data.data(), data.size(), tmp);
  if (::close(fd) != 0 && st.ok()) st = ErrnoStatus("Cannot close", tmp, errno);
  if (!st.ok()) {
    ::unlink(tmp.c_str());
    return st;
  }
  return tmp;
}

// Ranges at least this large are memory-mapped instead of copied: Lance files are immutable once
// published (replaced only by rename, deleted only by unlink), so a mapping stays valid.
constexpr int64_t kMmapThreshold = 1 << 20;

Result<BufferPtr> MapRange(int fd, const std::string& path, int64_t offset, int64_t length) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return ErrnoStatus("Cannot stat", path, errno);
  if (offset + length > st.st_size) {
    return Status::IOError("Range [" + std::to_string(offset) + ", " +
                           std::to_string(offset + length) + ") is past the end of '" + path +
                           "' (" + std::to_string(st.st_size) + " bytes)");
  }
  static const int64_t kPage = ::sysconf(_SC_PAGESIZE);
  const int64_t start = offset / kPage * kPage;
  const size_t map_len = static_cast<size_t>(offset + length - start);
  void* addr = ::mmap(nullptr, map_len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, start);
  if (addr == MAP_FAILED) return ErrnoStatus("Cannot map", path, errno);
  std::shared_ptr<const void> owner(
      addr, [map_len](const void* p) { ::munmap(const_cast<void*>(p), map_len); });
  return Buffer::Wrap(static_cast<const uint8_t*>(addr) + (offset - start), length,
                      std::move(owner));
}

/// Read [offset, offset + length) of open file `fd`: mapped when large, else copied.
Result<BufferPtr> ReadFd(int fd, const std::string& path, int64_t offset, int64_t length) {
  if (offset < 0 || length < 0) {
    return Status::InvalidArgument("Invalid range read of '" + path + "'");
  }
  if (length >= kMmapThreshold) return MapRange(fd, path, offset, length);
  auto buffer = Buffer::AllocateUninitialized(length);
  int64_t done = 0;
  while (done < length) {
    ssize_t n = ::pread(fd, buffer->mutable_data() + done, static_cast<size_t>(length - done),
                        offset + done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("Cannot read", path, errno);
    }
    if (n == 0) break;
    done += n;
  }
  if (done < length) {
    return Status::IOError("Range [" + std::to_string(offset) + ", " +
                           std::to_string(offset + length) + ") is past the end of '" + path +
                           "' (" + std::to_string(offset + done) + " bytes)");
  }
  return buffer;
}

/// A file kept open for range reads (pread is safe from many threads at once).
class LocalRandomAccessFile : public RandomAccessFile {
 public:
  LocalRandomAccessFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~LocalRandomAccessFile() override { ::close(fd_); }
  LocalRandomAccessFile(const LocalRandomAccessFile&) = delete;
  LocalRandomAccessFile& operator=(const LocalRandomAccessFile&) = delete;

  Result<BufferPtr> ReadRange(int64_t offset, int64_t length) override {
    return ReadFd(fd_, path_, offset, length);
  }

 private:
  const std::string path_;
  const int fd_;
};

class LocalOutputStream : public OutputStream {
 public:
  LocalOutputStream(std::string path, std::string tmp, int fd)
      : path_(std::move(path)), tmp_(std::move(tmp)), fd_(fd) {}
  ~LocalOutputStream() override { Abort(); }

  Status Write(const void* data, int64_t size) override {
    if (fd_ < 0) return Status::IOError("Write to a closed stream for '" + path_ + "'");
    LANCEDB_RETURN_NOT_OK(
        WriteAll(fd_, static_cast<const uint8_t*>(data), static_cast<size_t>(size), tmp_));
    position_ += size;
    return Status::OK();
  }
  int64_t Tell() const override { return position_; }
  Status Close() override {
    if (fd_ < 0) return Status::IOError("Stream for '" + path_ + "' is already closed");
    int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) {
      ::unlink(tmp_.c_str());
      return ErrnoStatus("Cannot close", tmp_, errno);
    }
    if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
      int err = errno;
      ::unlink(tmp_.c_str());
      return ErrnoStatus("Cannot publish", path_, err);
    }
    return Status::OK();
  }
  void Abort() override {
    if (fd_ >= 0) {
      ::close(fd_);
      fd_ = -1;
      ::unlink(tmp_.c_str());
    }
  }

 private:
  std::string path_;
  std::string tmp_;
  int fd_;
  int64_t position_ = 0;
};

class LocalFs : public FileSystem {
 public:
  Result<BufferPtr> ReadFile(const std::string& path) override {
    LANCEDB_ASSIGN_OR_RETURN(int64_t size, GetSize(path));
    return ReadRange(path, 0, size);
  }

  Result<BufferPtr> ReadRange(const std::string& path, int64_t offset, int64_t length) override {
    if (offset < 0 || length < 0) {
      return Status::InvalidArgument("Invalid range read of '" + path + "'");
    }
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ErrnoStatus("Cannot open", path, errno);
    auto read = ReadFd(fd, path, offset, length);
    ::close(fd);
    return read;
  }

  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ErrnoStatus("Cannot open", path, errno);
    return std::unique_ptr<RandomAccessFile>(std::make_unique<LocalRandomAccessFile>(path, fd));
  }

  Result<int64_t> GetSize(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return ErrnoStatus("Cannot stat", path, errno);
    if (S_ISDIR(st.st_mode)) return Status::IOError("'" + path + "' is a directory");
    return static_cast<int64_t>(st.st_size);
  }

  Result<bool> Exists(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0) return true;
    if (errno == ENOENT || errno == ENOTDIR) return false;
    return ErrnoStatus("Cannot stat", path, errno);
  }

  Status WriteFile(const std::string& path, std::span<const uint8_t> data) override {
    LANCEDB_ASSIGN_OR_RETURN(std::string tmp, WriteTemp(path, data));
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
      int err = errno;
      ::unlink(tmp.c_str());
      return ErrnoStatus("Cannot write", path, err);
    }
    return Status::OK();
  }

  Status PutIfAbsent(const std::string& path, std::span<const uint8_t> data) override {
    LANCEDB_ASSIGN_OR_RETURN(std::string tmp, WriteTemp(path, data));
    int rc = ::link(tmp.c_str(), path.c_str());
    int err = errno;
    ::unlink(tmp.c_str());
    if (rc != 0) return ErrnoStatus("Cannot create", path, err);
    return Status::OK();
  }

  Result<std::vector<FileInfo>> ListDir(const std::string& dir) override {
    std::vector<FileInfo> out;
    std::error_code ec;
    stdfs::directory_iterator it(dir, ec);
    if (ec) {
      if (ec == std::errc::no_such_file_or_directory) return out;
      return Status::IOError("Cannot list '" + dir + "': " + ec.message());
    }
    for (const auto& entry : it) {
      FileInfo info;
      info.name = entry.path().filename().string();
      std::error_code ec2;
      info.is_dir = entry.is_directory(ec2);
      if (!info.is_dir) {
        auto size = entry.file_size(ec2);
        info.size = ec2 ? 0 : static_cast<int64_t>(size);
      }
      struct stat st;
      if (::stat(entry.path().c_str(), &st) == 0) {
        info.modified_micros = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000 +
                               static_cast<int64_t>(st.st_mtim.tv_nsec) / 1000;
      }
      out.push_back(std::move(info));
    }
    std::sort(out.begin(), out.end(),
              [](const FileInfo& a, const FileInfo& b) { return a.name < b.name; });
    return out;
  }

  Status CreateDir(const std::string& dir) override {
    std::error_code ec;
    stdfs::create_directories(dir, ec);
    if (ec) return Status::IOError("Cannot create directory '" + dir + "': " + ec.message());
    return Status::OK();
  }

  Status DeleteFile(const std::string& path) override {
    if (::unlink(path.c_str()) != 0) return ErrnoStatus("Cannot delete", path, errno);
    return Status::OK();
  }

  Status DeleteDirRecursive(const std::string& dir) override {
    std::error_code ec;
    stdfs::remove_all(dir, ec);
    if (ec) return Status::IOError("Cannot delete '" + dir + "': " + ec.message());
    return Status::OK();
  }

  Result<std::unique_ptr<OutputStream>> OpenOutputStream(const std::string& path) override {
    LANCEDB_RETURN_NOT_OK(EnsureParent(path));
    std::string tmp = TempName(path);
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return ErrnoStatus("Cannot create", tmp, errno);
    return std::unique_ptr<OutputStream>(new LocalOutputStream(path, tmp, fd));
  }
};

}  // namespace

FileSystemPtr LocalFileSystem() {
  static FileSystemPtr fs = std::make_shared<LocalFs>();
  return fs;
}

}  // namespace lancedb::io
