// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Progress reports of Table::Add (LanceDB's WriteProgress): a tracker fed with the batches read
// from the input and the data files written, and a reader that feeds it.
// Thread-safety: externally synchronized (one add, on one thread).

#pragma once

#include <chrono>
#include <cstdint>

#include "array/array.h"
#include "lancedb/table.h"

namespace lancedb::db {

/// The bytes of the buffers an array holds (children included; a slice counts its whole
/// buffers, as Arrow's memory size does).
uint64_t ArrayMemorySize(const array::ArrayData& array);

/// Sends WriteProgress reports to an AddOptions::progress callback.
class WriteProgressTracker {
 public:
  /// REQUIRES: options.progress is set.
  explicit WriteProgressTracker(const AddOptions& options);

  /// A batch of `rows` rows and `bytes` bytes was read from the input.
  void BatchRead(uint64_t rows, uint64_t bytes);
  /// A data file of `bytes` bytes was written.
  void FileWritten(uint64_t bytes);
  /// The last report (done); later calls do nothing.
  void Finish();

 private:
  void Report(bool done);

  const AddOptions& options_;
  const std::chrono::steady_clock::time_point start_;
  uint64_t rows_ = 0;
  uint64_t memory_bytes_ = 0;
  uint64_t file_bytes_ = 0;
  bool finished_ = false;
};

/// Reads `input`, telling `tracker` about each batch.
class ProgressReader : public array::RecordBatchReader {
 public:
  ProgressReader(array::RecordBatchReader* input, WriteProgressTracker* tracker)
      : input_(input), tracker_(tracker) {}
  array::SchemaPtr schema() const override { return input_->schema(); }
  Result<array::RecordBatchPtr> Next() override;

 private:
  array::RecordBatchReader* input_;
  WriteProgressTracker* tracker_;
};

}  // namespace lancedb::db
