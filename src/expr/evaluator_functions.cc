// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Built-in functions: strings (UTF-8), math, conditional, date/time and arrays.

#include <algorithm>
#include <cmath>
#include <regex>

#include "array/builder.h"
#include "common/int_util.h"
#include "expr/civil_time.h"
#include "expr/evaluator.h"

namespace lancedb::expr {

namespace {

using int_util::FloorDiv;

size_t Utf8Len(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c >> 5) == 0x6) return 2;
  if ((c >> 4) == 0xe) return 3;
  if ((c >> 3) == 0x1e) return 4;
  return 1;
}

/// Decode one code point at s[i]; advances i.
uint32_t Decode(std::string_view s, size_t* i) {
  unsigned char c = static_cast<unsigned char>(s[*i]);
  size_t len = std::min(Utf8Len(c), s.size() - *i);
  uint32_t cp = len == 1 ? c : (c & (0xff >> (len + 1)));
  for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[*i + k]) & 0x3f);
  *i += len;
  return cp;
}

void Encode(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out->push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

// Simple (one code point to one) case mapping of ASCII, Latin-1 Supplement, Latin Extended-A,
// Greek and Cyrillic; other scripts are left as they are.
uint32_t LowerCp(uint32_t c) {
  if (c < 0x80) return (c >= 'A' && c <= 'Z') ? c + 32 : c;
  if (c >= 0xc0 && c <= 0xde && c != 0xd7) return c + 32;
  if (c >= 0x100 && c <= 0x17e) {
    // Latin Extended-A: pairs start on even code points except in 0x139-0x148 and 0x179-0x17e.
    if (c == 0x130 || c == 0x131 || c == 0x138 || c == 0x149) return c;
    if (c == 0x178) return 0xff;
    const bool odd_pairs = (c >= 0x139 && c <= 0x148) || c >= 0x179;
    return (c % 2 == 1) == odd_pairs ? c + 1 : c;
  }
  if (c == 0x386) return 0x3ac;
  if (c >= 0x388 && c <= 0x38a) return c + 37;
  if (c == 0x38c) return 0x3cc;
  if (c == 0x38e || c == 0x38f) return c + 63;
  if ((c >= 0x391 && c <= 0x3ab && c != 0x3a2) || (c >= 0x410 && c <= 0x42f)) return c + 32;
  if (c >= 0x400 && c <= 0x40f) return c + 80;
  return c;
}

uint32_t UpperCp(uint32_t c) {
  if (c < 0x80) return (c >= 'a' && c <= 'z') ? c - 32 : c;
  if (c >= 0xe0 && c <= 0xfe && c != 0xf7) return c - 32;
  if (c == 0xff) return 0x178;
  if (c == 0xb5) return 0x39c;
  if (c >= 0x100 && c <= 0x17f) {
    if (c == 0x131) return 'I';
    if (c == 0x17f) return 'S';
    if (c == 0x130 || c == 0x138 || c == 0x149 || c == 0x178) return c;
    const bool odd_pairs = (c >= 0x139 && c <= 0x148) || c >= 0x179;
    return (c % 2 == 0) == odd_pairs ? c - 1 : c;
  }
  if (c == 0x3ac) return 0x386;
  if (c >= 0x3ad && c <= 0x3af) return c - 37;
  if (c == 0x3cc) return 0x38c;
  if (c == 0x3cd || c == 0x3ce) return c - 63;
  if (c == 0x3c2) return 0x3a3;
  if ((c >= 0x3b1 && c <= 0x3cb) || (c >= 0x430 && c <= 0x44f)) return c - 32;
  if (c >= 0x450 && c <= 0x45f) return c - 80;
  return c;
}

/// Case folding for case-insensitive matching (ILIKE, regexp 'i'): lower case, with the
/// variants that lower() keeps apart folded together (final sigma, long s, micro sign).
uint32_t FoldCp(uint32_t c) {
  if (c == 0x3c2) return 0x3c3;
  if (c == 0x17f) return 's';
  if (c == 0xb5) return 0x3bc;
  return LowerCp(c);
}

bool IsCased(uint32_t c) { return LowerCp(c) != c || UpperCp(c) != c; }

template <typename F>
std::string MapCp(std::string_view s, F f) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      out.push_back(static_cast<char>(f(c)));
      ++i;
    } else {
      Encode(f(Decode(s, &i)), &out);
    }
  }
  return out;
}

int64_t CharCount(std::string_view s) {
  int64_t n = 0;
  for (unsigned char c : s) n += (c & 0xc0) != 0x80;
  return n;
}

/// Byte offset of the `chars`-th character (clamped to the end).
size_t ByteOffset(std::string_view s, int64_t chars) {
  size_t i = 0;
  while (i < s.size() && chars > 0) {
    i += std::min(Utf8Len(static_cast<unsigned char>(s[i])), s.size() - i);
    --chars;
  }
  return i;
}

std::string_view Trim(std::string_view s, std::string_view chars, bool left, bool right) {
  if (left) {
    while (!s.empty() && chars.find(s.front()) != std::string_view::npos) s.remove_prefix(1);
  }
  if (right) {
    while (!s.empty() && chars.find(s.back()) != std::string_view::npos) s.remove_suffix(1);
  }
  return s;
}

Vec NewOut(ValueKind kind, int64_t n) {
  Vec v = NullVec(kind, n);
  v.valid.clear();
  return v;
}

/// valid[i] = every arg valid at i.
std::vector<uint8_t> AllArgsValid(const std::vector<Vec>& args, int64_t n) {
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

double DatePart(const std::string& part, int64_t micros) {
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
  if (part == "minute") return static_cast<double>(in_day / 60000000LL % 60);
  if (part == "second") return static_cast<double>(in_day / 1000000 % 60);
  if (part == "millisecond") return static_cast<double>(in_day / 1000 % 60000);
  if (part == "microsecond") return static_cast<double>(in_day % 60000000LL);
  return static_cast<double>(micros) / 1e6;  // epoch
}

int64_t DateTrunc(const std::string& part, int64_t micros) {
  const int64_t days = FloorDiv(micros, kMicrosPerDay);
  const CivilDate c = CivilFromDays(days);
  if (part == "year") return DaysFromCivil(c.year, 1, 1) * kMicrosPerDay;
  if (part == "quarter") {
    return DaysFromCivil(c.year, static_cast<unsigned>((c.month - 1) / 3 * 3 + 1), 1) *
           kMicrosPerDay;
  }
  if (part == "month")
    return DaysFromCivil(c.year, static_cast<unsigned>(c.month), 1) * kMicrosPerDay;
  if (part == "week") return (days - ((days % 7) + 10) % 7) * kMicrosPerDay;
  if (part == "day") return days * kMicrosPerDay;
  if (part == "hour") return FloorDiv(micros, kMicrosPerHour) * kMicrosPerHour;
  if (part == "minute") return FloorDiv(micros, kMicrosPerMinute) * kMicrosPerMinute;
  return FloorDiv(micros, kMicrosPerSecond) * kMicrosPerSecond;
}

/// Element values of a list Vec at `row`, as [begin, end) in `items` (a Vec of the items).
struct ListView {
  Vec items;  // the flattened items (list column) or unused (array literal)
  const Vec* literal = nullptr;
  std::vector<std::pair<int64_t, int64_t>> ranges;
};

Result<ListView> MakeListView(const Vec& v, ValueKind item_kind) {
  ListView out;
  if (!v.items.empty() || !v.array) {
    out.literal = &v;
    return out;
  }
  const auto& arr = *v.array;
  LANCEDB_ASSIGN_OR_RETURN(out.items, FromArray(arr.children[0], item_kind));
  out.ranges.resize(static_cast<size_t>(arr.length));
  for (int64_t i = 0; i < arr.length; ++i) out.ranges[static_cast<size_t>(i)] = arr.GetListRange(i);
  return out;
}

/// Whether item j of `items` equals `needle` row i (same kind, both valid).
bool ItemEquals(const Vec& items, int64_t j, const Vec& needle, int64_t i) {
  if (!items.IsValid(j) || !needle.IsValid(i)) return false;
  const size_t a = static_cast<size_t>(j), b = static_cast<size_t>(i);
  switch (items.kind) {
    case ValueKind::kBool:
      return items.bools[a] == needle.bools[b];
    case ValueKind::kInt:
      // A uint64 above INT64_MAX never equals a negative int64.
      if (items.is_unsigned != needle.is_unsigned && (items.ints[a] < 0 || needle.ints[b] < 0)) {
        return false;
      }
      return items.ints[a] == needle.ints[b];
    case ValueKind::kDate:
    case ValueKind::kTimestamp:
    case ValueKind::kTime:
    case ValueKind::kDuration:
      return items.ints[a] == needle.ints[b];
    case ValueKind::kFloat:
      return items.floats[a] == needle.floats[b];
    case ValueKind::kString:
      return items.strings[a] == needle.strings[b];
    default:
      return false;
  }
}

/// Calls f(items, index) for each element of row i of list view `lv`.
template <typename F>
void ForEachItem(const ListView& lv, int64_t i, F f) {
  if (lv.literal) {
    for (const auto& item : lv.literal->items) f(item, i);
  } else {
    auto [b, e] = lv.ranges[static_cast<size_t>(i)];
    for (int64_t j = b; j < e; ++j) f(lv.items, j);
  }
}

Result<Vec> EvalArrayFunction(const BoundExpr& e, std::vector<Vec>& args, int64_t n) {
  LANCEDB_ASSIGN_OR_RETURN(auto item_kind, KindOf(*e.args[0]->type->value_type()));
  LANCEDB_ASSIGN_OR_RETURN(auto list, MakeListView(args[0], item_kind));
  auto list_valid = [&](int64_t i) {
    return args[0].array ? args[0].array->IsValid(i) : args[0].IsValid(i);
  };
  if (e.func == Func::kArrayLength) {
    Vec out = NewOut(ValueKind::kInt, n);
    out.valid.assign(static_cast<size_t>(n), 1);
    for (int64_t i = 0; i < n; ++i) {
      int64_t count = 0;
      ForEachItem(list, i, [&](const Vec&, int64_t) { ++count; });
      out.ints[static_cast<size_t>(i)] = count;
      out.valid[static_cast<size_t>(i)] = list_valid(i);
    }
    return out;
  }
  Vec out = NewOut(ValueKind::kBool, n);
  out.valid.assign(static_cast<size_t>(n), 1);
  if (e.func == Func::kArrayHas) {
    const Vec& needle = args[1];
    for (int64_t i = 0; i < n; ++i) {
      bool found = false;
      ForEachItem(list, i,
                  [&](const Vec& items, int64_t j) { found |= ItemEquals(items, j, needle, i); });
      out.bools[static_cast<size_t>(i)] = found;
      out.valid[static_cast<size_t>(i)] = list_valid(i) && needle.IsValid(i);
    }
    return out;
  }
  LANCEDB_ASSIGN_OR_RETURN(auto other, MakeListView(args[1], item_kind));
  auto other_valid = [&](int64_t i) {
    return args[1].array ? args[1].array->IsValid(i) : args[1].IsValid(i);
  };
  const bool any = e.func == Func::kArrayHasAny;
  for (int64_t i = 0; i < n; ++i) {
    bool result = !any;
    ForEachItem(other, i, [&](const Vec& wanted, int64_t w) {
      bool found = false;
      ForEachItem(list, i,
                  [&](const Vec& items, int64_t j) { found |= ItemEquals(items, j, wanted, w); });
      if (any) {
        result |= found;
      } else {
        result &= found;
      }
    });
    out.bools[static_cast<size_t>(i)] = result;
    out.valid[static_cast<size_t>(i)] = list_valid(i) && other_valid(i);
  }
  return out;
}

std::wstring ToWide(std::string_view s) {
  std::wstring out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) out.push_back(static_cast<wchar_t>(Decode(s, &i)));
  return out;
}

std::string FromWide(std::wstring_view s) {
  std::string out;
  out.reserve(s.size());
  for (wchar_t c : s) Encode(static_cast<uint32_t>(c), &out);
  return out;
}

Result<Vec> EvalRegexp(const BoundExpr& e, std::vector<Vec>& args, int64_t n) {
  std::vector<uint8_t> valid = AllArgsValid(args, n);
  const auto* fixed = static_cast<const Utf8Regex*>(e.state.get());
  const bool like = e.func == Func::kRegexpLike;
  Vec out = NewOut(like ? ValueKind::kBool : ValueKind::kList, n);
  std::vector<int64_t> offsets = {0};
  std::vector<std::optional<std::string>> captures;
  std::vector<bool> list_valid;
  for (int64_t i = 0; i < n; ++i) {
    const size_t u = static_cast<size_t>(i);
    const bool ok = valid.empty() || valid[u];
    std::wsmatch m;
    bool found = false;
    std::wstring text, folded;
    if (ok) {
      std::shared_ptr<const Utf8Regex> compiled;
      const Utf8Regex* re = fixed;
      if (re == nullptr) {
        LANCEDB_ASSIGN_OR_RETURN(
            compiled, CompileRegex(args[1].strings[u],
                                   args.size() > 2 ? args[2].strings[u] : std::string_view()));
        re = compiled.get();
      }
      text = ToWide(args[0].strings[u]);
      if (re->case_insensitive) folded = ToWide(Utf8Fold(args[0].strings[u]));
      const std::wstring& subject = re->case_insensitive ? folded : text;
      found = std::regex_search(subject, m, re->re);
    }
    if (like) {
      out.bools[u] = found;
      continue;
    }
    if (found) {
      // Positions are code points in both `folded` and `text`.
      auto group = [&](size_t g) {
        return FromWide(std::wstring_view(text).substr(static_cast<size_t>(m.position(g)),
                                                       static_cast<size_t>(m.length(g))));
      };
      if (m.size() == 1) {
        captures.emplace_back(group(0));
      } else {
        // Groups that did not take part in the match are left out (as DataFusion does).
        for (size_t g = 1; g < m.size(); ++g) {
          if (m[g].matched) captures.emplace_back(group(g));
        }
      }
    }
    offsets.push_back(static_cast<int64_t>(captures.size()));
    list_valid.push_back(found);
  }
  if (like) {
    out.valid = std::move(valid);
    return out;
  }
  out.array =
      array::MakeList(array::list(array::utf8()), offsets, array::MakeString(captures), list_valid);
  return out;
}

}  // namespace

bool LikeMatch(std::string_view text, std::string_view pattern, char escape) {
  size_t t = 0, p = 0;
  size_t star_p = std::string_view::npos, star_t = 0;
  while (t < text.size()) {
    if (p < pattern.size()) {
      char c = pattern[p];
      if (c == '%') {
        star_p = ++p;
        star_t = t;
        continue;
      }
      if (c == '_') {
        t += std::min(Utf8Len(static_cast<unsigned char>(text[t])), text.size() - t);
        ++p;
        continue;
      }
      if (c == escape && p + 1 < pattern.size()) {
        ++p;
        c = pattern[p];
      }
      if (text[t] == c) {
        ++t;
        ++p;
        continue;
      }
    }
    if (star_p == std::string_view::npos) return false;
    // Backtrack: let the last % absorb one more character.
    star_t += std::min(Utf8Len(static_cast<unsigned char>(text[star_t])), text.size() - star_t);
    t = star_t;
    p = star_p;
  }
  while (p < pattern.size() && pattern[p] == '%') ++p;
  return p == pattern.size();
}

std::string Utf8Lower(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool after_cased = false;
  for (size_t i = 0; i < s.size();) {
    const uint32_t c = Decode(s, &i);
    uint32_t lower = LowerCp(c);
    if (c == 0x3a3 && after_cased) {
      // A capital sigma ending a word becomes the final form.
      size_t j = i;
      if (j >= s.size() || !IsCased(Decode(s, &j))) lower = 0x3c2;
    }
    Encode(lower, &out);
    after_cased = IsCased(c);
  }
  return out;
}

std::string Utf8Upper(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const uint32_t c = Decode(s, &i);
    if (c == 0xdf) {
      out += "SS";  // the one multi-character mapping kept (German sharp s)
    } else {
      Encode(UpperCp(c), &out);
    }
  }
  return out;
}

std::string Utf8Fold(std::string_view s) { return MapCp(s, FoldCp); }

Result<std::shared_ptr<const Utf8Regex>> CompileRegex(std::string_view pattern,
                                                      std::string_view flags) {
  auto out = std::make_shared<Utf8Regex>();
  if (pattern.substr(0, 4) == "(?i)") {  // Rust regex's inline flag, common in DataFusion SQL
    out->case_insensitive = true;
    pattern.remove_prefix(4);
  }
  for (char f : flags) {
    if (f == 'i') {
      out->case_insensitive = true;
    } else if (f == 'c') {
      out->case_insensitive = false;
    } else if (f == 'g') {
      return Status::InvalidArgument("regexp functions do not support the 'global' flag 'g'");
    } else if (f != 'm' && f != 's' && f != 'x' && f != 'U') {
      return Status::InvalidArgument(std::string("unknown regexp flag '") + f + "'");
    }
  }
  std::wstring wide;
  if (out->case_insensitive) {
    // Lower every character that is not escaped (\D must stay \D).
    bool escaped = false;
    for (size_t i = 0; i < pattern.size();) {
      uint32_t cp = Decode(pattern, &i);
      wide.push_back(static_cast<wchar_t>(escaped ? cp : FoldCp(cp)));
      escaped = !escaped && cp == '\\';
    }
  } else {
    wide = ToWide(pattern);
  }
  for (size_t i = 0; i + 1 < wide.size(); ++i) {
    if (wide[i] != L'\\') continue;
    if (wide[i + 1] >= L'1' && wide[i + 1] <= L'9') {
      return Status::InvalidArgument("invalid regular expression '" + std::string(pattern) +
                                     "': back-references are not supported");
    }
    ++i;  // skip the escaped character
  }
  auto syntax = std::regex::ECMAScript;
#ifdef __GLIBCXX__
  // The breadth-first executor: time linear in the text (as Rust's regex, which DataFusion
  // uses), where backtracking takes exponential time on patterns such as '(a+)+b'.
  // Back-references, which Rust's regex lacks too, are refused in this mode.
  syntax |= std::regex_constants::__polynomial;
#endif
  try {
    out->re = std::wregex(wide, syntax);
  } catch (const std::regex_error& err) {
    return Status::InvalidArgument("invalid regular expression '" + std::string(pattern) +
                                   "': " + err.what());
  }
  return std::shared_ptr<const Utf8Regex>(std::move(out));
}

Result<Vec> EvaluateFunction(const BoundExpr& e, const array::RecordBatch& batch) {
  const int64_t n = batch.num_rows();
  const size_t len = static_cast<size_t>(n);
  std::vector<Vec> args;
  args.reserve(e.args.size());
  for (const auto& a : e.args) {
    LANCEDB_ASSIGN_OR_RETURN(auto v, EvaluateVec(*a, batch));
    args.push_back(std::move(v));
  }
  Vec out = NewOut(e.kind, n);
  if (e.func != Func::kCoalesce && e.func != Func::kConcat && e.func != Func::kGreatest &&
      e.func != Func::kLeast && e.func != Func::kNullIf) {
    out.valid = AllArgsValid(args, n);
    for (const auto& a : args) {
      if (a.kind == ValueKind::kNull) out.valid.assign(len, 0);
    }
  }
  auto ok = [&](size_t i) { return out.valid.empty() || out.valid[i]; };
  auto str = [&](size_t a, size_t i) { return args[a].strings[i]; };
  switch (e.func) {
    case Func::kLower:
    case Func::kUpper:
      for (size_t i = 0; i < len; ++i) {
        if (ok(i))
          out.strings[i] =
              out.Own(e.func == Func::kLower ? Utf8Lower(str(0, i)) : Utf8Upper(str(0, i)));
      }
      return out;
    case Func::kLength:
      for (size_t i = 0; i < len; ++i) out.ints[i] = ok(i) ? CharCount(str(0, i)) : 0;
      return out;
    case Func::kTrim:
    case Func::kLtrim:
    case Func::kRtrim:
      for (size_t i = 0; i < len; ++i) {
        if (!ok(i)) continue;
        std::string_view chars = args.size() > 1 ? str(1, i) : std::string_view(" ");
        out.strings[i] = Trim(str(0, i), chars, e.func != Func::kRtrim, e.func != Func::kLtrim);
      }
      out.keep = args[0].keep;
      out.keep.push_back(std::shared_ptr<const array::ArrayData>(args[0].store, nullptr));
      return out;
    case Func::kSubstr:
      for (size_t i = 0; i < len; ++i) {
        if (!ok(i)) continue;
        std::string_view s = str(0, i);
        // 1-based start; characters before position 1 count against the length (SQL).
        int64_t start = args[1].ints[i];
        int64_t end = args.size() > 2 ? start + args[2].ints[i] : INT64_MAX;
        if (args.size() > 2 && args[2].ints[i] < 0) {
          return Status::InvalidArgument("negative substring length not allowed");
        }
        int64_t from = std::max<int64_t>(start, 1) - 1;
        int64_t to = end == INT64_MAX ? INT64_MAX : std::max<int64_t>(end - 1, from);
        size_t b = ByteOffset(s, from);
        size_t f = to == INT64_MAX ? s.size() : ByteOffset(s, to);
        out.strings[i] = out.Own(std::string(s.substr(b, f - b)));
      }
      return out;
    case Func::kConcat:
      for (size_t i = 0; i < len; ++i) {
        std::string s;
        for (const auto& a : args) {
          if (a.kind != ValueKind::kNull && a.IsValid(static_cast<int64_t>(i))) s += a.strings[i];
        }
        out.strings[i] = out.Own(std::move(s));
      }
      return out;
    case Func::kReplace:
      for (size_t i = 0; i < len; ++i) {
        if (!ok(i)) continue;
        std::string s(str(0, i));
        std::string_view from = str(1, i), to = str(2, i);
        if (!from.empty()) {
          std::string r;
          size_t pos = 0, hit;
          while ((hit = s.find(from, pos)) != std::string::npos) {
            r.append(s, pos, hit - pos);
            r.append(to);
            pos = hit + from.size();
          }
          r.append(s, pos, std::string::npos);
          s = std::move(r);
        }
        out.strings[i] = out.Own(std::move(s));
      }
      return out;
    case Func::kStartsWith:
    case Func::kEndsWith:
    case Func::kContains:
      for (size_t i = 0; i < len; ++i) {
        if (!ok(i)) continue;
        std::string_view s = str(0, i), sub = str(1, i);
        out.bools[i] = e.func == Func::kStartsWith ? s.starts_with(sub)
                       : e.func == Func::kEndsWith ? s.ends_with(sub)
                                                   : s.find(sub) != std::string_view::npos;
      }
      return out;
    case Func::kRegexpMatch:
    case Func::kRegexpLike:
      return EvalRegexp(e, args, n);
    case Func::kAbs:
      out.is_unsigned = args[0].is_unsigned;
      for (size_t i = 0; i < len; ++i) {
        if (e.kind == ValueKind::kInt && args[0].is_unsigned) {
          out.ints[i] = args[0].ints[i];
        } else if (e.kind == ValueKind::kInt) {
          out.ints[i] = args[0].ints[i] < 0
                            ? static_cast<int64_t>(0 - static_cast<uint64_t>(args[0].ints[i]))
                            : args[0].ints[i];
        } else {
          out.floats[i] = std::fabs(args[0].floats[i]);
        }
      }
      return out;
    case Func::kCeil:
      for (size_t i = 0; i < len; ++i) out.floats[i] = std::ceil(args[0].floats[i]);
      return out;
    case Func::kFloor:
      for (size_t i = 0; i < len; ++i) out.floats[i] = std::floor(args[0].floats[i]);
      return out;
    case Func::kSqrt:
      for (size_t i = 0; i < len; ++i) out.floats[i] = std::sqrt(args[0].floats[i]);
      return out;
    case Func::kRound:
      for (size_t i = 0; i < len; ++i) {
        double scale = args.size() > 1 ? std::pow(10.0, static_cast<double>(args[1].ints[i])) : 1.0;
        out.floats[i] = std::round(args[0].floats[i] * scale) / scale;
      }
      return out;
    case Func::kPow:
      for (size_t i = 0; i < len; ++i)
        out.floats[i] = std::pow(args[0].floats[i], args[1].floats[i]);
      return out;
    case Func::kCoalesce:
    case Func::kGreatest:
    case Func::kLeast: {
      out.valid.assign(len, 0);
      for (const auto& a : args) {
        if (a.store) out.keep.push_back(std::shared_ptr<const array::ArrayData>(a.store, nullptr));
        for (const auto& k : a.keep) out.keep.push_back(k);
      }
      for (size_t i = 0; i < len; ++i) {
        for (const auto& a : args) {
          if (a.kind == ValueKind::kNull || !a.IsValid(static_cast<int64_t>(i))) continue;
          bool take = !out.valid[i];
          if (!take && e.func != Func::kCoalesce) {
            bool greater;
            switch (e.kind) {
              case ValueKind::kFloat:
                greater = a.floats[i] > out.floats[i];
                break;
              case ValueKind::kString:
                greater = a.strings[i] > out.strings[i];
                break;
              case ValueKind::kBool:
                greater = a.bools[i] > out.bools[i];
                break;
              default:
                greater = a.ints[i] > out.ints[i];
                break;
            }
            bool less;
            switch (e.kind) {
              case ValueKind::kFloat:
                less = a.floats[i] < out.floats[i];
                break;
              case ValueKind::kString:
                less = a.strings[i] < out.strings[i];
                break;
              case ValueKind::kBool:
                less = a.bools[i] < out.bools[i];
                break;
              default:
                less = a.ints[i] < out.ints[i];
                break;
            }
            take = e.func == Func::kGreatest ? greater : less;
          }
          if (take) {
            out.valid[i] = 1;
            switch (e.kind) {
              case ValueKind::kFloat:
                out.floats[i] = a.floats[i];
                break;
              case ValueKind::kString:
                out.strings[i] = a.strings[i];
                break;
              case ValueKind::kBool:
                out.bools[i] = a.bools[i];
                break;
              default:
                out.ints[i] = a.ints[i];
                break;
            }
          }
          if (e.func == Func::kCoalesce) break;
        }
      }
      return out;
    }
    case Func::kNullIf: {
      LANCEDB_ASSIGN_OR_RETURN(auto eq, EvaluateVec(*std::make_shared<BoundExpr>([&] {
                                 BoundExpr c;
                                 c.op = BoundOp::kCompare;
                                 c.bop = BinaryOp::kEq;
                                 c.kind = ValueKind::kBool;
                                 c.args = e.args;
                                 return c;
                               }()),
                                                    batch));
      Vec r = std::move(args[0]);
      if (r.kind == ValueKind::kNull) return NullVec(e.kind, n);
      r.MaterializeValidity();
      for (size_t i = 0; i < len; ++i) {
        if (eq.IsValid(static_cast<int64_t>(i)) && eq.bools[i]) r.valid[i] = 0;
      }
      return r;
    }
    case Func::kDatePart: {
      const std::string& part = e.args[0]->literal.string_value;
      const bool is_date = args[1].kind == ValueKind::kDate;
      for (size_t i = 0; i < len; ++i) {
        int64_t micros = is_date ? args[1].ints[i] * kMicrosPerDay : args[1].ints[i];
        double v = DatePart(part, micros);
        if (e.kind == ValueKind::kFloat) {
          out.floats[i] = v;
        } else {
          out.ints[i] = static_cast<int64_t>(v);
        }
      }
      return out;
    }
    case Func::kDateTrunc: {
      const std::string& part = e.args[0]->literal.string_value;
      for (size_t i = 0; i < len; ++i) out.ints[i] = DateTrunc(part, args[1].ints[i]);
      return out;
    }
    case Func::kArrayHas:
    case Func::kArrayHasAny:
    case Func::kArrayHasAll:
    case Func::kArrayLength:
      return EvalArrayFunction(e, args, n);
    case Func::kNow:
    case Func::kCurrentDate:
      break;
  }
  return Status::Internal("function not evaluated");
}

}  // namespace lancedb::expr
