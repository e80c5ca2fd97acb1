// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "expr/function.h"

#include <chrono>
#include <map>

#include "expr/binder_internal.h"
#include "expr/evaluator.h"

namespace lancedb::expr {

namespace {

using Registry = std::map<std::string, const FunctionDef*, std::less<>>;

Registry MakeRegistry() {
  Registry out;
  for (auto family : {StringFunctions(), RegexFunctions(), MathFunctions(), ConditionalFunctions(),
                      TemporalFunctions(), ArrayFunctions()}) {
    for (const auto& def : family) {
      for (std::string_view name : def.names) {
        if (!name.empty()) out.emplace(std::string(name), &def);
      }
    }
  }
  return out;
}

/// valid[i] = every argument valid at i (empty: all valid).
std::vector<uint8_t> AllArgsValid(const std::vector<Vec>& args) {
  std::vector<uint8_t> out;
  for (const auto& a : args) {
    if (a.valid.empty()) continue;
    if (out.empty()) {
      out = a.valid;
    } else {
      for (size_t i = 0; i < out.size(); ++i) out[i] &= a.valid[i];
    }
  }
  return out;
}

}  // namespace

const FunctionDef* FindFunction(std::string_view name) {
  static const Registry kRegistry = MakeRegistry();
  auto it = kRegistry.find(name);
  return it == kRegistry.end() ? nullptr : it->second;
}

Status FunctionBinding::Want(size_t i, ValueKind want) {
  const auto& a = args[i];
  const bool ok = a->kind == want || a->kind == ValueKind::kNull ||
                  (want == ValueKind::kFloat && a->kind == ValueKind::kInt) ||
                  (want == ValueKind::kString && a->op == BoundOp::kLiteral) ||
                  (want == ValueKind::kTimestamp && a->kind == ValueKind::kDate) ||
                  (want == ValueKind::kTimestamp && a->kind == ValueKind::kString &&
                   a->op == BoundOp::kLiteral);
  if (!ok) {
    return TypeError(a->position, "function " + name + " argument " + std::to_string(i + 1) +
                                      " must be " + ValueKindName(want) + ", got " + Describe(*a));
  }
  LANCEDB_ASSIGN_OR_RETURN(args[i], Coerce(a, want));
  return Status::OK();
}

Status FunctionBinding::WantAll(ValueKind want) {
  for (size_t i = 0; i < args.size(); ++i) LANCEDB_RETURN_NOT_OK(Want(i, want));
  return Status::OK();
}

Result<ValueKind> FunctionBinding::Unify(const char* what) {
  return expr::Unify(&args, position, what);
}

Status FunctionBinding::Error(const std::string& what) const { return TypeError(position, what); }

int64_t FunctionBinding::StatementNow() {
  if (!*statement_now_) {
    *statement_now_ = std::chrono::duration_cast<std::chrono::microseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  }
  return **statement_now_;
}

Result<Vec> EvaluateFunction(const BoundExpr& e, const array::RecordBatch& batch) {
  const int64_t n = batch.num_rows();
  std::vector<Vec> args;
  args.reserve(e.args.size());
  for (const auto& a : e.args) {
    LANCEDB_ASSIGN_OR_RETURN(auto v, EvaluateVec(*a, batch));
    args.push_back(std::move(v));
  }
  if (e.function == nullptr || e.function->evaluate == nullptr) {
    return Status::Internal("function call without an evaluator");
  }
  Vec out = NullVec(e.kind, n);
  out.valid.clear();
  if (e.function->nulls == NullHandling::kPropagate) {
    out.valid = AllArgsValid(args);
    for (const auto& a : args) {
      if (a.kind == ValueKind::kNull) out.valid.assign(static_cast<size_t>(n), 0);
    }
  }
  FunctionCall call{e, args, batch, static_cast<size_t>(n)};
  LANCEDB_RETURN_NOT_OK(e.function->evaluate(call, &out));
  return out;
}

}  // namespace lancedb::expr
