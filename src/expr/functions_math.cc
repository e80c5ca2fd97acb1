// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Numeric functions: abs, ceil, floor, round, sqrt, power (DataFusion's result types: ceil,
// floor, round and sqrt return floats of the argument's width, power float64).

#include <cmath>

#include "expr/binder_internal.h"
#include "expr/function.h"

namespace lancedb::expr {

namespace {

/// Integers stay integers (abs of the most negative value wraps, as in Arrow).
Status BindAbs(FunctionBinding& call) {
  auto& arg = call.args[0];
  if (arg->kind != ValueKind::kInt) LANCEDB_RETURN_NOT_OK(call.Want(0, ValueKind::kFloat));
  if (arg->kind == ValueKind::kNull) {
    LANCEDB_ASSIGN_OR_RETURN(arg, Coerce(arg, ValueKind::kInt));
  }
  call.Set(arg->kind, arg->type);
  return Status::OK();
}

Status EvalAbs(FunctionCall& call, Vec* out) {
  const Vec& x = call.args[0];
  out->is_unsigned = x.is_unsigned;
  for (size_t i = 0; i < call.length; ++i) {
    if (out->kind == ValueKind::kInt && x.is_unsigned) {
      out->ints[i] = x.ints[i];
    } else if (out->kind == ValueKind::kInt) {
      out->ints[i] =
          x.ints[i] < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(x.ints[i])) : x.ints[i];
    } else {
      out->floats[i] = std::fabs(x.floats[i]);
    }
  }
  return Status::OK();
}

/// ceil, floor, round, sqrt: float32 stays float32, everything else becomes float64.
Status BindRounding(FunctionBinding& call) {
  LANCEDB_RETURN_NOT_OK(call.Want(0, ValueKind::kFloat));
  const bool f32 = call.args[0]->type && call.args[0]->type->id() == array::TypeId::kFloat32;
  LANCEDB_ASSIGN_OR_RETURN(call.args[0], Coerce(call.args[0], ValueKind::kFloat));
  if (call.args.size() > 1) LANCEDB_RETURN_NOT_OK(call.Want(1, ValueKind::kInt));
  call.Set(ValueKind::kFloat, f32 ? array::float32() : array::float64());
  return Status::OK();
}

template <double (*kFn)(double)>
Status EvalUnaryFloat(FunctionCall& call, Vec* out) {
  for (size_t i = 0; i < call.length; ++i) out->floats[i] = kFn(call.args[0].floats[i]);
  return Status::OK();
}

double Ceil(double x) { return std::ceil(x); }
double Floor(double x) { return std::floor(x); }
double Sqrt(double x) { return std::sqrt(x); }

Status EvalRound(FunctionCall& call, Vec* out) {
  const auto& args = call.args;
  for (size_t i = 0; i < call.length; ++i) {
    const double scale =
        args.size() > 1 ? std::pow(10.0, static_cast<double>(args[1].ints[i])) : 1.0;
    out->floats[i] = std::round(args[0].floats[i] * scale) / scale;
  }
  return Status::OK();
}

/// DataFusion computes power() in float64, integer arguments included.
Status BindPower(FunctionBinding& call) {
  LANCEDB_RETURN_NOT_OK(call.WantAll(ValueKind::kFloat));
  for (auto& a : call.args) {
    LANCEDB_ASSIGN_OR_RETURN(a, Coerce(a, ValueKind::kFloat));
  }
  call.Set(ValueKind::kFloat, array::float64());
  return Status::OK();
}

Status EvalPower(FunctionCall& call, Vec* out) {
  for (size_t i = 0; i < call.length; ++i) {
    out->floats[i] = std::pow(call.args[0].floats[i], call.args[1].floats[i]);
  }
  return Status::OK();
}

constexpr FunctionDef kMathFunctions[] = {
    {{"abs"}, 1, 1, kPropagate, BindAbs, EvalAbs},
    {{"ceil"}, 1, 1, kPropagate, BindRounding, EvalUnaryFloat<Ceil>},
    {{"floor"}, 1, 1, kPropagate, BindRounding, EvalUnaryFloat<Floor>},
    {{"round"}, 1, 2, kPropagate, BindRounding, EvalRound},
    {{"sqrt"}, 1, 1, kPropagate, BindRounding, EvalUnaryFloat<Sqrt>},
    {{"pow", "power"}, 2, 2, kPropagate, BindPower, EvalPower},
};

}  // namespace

std::span<const FunctionDef> MathFunctions() { return kMathFunctions; }

}  // namespace lancedb::expr
