// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// FileReader: reads a Lance data file (lance-format.md §2). Opens the footer, column metadata
// and schema once; then decodes any set of top-level fields over any row range. Page decoding
// goes through a registry of layout decoders (mini-block, full-zip, constant) and compressive
// encodings, so new encodings plug in without touching the reader.
// Thread-safety: Read() may be called concurrently once Open() returned.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "array/array.h"
#include "format/file_writer.h"
#include "format/lance_schema.h"
#include "io/file_system.h"

namespace lancedb::format {

struct FileReadOptions {
  /// Read blob columns as their payloads (format/blob.h BlobReadType) instead of descriptors.
  bool materialize_blobs = false;
  /// With materialize_blobs: the base paths external blobs may be relative to; a relative
  /// reference comes back as its absolute URI (Corruption for an unknown base).
  std::shared_ptr<const ExternalBlobBases> external_blob_bases;
};

class FileReader {
 public:
  /// Open `path`. `file_size` < 0 means unknown (it is then looked up).
  /// Corruption (naming the file) for a bad footer or metadata.
  static Result<std::unique_ptr<FileReader>> Open(io::FileSystemPtr fs, std::string path,
                                                  int64_t file_size = -1,
                                                  FileReadOptions options = {});
  virtual ~FileReader() = default;

  virtual const LanceSchema& schema() const = 0;
  virtual int64_t num_rows() const = 0;
  virtual FileVersion version() const = 0;

  /// Read top-level fields (by field id, in the order given) for rows
  /// [row_start, row_start + num_rows). The batch's schema uses the file's field names.
  virtual Result<array::RecordBatchPtr> Read(const std::vector<int32_t>& field_ids,
                                             int64_t row_start, int64_t num_rows) const = 0;
  /// Read top-level fields for the given row offsets (sorted ascending, in range; repeats
  /// allowed). In 2.1/2.2 files only the mini-block chunks and full-zip row ranges holding the
  /// rows are decoded (each once); other pages and 2.0 files are decoded whole.
  virtual Result<array::RecordBatchPtr> Take(const std::vector<int32_t>& field_ids,
                                             const std::vector<int64_t>& rows) const = 0;

  /// Number of global buffers in the file (buffer 0 is the FileDescriptor).
  virtual uint32_t num_global_buffers() const = 0;
  /// Read global buffer `index`. InvalidArgument when out of range; Corruption when its
  /// table entry points outside the file.
  virtual Result<BufferPtr> ReadGlobalBuffer(uint32_t index) const = 0;
};

}  // namespace lancedb::format
