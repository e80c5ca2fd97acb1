// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Physical layouts of the logical types (which buffers and children an array carries), shared
// by the array kernels, the C Data Interface bridge and IPC. See array.h for the buffer lists.

#pragma once

#include <cstdint>
#include <cstring>

#include "array/type.h"

namespace lancedb::array {

/// The physical shape of an array of some type.
enum class Layout : uint8_t {
  kNull,           // no buffers
  kBool,           // validity, bit-packed values
  kFixed,          // validity, values of byte_width() bytes
  kBinary,         // validity, offsets, bytes
  kList,           // validity, offsets; one child
  kFixedSizeList,  // validity; one child
  kStruct,         // validity; one child per field
  kDictionary,     // validity, indices of index_type(); ArrayData::dictionary holds the values
};

/// Return the layout of `type`.
inline Layout GetLayout(const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull:
      return Layout::kNull;
    case TypeId::kBool:
      return Layout::kBool;
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      return Layout::kBinary;
    case TypeId::kList:
    case TypeId::kLargeList:
      return Layout::kList;
    case TypeId::kFixedSizeList:
      return Layout::kFixedSizeList;
    case TypeId::kStruct:
      return Layout::kStruct;
    case TypeId::kDictionary:
      return Layout::kDictionary;
    default:
      return Layout::kFixed;
  }
}

/// Number of buffers (validity included) an array of `layout` has.
inline int NumBuffers(Layout layout) {
  switch (layout) {
    case Layout::kNull:
      return 0;
    case Layout::kBool:
    case Layout::kFixed:
    case Layout::kList:
    case Layout::kDictionary:
      return 2;
    case Layout::kBinary:
      return 3;
    case Layout::kFixedSizeList:
    case Layout::kStruct:
      return 1;
  }
  return 0;
}

/// Width in bytes of one offset of a binary-like or list type (4 or 8).
inline int OffsetWidth(const DataType& type) { return type.has_large_offsets() ? 8 : 4; }

}  // namespace lancedb::array
