// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Scalar indices of a table (BTREE, BITMAP, LABEL_LIST in Lance's layout, index/scalar/):
// building one over a column and registering it in the manifest as LanceDB does, loading the
// segments a snapshot registers (LanceDB's as well as ours), rebuilding one over the fragments
// it does not cover (optimize), and rewriting one for the row addresses a compaction moved.
// Thread-safety: the functions are thread-safe; loaded segments are immutable and cached
// process-wide by (table path, segment uuid).

#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "index/scalar/scalar_index.h"
#include "lancedb/index.h"
#include "table/dataset.h"
#include "table/manifest.h"

namespace lancedb::index {

namespace pb = ::lance::table;

/// A scalar index segment of a snapshot, loaded.
struct ScalarSegment {
  std::string name;
  std::string column;
  scalar::ScalarIndexType type = scalar::ScalarIndexType::kBTree;
  /// The fragments the segment covers that exist in the snapshot.
  std::set<uint64_t> fragments;
  std::shared_ptr<const scalar::ScalarIndex> index;
};

/// The scalar index segments of `dataset` (of columns that still exist), loaded.
Result<std::vector<ScalarSegment>> LoadScalarIndices(const table::Dataset& dataset);

/// Build a `type` index on `column` over every fragment and commit it (one CreateIndex).
/// InvalidArgument for a column that does not exist or whose type does not suit the index;
/// AlreadyExists for an existing name without `options.replace`. Nothing is written on error.
Result<table::DatasetPtr> CreateScalarIndex(const table::DatasetPtr& dataset,
                                            const std::string& column, scalar::ScalarIndexType type,
                                            const CreateIndexOptions& options);

/// Merge the rows of the fragments scalar index `name` does not cover into it: one new segment
/// (new uuid, the old one's name and dataset_version) replacing every segment of the index.
/// Returns `dataset` unchanged when every fragment is covered.
Result<table::DatasetPtr> OptimizeScalarIndex(const table::DatasetPtr& dataset,
                                              const std::string& name);

/// Where compaction moved each row: the new address of an old one, nullopt for a deleted row.
using RowAddressMap = std::function<std::optional<uint64_t>(uint64_t old_address)>;

/// Rewrite the scalar index segment `meta` of `dataset` for a compaction: row addresses mapped
/// through `map` (rows mapped to nothing dropped), fragment bitmap `new_fragments`. Returns the
/// new segment's metadata (new uuid, same name, fields, dataset_version and created_at), its
/// files written; nullopt when `meta` is not a scalar index lancedb-cpp rewrites.
Result<std::optional<pb::IndexMetadata>> RemapScalarIndex(
    const table::Dataset& dataset, const pb::IndexMetadata& meta, const RowAddressMap& map,
    const std::vector<uint64_t>& new_fragments);

}  // namespace lancedb::index
