// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Translating stable row ids (lance-format.md §3: what `_rowid` holds on a table with feature
// flag 2) into row addresses ((fragment_id << 32) | offset), which deletes and takes need.
// Thread-safety: stateless.

#pragma once

#include <cstdint>
#include <vector>

#include "table/dataset.h"

namespace lancedb::table {

/// Whether the dataset's rows have stable row ids.
bool UsesStableRowIds(const Dataset& dataset);

/// The row addresses of the rows with stable ids `ids`, in the same order. InvalidArgument
/// naming the first id that is not in this version. REQUIRES: UsesStableRowIds(dataset).
Result<std::vector<uint64_t>> RowIdsToAddresses(const Dataset& dataset,
                                                const std::vector<uint64_t>& ids);

}  // namespace lancedb::table
