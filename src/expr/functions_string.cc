// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// String functions over UTF-8 (lengths and positions count code points).

#include "expr/binder_internal.h"
#include "expr/function.h"
#include "expr/utf8.h"

namespace lancedb::expr {

namespace {

Status BindStringToString(FunctionBinding& call) {
  LANCEDB_RETURN_NOT_OK(call.WantAll(ValueKind::kString));
  call.Set(ValueKind::kString, array::utf8());
  return Status::OK();
}

Status BindStringPredicate(FunctionBinding& call) {
  LANCEDB_RETURN_NOT_OK(call.WantAll(ValueKind::kString));
  call.Set(ValueKind::kBool, array::boolean());
  return Status::OK();
}

/// Apply `f(string) -> std::string` to argument 0 of each valid row.
template <typename F>
Status MapStrings(FunctionCall& call, Vec* out, F f) {
  for (size_t i = 0; i < call.length; ++i) {
    if (call.IsValid(*out, i)) out->strings[i] = out->Own(f(call.args[0].strings[i]));
  }
  return Status::OK();
}

Status EvalLower(FunctionCall& call, Vec* out) { return MapStrings(call, out, Utf8Lower); }
Status EvalUpper(FunctionCall& call, Vec* out) { return MapStrings(call, out, Utf8Upper); }

Status BindLength(FunctionBinding& call) {
  LANCEDB_RETURN_NOT_OK(call.Want(0, ValueKind::kString));
  call.Set(ValueKind::kInt, array::int32());
  return Status::OK();
}

Status EvalLength(FunctionCall& call, Vec* out) {
  for (size_t i = 0; i < call.length; ++i) {
    out->ints[i] = call.IsValid(*out, i) ? Utf8Length(call.args[0].strings[i]) : 0;
  }
  return Status::OK();
}

/// octet_length: bytes, not characters (binary and string arguments).
Status EvalOctetLength(FunctionCall& call, Vec* out) {
  for (size_t i = 0; i < call.length; ++i) {
    out->ints[i] = call.IsValid(*out, i) ? static_cast<int64_t>(call.args[0].strings[i].size()) : 0;
  }
  return Status::OK();
}

std::string_view TrimChars(std::string_view s, std::string_view chars, bool left, bool right) {
  if (left) {
    while (!s.empty() && chars.find(s.front()) != std::string_view::npos) s.remove_prefix(1);
  }
  if (right) {
    while (!s.empty() && chars.find(s.back()) != std::string_view::npos) s.remove_suffix(1);
  }
  return s;
}

/// trim/ltrim/rtrim: the results view argument 0's bytes, which `out` keeps alive.
template <bool kLeft, bool kRight>
Status EvalTrim(FunctionCall& call, Vec* out) {
  const auto& args = call.args;
  for (size_t i = 0; i < call.length; ++i) {
    if (!call.IsValid(*out, i)) continue;
    std::string_view chars = args.size() > 1 ? args[1].strings[i] : std::string_view(" ");
    out->strings[i] = TrimChars(args[0].strings[i], chars, kLeft, kRight);
  }
  out->keep = args[0].keep;
  out->keep.push_back(std::shared_ptr<const array::ArrayData>(args[0].store, nullptr));
  return Status::OK();
}

Status BindSubstr(FunctionBinding& call) {
  LANCEDB_RETURN_NOT_OK(call.Want(0, ValueKind::kString));
  for (size_t i = 1; i < call.args.size(); ++i) {
    LANCEDB_RETURN_NOT_OK(call.Want(i, ValueKind::kInt));
  }
  call.Set(ValueKind::kString, array::utf8());
  return Status::OK();
}

Status EvalSubstr(FunctionCall& call, Vec* out) {
  const auto& args = call.args;
  for (size_t i = 0; i < call.length; ++i) {
    if (!call.IsValid(*out, i)) continue;
    std::string_view s = args[0].strings[i];
    // 1-based start; characters before position 1 count against the length (SQL).
    const int64_t start = args[1].ints[i];
    if (args.size() > 2 && args[2].ints[i] < 0) {
      return Status::InvalidArgument("negative substring length not allowed");
    }
    const int64_t end = args.size() > 2 ? start + args[2].ints[i] : INT64_MAX;
    const int64_t from = std::max<int64_t>(start, 1) - 1;
    const int64_t to = end == INT64_MAX ? INT64_MAX : std::max<int64_t>(end - 1, from);
    const size_t b = Utf8ByteOffset(s, from);
    const size_t f = to == INT64_MAX ? s.size() : Utf8ByteOffset(s, to);
    out->strings[i] = out->Own(std::string(s.substr(b, f - b)));
  }
  return Status::OK();
}

Status BindConcat(FunctionBinding& call) {
  for (auto& a : call.args) {
    if (a->kind == ValueKind::kList || a->kind == ValueKind::kStruct) {
      return TypeError(a->position, "concat cannot take " + Describe(*a));
    }
    LANCEDB_ASSIGN_OR_RETURN(a, Coerce(a, ValueKind::kString));
  }
  call.Set(ValueKind::kString, array::utf8());
  return Status::OK();
}

/// concat skips NULL arguments (NullHandling::kCustom).
Status EvalConcat(FunctionCall& call, Vec* out) {
  for (size_t i = 0; i < call.length; ++i) {
    std::string s;
    for (const auto& a : call.args) {
      if (a.kind != ValueKind::kNull && a.IsValid(static_cast<int64_t>(i))) s += a.strings[i];
    }
    out->strings[i] = out->Own(std::move(s));
  }
  return Status::OK();
}

Status EvalReplace(FunctionCall& call, Vec* out) {
  const auto& args = call.args;
  for (size_t i = 0; i < call.length; ++i) {
    if (!call.IsValid(*out, i)) continue;
    std::string s(args[0].strings[i]);
    std::string_view from = args[1].strings[i], to = args[2].strings[i];
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
    out->strings[i] = out->Own(std::move(s));
  }
  return Status::OK();
}

/// Set out->bools[i] = f(argument 0, argument 1) for each valid row.
template <typename F>
Status TestStrings(FunctionCall& call, Vec* out, F f) {
  for (size_t i = 0; i < call.length; ++i) {
    if (call.IsValid(*out, i)) out->bools[i] = f(call.args[0].strings[i], call.args[1].strings[i]);
  }
  return Status::OK();
}

Status EvalStartsWith(FunctionCall& call, Vec* out) {
  return TestStrings(call, out,
                     [](std::string_view s, std::string_view p) { return s.starts_with(p); });
}

Status EvalEndsWith(FunctionCall& call, Vec* out) {
  return TestStrings(call, out,
                     [](std::string_view s, std::string_view p) { return s.ends_with(p); });
}

Status EvalContains(FunctionCall& call, Vec* out) {
  return TestStrings(call, out, [](std::string_view s, std::string_view p) {
    return s.find(p) != std::string_view::npos;
  });
}

Status BindStrpos(FunctionBinding& call) {
  LANCEDB_RETURN_NOT_OK(call.WantAll(ValueKind::kString));
  call.Set(ValueKind::kInt, array::int32());
  return Status::OK();
}

/// The 1-based character position of the first occurrence, 0 when there is none.
Status EvalStrpos(FunctionCall& call, Vec* out) {
  for (size_t i = 0; i < call.length; ++i) {
    if (!call.IsValid(*out, i)) continue;
    const std::string_view s = call.args[0].strings[i];
    const size_t hit = s.find(call.args[1].strings[i]);
    out->ints[i] = hit == std::string_view::npos ? 0 : Utf8Length(s.substr(0, hit)) + 1;
  }
  return Status::OK();
}

constexpr FunctionDef kStringFunctions[] = {
    {{"lower"}, 1, 1, kPropagate, BindStringToString, EvalLower},
    {{"upper"}, 1, 1, kPropagate, BindStringToString, EvalUpper},
    {{"length", "char_length", "character_length"}, 1, 1, kPropagate, BindLength, EvalLength},
    {{"octet_length"}, 1, 1, kPropagate, BindLength, EvalOctetLength},
    {{"trim", "btrim"}, 1, 2, kPropagate, BindStringToString, EvalTrim<true, true>},
    {{"ltrim"}, 1, 2, kPropagate, BindStringToString, EvalTrim<true, false>},
    {{"rtrim"}, 1, 2, kPropagate, BindStringToString, EvalTrim<false, true>},
    {{"substr", "substring"}, 2, 3, kPropagate, BindSubstr, EvalSubstr},
    {{"concat"}, 1, kVariadic, NullHandling::kCustom, BindConcat, EvalConcat},
    {{"replace"}, 3, 3, kPropagate, BindStringToString, EvalReplace},
    {{"starts_with"}, 2, 2, kPropagate, BindStringPredicate, EvalStartsWith},
    {{"ends_with"}, 2, 2, kPropagate, BindStringPredicate, EvalEndsWith},
    {{"contains"}, 2, 2, kPropagate, BindStringPredicate, EvalContains},
    {{"strpos", "instr"}, 2, 2, kPropagate, BindStrpos, EvalStrpos},
};

}  // namespace

std::span<const FunctionDef> StringFunctions() { return kStringFunctions; }

}  // namespace lancedb::expr
