// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Ordering rows by the values of one or more columns (the ORDER BY of a query), with the order
// DataFusion gives them, so that sorted results match LanceDB's:
//   - nulls go first or last as asked, whatever the direction;
//   - integers, dates, times, timestamps, durations and decimals by value; booleans false first;
//   - floats in IEEE 754 total order: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < NaN;
//   - strings and binaries byte by byte (a proper prefix first);
//   - lists (and fixed-size lists) element by element, a proper prefix first; structs member by
//     member; their elements and members are ordered with the key's direction and null
//     placement;
// and descending reverses every comparison of values, not the place of nulls.
// Thread-safety: stateless functions.

#pragma once

#include <cstdint>
#include <vector>

#include "array/array.h"

namespace lancedb::array {

/// One sort key: the values of a column (one per row) and how to order them.
struct SortKey {
  ArrayPtr values;
  bool ascending = true;
  bool nulls_first = false;
};

/// Whether values of `type` can be ordered: OK, or NotSupported naming the type.
Status CheckSortable(const DataTypePtr& type);

/// The row positions 0..n-1 ordered by `keys` (the first key first, the next ones breaking
/// ties); rows equal on every key keep their relative order (a stable sort). With `limit` >= 0
/// only the first `limit` positions are returned (a top-k, cheaper than a full sort).
/// REQUIRES: every key has the same length n. InvalidArgument for keys of different lengths;
/// NotSupported for a type CheckSortable rejects.
Result<std::vector<int64_t>> SortIndices(const std::vector<SortKey>& keys, int64_t limit = -1);

}  // namespace lancedb::array
