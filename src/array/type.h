// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Arrow-compatible logical types, fields and schemas. Types are immutable and shared
// (`DataTypePtr` = shared_ptr<const DataType>); compare them with Equals(), never by pointer.
// Thread-safety: immutable.

#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lancedb/status.h"

namespace lancedb::array {

enum class TypeId : uint8_t {
  kNull,
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat16,
  kFloat32,
  kFloat64,
  kString,       // utf8, int32 offsets
  kLargeString,  // utf8, int64 offsets
  kBinary,
  kLargeBinary,
  kFixedSizeBinary,
  kDate32,     // days since epoch, int32
  kDate64,     // milliseconds since epoch, int64
  kTimestamp,  // int64 in unit, optional timezone
  kTime32,     // seconds or milliseconds, int32
  kTime64,     // microseconds or nanoseconds, int64
  kDuration,   // int64 in unit
  kDecimal128,
  kList,
  kLargeList,
  kFixedSizeList,
  kStruct,
  kDictionary,  // integer indices into a dictionary of values (Arrow dictionary encoding)
};

enum class TimeUnit : uint8_t { kSecond, kMilli, kMicro, kNano };

class DataType;
class Field;
class Schema;
using DataTypePtr = std::shared_ptr<const DataType>;
using FieldPtr = std::shared_ptr<const Field>;
using SchemaPtr = std::shared_ptr<const Schema>;

/// Ordered key/value metadata, as Arrow keeps it (keys unique; order preserved).
using KeyValueMetadata = std::vector<std::pair<std::string, std::string>>;

/// A logical type. Construct with the factory functions below.
class DataType {
 public:
  TypeId id() const { return id_; }
  /// Width in bits of one fixed-width value (1 for bool, 0 for null); -1 if not fixed width.
  int bit_width() const;
  /// Width in bytes of one fixed-width value; -1 for bool and variable width types.
  int byte_width() const;
  /// Time unit of timestamp, time32, time64 and duration.
  TimeUnit unit() const { return unit_; }
  /// Timezone of a timestamp ("" for none).
  const std::string& timezone() const { return timezone_; }
  /// Width of fixed_size_binary, list size of fixed_size_list.
  int32_t fixed_size() const { return fixed_size_; }
  int32_t precision() const { return precision_; }
  int32_t scale() const { return scale_; }
  /// Children: the item field of list/large_list/fixed_size_list, the members of a struct.
  const std::vector<FieldPtr>& fields() const { return fields_; }
  /// REQUIRES: a list-like type. The item field.
  const FieldPtr& value_field() const { return fields_[0]; }
  /// REQUIRES: a list-like or dictionary type. The item type (list-like) or the type of the
  /// dictionary values (dictionary).
  const DataTypePtr& value_type() const;
  /// REQUIRES: a dictionary type. The integer type of the indices.
  const DataTypePtr& index_type() const { return index_type_; }
  /// Dictionary types: whether the order of the dictionary values is meaningful.
  bool ordered() const { return ordered_; }

  bool is_primitive() const;  // fixed width and not nested: bool, ints, floats, temporal, ...
  bool is_integer() const;
  bool is_floating() const;
  bool is_binary_like() const;  // string, large_string, binary, large_binary
  bool is_list_like() const;    // list, large_list, fixed_size_list
  bool is_nested() const;       // list-like or struct
  bool is_dictionary() const { return id_ == TypeId::kDictionary; }
  bool has_large_offsets() const;  // large_string, large_binary, large_list

  bool Equals(const DataType& other, bool check_metadata = false) const;
  /// Arrow-style name: "int32", "timestamp[us, tz=UTC]", "fixed_size_list<item: float>[4]" ...
  std::string ToString() const;

  // Used by the factories only.
  DataType(TypeId id, TimeUnit unit, std::string timezone, int32_t fixed_size, int32_t precision,
           int32_t scale, std::vector<FieldPtr> fields);
  DataType(DataTypePtr index_type, DataTypePtr value_type, bool ordered);

 private:
  TypeId id_;
  TimeUnit unit_ = TimeUnit::kSecond;
  std::string timezone_;
  int32_t fixed_size_ = 0;
  int32_t precision_ = 0;
  int32_t scale_ = 0;
  std::vector<FieldPtr> fields_;
  DataTypePtr index_type_;        // dictionary only
  DataTypePtr dictionary_value_;  // dictionary only
  bool ordered_ = false;
};

DataTypePtr null();
DataTypePtr boolean();
DataTypePtr int8();
DataTypePtr int16();
DataTypePtr int32();
DataTypePtr int64();
DataTypePtr uint8();
DataTypePtr uint16();
DataTypePtr uint32();
DataTypePtr uint64();
DataTypePtr float16();
DataTypePtr float32();
DataTypePtr float64();
DataTypePtr utf8();
DataTypePtr large_utf8();
DataTypePtr binary();
DataTypePtr large_binary();
DataTypePtr fixed_size_binary(int32_t byte_width);
DataTypePtr date32();
DataTypePtr date64();
DataTypePtr timestamp(TimeUnit unit, std::string timezone = "");
DataTypePtr time32(TimeUnit unit);
DataTypePtr time64(TimeUnit unit);
DataTypePtr duration(TimeUnit unit);
DataTypePtr decimal128(int32_t precision, int32_t scale);
/// list<item: value_type> with a nullable child named "item".
DataTypePtr list(DataTypePtr value_type);
DataTypePtr list(FieldPtr value_field);
DataTypePtr large_list(DataTypePtr value_type);
DataTypePtr large_list(FieldPtr value_field);
DataTypePtr fixed_size_list(DataTypePtr value_type, int32_t list_size);
DataTypePtr fixed_size_list(FieldPtr value_field, int32_t list_size);
DataTypePtr struct_(std::vector<FieldPtr> fields);
/// dictionary<values=value_type, indices=index_type>. REQUIRES: an integer index type (check
/// with IsValidDictionaryIndexType at API boundaries).
DataTypePtr dictionary(DataTypePtr index_type, DataTypePtr value_type, bool ordered = false);
/// Whether `type` can index a dictionary: int8/16/32/64, uint8/16/32/64.
inline bool IsValidDictionaryIndexType(const DataType& type) { return type.is_integer(); }

/// A named, typed column slot with nullability and metadata.
class Field {
 public:
  Field(std::string name, DataTypePtr type, bool nullable = true, KeyValueMetadata metadata = {})
      : name_(std::move(name)),
        type_(std::move(type)),
        nullable_(nullable),
        metadata_(std::move(metadata)) {}

  const std::string& name() const { return name_; }
  const DataTypePtr& type() const { return type_; }
  bool nullable() const { return nullable_; }
  const KeyValueMetadata& metadata() const { return metadata_; }

  FieldPtr WithName(std::string name) const;
  FieldPtr WithType(DataTypePtr type) const;
  FieldPtr WithNullable(bool nullable) const;
  FieldPtr WithMetadata(KeyValueMetadata metadata) const;

  bool Equals(const Field& other, bool check_metadata = false) const;
  std::string ToString() const;

 private:
  std::string name_;
  DataTypePtr type_;
  bool nullable_;
  KeyValueMetadata metadata_;
};

FieldPtr field(std::string name, DataTypePtr type, bool nullable = true,
               KeyValueMetadata metadata = {});

/// An ordered list of top-level fields plus schema metadata.
class Schema {
 public:
  explicit Schema(std::vector<FieldPtr> fields, KeyValueMetadata metadata = {})
      : fields_(std::move(fields)), metadata_(std::move(metadata)) {}

  int num_fields() const { return static_cast<int>(fields_.size()); }
  const FieldPtr& field(int i) const { return fields_[i]; }
  const std::vector<FieldPtr>& fields() const { return fields_; }
  const KeyValueMetadata& metadata() const { return metadata_; }
  /// Index of the top-level field named `name`, or -1.
  int GetFieldIndex(std::string_view name) const;
  /// The field named `name`, or NotFound naming it and listing the available columns.
  Result<FieldPtr> GetFieldByName(std::string_view name) const;
  std::vector<std::string> field_names() const;

  SchemaPtr WithMetadata(KeyValueMetadata metadata) const;
  bool Equals(const Schema& other, bool check_metadata = false) const;
  std::string ToString() const;

 private:
  std::vector<FieldPtr> fields_;
  KeyValueMetadata metadata_;
};

SchemaPtr schema(std::vector<FieldPtr> fields, KeyValueMetadata metadata = {});

/// Look up a key in metadata.
std::optional<std::string> GetMetadata(const KeyValueMetadata& metadata, std::string_view key);

/// The field metadata keys naming an Arrow extension type and its serialized parameters.
inline constexpr std::string_view kExtensionNameKey = "ARROW:extension:name";
inline constexpr std::string_view kExtensionMetadataKey = "ARROW:extension:metadata";
/// Lance's bfloat16 extension type (pylance's `lance.arrow.BFloat16Type`): fixed_size_binary(2)
/// holding the upper 16 bits of a float32, little-endian.
inline constexpr std::string_view kBFloat16ExtensionName = "lance.bfloat16";

/// Whether `field` holds bfloat16 values: fixed_size_binary(2) named lance.bfloat16.
bool IsBFloat16Field(const Field& field);
/// A field of bfloat16 values (the metadata pyarrow needs to rebuild the extension type).
FieldPtr BFloat16Field(std::string name, bool nullable = true);

}  // namespace lancedb::array
