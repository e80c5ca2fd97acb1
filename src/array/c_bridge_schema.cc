// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// ArrowSchema export and import: format strings ("Data type description format strings" of
// the Arrow C Data Interface) and the binary key/value metadata encoding (int32 pair count,
// then per pair int32 length + key bytes, int32 length + value bytes, native endianness).

#include <charconv>
#include <cstring>
#include <string>
#include <vector>

#include "array/c_bridge.h"

namespace lancedb::array {
namespace {

// ---- Export ----

/// Owns everything an exported ArrowSchema points to.
struct ExportedSchema {
  std::string format;
  std::string name;
  std::string metadata;
  std::vector<ArrowSchema> children;
  std::vector<ArrowSchema*> child_pointers;
  ArrowSchema dictionary{};  // the value type of a dictionary type
};

void ReleaseExportedSchema(ArrowSchema* schema) {
  if (schema == nullptr || schema->release == nullptr) return;
  for (int64_t i = 0; i < schema->n_children; ++i) {
    ArrowSchema* child = schema->children[i];
    if (child->release != nullptr) child->release(child);
  }
  if (schema->dictionary != nullptr && schema->dictionary->release != nullptr) {
    schema->dictionary->release(schema->dictionary);
  }
  delete static_cast<ExportedSchema*>(schema->private_data);
  schema->release = nullptr;
}

const char* UnitChar(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return "s";
    case TimeUnit::kMilli:
      return "m";
    case TimeUnit::kMicro:
      return "u";
    case TimeUnit::kNano:
      return "n";
  }
  return "?";
}

std::string FormatString(const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull:
      return "n";
    case TypeId::kBool:
      return "b";
    case TypeId::kInt8:
      return "c";
    case TypeId::kUInt8:
      return "C";
    case TypeId::kInt16:
      return "s";
    case TypeId::kUInt16:
      return "S";
    case TypeId::kInt32:
      return "i";
    case TypeId::kUInt32:
      return "I";
    case TypeId::kInt64:
      return "l";
    case TypeId::kUInt64:
      return "L";
    case TypeId::kFloat16:
      return "e";
    case TypeId::kFloat32:
      return "f";
    case TypeId::kFloat64:
      return "g";
    case TypeId::kBinary:
      return "z";
    case TypeId::kLargeBinary:
      return "Z";
    case TypeId::kString:
      return "u";
    case TypeId::kLargeString:
      return "U";
    case TypeId::kFixedSizeBinary:
      return "w:" + std::to_string(type.fixed_size());
    case TypeId::kDecimal128:
      return "d:" + std::to_string(type.precision()) + "," + std::to_string(type.scale());
    case TypeId::kDate32:
      return "tdD";
    case TypeId::kDate64:
      return "tdm";
    case TypeId::kTime32:
    case TypeId::kTime64:
      return std::string("tt") + UnitChar(type.unit());
    case TypeId::kTimestamp:
      return std::string("ts") + UnitChar(type.unit()) + ":" + type.timezone();
    case TypeId::kDuration:
      return std::string("tD") + UnitChar(type.unit());
    case TypeId::kList:
      return "+l";
    case TypeId::kLargeList:
      return "+L";
    case TypeId::kFixedSizeList:
      return "+w:" + std::to_string(type.fixed_size());
    case TypeId::kStruct:
      return "+s";
    case TypeId::kDictionary:
      // The index type; the values are described by the `dictionary` schema.
      return FormatString(*type.index_type());
  }
  return "";
}

std::string EncodeMetadata(const KeyValueMetadata& metadata) {
  if (metadata.empty()) return {};
  std::string out;
  auto append_int = [&out](int32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); };
  append_int(static_cast<int32_t>(metadata.size()));
  for (const auto& [key, value] : metadata) {
    append_int(static_cast<int32_t>(key.size()));
    out += key;
    append_int(static_cast<int32_t>(value.size()));
    out += value;
  }
  return out;
}

void ExportInto(const std::string& name, const DataType& type, bool nullable,
                const KeyValueMetadata& metadata, ArrowSchema* out) {
  auto* priv = new ExportedSchema();
  priv->format = FormatString(type);
  priv->name = name;
  priv->metadata = EncodeMetadata(metadata);
  const auto& fields = type.fields();
  priv->children.resize(fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    const Field& f = *fields[i];
    ExportInto(f.name(), *f.type(), f.nullable(), f.metadata(), &priv->children[i]);
    priv->child_pointers.push_back(&priv->children[i]);
  }
  out->format = priv->format.c_str();
  out->name = priv->name.c_str();
  out->metadata = priv->metadata.empty() ? nullptr : priv->metadata.data();
  out->flags = nullable ? ARROW_FLAG_NULLABLE : 0;
  out->n_children = static_cast<int64_t>(fields.size());
  out->children = priv->child_pointers.empty() ? nullptr : priv->child_pointers.data();
  out->dictionary = nullptr;
  if (type.is_dictionary()) {
    ExportInto("", *type.value_type(), true, {}, &priv->dictionary);
    out->dictionary = &priv->dictionary;
    if (type.ordered()) out->flags |= ARROW_FLAG_DICTIONARY_ORDERED;
  }
  out->release = ReleaseExportedSchema;
  out->private_data = priv;
}

// ---- Import ----

Result<int32_t> ParseInt(std::string_view s, std::string_view format) {
  int32_t v = 0;
  auto res = std::from_chars(s.data(), s.data() + s.size(), v);
  if (res.ec != std::errc() || res.ptr != s.data() + s.size()) {
    return Status::InvalidArgument("Invalid Arrow format string '" + std::string(format) + "'");
  }
  return v;
}

Result<TimeUnit> ParseUnit(char c, std::string_view format) {
  switch (c) {
    case 's':
      return TimeUnit::kSecond;
    case 'm':
      return TimeUnit::kMilli;
    case 'u':
      return TimeUnit::kMicro;
    case 'n':
      return TimeUnit::kNano;
    default:
      return Status::InvalidArgument("Invalid time unit in Arrow format string '" +
                                     std::string(format) + "'");
  }
}

Result<KeyValueMetadata> DecodeMetadata(const char* metadata) {
  KeyValueMetadata out;
  if (metadata == nullptr) return out;
  auto read_int = [&metadata]() {
    int32_t v;
    std::memcpy(&v, metadata, 4);
    metadata += 4;
    return v;
  };
  const int32_t count = read_int();
  if (count < 0) return Status::InvalidArgument("Negative ArrowSchema metadata pair count");
  for (int32_t i = 0; i < count; ++i) {
    const int32_t key_length = read_int();
    if (key_length < 0) return Status::InvalidArgument("Negative ArrowSchema metadata length");
    std::string key(metadata, key_length);
    metadata += key_length;
    const int32_t value_length = read_int();
    if (value_length < 0) return Status::InvalidArgument("Negative ArrowSchema metadata length");
    std::string value(metadata, value_length);
    metadata += value_length;
    out.emplace_back(std::move(key), std::move(value));
  }
  return out;
}

Result<FieldPtr> FieldFromC(const ArrowSchema* schema);

Result<std::vector<FieldPtr>> ChildFields(const ArrowSchema* schema) {
  std::vector<FieldPtr> fields;
  if (schema->n_children < 0 || (schema->n_children > 0 && schema->children == nullptr)) {
    return Status::InvalidArgument("Invalid ArrowSchema children");
  }
  for (int64_t i = 0; i < schema->n_children; ++i) {
    LANCEDB_ASSIGN_OR_RETURN(FieldPtr f, FieldFromC(schema->children[i]));
    fields.push_back(std::move(f));
  }
  return fields;
}

Result<FieldPtr> SingleChild(const ArrowSchema* schema, std::string_view format) {
  if (schema->n_children != 1) {
    return Status::InvalidArgument("Arrow format '" + std::string(format) +
                                   "' needs exactly one child, got " +
                                   std::to_string(schema->n_children));
  }
  LANCEDB_ASSIGN_OR_RETURN(auto fields, ChildFields(schema));
  return fields[0];
}

Result<DataTypePtr> ParseTemporal(std::string_view f) {
  if (f == "tdD") return date32();
  if (f == "tdm") return date64();
  if (f.size() >= 3 && f[1] == 't') {
    LANCEDB_ASSIGN_OR_RETURN(TimeUnit unit, ParseUnit(f[2], f));
    if (f.size() != 3)
      return Status::InvalidArgument("Invalid Arrow format '" + std::string(f) + "'");
    if (unit == TimeUnit::kSecond || unit == TimeUnit::kMilli) return time32(unit);
    return time64(unit);
  }
  if (f.size() >= 3 && f[1] == 'D') {
    LANCEDB_ASSIGN_OR_RETURN(TimeUnit unit, ParseUnit(f[2], f));
    return duration(unit);
  }
  if (f.size() >= 4 && f[1] == 's' && f[3] == ':') {
    LANCEDB_ASSIGN_OR_RETURN(TimeUnit unit, ParseUnit(f[2], f));
    return timestamp(unit, std::string(f.substr(4)));
  }
  return Status::NotSupported("Unsupported Arrow format string '" + std::string(f) + "'");
}

Result<DataTypePtr> ParseDecimal(std::string_view f) {
  std::string_view rest = f.substr(2);
  size_t comma = rest.find(',');
  if (comma == std::string_view::npos) {
    return Status::InvalidArgument("Invalid Arrow format string '" + std::string(f) + "'");
  }
  LANCEDB_ASSIGN_OR_RETURN(int32_t precision, ParseInt(rest.substr(0, comma), f));
  rest = rest.substr(comma + 1);
  int32_t bit_width = 128;
  comma = rest.find(',');
  if (comma != std::string_view::npos) {
    LANCEDB_ASSIGN_OR_RETURN(bit_width, ParseInt(rest.substr(comma + 1), f));
    rest = rest.substr(0, comma);
  }
  LANCEDB_ASSIGN_OR_RETURN(int32_t scale, ParseInt(rest, f));
  if (bit_width != 128) {
    return Status::NotSupported("Unsupported decimal bit width " + std::to_string(bit_width));
  }
  return decimal128(precision, scale);
}

Result<DataTypePtr> PlainTypeFromC(const ArrowSchema* schema);

/// A dictionary type: the format gives the index type, `dictionary` the value type.
Result<DataTypePtr> DictionaryTypeFromC(const ArrowSchema* schema) {
  LANCEDB_ASSIGN_OR_RETURN(DataTypePtr index_type, PlainTypeFromC(schema));
  if (!IsValidDictionaryIndexType(*index_type)) {
    return Status::InvalidArgument("Dictionary indices must be integers, got " +
                                   index_type->ToString());
  }
  LANCEDB_ASSIGN_OR_RETURN(FieldPtr values, FieldFromC(schema->dictionary));
  return dictionary(std::move(index_type), values->type(),
                    (schema->flags & ARROW_FLAG_DICTIONARY_ORDERED) != 0);
}

Result<DataTypePtr> TypeFromC(const ArrowSchema* schema) {
  if (schema->format == nullptr) return Status::InvalidArgument("ArrowSchema has no format");
  if (schema->dictionary != nullptr) return DictionaryTypeFromC(schema);
  return PlainTypeFromC(schema);
}

Result<DataTypePtr> PlainTypeFromC(const ArrowSchema* schema) {
  const std::string_view f = schema->format;
  if (f.size() == 1) {
    switch (f[0]) {
      case 'n':
        return null();
      case 'b':
        return boolean();
      case 'c':
        return int8();
      case 'C':
        return uint8();
      case 's':
        return int16();
      case 'S':
        return uint16();
      case 'i':
        return int32();
      case 'I':
        return uint32();
      case 'l':
        return int64();
      case 'L':
        return uint64();
      case 'e':
        return float16();
      case 'f':
        return float32();
      case 'g':
        return float64();
      case 'z':
        return binary();
      case 'Z':
        return large_binary();
      case 'u':
        return utf8();
      case 'U':
        return large_utf8();
      default:
        break;
    }
  }
  if (f.starts_with("w:")) {
    LANCEDB_ASSIGN_OR_RETURN(int32_t width, ParseInt(f.substr(2), f));
    if (width < 0) return Status::InvalidArgument("Negative fixed_size_binary width");
    return fixed_size_binary(width);
  }
  if (f.starts_with("d:")) return ParseDecimal(f);
  if (f.starts_with("t")) return ParseTemporal(f);
  if (f == "+l" || f == "+L") {
    LANCEDB_ASSIGN_OR_RETURN(FieldPtr item, SingleChild(schema, f));
    return f == "+l" ? list(std::move(item)) : large_list(std::move(item));
  }
  if (f.starts_with("+w:")) {
    LANCEDB_ASSIGN_OR_RETURN(int32_t size, ParseInt(f.substr(3), f));
    if (size < 0) return Status::InvalidArgument("Negative fixed_size_list size");
    LANCEDB_ASSIGN_OR_RETURN(FieldPtr item, SingleChild(schema, f));
    return fixed_size_list(std::move(item), size);
  }
  if (f == "+s") {
    LANCEDB_ASSIGN_OR_RETURN(auto fields, ChildFields(schema));
    return struct_(std::move(fields));
  }
  return Status::NotSupported("Unsupported Arrow format string '" + std::string(f) + "'");
}

Result<FieldPtr> FieldFromC(const ArrowSchema* schema) {
  if (schema == nullptr || schema->release == nullptr) {
    return Status::InvalidArgument("ArrowSchema is null or already released");
  }
  LANCEDB_ASSIGN_OR_RETURN(DataTypePtr type, TypeFromC(schema));
  LANCEDB_ASSIGN_OR_RETURN(KeyValueMetadata metadata, DecodeMetadata(schema->metadata));
  return field(schema->name ? schema->name : "", std::move(type),
               (schema->flags & ARROW_FLAG_NULLABLE) != 0, std::move(metadata));
}

/// Releases an imported ArrowSchema when the import finishes, successfully or not.
class SchemaReleaser {
 public:
  explicit SchemaReleaser(ArrowSchema* schema) : schema_(schema) {}
  ~SchemaReleaser() {
    if (schema_ != nullptr && schema_->release != nullptr) schema_->release(schema_);
  }
  SchemaReleaser(const SchemaReleaser&) = delete;
  SchemaReleaser& operator=(const SchemaReleaser&) = delete;

 private:
  ArrowSchema* schema_;
};

}  // namespace

Status ExportType(const DataType& type, ArrowSchema* out) {
  ExportInto("", type, true, {}, out);
  return Status::OK();
}

Status ExportField(const Field& field, ArrowSchema* out) {
  if (field.type() == nullptr)
    return Status::InvalidArgument("Field '" + field.name() + "' has no type");
  ExportInto(field.name(), *field.type(), field.nullable(), field.metadata(), out);
  return Status::OK();
}

Status ExportSchema(const Schema& schema, ArrowSchema* out) {
  ExportInto("", *struct_(schema.fields()), false, schema.metadata(), out);
  return Status::OK();
}

Result<DataTypePtr> ImportType(ArrowSchema* schema) {
  SchemaReleaser releaser(schema);
  LANCEDB_ASSIGN_OR_RETURN(FieldPtr f, FieldFromC(schema));
  return f->type();
}

Result<FieldPtr> ImportField(ArrowSchema* schema) {
  SchemaReleaser releaser(schema);
  return FieldFromC(schema);
}

Result<SchemaPtr> ImportSchema(ArrowSchema* schema) {
  SchemaReleaser releaser(schema);
  LANCEDB_ASSIGN_OR_RETURN(FieldPtr f, FieldFromC(schema));
  if (f->type()->id() != TypeId::kStruct) {
    return Status::InvalidArgument("An imported schema must have format '+s', got '" +
                                   std::string(schema->format) + "'");
  }
  return array::schema(f->type()->fields(), f->metadata());
}

}  // namespace lancedb::array
