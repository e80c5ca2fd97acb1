// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Resident vector columns for exact search. A flat search reads every vector of the table for
// each query; decoding the data files each time costs several times the scan itself. Data files
// are immutable (their names are unique), so the decoded vector column of a data file is cached
// process-wide by (file path, field id) and shared by every snapshot that lists the file. The
// cache is bounded by bytes (a quarter of physical memory) and evicts the least recently used
// column; a column larger than the budget is read each time instead of cached.
// Thread-safety: internally synchronized; the cached arrays are immutable.

#pragma once

#include <cstdint>

#include "array/array.h"
#include "table/dataset.h"
#include "table/manifest.h"

namespace lancedb::db {

/// Return the top-level vector column `field_id` of `fragment` over all its physical rows
/// (deleted ones included), or null when no data file of the fragment holds the field (it
/// reads as nulls). Reads the data file once; later calls return the cached array.
Result<array::ArrayPtr> ResidentFragmentColumn(const table::Dataset& dataset,
                                               const table::pb::DataFragment& fragment,
                                               int32_t field_id);

/// Drop every cached column (tests).
void ClearResidentColumnCache();

/// Bytes held by the cache now.
int64_t ResidentColumnCacheBytes();

}  // namespace lancedb::db
