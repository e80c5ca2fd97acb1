// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Regular expression functions: regexp_like, regexp_match.

#include <regex>

#include "array/builder.h"
#include "expr/binder_internal.h"
#include "expr/function.h"
#include "expr/utf8.h"

namespace lancedb::expr {

namespace {

/// A regular expression matched over code points (the UTF-8 text decoded), so that `.` and
/// character classes see characters, not bytes. Case-insensitive matching lowers pattern and
/// text with Utf8Fold's mapping (one code point to one). ECMAScript syntax (std::regex), which
/// agrees with DataFusion's (Rust regex) on the common subset. Immutable.
struct Utf8Regex {
  std::wregex re;
  bool case_insensitive = false;
};

std::wstring ToWide(std::string_view s) {
  std::wstring out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) out.push_back(static_cast<wchar_t>(DecodeUtf8(s, &i)));
  return out;
}

std::string FromWide(std::wstring_view s) {
  std::string out;
  out.reserve(s.size());
  for (wchar_t c : s) AppendUtf8(static_cast<uint32_t>(c), &out);
  return out;
}

/// Compile `pattern` with DataFusion's regexp flags ('i' case-insensitive, 'c' case-sensitive,
/// 'g' rejected as DataFusion does); InvalidArgument naming the problem otherwise.
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
      uint32_t cp = DecodeUtf8(pattern, &i);
      wide.push_back(static_cast<wchar_t>(escaped ? cp : FoldCodePoint(cp)));
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

/// Check the arguments (text, pattern[, flags]); a literal pattern (with literal flags) is
/// compiled now, so that a bad one fails the statement before any row is read.
Status BindRegex(FunctionBinding& call, ValueKind kind, array::DataTypePtr type) {
  LANCEDB_RETURN_NOT_OK(call.WantAll(ValueKind::kString));
  const auto& args = call.args;
  const bool flags_fixed =
      args.size() < 3 || (args[2]->op == BoundOp::kLiteral && args[2]->kind == ValueKind::kString);
  if (args[1]->op == BoundOp::kLiteral && args[1]->kind == ValueKind::kString && flags_fixed) {
    auto compiled = CompileRegex(args[1]->literal.string_value,
                                 args.size() > 2 ? args[2]->literal.string_value : "");
    if (!compiled.ok()) return TypeError(args[1]->position, compiled.status().message());
    call.state = compiled.MoveValueUnsafe();
  }
  call.Set(kind, std::move(type));
  return Status::OK();
}

Status BindRegexpLike(FunctionBinding& call) {
  return BindRegex(call, ValueKind::kBool, array::boolean());
}

Status BindRegexpMatch(FunctionBinding& call) {
  return BindRegex(call, ValueKind::kList, array::list(array::utf8()));
}

/// Calls on_match(row, text, match) for every valid row whose text matches (with `text` the
/// decoded text the match positions refer to).
template <typename F>
Status ForEachMatch(FunctionCall& call, const std::vector<uint8_t>& valid, F on_match) {
  const auto* fixed = static_cast<const Utf8Regex*>(call.expr.state.get());
  const auto& args = call.args;
  for (size_t i = 0; i < call.length; ++i) {
    if (!valid.empty() && !valid[i]) continue;
    std::shared_ptr<const Utf8Regex> compiled;
    const Utf8Regex* re = fixed;
    if (re == nullptr) {
      LANCEDB_ASSIGN_OR_RETURN(
          compiled, CompileRegex(args[1].strings[i],
                                 args.size() > 2 ? args[2].strings[i] : std::string_view()));
      re = compiled.get();
    }
    const std::wstring text = ToWide(args[0].strings[i]);
    // Positions are code points in both the folded and the original text.
    const std::wstring folded = re->case_insensitive ? ToWide(Utf8Fold(args[0].strings[i])) : L"";
    std::wsmatch m;
    if (std::regex_search(re->case_insensitive ? folded : text, m, re->re)) {
      on_match(i, text, m);
    }
  }
  return Status::OK();
}

Status EvalRegexpLike(FunctionCall& call, Vec* out) {
  return ForEachMatch(call, out->valid, [&](size_t i, const std::wstring&, const std::wsmatch&) {
    out->bools[i] = 1;
  });
}

/// The captures of the first match as a list (the whole match when the pattern has no
/// group); NULL for no match. Groups that did not take part in the match are left out (as
/// DataFusion does).
Status EvalRegexpMatch(FunctionCall& call, Vec* out) {
  std::vector<int64_t> offsets(call.length + 1, 0);
  std::vector<std::optional<std::string>> captures;
  std::vector<bool> list_valid(call.length, false);
  size_t last = 0;
  auto close_rows_until = [&](size_t row) {
    for (; last < row; ++last) offsets[last + 1] = static_cast<int64_t>(captures.size());
  };
  LANCEDB_RETURN_NOT_OK(ForEachMatch(
      call, out->valid, [&](size_t i, const std::wstring& text, const std::wsmatch& m) {
        close_rows_until(i);
        auto group = [&](size_t g) {
          return FromWide(std::wstring_view(text).substr(static_cast<size_t>(m.position(g)),
                                                         static_cast<size_t>(m.length(g))));
        };
        if (m.size() == 1) {
          captures.emplace_back(group(0));
        } else {
          for (size_t g = 1; g < m.size(); ++g) {
            if (m[g].matched) captures.emplace_back(group(g));
          }
        }
        list_valid[i] = true;
      }));
  close_rows_until(call.length);
  out->valid.clear();
  out->array =
      array::MakeList(array::list(array::utf8()), offsets, array::MakeString(captures), list_valid);
  return Status::OK();
}

constexpr FunctionDef kRegexFunctions[] = {
    {{"regexp_like"}, 2, 3, NullHandling::kPropagate, BindRegexpLike, EvalRegexpLike},
    {{"regexp_match"}, 2, 3, NullHandling::kPropagate, BindRegexpMatch, EvalRegexpMatch},
};

}  // namespace

std::span<const FunctionDef> RegexFunctions() { return kRegexFunctions; }

}  // namespace lancedb::expr
