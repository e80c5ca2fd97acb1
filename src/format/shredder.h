// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Shredder: turns rows of a top-level Arrow array into the items of one leaf column
// (repetition levels, level codes and dense values; see leaf_data.h and lance-format.md §2.3).
// Repetition: 0 continues the current list; otherwise the level of the outermost list that
// starts at this item (max_rep for a new row). Null and empty lists add an item with no value;
// null structs above the first list add an item with a (zeroed) value slot.
// Thread-safety: externally synchronized; holds a reference to the array it shreds.

#pragma once

#include <vector>

#include "array/array.h"
#include "format/lance_schema.h"
#include "format/leaf_data.h"

namespace lancedb::format {

/// The leaf columns of `schema`, depth-first (the column order of 2.1+ files).
Result<std::vector<LeafPath>> BuildLeafPaths(const LanceSchema& schema);

/// Index of the top-level field each leaf path belongs to.
std::vector<int> LeafTopLevelIndex(const LanceSchema& schema);

class Shredder {
 public:
  /// REQUIRES: `top` has the type the path was built from.
  Shredder(const LeafPath& path, const array::ArrayData& top);
  /// As the constructor; a dictionary leaf is shredded through its decoded values, and its
  /// dictionary is added to LeafItems::dictionaries of the items it appends to.
  static Result<Shredder> Make(const LeafPath& path, const array::ArrayData& top);

  /// Append row `row` (logical index into the top-level array) to `out`.
  void AppendRow(int64_t row, LeafItems* out);
  /// Append rows [begin, end); a bulk path for top-level primitive and string columns.
  void AppendRows(int64_t begin, int64_t end, LeafItems* out);

 private:
  void Visit(int d, int64_t index, LeafItems* out);
  void EmitAbsent(int d, int64_t index, bool empty, LeafItems* out);
  void EmitItem(uint16_t code, LeafItems* out);
  void AppendValue(int64_t index, LeafItems* out) const;

  const LeafPath& path_;
  std::vector<const array::ArrayData*> arrays_;  // one per step
  uint16_t pending_rep_ = 0;
  array::ArrayPtr decoded_leaf_;  // dictionary leaves: the plain values (arrays_.back())
  array::ArrayPtr dictionary_;    // dictionary leaves: the leaf's dictionary
};

}  // namespace lancedb::format
