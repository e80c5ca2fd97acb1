// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Reading fields of a file format 2.0 file (lance-format.md §2.2). Every schema field has its
// own column, depth-first: a struct is a column of `SimpleStruct` pages followed by its members'
// columns; a list is a column of `List` offset pages followed by its item columns, whose pages
// count items rather than rows; everything else (primitives, strings, fixed-size lists) is one
// value column. Pages of one column may hold different numbers of rows.
// Thread-safety: Read is safe to call concurrently (the page cache is internally synchronized).

#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "array/array.h"
#include "format/lance_schema.h"
#include "format/proto/file2.pb.h"
#include "format/v20_decoder.h"
#include "io/file_system.h"

namespace lancedb::format {

/// Number of 2.0 columns a field occupies (itself and all its descendants).
int V20ColumnCount(const LanceField& field);

class V20FieldReader {
 public:
  /// Parse the page encodings of every column. Corruption (naming column and page) for an
  /// unreadable page encoding; NotSupported for a page that is not a 2.0 ArrayEncoding.
  /// `global_buffers` are the (position, size) entries of the file's GBO table.
  static Result<std::unique_ptr<V20FieldReader>> Make(
      io::FileSystemPtr fs, std::string path, int64_t file_size,
      const std::vector<lance::file::v2::ColumnMetadata>* columns,
      std::vector<std::pair<uint64_t, uint64_t>> global_buffers);

  /// Read rows [row_start, row_start + num_rows) of `field` (of Arrow type `type`) whose
  /// first column is `column`.
  Result<array::ArrayPtr> Read(const LanceField& field, const array::DataTypePtr& type, int column,
                               int64_t row_start, int64_t num_rows) const;

  V20FieldReader(io::FileSystemPtr fs, std::string path, int64_t file_size,
                 const std::vector<lance::file::v2::ColumnMetadata>* columns,
                 std::vector<std::pair<uint64_t, uint64_t>> global_buffers)
      : fs_(std::move(fs)),
        path_(std::move(path)),
        size_(file_size),
        columns_(columns),
        global_buffers_(std::move(global_buffers)) {}

 private:
  struct PageInfo {
    pb20::ArrayEncoding encoding;
    int64_t first_row = 0;  // rows (items, for item columns) before this page
    int64_t num_rows = 0;
    uint64_t first_item = 0;  // list columns: items referenced by earlier pages
  };

  Status Init();
  std::string Where(int column, int page) const;
  Result<BufferPtr> ReadBuffer(uint64_t pos, uint64_t len, const std::string& what) const;
  V20BufferSource PageBuffers(int column, int page) const;
  Result<array::ArrayPtr> ReadValues(int column, const array::DataTypePtr& type, int64_t row_start,
                                     int64_t num_rows) const;
  Result<array::ArrayPtr> ReadList(const LanceField& field, const array::DataTypePtr& type,
                                   int column, int64_t row_start, int64_t num_rows) const;
  Result<array::ArrayPtr> ReadStruct(const LanceField& field, const array::DataTypePtr& type,
                                     int column, int64_t row_start, int64_t num_rows) const;
  Result<array::ArrayPtr> DecodeValuePage(int column, int page,
                                          const array::DataTypePtr& type) const;
  Result<std::shared_ptr<const V20ListPage>> DecodeListPage(int column, int page) const;
  /// Pages of `column` overlapping [row_start, row_end); Corruption when they do not cover it.
  Result<std::pair<int, int>> PageSpan(int column, int64_t row_start, int64_t row_end) const;

  io::FileSystemPtr fs_;
  std::string path_;
  int64_t size_;
  const std::vector<lance::file::v2::ColumnMetadata>* columns_;
  std::vector<std::pair<uint64_t, uint64_t>> global_buffers_;
  std::vector<std::vector<PageInfo>> pages_;

  // The last decoded page of each column, so that a scan in batches decodes each page once.
  struct CachedPage {
    int page = -1;
    array::ArrayPtr values;
    std::shared_ptr<const V20ListPage> list;
  };
  mutable std::mutex cache_mutex_;
  mutable std::vector<CachedPage> cache_;
};

}  // namespace lancedb::format
