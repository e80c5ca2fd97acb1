// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Conditional functions: coalesce, nullif, greatest, least (DataFusion semantics: greatest
// and least skip NULLs and return NULL only when every argument is NULL).

#include "expr/binder_internal.h"
#include "expr/evaluator.h"
#include "expr/function.h"

namespace lancedb::expr {

namespace {

/// Unify the arguments; the result has the first argument's type (`first_only`, nullif) or
/// the first non-NULL argument's type, when that type is of the common kind.
Status BindUnified(FunctionBinding& call, bool first_only) {
  array::DataTypePtr type = call.args[0]->type;
  LANCEDB_ASSIGN_OR_RETURN(auto kind, call.Unify("combine"));
  if (kind == ValueKind::kList || kind == ValueKind::kStruct) {
    return call.Error(call.name + " cannot take " + Describe(*call.args[0]));
  }
  if (!first_only) {
    for (const auto& a : call.args) {
      if (a->type && a->type->id() != array::TypeId::kNull) {
        type = a->type;
        break;
      }
    }
  }
  if (!type || type->id() == array::TypeId::kNull || KindOf(*type).ValueOr(kind) != kind) {
    type = DefaultType(kind);
  }
  call.Set(kind, type);
  return Status::OK();
}

Status BindCombine(FunctionBinding& call) { return BindUnified(call, false); }
Status BindNullIf(FunctionBinding& call) { return BindUnified(call, true); }

/// Keep the strings of every argument alive in `out`.
void KeepArguments(const std::vector<Vec>& args, Vec* out) {
  for (const auto& a : args) {
    if (a.store) out->keep.push_back(std::shared_ptr<const array::ArrayData>(a.store, nullptr));
    for (const auto& k : a.keep) out->keep.push_back(k);
  }
}

/// Whether row i of `a` orders before (kLess) or after (!kLess) row i of `b` (same kind).
template <bool kLess>
bool Before(const Vec& a, const Vec& b, size_t i) {
  switch (a.kind) {
    case ValueKind::kFloat:
      return kLess ? a.floats[i] < b.floats[i] : a.floats[i] > b.floats[i];
    case ValueKind::kString:
      return kLess ? a.strings[i] < b.strings[i] : a.strings[i] > b.strings[i];
    case ValueKind::kBool:
      return kLess ? a.bools[i] < b.bools[i] : a.bools[i] > b.bools[i];
    default:
      return kLess ? a.ints[i] < b.ints[i] : a.ints[i] > b.ints[i];
  }
}

void CopyValue(const Vec& from, size_t i, Vec* to) {
  switch (to->kind) {
    case ValueKind::kFloat:
      to->floats[i] = from.floats[i];
      break;
    case ValueKind::kString:
      to->strings[i] = from.strings[i];
      break;
    case ValueKind::kBool:
      to->bools[i] = from.bools[i];
      break;
    default:
      to->ints[i] = from.ints[i];
      break;
  }
}

/// take(candidate, current, row): whether a valid candidate replaces the current value.
template <typename Take>
Status Select(FunctionCall& call, Vec* out, Take take, bool first_only) {
  out->valid.assign(call.length, 0);
  KeepArguments(call.args, out);
  for (size_t i = 0; i < call.length; ++i) {
    for (const auto& a : call.args) {
      if (a.kind == ValueKind::kNull || !a.IsValid(static_cast<int64_t>(i))) continue;
      if (!out->valid[i] || take(a, *out, i)) {
        out->valid[i] = 1;
        CopyValue(a, i, out);
      }
      if (first_only) break;
    }
  }
  return Status::OK();
}

Status EvalCoalesce(FunctionCall& call, Vec* out) {
  return Select(
      call, out, [](const Vec&, const Vec&, size_t) { return false; }, true);
}

Status EvalGreatest(FunctionCall& call, Vec* out) {
  return Select(call, out, Before<false>, false);
}

Status EvalLeast(FunctionCall& call, Vec* out) { return Select(call, out, Before<true>, false); }

/// nullif(a, b): a, or NULL where a = b.
Status EvalNullIf(FunctionCall& call, Vec* out) {
  BoundExpr eq;
  eq.op = BoundOp::kCompare;
  eq.bop = BinaryOp::kEq;
  eq.kind = ValueKind::kBool;
  eq.args = call.expr.args;
  LANCEDB_ASSIGN_OR_RETURN(auto equal, EvaluateVec(eq, call.batch));
  Vec r = std::move(call.args[0]);
  if (r.kind == ValueKind::kNull) {
    *out = NullVec(out->kind, static_cast<int64_t>(call.length));
    return Status::OK();
  }
  r.MaterializeValidity();
  for (size_t i = 0; i < call.length; ++i) {
    if (equal.IsValid(static_cast<int64_t>(i)) && equal.bools[i]) r.valid[i] = 0;
  }
  *out = std::move(r);
  return Status::OK();
}

constexpr FunctionDef kConditionalFunctions[] = {
    {{"coalesce"}, 1, kVariadic, kCustom, BindCombine, EvalCoalesce},
    {{"nullif"}, 2, 2, kCustom, BindNullIf, EvalNullIf},
    {{"greatest"}, 1, kVariadic, kCustom, BindCombine, EvalGreatest},
    {{"least"}, 1, kVariadic, kCustom, BindCombine, EvalLeast},
};

}  // namespace

std::span<const FunctionDef> ConditionalFunctions() { return kConditionalFunctions; }

}  // namespace lancedb::expr
