// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Index management at the table layer: list, statistics, drop and incremental optimize of the
// indices registered in a snapshot's manifest (lancedb-api.md §1.7). Indices of other types
// (LanceDB's own, unknown type URLs) are listed by name and carried forward untouched.
// Thread-safety: the functions are thread-safe.
#pragma once

#include <string>
#include <vector>

#include "lancedb/index.h"
#include "table/dataset.h"

namespace lancedb::index {

/// List the indices of `dataset`, one entry per name (segments merged), ordered by name.
Result<std::vector<IndexInfo>> ListIndices(const table::Dataset& dataset);

/// Statistics of index `name`. NotFound when there is no such index.
Result<IndexStatistics> GetIndexStatistics(const table::Dataset& dataset, const std::string& name);

/// Load every segment of index `name` into the process-wide index caches the searches use
/// (LanceDB's prewarm_index): vector, scalar and FTS indices are opened once and kept; the
/// files of an index type lancedb-cpp does not search with are read through once (the
/// operating system keeps them cached). NotFound ("Lance index not found: name=...", LanceDB's
/// wording) when there is no such index.
Status PrewarmIndex(const table::Dataset& dataset, const std::string& name);

/// Remove every segment of index `name` in one CreateIndex commit (files are left for cleanup).
/// NotFound when there is no such index.
Result<table::DatasetPtr> DropIndex(const table::DatasetPtr& dataset, const std::string& name);

/// Add the rows of fragments not yet covered by vector index `name` to its partitions, using
/// the trained centroids and quantizer (no retraining), as a new segment that replaces the old
/// ones. Returns `dataset` unchanged when every fragment is covered. NotFound / NotSupported
/// (not a lancedb-cpp vector index).
Result<table::DatasetPtr> OptimizeVectorIndex(const table::DatasetPtr& dataset,
                                              const std::string& name,
                                              const CreateIndexOptions& options = {});

}  // namespace lancedb::index
