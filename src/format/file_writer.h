// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// FileWriter: writes one Lance data file (file format 2.2 or 2.1, lance-format.md §2.1, §2.3,
// §2.6) with the simplest encodings Lance accepts: mini-block Flat/Variable pages with raw u16
// rep/def levels for narrow values, full-zip pages for wide values (vectors, long strings),
// constant layout for all-null pages. Pages are bounded by `max_page_bytes` per column.
// The versions differ in the mini-block grammar (u32 vs u16 chunk words and buffer sizes), the
// constant layout (2.1: all-null only, levels always raw) and the blob columns they take: blob
// v2 columns need 2.2, legacy blob columns (docs/format/blobs.md) need 2.1. 2.0 files (the
// legacy ArrayEncoding tree) are not written.
// Externally synchronized.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "array/array.h"
#include "format/blob_bases.h"
#include "format/lance_schema.h"
#include "io/file_system.h"

namespace lancedb::format {

struct FileVersion {
  uint32_t major = 2;
  uint32_t minor = 2;
};

struct FileWriterOptions {
  /// Target page size per column before a page is flushed.
  int64_t max_page_bytes = 8 << 20;
  /// Also flush a page after this many rows (0: no limit). Index files whose readers fetch
  /// fixed row ranges (a BTREE's 4096-row pages) align their disk pages with those ranges.
  int64_t max_page_rows = 0;
  /// 2.2 or 2.1; other versions are NotSupported.
  FileVersion version;
  /// Rows per zone of the statistics kept in the file (format/statistics.h); 0 writes none.
  int64_t statistics_zone_rows = 8192;
  /// The registered base paths external blob URIs are written relative to (none when null).
  std::shared_ptr<const ExternalBlobBases> external_blob_bases;
  /// Write an external blob URI outside every registered base as its absolute URI (base id
  /// 0); when false such a URI fails the write with InvalidArgument.
  bool allow_external_blob_outside_bases = true;
};

struct FileWriteResult {
  int64_t num_rows = 0;
  int64_t file_size_bytes = 0;
  std::vector<int32_t> fields;          // DataFile.fields (leaf ids in 2.1+)
  std::vector<int32_t> column_indices;  // DataFile.column_indices
  FileVersion version;
};

class FileWriter {
 public:
  /// Start a new file at `path`. `schema` carries the field ids written into the file.
  static Result<std::unique_ptr<FileWriter>> Open(io::FileSystemPtr fs, std::string path,
                                                  LanceSchema schema,
                                                  FileWriterOptions options = {});
  /// Check that files of `version` can hold `schema`: NotSupported for versions other than
  /// 2.1 and 2.2; InvalidArgument for a legacy blob column in 2.2 or a blob v2 column in 2.1.
  static Status CheckSchema(const LanceSchema& schema, FileVersion version);
  virtual ~FileWriter() = default;
  /// Append a batch; its columns must match the schema (names, types) in order.
  virtual Status Write(const array::RecordBatch& batch) = 0;
  /// Rows written so far.
  virtual int64_t num_rows() const = 0;
  /// Approximate bytes written so far (for rolling over to a new file).
  virtual int64_t bytes_written() const = 0;
  /// Add a global buffer, written after the FileDescriptor (buffer 0) and the zone statistics
  /// (buffer 1, when kept), in the order added: with statistics_zone_rows = 0 the first one
  /// added is buffer 1 (index files keep parameters there).
  virtual void AddGlobalBuffer(std::string bytes) = 0;
  /// Flush pages, write metadata and footer, and publish the file.
  virtual Result<FileWriteResult> Finish() = 0;
  /// Discard the file.
  virtual void Abort() = 0;
};

}  // namespace lancedb::format
