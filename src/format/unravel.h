// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Unraveling: rebuild Arrow validity and offsets for every structural step of a leaf path from
// its items (repetition levels + level codes), then assemble top-level arrays from the leaves
// of a field (struct validity and list offsets are taken from the field's first leaf; every
// leaf below a struct or list carries the same structure).
// Thread-safety: stateless functions.

#pragma once

#include <vector>

#include "array/array.h"
#include "format/lance_schema.h"
#include "format/leaf_data.h"

namespace lancedb::format {

/// Arrow structure of one step of a leaf path.
struct StepStructure {
  std::vector<uint8_t> validity;  // bitmap, LSB-first, 1 = valid
  int64_t length = 0;
  int64_t null_count = 0;
  std::vector<int64_t> offsets{0};  // list steps only
};

/// The unraveled form of one leaf column over a run of rows.
struct UnraveledLeaf {
  std::vector<StepStructure> steps;  // one per path step, outer to inner
  LeafValues values;
  /// Dictionary leaves: the dictionaries the values were decoded from (LeafItems).
  std::vector<array::ArrayPtr> dictionaries;
};

/// Rebuild the structure of `items` (which must hold whole rows). Corruption when the items
/// are inconsistent (e.g. more values than visible items).
Result<UnraveledLeaf> Unravel(const LeafPath& path, LeafItems items);

/// Assemble the Arrow array of a top-level field from its leaves (in leaf order).
Result<array::ArrayPtr> AssembleField(const array::DataTypePtr& type,
                                      const std::vector<const UnraveledLeaf*>& leaves);

}  // namespace lancedb::format
