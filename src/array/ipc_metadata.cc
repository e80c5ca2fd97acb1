// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Schema <-> Arrow IPC flatbuffers (Arrow spec, "Schema message"; Schema.fbs in this folder).

#include <string>
#include <utility>

#include "array/ipc_internal.h"

namespace lancedb::array::ipc::internal {

namespace {

using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

fb::TimeUnit ToFbUnit(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return fb::TimeUnit::SECOND;
    case TimeUnit::kMilli:
      return fb::TimeUnit::MILLISECOND;
    case TimeUnit::kMicro:
      return fb::TimeUnit::MICROSECOND;
    case TimeUnit::kNano:
      return fb::TimeUnit::NANOSECOND;
  }
  return fb::TimeUnit::SECOND;
}

Result<TimeUnit> FromFbUnit(fb::TimeUnit unit) {
  switch (unit) {
    case fb::TimeUnit::SECOND:
      return TimeUnit::kSecond;
    case fb::TimeUnit::MILLISECOND:
      return TimeUnit::kMilli;
    case fb::TimeUnit::MICROSECOND:
      return TimeUnit::kMicro;
    case fb::TimeUnit::NANOSECOND:
      return TimeUnit::kNano;
  }
  return Status::Corruption("IPC schema: unknown time unit " +
                            std::to_string(static_cast<int>(unit)));
}

Offset<flatbuffers::Vector<Offset<fb::KeyValue>>> MetadataToFlatbuffer(
    FlatBufferBuilder& fbb, const KeyValueMetadata& metadata) {
  if (metadata.empty()) return 0;
  std::vector<Offset<fb::KeyValue>> entries;
  entries.reserve(metadata.size());
  for (const auto& [key, value] : metadata) {
    entries.push_back(fb::CreateKeyValue(fbb, fbb.CreateString(key), fbb.CreateString(value)));
  }
  return fbb.CreateVector(entries);
}

KeyValueMetadata MetadataFromFlatbuffer(const flatbuffers::Vector<Offset<fb::KeyValue>>* entries) {
  KeyValueMetadata metadata;
  if (entries == nullptr) return metadata;
  for (const fb::KeyValue* kv : *entries) {
    if (kv == nullptr) continue;
    metadata.emplace_back(kv->key() ? kv->key()->str() : std::string(),
                          kv->value() ? kv->value()->str() : std::string());
  }
  return metadata;
}

/// The type union member for `type` (children are serialized by the caller).
std::pair<fb::Type, Offset<void>> TypeToFlatbuffer(FlatBufferBuilder& fbb, const DataType& type) {
  auto int_type = [&](int bits, bool is_signed) {
    return std::make_pair(fb::Type::Int, fb::CreateInt(fbb, bits, is_signed).Union());
  };
  auto float_type = [&](fb::Precision precision) {
    return std::make_pair(fb::Type::FloatingPoint, fb::CreateFloatingPoint(fbb, precision).Union());
  };
  switch (type.id()) {
    case TypeId::kNull:
      return {fb::Type::Null, fb::CreateNull(fbb).Union()};
    case TypeId::kBool:
      return {fb::Type::Bool, fb::CreateBool(fbb).Union()};
    case TypeId::kInt8:
      return int_type(8, true);
    case TypeId::kInt16:
      return int_type(16, true);
    case TypeId::kInt32:
      return int_type(32, true);
    case TypeId::kInt64:
      return int_type(64, true);
    case TypeId::kUInt8:
      return int_type(8, false);
    case TypeId::kUInt16:
      return int_type(16, false);
    case TypeId::kUInt32:
      return int_type(32, false);
    case TypeId::kUInt64:
      return int_type(64, false);
    case TypeId::kFloat16:
      return float_type(fb::Precision::HALF);
    case TypeId::kFloat32:
      return float_type(fb::Precision::SINGLE);
    case TypeId::kFloat64:
      return float_type(fb::Precision::DOUBLE);
    case TypeId::kString:
      return {fb::Type::Utf8, fb::CreateUtf8(fbb).Union()};
    case TypeId::kLargeString:
      return {fb::Type::LargeUtf8, fb::CreateLargeUtf8(fbb).Union()};
    case TypeId::kBinary:
      return {fb::Type::Binary, fb::CreateBinary(fbb).Union()};
    case TypeId::kLargeBinary:
      return {fb::Type::LargeBinary, fb::CreateLargeBinary(fbb).Union()};
    case TypeId::kFixedSizeBinary:
      return {fb::Type::FixedSizeBinary, fb::CreateFixedSizeBinary(fbb, type.fixed_size()).Union()};
    case TypeId::kDate32:
      return {fb::Type::Date, fb::CreateDate(fbb, fb::DateUnit::DAY).Union()};
    case TypeId::kDate64:
      return {fb::Type::Date, fb::CreateDate(fbb, fb::DateUnit::MILLISECOND).Union()};
    case TypeId::kTimestamp: {
      auto tz = type.timezone().empty() ? 0 : fbb.CreateString(type.timezone());
      return {fb::Type::Timestamp, fb::CreateTimestamp(fbb, ToFbUnit(type.unit()), tz).Union()};
    }
    case TypeId::kTime32:
      return {fb::Type::Time, fb::CreateTime(fbb, ToFbUnit(type.unit()), 32).Union()};
    case TypeId::kTime64:
      return {fb::Type::Time, fb::CreateTime(fbb, ToFbUnit(type.unit()), 64).Union()};
    case TypeId::kDuration:
      return {fb::Type::Duration, fb::CreateDuration(fbb, ToFbUnit(type.unit())).Union()};
    case TypeId::kDecimal128:
      return {fb::Type::Decimal,
              fb::CreateDecimal(fbb, type.precision(), type.scale(), 128).Union()};
    case TypeId::kList:
      return {fb::Type::List, fb::CreateList(fbb).Union()};
    case TypeId::kLargeList:
      return {fb::Type::LargeList, fb::CreateLargeList(fbb).Union()};
    case TypeId::kFixedSizeList:
      return {fb::Type::FixedSizeList, fb::CreateFixedSizeList(fbb, type.fixed_size()).Union()};
    case TypeId::kStruct:
      return {fb::Type::Struct_, fb::CreateStruct_(fbb).Union()};
    case TypeId::kDictionary:
      break;  // the writers refuse dictionary-encoded fields up front
  }
  return {fb::Type::NONE, 0};
}

Offset<fb::Field> FieldToFlatbuffer(FlatBufferBuilder& fbb, const Field& field) {
  // Nested objects first: flatbuffers cannot build a table while another is open.
  std::vector<Offset<fb::Field>> children;
  for (const FieldPtr& child : field.type()->fields()) {
    children.push_back(FieldToFlatbuffer(fbb, *child));
  }
  auto name = fbb.CreateString(field.name());
  auto [type_type, type_offset] = TypeToFlatbuffer(fbb, *field.type());
  auto children_offset = fbb.CreateVector(children);
  auto metadata = MetadataToFlatbuffer(fbb, field.metadata());
  return fb::CreateField(fbb, name, field.nullable(), type_type, type_offset, 0, children_offset,
                         metadata);
}

Status Unsupported(const std::string& name, const char* what) {
  return Status::NotSupported("IPC schema: field '" + name + "' has unsupported type " + what);
}

Result<DataTypePtr> IntFromFlatbuffer(const fb::Int* t) {
  switch (t->bit_width()) {
    case 8:
      return t->is_signed() ? int8() : uint8();
    case 16:
      return t->is_signed() ? int16() : uint16();
    case 32:
      return t->is_signed() ? int32() : uint32();
    case 64:
      return t->is_signed() ? int64() : uint64();
  }
  return Status::Corruption("IPC schema: invalid integer bit width " +
                            std::to_string(t->bit_width()));
}

Result<DataTypePtr> TimeFromFlatbuffer(const fb::Time* t) {
  LANCEDB_ASSIGN_OR_RETURN(TimeUnit unit, FromFbUnit(t->unit()));
  bool is32 = unit == TimeUnit::kSecond || unit == TimeUnit::kMilli;
  if (t->bit_width() != (is32 ? 32 : 64)) {
    return Status::Corruption("IPC schema: time bit width " + std::to_string(t->bit_width()) +
                              " does not match its unit");
  }
  return is32 ? time32(unit) : time64(unit);
}

/// The type of `field`, given its already converted children.
Result<DataTypePtr> TypeFromFlatbuffer(const fb::Field& field, const std::string& name,
                                       std::vector<FieldPtr> children) {
  auto expect_children = [&](size_t n) -> Status {
    if (children.size() == n) return Status::OK();
    return Status::Corruption("IPC schema: field '" + name + "' has " +
                              std::to_string(children.size()) + " children, expected " +
                              std::to_string(n));
  };
  const fb::Type kind = field.type_type();
  if (kind == fb::Type::NONE || field.type() == nullptr) {
    return Status::Corruption("IPC schema: field '" + name + "' has no type");
  }
  if (kind != fb::Type::List && kind != fb::Type::LargeList && kind != fb::Type::FixedSizeList &&
      kind != fb::Type::Struct_) {
    LANCEDB_RETURN_NOT_OK(expect_children(0));
  }
  switch (kind) {
    case fb::Type::Null:
      return null();
    case fb::Type::Bool:
      return boolean();
    case fb::Type::Int:
      return IntFromFlatbuffer(field.type_as_Int());
    case fb::Type::FloatingPoint:
      switch (field.type_as_FloatingPoint()->precision()) {
        case fb::Precision::HALF:
          return float16();
        case fb::Precision::SINGLE:
          return float32();
        case fb::Precision::DOUBLE:
          return float64();
      }
      return Status::Corruption("IPC schema: invalid float precision in field '" + name + "'");
    case fb::Type::Utf8:
      return utf8();
    case fb::Type::LargeUtf8:
      return large_utf8();
    case fb::Type::Binary:
      return binary();
    case fb::Type::LargeBinary:
      return large_binary();
    case fb::Type::FixedSizeBinary: {
      int32_t width = field.type_as_FixedSizeBinary()->byte_width();
      if (width < 0) return Status::Corruption("IPC schema: negative fixed_size_binary width");
      return fixed_size_binary(width);
    }
    case fb::Type::Date:
      return field.type_as_Date()->unit() == fb::DateUnit::DAY ? date32() : date64();
    case fb::Type::Timestamp: {
      const fb::Timestamp* t = field.type_as_Timestamp();
      LANCEDB_ASSIGN_OR_RETURN(TimeUnit unit, FromFbUnit(t->unit()));
      return timestamp(unit, t->timezone() ? t->timezone()->str() : std::string());
    }
    case fb::Type::Time:
      return TimeFromFlatbuffer(field.type_as_Time());
    case fb::Type::Duration: {
      LANCEDB_ASSIGN_OR_RETURN(TimeUnit unit, FromFbUnit(field.type_as_Duration()->unit()));
      return duration(unit);
    }
    case fb::Type::Decimal: {
      const fb::Decimal* d = field.type_as_Decimal();
      if (d->bit_width() != 128) return Unsupported(name, "decimal256");
      return decimal128(d->precision(), d->scale());
    }
    case fb::Type::List:
      LANCEDB_RETURN_NOT_OK(expect_children(1));
      return list(children[0]);
    case fb::Type::LargeList:
      LANCEDB_RETURN_NOT_OK(expect_children(1));
      return large_list(children[0]);
    case fb::Type::FixedSizeList: {
      LANCEDB_RETURN_NOT_OK(expect_children(1));
      int32_t size = field.type_as_FixedSizeList()->list_size();
      if (size < 0) return Status::Corruption("IPC schema: negative fixed_size_list size");
      return fixed_size_list(children[0], size);
    }
    case fb::Type::Struct_:
      return struct_(std::move(children));
    case fb::Type::Interval:
      return Unsupported(name, "interval");
    case fb::Type::Union:
      return Unsupported(name, "union");
    case fb::Type::Map:
      return Unsupported(name, "map");
    case fb::Type::RunEndEncoded:
      return Unsupported(name, "run_end_encoded");
    case fb::Type::BinaryView:
    case fb::Type::Utf8View:
    case fb::Type::ListView:
    case fb::Type::LargeListView:
      return Unsupported(name, "view");
    default:
      break;
  }
  return Status::Corruption("IPC schema: field '" + name + "' has unknown type id " +
                            std::to_string(static_cast<int>(kind)));
}

Result<FieldPtr> FieldFromFlatbuffer(const fb::Field* field, int depth) {
  if (field == nullptr) return Status::Corruption("IPC schema: null field entry");
  if (depth > kMaxNestingDepth) return Status::Corruption("IPC schema: fields nested too deep");
  std::string name = field->name() ? field->name()->str() : std::string();
  if (field->dictionary() != nullptr) {
    return Status::NotSupported("IPC schema: field '" + name + "' is dictionary encoded");
  }
  std::vector<FieldPtr> children;
  if (field->children() != nullptr) {
    for (const fb::Field* child : *field->children()) {
      LANCEDB_ASSIGN_OR_RETURN(FieldPtr converted, FieldFromFlatbuffer(child, depth + 1));
      children.push_back(std::move(converted));
    }
  }
  LANCEDB_ASSIGN_OR_RETURN(DataTypePtr type, TypeFromFlatbuffer(*field, name, std::move(children)));
  return array::field(std::move(name), std::move(type), field->nullable(),
                      MetadataFromFlatbuffer(field->custom_metadata()));
}

}  // namespace

Offset<fb::Schema> SchemaToFlatbuffer(FlatBufferBuilder& fbb, const Schema& schema) {
  std::vector<Offset<fb::Field>> fields;
  fields.reserve(schema.fields().size());
  for (const FieldPtr& f : schema.fields()) fields.push_back(FieldToFlatbuffer(fbb, *f));
  auto fields_offset = fbb.CreateVector(fields);
  auto metadata = MetadataToFlatbuffer(fbb, schema.metadata());
  return fb::CreateSchema(fbb, fb::Endianness::Little, fields_offset, metadata);
}

Result<SchemaPtr> SchemaFromFlatbuffer(const fb::Schema* schema) {
  if (schema == nullptr) return Status::Corruption("IPC: missing schema");
  if (schema->endianness() != fb::Endianness::Little) {
    return Status::NotSupported("IPC: big-endian data is not supported");
  }
  std::vector<FieldPtr> fields;
  if (schema->fields() != nullptr) {
    for (const fb::Field* f : *schema->fields()) {
      LANCEDB_ASSIGN_OR_RETURN(FieldPtr converted, FieldFromFlatbuffer(f, 0));
      fields.push_back(std::move(converted));
    }
  }
  return array::schema(std::move(fields), MetadataFromFlatbuffer(schema->custom_metadata()));
}

}  // namespace lancedb::array::ipc::internal
