// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Binding columns, literals and operators; functions are bound in binder_functions.cc.

#include "expr/binder.h"

#include <algorithm>
#include <cmath>

#include "common/int_util.h"
#include "expr/binder_internal.h"
#include "expr/civil_time.h"
#include "expr/function.h"
#include "expr/parser.h"

namespace lancedb::expr {

const char* ValueKindName(ValueKind kind) {
  switch (kind) {
    case ValueKind::kNull:
      return "null";
    case ValueKind::kBool:
      return "boolean";
    case ValueKind::kInt:
      return "integer";
    case ValueKind::kFloat:
      return "float";
    case ValueKind::kString:
      return "string";
    case ValueKind::kDate:
      return "date";
    case ValueKind::kTimestamp:
      return "timestamp";
    case ValueKind::kTime:
      return "time";
    case ValueKind::kDuration:
      return "duration";
    case ValueKind::kList:
      return "list";
    case ValueKind::kStruct:
      return "struct";
  }
  return "?";
}

Result<ValueKind> KindOf(const array::DataType& type) {
  using array::TypeId;
  switch (type.id()) {
    case TypeId::kDictionary:
      // Evaluated as the values the indices point at.
      return KindOf(*type.value_type());
    case TypeId::kNull:
      return ValueKind::kNull;
    case TypeId::kBool:
      return ValueKind::kBool;
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
      return ValueKind::kInt;
    case TypeId::kFloat16:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
    case TypeId::kDecimal128:
      return ValueKind::kFloat;
    case TypeId::kTime32:
    case TypeId::kTime64:
      return ValueKind::kTime;
    case TypeId::kDuration:
      return ValueKind::kDuration;
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
    case TypeId::kFixedSizeBinary:
      return ValueKind::kString;
    case TypeId::kDate32:
    case TypeId::kDate64:
      return ValueKind::kDate;
    case TypeId::kTimestamp:
      return ValueKind::kTimestamp;
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
      return ValueKind::kList;
    case TypeId::kStruct:
      return ValueKind::kStruct;
    default:
      return Status::NotSupported("Columns of type " + type.ToString() +
                                  " are not supported in expressions yet");
  }
}

array::DataTypePtr DefaultType(ValueKind kind) {
  switch (kind) {
    case ValueKind::kNull:
      return array::null();
    case ValueKind::kBool:
      return array::boolean();
    case ValueKind::kInt:
      return array::int64();
    case ValueKind::kFloat:
      return array::float64();
    case ValueKind::kString:
      return array::utf8();
    case ValueKind::kDate:
      return array::date32();
    case ValueKind::kTimestamp:
      return array::timestamp(array::TimeUnit::kMicro);
    case ValueKind::kTime:
      return array::time64(array::TimeUnit::kMicro);
    case ValueKind::kDuration:
      return array::duration(array::TimeUnit::kMicro);
    default:
      return array::null();
  }
}

Status TypeError(size_t pos, const std::string& what) {
  return Status::InvalidArgument("Type error at position " + std::to_string(pos + 1) + ": " + what);
}

std::string Describe(const BoundExpr& e) {
  std::string kind = e.type ? e.type->ToString() : ValueKindName(e.kind);
  if (e.op == BoundOp::kColumn) {
    std::string name;
    for (size_t i = 0; i < e.path.size(); ++i) name += (i ? "." : "") + e.path[i];
    return "column '" + name + "' (" + kind + ")";
  }
  return kind;
}

namespace {

using int_util::FloorDiv;

bool IsNumeric(ValueKind k) { return k == ValueKind::kInt || k == ValueKind::kFloat; }

Result<Literal> FoldLiteral(const Literal& lit, ValueKind to, size_t pos) {
  Literal out;
  if (lit.kind == LiteralKind::kNull) return out;
  auto fail = [&] {
    return TypeError(pos, "cannot cast '" + lit.string_value + "' to " + ValueKindName(to));
  };
  switch (to) {
    case ValueKind::kInt: {
      out.kind = LiteralKind::kInt;
      if (lit.kind == LiteralKind::kInt) return lit;
      if (lit.kind == LiteralKind::kFloat) {
        out.int_value = static_cast<int64_t>(lit.float_value);
        return out;
      }
      if (lit.kind == LiteralKind::kBool) {
        out.int_value = lit.bool_value;
        return out;
      }
      if (lit.kind == LiteralKind::kString) {
        char* end = nullptr;
        errno = 0;
        out.int_value = std::strtoll(lit.string_value.c_str(), &end, 10);
        if (lit.string_value.empty() || *end != '\0' || errno) return fail();
        return out;
      }
      break;
    }
    case ValueKind::kFloat: {
      out.kind = LiteralKind::kFloat;
      if (lit.kind == LiteralKind::kFloat) return lit;
      if (lit.kind == LiteralKind::kInt) {
        out.float_value = static_cast<double>(lit.int_value);
        return out;
      }
      if (lit.kind == LiteralKind::kString) {
        char* end = nullptr;
        out.float_value = std::strtod(lit.string_value.c_str(), &end);
        if (lit.string_value.empty() || *end != '\0') return fail();
        return out;
      }
      break;
    }
    case ValueKind::kDate: {
      out.kind = LiteralKind::kDate;
      if (lit.kind == LiteralKind::kDate) return lit;
      if (lit.kind == LiteralKind::kString) {
        auto d = ParseDate(lit.string_value);
        if (!d.ok()) {
          auto ts = ParseTimestamp(lit.string_value);
          if (!ts.ok()) return TypeError(pos, d.status().message());
          out.int_value = FloorDiv(*ts, kMicrosPerDay);
          return out;
        }
        out.int_value = *d;
        return out;
      }
      if (lit.kind == LiteralKind::kTimestamp) {
        out.int_value = FloorDiv(lit.int_value, kMicrosPerDay);
        return out;
      }
      break;
    }
    case ValueKind::kTime: {
      if (lit.kind != LiteralKind::kString) break;
      auto t = ParseTime(lit.string_value);
      if (!t.ok()) {
        auto ts = ParseTimestamp(lit.string_value);
        if (!ts.ok()) return TypeError(pos, t.status().message());
        t = *ts - FloorDiv(*ts, kMicrosPerDay) * kMicrosPerDay;
      }
      out.kind = LiteralKind::kInt;
      out.int_value = *t;
      return out;
    }
    case ValueKind::kDuration: {
      if (lit.kind != LiteralKind::kString) break;
      auto d = ParseInterval(lit.string_value);
      if (!d.ok()) return TypeError(pos, d.status().message());
      out.kind = LiteralKind::kInt;
      out.int_value = *d;
      return out;
    }
    case ValueKind::kTimestamp: {
      out.kind = LiteralKind::kTimestamp;
      if (lit.kind == LiteralKind::kTimestamp) return lit;
      if (lit.kind == LiteralKind::kString) {
        auto ts = ParseTimestamp(lit.string_value);
        if (!ts.ok()) return TypeError(pos, ts.status().message());
        out.int_value = *ts;
        return out;
      }
      if (lit.kind == LiteralKind::kDate) {
        out.int_value = lit.int_value * kMicrosPerDay;
        return out;
      }
      break;
    }
    default:
      break;
  }
  return Status::Internal("no literal fold");
}

}  // namespace

BoundPtr MakeCast(BoundPtr e, ValueKind to, array::DataTypePtr type) {
  if (e->kind == to && (!type || (e->type && e->type->Equals(*type)))) return e;
  auto c = std::make_shared<BoundExpr>();
  c->op = BoundOp::kCast;
  c->kind = to;
  c->type = type ? std::move(type) : DefaultType(to);
  c->position = e->position;
  c->args = {std::move(e)};
  return c;
}

Result<BoundPtr> Coerce(BoundPtr e, ValueKind to) {
  if (e->kind == to) return e;
  if (e->op == BoundOp::kLiteral) {
    auto folded = FoldLiteral(e->literal, to, e->position);
    if (folded.ok()) {
      auto lit = std::make_shared<BoundExpr>(*e);
      lit->kind = to;
      lit->type = DefaultType(to);
      if (to == ValueKind::kTimestamp) lit->type = array::timestamp(array::TimeUnit::kNano);
      if (to == ValueKind::kInt && folded->is_unsigned) lit->type = array::uint64();
      lit->literal = folded.MoveValueUnsafe();
      return BoundPtr(lit);
    }
    if (folded.status().code() != StatusCode::kInternal) return folded.status();
  }
  return MakeCast(std::move(e), to, nullptr);
}

Result<ValueKind> CommonKind(const BoundExpr& a, const BoundExpr& b, size_t pos, const char* what) {
  ValueKind x = a.kind, y = b.kind;
  if (x == y) return x;
  if (x == ValueKind::kNull) return y;
  if (y == ValueKind::kNull) return x;
  if (IsNumeric(x) && IsNumeric(y)) return ValueKind::kFloat;
  auto temporal = [](ValueKind k) { return k == ValueKind::kDate || k == ValueKind::kTimestamp; };
  if (temporal(x) && temporal(y)) return ValueKind::kTimestamp;
  // A string literal takes the other side's type (parsed at bind time).
  auto literal_target = [&](ValueKind k) {
    return temporal(k) || IsNumeric(k) || k == ValueKind::kBool || k == ValueKind::kTime ||
           k == ValueKind::kDuration;
  };
  if (x == ValueKind::kString && a.op == BoundOp::kLiteral && literal_target(y)) return y;
  if (y == ValueKind::kString && b.op == BoundOp::kLiteral && literal_target(x)) return x;
  if ((x == ValueKind::kString && (temporal(y) || IsNumeric(y))) ||
      (y == ValueKind::kString && (temporal(x) || IsNumeric(x))))
    return ValueKind::kString;
  return TypeError(pos, std::string("cannot ") + what + " " + Describe(a) + " and " + Describe(b));
}

array::DataTypePtr WiderNumericType(const array::DataTypePtr& a, const array::DataTypePtr& b,
                                    ValueKind kind) {
  if (a && b && a->Equals(*b) && a->id() != array::TypeId::kNull) return a;
  if (kind == ValueKind::kFloat) {
    auto is32 = [](const array::DataTypePtr& t) {
      return t && (t->id() == array::TypeId::kFloat32 || t->id() == array::TypeId::kFloat16 ||
                   t->id() == array::TypeId::kNull);
    };
    if (is32(a) && is32(b)) return array::float32();
    return array::float64();
  }
  if (a && a->id() == array::TypeId::kNull && b) return b;
  if (b && b->id() == array::TypeId::kNull && a) return a;
  return DefaultType(kind);
}

namespace {

/// Arithmetic on dates, timestamps and durations (all in microseconds while evaluating):
/// timestamp - timestamp = duration, timestamp/date +- duration, duration +- duration,
/// duration * integer, duration / integer. nullptr when neither side is temporal.
Result<BoundPtr> BindTemporalArith(const Node& n, BoundPtr left, BoundPtr right) {
  auto is_ts = [](ValueKind k) { return k == ValueKind::kDate || k == ValueKind::kTimestamp; };
  auto is_temporal = [&](ValueKind k) {
    return is_ts(k) || k == ValueKind::kDuration || k == ValueKind::kTime;
  };
  const ValueKind l = left->kind, r = right->kind;
  if (!is_temporal(l) && !is_temporal(r)) return BoundPtr();
  auto e = std::make_shared<BoundExpr>();
  e->op = BoundOp::kArith;
  e->bop = n.op;
  e->position = n.position;
  const bool add = n.op == BinaryOp::kAdd, sub = n.op == BinaryOp::kSub;
  const auto duration = array::duration(array::TimeUnit::kMicro);
  bool to_date = false;
  if (sub && is_ts(l) && is_ts(r)) {
    e->kind = ValueKind::kDuration;
    e->type = duration;
  } else if (((add || sub) && is_ts(l) && r == ValueKind::kDuration) ||
             (add && l == ValueKind::kDuration && is_ts(r))) {
    const BoundExpr& ts = is_ts(l) ? *left : *right;
    to_date = ts.kind == ValueKind::kDate;
    e->kind = ValueKind::kTimestamp;
    e->type = ts.kind == ValueKind::kTimestamp && ts.type
                  ? ts.type
                  : array::timestamp(array::TimeUnit::kMicro);
  } else if ((add || sub) && l == ValueKind::kDuration && r == ValueKind::kDuration) {
    e->kind = ValueKind::kDuration;
    e->type = duration;
  } else if ((n.op == BinaryOp::kMul && ((l == ValueKind::kDuration && r == ValueKind::kInt) ||
                                         (l == ValueKind::kInt && r == ValueKind::kDuration))) ||
             (n.op == BinaryOp::kDiv && l == ValueKind::kDuration && r == ValueKind::kInt)) {
    e->kind = ValueKind::kDuration;
    e->type = duration;
  } else {
    return TypeError(n.position, std::string("cannot apply '") + BinaryOpName(n.op) + "' to " +
                                     Describe(*left) + " and " + Describe(*right));
  }
  if (is_ts(l)) {
    LANCEDB_ASSIGN_OR_RETURN(left, Coerce(std::move(left), ValueKind::kTimestamp));
  }
  if (is_ts(r)) {
    LANCEDB_ASSIGN_OR_RETURN(right, Coerce(std::move(right), ValueKind::kTimestamp));
  }
  e->args = {std::move(left), std::move(right)};
  if (to_date) return MakeCast(BoundPtr(e), ValueKind::kDate, array::date32());
  return BoundPtr(e);
}

}  // namespace

namespace {

/// `lit` retyped as uint64 when `other` is uint64 and `lit` a non-negative integer literal.
BoundPtr UnsignedLiteralFor(const BoundExpr& other, BoundPtr lit) {
  const bool other_unsigned = other.type && other.type->id() == array::TypeId::kUInt64;
  if (!other_unsigned || lit->op != BoundOp::kLiteral || lit->kind != ValueKind::kInt ||
      lit->literal.kind != LiteralKind::kInt ||
      (!lit->literal.is_unsigned && lit->literal.int_value < 0)) {
    return lit;
  }
  auto copy = std::make_shared<BoundExpr>(*lit);
  copy->literal.is_unsigned = true;
  copy->type = array::uint64();
  return copy;
}

}  // namespace

Result<BoundPtr> Binder::BindColumn(const Node& n) {
  const std::string& first = n.path[0];
  int index = schema_.GetFieldIndex(first);
  if (index < 0) {
    // Unquoted identifiers may differ in case; accept a unique case-insensitive match.
    int found = -1;
    for (int i = 0; i < schema_.num_fields(); ++i) {
      const std::string& name = schema_.field(i)->name();
      if (name.size() == first.size() &&
          std::equal(name.begin(), name.end(), first.begin(), [](char p, char q) {
            return std::tolower(static_cast<unsigned char>(p)) ==
                   std::tolower(static_cast<unsigned char>(q));
          })) {
        found = found == -1 ? i : -2;
      }
    }
    if (found >= 0) index = found;
  }
  auto e = std::make_shared<BoundExpr>();
  e->op = BoundOp::kColumn;
  e->position = n.position;
  array::DataTypePtr type;
  if (index >= 0) {
    e->path.push_back(schema_.field(index)->name());
    type = schema_.field(index)->type();
  } else if (IsVirtualColumn(first) && n.path.size() == 1) {
    e->path.push_back(first);
    type = array::uint64();
  } else {
    std::string names;
    for (const auto& f : schema_.fields()) names += (names.empty() ? "" : ", ") + f->name();
    return Status::InvalidArgument("Column '" + first + "' not found; columns are: " + names);
  }
  for (size_t i = 1; i < n.path.size(); ++i) {
    if (type->id() != array::TypeId::kStruct) {
      return Status::InvalidArgument("Column '" + e->path[0] + "' has no field '" + n.path[i] +
                                     "': it is " + type->ToString() + ", not a struct");
    }
    array::FieldPtr child;
    for (const auto& f : type->fields()) {
      if (f->name() == n.path[i]) child = f;
    }
    if (!child) {
      std::string names;
      for (const auto& f : type->fields()) names += (names.empty() ? "" : ", ") + f->name();
      return Status::InvalidArgument("Field '" + n.path[i] + "' not found in '" + e->path.back() +
                                     "'; fields are: " + names);
    }
    e->path.push_back(child->name());
    type = child->type();
  }
  LANCEDB_ASSIGN_OR_RETURN(e->kind, KindOf(*type));
  e->type = type;
  columns_.insert(e->path[0]);
  return BoundPtr(e);
}

Result<BoundPtr> Binder::BindLiteral(const Node& n) {
  auto e = std::make_shared<BoundExpr>();
  e->op = BoundOp::kLiteral;
  e->position = n.position;
  e->literal = n.literal;
  switch (n.literal.kind) {
    case LiteralKind::kNull:
      e->kind = ValueKind::kNull;
      break;
    case LiteralKind::kBool:
      e->kind = ValueKind::kBool;
      break;
    case LiteralKind::kInt:
      e->kind = ValueKind::kInt;
      break;
    case LiteralKind::kFloat:
      e->kind = ValueKind::kFloat;
      break;
    case LiteralKind::kString:
    case LiteralKind::kBinary:
      e->kind = ValueKind::kString;
      break;
    case LiteralKind::kDate:
      e->kind = ValueKind::kDate;
      break;
    case LiteralKind::kTimestamp:
      e->kind = ValueKind::kTimestamp;
      break;
  }
  e->type = n.literal.kind == LiteralKind::kTimestamp ? array::timestamp(array::TimeUnit::kNano)
                                                      : DefaultType(e->kind);
  if (n.literal.kind == LiteralKind::kInt && n.literal.is_unsigned) e->type = array::uint64();
  if (n.literal.kind == LiteralKind::kBinary) e->type = array::binary();
  return BoundPtr(e);
}

Result<BoundPtr> Binder::RequireBool(BoundPtr e, const char* context) {
  if (e->kind == ValueKind::kBool) return e;
  if (e->kind == ValueKind::kNull) return MakeCast(std::move(e), ValueKind::kBool, nullptr);
  return TypeError(e->position, std::string(context) + " needs a boolean, got " + Describe(*e));
}

Result<BoundPtr> Binder::BindBinary(const Node& n) {
  LANCEDB_ASSIGN_OR_RETURN(auto left, BindNode(*n.args[0]));
  LANCEDB_ASSIGN_OR_RETURN(auto right, BindNode(*n.args[1]));
  auto e = std::make_shared<BoundExpr>();
  e->position = n.position;
  e->bop = n.op;
  switch (n.op) {
    case BinaryOp::kAnd:
    case BinaryOp::kOr: {
      const char* name = BinaryOpName(n.op);
      LANCEDB_ASSIGN_OR_RETURN(left, RequireBool(std::move(left), name));
      LANCEDB_ASSIGN_OR_RETURN(right, RequireBool(std::move(right), name));
      e->op = n.op == BinaryOp::kAnd ? BoundOp::kAnd : BoundOp::kOr;
      e->kind = ValueKind::kBool;
      e->type = array::boolean();
      break;
    }
    case BinaryOp::kConcat: {
      LANCEDB_ASSIGN_OR_RETURN(left, Coerce(std::move(left), ValueKind::kString));
      LANCEDB_ASSIGN_OR_RETURN(right, Coerce(std::move(right), ValueKind::kString));
      e->op = BoundOp::kConcat;
      e->kind = ValueKind::kString;
      e->type = array::utf8();
      break;
    }
    case BinaryOp::kEq:
    case BinaryOp::kNe:
    case BinaryOp::kLt:
    case BinaryOp::kLe:
    case BinaryOp::kGt:
    case BinaryOp::kGe: {
      LANCEDB_ASSIGN_OR_RETURN(auto kind, CommonKind(*left, *right, n.position, "compare"));
      if (kind == ValueKind::kList || kind == ValueKind::kStruct) {
        return TypeError(n.position, "cannot compare " + Describe(*left) + " values");
      }
      LANCEDB_ASSIGN_OR_RETURN(left, Coerce(std::move(left), kind));
      LANCEDB_ASSIGN_OR_RETURN(right, Coerce(std::move(right), kind));
      e->op = BoundOp::kCompare;
      e->kind = ValueKind::kBool;
      e->type = array::boolean();
      break;
    }
    default: {
      LANCEDB_ASSIGN_OR_RETURN(auto temporal, BindTemporalArith(n, left, right));
      if (temporal) return temporal;
      auto ok = [](ValueKind k) { return IsNumeric(k) || k == ValueKind::kNull; };
      if (!ok(left->kind) || !ok(right->kind)) {
        return TypeError(n.position, std::string("cannot apply '") + BinaryOpName(n.op) + "' to " +
                                         Describe(*left) + " and " + Describe(*right));
      }
      ValueKind kind = (left->kind == ValueKind::kFloat || right->kind == ValueKind::kFloat)
                           ? ValueKind::kFloat
                           : ValueKind::kInt;
      if (kind == ValueKind::kInt) {
        // uint64 with a non-negative integer literal stays uint64 (the literal is cast).
        left = UnsignedLiteralFor(*right, std::move(left));
        right = UnsignedLiteralFor(*left, std::move(right));
      }
      e->type = WiderNumericType(left->type, right->type, kind);
      LANCEDB_ASSIGN_OR_RETURN(left, Coerce(std::move(left), kind));
      LANCEDB_ASSIGN_OR_RETURN(right, Coerce(std::move(right), kind));
      e->op = BoundOp::kArith;
      e->kind = kind;
      break;
    }
  }
  e->args = {std::move(left), std::move(right)};
  return BoundPtr(e);
}

Result<BoundPtr> Binder::BindNode(const Node& n) {
  switch (n.kind) {
    case NodeKind::kLiteral:
      return BindLiteral(n);
    case NodeKind::kColumn:
      return BindColumn(n);
    case NodeKind::kBinary:
      return BindBinary(n);
    case NodeKind::kNot: {
      LANCEDB_ASSIGN_OR_RETURN(auto arg, BindNode(*n.args[0]));
      LANCEDB_ASSIGN_OR_RETURN(arg, RequireBool(std::move(arg), "NOT"));
      auto e = std::make_shared<BoundExpr>();
      e->op = BoundOp::kNot;
      e->kind = ValueKind::kBool;
      e->type = array::boolean();
      e->position = n.position;
      e->args = {std::move(arg)};
      return BoundPtr(e);
    }
    case NodeKind::kNegate: {
      LANCEDB_ASSIGN_OR_RETURN(auto arg, BindNode(*n.args[0]));
      if (!IsNumeric(arg->kind) && arg->kind != ValueKind::kNull) {
        return TypeError(n.position, "cannot negate " + Describe(*arg));
      }
      auto e = std::make_shared<BoundExpr>();
      e->op = BoundOp::kNegate;
      e->kind = arg->kind == ValueKind::kNull ? ValueKind::kInt : arg->kind;
      e->type = arg->kind == ValueKind::kNull ? array::int64() : arg->type;
      e->position = n.position;
      LANCEDB_ASSIGN_OR_RETURN(arg, Coerce(std::move(arg), e->kind));
      e->args = {std::move(arg)};
      return BoundPtr(e);
    }
    case NodeKind::kIs: {
      LANCEDB_ASSIGN_OR_RETURN(auto arg, BindNode(*n.args[0]));
      if (n.is_what != IsWhat::kNull) {
        LANCEDB_ASSIGN_OR_RETURN(arg, RequireBool(std::move(arg), "IS TRUE/FALSE"));
      }
      auto e = std::make_shared<BoundExpr>();
      e->op = BoundOp::kIs;
      e->kind = ValueKind::kBool;
      e->type = array::boolean();
      e->position = n.position;
      e->is_what = n.is_what;
      e->negated = n.negated;
      e->args = {std::move(arg)};
      return BoundPtr(e);
    }
    case NodeKind::kBetween:
      return BindBetween(n);
    case NodeKind::kIn:
      return BindIn(n);
    case NodeKind::kLike:
      return BindLike(n);
    case NodeKind::kCase:
      return BindCase(n);
    case NodeKind::kCast:
      return BindCast(n);
    case NodeKind::kFunction:
      return BindFunction(n);
    case NodeKind::kArray:
      return BindArray(n);
  }
  return Status::Internal("unknown node");
}

Result<BoundExpression> Bind(const NodePtr& node, const array::Schema& schema) {
  Binder binder(schema);
  LANCEDB_ASSIGN_OR_RETURN(auto root, binder.BindNode(*node));
  BoundExpression out;
  out.root = std::move(root);
  out.columns = binder.columns();
  out.sql = ToSql(*node);
  return out;
}

Result<BoundExpression> ParseAndBind(std::string_view sql, const array::Schema& schema) {
  LANCEDB_ASSIGN_OR_RETURN(auto node, Parse(sql));
  LANCEDB_ASSIGN_OR_RETURN(auto bound, Bind(node, schema));
  bound.sql = std::string(sql);
  return bound;
}

Result<BoundExpression> ParseFilter(std::string_view sql, const array::Schema& schema) {
  LANCEDB_ASSIGN_OR_RETURN(auto bound, ParseAndBind(sql, schema));
  if (bound.root->op == BoundOp::kFunction &&
      bound.root->function == FindFunction("regexp_match")) {
    // A filter that is just regexp_match(...) means regexp_like(...), as in Lance.
    auto like = std::make_shared<BoundExpr>(*bound.root);
    like->function = FindFunction("regexp_like");
    like->kind = ValueKind::kBool;
    like->type = array::boolean();
    bound.root = like;
  }
  if (bound.root->kind != ValueKind::kBool && bound.root->kind != ValueKind::kNull) {
    return Status::InvalidArgument("Filter '" + std::string(sql) +
                                   "' must be a boolean expression, got " + Describe(*bound.root));
  }
  if (bound.root->kind == ValueKind::kNull) {
    bound.root = MakeCast(bound.root, ValueKind::kBool, nullptr);
  }
  return bound;
}

}  // namespace lancedb::expr
