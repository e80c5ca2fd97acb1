// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The binder: resolves column references against a schema, infers types, inserts the SQL
// coercions (int with float, string literal with date, ...) and rejects type errors, all
// before any data is read. Thread-safety: stateless functions.

#pragma once

#include <set>
#include <string>
#include <string_view>

#include "array/type.h"
#include "expr/ast.h"
#include "expr/bound.h"

namespace lancedb::expr {

/// The virtual columns a filter may use besides the schema's.
inline constexpr const char* kRowIdColumn = "_rowid";
inline constexpr const char* kRowOffsetColumn = "_rowoffset";
/// Whether `name` is one of the virtual columns (`_rowid`, `_rowoffset`).
inline bool IsVirtualColumn(std::string_view name) {
  return name == kRowIdColumn || name == kRowOffsetColumn;
}

/// A bound expression and the top-level columns it reads.
struct BoundExpression {
  BoundPtr root;
  /// Top-level column names read (schema spelling), including virtual ones, sorted.
  std::set<std::string> columns;
  /// The source text (ParseAndBind) or a rendering of the tree (Bind).
  std::string sql;
};

/// Bind `node` against `schema`. `_rowid` (uint64) and `_rowoffset` (uint64) resolve as
/// virtual columns unless the schema has columns of those names. Errors (InvalidArgument):
/// "Column 'vectr' not found; columns are: id, vector"; type errors with the position.
Result<BoundExpression> Bind(const NodePtr& node, const array::Schema& schema);

/// Parse and bind `sql`.
Result<BoundExpression> ParseAndBind(std::string_view sql, const array::Schema& schema);

/// Parse and bind a filter: the result must be boolean (or NULL).
Result<BoundExpression> ParseFilter(std::string_view sql, const array::Schema& schema);

}  // namespace lancedb::expr
