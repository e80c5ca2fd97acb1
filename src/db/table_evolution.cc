// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Schema evolution on a LocalTable: AddColumns (SQL expressions, all-null columns, batch UDFs),
// AlterColumns, DropColumns and UpdateFieldMetadata, over table/schema_evolution.h.

#include <algorithm>
#include <limits>
#include <set>

#include "array/c_bridge.h"
#include "array/dictionary.h"
#include "db/computed_columns.h"
#include "db/table_impl.h"
#include "expr/evaluator.h"
#include "format/primary_key.h"
#include "lancedb/table.h"
#include "table/manifest.h"
#include "table/schema_evolution.h"

namespace lancedb {

namespace {

std::shared_ptr<ArrowSchema> OwnSchema(ArrowSchema* schema) {
  auto owned = std::shared_ptr<ArrowSchema>(new ArrowSchema(*schema), [](ArrowSchema* s) {
    if (s->release) s->release(s);
    delete s;
  });
  schema->release = nullptr;
  return owned;
}

}  // namespace

ColumnTransform ColumnTransform::SqlExpressions(
    std::vector<std::pair<std::string, std::string>> exprs) {
  ColumnTransform t;
  t.kind = Kind::kSqlExpressions;
  t.expressions = std::move(exprs);
  return t;
}

ColumnTransform ColumnTransform::AllNulls(ArrowSchema* schema) {
  ColumnTransform t;
  t.kind = Kind::kAllNulls;
  t.schema = OwnSchema(schema);
  return t;
}

ColumnTransform ColumnTransform::Udf(ArrowSchema* output_schema, BatchUdf udf) {
  ColumnTransform t;
  t.kind = Kind::kBatchUdf;
  t.schema = OwnSchema(output_schema);
  t.udf = std::move(udf);
  return t;
}

AddColumnsBuilder& AddColumnsBuilder::Transform(ColumnTransform transform) {
  request_.transform = std::move(transform);
  return *this;
}

AddColumnsBuilder& AddColumnsBuilder::ReadColumns(std::vector<std::string> columns) {
  request_.read_columns = std::move(columns);
  return *this;
}

Result<AddColumnsResult> AddColumnsBuilder::Execute() {
  return table_->ExecuteAddColumns(request_);
}

AddColumnsBuilder Table::AddColumns() { return AddColumnsBuilder(shared_from_this()); }

Result<AddColumnsResult> Table::ExecuteAddColumns(const AddColumnsRequest&) {
  return Status::NotSupported("add_columns is not supported by this table");
}
Result<uint64_t> Table::AlterColumns(const std::vector<ColumnAlteration>&) {
  return Status::NotSupported("alter_columns is not supported by this table");
}
Result<uint64_t> Table::DropColumns(const std::vector<std::string>&) {
  return Status::NotSupported("drop_columns is not supported by this table");
}
Result<uint64_t> Table::UpdateFieldMetadata(const std::vector<FieldMetadataUpdate>&) {
  return Status::NotSupported("update_field_metadata is not supported by this table");
}
Result<uint64_t> Table::SetUnenforcedPrimaryKey(const std::vector<std::string>&) {
  return Status::NotSupported("set_unenforced_primary_key is not supported by this table");
}

namespace db {
namespace {

/// Import the transform's schema, leaving an equal schema in the request (requests are
/// reusable).
Result<array::SchemaPtr> ImportOwnedSchema(const std::shared_ptr<ArrowSchema>& schema) {
  if (!schema || schema->release == nullptr) {
    return Status::InvalidArgument("The transform has no schema");
  }
  ArrowSchema moved = *schema;
  schema->release = nullptr;
  auto result = array::ImportSchema(&moved);
  if (result.ok()) (void)array::ExportSchema(**result, schema.get());
  return result;
}

/// The generator for SQL expressions: evaluate each bound expression over the read rows.
struct SqlTransform {
  array::SchemaPtr output;
  std::vector<expr::BoundExpression> exprs;
  std::vector<std::string> read_columns;
};

Result<SqlTransform> BindSql(const array::Schema& schema,
                             const std::vector<std::pair<std::string, std::string>>& exprs) {
  SqlTransform t;
  std::vector<array::FieldPtr> fields;
  std::set<std::string> read, names;
  for (const auto& [name, sql] : exprs) {
    if (!names.insert(name).second) {
      return Status::InvalidArgument("Column '" + name + "' is added twice");
    }
    auto bound = expr::ParseAndBind(sql, schema);
    if (!bound.ok())
      return bound.status().WithContext("In the expression of new column '" + name + "'");
    for (const auto& c : bound->columns) {
      if (expr::IsVirtualColumn(c)) {
        return Status::NotSupported("add_columns expressions cannot read " + c);
      }
      read.insert(c);
    }
    auto type = bound->root->type;
    if (type == nullptr || type->id() == array::TypeId::kNull) {
      return Status::InvalidArgument("The expression of new column '" + name +
                                     "' has no type (NULL); cast it, e.g. CAST(NULL AS INT)");
    }
    fields.push_back(array::field(name, type, true));
    t.exprs.push_back(bound.MoveValueUnsafe());
  }
  t.output = std::make_shared<array::Schema>(std::move(fields));
  for (const auto& f : schema.fields()) {
    if (read.count(f->name())) t.read_columns.push_back(f->name());
  }
  if (t.read_columns.empty() && schema.num_fields() > 0) {
    t.read_columns.push_back(schema.field(0)->name());
  }
  return t;
}

}  // namespace

Result<AddColumnsResult> LocalTable::ExecuteAddColumns(const AddColumnsRequest& request) {
  using Kind = ColumnTransform::Kind;
  const ColumnTransform& t = request.transform;
  if (t.kind == Kind::kNone) {
    return Status::InvalidArgument(
        "add_columns requires a transform (SQL expressions, an all-null schema or a BatchUDF)");
  }
  if (!request.read_columns.empty() && t.kind != Kind::kBatchUdf) {
    return Status::InvalidArgument(
        "read_columns can only be used with a BatchUDF transform; SQL expressions and all-null "
        "columns read what they need");
  }
  LANCEDB_RETURN_NOT_OK(CheckWritable());
  LANCEDB_ASSIGN_OR_RETURN(auto latest, LatestForWrite());
  table::DatasetPtr written;
  if (t.kind == Kind::kSqlExpressions) {
    if (t.expressions.empty()) return Status::InvalidArgument("add_columns got no expressions");
    LANCEDB_ASSIGN_OR_RETURN(auto sql, BindSql(*latest->schema(), t.expressions));
    auto generator = [&sql](const array::RecordBatch& rows) -> Result<array::RecordBatchPtr> {
      std::vector<array::ArrayPtr> columns;
      for (size_t i = 0; i < sql.exprs.size(); ++i) {
        LANCEDB_ASSIGN_OR_RETURN(
            auto col,
            expr::Evaluate(sql.exprs[i], rows, sql.output->field(static_cast<int>(i))->type()));
        columns.push_back(std::move(col));
      }
      return array::RecordBatch::Make(sql.output, std::move(columns), rows.num_rows());
    };
    LANCEDB_ASSIGN_OR_RETURN(written, table::AddColumns(latest, *sql.output, sql.read_columns,
                                                        generator, request.batch_size));
  } else {
    LANCEDB_ASSIGN_OR_RETURN(auto output, ImportOwnedSchema(t.schema));
    table::ColumnGenerator generator;
    if (t.kind == Kind::kBatchUdf) {
      if (!t.udf) return Status::InvalidArgument("The BatchUDF transform has no function");
      generator = [&t, output](const array::RecordBatch& rows) -> Result<array::RecordBatchPtr> {
        ArrowSchema in_schema{};
        ArrowArray in{};
        ArrowArray out{};
        LANCEDB_RETURN_NOT_OK(array::ExportSchema(*rows.schema(), &in_schema));
        Status st = array::ExportRecordBatch(rows, &in);
        if (!st.ok()) {
          in_schema.release(&in_schema);
          return st;
        }
        Status called = t.udf(&in_schema, &in, &out);
        if (!called.ok()) {
          if (out.release) out.release(&out);
          return called.WithContext("In the add_columns BatchUDF");
        }
        if (out.release == nullptr) {
          return Status::InvalidArgument("The add_columns BatchUDF returned no batch");
        }
        return array::ImportRecordBatch(&out, output);
      };
    }
    LANCEDB_ASSIGN_OR_RETURN(written, table::AddColumns(latest, *output, request.read_columns,
                                                        generator, request.batch_size));
  }
  Publish(written);
  return AddColumnsResult{written->version()};
}

namespace {

/// The field at dot path `path` in `fields`; InvalidArgument naming the path when missing.
Result<format::LanceField*> FindPath(std::vector<format::LanceField>* fields,
                                     const std::string& path,
                                     std::vector<format::LanceField>** siblings = nullptr) {
  std::vector<format::LanceField>* level = fields;
  format::LanceField* found = nullptr;
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    std::string part =
        path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    found = nullptr;
    for (auto& f : *level) {
      if (f.name == part) found = &f;
    }
    if (found == nullptr) {
      return Status::InvalidArgument("Column '" + path + "' not found in the table schema");
    }
    if (siblings) *siblings = level;
    if (dot == std::string::npos) return found;
    level = &found->children;
    start = dot + 1;
  }
}

}  // namespace

namespace {

/// Lance's rule: casts stay within a kind (integers, floats, strings, binaries, booleans), and
/// a list casts its elements (list <-> large list; a fixed-size list keeps its kind and size).
bool Castable(const array::DataType& from, const array::DataType& to) {
  auto text = [](const array::DataType& t) {
    return t.id() == array::TypeId::kString || t.id() == array::TypeId::kLargeString;
  };
  auto bytes = [](const array::DataType& t) {
    return t.id() == array::TypeId::kBinary || t.id() == array::TypeId::kLargeBinary;
  };
  // Dictionary columns cast as their values; a cast to a dictionary encodes the values.
  if (from.is_dictionary()) return Castable(*from.value_type(), to);
  if (to.is_dictionary()) {
    return array::ValidateDictionaryType(to).ok() && Castable(from, *to.value_type());
  }
  if (from.is_integer()) return to.is_integer();
  if (from.is_floating()) return to.is_floating();
  if (text(from)) return text(to);
  if (bytes(from)) return bytes(to);
  if (from.id() == array::TypeId::kBool) return to.id() == array::TypeId::kBool;
  if (from.is_list_like()) {
    const bool fixed = from.id() == array::TypeId::kFixedSizeList;
    const bool same_shape = fixed ? to.id() == from.id() && from.fixed_size() == to.fixed_size()
                                  : to.is_list_like() && to.id() != array::TypeId::kFixedSizeList;
    return same_shape && Castable(*from.value_type(), *to.value_type());
  }
  return false;
}

/// The offsets buffer of a list column in the other width (list <-> large list) over the
/// same child; InvalidArgument when an offset does not fit 32 bits.
template <typename From, typename To>
Result<BufferPtr> WidenOrNarrowOffsets(const array::ArrayData& list) {
  const auto count = static_cast<size_t>(list.offset + list.length + 1);
  const From* in = list.buffers[1]->data_as<From>();
  std::vector<To> out(count);
  for (size_t i = 0; i < count; ++i) {
    if (static_cast<int64_t>(in[i]) > static_cast<int64_t>(std::numeric_limits<To>::max())) {
      return Status::InvalidArgument("Cannot cast " + list.type->ToString() +
                                     ": the list values exceed 32-bit offsets");
    }
    out[i] = static_cast<To>(in[i]);
  }
  return Buffer::FromVector(out);
}

/// Convert a column to `type` (Castable, or a struct with some members cast): lists and
/// structs keep their layout and convert their children; values use the SQL evaluator's casts,
/// which must not turn a value into NULL (an overflow is an error, as in Lance).
Result<array::ArrayPtr> ConvertColumn(const array::ArrayPtr& column,
                                      const array::DataTypePtr& type) {
  if (column->type->Equals(*type)) return column;
  if (type->is_nested()) {
    std::vector<array::ArrayPtr> children;
    for (size_t i = 0; i < column->children.size(); ++i) {
      LANCEDB_ASSIGN_OR_RETURN(auto child,
                               ConvertColumn(column->children[i], type->fields()[i]->type()));
      children.push_back(std::move(child));
    }
    std::vector<BufferPtr> buffers = column->buffers;
    if (column->type->id() == array::TypeId::kList && type->id() == array::TypeId::kLargeList) {
      LANCEDB_ASSIGN_OR_RETURN(buffers[1], (WidenOrNarrowOffsets<int32_t, int64_t>(*column)));
    } else if (column->type->id() == array::TypeId::kLargeList &&
               type->id() == array::TypeId::kList) {
      LANCEDB_ASSIGN_OR_RETURN(buffers[1], (WidenOrNarrowOffsets<int64_t, int32_t>(*column)));
    }
    return std::shared_ptr<const array::ArrayData>(
        array::ArrayData::Make(type, column->length, std::move(buffers), std::move(children),
                               column->null_count, column->offset));
  }
  auto schema = std::make_shared<array::Schema>(
      std::vector<array::FieldPtr>{array::field("c", column->type)});
  LANCEDB_ASSIGN_OR_RETURN(auto batch, array::RecordBatch::Make(schema, {column}, column->length));
  LANCEDB_ASSIGN_OR_RETURN(auto bound, expr::ParseAndBind("c", *schema));
  LANCEDB_ASSIGN_OR_RETURN(auto converted, expr::Evaluate(bound, *batch, type));
  if (array::ComputeNullCount(*converted) != array::ComputeNullCount(*column)) {
    return Status::InvalidArgument("Cannot cast " + column->type->ToString() + " to " +
                                   type->ToString() + ": a value does not fit");
  }
  return converted;
}

/// The type of the field at dot path `path` (struct members below the top level).
Result<array::DataTypePtr> TypeAtPath(const array::Schema& schema, const std::string& path) {
  const std::vector<array::FieldPtr>* level = &schema.fields();
  array::DataTypePtr type;
  for (size_t start = 0, end = 0; end != std::string::npos; start = end + 1) {
    end = path.find('.', start);
    const std::string part = path.substr(start, end == std::string::npos ? end : end - start);
    if (type != nullptr && type->id() != array::TypeId::kStruct) {
      return Status::InvalidArgument("alter_columns: cannot change the type of '" + path +
                                     "': only struct members can be reached by a dot path");
    }
    auto it = std::find_if(level->begin(), level->end(),
                           [&part](const array::FieldPtr& f) { return f->name() == part; });
    if (it == level->end()) {
      return Status::InvalidArgument("Column '" + path + "' not found in the table schema");
    }
    type = (*it)->type();
    level = &type->fields();
  }
  return type;
}

/// Cast the columns of `alterations` with a data_type; returns the casts to run.
Result<std::vector<std::pair<std::string, array::DataTypePtr>>> CollectCasts(
    const array::Schema& schema, const std::vector<ColumnAlteration>& alterations) {
  std::vector<std::pair<std::string, array::DataTypePtr>> casts;
  for (const auto& alt : alterations) {
    if (!alt.data_type) continue;
    if (alt.data_type->release == nullptr) {
      return Status::InvalidArgument("alter_columns: the data_type of '" + alt.path +
                                     "' was already consumed");
    }
    ArrowSchema moved = *alt.data_type;
    alt.data_type->release = nullptr;
    auto type = array::ImportType(&moved);
    if (type.ok()) (void)array::ExportType(**type, alt.data_type.get());
    LANCEDB_RETURN_NOT_OK(type.status());
    LANCEDB_ASSIGN_OR_RETURN(auto from, TypeAtPath(schema, alt.path));
    if (from->Equals(**type)) continue;
    if (!Castable(*from, **type)) {
      return Status::InvalidArgument("alter_columns: cannot cast column '" + alt.path + "' from " +
                                     from->ToString() + " to " + (*type)->ToString());
    }
    casts.emplace_back(alt.path, *type);
  }
  return casts;
}

}  // namespace

Result<uint64_t> LocalTable::AlterColumns(const std::vector<ColumnAlteration>& alterations) {
  LANCEDB_RETURN_NOT_OK(CheckWritable());
  LANCEDB_ASSIGN_OR_RETURN(auto latest, LatestForWrite());
  LANCEDB_ASSIGN_OR_RETURN(auto casts, CollectCasts(*latest->schema(), alterations));
  for (const auto& alt : alterations) {
    if (alt.rename || alt.data_type) {
      LANCEDB_RETURN_NOT_OK(
          CheckNotReadByComputed(*latest->schema(), alt.path.substr(0, alt.path.find('.'))));
    }
  }
  // Renames and nullability, applied to a schema's fields.
  auto apply_fields =
      [&](std::vector<format::LanceField> fields) -> Result<std::vector<format::LanceField>> {
    for (const auto& alt : alterations) {
      std::vector<format::LanceField>* siblings = nullptr;
      LANCEDB_ASSIGN_OR_RETURN(format::LanceField * field, FindPath(&fields, alt.path, &siblings));
      if (alt.nullable) {
        if (!*alt.nullable && field->nullable) {
          return Status::InvalidArgument("alter_columns: column '" + alt.path +
                                         "' cannot be made non-nullable");
        }
        field->nullable = *alt.nullable || field->nullable;
      }
      if (alt.rename) {
        if (alt.rename->empty() || alt.rename->find('.') != std::string::npos) {
          return Status::InvalidArgument("alter_columns: invalid new name '" + *alt.rename + "'");
        }
        for (const auto& sib : *siblings) {
          if (sib.name == *alt.rename && &sib != field) {
            return Status::InvalidArgument("alter_columns: cannot rename '" + alt.path + "' to '" +
                                           *alt.rename + "': a column of that name already exists");
          }
        }
        field->name = *alt.rename;
      }
    }
    return fields;
  };
  // Check everything before writing anything.
  LANCEDB_RETURN_NOT_OK(apply_fields(latest->manifest().schema().fields()).status());
  const bool other = std::any_of(alterations.begin(), alterations.end(),
                                 [](const ColumnAlteration& a) { return a.rename || a.nullable; });
  if (!casts.empty()) {
    // Rewrite the cast columns; the renames and nullability go in the same commit (one new
    // version, as LanceDB).
    LANCEDB_ASSIGN_OR_RETURN(
        latest, table::CastColumns(latest, casts, ConvertColumn, 8192,
                                   other ? table::SchemaFinisher(apply_fields) : nullptr));
    Publish(latest);
    return latest->version();
  }
  if (!other) return latest->version();
  const format::LanceSchema& current = latest->manifest().schema();
  LANCEDB_ASSIGN_OR_RETURN(auto fields, apply_fields(current.fields()));
  LANCEDB_ASSIGN_OR_RETURN(auto written,
                           table::CommitProjectedSchema(
                               latest, format::LanceSchema(std::move(fields), current.metadata())));
  Publish(written);
  return written->version();
}

Result<uint64_t> LocalTable::DropColumns(const std::vector<std::string>& columns) {
  LANCEDB_RETURN_NOT_OK(CheckWritable());
  if (columns.empty()) return Status::InvalidArgument("drop_columns needs at least one column");
  LANCEDB_ASSIGN_OR_RETURN(auto latest, LatestForWrite());
  const format::LanceSchema& current = latest->manifest().schema();
  // As LanceDB: a computed column's inputs go only after it, in an earlier call.
  for (const auto& path : columns) {
    LANCEDB_RETURN_NOT_OK(
        CheckNotReadByComputed(*latest->schema(), path.substr(0, path.find('.'))));
  }
  std::vector<format::LanceField> fields = current.fields();
  for (const auto& path : columns) {
    std::vector<format::LanceField>* siblings = nullptr;
    LANCEDB_ASSIGN_OR_RETURN(format::LanceField * field, FindPath(&fields, path, &siblings));
    siblings->erase(siblings->begin() + (field - siblings->data()));
  }
  if (fields.empty()) {
    return Status::InvalidArgument("drop_columns cannot drop all columns of the table");
  }
  LANCEDB_ASSIGN_OR_RETURN(auto written,
                           table::CommitProjectedSchema(
                               latest, format::LanceSchema(std::move(fields), current.metadata())));
  Publish(written);
  return written->version();
}

Result<uint64_t> LocalTable::UpdateFieldMetadata(const std::vector<FieldMetadataUpdate>& updates) {
  LANCEDB_RETURN_NOT_OK(CheckWritable());
  LANCEDB_ASSIGN_OR_RETURN(auto latest, LatestForWrite());
  const format::LanceSchema& current = latest->manifest().schema();
  std::vector<format::LanceField> fields = current.fields();
  for (const auto& u : updates) {
    LANCEDB_ASSIGN_OR_RETURN(format::LanceField * field, FindPath(&fields, u.path));
    array::KeyValueMetadata& md = field->metadata;
    if (u.replace) md.clear();
    for (const auto& entry : u.metadata) {
      const std::string& key = entry.first;
      const std::optional<std::string>& value = entry.second;
      auto it = std::find_if(md.begin(), md.end(), [&](const auto& kv) { return kv.first == key; });
      if (!value) {
        if (it != md.end()) md.erase(it);
      } else if (it != md.end()) {
        it->second = *value;
      } else {
        md.emplace_back(key, *value);
      }
    }
  }
  LANCEDB_ASSIGN_OR_RETURN(auto written,
                           table::CommitProjectedSchema(
                               latest, format::LanceSchema(std::move(fields), current.metadata())));
  Publish(written);
  return written->version();
}

namespace {

bool HasPrimaryKey(const std::vector<format::LanceField>& fields) {
  for (const auto& f : fields) {
    for (const auto& kv : f.metadata) {
      if (kv.first == format::kUnenforcedPrimaryKeyPositionKey ||
          kv.first == format::kUnenforcedPrimaryKeyKey)
        return true;
    }
    if (HasPrimaryKey(f.children)) return true;
  }
  return false;
}

/// Arrow-rs's name of a primary-key candidate's type, as LanceDB's messages print it.
std::string RustTypeName(const std::string& logical_type) {
  static const std::pair<const char*, const char*> kNames[] = {
      {"bool", "Boolean"},        {"int8", "Int8"},
      {"uint8", "UInt8"},         {"int16", "Int16"},
      {"uint16", "UInt16"},       {"int32", "Int32"},
      {"uint32", "UInt32"},       {"int64", "Int64"},
      {"uint64", "UInt64"},       {"halffloat", "Float16"},
      {"float", "Float32"},       {"double", "Float64"},
      {"string", "Utf8"},         {"large_string", "LargeUtf8"},
      {"binary", "Binary"},       {"large_binary", "LargeBinary"},
      {"date32:day", "Date32"},   {"date64:ms", "Date64"},
      {"struct", "Struct"},       {"list", "List"},
      {"large_list", "LargeList"}};
  for (const auto& [lance, rust] : kNames) {
    if (logical_type == lance) return rust;
  }
  if (logical_type.rfind("fixed_size_list:", 0) == 0) return "FixedSizeList";
  if (logical_type.rfind("timestamp:", 0) == 0) return "Timestamp";
  if (logical_type.rfind("decimal:", 0) == 0) return "Decimal";
  return logical_type;
}

bool PrimaryKeyType(const std::string& logical_type) {
  static const char* kTypes[] = {"int32",        "int64",  "string",
                                 "large_string", "binary", "large_binary"};
  for (const char* t : kTypes) {
    if (logical_type == t) return true;
  }
  return logical_type.rfind("fixed_size_binary:", 0) == 0;
}

}  // namespace

Result<uint64_t> LocalTable::SetUnenforcedPrimaryKey(const std::vector<std::string>& columns) {
  const std::string where = "set_unenforced_primary_key: ";
  if (columns.empty())
    return Status::InvalidArgument("Invalid input, " + where + "a column is required");
  if (columns.size() > 1) {
    return Status::InvalidArgument("Invalid input, " + where +
                                   "compound primary keys are not supported, got " +
                                   std::to_string(columns.size()) + " columns");
  }
  LANCEDB_RETURN_NOT_OK(CheckWritable());
  LANCEDB_ASSIGN_OR_RETURN(auto latest, LatestForWrite());
  const format::LanceSchema& current = latest->manifest().schema();
  std::vector<format::LanceField> fields = current.fields();
  if (HasPrimaryKey(fields)) {
    return Status::InvalidArgument("Invalid input, " + where +
                                   "an unenforced primary key is already set on this table; "
                                   "changing it is not supported");
  }
  const std::string& path = columns[0];
  // Walk the dot path, remembering whether the field or a struct holding it is nullable.
  std::vector<format::LanceField>* level = &fields;
  format::LanceField* field = nullptr;
  const format::LanceField* nullable = nullptr;
  for (size_t start = 0;;) {
    size_t dot = path.find('.', start);
    std::string part = path.substr(start, dot == std::string::npos ? dot : dot - start);
    field = nullptr;
    for (auto& f : *level) {
      if (f.name == part) field = &f;
    }
    if (field == nullptr) {
      return Status::InvalidArgument("Invalid input, " + where + "column '" + path +
                                     "' not found on table");
    }
    if (field->nullable && nullable == nullptr) nullable = field;
    if (dot == std::string::npos) break;
    level = &field->children;
    start = dot + 1;
  }
  if (!PrimaryKeyType(field->logical_type)) {
    return Status::InvalidArgument(
        "Invalid input, " + where + "column '" + path + "' has dtype " +
        RustTypeName(field->logical_type) +
        " which is not supported as a primary key. Supported: Int32, Int64, Utf8, LargeUtf8, "
        "Binary, LargeBinary, FixedSizeBinary");
  }
  if (nullable != nullptr) {
    return Status::InvalidArgument(
        "Primary key column and all its ancestors must not be nullable: field '" + nullable->name +
        "' (id " + std::to_string(nullable->id) + ") is nullable");
  }
  field->metadata.emplace_back(format::kUnenforcedPrimaryKeyPositionKey, "1");
  LANCEDB_ASSIGN_OR_RETURN(auto written,
                           table::CommitProjectedSchema(
                               latest, format::LanceSchema(std::move(fields), current.metadata())));
  Publish(written);
  return written->version();
}

}  // namespace db
}  // namespace lancedb
