// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Translating stable row ids (lance-format.md §3: what `_rowid` holds on a table with feature
// flag 2) into row addresses ((fragment_id << 32) | offset), which deletes and takes need.
// Thread-safety: stateless.

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "table/dataset.h"
#include "table/manifest.h"
#include "table/proto/rowids.pb.h"

namespace lancedb::table {

/// Whether the dataset's rows have stable row ids.
bool UsesStableRowIds(const Dataset& dataset);

/// The row addresses of the rows with stable ids `ids`, in the same order. InvalidArgument
/// naming the first id that is not in this version. REQUIRES: UsesStableRowIds(dataset).
Result<std::vector<uint64_t>> RowIdsToAddresses(const Dataset& dataset,
                                                const std::vector<uint64_t>& ids);

/// One row-id segment holding `ids` (§3): a Range when contiguous, else a (sorted) array.
void EncodeRowIdSegment(const uint64_t* ids, size_t n, pb::U64Segment* segment);
/// A RowDatasetVersionSequence (serialized) of `versions`, one run per stretch of equal values.
std::string EncodeVersionRuns(const uint64_t* versions, size_t n);

}  // namespace lancedb::table
