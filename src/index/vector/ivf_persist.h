// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Persist an IvfIndex as Lance files in one directory (`_indices/<uuid>/`) and load it back.
// The layout (format version 1) is documented in docs/format/vector-index.md:
//   index.idx      one row per partition: centroid, row range in auxiliary.idx, HNSW range
//                  and entry point; the parameters in schema metadata (lancedb_cpp:*)
//   quantizer.idx  PQ codebook / SQ bounds / RQ rotation (absent for FLAT)
//   auxiliary.idx  _rowid and the partition's codes, rows grouped by partition
//   hnsw.idx       HNSW sub-index only: one row per (node, level) with its neighbour list
// Thread-safety: the functions are thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "index/vector/ivf_index.h"
#include "io/file_system.h"

namespace lancedb::index::vector {

/// Parameters recorded with the files besides what the IvfIndex itself holds.
struct IvfFileParams {
  std::string index_type;  ///< LanceDB name, "IVF_PQ", ...
  std::optional<uint64_t> seed;
  size_t m = 20;  ///< HNSW
  size_t ef_construction = 300;
};

/// One file written, relative to the index directory.
struct IvfFile {
  std::string name;
  int64_t size_bytes = 0;
};

/// Write `index` into `dir`. Returns the files written. On error the files already written
/// are deleted.
Result<std::vector<IvfFile>> WriteIvfIndexFiles(const io::FileSystemPtr& fs, const std::string& dir,
                                                const IvfIndex& index, const IvfFileParams& params);

/// Load the index written by WriteIvfIndexFiles. `params`, when given, receives the recorded
/// parameters. Corruption naming the file for inconsistent content; NotSupported for a newer
/// format version.
Result<std::unique_ptr<IvfIndex>> ReadIvfIndexFiles(const io::FileSystemPtr& fs,
                                                    const std::string& dir,
                                                    IvfFileParams* params = nullptr);

/// Layout version of the files written.
inline constexpr int kIvfFormatVersion = 1;

}  // namespace lancedb::index::vector
