// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The in-memory form of one leaf column between Arrow arrays and 2.1/2.2 pages
// (lance-format.md §2.3): the structural path from the top-level field to the leaf, the items
// (one repetition level and one "level code" per item) and the dense visible values.
//
// Level codes are page-independent: 0 means "valid leaf value"; otherwise the code is
// 1 + 2 * layer + (1 if the list at that layer is empty, 0 if the layer is null), where layers
// are numbered from the leaf (0) outwards. Pages translate codes to and from their own
// definition levels, which depend on the layers present in that page.
// Thread-safety: plain values, externally synchronized.

#pragma once

#include <cstdint>
#include <vector>

#include "array/array.h"
#include "array/type.h"
#include "common/buffer.h"
#include "format/proto/encodings_v2_1.pb.h"

namespace lancedb::format {

/// One structural step on the path from a top-level field down to a leaf.
enum class StepKind : uint8_t { kStruct, kList, kLeaf };

/// The path of one leaf column. Steps are listed outer to inner; the last one is the leaf.
struct LeafPath {
  int32_t field_id = -1;
  std::vector<StepKind> steps;
  /// For each non-leaf step, the index of the child followed (struct member; 0 for lists).
  std::vector<int> child_index;
  /// Whether the field of each step is declared nullable.
  std::vector<bool> nullable;
  array::DataTypePtr leaf_type;
  /// Number of list steps (the highest repetition level).
  int max_rep = 0;
  /// For the descriptor leaf of a blob column: its BlobEncoding (format/blob.h); 0 otherwise.
  uint8_t blob_encoding = 0;

  int depth() const { return static_cast<int>(steps.size()); }
  /// Layer number of the step at `depth` (0 = leaf).
  int LayerOf(int d) const { return depth() - 1 - d; }
  /// Repetition level of the list at step `d`: the outermost list has max_rep.
  int RepLevelOf(int d) const;
  /// True if any step from `d` (inclusive) down to the leaf is a list.
  bool HasListAtOrBelow(int d) const;
};

inline constexpr uint16_t NullCode(int layer) { return static_cast<uint16_t>(1 + 2 * layer); }
inline constexpr uint16_t EmptyCode(int layer) { return static_cast<uint16_t>(2 + 2 * layer); }
inline constexpr int CodeLayer(uint16_t code) { return (code - 1) / 2; }
inline constexpr bool CodeIsEmpty(uint16_t code) { return code != 0 && (code - 1) % 2 == 1; }

/// How leaf values are laid out.
enum class ValueKind : uint8_t {
  kNone,      // the null type: no value bytes
  kFixed,     // `bits_per_value` bits per value (bit-packed LSB-first when not a byte multiple)
  kVariable,  // offsets + bytes
};

/// Dense leaf values: one slot per visible item (null slots hold zeros or empty strings).
struct LeafValues {
  ValueKind kind = ValueKind::kNone;
  int64_t bits_per_value = 0;  // fixed: total bits of one value (FSL: dim * item bits)
  int32_t fsl_dim = 0;         // > 0 for a fixed-size-list leaf
  int64_t item_bits = 0;       // FSL: bits of one item
  bool large_offsets = false;  // variable: 64-bit offsets on disk
  int64_t num_values = 0;
  std::vector<uint8_t> data;     // fixed: value bits/bytes; variable: concatenated bytes
  std::vector<int64_t> offsets;  // variable: num_values + 1 entries starting at 0
  /// FSL item validity, fsl_dim bits per value (LSB-first, 1 = valid); empty = all valid.
  std::vector<uint8_t> item_validity;
  int64_t max_value_bytes = 0;
  /// Fixed byte-aligned values held outside `data`, e.g. a zero-copy slice of a page buffer;
  /// when set, `data` is empty and `external` holds num_values * bits_per_value / 8 bytes.
  BufferPtr external;

  /// The fixed-width value bytes, wherever they are held.
  const uint8_t* value_bytes() const { return external ? external->data() : data.data(); }
  /// Move values held in `external` into `data` (before appending to them).
  void Materialize();
  /// Move fixed byte-aligned values from `data` into a shared `external` buffer (no copy), so
  /// that arrays and slices can share them. No-op for other layouts.
  void Share();
  void Clear();
  int64_t ByteSize() const;
  /// Append `count` values starting at value `start` of `other` (same layout).
  void AppendFrom(const LeafValues& other, int64_t start, int64_t count);
  /// Append a zero value (fixed) / an empty value (variable).
  void AppendNullSlot();
};

/// Items and values of a run of rows of one leaf column.
struct LeafItems {
  int64_t num_rows = 0;
  std::vector<uint16_t> rep;    // one per item; empty when the path has no list
  std::vector<uint16_t> codes;  // one per item
  LeafValues values;
  int64_t num_invisible = 0;  // items without a value slot (null or empty lists)
  /// Dictionary leaves: the dictionaries the values came from (arrays of the value type, in
  /// order, each once), which seed the dictionary the values are encoded with again. The values
  /// themselves are always held decoded.
  std::vector<array::ArrayPtr> dictionaries;

  int64_t num_items() const { return static_cast<int64_t>(codes.size()); }
  /// Add `dictionary` to `dictionaries` unless it is there already.
  void AddDictionary(const array::ArrayPtr& dictionary);
  void Clear();
};

/// Derive the value layout of a leaf type; NotSupported for types with no leaf encoding. A
/// dictionary leaf has the layout of its value type.
Status InitLeafValues(const array::DataType& leaf_type, LeafValues* values);

/// The values as an Arrow array of `type`, every slot valid. REQUIRES: the layout of `type`
/// (fixed width without fixed-size-list items, or variable width).
Result<array::ArrayPtr> LeafValuesToArray(const array::DataTypePtr& type, const LeafValues& values);

/// Append `count` bits of `src` starting at bit `src_offset` to a bit vector holding `*nbits`.
void AppendBits(const uint8_t* src, int64_t src_offset, int64_t count, std::vector<uint8_t>* dst,
                int64_t* nbits);

}  // namespace lancedb::format
