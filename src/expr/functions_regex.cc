// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Regular expression functions: regexp_like, regexp_match (DataFusion's
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
    }
    return last_.get();
  }

 private:
  const FunctionCall& call_;
  RegexArgs where_;
  const Regex* fixed_;
  RegexPtr last_;
  std::string last_pattern_, last_flags_;
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

constexpr auto kPropagate = NullHandling::kPropagate;

constexpr FunctionDef kRegexFunctions[] = {
    {{"regexp_like"}, 2, 3, kPropagate, BindRegexpLike, EvalRegexpLike},
    {{"regexp_match"}, 2, 3, kPropagate, BindRegexpMatch, EvalRegexpMatch},
};

}  // namespace

std::span<const FunctionDef> RegexFunctions() { return kRegexFunctions; }

}  // namespace lancedb::expr
