// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Build an HNSW graph over a partition's exact vectors, inserting rows in arrival order.
// Thread-safety: the function is thread-safe (one graph per call).

#pragma once

#include <memory>

#include "index/vector/flat_storage.h"
#include "index/vector/hnsw_index.h"

namespace lancedb::index::vector {

/// Build the graph over every row of `vectors`, in row order. Deterministic given params.seed.
std::unique_ptr<HnswGraph> BuildHnsw(const FlatStorage& vectors, const HnswParams& params);

}  // namespace lancedb::index::vector
