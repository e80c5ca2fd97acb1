// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Vec: the evaluator's column of values of one ValueKind, laid out for tight loops (one byte
// per boolean and per validity flag, int64/double values, string views). Strings either view
// Arrow buffers kept alive by `keep` or own their bytes in `store`.
// Thread-safety: externally synchronized.

#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "array/array.h"
#include "expr/bound.h"

namespace lancedb::expr {

struct Vec {
  ValueKind kind = ValueKind::kNull;
  int64_t length = 0;
  /// One flag per row (1 = valid); empty means every row is valid.
  std::vector<uint8_t> valid;
  std::vector<int64_t> ints;  // kInt, kDate, kTimestamp, kTime, kDuration
  /// kInt: `ints` hold the bits of uint64 values (a uint64 column or literal).
  bool is_unsigned = false;
  std::vector<double> floats;             // kFloat
  std::vector<uint8_t> bools;             // kBool (0/1)
  std::vector<std::string_view> strings;  // kString
  /// kList / kStruct from a column: the Arrow array.
  array::ArrayPtr array;
  /// kList built from an array literal: one Vec per element, each of `length` rows.
  std::vector<Vec> items;
  std::shared_ptr<std::deque<std::string>> store;
  std::vector<array::ArrayPtr> keep;

  bool IsValid(int64_t i) const { return valid.empty() || valid[static_cast<size_t>(i)] != 0; }
  bool AllValid() const { return valid.empty(); }
  /// Make `valid` explicit (all ones) so it can be edited.
  void MaterializeValidity() {
    if (valid.empty()) valid.assign(static_cast<size_t>(length), 1);
  }
  /// Keep a computed string alive and return a view of it.
  std::string_view Own(std::string s) {
    if (!store) store = std::make_shared<std::deque<std::string>>();
    store->push_back(std::move(s));
    return store->back();
  }
};

/// A Vec of `length` rows, all NULL, of `kind`.
Vec NullVec(ValueKind kind, int64_t length);
/// Convert an Arrow array to the evaluator's form for `kind` (see KindOf).
Result<Vec> FromArray(const array::ArrayPtr& array, ValueKind kind);
/// Convert between kinds with SQL CAST semantics (errors for unparsable strings).
Result<Vec> CastVec(Vec in, ValueKind to);
/// Build an Arrow array of `type` from `v` (narrowing integers with a range check).
Result<array::ArrayPtr> ToArray(const Vec& v, const array::DataTypePtr& type);
/// The member `name` of a struct array, with the parent's nulls applied.
Result<array::ArrayPtr> StructField(const array::ArrayPtr& parent, const std::string& name);

}  // namespace lancedb::expr
