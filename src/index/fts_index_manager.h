// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Full-text (inverted) indices of a table (index/fts/, docs/format/fts-index.md): building one
// over a string column and registering it in the manifest as LanceDB does, loading the
// segments a snapshot registers (LanceDB's as well as ours), rebuilding one over every fragment
// (optimize) and rewriting one for the rows a compaction moved.
// Thread-safety: the functions are thread-safe; loaded indices are immutable and cached
// process-wide by (table path, segment uuid).
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "index/fts/inverted_index.h"
#include "index/scalar_index_manager.h"
#include "lancedb/fts_query.h"
#include "lancedb/index.h"
#include "table/dataset.h"

namespace lancedb::index {

/// An FTS index segment of a snapshot, loaded.
struct FtsSegment {
  std::string name;
  std::string column;
  /// The fragments the segment covers that exist in the snapshot.
  std::set<uint64_t> fragments;
  std::shared_ptr<const fts::InvertedIndex> index;
};

/// The FTS segments of `dataset` (of columns that still exist), loaded.
Result<std::vector<FtsSegment>> LoadFtsIndices(const table::Dataset& dataset);

/// The analysis options of `config`, checked (InvalidArgument naming the bad option).
Result<fts::FtsParams> FtsParamsOf(const FtsIndexConfig& config);

/// The build parameters of FTS index `index_name`, or of the only FTS index on `column`
/// (exactly one of the two non-empty), from the metadata of its first segment. NotFound names
/// a column the schema lacks and lists the field paths; InvalidArgument when the column has no
/// FTS index or several, or when no index is named `index_name` or it is not an FTS index.
Result<fts::FtsParams> FindFtsIndexParams(const table::Dataset& dataset,
                                          const std::optional<std::string>& column,
                                          const std::optional<std::string>& index_name);

/// Build an FTS index on `column` (utf8, large_utf8 or a list of them) over every fragment and
/// commit it. InvalidArgument for a missing or non-string column or bad options; AlreadyExists
/// for an existing name without `options.replace`. Nothing is written on error.
Result<table::DatasetPtr> CreateFtsIndex(const table::DatasetPtr& dataset,
                                         const std::string& column, const FtsIndexConfig& config,
                                         const CreateIndexOptions& options);

/// Rebuild FTS index `name` over every fragment (the rows appended since it was built are
/// indexed, deleted ones leave the statistics). Returns `dataset` when it already covers all.
Result<table::DatasetPtr> OptimizeFtsIndex(const table::DatasetPtr& dataset,
                                           const std::string& name);

/// Rewrite FTS segment `meta` for a compaction (rows mapped through `map`, deleted rows
/// dropped); nullopt when `meta` is not an FTS index.
Result<std::optional<pb::IndexMetadata>> RemapFtsIndex(const table::Dataset& dataset,
                                                       const pb::IndexMetadata& meta,
                                                       const RowAddressMap& map,
                                                       const std::vector<uint64_t>& new_fragments);

}  // namespace lancedb::index
