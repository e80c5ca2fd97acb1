// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// LanceSchema: the Lance view of a schema — a tree of fields with integer ids, stored on disk
// as a depth-first flattened list of `lance.file.Field` protos (lance-format.md §1.3). Converts
// to and from the Arrow-compatible array::Schema. Thread-safety: immutable value type.

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "array/type.h"
#include "lancedb/status.h"

namespace lance::file {
class Field;
}  // namespace lance::file

namespace lancedb::format {

struct LanceField {
  int32_t id = -1;
  int32_t parent_id = -1;  // -1 for top-level fields
  std::string name;
  std::string logical_type;  // "int64", "fixed_size_list:float:128", "struct", "list", ...
  bool nullable = true;
  array::KeyValueMetadata metadata;
  std::vector<LanceField> children;

  /// The Arrow type of this field (children included).
  Result<array::DataTypePtr> ToArrowType() const;
  array::FieldPtr ToArrowField() const;  // REQUIRES: ToArrowType() succeeds
  /// True when this field is a column leaf in 2.1+ files (no children, or a fixed-size list of
  /// a primitive, which is a single leaf).
  bool is_leaf() const { return children.empty(); }
};

class LanceSchema {
 public:
  LanceSchema() = default;
  LanceSchema(std::vector<LanceField> fields, array::KeyValueMetadata metadata)
      : fields_(std::move(fields)), metadata_(std::move(metadata)) {}

  /// Assign ids depth-first starting at `first_id` (lists get a child "item"; a fixed-size list
  /// of a primitive is one field with no child; struct members are children).
  static Result<LanceSchema> FromArrow(const array::Schema& schema, int32_t first_id = 0);
  /// Rebuild the tree from the flattened proto list (parents before children).
  static Result<LanceSchema> FromProto(const std::vector<const lance::file::Field*>& fields,
                                       array::KeyValueMetadata metadata);
  /// Flatten depth-first into protos.
  void ToProto(std::vector<lance::file::Field>* out) const;

  Result<array::SchemaPtr> ToArrow() const;

  const std::vector<LanceField>& fields() const { return fields_; }
  const array::KeyValueMetadata& metadata() const { return metadata_; }
  /// Highest id in the tree, or -1 when empty.
  int32_t MaxFieldId() const;
  /// Ids of the leaf fields, depth-first (DataFile.fields in 2.1+ files).
  std::vector<int32_t> LeafFieldIds() const;
  /// Ids of all fields, depth-first (DataFile.fields in 2.0 files).
  std::vector<int32_t> AllFieldIds() const;
  /// The top-level field with this name, or nullptr.
  const LanceField* FindTopLevel(const std::string& name) const;
  /// The field (any depth) with this id, or nullptr.
  const LanceField* FindById(int32_t id) const;
  /// Keep only the named top-level fields, in the given order; NotFound names a missing one and
  /// lists the available columns.
  Result<LanceSchema> Project(const std::vector<std::string>& names) const;
  /// Same names, types and nullability (ids and metadata ignored).
  bool SameShape(const array::Schema& schema) const;

 private:
  std::vector<LanceField> fields_;
  array::KeyValueMetadata metadata_;
};

/// Lance logical type string for an Arrow type ("timestamp:us:-", "fixed_size_list:float:128").
Result<std::string> LogicalTypeFromArrow(const array::DataType& type);

}  // namespace lancedb::format
