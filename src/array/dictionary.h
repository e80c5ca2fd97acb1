// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Dictionary arrays (Arrow dictionary encoding): integer indices into an array of values.
// The kernels here build them from plain values, turn them back into plain values, and unify
// the dictionaries of several arrays (Concatenate and Take use this through array.h).
// Dictionary values are hashed by their bytes: the value type must have a fixed-width or
// binary-like layout (ints, floats, temporal, decimal, fixed_size_binary, strings, binary).
// Thread-safety: stateless functions; DictionaryMemo is externally synchronized.

#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "array/array.h"

namespace lancedb::array {

/// Wrap indices and values as a dictionary array of `type`. REQUIRES: a dictionary type,
/// `indices` of its index width covering offset + length rows, `dictionary` of its value type.
ArrayPtr MakeDictionaryArray(DataTypePtr type, int64_t length, BufferPtr validity,
                             BufferPtr indices, ArrayPtr dictionary, int64_t null_count = -1,
                             int64_t offset = 0);

/// The index stored at row `i` of a dictionary array (whatever its width; 0 in null rows with
/// zeroed slots). REQUIRES: i < length.
int64_t DictionaryIndex(const ArrayData& array, int64_t i);

/// Largest index `index_type` can hold (127 for int8, 255 for uint8, ...; 2^63-1 for 64 bits).
int64_t MaxDictionaryIndex(const DataType& index_type);

/// Whether dictionaries of `value_type` are supported (fixed-width or binary-like values).
bool IsSupportedDictionaryValueType(const DataType& value_type);

/// Check a dictionary type's index and value types; InvalidArgument or NotSupported naming it.
Status ValidateDictionaryType(const DataType& type);

/// The plain values of a dictionary array: an array of its value type, null where the index
/// is null or points at a null value.
Result<ArrayPtr> DictionaryDecode(const ArrayPtr& array);

/// Dictionary-encode plain `values` (of dict_type's value type) into a dictionary array of
/// `dict_type`. The dictionary starts with the valid values of `seeds` in order (arrays of the
/// value type; duplicates kept once), then the other values in order of first appearance; null
/// values get null indices. InvalidArgument when the dictionary outgrows the index type.
Result<ArrayPtr> DictionaryEncode(const ArrayPtr& values, const DataTypePtr& dict_type,
                                  const std::vector<ArrayPtr>& seeds = {});

/// Whether `a` and `b` are equal but for the `ordered` flag of dictionary types (at any depth).
/// Lance stores every dictionary as unordered, so writers accept ordered input for them.
bool EqualsIgnoringOrdered(const DataType& a, const DataType& b);

/// `array` relabelled as `type`, sharing its buffers. REQUIRES: EqualsIgnoringOrdered.
ArrayPtr Relabel(const ArrayPtr& array, const DataTypePtr& type);

/// Distinct dictionary values, keyed by their bytes, in insertion order. Holds views into the
/// arrays passed to GetOrInsert(), which must outlive it.
class DictionaryMemo {
 public:
  /// REQUIRES: IsSupportedDictionaryValueType(value_type).
  explicit DictionaryMemo(DataTypePtr value_type);
  /// The index of the valid value at row `i` of `values`, inserting it when new.
  int64_t GetOrInsert(const ArrayData& values, int64_t i);
  int64_t size() const { return static_cast<int64_t>(entries_.size()); }
  /// The values in index order, as a fresh array of the value type.
  Result<ArrayPtr> Finish() const;

 private:
  std::string_view Key(const ArrayData& values, int64_t i) const;

  DataTypePtr value_type_;
  int width_;  // bytes per value for fixed-width values, -1 for binary-like
  std::unordered_map<std::string_view, int64_t> index_;
  std::vector<std::pair<const ArrayData*, int64_t>> entries_;
};

}  // namespace lancedb::array
