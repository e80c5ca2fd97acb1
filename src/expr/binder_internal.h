// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Private declarations shared by the binder (binder.cc, binder_functions.cc) and the
// functions' bind functions (functions_*.cc).

#pragma once

#include <optional>
#include <set>
#include <string>

#include "expr/binder.h"

namespace lancedb::expr {

/// The Arrow type a value kind gets when nothing more specific is known.
array::DataTypePtr DefaultType(ValueKind kind);
/// InvalidArgument "Type error at position N: <what>".
Status TypeError(size_t pos, const std::string& what);
/// "column 'x' (int32)" or the type name, for messages.
std::string Describe(const BoundExpr& e);
/// Wrap `e` in a cast to `to` (no-op when already of that kind and type).
BoundPtr MakeCast(BoundPtr e, ValueKind to, array::DataTypePtr type);
/// Convert `e` to kind `to`: literals are converted now (errors reported now), other
/// expressions get a cast node.
Result<BoundPtr> Coerce(BoundPtr e, ValueKind to);
/// The kind two operands are compared / combined in; a type error naming both otherwise.
Result<ValueKind> CommonKind(const BoundExpr& a, const BoundExpr& b, size_t pos, const char* what);
/// Coerce all of `args` to their common kind (NULLs take the others' kind) and return it.
Result<ValueKind> Unify(std::vector<BoundPtr>* args, size_t pos, const char* what);
/// The Arrow type of an arithmetic result on `a` and `b` evaluated in `kind`.
array::DataTypePtr WiderNumericType(const array::DataTypePtr& a, const array::DataTypePtr& b,
                                    ValueKind kind);

/// Binds one tree; remembers the columns it reads. Externally synchronized.
class Binder {
 public:
  explicit Binder(const array::Schema& schema) : schema_(schema) {}
  Result<BoundPtr> BindNode(const Node& n);
  const std::set<std::string>& columns() const { return columns_; }

 private:
  Result<BoundPtr> BindLiteral(const Node& n);
  Result<BoundPtr> BindColumn(const Node& n);
  Result<BoundPtr> BindBinary(const Node& n);
  Result<BoundPtr> BindBetween(const Node& n);
  Result<BoundPtr> BindIn(const Node& n);
  Result<BoundPtr> BindLike(const Node& n);
  Result<BoundPtr> BindCase(const Node& n);
  Result<BoundPtr> BindCast(const Node& n);
  Result<BoundPtr> BindFunction(const Node& n);
  Result<BoundPtr> BindArray(const Node& n);
  Result<BoundPtr> RequireBool(BoundPtr e, const char* context);

  const array::Schema& schema_;
  std::set<std::string> columns_;
  /// now() of this statement (microseconds since the epoch), taken at its first use.
  std::optional<int64_t> now_;
};

}  // namespace lancedb::expr
