// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// ArrayData: a column in the Arrow columnar layout, exactly as the Arrow C Data Interface
// describes it, so that import and export are zero-copy.
//
// Buffers per type (buffers[0] is always the validity bitmap, LSB-first, 1 = valid; it may be
// null when there are no nulls):
//   null                          : no buffers (buffers is empty)
//   bool                          : [validity, bit-packed values]
//   fixed width (ints, floats, temporal, decimal128, fixed_size_binary)
//                                 : [validity, values]
//   string / binary               : [validity, int32 offsets (length+1), bytes]
//   large_string / large_binary   : [validity, int64 offsets (length+1), bytes]
//   list / large_list             : [validity, int32|int64 offsets (length+1)], children[0]
//   fixed_size_list               : [validity], children[0] of length (offset+length)*size
//   struct                        : [validity], children[i] per member
//   dictionary                    : [validity, indices of the index type], `dictionary` holds
//                                   the values (its own array, with its own offset); a valid
//                                   row's value is dictionary[index]
// `offset` is a logical offset in elements applied to every buffer of this array (not to the
// children, which have their own offsets), as in Arrow.
// Thread-safety: immutable once shared (ArrayPtr is shared_ptr<const ArrayData>).

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "array/type.h"
#include "common/bit_util.h"
#include "common/buffer.h"

namespace lancedb::array {

struct ArrayData;
using ArrayPtr = std::shared_ptr<const ArrayData>;

struct ArrayData {
  DataTypePtr type;
  int64_t length = 0;
  int64_t null_count = 0;
  int64_t offset = 0;
  std::vector<BufferPtr> buffers;
  std::vector<ArrayPtr> children;
  /// Dictionary arrays only: the values the indices point into.
  ArrayPtr dictionary;

  static std::shared_ptr<ArrayData> Make(DataTypePtr type, int64_t length,
                                         std::vector<BufferPtr> buffers,
                                         std::vector<ArrayPtr> children = {},
                                         int64_t null_count = -1, int64_t offset = 0);

  bool IsNull(int64_t i) const {
    if (type->id() == TypeId::kNull) return true;
    const auto& v = buffers.empty() ? nullptr : buffers[0];
    return v != nullptr && !bit_util::GetBit(v->data(), offset + i);
  }
  bool IsValid(int64_t i) const { return !IsNull(i); }
  /// Typed pointer to buffer `index`, already advanced by `offset` elements of T.
  template <typename T>
  const T* GetValues(int index) const {
    return buffers[index] ? buffers[index]->data_as<T>() + offset : nullptr;
  }
  /// The bytes of string/binary element i (either offset width). REQUIRES: binary-like.
  std::string_view GetView(int64_t i) const;
  /// [start, end) of list element i in the child (list, large_list, fixed_size_list).
  std::pair<int64_t, int64_t> GetListRange(int64_t i) const;
};

/// Recount nulls from the validity bitmap (0 when there is none; length for the null type).
int64_t ComputeNullCount(const ArrayData& array);

/// Check the internal consistency of an array (buffer counts and sizes, offsets monotonic and in
/// bounds, children lengths, UTF-8 is NOT checked). Used on every array imported from outside.
Status ValidateArray(const ArrayData& array);

/// Zero-copy slice.
ArrayPtr Slice(const ArrayPtr& array, int64_t offset, int64_t length);

/// Concatenate arrays of equal type into one array with fresh buffers. Dictionary arrays keep
/// a dictionary they all share; otherwise the first one's dictionary is extended with the values
/// the others use (InvalidArgument when that outgrows the index type).
Result<ArrayPtr> Concatenate(const std::vector<ArrayPtr>& arrays);

/// Copy the rows at `indices` (each < array.length) into a new array (a dictionary array keeps
/// its dictionary).
Result<ArrayPtr> Take(const ArrayPtr& array, const std::vector<int64_t>& indices);

/// Logical equality: same type, length, validity and values (offsets may differ; dictionary
/// arrays compare the values their indices point at, not the indices).
bool ArrayEquals(const ArrayData& a, const ArrayData& b);

/// An all-null array of `type` and `length` (with real, zeroed buffers of the right shape).
ArrayPtr MakeNullArray(const DataTypePtr& type, int64_t length);

/// Human-readable rendering, for tests and the demo.
std::string ArrayToString(const ArrayData& array, int64_t max_items = 20);

/// A set of equal-length columns with a schema.
class RecordBatch {
 public:
  /// Validate that the columns match the schema's types and all have `num_rows` rows.
  static Result<std::shared_ptr<RecordBatch>> Make(SchemaPtr schema, std::vector<ArrayPtr> columns,
                                                   int64_t num_rows = -1);

  const SchemaPtr& schema() const { return schema_; }
  int64_t num_rows() const { return num_rows_; }
  int num_columns() const { return static_cast<int>(columns_.size()); }
  const ArrayPtr& column(int i) const { return columns_[i]; }
  const std::vector<ArrayPtr>& columns() const { return columns_; }
  /// The column named `name`, or nullptr.
  ArrayPtr GetColumnByName(std::string_view name) const;

  std::shared_ptr<RecordBatch> Slice(int64_t offset, int64_t length) const;
  /// Keep the named columns, in the order given.
  Result<std::shared_ptr<RecordBatch>> SelectColumns(const std::vector<std::string>& names) const;
  /// The batch as a non-null struct array.
  ArrayPtr ToStructArray() const;
  bool Equals(const RecordBatch& other, bool check_metadata = false) const;
  std::string ToString() const;

  RecordBatch(SchemaPtr schema, std::vector<ArrayPtr> columns, int64_t num_rows)
      : schema_(std::move(schema)), columns_(std::move(columns)), num_rows_(num_rows) {}

 private:
  SchemaPtr schema_;
  std::vector<ArrayPtr> columns_;
  int64_t num_rows_;
};

using RecordBatchPtr = std::shared_ptr<RecordBatch>;

/// Concatenate batches with equal schemas into one.
Result<RecordBatchPtr> ConcatenateBatches(const SchemaPtr& schema,
                                          const std::vector<RecordBatchPtr>& batches);

/// A pull-based stream of record batches of one schema. Externally synchronized.
class RecordBatchReader {
 public:
  virtual ~RecordBatchReader() = default;
  virtual SchemaPtr schema() const = 0;
  /// The next batch, or nullptr at the end of the stream.
  virtual Result<RecordBatchPtr> Next() = 0;
  /// Read every remaining batch.
  Result<std::vector<RecordBatchPtr>> ReadAll();
};

/// A reader over batches already in memory.
std::unique_ptr<RecordBatchReader> MakeVectorReader(SchemaPtr schema,
                                                    std::vector<RecordBatchPtr> batches);

}  // namespace lancedb::array
