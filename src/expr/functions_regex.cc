// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Regular expression functions: regexp_like, regexp_match, regexp_replace (DataFusion's
// semantics; the expressions are compiled by Regex, regex.h).

#include <algorithm>
#include <cctype>
#include <optional>

#include "array/builder.h"
#include "expr/binder_internal.h"
#include "expr/function.h"
#include "expr/regex.h"
#include "expr/utf8.h"

namespace lancedb::expr {

namespace {

using RegexPtr = std::shared_ptr<const Regex>;

/// The argument positions of the pattern and the flags.
struct RegexArgs {
  size_t pattern;
  size_t flags;
  bool allow_global;
};

/// Check that every argument is a string; a literal pattern (with literal flags or none) is
/// compiled now, so that a bad one fails the statement before any row is read.
Status BindRegex(FunctionBinding& call, RegexArgs where) {
  LANCEDB_RETURN_NOT_OK(call.WantAll(ValueKind::kString));
  const auto& args = call.args;
  auto is_literal = [&](size_t i) {
    return args[i]->op == BoundOp::kLiteral && args[i]->kind == ValueKind::kString;
  };
  const bool has_flags = args.size() > where.flags;
  if (is_literal(where.pattern) && (!has_flags || is_literal(where.flags))) {
    auto compiled = Regex::Compile(args[where.pattern]->literal.string_value,
                                   has_flags ? args[where.flags]->literal.string_value : "",
                                   where.allow_global);
    if (!compiled.ok()) {
      return compiled.status().WithContext("Type error at position " +
                                           std::to_string(args[where.pattern]->position + 1));
    }
    call.state = compiled.MoveValueUnsafe();
  }
  return Status::OK();
}

Status BindRegexpLike(FunctionBinding& call) {
  LANCEDB_RETURN_NOT_OK(BindRegex(call, {1, 2, false}));
  call.Set(ValueKind::kBool, array::boolean());
  return Status::OK();
}

Status BindRegexpMatch(FunctionBinding& call) {
  LANCEDB_RETURN_NOT_OK(BindRegex(call, {1, 2, false}));
  call.Set(ValueKind::kList, array::list(array::utf8()));
  return Status::OK();
}

Status BindRegexpReplace(FunctionBinding& call) {
  LANCEDB_RETURN_NOT_OK(BindRegex(call, {1, 3, true}));
  call.Set(ValueKind::kString, array::utf8());
  return Status::OK();
}

/// The regex of row i: the one compiled at bind time, or the row's own (compiled again only
/// when pattern or flags differ from the previous row's).
class RowRegex {
 public:
  RowRegex(const FunctionCall& call, RegexArgs where) : call_(call), where_(where) {
    fixed_ = static_cast<const Regex*>(call.expr.state.get());
  }

  Result<const Regex*> Get(size_t i) {
    if (fixed_ != nullptr) return fixed_;
    std::string_view pattern = call_.args[where_.pattern].strings[i];
    std::string_view flags =
        call_.args.size() > where_.flags ? call_.args[where_.flags].strings[i] : "";
    if (!last_ || pattern != last_pattern_ || flags != last_flags_) {
      LANCEDB_ASSIGN_OR_RETURN(last_, Regex::Compile(pattern, flags, where_.allow_global));
      last_pattern_ = pattern;
      last_flags_ = flags;
      ++generation_;
    }
    return last_.get();
  }

  /// Changes whenever Get returns a different regex.
  uint64_t generation() const { return generation_; }

 private:
  const FunctionCall& call_;
  RegexArgs where_;
  const Regex* fixed_;
  RegexPtr last_;
  std::string last_pattern_, last_flags_;
  uint64_t generation_ = 0;
};

Status EvalRegexpLike(FunctionCall& call, Vec* out) {
  RowRegex regex(call, {1, 2, false});
  for (size_t i = 0; i < call.length; ++i) {
    if (!call.IsValid(*out, i)) continue;
    LANCEDB_ASSIGN_OR_RETURN(const Regex* re, regex.Get(i));
    out->bools[i] = RE2::PartialMatch(call.args[0].strings[i], re->re2());
  }
  return Status::OK();
}

/// The captures of the first match as a list (the whole match when the pattern has no
/// group); NULL for no match. Groups that did not take part in the match are left out (as
/// DataFusion does).
Status EvalRegexpMatch(FunctionCall& call, Vec* out) {
  RowRegex regex(call, {1, 2, false});
  std::vector<int64_t> offsets = {0};
  std::vector<std::optional<std::string>> captures;
  std::vector<bool> list_valid(call.length, false);
  std::vector<re2::StringPiece> groups;
  for (size_t i = 0; i < call.length; ++i) {
    if (call.IsValid(*out, i)) {
      LANCEDB_ASSIGN_OR_RETURN(const Regex* re, regex.Get(i));
      const re2::StringPiece text(call.args[0].strings[i]);
      groups.assign(static_cast<size_t>(1 + re->re2().NumberOfCapturingGroups()), {});
      if (re->re2().Match(text, 0, text.size(), RE2::UNANCHORED, groups.data(),
                          static_cast<int>(groups.size()))) {
        list_valid[i] = true;
        for (size_t g = groups.size() == 1 ? 0 : 1; g < groups.size(); ++g) {
          if (groups[g].data() != nullptr) captures.emplace_back(std::string(groups[g]));
        }
      }
    }
    offsets.push_back(static_cast<int64_t>(captures.size()));
  }
  out->valid.clear();
  out->array =
      array::MakeList(array::list(array::utf8()), offsets, array::MakeString(captures), list_valid);
  return Status::OK();
}

/// A replacement string of regexp_replace, parsed once: literal text and group references.
/// DataFusion first turns POSIX references (\1) into ${1}; then, as Rust's regex: $$ is a '$',
/// $name or ${name} a group by number or name (the longest run of [0-9A-Za-z_] after '$'),
/// an unknown group is empty, and any other '$' is itself.
class Replacement {
 public:
  Replacement(std::string_view text, const RE2& re) { Parse(PosixToDollar(text), re); }

  /// Append the replacement for a match with submatches `groups` to `out`.
  void Expand(const std::vector<re2::StringPiece>& groups, std::string* out) const {
    for (const auto& part : parts_) {
      out->append(part.literal);
      if (part.group >= 0 && static_cast<size_t>(part.group) < groups.size() &&
          groups[static_cast<size_t>(part.group)].data() != nullptr) {
        out->append(groups[static_cast<size_t>(part.group)].data(),
                    groups[static_cast<size_t>(part.group)].size());
      }
    }
  }

 private:
  struct Part {
    std::string literal;
    int group = -1;  // -1: no group; a group index past the last is empty
  };

  static bool IsNameByte(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

  static std::string PosixToDollar(std::string_view text) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\\' && i + 1 < text.size() &&
          std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
        size_t end = i + 1;
        while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
        out += "${" + std::string(text.substr(i + 1, end - i - 1)) + "}";
        i = end - 1;
      } else {
        out += text[i];
      }
    }
    return out;
  }

  static int GroupIndex(std::string_view name, const RE2& re) {
    constexpr int kNoGroup = 1 << 30;  // past every group: expands to nothing
    if (!name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c));
        })) {
      const std::string_view digits =
          name.substr(std::min(name.find_first_not_of('0'), name.size()));
      if (digits.size() > 9) return kNoGroup;
      return digits.empty() ? 0 : std::stoi(std::string(digits));
    }
    const auto& named = re.NamedCapturingGroups();
    auto it = named.find(std::string(name));
    return it == named.end() ? kNoGroup : it->second;
  }

  void Parse(std::string_view text, const RE2& re) {
    Part part;
    size_t i = 0;
    while (i < text.size()) {
      const size_t dollar = text.find('$', i);
      if (dollar == std::string_view::npos) break;
      part.literal.append(text.substr(i, dollar - i));
      i = dollar;
      if (text.substr(i, 2) == "$$") {
        part.literal += '$';
        i += 2;
        continue;
      }
      std::optional<std::string_view> name;
      size_t end = i + 1;
      if (end < text.size() && text[end] == '{') {
        const size_t close = text.find('}', end);
        if (close != std::string_view::npos) {
          name = text.substr(end + 1, close - end - 1);
          end = close + 1;
        }
      } else {
        while (end < text.size() && IsNameByte(text[end])) ++end;
        if (end > i + 1) name = text.substr(i + 1, end - i - 1);
      }
      if (!name) {
        part.literal += '$';
        ++i;
        continue;
      }
      part.group = GroupIndex(*name, re);
      parts_.push_back(std::move(part));
      part = Part();
      i = end;
    }
    part.literal.append(text.substr(std::min(i, text.size())));
    parts_.push_back(std::move(part));
  }

  std::vector<Part> parts_;
};

/// Replace the first match of `re` in `text` (every match with flag 'g'). As Rust's regex, an
/// empty match right where the previous match ended is skipped.
std::string ReplaceMatches(std::string_view text, const Regex& re, const Replacement& rep) {
  std::string out;
  std::vector<re2::StringPiece> groups(static_cast<size_t>(1 + re.re2().NumberOfCapturingGroups()));
  const re2::StringPiece whole(text);
  size_t copied = 0, pos = 0;
  size_t last_end = std::string::npos;
  while (pos <= text.size()) {
    if (!re.re2().Match(whole, pos, text.size(), RE2::UNANCHORED, groups.data(),
                        static_cast<int>(groups.size()))) {
      break;
    }
    const size_t start = static_cast<size_t>(groups[0].data() - text.data());
    const size_t end = start + groups[0].size();
    if (start == end && start == last_end) {
      if (pos >= text.size()) break;
      pos += std::min(Utf8SequenceLength(static_cast<unsigned char>(text[pos])), text.size() - pos);
      continue;
    }
    out.append(text.substr(copied, start - copied));
    rep.Expand(groups, &out);
    copied = end;
    last_end = end;
    pos = end;
    if (!re.global()) break;
  }
  out.append(text.substr(copied));
  return out;
}

Status EvalRegexpReplace(FunctionCall& call, Vec* out) {
  RowRegex regex(call, {1, 3, true});
  std::optional<Replacement> rep;  // parsed again when the text or the regex changes
  uint64_t rep_generation = 0;
  std::string_view rep_text;
  for (size_t i = 0; i < call.length; ++i) {
    if (!call.IsValid(*out, i)) continue;
    LANCEDB_ASSIGN_OR_RETURN(const Regex* re, regex.Get(i));
    const std::string_view text = call.args[2].strings[i];
    if (!rep || regex.generation() != rep_generation || text != rep_text) {
      rep.emplace(text, re->re2());
      rep_generation = regex.generation();
      rep_text = text;
    }
    out->strings[i] = out->Own(ReplaceMatches(call.args[0].strings[i], *re, *rep));
  }
  return Status::OK();
}

constexpr FunctionDef kRegexFunctions[] = {
    {{"regexp_like"}, 2, 3, kPropagate, BindRegexpLike, EvalRegexpLike},
    {{"regexp_match"}, 2, 3, kPropagate, BindRegexpMatch, EvalRegexpMatch},
    {{"regexp_replace"}, 3, 4, kPropagate, BindRegexpReplace, EvalRegexpReplace},
};

}  // namespace

std::span<const FunctionDef> RegexFunctions() { return kRegexFunctions; }

}  // namespace lancedb::expr
