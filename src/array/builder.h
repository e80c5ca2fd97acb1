// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Convenience constructors for arrays from C++ values (tests, the demo, conversions).
// A `valid` vector, when non-empty, must have one entry per value (false = null); an empty
// `valid` means no nulls. Null slots still occupy a (zeroed) value slot.

#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "array/array.h"

namespace lancedb::array {

/// Build a validity bitmap (nullptr when `valid` is empty or all true).
BufferPtr MakeValidityBitmap(const std::vector<bool>& valid);

/// A fixed-width array of `type` (ints, floats, temporal; T must match the physical width).
template <typename T>
ArrayPtr MakePrimitive(DataTypePtr type, const std::vector<T>& values,
                       const std::vector<bool>& valid = {}) {
  return ArrayData::Make(std::move(type), static_cast<int64_t>(values.size()),
                         {MakeValidityBitmap(valid), Buffer::FromVector(values)});
}

ArrayPtr MakeBool(const std::vector<bool>& values, const std::vector<bool>& valid = {});

/// utf8/large_utf8/binary/large_binary from optional strings (nullopt = null).
ArrayPtr MakeBinaryLike(DataTypePtr type, const std::vector<std::optional<std::string>>& values);
inline ArrayPtr MakeString(const std::vector<std::optional<std::string>>& values) {
  return MakeBinaryLike(utf8(), values);
}
/// fixed_size_binary(n); each present value must have n bytes.
ArrayPtr MakeFixedSizeBinary(int32_t byte_width,
                             const std::vector<std::optional<std::string>>& values);

/// list/large_list from offsets (size = rows + 1) over `child`.
ArrayPtr MakeList(DataTypePtr list_type, const std::vector<int64_t>& offsets, ArrayPtr child,
                  const std::vector<bool>& valid = {});
/// fixed_size_list over `child` (child length = rows * list_size).
ArrayPtr MakeFixedSizeList(DataTypePtr list_type, ArrayPtr child,
                           const std::vector<bool>& valid = {});
ArrayPtr MakeStruct(DataTypePtr struct_type, std::vector<ArrayPtr> children,
                    const std::vector<bool>& valid = {});
/// A dictionary array of `dict_type`: `indices` (stored at the index type's width; null slots
/// are stored as given) into `dictionary` (of the value type).
ArrayPtr MakeDictionary(DataTypePtr dict_type, const std::vector<int64_t>& indices,
                        ArrayPtr dictionary, const std::vector<bool>& valid = {});

}  // namespace lancedb::array
