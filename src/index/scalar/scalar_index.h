// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Scalar indices (BTREE, BITMAP, LABEL_LIST) in Lance's on-disk layout
// (docs/format/scalar-index.md): the queries they answer and the interface the query planner
// uses. Keys are values in the expression evaluator's domain (expr/bound.h ValueKind: integers,
// dates, timestamps as int64; uint64 kept apart; floats as double in total order, NaN last;
// strings and binaries as bytes; booleans as 0/1), so a bound literal compares with a key as
// the filter would compare it with the column.
// Thread-safety: a loaded ScalarIndex is immutable and may be searched from many threads.

#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "array/array.h"
#include "expr/bound.h"
#include "index/scalar/row_addr_set.h"
#include "io/file_system.h"
#include "lancedb/index.h"

namespace lancedb::index::scalar {

/// The public enum (lancedb/index.h); ScalarIndexTypeName gives "BTREE", "BITMAP", "LABEL_LIST".
using ScalarIndexType = ::lancedb::ScalarIndexType;
/// "BTree", "Bitmap", "LabelList" (as LanceDB's explain_plan writes them).
std::string_view ScalarIndexPlanName(ScalarIndexType type);
/// The IndexMetadata.index_details type URL Lance registers each type with.
std::string_view ScalarIndexTypeUrl(ScalarIndexType type);
/// The index_version Lance 12 writes for each type (0, 0, 1).
int32_t ScalarIndexVersion(ScalarIndexType type);
/// The type registered under `type_url`, if it is a scalar index lancedb-cpp reads.
std::optional<ScalarIndexType> ScalarIndexTypeFromUrl(std::string_view type_url);

/// One key value. `kind` is the ValueKind of the indexed column (of its items for LABEL_LIST).
struct Key {
  expr::ValueKind kind = expr::ValueKind::kNull;
  bool is_unsigned = false;  // kInt: `i` holds the bits of a uint64
  int64_t i = 0;             // kInt, kDate, kTimestamp, kTime, kDuration, kBool (0/1)
  double f = 0;              // kFloat
  std::string s;             // kString

  /// The literal `literal` of kind `kind` as a key.
  static Key FromLiteral(const expr::Literal& literal, expr::ValueKind kind);
  /// As explain_plan prints it: 5, 10.5, s001, 2020-01-05, true.
  std::string ToString() const;
};

/// <0, 0, >0 as `a` sorts before, with or after `b` (same kind).
int CompareKeys(const Key& a, const Key& b);

/// A query an index may answer (Lance's SargableQuery and label-list queries).
struct ScalarQuery {
  enum class Kind : uint8_t {
    kEquals,  // column = values[0]
    kRange,   // lower (inclusive?) .. upper (inclusive?), either side open when unset
    kIn,      // column IN values (no NULL among them)
    kIsNull,  // column IS NULL
    kHasAny,  // array_has_any(column, values) / array_has / array_contains
    kHasAll,  // array_has_all(column, values)
  };
  Kind kind = Kind::kEquals;
  std::vector<Key> values;
  std::optional<Key> lower, upper;
  bool lower_inclusive = true;
  bool upper_inclusive = true;

  /// As explain_plan prints it, given the column name: "i = 5", "i > 5 && i <= 10",
  /// "i IN [1,2,3]", "i IS NULL", "array_has_any(tags, List([a, b]))".
  std::string ToString(std::string_view column) const;
};

/// Among the rows an index covers: those where the query is TRUE, and those where it is NULL
/// (its value, or its list, is NULL), so that NOT follows SQL's three-valued logic.
struct SearchResult {
  RowAddrSet true_rows;
  RowAddrSet null_rows;
};

/// Every entry of a segment: one key per entry (the items, for LABEL_LIST), the entry's row id,
/// and for LABEL_LIST the rows whose list is NULL.
struct IndexEntries {
  array::ArrayPtr keys;
  std::vector<uint64_t> row_ids;
  RowAddrSet list_nulls;
};

/// A loaded scalar index segment.
class ScalarIndex {
 public:
  virtual ~ScalarIndex() = default;
  virtual ScalarIndexType type() const = 0;
  /// Whether the index answers queries of `kind` exactly.
  virtual bool Supports(ScalarQuery::Kind kind) const = 0;
  /// REQUIRES: Supports(query.kind); keys of the index's kind.
  virtual Result<SearchResult> Search(const ScalarQuery& query) const = 0;
  /// The kind of the keys (the column's, or its items' for LABEL_LIST).
  virtual expr::ValueKind key_kind() const = 0;
  /// Every entry, to rewrite the segment (remap, merge).
  virtual Result<IndexEntries> ReadAll() const = 0;
  /// Pages decoded so far (for analyze_plan).
  virtual int64_t pages_loaded() const { return 0; }
};

/// The rows of an index segment to build: the column's values (or lists) and their row ids
/// (addresses, or stable ids on tables with stable row ids), in any order.
struct BuildInput {
  array::ArrayPtr values;
  std::vector<uint64_t> row_ids;
};

/// One file written for a segment (IndexMetadata.files).
struct WrittenFile {
  std::string name;
  int64_t size_bytes = 0;
};

/// Write the files of a `type` segment over `inputs` into directory `dir`. InvalidArgument
/// when the column's type does not suit the index (naming both).
Result<std::vector<WrittenFile>> BuildScalarIndex(const io::FileSystemPtr& fs,
                                                  const std::string& dir, ScalarIndexType type,
                                                  const array::DataTypePtr& column_type,
                                                  const std::vector<BuildInput>& inputs);

/// Write a `type` segment holding `entries` (as ReadAll returns them) into `dir`.
Result<std::vector<WrittenFile>> BuildScalarIndexFromEntries(const io::FileSystemPtr& fs,
                                                             const std::string& dir,
                                                             ScalarIndexType type,
                                                             const array::DataTypePtr& column_type,
                                                             const IndexEntries& entries);

/// Open the segment of `type` stored in `dir` for a column of `column_type`.
Result<std::shared_ptr<const ScalarIndex>> OpenScalarIndex(const io::FileSystemPtr& fs,
                                                           const std::string& dir,
                                                           ScalarIndexType type,
                                                           const array::DataTypePtr& column_type);

/// Whether a column of `type` can carry an index of `index_type`; InvalidArgument naming the
/// column and the reason otherwise.
Status CheckIndexableType(ScalarIndexType index_type, const std::string& column,
                          const array::DataType& type);

}  // namespace lancedb::index::scalar
