// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Evaluation of operators: columns, literals, arithmetic, comparisons, logic, IS, IN, LIKE,
// CASE, CAST and array literals.

#include "expr/evaluator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "expr/function.h"
#include "expr/utf8.h"

namespace lancedb::expr {

namespace {

Vec Broadcast(const BoundExpr& e, int64_t n) {
  const size_t len = static_cast<size_t>(n);
  if (e.kind == ValueKind::kNull) return NullVec(ValueKind::kNull, n);
  Vec v;
  v.kind = e.kind;
  v.length = n;
  const Literal& lit = e.literal;
  if (lit.kind == LiteralKind::kNull) return NullVec(e.kind, n);
  switch (e.kind) {
    case ValueKind::kBool:
      v.bools.assign(len, lit.bool_value);
      break;
    case ValueKind::kInt:
    case ValueKind::kDate:
    case ValueKind::kTimestamp:
    case ValueKind::kTime:
    case ValueKind::kDuration:
      v.ints.assign(len, lit.int_value);
      v.is_unsigned = e.kind == ValueKind::kInt && e.type && e.type->id() == array::TypeId::kUInt64;
      break;
    case ValueKind::kFloat:
      v.floats.assign(len, lit.float_value);
      break;
    case ValueKind::kString: {
      std::string_view s = v.Own(lit.string_value);
      v.strings.assign(len, s);
      break;
    }
    default:
      break;
  }
  return v;
}

/// valid = a.valid AND b.valid.
std::vector<uint8_t> BothValid(const Vec& a, const Vec& b) {
  if (a.valid.empty()) return b.valid;
  if (b.valid.empty()) return a.valid;
  std::vector<uint8_t> out(a.valid.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = a.valid[i] & b.valid[i];
  return out;
}

template <typename T, typename Op>
void CompareLoop(const std::vector<T>& a, const std::vector<T>& b, std::vector<uint8_t>* out,
                 Op op) {
  out->resize(a.size());
  for (size_t i = 0; i < a.size(); ++i) (*out)[i] = op(a[i], b[i]);
}

template <typename T>
void CompareValues(const std::vector<T>& a, const std::vector<T>& b, BinaryOp op,
                   std::vector<uint8_t>* out) {
  switch (op) {
    case BinaryOp::kEq:
      CompareLoop(a, b, out, [](const T& x, const T& y) { return x == y; });
      break;
    case BinaryOp::kNe:
      CompareLoop(a, b, out, [](const T& x, const T& y) { return x != y; });
      break;
    case BinaryOp::kLt:
      CompareLoop(a, b, out, [](const T& x, const T& y) { return x < y; });
      break;
    case BinaryOp::kLe:
      CompareLoop(a, b, out, [](const T& x, const T& y) { return x <= y; });
      break;
    case BinaryOp::kGt:
      CompareLoop(a, b, out, [](const T& x, const T& y) { return x > y; });
      break;
    case BinaryOp::kGe:
      CompareLoop(a, b, out, [](const T& x, const T& y) { return x >= y; });
      break;
    default:
      break;
  }
}

/// Widen int64 / uint64 bits to a common exact type.
std::vector<__int128> Widen(const Vec& v) {
  std::vector<__int128> out(v.ints.size());
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = v.is_unsigned ? static_cast<__int128>(static_cast<uint64_t>(v.ints[i]))
                           : static_cast<__int128>(v.ints[i]);
  }
  return out;
}

Result<Vec> Compare(const Vec& a, const Vec& b, BinaryOp op) {
  Vec out;
  out.kind = ValueKind::kBool;
  out.length = a.length;
  out.valid = BothValid(a, b);
  switch (a.kind) {
    case ValueKind::kInt:
      if (a.is_unsigned || b.is_unsigned) {
        CompareValues(Widen(a), Widen(b), op, &out.bools);
        break;
      }
      CompareValues(a.ints, b.ints, op, &out.bools);
      break;
    case ValueKind::kDate:
    case ValueKind::kTimestamp:
    case ValueKind::kTime:
    case ValueKind::kDuration:
      CompareValues(a.ints, b.ints, op, &out.bools);
      break;
    case ValueKind::kFloat:
      CompareValues(a.floats, b.floats, op, &out.bools);
      break;
    case ValueKind::kBool:
      CompareValues(a.bools, b.bools, op, &out.bools);
      break;
    case ValueKind::kString:
      CompareValues(a.strings, b.strings, op, &out.bools);
      break;
    case ValueKind::kNull:
      return NullVec(ValueKind::kBool, a.length);
    default:
      return Status::NotSupported("Cannot compare values of this type");
  }
  return out;
}

Result<Vec> Arith(Vec a, const Vec& b, BinaryOp op) {
  Vec out;
  out.kind = a.kind;
  out.length = a.length;
  out.valid = BothValid(a, b);
  const size_t n = static_cast<size_t>(a.length);
  if (a.kind == ValueKind::kFloat) {
    out.floats.resize(n);
    const double* x = a.floats.data();
    const double* y = b.floats.data();
    double* r = out.floats.data();
    switch (op) {
      case BinaryOp::kAdd:
        for (size_t i = 0; i < n; ++i) r[i] = x[i] + y[i];
        break;
      case BinaryOp::kSub:
        for (size_t i = 0; i < n; ++i) r[i] = x[i] - y[i];
        break;
      case BinaryOp::kMul:
        for (size_t i = 0; i < n; ++i) r[i] = x[i] * y[i];
        break;
      case BinaryOp::kDiv:
        for (size_t i = 0; i < n; ++i) r[i] = x[i] / y[i];
        break;
      case BinaryOp::kMod:
        for (size_t i = 0; i < n; ++i) r[i] = std::fmod(x[i], y[i]);
        break;
      default:
        break;
    }
    return out;
  }
  out.ints.resize(n);
  out.is_unsigned = a.is_unsigned && b.is_unsigned;
  const int64_t* x = a.ints.data();
  const int64_t* y = b.ints.data();
  int64_t* r = out.ints.data();
  auto wrap = [](uint64_t v) { return static_cast<int64_t>(v); };
  switch (op) {
    case BinaryOp::kAdd:
      for (size_t i = 0; i < n; ++i)
        r[i] = wrap(static_cast<uint64_t>(x[i]) + static_cast<uint64_t>(y[i]));
      break;
    case BinaryOp::kSub:
      for (size_t i = 0; i < n; ++i)
        r[i] = wrap(static_cast<uint64_t>(x[i]) - static_cast<uint64_t>(y[i]));
      break;
    case BinaryOp::kMul:
      for (size_t i = 0; i < n; ++i)
        r[i] = wrap(static_cast<uint64_t>(x[i]) * static_cast<uint64_t>(y[i]));
      break;
    case BinaryOp::kDiv:
    case BinaryOp::kMod:
      for (size_t i = 0; i < n; ++i) {
        if (!out.valid.empty() && !out.valid[i]) continue;
        if (y[i] == 0) return Status::InvalidArgument("Divide by zero error");
        if (y[i] == -1) {
          r[i] = op == BinaryOp::kDiv ? wrap(0 - static_cast<uint64_t>(x[i])) : 0;
          continue;
        }
        r[i] = op == BinaryOp::kDiv ? x[i] / y[i] : x[i] % y[i];
      }
      break;
    default:
      break;
  }
  return out;
}

/// Decimal values as text with `scale` digits after the point (as Arrow prints them).
Vec DecimalToString(Vec v, int32_t scale) {
  Vec out = NullVec(ValueKind::kString, v.length);
  out.valid = std::move(v.valid);
  for (size_t i = 0; i < out.strings.size(); ++i) {
    if (!out.IsValid(static_cast<int64_t>(i))) continue;
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.*f", std::clamp(scale, 0, 38), v.floats[i]);
    out.strings[i] = out.Own(buf);
  }
  return out;
}

/// What a cast to a specific Arrow type adds to the value kind's cast: decimals round to their
/// scale, integers switch between signed and unsigned (range-checked).
Result<Vec> CastToType(Vec v, const array::DataTypePtr& type) {
  if (!type) return v;
  if (type->id() == array::TypeId::kDecimal128 && v.kind == ValueKind::kFloat) {
    const double scale = std::pow(10.0, type->scale());
    const double limit = std::pow(10.0, type->precision());
    for (size_t i = 0; i < v.floats.size(); ++i) {
      double& f = v.floats[i];
      if (!v.IsValid(static_cast<int64_t>(i))) continue;
      const double scaled = std::round(f * scale);
      if (!(std::fabs(scaled) < limit)) {
        return Status::InvalidArgument("Value " + std::to_string(f) + " is out of range for " +
                                       type->ToString());
      }
      f = scaled / scale;
    }
    return v;
  }
  if (v.kind != ValueKind::kInt) return v;
  const bool to_unsigned = type->id() == array::TypeId::kUInt64;
  if (to_unsigned == v.is_unsigned) return v;
  for (size_t i = 0; i < v.ints.size(); ++i) {
    if (v.IsValid(static_cast<int64_t>(i)) && v.ints[i] < 0) {
      return Status::InvalidArgument("Value " +
                                     (v.is_unsigned
                                          ? std::to_string(static_cast<uint64_t>(v.ints[i]))
                                          : std::to_string(v.ints[i])) +
                                     " is out of range for " + type->ToString());
    }
  }
  v.is_unsigned = to_unsigned;
  return v;
}

Vec Logic(const Vec& a, const Vec& b, bool is_and) {
  Vec out;
  out.kind = ValueKind::kBool;
  out.length = a.length;
  const size_t n = static_cast<size_t>(a.length);
  out.bools.resize(n);
  if (a.valid.empty() && b.valid.empty()) {
    for (size_t i = 0; i < n; ++i)
      out.bools[i] = is_and ? (a.bools[i] & b.bools[i]) : (a.bools[i] | b.bools[i]);
    return out;
  }
  out.valid.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const bool av = a.valid.empty() || a.valid[i], bv = b.valid.empty() || b.valid[i];
    const bool x = a.bools[i], y = b.bools[i];
    if (is_and) {
      // FALSE wins over NULL.
      if ((av && !x) || (bv && !y)) {
        out.bools[i] = 0;
        out.valid[i] = 1;
      } else {
        out.bools[i] = 1;
        out.valid[i] = av && bv;
      }
    } else {
      // TRUE wins over NULL.
      if ((av && x) || (bv && y)) {
        out.bools[i] = 1;
        out.valid[i] = 1;
      } else {
        out.bools[i] = 0;
        out.valid[i] = av && bv;
      }
    }
  }
  return out;
}

/// Copy row i of `src` into row i of `dst` (same kind), including validity.
void CopyRow(const Vec& src, int64_t row, Vec* dst) {
  const size_t i = static_cast<size_t>(row);
  dst->MaterializeValidity();
  dst->valid[i] = src.IsValid(row);
  switch (src.kind) {
    case ValueKind::kBool:
      dst->bools[i] = src.bools[i];
      break;
    case ValueKind::kInt:
    case ValueKind::kDate:
    case ValueKind::kTimestamp:
    case ValueKind::kTime:
    case ValueKind::kDuration:
      dst->ints[i] = src.ints[i];
      break;
    case ValueKind::kFloat:
      dst->floats[i] = src.floats[i];
      break;
    case ValueKind::kString:
      dst->strings[i] = src.strings[i];
      break;
    default:
      break;
  }
}

void KeepAlive(const Vec& src, Vec* dst) {
  if (src.store) dst->keep.push_back(std::shared_ptr<const array::ArrayData>(src.store, nullptr));
  for (const auto& k : src.keep) dst->keep.push_back(k);
}

Result<Vec> EvalColumn(const BoundExpr& e, const array::RecordBatch& batch) {
  array::ArrayPtr arr = batch.GetColumnByName(e.path[0]);
  if (arr == nullptr) return Status::Internal("Column '" + e.path[0] + "' missing from the batch");
  for (size_t i = 1; i < e.path.size(); ++i) {
    LANCEDB_ASSIGN_OR_RETURN(arr, StructField(arr, e.path[i]));
  }
  return FromArray(arr, e.kind);
}

Result<Vec> EvalIn(const BoundExpr& e, const array::RecordBatch& batch) {
  LANCEDB_ASSIGN_OR_RETURN(auto x, EvaluateVec(*e.args[0], batch));
  const size_t n = static_cast<size_t>(x.length);
  Vec out;
  out.kind = ValueKind::kBool;
  out.length = x.length;
  out.bools.assign(n, 0);
  std::vector<uint8_t> saw_null(n, 0);
  for (size_t k = 1; k < e.args.size(); ++k) {
    LANCEDB_ASSIGN_OR_RETURN(auto item, EvaluateVec(*e.args[k], batch));
    LANCEDB_ASSIGN_OR_RETURN(auto eq, Compare(x, item, BinaryOp::kEq));
    for (size_t i = 0; i < n; ++i) {
      if (!eq.IsValid(static_cast<int64_t>(i))) {
        saw_null[i] = 1;
      } else {
        out.bools[i] |= eq.bools[i];
      }
    }
  }
  out.valid.resize(n);
  for (size_t i = 0; i < n; ++i) {
    out.valid[i] = x.IsValid(static_cast<int64_t>(i)) && (out.bools[i] || !saw_null[i]);
    if (e.negated) out.bools[i] = !out.bools[i];
  }
  return out;
}

Result<Vec> EvalLike(const BoundExpr& e, const array::RecordBatch& batch) {
  LANCEDB_ASSIGN_OR_RETURN(auto s, EvaluateVec(*e.args[0], batch));
  LANCEDB_ASSIGN_OR_RETURN(auto p, EvaluateVec(*e.args[1], batch));
  char escape = e.args.size() > 2 ? e.args[2]->literal.string_value[0] : '\\';
  Vec out;
  out.kind = ValueKind::kBool;
  out.length = s.length;
  out.valid = BothValid(s, p);
  const size_t n = static_cast<size_t>(s.length);
  out.bools.resize(n);
  const bool constant = e.args[1]->op == BoundOp::kLiteral;
  std::string lowered_pattern;
  if (constant && e.case_insensitive && n > 0) lowered_pattern = Utf8Fold(p.strings[0]);
  for (size_t i = 0; i < n; ++i) {
    if (!out.valid.empty() && !out.valid[i]) continue;
    bool m;
    if (e.case_insensitive) {
      std::string text = Utf8Fold(s.strings[i]);
      m = LikeMatch(text, constant ? std::string_view(lowered_pattern) : Utf8Fold(p.strings[i]),
                    escape);
    } else {
      m = LikeMatch(s.strings[i], p.strings[i], escape);
    }
    out.bools[i] = m != e.negated;
  }
  return out;
}

Result<Vec> EvalCase(const BoundExpr& e, const array::RecordBatch& batch) {
  const int64_t n = batch.num_rows();
  Vec out = NullVec(e.kind, n);
  std::vector<uint8_t> done(static_cast<size_t>(n), 0);
  const size_t pairs = (e.args.size() - (e.has_else ? 1 : 0)) / 2;
  for (size_t k = 0; k < pairs; ++k) {
    LANCEDB_ASSIGN_OR_RETURN(auto cond, EvaluateVec(*e.args[2 * k], batch));
    LANCEDB_ASSIGN_OR_RETURN(auto value, EvaluateVec(*e.args[2 * k + 1], batch));
    KeepAlive(value, &out);
    for (int64_t i = 0; i < n; ++i) {
      const size_t u = static_cast<size_t>(i);
      if (done[u] || !cond.IsValid(i) || !cond.bools[u]) continue;
      done[u] = 1;
      if (value.kind != ValueKind::kNull) CopyRow(value, i, &out);
    }
  }
  if (e.has_else) {
    LANCEDB_ASSIGN_OR_RETURN(auto value, EvaluateVec(*e.args.back(), batch));
    KeepAlive(value, &out);
    for (int64_t i = 0; i < n; ++i) {
      if (!done[static_cast<size_t>(i)] && value.kind != ValueKind::kNull) CopyRow(value, i, &out);
    }
  }
  return out;
}

}  // namespace

Result<Vec> EvaluateVec(const BoundExpr& e, const array::RecordBatch& batch) {
  const int64_t n = batch.num_rows();
  switch (e.op) {
    case BoundOp::kLiteral:
      return Broadcast(e, n);
    case BoundOp::kColumn:
      return EvalColumn(e, batch);
    case BoundOp::kNegate: {
      LANCEDB_ASSIGN_OR_RETURN(auto v, EvaluateVec(*e.args[0], batch));
      for (auto& x : v.ints) x = static_cast<int64_t>(0 - static_cast<uint64_t>(x));
      for (auto& x : v.floats) x = -x;
      return v;
    }
    case BoundOp::kNot: {
      LANCEDB_ASSIGN_OR_RETURN(auto v, EvaluateVec(*e.args[0], batch));
      for (auto& b : v.bools) b = !b;
      return v;
    }
    case BoundOp::kArith: {
      LANCEDB_ASSIGN_OR_RETURN(auto a, EvaluateVec(*e.args[0], batch));
      LANCEDB_ASSIGN_OR_RETURN(auto b, EvaluateVec(*e.args[1], batch));
      LANCEDB_ASSIGN_OR_RETURN(auto r, Arith(std::move(a), b, e.bop));
      r.kind = e.kind;  // timestamp - timestamp = duration, ...
      return r;
    }
    case BoundOp::kCompare: {
      LANCEDB_ASSIGN_OR_RETURN(auto a, EvaluateVec(*e.args[0], batch));
      LANCEDB_ASSIGN_OR_RETURN(auto b, EvaluateVec(*e.args[1], batch));
      return Compare(a, b, e.bop);
    }
    case BoundOp::kAnd:
    case BoundOp::kOr: {
      LANCEDB_ASSIGN_OR_RETURN(auto a, EvaluateVec(*e.args[0], batch));
      LANCEDB_ASSIGN_OR_RETURN(auto b, EvaluateVec(*e.args[1], batch));
      return Logic(a, b, e.op == BoundOp::kAnd);
    }
    case BoundOp::kConcat: {
      LANCEDB_ASSIGN_OR_RETURN(auto a, EvaluateVec(*e.args[0], batch));
      LANCEDB_ASSIGN_OR_RETURN(auto b, EvaluateVec(*e.args[1], batch));
      Vec out;
      out.kind = ValueKind::kString;
      out.length = n;
      out.valid = BothValid(a, b);
      out.strings.resize(static_cast<size_t>(n));
      for (size_t i = 0; i < out.strings.size(); ++i) {
        if (out.valid.empty() || out.valid[i]) {
          out.strings[i] = out.Own(std::string(a.strings[i]) + std::string(b.strings[i]));
        }
      }
      return out;
    }
    case BoundOp::kIs: {
      LANCEDB_ASSIGN_OR_RETURN(auto v, EvaluateVec(*e.args[0], batch));
      Vec out;
      out.kind = ValueKind::kBool;
      out.length = n;
      out.bools.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        const size_t u = static_cast<size_t>(i);
        bool r;
        switch (e.is_what) {
          case IsWhat::kNull:
            r = !v.IsValid(i);
            break;
          case IsWhat::kTrue:
            r = v.IsValid(i) && v.bools[u];
            break;
          default:
            r = v.IsValid(i) && !v.bools[u];
            break;
        }
        out.bools[u] = r != e.negated;
      }
      return out;
    }
    case BoundOp::kIn:
      return EvalIn(e, batch);
    case BoundOp::kLike:
      return EvalLike(e, batch);
    case BoundOp::kCase:
      return EvalCase(e, batch);
    case BoundOp::kCast: {
      LANCEDB_ASSIGN_OR_RETURN(auto v, EvaluateVec(*e.args[0], batch));
      const auto& from = e.args[0]->type;
      if (from && from->id() == array::TypeId::kDecimal128 && e.kind == ValueKind::kString &&
          v.kind == ValueKind::kFloat) {
        return DecimalToString(std::move(v), from->scale());
      }
      LANCEDB_ASSIGN_OR_RETURN(v, CastVec(std::move(v), e.kind));
      return CastToType(std::move(v), e.type);
    }
    case BoundOp::kFunction:
      return EvaluateFunction(e, batch);
    case BoundOp::kArray: {
      Vec out;
      out.kind = ValueKind::kList;
      out.length = n;
      for (const auto& item : e.args) {
        LANCEDB_ASSIGN_OR_RETURN(auto v, EvaluateVec(*item, batch));
        out.items.push_back(std::move(v));
      }
      return out;
    }
  }
  return Status::Internal("unknown bound node");
}

Result<array::ArrayPtr> Evaluate(const BoundExpression& e, const array::RecordBatch& batch,
                                 const array::DataTypePtr& type) {
  const array::DataTypePtr& target = type ? type : e.root->type;
  if (e.root->op == BoundOp::kColumn) {
    array::ArrayPtr arr = batch.GetColumnByName(e.root->path[0]);
    if (arr == nullptr) return Status::Internal("Column '" + e.root->path[0] + "' missing");
    for (size_t i = 1; i < e.root->path.size(); ++i) {
      LANCEDB_ASSIGN_OR_RETURN(arr, StructField(arr, e.root->path[i]));
    }
    if (arr->type->Equals(*target)) return arr;
  }
  LANCEDB_ASSIGN_OR_RETURN(auto v, EvaluateVec(*e.root, batch));
  return ToArray(v, target);
}

Result<std::vector<int64_t>> EvaluateFilter(const BoundExpression& filter,
                                            const array::RecordBatch& batch) {
  LANCEDB_ASSIGN_OR_RETURN(auto v, EvaluateVec(*filter.root, batch));
  std::vector<int64_t> out;
  if (v.kind != ValueKind::kBool) return out;  // NULL: nothing passes
  const size_t n = static_cast<size_t>(v.length);
  out.reserve(n);
  if (v.valid.empty()) {
    for (size_t i = 0; i < n; ++i) {
      if (v.bools[i]) out.push_back(static_cast<int64_t>(i));
    }
  } else {
    for (size_t i = 0; i < n; ++i) {
      if (v.bools[i] & v.valid[i]) out.push_back(static_cast<int64_t>(i));
    }
  }
  return out;
}

}  // namespace lancedb::expr
