// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Shared by the scalar index implementations: their build and open entry points, file and
// column names of Lance's layout (docs/format/scalar-index.md) and key helpers.

#pragma once

#include <memory>
#include <string>
#include <vector>

#include "expr/vec.h"
#include "format/file_reader.h"
#include "index/scalar/scalar_index.h"

namespace lancedb::index::scalar {

inline constexpr char kBTreeDataFile[] = "page_data.lance";
inline constexpr char kBTreeLookupFile[] = "page_lookup.lance";
inline constexpr char kBitmapFile[] = "bitmap_page_lookup.lance";
/// Rows per BTREE page (the lookup's "batch_size").
inline constexpr int64_t kBTreePageRows = 4096;

Result<std::vector<WrittenFile>> BuildBTree(const io::FileSystemPtr& fs, const std::string& dir,
                                            const array::DataTypePtr& column_type,
                                            const std::vector<BuildInput>& inputs);
Result<std::shared_ptr<const ScalarIndex>> OpenBTree(const io::FileSystemPtr& fs,
                                                     const std::string& dir,
                                                     const array::DataTypePtr& column_type);
/// BITMAP, or with `label_list` LABEL_LIST (keys are the list items).
Result<std::vector<WrittenFile>> BuildBitmap(const io::FileSystemPtr& fs, const std::string& dir,
                                             bool label_list, const array::DataTypePtr& column_type,
                                             const std::vector<BuildInput>& inputs);
/// BITMAP or LABEL_LIST from entries (one key per entry; for LABEL_LIST the items).
Result<std::vector<WrittenFile>> BuildBitmapEntries(const io::FileSystemPtr& fs,
                                                    const std::string& dir, bool label_list,
                                                    const array::DataTypePtr& key_type,
                                                    const IndexEntries& entries);
Result<std::shared_ptr<const ScalarIndex>> OpenBitmap(const io::FileSystemPtr& fs,
                                                      const std::string& dir, bool label_list,
                                                      const array::DataTypePtr& column_type);

/// The key of row `i` of `v` (which must be valid there).
Key KeyAt(const expr::Vec& v, int64_t i);
/// Compare row `i` of `v` with `key` (row valid), as CompareKeys.
int CompareAt(const expr::Vec& v, int64_t i, const Key& key);
/// <0, 0, >0 as `a` sorts before, with or after `b`; NaN sorts above every number (as Lance's
/// total order).
int CompareDoubles(double a, double b);
/// Compare rows `i` and `j` of `v` (both valid).
int CompareRows(const expr::Vec& v, int64_t i, int64_t j);

/// Open `dir/name` with the format reader.
Result<std::unique_ptr<format::FileReader>> OpenIndexFile(const io::FileSystemPtr& fs,
                                                          const std::string& dir,
                                                          const std::string& name);
/// Write `batches` (one schema) to `dir/name` with schema metadata `metadata` and extra global
/// buffers `buffers` (numbered from 1); with `page_rows`, disk pages of at most that many rows
/// (so that a read of one such range decodes one small page).
Result<WrittenFile> WriteIndexFile(const io::FileSystemPtr& fs, const std::string& dir,
                                   const std::string& name, const array::SchemaPtr& schema,
                                   const std::vector<array::RecordBatchPtr>& batches,
                                   const array::KeyValueMetadata& metadata,
                                   const std::vector<std::string>& buffers = {},
                                   int64_t page_rows = 0);

}  // namespace lancedb::index::scalar
