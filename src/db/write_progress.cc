// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "db/write_progress.h"

namespace lancedb::db {

uint64_t ArrayMemorySize(const array::ArrayData& array) {
  uint64_t total = 0;
  for (const auto& buffer : array.buffers) {
    if (buffer) total += static_cast<uint64_t>(buffer->size());
  }
  for (const auto& child : array.children) {
    if (child) total += ArrayMemorySize(*child);
  }
  return total;
}

WriteProgressTracker::WriteProgressTracker(const AddOptions& options)
    : options_(options), start_(std::chrono::steady_clock::now()) {}

void WriteProgressTracker::BatchRead(uint64_t rows, uint64_t bytes) {
  rows_ += rows;
  memory_bytes_ += bytes;
  Report(false);
}

void WriteProgressTracker::FileWritten(uint64_t bytes) {
  file_bytes_ += bytes;
  Report(false);
}

void WriteProgressTracker::Finish() {
  if (finished_) return;
  finished_ = true;
  Report(true);
}

void WriteProgressTracker::Report(bool done) {
  WriteProgress p;
  p.elapsed = std::chrono::steady_clock::now() - start_;
  p.output_rows = rows_;
  // As LanceDB: the bytes written once there are any, the in-memory size before.
  p.output_bytes = file_bytes_ > 0 ? file_bytes_ : memory_bytes_;
  p.total_rows = options_.total_rows;
  if (done && !p.total_rows) p.total_rows = rows_;
  p.active_tasks = done ? 0 : 1;
  p.total_tasks = 1;
  p.done = done;
  options_.progress(p);
}

Result<array::RecordBatchPtr> ProgressReader::Next() {
  LANCEDB_ASSIGN_OR_RETURN(auto batch, input_->Next());
  if (batch != nullptr && batch->num_rows() > 0) {  // LanceDB reports no empty batch
    uint64_t bytes = 0;
    for (const auto& column : batch->columns()) bytes += ArrayMemorySize(*column);
    tracker_->BatchRead(static_cast<uint64_t>(batch->num_rows()), bytes);
  }
  return batch;
}

}  // namespace lancedb::db
