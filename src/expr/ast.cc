// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Rendering syntax trees, type names and date/time literals.

#include "expr/ast.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "expr/civil_time.h"
#include "expr/parser.h"

namespace lancedb::expr {

const char* BinaryOpName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return "+";
    case BinaryOp::kSub:
      return "-";
    case BinaryOp::kMul:
      return "*";
    case BinaryOp::kDiv:
      return "/";
    case BinaryOp::kMod:
      return "%";
    case BinaryOp::kEq:
      return "=";
    case BinaryOp::kNe:
      return "!=";
    case BinaryOp::kLt:
      return "<";
    case BinaryOp::kLe:
      return "<=";
    case BinaryOp::kGt:
      return ">";
    case BinaryOp::kGe:
      return ">=";
    case BinaryOp::kAnd:
      return "AND";
    case BinaryOp::kOr:
      return "OR";
    case BinaryOp::kConcat:
      return "||";
  }
  return "?";
}

namespace {

std::string LiteralSql(const Literal& lit) {
  switch (lit.kind) {
    case LiteralKind::kNull:
      return "NULL";
    case LiteralKind::kBool:
      return lit.bool_value ? "TRUE" : "FALSE";
    case LiteralKind::kInt:
      return lit.is_unsigned ? std::to_string(static_cast<uint64_t>(lit.int_value))
                             : std::to_string(lit.int_value);
    case LiteralKind::kFloat: {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%.17g", lit.float_value);
      return buf;
    }
    case LiteralKind::kString: {
      std::string out = "'";
      for (char c : lit.string_value) {
        if (c == '\'') out += '\'';
        out += c;
      }
      return out + "'";
    }
    case LiteralKind::kBinary: {
      static const char kHex[] = "0123456789ABCDEF";
      std::string out = "X'";
      for (char c : lit.string_value) {
        out += kHex[static_cast<unsigned char>(c) >> 4];
        out += kHex[static_cast<unsigned char>(c) & 15];
      }
      return out + "'";
    }
    case LiteralKind::kDate:
      return "DATE(" + std::to_string(lit.int_value) + ")";
    case LiteralKind::kTimestamp:
      return "TIMESTAMP(" + std::to_string(lit.int_value) + ")";
  }
  return "?";
}

std::string Join(const std::vector<NodePtr>& args, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to; ++i) {
    if (i > from) out += ", ";
    out += ToSql(*args[i]);
  }
  return out;
}

}  // namespace

std::string ToSql(const Node& n) {
  const char* is_names[] = {"NULL", "TRUE", "FALSE"};
  switch (n.kind) {
    case NodeKind::kLiteral:
      return LiteralSql(n.literal);
    case NodeKind::kColumn: {
      std::string out;
      for (size_t i = 0; i < n.path.size(); ++i) out += (i ? "." : "") + n.path[i];
      return out;
    }
    case NodeKind::kNegate:
      return "(-" + ToSql(*n.args[0]) + ")";
    case NodeKind::kNot:
      return "(NOT " + ToSql(*n.args[0]) + ")";
    case NodeKind::kBinary:
      return "(" + ToSql(*n.args[0]) + " " + BinaryOpName(n.op) + " " + ToSql(*n.args[1]) + ")";
    case NodeKind::kIs:
      return "(" + ToSql(*n.args[0]) + " IS " + (n.negated ? "NOT " : "") +
             is_names[static_cast<int>(n.is_what)] + ")";
    case NodeKind::kIn:
      return "(" + ToSql(*n.args[0]) + (n.negated ? " NOT IN (" : " IN (") +
             Join(n.args, 1, n.args.size()) + "))";
    case NodeKind::kBetween:
      return "(" + ToSql(*n.args[0]) + (n.negated ? " NOT BETWEEN " : " BETWEEN ") +
             ToSql(*n.args[1]) + " AND " + ToSql(*n.args[2]) + ")";
    case NodeKind::kLike:
      return "(" + ToSql(*n.args[0]) + (n.negated ? " NOT" : "") +
             (n.case_insensitive ? " ILIKE " : " LIKE ") + ToSql(*n.args[1]) + ")";
    case NodeKind::kCase: {
      std::string out = "CASE";
      size_t i = 0;
      if (n.has_operand) out += " " + ToSql(*n.args[i++]);
      size_t end = n.args.size() - (n.has_else ? 1 : 0);
      for (; i + 1 < end + 1 && i < end; i += 2) {
        out += " WHEN " + ToSql(*n.args[i]) + " THEN " + ToSql(*n.args[i + 1]);
      }
      if (n.has_else) out += " ELSE " + ToSql(*n.args.back());
      return out + " END";
    }
    case NodeKind::kCast:
      return "CAST(" + ToSql(*n.args[0]) + " AS " + n.cast_type->ToString() + ")";
    case NodeKind::kFunction:
      return n.name + "(" + Join(n.args, 0, n.args.size()) + ")";
    case NodeKind::kArray:
      return "[" + Join(n.args, 0, n.args.size()) + "]";
  }
  return "?";
}

Result<array::DataTypePtr> ParseTypeName(std::string_view name) {
  struct Entry {
    const char* name;
    array::DataTypePtr (*make)();
  };
  static const Entry kTypes[] = {
      {"tinyint", array::int8},
      {"smallint", array::int16},
      {"int", array::int32},
      {"integer", array::int32},
      {"int4", array::int32},
      {"bigint", array::int64},
      {"int8", array::int64},
      {"tinyint unsigned", array::uint8},
      {"smallint unsigned", array::uint16},
      {"int unsigned", array::uint32},
      {"integer unsigned", array::uint32},
      {"bigint unsigned", array::uint64},
      {"float", array::float32},
      {"real", array::float32},
      {"float4", array::float32},
      {"double", array::float64},
      {"double precision", array::float64},
      {"float8", array::float64},
      {"varchar", array::utf8},
      {"char", array::utf8},
      {"character varying", array::utf8},
      {"text", array::utf8},
      {"string", array::utf8},
      {"boolean", array::boolean},
      {"bool", array::boolean},
      {"date", array::date32},
      {"bytea", array::binary},
      {"binary", array::binary},
      {"varbinary", array::binary},
  };
  for (const auto& e : kTypes) {
    if (name == e.name) return e.make();
  }
  if (name == "timestamp") return array::timestamp(array::TimeUnit::kNano);
  if (name == "time") return array::time64(array::TimeUnit::kNano);
  if (name == "decimal" || name == "numeric") return array::decimal128(38, 10);
  return Status::InvalidArgument("unsupported type '" + std::string(name) + "'");
}

namespace {

bool ReadInt(std::string_view s, size_t* pos, size_t digits, int64_t* out) {
  if (*pos + digits > s.size()) return false;
  int64_t v = 0;
  for (size_t i = 0; i < digits; ++i) {
    char c = s[*pos + i];
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    v = v * 10 + (c - '0');
  }
  *pos += digits;
  *out = v;
  return true;
}

/// Read an optional fraction of a second (".f" up to microseconds; further digits are
/// ignored) at *pos into *micros (0 when absent). False for a '.' with no digit after it.
bool ReadFraction(std::string_view s, size_t* pos, int64_t* micros) {
  *micros = 0;
  if (*pos >= s.size() || s[*pos] != '.') return true;
  ++*pos;
  int digits = 0;
  while (*pos < s.size() && std::isdigit(static_cast<unsigned char>(s[*pos]))) {
    if (digits < 6) {
      *micros = *micros * 10 + (s[*pos] - '0');
      ++digits;
    }
    ++*pos;
  }
  if (digits == 0) return false;
  while (digits++ < 6) *micros *= 10;
  return true;
}

bool ParseDatePart(std::string_view s, size_t* pos, int64_t* days) {
  int64_t y, m, d;
  if (!ReadInt(s, pos, 4, &y) || *pos >= s.size() || s[(*pos)++] != '-') return false;
  if (!ReadInt(s, pos, 2, &m) || *pos >= s.size() || s[(*pos)++] != '-') return false;
  if (!ReadInt(s, pos, 2, &d)) return false;
  static const int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1 || d > kDays[m - 1]) return false;
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (m == 2 && d == 29 && !leap) return false;
  *days = DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
  return true;
}

}  // namespace

Result<int64_t> ParseDate(std::string_view text) {
  size_t pos = 0;
  int64_t days = 0;
  if (!ParseDatePart(text, &pos, &days) || pos != text.size()) {
    return Status::InvalidArgument("invalid date '" + std::string(text) + "', expected YYYY-MM-DD");
  }
  return days;
}

Result<int64_t> ParseTimestamp(std::string_view text) {
  auto fail = [&] {
    return Status::InvalidArgument("invalid timestamp '" + std::string(text) +
                                   "', expected YYYY-MM-DD[ HH:MM:SS[.ffffff]]");
  };
  size_t pos = 0;
  int64_t days = 0;
  if (!ParseDatePart(text, &pos, &days)) return fail();
  int64_t micros = days * 86400LL * 1000000LL;
  if (pos == text.size()) return micros;
  if (text[pos] != ' ' && text[pos] != 'T') return fail();
  ++pos;
  int64_t h, mi, sec = 0;
  if (!ReadInt(text, &pos, 2, &h) || pos >= text.size() || text[pos++] != ':') return fail();
  if (!ReadInt(text, &pos, 2, &mi)) return fail();
  if (pos < text.size() && text[pos] == ':') {
    ++pos;
    if (!ReadInt(text, &pos, 2, &sec)) return fail();
  }
  if (h > 23 || mi > 59 || sec > 60) return fail();
  micros += ((h * 60 + mi) * 60 + sec) * 1000000LL;
  int64_t frac = 0;
  if (!ReadFraction(text, &pos, &frac)) return fail();
  micros += frac;
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    int sign = text[pos++] == '+' ? 1 : -1;
    int64_t oh, om = 0;
    if (!ReadInt(text, &pos, 2, &oh)) return fail();
    if (pos < text.size() && text[pos] == ':') ++pos;
    if (pos < text.size() && !ReadInt(text, &pos, 2, &om)) return fail();
    micros -= sign * (oh * 60 + om) * 60 * 1000000LL;
  }
  if (pos != text.size()) return fail();
  return micros;
}

Result<int64_t> ParseTime(std::string_view text) {
  auto fail = [&] {
    return Status::InvalidArgument("invalid time '" + std::string(text) +
                                   "', expected HH:MM[:SS[.ffffff]]");
  };
  size_t pos = 0;
  int64_t h, mi, sec = 0, frac = 0;
  if (!ReadInt(text, &pos, 2, &h) || pos >= text.size() || text[pos++] != ':') return fail();
  if (!ReadInt(text, &pos, 2, &mi)) return fail();
  if (pos < text.size() && text[pos] == ':') {
    ++pos;
    if (!ReadInt(text, &pos, 2, &sec)) return fail();
  }
  if (h > 23 || mi > 59 || sec > 59) return fail();
  if (!ReadFraction(text, &pos, &frac)) return fail();
  if (pos != text.size()) return fail();
  return ((h * 60 + mi) * 60 + sec) * 1000000LL + frac;
}

Result<int64_t> ParseInterval(std::string_view text) {
  struct Unit {
    const char* name;
    int64_t micros;
  };
  static const Unit kUnits[] = {
      {"week", 7 * kMicrosPerDay},
      {"day", kMicrosPerDay},
      {"hour", kMicrosPerHour},
      {"minute", kMicrosPerMinute},
      {"second", kMicrosPerSecond},
      {"millisecond", 1000LL},
      {"microsecond", 1LL},
      {"min", kMicrosPerMinute},
      {"sec", kMicrosPerSecond},
      {"ms", 1000LL},
      {"us", 1LL},
      {"h", kMicrosPerHour},
      {"d", kMicrosPerDay},
      {"m", kMicrosPerMinute},
      {"s", kMicrosPerSecond},
  };
  auto fail = [&](const std::string& why) {
    return Status::InvalidArgument("invalid interval '" + std::string(text) + "': " + why +
                                   " (expected '<number> <unit>' pairs, units week, day, hour, "
                                   "minute, second, millisecond, microsecond)");
  };
  size_t pos = 0;
  int64_t total = 0;
  bool any = false;
  auto skip_space = [&] {
    while (pos < text.size() && text[pos] == ' ') ++pos;
  };
  while (true) {
    skip_space();
    if (pos == text.size()) break;
    bool negative = false;
    if (text[pos] == '-' || text[pos] == '+') negative = text[pos++] == '-';
    size_t start = pos;
    while (pos < text.size() &&
           (std::isdigit(static_cast<unsigned char>(text[pos])) || text[pos] == '.')) {
      ++pos;
    }
    if (pos == start || pos - start > 18) return fail("bad number");
    const double number =
        std::strtod(std::string(text.substr(start, pos - start)).c_str(), nullptr);
    skip_space();
    start = pos;
    while (pos < text.size() && std::isalpha(static_cast<unsigned char>(text[pos]))) ++pos;
    std::string unit(text.substr(start, pos - start));
    for (auto& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (unit.size() > 1 && unit.back() == 's' && unit != "ms" && unit != "us") unit.pop_back();
    if (unit.empty()) unit = "second";
    const Unit* found = nullptr;
    for (const auto& u : kUnits) {
      if (unit == u.name) found = &u;
    }
    if (found == nullptr) {
      if (unit == "month" || unit == "year" || unit == "mon" || unit == "decade" ||
          unit == "century") {
        return Status::NotSupported("Intervals of months or years are not supported ('" +
                                    std::string(text) + "')");
      }
      return fail("unknown unit '" + unit + "'");
    }
    const double micros = number * static_cast<double>(found->micros);
    if (!(micros < 9.2e18)) return fail("out of range");
    const int64_t part = static_cast<int64_t>(std::llround(micros));
    if (__builtin_add_overflow(total, negative ? -part : part, &total)) return fail("out of range");
    any = true;
  }
  if (!any) return fail("empty");
  return total;
}

}  // namespace lancedb::expr
