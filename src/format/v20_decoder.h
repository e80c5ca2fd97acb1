// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Decoding of file format 2.0 page encodings (lance-format.md §2.2): the `ArrayEncoding` tree
// (Flat with optional zstd/lz4 block compression, Nullable, Binary with null adjustment,
// FixedSizeList, Dictionary, FixedSizeBinary, Fsst, FastLanes BitpackedForNonNeg, and the
// offsets of List pages; the legacy signed Bitpacked is NotSupported). A page decodes
// into an Arrow array of the field's type (dictionaries are materialized). Every buffer access
// is bounds-checked: bad bytes give Corruption, encodings outside this set NotSupported; the
// caller adds the file, column and page to the message.
// Thread-safety: stateless functions.

#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "array/array.h"
#include "common/buffer.h"
#include "format/proto/encodings_v2_0.pb.h"

namespace lancedb::format {

namespace pb20 = ::lance::encodings;

/// Resolves a buffer reference of a 2.0 encoding (page, column or file buffer) to its bytes.
using V20BufferSource = std::function<Result<BufferPtr>(const pb20::Buffer&)>;

/// Decode `num_values` values of `type` from a 2.0 page encoding.
Result<array::ArrayPtr> DecodeV20Array(const pb20::ArrayEncoding& encoding,
                                       const array::DataTypePtr& type, int64_t num_values,
                                       const V20BufferSource& buffers);

/// The first `num_bytes` bytes of a byte buffer encoding (Flat(8), possibly compressed).
Result<BufferPtr> DecodeV20Bytes(const pb20::ArrayEncoding& encoding, uint64_t num_bytes,
                                 const V20BufferSource& buffers);

/// The decoded offsets page of a 2.0 list column: list i spans page items
/// [i == 0 ? 0 : ends[i-1], ends[i]) and is null when valid[i] == 0.
struct V20ListPage {
  std::vector<uint64_t> ends;
  std::vector<uint8_t> valid;
  /// Items of the item column that belong to this page.
  uint64_t num_items = 0;
};

/// Decode the offsets of a 2.0 `List` page of `num_rows` lists.
Result<V20ListPage> DecodeV20ListOffsets(const pb20::List& list, int64_t num_rows,
                                         const V20BufferSource& buffers);

/// Name of a 2.0 array encoding, for messages ("flat", "bitpacked", ...).
std::string V20EncodingName(const pb20::ArrayEncoding& encoding);

}  // namespace lancedb::format
