// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Schema evolution requests for Table (LanceDB's add_columns, alter_columns, drop_columns,
// update_field_metadata). New columns are written as new data files in the existing fragments;
// renames, nullability and metadata changes only rewrite the manifest.
//
// Conventional field metadata keys (LanceDB):
//   lancedb:description        free text describing the column
//   lancedb:tag:<name>         a user tag on the column (value free)
//   lancedb:logical-column     the logical column this physical column implements
//   lancedb:status             production | candidate | deprecated | archived
//
// Computed columns (AddComputedColumns / RefreshColumn) keep their definition in the field's
// metadata, under LanceDB's keys:
//   computed_column                      "true"
//   computed_column.kind                 "sql"
//   computed_column.expression           the SQL expression
//   computed_column.inputs               JSON list of the top-level columns it reads
//   computed_refresh.source_signature    "{}" (LanceDB's "never refreshed")
//   computed_refresh.recorded_at_version the version whose refresh published values last
// Thread-safety: requests are values.

#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lancedb/arrow_c.h"
#include "lancedb/status.h"

namespace lancedb {

class Table;

/// Compute new columns from a batch of existing rows. `input_schema` / `input` (a struct
/// array) hold the read columns; both are owned by the callee, which must release them.
/// Fill `output` with a struct array of the declared output schema and the same length.
using BatchUdf =
    std::function<Status(ArrowSchema* input_schema, ArrowArray* input, ArrowArray* output)>;

/// How AddColumns computes the new columns.
struct ColumnTransform {
  enum class Kind : uint8_t { kNone, kSqlExpressions, kAllNulls, kBatchUdf };
  Kind kind = Kind::kNone;
  /// kSqlExpressions: (new column name, SQL expression over the existing columns).
  std::vector<std::pair<std::string, std::string>> expressions;
  /// kAllNulls and kBatchUdf: the schema of the new columns (owned; released by the table).
  std::shared_ptr<ArrowSchema> schema;
  /// kBatchUdf.
  BatchUdf udf;

  static ColumnTransform SqlExpressions(std::vector<std::pair<std::string, std::string>> exprs);
  /// Takes ownership of `schema` (moved out of the pointer).
  static ColumnTransform AllNulls(ArrowSchema* schema);
  static ColumnTransform Udf(ArrowSchema* output_schema, BatchUdf udf);
};

struct AddColumnsRequest {
  ColumnTransform transform;
  /// Columns the batch UDF reads (all when empty). Only valid with a batch UDF.
  std::vector<std::string> read_columns;
  int64_t batch_size = 8192;
};

struct AddColumnsResult {
  uint64_t version = 0;
};

class AddColumnsBuilder {
 public:
  explicit AddColumnsBuilder(std::shared_ptr<Table> table) : table_(std::move(table)) {}
  AddColumnsBuilder& Transform(ColumnTransform transform);
  AddColumnsBuilder& ReadColumns(std::vector<std::string> columns);
  /// InvalidArgument "add_columns requires a transform" without one; InvalidArgument naming
  /// BatchUDF when read_columns is set with another transform. Nothing is committed on error.
  Result<AddColumnsResult> Execute();

 private:
  std::shared_ptr<Table> table_;
  AddColumnsRequest request_;
};

inline constexpr char kComputedColumnKey[] = "computed_column";
inline constexpr char kComputedColumnKindKey[] = "computed_column.kind";
inline constexpr char kComputedColumnExpressionKey[] = "computed_column.expression";
inline constexpr char kComputedColumnInputsKey[] = "computed_column.inputs";
inline constexpr char kComputedRefreshSignatureKey[] = "computed_refresh.source_signature";
inline constexpr char kComputedRefreshVersionKey[] = "computed_refresh.recorded_at_version";

/// Options of Table::RefreshColumn.
struct RefreshColumnOptions {
  /// When set and true (it may be set from another thread), the refresh stops at its next
  /// batch with Cancelled and commits nothing.
  std::shared_ptr<const std::atomic<bool>> cancel;
};

/// Result of Table::RefreshColumn.
struct RefreshColumnResult {
  /// Rows given a (non-NULL) value. A row whose expression is NULL stays NULL, uncounted.
  uint64_t rows_assigned = 0;
  /// Rows whose expression failed (e.g. a division by zero, a failed cast): left unfilled.
  uint64_t rows_failed = 0;
  /// Rows still without a value that a later refresh will evaluate again (the failed ones).
  uint64_t rows_remaining = 0;
  /// The version the refresh read.
  uint64_t source_version = 0;
  /// The version that published the values; unset when no row was assigned (nothing committed).
  std::optional<uint64_t> published_version;
};

/// One alter_columns change. `path` is a dot path ("a.b" for a struct member).
struct ColumnAlteration {
  std::string path;
  std::optional<std::string> rename;
  /// Only false -> true is allowed.
  std::optional<bool> nullable;
  /// Cast to this type (owned ArrowSchema of a type), as Lance allows: integer <-> integer,
  /// float <-> float, string and binary widths, and a list or large list to a list or large
  /// list (a fixed-size list to one of the same size) of a castable element type. `path` may name a
  /// struct member ("s.a"). A value that does not fit fails the cast (InvalidArgument) and the
  /// table is unchanged. Rewrites the top-level column holding the field only; older versions
  /// still read with the old schema.
  std::shared_ptr<ArrowSchema> data_type;
};

/// One update_field_metadata change: set keys (a nullopt value deletes the key), or with
/// `replace` make `metadata` the whole metadata.
struct FieldMetadataUpdate {
  std::string path;
  std::vector<std::pair<std::string, std::optional<std::string>>> metadata;
  bool replace = false;
};

}  // namespace lancedb
