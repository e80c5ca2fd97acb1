// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Conversions between Arrow arrays and Vecs, and CAST between value kinds.

#include "expr/vec.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <span>

#include "array/builder.h"
#include "array/dictionary.h"
#include "array/half.h"
#include "array/layout.h"
#include "common/int_util.h"
#include "expr/civil_time.h"
#include "expr/parser.h"

namespace lancedb::expr {

namespace {

using array::TypeId;

using int_util::FloorDiv;

int64_t UnitToMicros(int64_t v, array::TimeUnit unit) {
  switch (unit) {
    case array::TimeUnit::kSecond:
      return v * 1000000;
    case array::TimeUnit::kMilli:
      return v * 1000;
    case array::TimeUnit::kMicro:
      return v;
    case array::TimeUnit::kNano:
      return FloorDiv(v, 1000);
  }
  return v;
}

int64_t MicrosToUnit(int64_t v, array::TimeUnit unit) {
  switch (unit) {
    case array::TimeUnit::kSecond:
      return FloorDiv(v, 1000000);
    case array::TimeUnit::kMilli:
      return FloorDiv(v, 1000);
    case array::TimeUnit::kMicro:
      return v;
    case array::TimeUnit::kNano:
      return v * 1000;
  }
  return v;
}

template <typename T>
void ReadInts(const array::ArrayData& a, std::vector<int64_t>* out) {
  const T* values = a.GetValues<T>(1);
  out->resize(static_cast<size_t>(a.length));
  for (int64_t i = 0; i < a.length; ++i)
    (*out)[static_cast<size_t>(i)] = static_cast<int64_t>(values[i]);
}

std::string FormatDate(int64_t days) {
  const CivilDate date = CivilFromDays(days);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%04lld-%02d-%02d", static_cast<long long>(date.year), date.month,
                date.day);
  return buf;
}

std::string FormatTimestamp(int64_t micros) {
  int64_t days = FloorDiv(micros, kMicrosPerDay);
  int64_t rest = micros - days * kMicrosPerDay;
  int64_t secs = rest / 1000000, frac = rest % 1000000;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%sT%02lld:%02lld:%02lld", FormatDate(days).c_str(),
                static_cast<long long>(secs / 3600), static_cast<long long>(secs / 60 % 60),
                static_cast<long long>(secs % 60));
  std::string out = buf;
  if (frac) {
    std::snprintf(buf, sizeof(buf), ".%06lld", static_cast<long long>(frac));
    out += buf;
    while (out.back() == '0') out.pop_back();
  }
  return out;
}

std::string FormatTime(int64_t micros) {
  const int64_t secs = micros / 1000000, frac = micros % 1000000;
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%02lld:%02lld:%02lld", static_cast<long long>(secs / 3600),
                static_cast<long long>(secs / 60 % 60), static_cast<long long>(secs % 60));
  std::string out = buf;
  if (frac % 1000 == 0 && frac) {
    std::snprintf(buf, sizeof(buf), ".%03lld", static_cast<long long>(frac / 1000));
    out += buf;
  } else if (frac) {
    std::snprintf(buf, sizeof(buf), ".%06lld", static_cast<long long>(frac));
    out += buf;
  }
  return out;
}

/// As Arrow casts durations to text: "1 days 2 hours 3 mins 4.500000 secs" (each part
/// truncated toward zero, so negative parts carry their own sign).
std::string FormatDuration(int64_t micros) {
  const int64_t secs_total = micros / 1000000, frac = micros % 1000000;
  const int64_t mins_total = secs_total / 60, hours_total = mins_total / 60;
  const int64_t days = hours_total / 24, hours = hours_total % 24, mins = mins_total % 60;
  const int64_t secs = secs_total % 60;
  char buf[128];
  std::snprintf(buf, sizeof(buf), "%lld days %lld hours %lld mins %s%lld.%06lld secs",
                static_cast<long long>(days), static_cast<long long>(hours),
                static_cast<long long>(mins), (secs == 0 && frac < 0) ? "-" : "",
                static_cast<long long>(secs), static_cast<long long>(frac < 0 ? -frac : frac));
  return buf;
}

/// Microseconds in one `unit` (for units of a second or more) or 0.
int64_t MicrosPerUnit(array::TimeUnit unit) {
  return unit == array::TimeUnit::kSecond ? 1000000 : unit == array::TimeUnit::kMilli ? 1000 : 0;
}

std::string FormatFloat(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == std::floor(v) && std::fabs(v) < 1e16) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.1f", v);
    return buf;
  }
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

}  // namespace

Vec NullVec(ValueKind kind, int64_t length) {
  Vec v;
  v.kind = kind;
  v.length = length;
  v.valid.assign(static_cast<size_t>(length), 0);
  const size_t n = static_cast<size_t>(length);
  switch (kind) {
    case ValueKind::kBool:
      v.bools.assign(n, 0);
      break;
    case ValueKind::kInt:
    case ValueKind::kDate:
    case ValueKind::kTimestamp:
    case ValueKind::kTime:
    case ValueKind::kDuration:
      v.ints.assign(n, 0);
      break;
    case ValueKind::kFloat:
      v.floats.assign(n, 0);
      break;
    case ValueKind::kString:
      v.strings.assign(n, {});
      break;
    default:
      break;
  }
  return v;
}

namespace {

/// A dictionary column in the evaluator's form: its dictionary converted once, then each row
/// copies the (fixed-size, or string view) value its index points at.
Result<Vec> FromDictionaryArray(const array::ArrayPtr& arr, ValueKind kind) {
  const array::ArrayData& a = *arr;
  LANCEDB_ASSIGN_OR_RETURN(Vec dict, FromArray(a.dictionary, kind));
  if (dict.kind == ValueKind::kNull || dict.kind == ValueKind::kList ||
      dict.kind == ValueKind::kStruct) {
    LANCEDB_ASSIGN_OR_RETURN(auto values, array::DictionaryDecode(arr));
    return FromArray(values, kind);
  }
  Vec v;
  v.kind = dict.kind;
  v.length = a.length;
  v.is_unsigned = dict.is_unsigned;
  v.keep = dict.keep;
  v.keep.push_back(arr);
  v.store = dict.store;
  const size_t n = static_cast<size_t>(a.length);
  const int64_t dict_length = dict.length;
  std::vector<int64_t> rows(n);
  bool any_null = false;
  for (size_t i = 0; i < n; ++i) {
    const auto row = static_cast<int64_t>(i);
    int64_t index = -1;
    if (a.IsValid(row)) {
      index = array::DictionaryIndex(a, row);
      if (index < 0 || index >= dict_length) {
        return Status::InvalidArgument("Dictionary index " + std::to_string(index) +
                                       " out of range for a dictionary of " +
                                       std::to_string(dict_length) + " values");
      }
      if (!dict.IsValid(index)) index = -1;
    }
    any_null = any_null || index < 0;
    rows[i] = index;
  }
  if (any_null) {
    v.valid.resize(n);
    for (size_t i = 0; i < n; ++i) v.valid[i] = rows[i] >= 0 ? 1 : 0;
  }
  auto gather = [&rows, n](const auto& from, auto* to) {
    to->resize(n);
    for (size_t i = 0; i < n; ++i) {
      if (rows[i] >= 0) (*to)[i] = from[static_cast<size_t>(rows[i])];
    }
  };
  if (!dict.ints.empty()) gather(dict.ints, &v.ints);
  if (!dict.floats.empty()) gather(dict.floats, &v.floats);
  if (!dict.bools.empty()) gather(dict.bools, &v.bools);
  if (!dict.strings.empty()) gather(dict.strings, &v.strings);
  // An empty dictionary (every row null) still needs value slots of the kind.
  if (dict_length == 0) v = NullVec(v.kind, a.length);
  return v;
}

}  // namespace

Result<Vec> FromArray(const array::ArrayPtr& arr, ValueKind kind) {
  if (arr->type->is_dictionary()) return FromDictionaryArray(arr, kind);
  const array::ArrayData& a = *arr;
  Vec v;
  v.kind = kind;
  v.length = a.length;
  const size_t n = static_cast<size_t>(a.length);
  if (a.type->id() == TypeId::kNull) return NullVec(kind, a.length);
  if (a.null_count != 0 && !a.buffers.empty() && a.buffers[0]) {
    v.valid.resize(n);
    const uint8_t* bits = a.buffers[0]->data();
    for (size_t i = 0; i < n; ++i)
      v.valid[i] = bit_util::GetBit(bits, a.offset + static_cast<int64_t>(i));
  }
  switch (a.type->id()) {
    case TypeId::kBool: {
      v.bools.resize(n);
      const uint8_t* bits = a.buffers[1]->data();
      for (size_t i = 0; i < n; ++i)
        v.bools[i] = bit_util::GetBit(bits, a.offset + static_cast<int64_t>(i));
      break;
    }
    case TypeId::kInt8:
      ReadInts<int8_t>(a, &v.ints);
      break;
    case TypeId::kInt16:
      ReadInts<int16_t>(a, &v.ints);
      break;
    case TypeId::kInt32:
    case TypeId::kDate32:
      ReadInts<int32_t>(a, &v.ints);
      break;
    case TypeId::kInt64:
      ReadInts<int64_t>(a, &v.ints);
      break;
    case TypeId::kUInt8:
      ReadInts<uint8_t>(a, &v.ints);
      break;
    case TypeId::kUInt16:
      ReadInts<uint16_t>(a, &v.ints);
      break;
    case TypeId::kUInt32:
      ReadInts<uint32_t>(a, &v.ints);
      break;
    case TypeId::kUInt64:
      ReadInts<uint64_t>(a, &v.ints);
      v.is_unsigned = true;
      break;
    case TypeId::kTime32:
      ReadInts<int32_t>(a, &v.ints);
      for (auto& t : v.ints) t = UnitToMicros(t, a.type->unit());
      break;
    case TypeId::kTime64:
    case TypeId::kDuration:
      ReadInts<int64_t>(a, &v.ints);
      if (a.type->unit() != array::TimeUnit::kMicro) {
        for (auto& t : v.ints) t = UnitToMicros(t, a.type->unit());
      }
      break;
    case TypeId::kDecimal128: {
      // Evaluated as doubles: exact up to 15 significant digits.
      const __int128* values = a.GetValues<__int128>(1);
      const double scale = std::pow(10.0, a.type->scale());
      v.floats.resize(n);
      for (size_t i = 0; i < n; ++i) v.floats[i] = static_cast<double>(values[i]) / scale;
      break;
    }
    case TypeId::kDate64:
      ReadInts<int64_t>(a, &v.ints);
      for (auto& d : v.ints) d = FloorDiv(d, 86400000);
      break;
    case TypeId::kTimestamp: {
      ReadInts<int64_t>(a, &v.ints);
      const auto unit = a.type->unit();
      if (unit != array::TimeUnit::kMicro) {
        for (auto& t : v.ints) t = UnitToMicros(t, unit);
      }
      break;
    }
    case TypeId::kFloat16: {
      const uint16_t* values = a.GetValues<uint16_t>(1);
      std::vector<float> floats(n);
      array::HalfToFloat(std::span(values, n), std::span(floats));
      v.floats.assign(floats.begin(), floats.end());
      break;
    }
    case TypeId::kFloat32: {
      const float* values = a.GetValues<float>(1);
      v.floats.assign(values, values + n);
      break;
    }
    case TypeId::kFloat64: {
      const double* values = a.GetValues<double>(1);
      v.floats.assign(values, values + n);
      break;
    }
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary: {
      v.strings.resize(n);
      for (size_t i = 0; i < n; ++i) v.strings[i] = a.GetView(static_cast<int64_t>(i));
      v.keep.push_back(arr);
      break;
    }
    case TypeId::kFixedSizeBinary: {
      const int32_t w = a.type->fixed_size();
      const char* base = reinterpret_cast<const char*>(a.buffers[1]->data());
      v.strings.resize(n);
      for (size_t i = 0; i < n; ++i) {
        v.strings[i] = std::string_view(base + (a.offset + static_cast<int64_t>(i)) * w,
                                        static_cast<size_t>(w));
      }
      v.keep.push_back(arr);
      break;
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
    case TypeId::kStruct:
      v.array = arr;
      break;
    default:
      return Status::NotSupported("Cannot evaluate columns of type " + a.type->ToString());
  }
  // Kinds asked for that differ from the natural one (e.g. int column read as float).
  LANCEDB_ASSIGN_OR_RETURN(auto natural, KindOf(*a.type));
  if (natural != kind) {
    v.kind = natural;
    return CastVec(std::move(v), kind);
  }
  return v;
}

Result<Vec> CastVec(Vec in, ValueKind to) {
  if (in.kind == to) return in;
  const size_t n = static_cast<size_t>(in.length);
  if (in.kind == ValueKind::kNull) return NullVec(to, in.length);
  Vec out;
  out.kind = to;
  out.length = in.length;
  out.valid = std::move(in.valid);
  auto valid = [&](size_t i) { return out.valid.empty() || out.valid[i]; };
  const ValueKind from = in.kind;
  switch (to) {
    case ValueKind::kFloat:
      out.floats.resize(n);
      if (from == ValueKind::kInt && in.is_unsigned) {
        for (size_t i = 0; i < n; ++i) {
          out.floats[i] = static_cast<double>(static_cast<uint64_t>(in.ints[i]));
        }
      } else if (from == ValueKind::kInt) {
        for (size_t i = 0; i < n; ++i) out.floats[i] = static_cast<double>(in.ints[i]);
      } else if (from == ValueKind::kBool) {
        for (size_t i = 0; i < n; ++i) out.floats[i] = in.bools[i];
      } else if (from == ValueKind::kString) {
        for (size_t i = 0; i < n; ++i) {
          if (!valid(i)) continue;
          std::string s(in.strings[i]);
          char* end = nullptr;
          out.floats[i] = std::strtod(s.c_str(), &end);
          if (s.empty() || *end != '\0') {
            return Status::InvalidArgument("Cannot cast string '" + s + "' to a float");
          }
        }
      } else {
        break;
      }
      return out;
    case ValueKind::kInt:
      out.ints.resize(n);
      if (from == ValueKind::kFloat) {
        for (size_t i = 0; i < n; ++i) {
          double f = in.floats[i];
          if (!valid(i)) continue;
          if (!(f >= -9.2233720368547758e18 && f < 9.2233720368547758e18)) {
            return Status::InvalidArgument("Cannot cast " + FormatFloat(f) + " to an integer");
          }
          out.ints[i] = static_cast<int64_t>(f);
        }
      } else if (from == ValueKind::kBool) {
        for (size_t i = 0; i < n; ++i) out.ints[i] = in.bools[i];
      } else if (from == ValueKind::kString) {
        for (size_t i = 0; i < n; ++i) {
          if (!valid(i)) continue;
          std::string s(in.strings[i]);
          char* end = nullptr;
          errno = 0;
          out.ints[i] = std::strtoll(s.c_str(), &end, 10);
          if (s.empty() || *end != '\0' || errno) {
            return Status::InvalidArgument("Cannot cast string '" + s + "' to an integer");
          }
        }
      } else if (from == ValueKind::kDate || from == ValueKind::kTimestamp ||
                 from == ValueKind::kTime || from == ValueKind::kDuration) {
        out.ints = std::move(in.ints);
      } else {
        break;
      }
      return out;
    case ValueKind::kBool:
      out.bools.resize(n);
      if (from == ValueKind::kInt) {
        for (size_t i = 0; i < n; ++i) out.bools[i] = in.ints[i] != 0;
      } else if (from == ValueKind::kFloat) {
        for (size_t i = 0; i < n; ++i) out.bools[i] = in.floats[i] != 0;
      } else if (from == ValueKind::kString) {
        for (size_t i = 0; i < n; ++i) {
          if (!valid(i)) continue;
          std::string s(in.strings[i]);
          for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
          if (s == "true" || s == "t" || s == "1" || s == "yes" || s == "y" || s == "on") {
            out.bools[i] = 1;
          } else if (s == "false" || s == "f" || s == "0" || s == "no" || s == "n" || s == "off") {
            out.bools[i] = 0;
          } else {
            return Status::InvalidArgument("Cannot cast string '" + s + "' to a boolean");
          }
        }
      } else {
        break;
      }
      return out;
    case ValueKind::kString:
      out.strings.resize(n);
      out.store = std::make_shared<std::deque<std::string>>();
      for (size_t i = 0; i < n; ++i) {
        if (!valid(i)) continue;
        std::string s;
        switch (from) {
          case ValueKind::kInt:
            s = in.is_unsigned ? std::to_string(static_cast<uint64_t>(in.ints[i]))
                               : std::to_string(in.ints[i]);
            break;
          case ValueKind::kTime:
            s = FormatTime(in.ints[i]);
            break;
          case ValueKind::kDuration:
            s = FormatDuration(in.ints[i]);
            break;
          case ValueKind::kFloat:
            s = FormatFloat(in.floats[i]);
            break;
          case ValueKind::kBool:
            s = in.bools[i] ? "true" : "false";
            break;
          case ValueKind::kDate:
            s = FormatDate(in.ints[i]);
            break;
          case ValueKind::kTimestamp:
            s = FormatTimestamp(in.ints[i]);
            break;
          default:
            return Status::InvalidArgument(std::string("Cannot cast ") + ValueKindName(from) +
                                           " to a string");
        }
        out.strings[i] = out.Own(std::move(s));
      }
      return out;
    case ValueKind::kDate:
    case ValueKind::kTimestamp:
      out.ints.resize(n);
      if (from == ValueKind::kString) {
        for (size_t i = 0; i < n; ++i) {
          if (!valid(i)) continue;
          std::string s(in.strings[i]);
          auto ts = ParseTimestamp(s);
          if (!ts.ok()) return ts.status();
          out.ints[i] = to == ValueKind::kDate ? FloorDiv(*ts, kMicrosPerDay) : *ts;
        }
      } else if (from == ValueKind::kDate && to == ValueKind::kTimestamp) {
        for (size_t i = 0; i < n; ++i) out.ints[i] = in.ints[i] * kMicrosPerDay;
      } else if (from == ValueKind::kTimestamp && to == ValueKind::kDate) {
        for (size_t i = 0; i < n; ++i) out.ints[i] = FloorDiv(in.ints[i], kMicrosPerDay);
      } else if (from == ValueKind::kInt) {
        out.ints = std::move(in.ints);  // days / microseconds
      } else {
        break;
      }
      return out;
    case ValueKind::kTime:
    case ValueKind::kDuration:
      out.ints.resize(n);
      if (from == ValueKind::kString) {
        for (size_t i = 0; i < n; ++i) {
          if (!valid(i)) continue;
          if (to == ValueKind::kDuration) {
            LANCEDB_ASSIGN_OR_RETURN(out.ints[i], ParseInterval(in.strings[i]));
            continue;
          }
          auto t = ParseTime(in.strings[i]);
          if (!t.ok()) {
            auto ts = ParseTimestamp(in.strings[i]);
            if (!ts.ok()) return t.status();
            t = *ts - FloorDiv(*ts, kMicrosPerDay) * kMicrosPerDay;
          }
          out.ints[i] = *t;
        }
      } else if (from == ValueKind::kTimestamp && to == ValueKind::kTime) {
        for (size_t i = 0; i < n; ++i) {
          out.ints[i] = in.ints[i] - FloorDiv(in.ints[i], kMicrosPerDay) * kMicrosPerDay;
        }
      } else if (from == ValueKind::kInt) {
        out.ints = std::move(in.ints);  // microseconds
      } else {
        break;
      }
      return out;
    default:
      break;
  }
  return Status::InvalidArgument(std::string("Cannot cast ") + ValueKindName(from) + " to " +
                                 ValueKindName(to));
}

namespace {

template <typename T>
Result<array::ArrayPtr> IntsTo(const Vec& v, const array::DataTypePtr& type, BufferPtr validity) {
  std::vector<T> values(static_cast<size_t>(v.length));
  for (size_t i = 0; i < values.size(); ++i) {
    const int64_t x = v.ints[i];
    const __int128 wide =
        v.is_unsigned ? static_cast<__int128>(static_cast<uint64_t>(x)) : static_cast<__int128>(x);
    if (v.IsValid(static_cast<int64_t>(i)) &&
        (wide < static_cast<__int128>(std::numeric_limits<T>::min()) ||
         wide > static_cast<__int128>(std::numeric_limits<T>::max()))) {
      return Status::InvalidArgument(
          "Value " +
          (v.is_unsigned ? std::to_string(static_cast<uint64_t>(x)) : std::to_string(x)) +
          " is out of range for " + type->ToString());
    }
    values[i] = static_cast<T>(x);
  }
  return array::ArrayPtr(
      array::ArrayData::Make(type, v.length, {std::move(validity), Buffer::FromVector(values)}));
}

}  // namespace

Result<array::ArrayPtr> ToArray(const Vec& in, const array::DataTypePtr& type) {
  if (type->is_dictionary()) {
    LANCEDB_RETURN_NOT_OK(array::ValidateDictionaryType(*type));
    LANCEDB_ASSIGN_OR_RETURN(auto values, ToArray(in, type->value_type()));
    return array::DictionaryEncode(values, type);
  }
  LANCEDB_ASSIGN_OR_RETURN(auto kind, KindOf(*type));
  if (type->id() == TypeId::kNull) return array::MakeNullArray(type, in.length);
  if (in.kind == ValueKind::kNull) return array::MakeNullArray(type, in.length);
  if ((kind == ValueKind::kList || kind == ValueKind::kStruct) && in.array) {
    if (!in.array->type->Equals(*type)) {
      return Status::InvalidArgument("Cannot convert " + in.array->type->ToString() + " to " +
                                     type->ToString());
    }
    return in.array;
  }
  Vec v;
  if (in.kind != kind) {
    LANCEDB_ASSIGN_OR_RETURN(v, CastVec(in, kind));
  } else {
    v = in;
  }
  std::vector<bool> valid_bits;
  if (!v.valid.empty()) valid_bits.assign(v.valid.begin(), v.valid.end());
  BufferPtr validity = array::MakeValidityBitmap(valid_bits);
  const size_t n = static_cast<size_t>(v.length);
  switch (type->id()) {
    case TypeId::kBool: {
      std::vector<bool> values(v.bools.begin(), v.bools.end());
      return array::MakeBool(values, valid_bits);
    }
    case TypeId::kInt8:
      return IntsTo<int8_t>(v, type, validity);
    case TypeId::kInt16:
      return IntsTo<int16_t>(v, type, validity);
    case TypeId::kInt32:
      return IntsTo<int32_t>(v, type, validity);
    case TypeId::kInt64:
      return IntsTo<int64_t>(v, type, validity);
    case TypeId::kUInt8:
      return IntsTo<uint8_t>(v, type, validity);
    case TypeId::kUInt16:
      return IntsTo<uint16_t>(v, type, validity);
    case TypeId::kUInt32:
      return IntsTo<uint32_t>(v, type, validity);
    case TypeId::kUInt64:
      return IntsTo<uint64_t>(v, type, validity);
    case TypeId::kDate32:
      return IntsTo<int32_t>(v, type, validity);
    case TypeId::kDate64: {
      Vec ms = v;
      for (auto& d : ms.ints) d *= 86400000;
      return IntsTo<int64_t>(ms, type, validity);
    }
    case TypeId::kTimestamp:
    case TypeId::kTime64:
    case TypeId::kDuration: {
      Vec t = v;
      if (type->unit() != array::TimeUnit::kMicro) {
        for (auto& x : t.ints) {
          // Nanoseconds: fail rather than wrap past the int64 range.
          if (type->unit() == array::TimeUnit::kNano &&
              (x > INT64_MAX / 1000 || x < INT64_MIN / 1000)) {
            return Status::InvalidArgument("Value " + std::to_string(x) +
                                           " microseconds is out of range for " + type->ToString());
          }
          x = MicrosToUnit(x, type->unit());
        }
      }
      return IntsTo<int64_t>(t, type, validity);
    }
    case TypeId::kTime32: {
      Vec t = v;
      for (auto& x : t.ints) x = FloorDiv(x, std::max<int64_t>(MicrosPerUnit(type->unit()), 1));
      return IntsTo<int32_t>(t, type, validity);
    }
    case TypeId::kDecimal128: {
      // From doubles: round to the scale; |value| must fit the precision.
      const double scale = std::pow(10.0, type->scale());
      const double limit = std::pow(10.0, type->precision());
      std::vector<__int128> values(n);
      for (size_t i = 0; i < n; ++i) {
        if (!v.IsValid(static_cast<int64_t>(i))) continue;
        const double scaled = std::round(v.floats[i] * scale);
        if (!(std::fabs(scaled) < limit)) {
          return Status::InvalidArgument("Value " + FormatFloat(v.floats[i]) +
                                         " is out of range for " + type->ToString());
        }
        values[i] = static_cast<__int128>(scaled);
      }
      return array::ArrayPtr(
          array::ArrayData::Make(type, v.length, {validity, Buffer::FromVector(values)}));
    }
    case TypeId::kFloat16: {
      // From doubles, rounded once (as Arrow's cast from float64 does).
      std::vector<uint16_t> values(n);
      for (size_t i = 0; i < n; ++i) values[i] = array::DoubleToHalf(v.floats[i]);
      return array::ArrayPtr(
          array::ArrayData::Make(type, v.length, {validity, Buffer::FromVector(values)}));
    }
    case TypeId::kFloat32: {
      std::vector<float> values(v.floats.begin(), v.floats.end());
      return array::ArrayPtr(
          array::ArrayData::Make(type, v.length, {validity, Buffer::FromVector(values)}));
    }
    case TypeId::kFloat64:
      return array::ArrayPtr(
          array::ArrayData::Make(type, v.length, {validity, Buffer::FromVector(v.floats)}));
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary: {
      std::vector<std::optional<std::string>> values(n);
      for (size_t i = 0; i < n; ++i) {
        if (v.IsValid(static_cast<int64_t>(i))) values[i] = std::string(v.strings[i]);
      }
      return array::MakeBinaryLike(type, values);
    }
    default:
      break;
  }
  if (kind == ValueKind::kList && !v.items.empty()) {
    // An array literal: row i is [items[0][i], items[1][i], ...].
    const size_t k = v.items.size();
    std::vector<int64_t> order;
    Vec flat = NullVec(v.items[0].kind, static_cast<int64_t>(n * k));
    std::vector<array::ArrayPtr> parts;
    for (const auto& item : v.items) {
      LANCEDB_ASSIGN_OR_RETURN(auto part, ToArray(item, type->value_type()));
      parts.push_back(part);
    }
    LANCEDB_ASSIGN_OR_RETURN(auto cat, array::Concatenate(parts));
    for (size_t r = 0; r < n; ++r) {
      for (size_t j = 0; j < k; ++j) order.push_back(static_cast<int64_t>(j * n + r));
    }
    LANCEDB_ASSIGN_OR_RETURN(auto child, array::Take(cat, order));
    std::vector<int64_t> offsets(n + 1);
    for (size_t r = 0; r <= n; ++r) offsets[r] = static_cast<int64_t>(r * k);
    return array::MakeList(type, offsets, child);
  }
  return Status::NotSupported("Cannot produce values of type " + type->ToString());
}

Result<array::ArrayPtr> StructField(const array::ArrayPtr& parent, const std::string& name) {
  const auto& fields = parent->type->fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i]->name() != name) continue;
    array::ArrayPtr child = array::Slice(parent->children[i], parent->offset, parent->length);
    if (parent->null_count == 0 || parent->buffers.empty() || !parent->buffers[0]) return child;
    // Apply the parent's nulls: rebuild the child's validity over its own offset.
    auto copy = std::make_shared<array::ArrayData>(*child);
    if (copy->type->id() == TypeId::kNull) return child;
    const int64_t bits = copy->offset + copy->length;
    auto buf = Buffer::Allocate(bit_util::BytesForBits(bits));
    for (int64_t r = 0; r < copy->length; ++r) {
      bool ok = parent->IsValid(r) && child->IsValid(r);
      if (ok) bit_util::SetBit(buf->mutable_data(), copy->offset + r);
    }
    if (copy->buffers.empty()) copy->buffers.resize(1);
    copy->buffers[0] = buf;
    copy->null_count = -1;
    copy->null_count = array::ComputeNullCount(*copy);
    return array::ArrayPtr(copy);
  }
  return Status::InvalidArgument("Field '" + name + "' not found in " + parent->type->ToString());
}

}  // namespace lancedb::expr
