// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Row addressing inside decoded leaf items: a run of decoded items (a whole page, or the chunks
// of a mini-block page that hold some rows) indexed by row, and the copy of whole rows out of
// it. Used by the file reader (sequential reads, takes) and by layout decoders that decode only
// the rows a take asks for.
// Thread-safety: plain values, externally synchronized; an indexed DecodedItems is immutable.

#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "format/leaf_data.h"

namespace lancedb::format {

/// Decoded items with the item and value index of every row start (lists only; without lists,
/// row i is item i and value i). Items before the first row start (the end of a row begun
/// before these items) belong to no row.
struct DecodedItems {
  LeafItems items;
  std::vector<int64_t> row_items;   // rows + 1 entries (lists only)
  std::vector<int64_t> row_values;  // rows + 1 entries (lists only)

  /// Index the row starts of `items` (rep == path.max_rep).
  void IndexRows(const LeafPath& path);
  /// Rows indexed (lists), or items (no lists).
  int64_t num_indexed_rows(const LeafPath& path) const;
};

/// Append rows [first, end) of `page` to `out` (same value layout).
/// REQUIRES: page.IndexRows() was called; end <= page.num_indexed_rows().
void AppendRows(const LeafPath& path, const DecodedItems& page, int64_t first, int64_t end,
                LeafItems* out);

/// Append `rows` (indices into `page`, ascending) to `out`, copying runs of consecutive rows at
/// once. REQUIRES: as AppendRows; rows are offset by `-base` first.
void AppendRowList(const LeafPath& path, const DecodedItems& page, std::span<const int64_t> rows,
                   int64_t base, LeafItems* out);

}  // namespace lancedb::format
