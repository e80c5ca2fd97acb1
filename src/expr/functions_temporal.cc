// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Date and time functions: date_part, date_trunc, now, current_date. Timestamps are UTC
// microseconds since the epoch; dates days since the epoch.

#include <algorithm>
#include <cctype>
#include <iterator>

#include "common/int_util.h"
#include "expr/binder_internal.h"
#include "expr/civil_time.h"
#include "expr/function.h"

namespace lancedb::expr {

namespace {

using int_util::FloorDiv;

constexpr std::string_view kDateParts[] = {
    "year", "quarter", "month",  "week",        "day",         "doy",  "dow",
    "hour", "minute",  "second", "millisecond", "microsecond", "epoch"};
constexpr std::string_view kTruncParts[] = {"year", "quarter", "month",  "week",
                                            "day",  "hour",    "minute", "second"};

/// Check the literal part name (lower-cased in place) against `parts` and the time argument.
Status BindPartAndTime(FunctionBinding& call, std::span<const std::string_view> parts) {
  auto& part_arg = call.args[0];
  if (part_arg->op != BoundOp::kLiteral || part_arg->kind != ValueKind::kString) {
    return call.Error(call.name + " needs a literal part name ('year', ...)");
  }
  std::string part = part_arg->literal.string_value;
  for (auto& c : part) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (std::find(parts.begin(), parts.end(), part) == parts.end()) {
    return TypeError(part_arg->position, "unknown date part '" + part + "'");
  }
  auto lit = std::make_shared<BoundExpr>(*part_arg);
  lit->literal.string_value = part;
  part_arg = lit;
  if (call.args[1]->kind != ValueKind::kDate) {
    LANCEDB_RETURN_NOT_OK(call.Want(1, ValueKind::kTimestamp));
  }
  return Status::OK();
}

Status BindDatePart(FunctionBinding& call) {
  LANCEDB_RETURN_NOT_OK(BindPartAndTime(call, kDateParts));
  if (call.args[0]->literal.string_value == "epoch") {
    call.Set(ValueKind::kFloat, array::float64());
  } else {
    call.Set(ValueKind::kInt, array::int32());
  }
  return Status::OK();
}

/// date_trunc keeps a timestamp argument's type; a date is truncated as a timestamp[ns].
Status BindDateTrunc(FunctionBinding& call) {
  LANCEDB_RETURN_NOT_OK(BindPartAndTime(call, kTruncParts));
  const auto& time = call.args[1];
  array::DataTypePtr type = time->kind == ValueKind::kTimestamp && time->type &&
                                    time->type->id() == array::TypeId::kTimestamp
                                ? time->type
                                : array::timestamp(array::TimeUnit::kNano);
  LANCEDB_ASSIGN_OR_RETURN(call.args[1], Coerce(call.args[1], ValueKind::kTimestamp));
  call.Set(ValueKind::kTimestamp, type);
  return Status::OK();
}

double DatePart(std::string_view part, int64_t micros) {
  const int64_t days = FloorDiv(micros, kMicrosPerDay);
  const int64_t in_day = micros - days * kMicrosPerDay;
  const CivilDate c = CivilFromDays(days);
  if (part == "year") return static_cast<double>(c.year);
  if (part == "quarter") return (c.month - 1) / 3 + 1;
  if (part == "month") return c.month;
  if (part == "day") return c.day;
  if (part == "doy") return static_cast<double>(days - DaysFromCivil(c.year, 1, 1) + 1);
  if (part == "dow") return static_cast<double>(((days % 7) + 11) % 7);  // Sunday = 0
  if (part == "week") {
    // ISO week number.
    const int64_t wd = ((days % 7) + 10) % 7;  // Monday = 0
    const int64_t thursday = days - wd + 3;
    const CivilDate t = CivilFromDays(thursday);
    return static_cast<double>((thursday - DaysFromCivil(t.year, 1, 1)) / 7 + 1);
  }
  if (part == "hour") return static_cast<double>(in_day / kMicrosPerHour);
  if (part == "minute") return static_cast<double>(in_day / kMicrosPerMinute % 60);
  if (part == "second") return static_cast<double>(in_day / kMicrosPerSecond % 60);
  if (part == "millisecond") return static_cast<double>(in_day / 1000 % 60000);
  if (part == "microsecond") return static_cast<double>(in_day % kMicrosPerMinute);
  return static_cast<double>(micros) / 1e6;  // epoch
}

int64_t DateTrunc(std::string_view part, int64_t micros) {
  const int64_t days = FloorDiv(micros, kMicrosPerDay);
  const CivilDate c = CivilFromDays(days);
  if (part == "year") return DaysFromCivil(c.year, 1, 1) * kMicrosPerDay;
  if (part == "quarter") {
    return DaysFromCivil(c.year, static_cast<unsigned>((c.month - 1) / 3 * 3 + 1), 1) *
           kMicrosPerDay;
  }
  if (part == "month") {
    return DaysFromCivil(c.year, static_cast<unsigned>(c.month), 1) * kMicrosPerDay;
  }
  if (part == "week") return (days - ((days % 7) + 10) % 7) * kMicrosPerDay;
  if (part == "day") return days * kMicrosPerDay;
  if (part == "hour") return FloorDiv(micros, kMicrosPerHour) * kMicrosPerHour;
  if (part == "minute") return FloorDiv(micros, kMicrosPerMinute) * kMicrosPerMinute;
  return FloorDiv(micros, kMicrosPerSecond) * kMicrosPerSecond;
}

Status EvalDatePart(FunctionCall& call, Vec* out) {
  const std::string& part = call.expr.args[0]->literal.string_value;
  const Vec& time = call.args[1];
  const bool is_date = time.kind == ValueKind::kDate;
  for (size_t i = 0; i < call.length; ++i) {
    const int64_t micros = is_date ? time.ints[i] * kMicrosPerDay : time.ints[i];
    const double v = DatePart(part, micros);
    if (out->kind == ValueKind::kFloat) {
      out->floats[i] = v;
    } else {
      out->ints[i] = static_cast<int64_t>(v);
    }
  }
  return Status::OK();
}

Status EvalDateTrunc(FunctionCall& call, Vec* out) {
  const std::string& part = call.expr.args[0]->literal.string_value;
  for (size_t i = 0; i < call.length; ++i) out->ints[i] = DateTrunc(part, call.args[1].ints[i]);
  return Status::OK();
}

/// now() and current_date are evaluated once, when the statement is bound (as DataFusion
/// does): the call binds to a literal.
Status BindNow(FunctionBinding& call) {
  auto lit = std::make_shared<BoundExpr>();
  lit->op = BoundOp::kLiteral;
  lit->kind = ValueKind::kTimestamp;
  lit->type = array::timestamp(array::TimeUnit::kNano, "+00:00");
  lit->position = call.position;
  lit->literal.kind = LiteralKind::kTimestamp;
  lit->literal.int_value = call.StatementNow();
  call.replacement = std::move(lit);
  return Status::OK();
}

Status BindCurrentDate(FunctionBinding& call) {
  auto lit = std::make_shared<BoundExpr>();
  lit->op = BoundOp::kLiteral;
  lit->kind = ValueKind::kDate;
  lit->type = array::date32();
  lit->position = call.position;
  lit->literal.kind = LiteralKind::kDate;
  lit->literal.int_value = FloorDiv(call.StatementNow(), kMicrosPerDay);
  call.replacement = std::move(lit);
  return Status::OK();
}

constexpr FunctionDef kTemporalFunctions[] = {
    {{"date_part", "datepart"}, 2, 2, kPropagate, BindDatePart, EvalDatePart},
    {{"date_trunc", "datetrunc"}, 2, 2, kPropagate, BindDateTrunc, EvalDateTrunc},
    {{"now", "current_timestamp"}, 0, 0, kPropagate, BindNow, nullptr},
    {{"current_date", "today"}, 0, 0, kPropagate, BindCurrentDate, nullptr},
};

}  // namespace

std::span<const FunctionDef> TemporalFunctions() { return kTemporalFunctions; }

}  // namespace lancedb::expr
