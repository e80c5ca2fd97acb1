// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "expr/prune.h"

#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "common/int_util.h"
#include "expr/civil_time.h"

namespace lancedb::expr {
namespace {

/// What the rows of a range may hold for a value expression, in the evaluator's domain.
struct Range {
  ValueKind kind = ValueKind::kNull;
  bool all_null = false;   // every row is NULL
  bool may_null = false;   // some row may be NULL
  bool may_nan = false;    // some row may be NaN (floats)
  bool may_value = false;  // some row may hold a value that is neither NULL nor NaN
  bool bounded = false;    // the values lie within [lo, hi] below
  int64_t lo_int = 0, hi_int = 0;
  double lo_float = 0, hi_float = 0;
  std::string lo_str, hi_str;
};

using int_util::FloorDiv;

/// `v * factor` when it fits in int64.
std::optional<int64_t> Scale(int64_t v, int64_t factor) {
  int64_t out;
  if (__builtin_mul_overflow(v, factor, &out)) return std::nullopt;
  return out;
}

/// Map the column's stored integers into the evaluator's domain (monotone, as vec.cc reads
/// them); false when a bound does not fit.
bool ToDomain(const array::DataType& type, int64_t* lo, int64_t* hi) {
  using array::TypeId;
  if (type.id() == TypeId::kDate64) {
    *lo = FloorDiv(*lo, 86400000);
    *hi = FloorDiv(*hi, 86400000);
    return true;
  }
  if (type.id() != TypeId::kTimestamp) return true;
  switch (type.unit()) {
    case array::TimeUnit::kSecond:
    case array::TimeUnit::kMilli: {
      const int64_t f = type.unit() == array::TimeUnit::kSecond ? 1000000 : 1000;
      auto a = Scale(*lo, f), b = Scale(*hi, f);
      if (!a || !b) return false;
      *lo = *a;
      *hi = *b;
      return true;
    }
    case array::TimeUnit::kMicro:
      return true;
    case array::TimeUnit::kNano:
      *lo = FloorDiv(*lo, 1000);
      *hi = FloorDiv(*hi, 1000);
      return true;
  }
  return false;
}

std::optional<Range> FromStats(const BoundExpr& column, const format::RangeColumnStats& rs) {
  auto kind = KindOf(*rs.type);
  if (!kind.ok() || *kind != column.kind) return std::nullopt;
  const auto& s = rs.stats;
  Range r;
  r.kind = *kind;
  r.may_null = s.null_count > 0;
  r.all_null = rs.num_rows > 0 && s.null_count >= rs.num_rows;
  r.may_nan = s.nan_count > 0;
  r.may_value = s.has_bounds || s.null_count + s.nan_count < rs.num_rows;
  if (!s.has_bounds) return r;
  switch (rs.stats_type) {
    case format::StatsType::kInt:
    case format::StatsType::kBool:
      r.lo_int = s.min_int;
      r.hi_int = s.max_int;
      r.bounded = ToDomain(*rs.type, &r.lo_int, &r.hi_int);
      break;
    case format::StatsType::kUInt:
      // The evaluator reads unsigned values as int64: bounds hold only below 2^63.
      if (s.max_uint <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        r.lo_int = static_cast<int64_t>(s.min_uint);
        r.hi_int = static_cast<int64_t>(s.max_uint);
        r.bounded = true;
      }
      break;
    case format::StatsType::kFloat:
      r.lo_float = s.min_float;
      r.hi_float = s.max_float;
      r.bounded = r.kind == ValueKind::kFloat;
      break;
    case format::StatsType::kBinary:
      r.lo_str = s.min_str;
      r.hi_str = s.max_str;
      r.bounded = r.kind == ValueKind::kString;
      break;
  }
  return r;
}

std::optional<Range> FromLiteral(const BoundExpr& e) {
  Range r;
  r.kind = e.kind;
  if (e.literal.kind == LiteralKind::kNull || e.kind == ValueKind::kNull) {
    r.all_null = r.may_null = true;
    return r;
  }
  r.may_value = true;
  r.bounded = true;
  switch (e.kind) {
    case ValueKind::kBool:
      r.lo_int = r.hi_int = e.literal.bool_value ? 1 : 0;
      return r;
    case ValueKind::kInt:
    case ValueKind::kDate:
    case ValueKind::kTimestamp:
      // A uint64 literal above INT64_MAX has no int64 bound: nothing can be concluded.
      if (e.literal.is_unsigned && e.literal.int_value < 0) return std::nullopt;
      r.lo_int = r.hi_int = e.literal.int_value;
      return r;
    case ValueKind::kFloat:
      if (std::isnan(e.literal.float_value)) {
        r.may_value = r.bounded = false;
        r.may_nan = true;
        return r;
      }
      r.lo_float = r.hi_float = e.literal.float_value;
      return r;
    case ValueKind::kString:
      r.lo_str = r.hi_str = e.literal.string_value;
      return r;
    default:
      return std::nullopt;
  }
}

std::optional<Range> ValueRange(const BoundExpr& e, const format::RangeStatsLookup& stats);

/// A cast the evaluator performs monotonically (bounds map to bounds).
std::optional<Range> CastRange(const BoundExpr& e, const format::RangeStatsLookup& stats) {
  auto in = ValueRange(*e.args[0], stats);
  if (!in) return std::nullopt;
  Range r = *in;
  r.kind = e.kind;
  if (in->kind == e.kind || in->all_null) return r;
  if (!in->may_value || !in->bounded) {
    r.bounded = false;
    return r;
  }
  if (in->kind == ValueKind::kInt && e.kind == ValueKind::kFloat) {
    r.lo_float = static_cast<double>(in->lo_int);
    r.hi_float = static_cast<double>(in->hi_int);
    return r;
  }
  if (in->kind == ValueKind::kDate && e.kind == ValueKind::kTimestamp) {
    auto lo = Scale(in->lo_int, kMicrosPerDay), hi = Scale(in->hi_int, kMicrosPerDay);
    if (!lo || !hi) return std::nullopt;
    r.lo_int = *lo;
    r.hi_int = *hi;
    return r;
  }
  if (in->kind == ValueKind::kTimestamp && e.kind == ValueKind::kDate) {
    r.lo_int = FloorDiv(in->lo_int, kMicrosPerDay);
    r.hi_int = FloorDiv(in->hi_int, kMicrosPerDay);
    return r;
  }
  return std::nullopt;
}

std::optional<Range> ValueRange(const BoundExpr& e, const format::RangeStatsLookup& stats) {
  switch (e.op) {
    case BoundOp::kLiteral:
      return FromLiteral(e);
    case BoundOp::kColumn: {
      if (e.path.size() != 1) return std::nullopt;
      const format::RangeColumnStats* rs = stats(e.path[0]);
      if (rs == nullptr) return std::nullopt;
      return FromStats(e, *rs);
    }
    case BoundOp::kCast:
      return CastRange(e, stats);
    default:
      return std::nullopt;
  }
}

/// Outcomes of `x op y` for x in [alo, ahi] and y in [blo, bhi].
template <typename T>
uint8_t CompareBounds(const T& alo, const T& ahi, const T& blo, const T& bhi, BinaryOp op) {
  bool t = true, f = true;
  switch (op) {
    case BinaryOp::kEq:
      t = alo <= bhi && blo <= ahi;
      f = !(alo == ahi && blo == bhi && alo == blo);
      break;
    case BinaryOp::kNe:
      t = !(alo == ahi && blo == bhi && alo == blo);
      f = alo <= bhi && blo <= ahi;
      break;
    case BinaryOp::kLt:
      t = alo < bhi;
      f = ahi >= blo;
      break;
    case BinaryOp::kLe:
      t = alo <= bhi;
      f = ahi > blo;
      break;
    case BinaryOp::kGt:
      t = ahi > blo;
      f = alo <= bhi;
      break;
    case BinaryOp::kGe:
      t = ahi >= blo;
      f = alo < bhi;
      break;
    default:
      break;
  }
  return static_cast<uint8_t>((t ? kMayBeTrue : 0) | (f ? kMayBeFalse : 0));
}

uint8_t CompareRanges(const Range& a, const Range& b, BinaryOp op) {
  if (a.all_null || b.all_null) return kMayBeNull;
  uint8_t out = 0;
  if (a.may_null || b.may_null) out |= kMayBeNull;
  // NaN compares differently across engines; any outcome is possible.
  if (a.may_nan || b.may_nan) out |= kMayBeTrue | kMayBeFalse;
  if (!a.may_value || !b.may_value) return out;
  if (!a.bounded || !b.bounded || a.kind != b.kind) return out | kMayBeTrue | kMayBeFalse;
  switch (a.kind) {
    case ValueKind::kBool:
    case ValueKind::kInt:
    case ValueKind::kDate:
    case ValueKind::kTimestamp:
      return out | CompareBounds(a.lo_int, a.hi_int, b.lo_int, b.hi_int, op);
    case ValueKind::kFloat:
      return out | CompareBounds(a.lo_float, a.hi_float, b.lo_float, b.hi_float, op);
    case ValueKind::kString:
      return out | CompareBounds<std::string_view>(a.lo_str, a.hi_str, b.lo_str, b.hi_str, op);
    default:
      return out | kMayBeTrue | kMayBeFalse;
  }
}

uint8_t SwapTrueFalse(uint8_t o) {
  return static_cast<uint8_t>((o & kMayBeNull) | ((o & kMayBeTrue) ? kMayBeFalse : 0) |
                              ((o & kMayBeFalse) ? kMayBeTrue : 0));
}

/// x IN (v1, ...): TRUE when x equals some v, else NULL when x or some v is NULL, else FALSE.
uint8_t InOutcomes(const BoundExpr& e, const format::RangeStatsLookup& stats) {
  auto x = ValueRange(*e.args[0], stats);
  if (!x) return kAnyOutcome;
  if (x->all_null) return kMayBeNull;
  uint8_t out = x->may_null ? kMayBeNull : 0;
  bool list_null = false;
  for (size_t i = 1; i < e.args.size(); ++i) {
    auto v = ValueRange(*e.args[i], stats);
    if (!v) return kAnyOutcome;
    list_null |= v->may_null;
    out |= CompareRanges(*x, *v, BinaryOp::kEq) & kMayBeTrue;
  }
  out |= list_null ? kMayBeNull : kMayBeFalse;
  return e.negated ? SwapTrueFalse(out) : out;
}

uint8_t IsOutcomes(const BoundExpr& e, const format::RangeStatsLookup& stats) {
  uint8_t out = kMayBeTrue | kMayBeFalse;
  const BoundExpr& arg = *e.args[0];
  if (e.is_what == IsWhat::kNull) {
    if (arg.kind == ValueKind::kBool && arg.op != BoundOp::kColumn && arg.op != BoundOp::kLiteral) {
      const uint8_t c = PossibleOutcomes(arg, stats);
      out = static_cast<uint8_t>(((c & kMayBeNull) ? kMayBeTrue : 0) |
                                 ((c & (kMayBeTrue | kMayBeFalse)) ? kMayBeFalse : 0));
    } else if (auto r = ValueRange(arg, stats)) {
      out = static_cast<uint8_t>((r->may_null ? kMayBeTrue : 0) | (r->all_null ? 0 : kMayBeFalse));
    }
  } else {
    const uint8_t c = PossibleOutcomes(arg, stats);
    const uint8_t hit = e.is_what == IsWhat::kTrue ? kMayBeTrue : kMayBeFalse;
    out = static_cast<uint8_t>(((c & hit) ? kMayBeTrue : 0) | ((c & ~hit) ? kMayBeFalse : 0));
  }
  return e.negated ? SwapTrueFalse(out) : out;
}

}  // namespace

uint8_t PossibleOutcomes(const BoundExpr& e, const format::RangeStatsLookup& stats) {
  switch (e.op) {
    case BoundOp::kAnd: {
      const uint8_t a = PossibleOutcomes(*e.args[0], stats);
      if (a == kMayBeFalse) return a;
      const uint8_t b = PossibleOutcomes(*e.args[1], stats);
      return static_cast<uint8_t>(((a & b & kMayBeTrue) ? kMayBeTrue : 0) |
                                  (((a | b) & kMayBeFalse) ? kMayBeFalse : 0) |
                                  (((a | b) & kMayBeNull) ? kMayBeNull : 0));
    }
    case BoundOp::kOr: {
      const uint8_t a = PossibleOutcomes(*e.args[0], stats);
      const uint8_t b = PossibleOutcomes(*e.args[1], stats);
      return static_cast<uint8_t>((((a | b) & kMayBeTrue) ? kMayBeTrue : 0) |
                                  ((a & b & kMayBeFalse) ? kMayBeFalse : 0) |
                                  (((a | b) & kMayBeNull) ? kMayBeNull : 0));
    }
    case BoundOp::kNot:
      return SwapTrueFalse(PossibleOutcomes(*e.args[0], stats));
    case BoundOp::kCompare: {
      auto a = ValueRange(*e.args[0], stats);
      auto b = ValueRange(*e.args[1], stats);
      if (!a || !b) return kAnyOutcome;
      return CompareRanges(*a, *b, e.bop);
    }
    case BoundOp::kIn:
      return InOutcomes(e, stats);
    case BoundOp::kIs:
      return IsOutcomes(e, stats);
    case BoundOp::kLiteral:
    case BoundOp::kColumn:
    case BoundOp::kCast: {
      if (e.kind != ValueKind::kBool) return kAnyOutcome;
      auto r = ValueRange(e, stats);
      if (!r) return kAnyOutcome;
      if (r->all_null) return kMayBeNull;
      uint8_t out = r->may_null ? kMayBeNull : 0;
      if (!r->may_value) return out;
      if (!r->bounded) return out | kMayBeTrue | kMayBeFalse;
      if (r->hi_int >= 1) out |= kMayBeTrue;
      if (r->lo_int <= 0) out |= kMayBeFalse;
      return out;
    }
    default:
      return kAnyOutcome;
  }
}

bool MayMatch(const BoundExpr& filter, const format::RangeStatsLookup& stats) {
  return (PossibleOutcomes(filter, stats) & kMayBeTrue) != 0;
}

format::RangePredicate MakeRangePredicate(BoundPtr filter) {
  return [filter = std::move(filter)](const format::RangeStatsLookup& stats) {
    return MayMatch(*filter, stats);
  };
}

}  // namespace lancedb::expr
