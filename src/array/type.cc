// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "array/type.h"

#include <string>

namespace lancedb::array {

DataType::DataType(TypeId id, TimeUnit unit, std::string timezone, int32_t fixed_size,
                   int32_t precision, int32_t scale, std::vector<FieldPtr> fields)
    : id_(id),
      unit_(unit),
      timezone_(std::move(timezone)),
      fixed_size_(fixed_size),
      precision_(precision),
      scale_(scale),
      fields_(std::move(fields)) {}

DataType::DataType(DataTypePtr index_type, DataTypePtr value_type, bool ordered)
    : id_(TypeId::kDictionary),
      index_type_(std::move(index_type)),
      dictionary_value_(std::move(value_type)),
      ordered_(ordered) {}

const DataTypePtr& DataType::value_type() const {
  return id_ == TypeId::kDictionary ? dictionary_value_ : fields_[0]->type();
}

int DataType::bit_width() const {
  switch (id_) {
    case TypeId::kNull:
      return 0;
    case TypeId::kBool:
      return 1;
    case TypeId::kInt8:
    case TypeId::kUInt8:
      return 8;
    case TypeId::kInt16:
    case TypeId::kUInt16:
    case TypeId::kFloat16:
      return 16;
    case TypeId::kInt32:
    case TypeId::kUInt32:
    case TypeId::kFloat32:
    case TypeId::kDate32:
    case TypeId::kTime32:
      return 32;
    case TypeId::kInt64:
    case TypeId::kUInt64:
    case TypeId::kFloat64:
    case TypeId::kDate64:
    case TypeId::kTimestamp:
    case TypeId::kTime64:
    case TypeId::kDuration:
      return 64;
    case TypeId::kDecimal128:
      return 128;
    case TypeId::kFixedSizeBinary:
      // Widths beyond 2^28 bytes have no bit width representable as int.
      return fixed_size_ <= (1 << 28) ? fixed_size_ * 8 : -1;
    default:
      return -1;
  }
}

int DataType::byte_width() const {
  if (id_ == TypeId::kBool) return -1;
  if (id_ == TypeId::kFixedSizeBinary) return fixed_size_;
  int bits = bit_width();
  return bits < 0 ? -1 : bits / 8;
}

bool DataType::is_primitive() const {
  return id_ != TypeId::kNull && bit_width() > 0 && !is_nested();
}

bool DataType::is_integer() const {
  switch (id_) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
      return true;
    default:
      return false;
  }
}

bool DataType::is_floating() const {
  return id_ == TypeId::kFloat16 || id_ == TypeId::kFloat32 || id_ == TypeId::kFloat64;
}

bool DataType::is_binary_like() const {
  return id_ == TypeId::kString || id_ == TypeId::kLargeString || id_ == TypeId::kBinary ||
         id_ == TypeId::kLargeBinary;
}

bool DataType::is_list_like() const {
  return id_ == TypeId::kList || id_ == TypeId::kLargeList || id_ == TypeId::kFixedSizeList;
}

bool DataType::is_nested() const { return is_list_like() || id_ == TypeId::kStruct; }

bool DataType::has_large_offsets() const {
  return id_ == TypeId::kLargeString || id_ == TypeId::kLargeBinary || id_ == TypeId::kLargeList;
}

bool DataType::Equals(const DataType& other, bool check_metadata) const {
  if (this == &other) return true;
  if (id_ != other.id_) return false;
  switch (id_) {
    case TypeId::kTimestamp:
      if (timezone_ != other.timezone_) return false;
      [[fallthrough]];
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kDuration:
      return unit_ == other.unit_;
    case TypeId::kFixedSizeBinary:
      return fixed_size_ == other.fixed_size_;
    case TypeId::kDecimal128:
      return precision_ == other.precision_ && scale_ == other.scale_;
    case TypeId::kDictionary:
      return ordered_ == other.ordered_ && index_type_->Equals(*other.index_type_) &&
             dictionary_value_->Equals(*other.dictionary_value_, check_metadata);
    case TypeId::kFixedSizeList:
      if (fixed_size_ != other.fixed_size_) return false;
      [[fallthrough]];
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kStruct:
      if (fields_.size() != other.fields_.size()) return false;
      for (size_t i = 0; i < fields_.size(); ++i) {
        if (!fields_[i]->Equals(*other.fields_[i], check_metadata)) return false;
      }
      return true;
    default:
      return true;
  }
}

namespace {

const char* UnitSuffix(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return "s";
    case TimeUnit::kMilli:
      return "ms";
    case TimeUnit::kMicro:
      return "us";
    case TimeUnit::kNano:
      return "ns";
  }
  return "?";
}

const char* SimpleName(TypeId id) {
  switch (id) {
    case TypeId::kNull:
      return "null";
    case TypeId::kBool:
      return "bool";
    case TypeId::kInt8:
      return "int8";
    case TypeId::kInt16:
      return "int16";
    case TypeId::kInt32:
      return "int32";
    case TypeId::kInt64:
      return "int64";
    case TypeId::kUInt8:
      return "uint8";
    case TypeId::kUInt16:
      return "uint16";
    case TypeId::kUInt32:
      return "uint32";
    case TypeId::kUInt64:
      return "uint64";
    case TypeId::kFloat16:
      return "halffloat";
    case TypeId::kFloat32:
      return "float";
    case TypeId::kFloat64:
      return "double";
    case TypeId::kString:
      return "string";
    case TypeId::kLargeString:
      return "large_string";
    case TypeId::kBinary:
      return "binary";
    case TypeId::kLargeBinary:
      return "large_binary";
    case TypeId::kDate32:
      return "date32[day]";
    case TypeId::kDate64:
      return "date64[ms]";
    default:
      return nullptr;
  }
}

}  // namespace

std::string DataType::ToString() const {
  if (const char* name = SimpleName(id_)) return name;
  switch (id_) {
    case TypeId::kFixedSizeBinary:
      return "fixed_size_binary[" + std::to_string(fixed_size_) + "]";
    case TypeId::kTimestamp: {
      std::string s = std::string("timestamp[") + UnitSuffix(unit_);
      if (!timezone_.empty()) s += ", tz=" + timezone_;
      return s + "]";
    }
    case TypeId::kTime32:
      return std::string("time32[") + UnitSuffix(unit_) + "]";
    case TypeId::kTime64:
      return std::string("time64[") + UnitSuffix(unit_) + "]";
    case TypeId::kDuration:
      return std::string("duration[") + UnitSuffix(unit_) + "]";
    case TypeId::kDecimal128:
      return "decimal128(" + std::to_string(precision_) + ", " + std::to_string(scale_) + ")";
    case TypeId::kList:
      return "list<" + fields_[0]->ToString() + ">";
    case TypeId::kLargeList:
      return "large_list<" + fields_[0]->ToString() + ">";
    case TypeId::kFixedSizeList:
      return "fixed_size_list<" + fields_[0]->ToString() + ">[" + std::to_string(fixed_size_) + "]";
    case TypeId::kStruct: {
      std::string s = "struct<";
      for (size_t i = 0; i < fields_.size(); ++i) {
        if (i > 0) s += ", ";
        s += fields_[i]->ToString();
      }
      return s + ">";
    }
    case TypeId::kDictionary:
      return "dictionary<values=" + dictionary_value_->ToString() +
             ", indices=" + index_type_->ToString() + ", ordered=" + (ordered_ ? "1" : "0") + ">";
    default:
      return "unknown";
  }
}

namespace {

DataTypePtr MakeType(TypeId id, TimeUnit unit = TimeUnit::kSecond, std::string tz = "",
                     int32_t fixed_size = 0, int32_t precision = 0, int32_t scale = 0,
                     std::vector<FieldPtr> fields = {}) {
  return std::make_shared<const DataType>(id, unit, std::move(tz), fixed_size, precision, scale,
                                          std::move(fields));
}

}  // namespace

#define LANCEDB_SINGLETON_TYPE(fn, id)             \
  DataTypePtr fn() {                               \
    static const DataTypePtr kType = MakeType(id); \
    return kType;                                  \
  }

LANCEDB_SINGLETON_TYPE(null, TypeId::kNull)
LANCEDB_SINGLETON_TYPE(boolean, TypeId::kBool)
LANCEDB_SINGLETON_TYPE(int8, TypeId::kInt8)
LANCEDB_SINGLETON_TYPE(int16, TypeId::kInt16)
LANCEDB_SINGLETON_TYPE(int32, TypeId::kInt32)
LANCEDB_SINGLETON_TYPE(int64, TypeId::kInt64)
LANCEDB_SINGLETON_TYPE(uint8, TypeId::kUInt8)
LANCEDB_SINGLETON_TYPE(uint16, TypeId::kUInt16)
LANCEDB_SINGLETON_TYPE(uint32, TypeId::kUInt32)
LANCEDB_SINGLETON_TYPE(uint64, TypeId::kUInt64)
LANCEDB_SINGLETON_TYPE(float16, TypeId::kFloat16)
LANCEDB_SINGLETON_TYPE(float32, TypeId::kFloat32)
LANCEDB_SINGLETON_TYPE(float64, TypeId::kFloat64)
LANCEDB_SINGLETON_TYPE(utf8, TypeId::kString)
LANCEDB_SINGLETON_TYPE(large_utf8, TypeId::kLargeString)
LANCEDB_SINGLETON_TYPE(binary, TypeId::kBinary)
LANCEDB_SINGLETON_TYPE(large_binary, TypeId::kLargeBinary)
LANCEDB_SINGLETON_TYPE(date32, TypeId::kDate32)
LANCEDB_SINGLETON_TYPE(date64, TypeId::kDate64)

#undef LANCEDB_SINGLETON_TYPE

DataTypePtr fixed_size_binary(int32_t byte_width) {
  return MakeType(TypeId::kFixedSizeBinary, TimeUnit::kSecond, "", byte_width);
}
DataTypePtr timestamp(TimeUnit unit, std::string timezone) {
  return MakeType(TypeId::kTimestamp, unit, std::move(timezone));
}
DataTypePtr time32(TimeUnit unit) { return MakeType(TypeId::kTime32, unit); }
DataTypePtr time64(TimeUnit unit) { return MakeType(TypeId::kTime64, unit); }
DataTypePtr duration(TimeUnit unit) { return MakeType(TypeId::kDuration, unit); }
DataTypePtr decimal128(int32_t precision, int32_t scale) {
  return MakeType(TypeId::kDecimal128, TimeUnit::kSecond, "", 0, precision, scale);
}
DataTypePtr list(DataTypePtr value_type) { return list(field("item", std::move(value_type))); }
DataTypePtr list(FieldPtr value_field) {
  return MakeType(TypeId::kList, TimeUnit::kSecond, "", 0, 0, 0, {std::move(value_field)});
}
DataTypePtr large_list(DataTypePtr value_type) {
  return large_list(field("item", std::move(value_type)));
}
DataTypePtr large_list(FieldPtr value_field) {
  return MakeType(TypeId::kLargeList, TimeUnit::kSecond, "", 0, 0, 0, {std::move(value_field)});
}
DataTypePtr fixed_size_list(DataTypePtr value_type, int32_t list_size) {
  return fixed_size_list(field("item", std::move(value_type)), list_size);
}
DataTypePtr fixed_size_list(FieldPtr value_field, int32_t list_size) {
  return MakeType(TypeId::kFixedSizeList, TimeUnit::kSecond, "", list_size, 0, 0,
                  {std::move(value_field)});
}
DataTypePtr struct_(std::vector<FieldPtr> fields) {
  return MakeType(TypeId::kStruct, TimeUnit::kSecond, "", 0, 0, 0, std::move(fields));
}

DataTypePtr dictionary(DataTypePtr index_type, DataTypePtr value_type, bool ordered) {
  return std::make_shared<const DataType>(std::move(index_type), std::move(value_type), ordered);
}

// ---- Field ----

FieldPtr Field::WithName(std::string name) const {
  return std::make_shared<const Field>(std::move(name), type_, nullable_, metadata_);
}
FieldPtr Field::WithType(DataTypePtr type) const {
  return std::make_shared<const Field>(name_, std::move(type), nullable_, metadata_);
}
FieldPtr Field::WithNullable(bool nullable) const {
  return std::make_shared<const Field>(name_, type_, nullable, metadata_);
}
FieldPtr Field::WithMetadata(KeyValueMetadata metadata) const {
  return std::make_shared<const Field>(name_, type_, nullable_, std::move(metadata));
}

bool Field::Equals(const Field& other, bool check_metadata) const {
  if (this == &other) return true;
  if (name_ != other.name_ || nullable_ != other.nullable_) return false;
  if (type_ == nullptr || other.type_ == nullptr) return type_ == other.type_;
  if (!type_->Equals(*other.type_, check_metadata)) return false;
  return !check_metadata || metadata_ == other.metadata_;
}

std::string Field::ToString() const {
  std::string s = name_ + ": " + (type_ ? type_->ToString() : "<no type>");
  if (!nullable_) s += " not null";
  return s;
}

FieldPtr field(std::string name, DataTypePtr type, bool nullable, KeyValueMetadata metadata) {
  return std::make_shared<const Field>(std::move(name), std::move(type), nullable,
                                       std::move(metadata));
}

// ---- Schema ----

int Schema::GetFieldIndex(std::string_view name) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i]->name() == name) return static_cast<int>(i);
  }
  return -1;
}

Result<FieldPtr> Schema::GetFieldByName(std::string_view name) const {
  int i = GetFieldIndex(name);
  if (i >= 0) return fields_[i];
  std::string msg = "Column '" + std::string(name) + "' not found; columns are: ";
  for (size_t j = 0; j < fields_.size(); ++j) {
    if (j > 0) msg += ", ";
    msg += fields_[j]->name();
  }
  return Status::NotFound(std::move(msg));
}

std::vector<std::string> Schema::field_names() const {
  std::vector<std::string> names;
  names.reserve(fields_.size());
  for (const auto& f : fields_) names.push_back(f->name());
  return names;
}

SchemaPtr Schema::WithMetadata(KeyValueMetadata metadata) const {
  return std::make_shared<const Schema>(fields_, std::move(metadata));
}

bool Schema::Equals(const Schema& other, bool check_metadata) const {
  if (this == &other) return true;
  if (fields_.size() != other.fields_.size()) return false;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (!fields_[i]->Equals(*other.fields_[i], check_metadata)) return false;
  }
  return !check_metadata || metadata_ == other.metadata_;
}

std::string Schema::ToString() const {
  std::string s;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (i > 0) s += "\n";
    s += fields_[i]->ToString();
  }
  return s;
}

SchemaPtr schema(std::vector<FieldPtr> fields, KeyValueMetadata metadata) {
  return std::make_shared<const Schema>(std::move(fields), std::move(metadata));
}

std::optional<std::string> GetMetadata(const KeyValueMetadata& metadata, std::string_view key) {
  for (const auto& [k, v] : metadata) {
    if (k == key) return v;
  }
  return std::nullopt;
}

bool IsBFloat16Field(const Field& field) {
  return field.type()->id() == TypeId::kFixedSizeBinary && field.type()->fixed_size() == 2 &&
         GetMetadata(field.metadata(), kExtensionNameKey) == kBFloat16ExtensionName;
}

FieldPtr BFloat16Field(std::string name, bool nullable) {
  return field(std::move(name), fixed_size_binary(2), nullable,
               {{std::string(kExtensionNameKey), std::string(kBFloat16ExtensionName)},
                {std::string(kExtensionMetadataKey), ""}});
}

}  // namespace lancedb::array
