// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Binding BETWEEN, IN, LIKE, CASE, CAST, arrays and the built-in functions.

#include <chrono>

#include "common/int_util.h"
#include "expr/binder_internal.h"
#include "expr/civil_time.h"
#include "expr/evaluator.h"

namespace lancedb::expr {

namespace {

std::shared_ptr<BoundExpr> NewNode(BoundOp op, ValueKind kind, array::DataTypePtr type,
                                   size_t pos) {
  auto e = std::make_shared<BoundExpr>();
  e->op = op;
  e->kind = kind;
  e->type = std::move(type);
  e->position = pos;
  return e;
}

BoundPtr Compare(BoundPtr a, BoundPtr b, BinaryOp op, size_t pos) {
  auto e = NewNode(BoundOp::kCompare, ValueKind::kBool, array::boolean(), pos);
  e->bop = op;
  e->args = {std::move(a), std::move(b)};
  return e;
}

struct FunctionInfo {
  const char* name;
  Func func;
  int min_args;
  int max_args;  // -1 = variadic
};

const FunctionInfo kFunctions[] = {
    {"lower", Func::kLower, 1, 1},
    {"upper", Func::kUpper, 1, 1},
    {"length", Func::kLength, 1, 1},
    {"char_length", Func::kLength, 1, 1},
    {"character_length", Func::kLength, 1, 1},
    {"trim", Func::kTrim, 1, 2},
    {"btrim", Func::kTrim, 1, 2},
    {"ltrim", Func::kLtrim, 1, 2},
    {"rtrim", Func::kRtrim, 1, 2},
    {"substr", Func::kSubstr, 2, 3},
    {"substring", Func::kSubstr, 2, 3},
    {"concat", Func::kConcat, 1, -1},
    {"replace", Func::kReplace, 3, 3},
    {"starts_with", Func::kStartsWith, 2, 2},
    {"ends_with", Func::kEndsWith, 2, 2},
    {"contains", Func::kContains, 2, 2},
    {"strpos", Func::kContains, 2, 2},
    {"regexp_match", Func::kRegexpMatch, 2, 3},
    {"regexp_like", Func::kRegexpLike, 2, 3},
    {"abs", Func::kAbs, 1, 1},
    {"ceil", Func::kCeil, 1, 1},
    {"floor", Func::kFloor, 1, 1},
    {"round", Func::kRound, 1, 2},
    {"sqrt", Func::kSqrt, 1, 1},
    {"pow", Func::kPow, 2, 2},
    {"power", Func::kPow, 2, 2},
    {"coalesce", Func::kCoalesce, 1, -1},
    {"nullif", Func::kNullIf, 2, 2},
    {"greatest", Func::kGreatest, 1, -1},
    {"least", Func::kLeast, 1, -1},
    {"date_part", Func::kDatePart, 2, 2},
    {"datepart", Func::kDatePart, 2, 2},
    {"date_trunc", Func::kDateTrunc, 2, 2},
    {"datetrunc", Func::kDateTrunc, 2, 2},
    {"now", Func::kNow, 0, 0},
    {"current_timestamp", Func::kNow, 0, 0},
    {"current_date", Func::kCurrentDate, 0, 0},
    {"today", Func::kCurrentDate, 0, 0},
    {"array_has", Func::kArrayHas, 2, 2},
    {"array_contains", Func::kArrayHas, 2, 2},
    {"list_has", Func::kArrayHas, 2, 2},
    {"array_has_any", Func::kArrayHasAny, 2, 2},
    {"array_has_all", Func::kArrayHasAll, 2, 2},
    {"array_length", Func::kArrayLength, 1, 1},
    {"list_length", Func::kArrayLength, 1, 1},
};

const char* kDateParts[] = {"year",        "quarter",     "month", "week",   "day",
                            "doy",         "dow",         "hour",  "minute", "second",
                            "millisecond", "microsecond", "epoch"};
const char* kTruncParts[] = {"year", "quarter", "month", "week", "day", "hour", "minute", "second"};

}  // namespace

Result<ValueKind> Binder::Unify(std::vector<BoundPtr>* args, size_t pos, const char* what) {
  ValueKind kind = ValueKind::kNull;
  const BoundExpr* first = nullptr;
  for (const auto& a : *args) {
    if (first == nullptr || kind == ValueKind::kNull) {
      if (a->kind != ValueKind::kNull || first == nullptr) {
        kind = a->kind;
        first = a.get();
      }
      continue;
    }
    BoundExpr probe;
    probe.kind = kind;
    probe.type = first->type;
    probe.op = first->op;
    LANCEDB_ASSIGN_OR_RETURN(kind, CommonKind(probe, *a, pos, what));
  }
  for (auto& a : *args) {
    LANCEDB_ASSIGN_OR_RETURN(a, Coerce(a, kind));
  }
  return kind;
}

Result<BoundPtr> Binder::BindBetween(const Node& n) {
  std::vector<BoundPtr> args;
  for (const auto& a : n.args) {
    LANCEDB_ASSIGN_OR_RETURN(auto b, BindNode(*a));
    args.push_back(std::move(b));
  }
  LANCEDB_RETURN_NOT_OK(Unify(&args, n.position, "compare").status());
  auto both = NewNode(BoundOp::kAnd, ValueKind::kBool, array::boolean(), n.position);
  both->args = {Compare(args[0], args[1], BinaryOp::kGe, n.position),
                Compare(args[0], args[2], BinaryOp::kLe, n.position)};
  if (!n.negated) return BoundPtr(both);
  auto neg = NewNode(BoundOp::kNot, ValueKind::kBool, array::boolean(), n.position);
  neg->args = {std::move(both)};
  return BoundPtr(neg);
}

Result<BoundPtr> Binder::BindIn(const Node& n) {
  auto e = NewNode(BoundOp::kIn, ValueKind::kBool, array::boolean(), n.position);
  for (const auto& a : n.args) {
    LANCEDB_ASSIGN_OR_RETURN(auto b, BindNode(*a));
    e->args.push_back(std::move(b));
  }
  LANCEDB_ASSIGN_OR_RETURN(auto kind, Unify(&e->args, n.position, "compare"));
  if (kind == ValueKind::kList || kind == ValueKind::kStruct) {
    return TypeError(n.position, "IN is not supported on " + Describe(*e->args[0]));
  }
  e->negated = n.negated;
  return BoundPtr(e);
}

Result<BoundPtr> Binder::BindLike(const Node& n) {
  auto e = NewNode(BoundOp::kLike, ValueKind::kBool, array::boolean(), n.position);
  for (const auto& a : n.args) {
    LANCEDB_ASSIGN_OR_RETURN(auto b, BindNode(*a));
    if (b->kind != ValueKind::kString && b->kind != ValueKind::kNull) {
      return TypeError(n.position, "LIKE needs strings, got " + Describe(*b));
    }
    LANCEDB_ASSIGN_OR_RETURN(b, Coerce(std::move(b), ValueKind::kString));
    e->args.push_back(std::move(b));
  }
  if (e->args.size() == 3 &&
      (e->args[2]->op != BoundOp::kLiteral || e->args[2]->literal.string_value.size() != 1)) {
    return TypeError(n.position, "ESCAPE needs a one-character string literal");
  }
  e->negated = n.negated;
  e->case_insensitive = n.case_insensitive;
  return BoundPtr(e);
}

Result<BoundPtr> Binder::BindCase(const Node& n) {
  std::vector<BoundPtr> args;
  for (const auto& a : n.args) {
    LANCEDB_ASSIGN_OR_RETURN(auto b, BindNode(*a));
    args.push_back(std::move(b));
  }
  size_t i = 0;
  BoundPtr operand;
  if (n.has_operand) operand = args[i++];
  const size_t end = args.size() - (n.has_else ? 1 : 0);
  std::vector<BoundPtr> conds, values;
  for (; i < end; i += 2) {
    BoundPtr cond = args[i];
    if (operand) {
      std::vector<BoundPtr> pair = {operand, cond};
      LANCEDB_RETURN_NOT_OK(Unify(&pair, cond->position, "compare").status());
      cond = Compare(pair[0], pair[1], BinaryOp::kEq, cond->position);
    } else {
      LANCEDB_ASSIGN_OR_RETURN(cond, RequireBool(cond, "CASE WHEN"));
    }
    conds.push_back(std::move(cond));
    values.push_back(args[i + 1]);
  }
  if (n.has_else) values.push_back(args.back());
  LANCEDB_ASSIGN_OR_RETURN(auto kind, Unify(&values, n.position, "mix in CASE"));
  auto e = NewNode(BoundOp::kCase, kind, DefaultType(kind), n.position);
  for (const auto& v : values) {
    if (v->type && v->type->id() != array::TypeId::kNull && v->kind == kind) {
      e->type = v->type;
      break;
    }
  }
  for (size_t k = 0; k < conds.size(); ++k) {
    e->args.push_back(conds[k]);
    e->args.push_back(values[k]);
  }
  e->has_else = n.has_else;
  if (n.has_else) e->args.push_back(values.back());
  return BoundPtr(e);
}

Result<BoundPtr> Binder::BindCast(const Node& n) {
  LANCEDB_ASSIGN_OR_RETURN(auto arg, BindNode(*n.args[0]));
  LANCEDB_ASSIGN_OR_RETURN(auto kind, KindOf(*n.cast_type));
  auto castable = [](ValueKind k) { return k != ValueKind::kList && k != ValueKind::kStruct; };
  // time and duration convert only to and from strings and integers (time also from timestamp).
  auto clock_ok = [](ValueKind clock, ValueKind other, bool from_other) {
    return other == clock || other == ValueKind::kString || other == ValueKind::kInt ||
           other == ValueKind::kNull ||
           (clock == ValueKind::kTime && from_other && other == ValueKind::kTimestamp);
  };
  const bool clock_from = arg->kind == ValueKind::kTime || arg->kind == ValueKind::kDuration;
  const bool clock_to = kind == ValueKind::kTime || kind == ValueKind::kDuration;
  if ((clock_from && !clock_ok(arg->kind, kind, false)) ||
      (clock_to && !clock_ok(kind, arg->kind, true))) {
    return TypeError(n.position,
                     "cannot cast " + Describe(*arg) + " to " + n.cast_type->ToString());
  }
  if (!castable(arg->kind) || !castable(kind) ||
      (arg->kind == ValueKind::kBool &&
       (kind == ValueKind::kDate || kind == ValueKind::kTimestamp)) ||
      ((arg->kind == ValueKind::kDate || arg->kind == ValueKind::kTimestamp) &&
       (kind == ValueKind::kBool || kind == ValueKind::kFloat))) {
    return TypeError(n.position,
                     "cannot cast " + Describe(*arg) + " to " + n.cast_type->ToString());
  }
  if (arg->op == BoundOp::kLiteral && arg->kind == ValueKind::kString &&
      kind != ValueKind::kString && kind != ValueKind::kBool) {
    LANCEDB_ASSIGN_OR_RETURN(arg, Coerce(std::move(arg), kind));  // errors at bind time
  }
  return MakeCast(std::move(arg), kind, n.cast_type);
}

Result<BoundPtr> Binder::BindArray(const Node& n) {
  std::vector<BoundPtr> items;
  for (const auto& a : n.args) {
    LANCEDB_ASSIGN_OR_RETURN(auto b, BindNode(*a));
    items.push_back(std::move(b));
  }
  LANCEDB_ASSIGN_OR_RETURN(auto kind, Unify(&items, n.position, "mix in an array"));
  if (kind == ValueKind::kList || kind == ValueKind::kStruct) {
    return TypeError(n.position, "nested array literals are not supported");
  }
  array::DataTypePtr item = DefaultType(kind);
  for (const auto& i : items) {
    if (i->type && i->kind == kind && i->type->id() != array::TypeId::kNull) item = i->type;
  }
  auto e = NewNode(BoundOp::kArray, ValueKind::kList, array::list(item), n.position);
  e->args = std::move(items);
  return BoundPtr(e);
}

Result<BoundPtr> Binder::BindFunction(const Node& n) {
  const FunctionInfo* info = nullptr;
  for (const auto& f : kFunctions) {
    if (n.name == f.name) info = &f;
  }
  if (info == nullptr) {
    return Status::InvalidArgument("Unknown function '" + n.name + "' at position " +
                                   std::to_string(n.position + 1));
  }
  const int nargs = static_cast<int>(n.args.size());
  if (nargs < info->min_args || (info->max_args >= 0 && nargs > info->max_args)) {
    return TypeError(
        n.position,
        "function " + n.name + " takes " + std::to_string(info->min_args) +
            (info->max_args == info->min_args
                 ? ""
                 : (info->max_args < 0 ? " or more" : " to " + std::to_string(info->max_args))) +
            " arguments, got " + std::to_string(nargs));
  }
  std::vector<BoundPtr> args;
  for (const auto& a : n.args) {
    LANCEDB_ASSIGN_OR_RETURN(auto b, BindNode(*a));
    args.push_back(std::move(b));
  }
  auto e = NewNode(BoundOp::kFunction, ValueKind::kNull, nullptr, n.position);
  e->func = info->func;
  auto want = [&](size_t i, ValueKind kind) -> Status {
    const auto& a = args[i];
    bool ok = a->kind == kind || a->kind == ValueKind::kNull ||
              (kind == ValueKind::kFloat && a->kind == ValueKind::kInt) ||
              (kind == ValueKind::kString && a->op == BoundOp::kLiteral) ||
              (kind == ValueKind::kTimestamp && a->kind == ValueKind::kDate) ||
              (kind == ValueKind::kTimestamp && a->kind == ValueKind::kString &&
               a->op == BoundOp::kLiteral);
    if (!ok) {
      return TypeError(a->position, "function " + n.name + " argument " + std::to_string(i + 1) +
                                        " must be " + ValueKindName(kind) + ", got " +
                                        Describe(*a));
    }
    LANCEDB_ASSIGN_OR_RETURN(args[i], Coerce(a, kind));
    return Status::OK();
  };
  auto set = [&](ValueKind kind, array::DataTypePtr type) {
    e->kind = kind;
    e->type = std::move(type);
  };
  switch (info->func) {
    case Func::kLower:
    case Func::kUpper:
    case Func::kTrim:
    case Func::kLtrim:
    case Func::kRtrim:
    case Func::kReplace:
      for (size_t i = 0; i < args.size(); ++i) LANCEDB_RETURN_NOT_OK(want(i, ValueKind::kString));
      set(ValueKind::kString, array::utf8());
      break;
    case Func::kLength:
      LANCEDB_RETURN_NOT_OK(want(0, ValueKind::kString));
      set(ValueKind::kInt, array::int32());
      break;
    case Func::kSubstr:
      LANCEDB_RETURN_NOT_OK(want(0, ValueKind::kString));
      for (size_t i = 1; i < args.size(); ++i) LANCEDB_RETURN_NOT_OK(want(i, ValueKind::kInt));
      set(ValueKind::kString, array::utf8());
      break;
    case Func::kConcat:
      for (auto& a : args) {
        if (a->kind == ValueKind::kList || a->kind == ValueKind::kStruct) {
          return TypeError(a->position, "concat cannot take " + Describe(*a));
        }
        LANCEDB_ASSIGN_OR_RETURN(a, Coerce(a, ValueKind::kString));
      }
      set(ValueKind::kString, array::utf8());
      break;
    case Func::kStartsWith:
    case Func::kEndsWith:
    case Func::kContains:
    case Func::kRegexpLike:
      for (size_t i = 0; i < args.size(); ++i) LANCEDB_RETURN_NOT_OK(want(i, ValueKind::kString));
      set(ValueKind::kBool, array::boolean());
      break;
    case Func::kRegexpMatch:
      for (size_t i = 0; i < args.size(); ++i) LANCEDB_RETURN_NOT_OK(want(i, ValueKind::kString));
      set(ValueKind::kList, array::list(array::utf8()));
      break;
    case Func::kAbs:
      // Integers stay integers (abs of the most negative value wraps, as in Arrow).
      if (args[0]->kind != ValueKind::kInt) LANCEDB_RETURN_NOT_OK(want(0, ValueKind::kFloat));
      if (args[0]->kind == ValueKind::kNull) {
        LANCEDB_ASSIGN_OR_RETURN(args[0], Coerce(args[0], ValueKind::kInt));
      }
      set(args[0]->kind, args[0]->type);
      break;
    case Func::kCeil:
    case Func::kFloor:
    case Func::kSqrt:
    case Func::kRound: {
      LANCEDB_RETURN_NOT_OK(want(0, ValueKind::kFloat));
      bool f32 = args[0]->type && args[0]->type->id() == array::TypeId::kFloat32;
      LANCEDB_ASSIGN_OR_RETURN(args[0], Coerce(args[0], ValueKind::kFloat));
      if (args.size() > 1) LANCEDB_RETURN_NOT_OK(want(1, ValueKind::kInt));
      set(ValueKind::kFloat, f32 ? array::float32() : array::float64());
      break;
    }
    case Func::kPow: {
      // DataFusion computes power() in float64, integer arguments included.
      LANCEDB_RETURN_NOT_OK(want(0, ValueKind::kFloat));
      LANCEDB_RETURN_NOT_OK(want(1, ValueKind::kFloat));
      LANCEDB_ASSIGN_OR_RETURN(args[0], Coerce(args[0], ValueKind::kFloat));
      LANCEDB_ASSIGN_OR_RETURN(args[1], Coerce(args[1], ValueKind::kFloat));
      set(ValueKind::kFloat, array::float64());
      break;
    }
    case Func::kCoalesce:
    case Func::kGreatest:
    case Func::kLeast:
    case Func::kNullIf: {
      array::DataTypePtr type = args[0]->type;
      LANCEDB_ASSIGN_OR_RETURN(auto kind, Unify(&args, n.position, "combine"));
      if (kind == ValueKind::kList || kind == ValueKind::kStruct) {
        return TypeError(n.position, n.name + " cannot take " + Describe(*args[0]));
      }
      for (const auto& a : args) {
        if (info->func != Func::kNullIf && a->type && a->type->id() != array::TypeId::kNull) {
          type = a->type;
          break;
        }
      }
      if (!type || type->id() == array::TypeId::kNull || KindOf(*type).ValueOr(kind) != kind) {
        type = DefaultType(kind);
      }
      set(kind, type);
      break;
    }
    case Func::kDatePart:
    case Func::kDateTrunc: {
      if (args[0]->op != BoundOp::kLiteral || args[0]->kind != ValueKind::kString) {
        return TypeError(n.position, n.name + " needs a literal part name ('year', ...)");
      }
      std::string part = args[0]->literal.string_value;
      for (auto& c : part) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      bool trunc = info->func == Func::kDateTrunc;
      bool known = false;
      if (trunc) {
        for (const char* p : kTruncParts) known |= part == p;
      } else {
        for (const char* p : kDateParts) known |= part == p;
      }
      if (!known) return TypeError(args[0]->position, "unknown date part '" + part + "'");
      auto lit = std::make_shared<BoundExpr>(*args[0]);
      lit->literal.string_value = part;
      args[0] = lit;
      if (args[1]->kind != ValueKind::kDate) LANCEDB_RETURN_NOT_OK(want(1, ValueKind::kTimestamp));
      if (trunc) {
        array::DataTypePtr type = args[1]->kind == ValueKind::kTimestamp && args[1]->type &&
                                          args[1]->type->id() == array::TypeId::kTimestamp
                                      ? args[1]->type
                                      : array::timestamp(array::TimeUnit::kNano);
        LANCEDB_ASSIGN_OR_RETURN(args[1], Coerce(args[1], ValueKind::kTimestamp));
        set(ValueKind::kTimestamp, type);
      } else if (part == "epoch") {
        set(ValueKind::kFloat, array::float64());
      } else {
        set(ValueKind::kInt, array::int32());
      }
      break;
    }
    case Func::kNow:
    case Func::kCurrentDate: {
      // Evaluated once, when the statement is bound (as DataFusion does).
      if (!now_) {
        now_ = std::chrono::duration_cast<std::chrono::microseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
      }
      const int64_t now = *now_;
      auto lit = NewNode(BoundOp::kLiteral, ValueKind::kTimestamp,
                         array::timestamp(array::TimeUnit::kNano, "+00:00"), n.position);
      lit->literal.kind = LiteralKind::kTimestamp;
      lit->literal.int_value = now;
      if (info->func == Func::kCurrentDate) {
        lit->kind = ValueKind::kDate;
        lit->type = array::date32();
        lit->literal.kind = LiteralKind::kDate;
        lit->literal.int_value = int_util::FloorDiv(now, kMicrosPerDay);
      }
      return BoundPtr(lit);
    }
    case Func::kArrayHas:
    case Func::kArrayHasAny:
    case Func::kArrayHasAll:
    case Func::kArrayLength: {
      if (args[0]->kind != ValueKind::kList) {
        return TypeError(args[0]->position, n.name + " needs a list, got " + Describe(*args[0]));
      }
      ValueKind item;
      LANCEDB_ASSIGN_OR_RETURN(item, KindOf(*args[0]->type->value_type()));
      if (info->func == Func::kArrayLength) {
        set(ValueKind::kInt, array::uint64());
        break;
      }
      if (info->func == Func::kArrayHas) {
        BoundExpr probe;
        probe.kind = item;
        probe.type = args[0]->type->value_type();
        probe.op = BoundOp::kColumn;
        LANCEDB_ASSIGN_OR_RETURN(auto kind, CommonKind(probe, *args[1], n.position, "compare"));
        if (kind != item) {
          return TypeError(args[1]->position,
                           "cannot look for " + Describe(*args[1]) + " in " + Describe(*args[0]));
        }
        LANCEDB_ASSIGN_OR_RETURN(args[1], Coerce(args[1], item));
      } else {
        if (args[1]->kind != ValueKind::kList) {
          return TypeError(args[1]->position, n.name + " needs a list, got " + Describe(*args[1]));
        }
        ValueKind other;
        LANCEDB_ASSIGN_OR_RETURN(other, KindOf(*args[1]->type->value_type()));
        bool ok = other == item || other == ValueKind::kNull ||
                  (other == ValueKind::kInt && item == ValueKind::kFloat);
        if (!ok && args[1]->op == BoundOp::kArray) {
          auto arr = std::make_shared<BoundExpr>(*args[1]);
          for (auto& it : arr->args) {
            LANCEDB_ASSIGN_OR_RETURN(it, Coerce(it, item));
          }
          arr->type = array::list(args[0]->type->value_type());
          args[1] = arr;
          ok = true;
        } else if (ok && other != item && args[1]->op == BoundOp::kArray) {
          auto arr = std::make_shared<BoundExpr>(*args[1]);
          for (auto& it : arr->args) {
            LANCEDB_ASSIGN_OR_RETURN(it, Coerce(it, item));
          }
          arr->type = array::list(args[0]->type->value_type());
          args[1] = arr;
        } else if (other != item) {
          ok = false;
        }
        if (!ok) {
          return TypeError(n.position, "cannot compare items of " + Describe(*args[0]) + " and " +
                                           Describe(*args[1]));
        }
      }
      set(ValueKind::kBool, array::boolean());
      break;
    }
  }
  if (info->func == Func::kRegexpLike || info->func == Func::kRegexpMatch) {
    const bool flags_fixed = args.size() < 3 || (args[2]->op == BoundOp::kLiteral &&
                                                 args[2]->kind == ValueKind::kString);
    if (args[1]->op == BoundOp::kLiteral && args[1]->kind == ValueKind::kString && flags_fixed) {
      auto compiled = CompileRegex(args[1]->literal.string_value,
                                   args.size() > 2 ? args[2]->literal.string_value : "");
      if (!compiled.ok()) return TypeError(args[1]->position, compiled.status().message());
      e->state = compiled.MoveValueUnsafe();
    }
  }
  e->args = std::move(args);
  return BoundPtr(e);
}

}  // namespace lancedb::expr
