// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "io/fault_injection.h"

namespace lancedb::io {

namespace {

Status Injected(std::string_view what, const std::string& path) {
  return Status::IOError("Injected fault: " + std::string(what) + " '" + path + "' failed");
}

/// Forwards to the base stream; each Write and the Close count as write calls.
class FaultyOutputStream : public OutputStream {
 public:
  FaultyOutputStream(FaultInjectingFileSystem* fs, std::unique_ptr<OutputStream> base,
                     std::string path)
      : fs_(fs), base_(std::move(base)), path_(std::move(path)) {}
  ~FaultyOutputStream() override = default;
  Status Write(const void* data, int64_t size) override {
    FaultInjectingFileSystem::Fault fault;
    if (fs_->Hit(FaultInjectingFileSystem::Target::kWrite, &fault)) {
      base_->Abort();
      return Injected("writing", path_);
    }
    return base_->Write(data, size);
  }
  int64_t Tell() const override { return base_->Tell(); }
  Status Close() override {
    FaultInjectingFileSystem::Fault fault;
    if (fs_->Hit(FaultInjectingFileSystem::Target::kWrite, &fault)) {
      base_->Abort();
      return Injected("closing", path_);
    }
    return base_->Close();
  }
  void Abort() override { base_->Abort(); }

 private:
  FaultInjectingFileSystem* fs_;
  std::unique_ptr<OutputStream> base_;
  std::string path_;
};

}  // namespace

void FaultInjectingFileSystem::Arm(Target target, int64_t n, Fault fault) {
  std::lock_guard lock(mu_);
  armed_ = n > 0;
  target_ = target;
  fault_ = fault;
  remaining_ = n;
  fired_ = false;
}

void FaultInjectingFileSystem::Disarm() {
  std::lock_guard lock(mu_);
  armed_ = false;
}

bool FaultInjectingFileSystem::Hit(Target target, Fault* fault) {
  std::lock_guard lock(mu_);
  if (!armed_ || target != target_) return false;
  if (--remaining_ > 0) return false;
  armed_ = false;
  fired_ = true;
  *fault = fault_;
  return true;
}

Result<BufferPtr> FaultInjectingFileSystem::ReadFile(const std::string& path) {
  Fault fault;
  if (!Hit(Target::kRead, &fault)) return base_->ReadFile(path);
  if (fault == Fault::kError) return Injected("reading", path);
  LANCEDB_ASSIGN_OR_RETURN(auto data, base_->ReadFile(path));
  return Buffer::Slice(data, 0, data->size() / 2);
}

Result<BufferPtr> FaultInjectingFileSystem::ReadRange(const std::string& path, int64_t offset,
                                                      int64_t length) {
  Fault fault;
  if (!Hit(Target::kRead, &fault)) return base_->ReadRange(path, offset, length);
  if (fault == Fault::kError) return Injected("reading", path);
  LANCEDB_ASSIGN_OR_RETURN(auto data, base_->ReadRange(path, offset, length));
  return Buffer::Slice(data, 0, data->size() / 2);
}

Result<int64_t> FaultInjectingFileSystem::GetSize(const std::string& path) {
  Fault fault;
  if (Hit(Target::kRead, &fault)) return Injected("sizing", path);
  return base_->GetSize(path);
}

Result<bool> FaultInjectingFileSystem::Exists(const std::string& path) {
  Fault fault;
  if (Hit(Target::kRead, &fault)) return Injected("probing", path);
  return base_->Exists(path);
}

Status FaultInjectingFileSystem::WriteFile(const std::string& path, std::span<const uint8_t> data) {
  Fault fault;
  if (Hit(Target::kWrite, &fault)) return Injected("writing", path);
  return base_->WriteFile(path, data);
}

Status FaultInjectingFileSystem::PutIfAbsent(const std::string& path,
                                             std::span<const uint8_t> data) {
  Fault fault;
  if (Hit(Target::kWrite, &fault)) return Injected("creating", path);
  return base_->PutIfAbsent(path, data);
}

Result<std::vector<FileInfo>> FaultInjectingFileSystem::ListDir(const std::string& dir) {
  Fault fault;
  if (Hit(Target::kRead, &fault)) return Injected("listing", dir);
  return base_->ListDir(dir);
}

Status FaultInjectingFileSystem::CreateDir(const std::string& dir) {
  Fault fault;
  if (Hit(Target::kWrite, &fault)) return Injected("creating directory", dir);
  return base_->CreateDir(dir);
}

Status FaultInjectingFileSystem::DeleteFile(const std::string& path) {
  Fault fault;
  if (Hit(Target::kDelete, &fault)) return Injected("deleting", path);
  return base_->DeleteFile(path);
}

Status FaultInjectingFileSystem::DeleteDirRecursive(const std::string& dir) {
  Fault fault;
  if (Hit(Target::kDelete, &fault)) return Injected("deleting", dir);
  return base_->DeleteDirRecursive(dir);
}

Result<std::unique_ptr<OutputStream>> FaultInjectingFileSystem::OpenOutputStream(
    const std::string& path) {
  Fault fault;
  if (Hit(Target::kWrite, &fault)) return Injected("opening", path);
  LANCEDB_ASSIGN_OR_RETURN(auto base, base_->OpenOutputStream(path));
  return std::unique_ptr<OutputStream>(
      std::make_unique<FaultyOutputStream>(this, std::move(base), path));
}

}  // namespace lancedb::io
