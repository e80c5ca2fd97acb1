// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// A bound expression: the syntax tree resolved against a schema, every node typed, coercions
// made explicit as casts. Evaluation works on a few value kinds (see ValueKind); each node also
// carries the Arrow type DataFusion would give its result, used when results leave the
// evaluator (projections, updates). Thread-safety: immutable once bound.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "array/type.h"
#include "expr/ast.h"

namespace lancedb::expr {

/// How values of a node are represented while evaluating.
enum class ValueKind : uint8_t {
  kNull,       // the NULL literal's type
  kBool,       // one byte per row
  kInt,        // int64 (every integer type)
  kFloat,      // double (every floating point type)
  kString,     // byte views (utf8 and binary types)
  kDate,       // int64 days since the epoch
  kTimestamp,  // int64 microseconds since the epoch (UTC)
  kTime,       // int64 microseconds since midnight (time32, time64)
  kDuration,   // int64 microseconds (duration; INTERVAL literals of fixed length)
  kList,       // Arrow list array (list, large_list, fixed_size_list)
  kStruct,     // Arrow struct array
};

const char* ValueKindName(ValueKind kind);

/// A built-in function (function.h).
struct FunctionDef;

enum class BoundOp : uint8_t {
  kLiteral,
  kColumn,
  kNegate,
  kNot,
  kArith,
  kCompare,
  kAnd,
  kOr,
  kConcat,
  kIs,
  kIn,
  kLike,
  kCase,
  kCast,
  kFunction,
  kArray,
};

struct BoundExpr;
using BoundPtr = std::shared_ptr<const BoundExpr>;

struct BoundExpr {
  BoundOp op = BoundOp::kLiteral;
  ValueKind kind = ValueKind::kNull;
  /// The Arrow type of the result.
  array::DataTypePtr type;
  size_t position = 0;
  /// kLiteral: the value, already of `kind` (int_value for int/date/timestamp).
  Literal literal;
  /// kColumn: top-level column name, then struct member names.
  std::vector<std::string> path;
  BinaryOp bop = BinaryOp::kAdd;
  IsWhat is_what = IsWhat::kNull;
  bool negated = false;
  bool case_insensitive = false;
  bool has_operand = false;
  bool has_else = false;
  /// kFunction: the function called.
  const FunctionDef* function = nullptr;
  std::vector<BoundPtr> args;
  /// kFunction: precompiled state (a regex for a literal pattern), owned by the node.
  std::shared_ptr<const void> state;
};

/// The value kind used to evaluate a column of Arrow `type`; NotSupported for types the
/// evaluator does not handle (maps, unions, dictionaries, intervals).
/// Decimal128 values are evaluated as doubles: exact up to 15 significant digits.
Result<ValueKind> KindOf(const array::DataType& type);

}  // namespace lancedb::expr
