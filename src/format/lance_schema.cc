// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Conversion between Arrow schemas and Lance field trees (lance-format.md §1.3).

#include "format/lance_schema.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <functional>
#include <utility>

#include "format/primary_key.h"
#include "format/proto/file.pb.h"

namespace lancedb::format {
namespace {

using array::DataType;
using array::DataTypePtr;
using array::TimeUnit;
using array::TypeId;

std::string_view UnitName(TimeUnit unit) {
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
  return "s";
}

Result<TimeUnit> ParseUnit(std::string_view s) {
  if (s == "s") return TimeUnit::kSecond;
  if (s == "ms") return TimeUnit::kMilli;
  if (s == "us") return TimeUnit::kMicro;
  if (s == "ns") return TimeUnit::kNano;
  return Status::InvalidArgument("Unknown time unit '" + std::string(s) + "'");
}

Result<int32_t> ParseInt(std::string_view s) {
  int32_t value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size()) {
    return Status::InvalidArgument("Bad integer '" + std::string(s) + "' in logical type");
  }
  return value;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      parts.push_back(s.substr(start));
      return parts;
    }
    parts.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

/// Types whose logical string fully describes them (no children in the Lance schema).
Result<DataTypePtr> ParseLeafType(std::string_view lt) {
  static const std::pair<std::string_view, DataTypePtr (*)()> kSimple[] = {
      {"null", array::null},
      {"bool", array::boolean},
      {"int8", array::int8},
      {"int16", array::int16},
      {"int32", array::int32},
      {"int64", array::int64},
      {"uint8", array::uint8},
      {"uint16", array::uint16},
      {"uint32", array::uint32},
      {"uint64", array::uint64},
      {"halffloat", array::float16},
      {"float", array::float32},
      {"double", array::float64},
      {"string", array::utf8},
      {"large_string", array::large_utf8},
      {"binary", array::binary},
      {"large_binary", array::large_binary},
      {"date32:day", array::date32},
      {"date64:ms", array::date64},
  };
  for (const auto& [name, factory] : kSimple) {
    if (lt == name) return factory();
  }
  auto parts = Split(lt, ':');
  const std::string_view head = parts[0];
  if (head == "timestamp" && parts.size() >= 2) {
    LANCEDB_ASSIGN_OR_RETURN(TimeUnit unit, ParseUnit(parts[1]));
    std::string tz;
    if (parts.size() >= 3) {
      // The timezone may itself contain ':' ("+01:00").
      size_t tz_start = head.size() + 1 + parts[1].size() + 1;
      tz = std::string(lt.substr(tz_start));
      if (tz == "-") tz.clear();
    }
    return array::timestamp(unit, tz);
  }
  if ((head == "time32" || head == "time64" || head == "duration") && parts.size() == 2) {
    LANCEDB_ASSIGN_OR_RETURN(TimeUnit unit, ParseUnit(parts[1]));
    if (head == "time32") return array::time32(unit);
    if (head == "time64") return array::time64(unit);
    return array::duration(unit);
  }
  if (head == "decimal" && parts.size() == 4 && parts[1] == "128") {
    LANCEDB_ASSIGN_OR_RETURN(int32_t precision, ParseInt(parts[2]));
    LANCEDB_ASSIGN_OR_RETURN(int32_t scale, ParseInt(parts[3]));
    return array::decimal128(precision, scale);
  }
  if (head == "fixed_size_binary" && parts.size() == 2) {
    LANCEDB_ASSIGN_OR_RETURN(int32_t width, ParseInt(parts[1]));
    return array::fixed_size_binary(width);
  }
  if (head == "dict" && parts.size() == 4) {
    // dict:{value}:{index}:{ordered}; Lance always writes "false" and reads every dictionary
    // as unordered (arrow-rs has no ordered flag).
    LANCEDB_ASSIGN_OR_RETURN(DataTypePtr value_type, ParseLeafType(parts[1]));
    LANCEDB_ASSIGN_OR_RETURN(DataTypePtr index_type, ParseLeafType(parts[2]));
    if (!array::IsValidDictionaryIndexType(*index_type)) {
      return Status::Corruption("Dictionary logical type '" + std::string(lt) +
                                "' has a non-integer index type");
    }
    return array::dictionary(index_type, value_type);
  }
  if (head == "fixed_size_list" && parts.size() >= 3) {
    size_t last = lt.rfind(':');
    std::string_view item = lt.substr(head.size() + 1, last - head.size() - 1);
    LANCEDB_ASSIGN_OR_RETURN(int32_t size, ParseInt(lt.substr(last + 1)));
    if (item == array::kBFloat16ExtensionName) {
      return array::fixed_size_list(array::BFloat16Field("item"), size);
    }
    LANCEDB_ASSIGN_OR_RETURN(DataTypePtr item_type, ParseLeafType(item));
    return array::fixed_size_list(item_type, size);
  }
  return Status::NotSupported("Unsupported Lance logical type '" + std::string(lt) + "'");
}

/// The legacy v1 `encoding` Lance still writes: Plain for fixed-stride and lists, VarBinary
/// for strings and binary, None for structs.
lance::file::Encoding LegacyEncoding(const DataType& type) {
  if (type.is_dictionary()) return lance::file::DICTIONARY;
  if (type.is_binary_like()) return lance::file::VAR_BINARY;
  if (type.id() == TypeId::kStruct || type.id() == TypeId::kNull) return lance::file::NONE;
  return lance::file::PLAIN;
}

Status FieldFromArrow(const array::Field& arrow, int32_t parent_id, int32_t* next_id,
                      LanceField* out) {
  out->id = (*next_id)++;
  out->parent_id = parent_id;
  out->name = arrow.name();
  out->nullable = arrow.nullable();
  out->metadata = arrow.metadata();
  LANCEDB_ASSIGN_OR_RETURN(out->logical_type, LogicalTypeFromArrow(*arrow.type()));
  const DataType& type = *arrow.type();
  std::vector<array::FieldPtr> children;
  if (type.id() == TypeId::kStruct) {
    children = type.fields();
  } else if (type.id() == TypeId::kList || type.id() == TypeId::kLargeList) {
    children = {type.value_field()};
  }
  for (const auto& child : children) {
    LanceField lf;
    LANCEDB_RETURN_NOT_OK(FieldFromArrow(*child, out->id, next_id, &lf));
    out->children.push_back(std::move(lf));
  }
  return Status::OK();
}

void FlattenField(const LanceField& field, std::vector<lance::file::Field>* out) {
  lance::file::Field proto;
  proto.set_name(field.name);
  proto.set_id(field.id);
  proto.set_parent_id(field.parent_id);
  proto.set_logical_type(field.logical_type);
  proto.set_nullable(field.nullable);
  auto type = field.ToArrowType();
  if (type.ok()) proto.set_encoding(LegacyEncoding(**type));
  // Lance attaches an empty legacy dictionary location to dictionary fields.
  if (type.ok() && (*type)->is_dictionary()) proto.mutable_dictionary();
  for (const auto& [key, value] : field.metadata) (*proto.mutable_metadata())[key] = value;
  // Lance reads the unenforced primary key from the Field message, not from the metadata
  // (which it also keeps): mirror the metadata there.
  if (auto position = array::GetMetadata(field.metadata, kUnenforcedPrimaryKeyPositionKey)) {
    proto.set_unenforced_primary_key(true);
    proto.set_unenforced_primary_key_position(
        static_cast<uint32_t>(std::strtoul(position->c_str(), nullptr, 10)));
  } else if (array::GetMetadata(field.metadata, kUnenforcedPrimaryKeyKey) == "true") {
    proto.set_unenforced_primary_key(true);
  }
  // Lance also names an extension type in the legacy extension_name.
  if (auto extension = array::GetMetadata(field.metadata, array::kExtensionNameKey)) {
    proto.set_extension_name(*extension);
  }
  out->push_back(std::move(proto));
  for (const auto& child : field.children) FlattenField(child, out);
}

void Visit(const LanceField& field, const std::function<void(const LanceField&)>& fn) {
  fn(field);
  for (const auto& child : field.children) Visit(child, fn);
}

}  // namespace

Result<std::string> LogicalTypeFromArrow(const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull:
      return std::string("null");
    case TypeId::kBool:
      return std::string("bool");
    case TypeId::kInt8:
      return std::string("int8");
    case TypeId::kInt16:
      return std::string("int16");
    case TypeId::kInt32:
      return std::string("int32");
    case TypeId::kInt64:
      return std::string("int64");
    case TypeId::kUInt8:
      return std::string("uint8");
    case TypeId::kUInt16:
      return std::string("uint16");
    case TypeId::kUInt32:
      return std::string("uint32");
    case TypeId::kUInt64:
      return std::string("uint64");
    case TypeId::kFloat16:
      return std::string("halffloat");
    case TypeId::kFloat32:
      return std::string("float");
    case TypeId::kFloat64:
      return std::string("double");
    case TypeId::kString:
      return std::string("string");
    case TypeId::kLargeString:
      return std::string("large_string");
    case TypeId::kBinary:
      return std::string("binary");
    case TypeId::kLargeBinary:
      return std::string("large_binary");
    case TypeId::kFixedSizeBinary:
      return "fixed_size_binary:" + std::to_string(type.fixed_size());
    case TypeId::kDate32:
      return std::string("date32:day");
    case TypeId::kDate64:
      return std::string("date64:ms");
    case TypeId::kTimestamp:
      return "timestamp:" + std::string(UnitName(type.unit())) + ":" +
             (type.timezone().empty() ? std::string("-") : type.timezone());
    case TypeId::kTime32:
      return "time32:" + std::string(UnitName(type.unit()));
    case TypeId::kTime64:
      return "time64:" + std::string(UnitName(type.unit()));
    case TypeId::kDuration:
      return "duration:" + std::string(UnitName(type.unit()));
    case TypeId::kDecimal128:
      return "decimal:128:" + std::to_string(type.precision()) + ":" + std::to_string(type.scale());
    case TypeId::kList:
      return std::string(type.value_type()->id() == TypeId::kStruct ? "list.struct" : "list");
    case TypeId::kLargeList:
      return std::string(type.value_type()->id() == TypeId::kStruct ? "large_list.struct"
                                                                    : "large_list");
    case TypeId::kFixedSizeList: {
      // Like Lance, a fixed-size list is always a single field: its items must be fixed width.
      const auto& item_type = *type.value_type();
      if (array::IsBFloat16Field(*type.value_field())) {
        // Named by the extension, as Lance does (its items carry no field of their own).
        return "fixed_size_list:" + std::string(array::kBFloat16ExtensionName) + ":" +
               std::to_string(type.fixed_size());
      }
      if (!item_type.is_primitive() && item_type.id() != TypeId::kFixedSizeList) {
        return Status::NotSupported("Lance does not support " + type.ToString());
      }
      LANCEDB_ASSIGN_OR_RETURN(std::string item, LogicalTypeFromArrow(item_type));
      return "fixed_size_list:" + item + ":" + std::to_string(type.fixed_size());
    }
    case TypeId::kStruct:
      return std::string("struct");
    case TypeId::kDictionary: {
      // Lance splits "dict:{value}:{index}:false" on ':', so only values named without one
      // (integers, floats, strings, binary) can be stored.
      const DataType& value_type = *type.value_type();
      const bool storable =
          value_type.is_integer() || value_type.is_floating() || value_type.is_binary_like();
      if (!storable || !array::IsValidDictionaryIndexType(*type.index_type())) {
        return Status::NotSupported("Lance cannot store " + type.ToString() +
                                    ": dictionary values must be integers, floats, strings or "
                                    "binary");
      }
      LANCEDB_ASSIGN_OR_RETURN(std::string value, LogicalTypeFromArrow(value_type));
      LANCEDB_ASSIGN_OR_RETURN(std::string index, LogicalTypeFromArrow(*type.index_type()));
      return "dict:" + value + ":" + index + ":false";
    }
  }
  return Status::NotSupported("Unsupported Arrow type " + type.ToString());
}

Result<DataTypePtr> LanceField::ToArrowType() const {
  const std::string& lt = logical_type;
  if (lt == "struct") {
    std::vector<array::FieldPtr> members;
    for (const auto& child : children) {
      LANCEDB_ASSIGN_OR_RETURN(DataTypePtr t, child.ToArrowType());
      members.push_back(array::field(child.name, t, child.nullable, child.metadata));
    }
    return array::struct_(std::move(members));
  }
  const bool is_list = lt == "list" || lt == "list.struct";
  const bool is_large_list = lt == "large_list" || lt == "large_list.struct";
  if (is_list || is_large_list) {
    if (children.size() != 1) {
      return Status::Corruption("List field '" + name + "' (id " + std::to_string(id) +
                                ") must have exactly one child, has " +
                                std::to_string(children.size()));
    }
    LANCEDB_ASSIGN_OR_RETURN(DataTypePtr item, children[0].ToArrowType());
    auto item_field =
        array::field(children[0].name, item, children[0].nullable, children[0].metadata);
    return is_list ? array::list(item_field) : array::large_list(item_field);
  }
  if (lt.rfind("fixed_size_list:", 0) == 0 && children.size() == 1) {
    LANCEDB_ASSIGN_OR_RETURN(int32_t size, ParseInt(lt.substr(lt.rfind(':') + 1)));
    LANCEDB_ASSIGN_OR_RETURN(DataTypePtr item, children[0].ToArrowType());
    return array::fixed_size_list(
        array::field(children[0].name, item, children[0].nullable, children[0].metadata), size);
  }
  auto parsed = ParseLeafType(lt);
  if (!parsed.ok()) {
    return parsed.status().WithContext("Field '" + name + "' (id " + std::to_string(id) + ")");
  }
  return parsed;
}

array::FieldPtr LanceField::ToArrowField() const {
  return array::field(name, *ToArrowType(), nullable, metadata);
}

Result<LanceSchema> LanceSchema::FromArrow(const array::Schema& schema, int32_t first_id) {
  std::vector<LanceField> fields;
  int32_t next_id = first_id;
  for (const auto& f : schema.fields()) {
    LanceField lf;
    LANCEDB_RETURN_NOT_OK(FieldFromArrow(*f, -1, &next_id, &lf));
    fields.push_back(std::move(lf));
  }
  return LanceSchema(std::move(fields), schema.metadata());
}

Result<LanceSchema> LanceSchema::FromProto(const std::vector<const lance::file::Field*>& fields,
                                           array::KeyValueMetadata metadata) {
  // Build the tree by parent id; parents always precede their children.
  std::vector<LanceField> roots;
  std::function<LanceField*(std::vector<LanceField>&, int32_t)> find =
      [&](std::vector<LanceField>& list, int32_t id) -> LanceField* {
    for (auto& f : list) {
      if (f.id == id) return &f;
      if (LanceField* c = find(f.children, id)) return c;
    }
    return nullptr;
  };
  for (const lance::file::Field* proto : fields) {
    LanceField f;
    f.id = proto->id();
    f.parent_id = proto->parent_id();
    f.name = proto->name();
    f.logical_type = proto->logical_type();
    f.nullable = proto->nullable();
    for (const auto& [k, v] : proto->metadata()) f.metadata.emplace_back(k, v);
    // The primary key lives in the Field message; Arrow schemas carry it as metadata.
    if ((proto->unenforced_primary_key() || proto->unenforced_primary_key_position() > 0) &&
        !array::GetMetadata(f.metadata, kUnenforcedPrimaryKeyPositionKey) &&
        !array::GetMetadata(f.metadata, kUnenforcedPrimaryKeyKey)) {
      if (proto->unenforced_primary_key_position() > 0) {
        f.metadata.emplace_back(kUnenforcedPrimaryKeyPositionKey,
                                std::to_string(proto->unenforced_primary_key_position()));
      } else {
        f.metadata.emplace_back(kUnenforcedPrimaryKeyKey, "true");
      }
    }
    std::sort(f.metadata.begin(), f.metadata.end());
    if (f.parent_id < 0) {
      roots.push_back(std::move(f));
      continue;
    }
    LanceField* parent = find(roots, f.parent_id);
    if (parent == nullptr) {
      return Status::Corruption("Field '" + f.name + "' (id " + std::to_string(f.id) +
                                ") refers to unknown parent id " + std::to_string(f.parent_id));
    }
    parent->children.push_back(std::move(f));
  }
  return LanceSchema(std::move(roots), std::move(metadata));
}

void LanceSchema::ToProto(std::vector<lance::file::Field>* out) const {
  for (const auto& f : fields_) FlattenField(f, out);
}

Result<array::SchemaPtr> LanceSchema::ToArrow() const {
  std::vector<array::FieldPtr> out;
  for (const auto& f : fields_) {
    LANCEDB_ASSIGN_OR_RETURN(DataTypePtr t, f.ToArrowType());
    out.push_back(array::field(f.name, t, f.nullable, f.metadata));
  }
  return array::schema(std::move(out), metadata_);
}

int32_t LanceSchema::MaxFieldId() const {
  int32_t max_id = -1;
  for (const auto& f : fields_)
    Visit(f, [&](const LanceField& x) { max_id = std::max(max_id, x.id); });
  return max_id;
}

std::vector<int32_t> LanceSchema::LeafFieldIds() const {
  std::vector<int32_t> ids;
  for (const auto& f : fields_) {
    Visit(f, [&](const LanceField& x) {
      if (x.is_leaf()) ids.push_back(x.id);
    });
  }
  return ids;
}

std::vector<int32_t> LanceSchema::AllFieldIds() const {
  std::vector<int32_t> ids;
  for (const auto& f : fields_) Visit(f, [&](const LanceField& x) { ids.push_back(x.id); });
  return ids;
}

const LanceField* LanceSchema::FindTopLevel(const std::string& name) const {
  for (const auto& f : fields_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const LanceField* LanceSchema::FindById(int32_t id) const {
  const LanceField* found = nullptr;
  for (const auto& f : fields_) {
    Visit(f, [&](const LanceField& x) {
      if (x.id == id && found == nullptr) found = &x;
    });
  }
  return found;
}

Result<LanceSchema> LanceSchema::Project(const std::vector<std::string>& names) const {
  std::vector<LanceField> out;
  for (const auto& name : names) {
    const LanceField* f = FindTopLevel(name);
    if (f == nullptr) {
      std::string available;
      for (const auto& x : fields_) available += (available.empty() ? "" : ", ") + x.name;
      return Status::NotFound("Column '" + name + "' not found; columns are: " + available);
    }
    out.push_back(*f);
  }
  return LanceSchema(std::move(out), metadata_);
}

bool LanceSchema::SameShape(const array::Schema& schema) const {
  if (static_cast<int>(fields_.size()) != schema.num_fields()) return false;
  for (size_t i = 0; i < fields_.size(); ++i) {
    auto t = fields_[i].ToArrowType();
    const auto& other = *schema.field(static_cast<int>(i));
    if (!t.ok() || fields_[i].name != other.name() || fields_[i].nullable != other.nullable() ||
        !(*t)->Equals(*other.type())) {
      return false;
    }
  }
  return true;
}

}  // namespace lancedb::format
