// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Regular expressions of the SQL functions, in DataFusion's syntax (Rust's regex crate), run
// by RE2. Both are automata-based, so matching takes time linear in the text whatever the
// pattern, and both see UTF-8 text as code points. Where their syntax differs, the pattern
// is translated before RE2 compiles it:
// - \d, \s, \w (and \D, \S, \W) are Unicode classes, as in Rust (RE2's are ASCII-only);
// - (?<name>...) is a named group; \u{...}, \uXXXX and \UXXXXXXXX are code points;
// - a repetition may follow a repetition (a++ is (?:a+)+), spaces may pad {m,n};
// - flag 'x' ignores whitespace and # comments in the pattern, inside classes too.
// What RE2 lacks is refused with InvalidArgument: nested classes and class set operations
// ([a-z&&[^aeiou]]), \W or \S inside a negated class, the 'R' flag and inline (?x). \b and \B
// are ASCII word boundaries (Rust's are Unicode-aware). Back-references are refused, as
// Rust does. Thread-safety: Regex is immutable and safe to share.

#pragma once

#include <re2/re2.h>

#include <memory>
#include <string>
#include <string_view>

#include "lancedb/status.h"

namespace lancedb::expr {

class Regex {
 public:
  /// Compile `pattern` with DataFusion's flags: 'i' case-insensitive (Unicode simple case
  /// folding), 'm' multi-line, 's' '.' matches '\n', 'U' swap greed, 'x' verbose, 'u'
  /// Unicode (always on), 'g' global (only when `allow_global`: regexp_replace). Errors
  /// (InvalidArgument) name the pattern: "invalid regular expression '(': missing ): (".
  static Result<std::shared_ptr<const Regex>> Compile(std::string_view pattern,
                                                      std::string_view flags, bool allow_global);

  /// Use Compile.
  Regex(std::unique_ptr<re2::RE2> re2, bool global) : re2_(std::move(re2)), global_(global) {}

  /// The compiled expression (UTF-8 mode).
  const re2::RE2& re2() const { return *re2_; }
  /// Whether flag 'g' was given.
  bool global() const { return global_; }

 private:
  std::unique_ptr<re2::RE2> re2_;
  bool global_;
};

/// Translate `pattern` from Rust regex syntax to RE2 syntax (see the file comment); `verbose`
/// is flag 'x'. InvalidArgument for what RE2 cannot express.
Result<std::string> TranslateRegex(std::string_view pattern, bool verbose);

}  // namespace lancedb::expr
