// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The syntax tree of a SQL expression (DataFusion dialect) as the parser produces it: untyped,
// with the byte position of every node in the source text for error messages.
// Thread-safety: immutable once built.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "array/type.h"

namespace lancedb::expr {

enum class BinaryOp : uint8_t {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,  // arithmetic
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,  // comparison
  kAnd,
  kOr,      // logic
  kConcat,  // ||
};

/// SQL spelling of an operator ("+", "<=", "AND", ...).
const char* BinaryOpName(BinaryOp op);

enum class NodeKind : uint8_t {
  kLiteral,   // literal
  kColumn,    // path
  kNegate,    // args[0]
  kNot,       // args[0]
  kBinary,    // op, args[0], args[1]
  kIs,        // args[0] IS [NOT] {NULL, TRUE, FALSE}: is_what, negated
  kIn,        // args[0] [NOT] IN (args[1..])
  kBetween,   // args[0] [NOT] BETWEEN args[1] AND args[2]
  kLike,      // args[0] [NOT] LIKE|ILIKE args[1] [ESCAPE args[2]]
  kCase,      // [operand] WHEN/THEN pairs [ELSE]: see has_operand / has_else
  kCast,      // CAST(args[0] AS cast_type) or args[0]::cast_type
  kFunction,  // name(args...)
  kArray,     // [args...] or make_array(args...)
};

enum class LiteralKind : uint8_t {
  kNull,
  kBool,
  kInt,
  kFloat,
  kString,
  kBinary,  // bytes in string_value (X'...')
  kDate,
  kTimestamp
};

/// A literal value. Dates are days since the epoch; timestamps microseconds since the epoch.
struct Literal {
  LiteralKind kind = LiteralKind::kNull;
  bool bool_value = false;
  /// kInt: int_value holds the bits of a uint64 (a literal above INT64_MAX).
  bool is_unsigned = false;
  int64_t int_value = 0;
  double float_value = 0;
  std::string string_value;
};

enum class IsWhat : uint8_t { kNull, kTrue, kFalse };

struct Node;
using NodePtr = std::shared_ptr<const Node>;

struct Node {
  NodeKind kind = NodeKind::kLiteral;
  /// Byte offset of the node's first token in the source.
  size_t position = 0;
  Literal literal;
  /// Column path (`a.b.c` gives {"a", "b", "c"}), exactly as written (quotes removed).
  std::vector<std::string> path;
  /// Function name, lower-cased.
  std::string name;
  BinaryOp op = BinaryOp::kAdd;
  IsWhat is_what = IsWhat::kNull;
  bool negated = false;
  bool case_insensitive = false;  // ILIKE
  bool has_operand = false;       // CASE x WHEN ...
  bool has_else = false;
  array::DataTypePtr cast_type;
  /// Children; see NodeKind. For kCase: [operand], (when, then)*, [else].
  std::vector<NodePtr> args;
};

/// Render a tree back to SQL (fully parenthesized), for messages and tests.
std::string ToSql(const Node& node);

}  // namespace lancedb::expr
