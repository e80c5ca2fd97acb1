// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The file names an IVF index's directory holds, and building the Arrow columns of an index
// file from plain value arrays: shared by the readers and writers of lancedb-cpp's own index
// layout (ivf_persist_*.cc) and of Lance's (lance_ivf_*.cc), which use the same two names.
#pragma once

#include <cstdint>

#include "array/array.h"
#include "array/builder.h"

namespace lancedb::index::vector {

/// The IVF index file (centroids and partition offsets, or the partitions themselves).
inline constexpr char kIndexFile[] = "index.idx";
/// The quantized vectors' storage file of an IVF index.
inline constexpr char kAuxiliaryFile[] = "auxiliary.idx";

/// A column of `n` non-null values of `type` (a primitive type whose C type is T), copied.
template <typename T>
array::ArrayPtr PrimitiveColumn(const array::DataTypePtr& type, const T* values, int64_t n) {
  return array::ArrayData::Make(
      type, n, {nullptr, Buffer::Copy(values, n * static_cast<int64_t>(sizeof(T)))});
}

/// A fixed_size_list<item, width> column of `n` rows over `n * width` values, copied.
template <typename T>
array::ArrayPtr FixedListColumn(const array::DataTypePtr& item, const T* values, int64_t n,
                                int32_t width) {
  return array::MakeFixedSizeList(array::fixed_size_list(item, width),
                                  PrimitiveColumn(item, values, n * width));
}

}  // namespace lancedb::index::vector
