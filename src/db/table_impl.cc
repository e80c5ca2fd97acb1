// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "db/table_impl.h"

#include <algorithm>
#include <cctype>

#include "array/c_bridge.h"
#include "db/write_progress.h"
#include "table/branches.h"

namespace lancedb::db {

Status ValidateTableName(const std::string& name) {
  if (name.empty()) return Status::InvalidArgument("Table name must not be empty");
  if (name == "." || name == "..") {
    return Status::InvalidArgument("Invalid table name '" + name + "'");
  }
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) {
      return Status::InvalidArgument("Invalid table name '" + name +
                                     "': only alphanumeric characters, underscores, hyphens, "
                                     "and periods are allowed");
    }
  }
  return Status::OK();
}

LocalTable::LocalTable(std::string name, table::DatasetPtr dataset,
                       std::optional<std::chrono::milliseconds> read_consistency_interval,
                       std::optional<uint64_t> pinned_version)
    : name_(std::move(name)),
      read_consistency_interval_(read_consistency_interval),
      dataset_(std::move(dataset)),
      last_refresh_(std::chrono::steady_clock::now()),
      pinned_version_(pinned_version) {}

std::string LocalTable::uri() const { return table::TableRootOf(*Current()); }

table::DatasetPtr LocalTable::Current() const {
  MutexLock lock(&mu_);
  return dataset_;
}

Result<table::DatasetPtr> LocalTable::Snapshot() const {
  table::DatasetPtr current;
  const auto now = std::chrono::steady_clock::now();
  {
    MutexLock lock(&mu_);
    if (pinned_version_ || !read_consistency_interval_ ||
        now - last_refresh_ < *read_consistency_interval_) {
      return dataset_;
    }
    current = dataset_;
  }
  // Storage I/O without the lock: readers of this handle never wait for each other's refresh.
  LANCEDB_ASSIGN_OR_RETURN(uint64_t latest, current->LatestVersion());
  table::DatasetPtr newer;
  if (latest != current->version()) {
    LANCEDB_ASSIGN_OR_RETURN(newer, table::Dataset::Open(current->fs(), current->path()));
  }
  MutexLock lock(&mu_);
  if (pinned_version_) return dataset_;  // checked out meanwhile
  if (newer && newer->version() > dataset_->version()) dataset_ = std::move(newer);
  last_refresh_ = std::max(last_refresh_, now);
  return dataset_;
}

Status LocalTable::CheckWritable() const {
  MutexLock lock(&mu_);
  if (pinned_version_) {
    return Status::NotSupported("Cannot mutate table reference fixed at version " +
                                std::to_string(*pinned_version_) + "; call CheckoutLatest() first");
  }
  return Status::OK();
}

Result<table::DatasetPtr> LocalTable::LatestForWrite() const {
  table::DatasetPtr current = Current();
  return table::Dataset::Open(current->fs(), current->path());
}

void LocalTable::Publish(const table::DatasetPtr& dataset) {
  MutexLock lock(&mu_);
  if (!pinned_version_ && dataset->version() > dataset_->version()) dataset_ = dataset;
}

Status LocalTable::GetSchema(ArrowSchema* out) const {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  return array::ExportSchema(*ds->schema(), out);
}

Result<uint64_t> LocalTable::version() const {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  return ds->version();
}

Result<int64_t> LocalTable::CountRows() const {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  return ds->CountRows();
}

Result<AddResult> LocalTable::Add(ArrowArrayStream* data, const AddOptions& options) {
  if (data == nullptr || data->release == nullptr) {
    return Status::InvalidArgument("Add requires a valid ArrowArrayStream");
  }
  LANCEDB_ASSIGN_OR_RETURN(auto reader, array::ImportArrayStream(data));
  return AddReader(reader.get(), options);
}

Result<AddResult> LocalTable::AddReader(array::RecordBatchReader* reader,
                                        const AddOptions& options) {
  if (options.expected_version && options.mode != AddMode::kOverwrite) {
    return Status::InvalidArgument("expected_version applies to overwrites only");
  }
  table::WriteParams params;
  params.allow_external_blob_outside_bases = options.allow_external_blob_outside_bases;
  if (!options.progress) return AddWith(reader, options.mode, params, options.expected_version);
  WriteProgressTracker tracker(options);
  ProgressReader counted(reader, &tracker);
  params.on_file_written = [&tracker](int64_t bytes) {
    tracker.FileWritten(static_cast<uint64_t>(bytes));
  };
  auto result = AddWith(&counted, options.mode, params, options.expected_version);
  tracker.Finish();  // also after a failure, as LanceDB
  return result;
}

Result<AddResult> LocalTable::AddWith(array::RecordBatchReader* reader, AddMode mode,
                                      table::WriteParams params,
                                      std::optional<uint64_t> expected_version) {
  LANCEDB_RETURN_NOT_OK(CheckWritable());
  LANCEDB_ASSIGN_OR_RETURN(auto latest, LatestForWrite());
  if (expected_version) {
    if (latest->version() != *expected_version) {
      return Status::RetryableCommitConflict(
          "Table '" + name_ + "' is at version " + std::to_string(latest->version()) +
          ", not the expected version " + std::to_string(*expected_version));
    }
    params.fail_if_rebased = true;
  }
  table::DatasetPtr written;
  if (mode == AddMode::kAppend) {
    LANCEDB_ASSIGN_OR_RETURN(written, latest->Append(reader, params));
  } else {
    LANCEDB_ASSIGN_OR_RETURN(written, latest->Overwrite(reader, params));
  }
  Publish(written);
  return AddResult{written->version()};
}

Status LocalTable::Scan(const ScanRequest& request, ArrowArrayStream* out) const {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  table::ScanOptions options;
  options.columns = request.columns;
  options.with_row_id = request.with_row_id;
  options.with_row_address = request.with_row_address;
  options.batch_size = request.batch_size;
  LANCEDB_ASSIGN_OR_RETURN(auto reader, ds->Scan(options));
  return array::ExportRecordBatchReader(std::move(reader), out);
}

Result<std::vector<TableVersion>> LocalTable::ListVersions() const {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  LANCEDB_ASSIGN_OR_RETURN(auto versions, ds->ListVersions());
  std::vector<TableVersion> out;
  out.reserve(versions.size());
  for (auto& v : versions) out.push_back({v.version, v.timestamp_micros, std::move(v.metadata)});
  return out;
}

Status LocalTable::Checkout(uint64_t version) {
  table::DatasetPtr current = Current();
  LANCEDB_ASSIGN_OR_RETURN(auto ds, table::Dataset::Open(current->fs(), current->path(), version));
  MutexLock lock(&mu_);
  dataset_ = std::move(ds);
  pinned_version_ = version;
  return Status::OK();
}

Status LocalTable::CheckoutLatest() {
  table::DatasetPtr current = Current();
  LANCEDB_ASSIGN_OR_RETURN(auto ds, table::Dataset::Open(current->fs(), current->path()));
  MutexLock lock(&mu_);
  dataset_ = std::move(ds);
  pinned_version_.reset();
  last_refresh_ = std::chrono::steady_clock::now();
  return Status::OK();
}

Status LocalTable::Restore() {
  table::DatasetPtr current = Current();
  LANCEDB_ASSIGN_OR_RETURN(auto restored, current->Restore());
  MutexLock lock(&mu_);
  dataset_ = std::move(restored);
  pinned_version_.reset();
  return Status::OK();
}

}  // namespace lancedb::db
