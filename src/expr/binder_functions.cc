// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Binding BETWEEN, IN, LIKE, CASE, CAST, arrays and calls of the built-in functions (each
// function binds its own arguments: function.h).

#include "expr/binder_internal.h"
#include "expr/function.h"

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

}  // namespace

Result<ValueKind> Unify(std::vector<BoundPtr>* args, size_t pos, const char* what) {
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
  const FunctionDef* def = FindFunction(n.name);
  if (def == nullptr) {
    return Status::InvalidArgument("Unknown function '" + n.name + "' at position " +
                                   std::to_string(n.position + 1));
  }
  const int nargs = static_cast<int>(n.args.size());
  if (nargs < def->min_args || (def->max_args != kVariadic && nargs > def->max_args)) {
    const std::string upto =
        def->max_args == def->min_args
            ? ""
            : (def->max_args == kVariadic ? " or more" : " to " + std::to_string(def->max_args));
    return TypeError(n.position, "function " + n.name + " takes " + std::to_string(def->min_args) +
                                     upto + " arguments, got " + std::to_string(nargs));
  }
  std::vector<BoundPtr> args;
  for (const auto& a : n.args) {
    LANCEDB_ASSIGN_OR_RETURN(auto b, BindNode(*a));
    args.push_back(std::move(b));
  }
  FunctionBinding call(*def, n.name, n.position, std::move(args), &now_);
  LANCEDB_RETURN_NOT_OK(def->bind(call));
  if (call.replacement) return call.replacement;
  auto e = NewNode(BoundOp::kFunction, call.kind, call.type, n.position);
  e->function = def;
  e->args = std::move(call.args);
  e->state = std::move(call.state);
  return BoundPtr(e);
}

}  // namespace lancedb::expr
