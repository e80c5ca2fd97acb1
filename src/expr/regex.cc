// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "expr/regex.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <optional>
#include <vector>

#include "expr/utf8.h"

namespace lancedb::expr {

namespace {

// Rust's Unicode classes as RE2 class items. \w: Alphabetic (letters, letter numbers, the
// marks and the circled/squared letters of Other_Alphabetic), marks, decimal digits,
// connector punctuation and Join_Control. \s: White_Space.
constexpr std::string_view kWordItems =
    R"(\p{L}\p{Nl}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D}\x{24B6}-\x{24E9})"
    R"(\x{1F130}-\x{1F149}\x{1F150}-\x{1F169}\x{1F170}-\x{1F189})";
constexpr std::string_view kSpaceItems =
    R"(\x{9}-\x{D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F})"
    R"(\x{205F}\x{3000})";

bool IsWhiteSpace(uint32_t c) {
  return (c >= 0x9 && c <= 0xd) || c == 0x20 || c == 0x85 || c == 0xa0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f ||
         c == 0x3000;
}

bool IsHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

/// What an escape stands for.
struct Escape {
  std::string text;           // RE2 syntax, for use outside a class
  std::string class_items;    // RE2 class items, for use inside a class (empty: as text)
  std::string negated_items;  // \W, \S: the items of the class it is the complement of
};

/// Rust's \d \D \w \W \s \S as Unicode classes; nullopt for any other escape letter.
std::optional<Escape> ShorthandClass(char c) {
  Escape e;
  switch (c) {
    case 'd':
    case 'D':
      e.text = c == 'd' ? R"(\p{Nd})" : R"(\P{Nd})";
      e.class_items = e.text;
      return e;
    case 'w':
    case 's': {
      const std::string_view items = c == 'w' ? kWordItems : kSpaceItems;
      e.text = "[" + std::string(items) + "]";
      e.class_items = std::string(items);
      return e;
    }
    case 'W':
    case 'S': {
      const std::string_view items = c == 'W' ? kWordItems : kSpaceItems;
      e.text = "[^" + std::string(items) + "]";
      e.negated_items = std::string(items);
      return e;
    }
    default:
      return std::nullopt;
  }
}

/// Translates one pattern; see TranslateRegex. Externally synchronized.
class Translator {
 public:
  Translator(std::string_view pattern, bool verbose) : p_(pattern), verbose_(verbose) {}

  Result<std::string> Run() {
    while (SkipVerbose(), i_ < p_.size()) {
      const char c = p_[i_];
      if (c == '?' && lazy_ok_) {
        out_ += '?';
        lazy_ok_ = false;
        ++i_;
      } else if (c == '*' || c == '+' || c == '?') {
        ++i_;
        Repeat(std::string(1, c));
      } else if (c == '{') {
        LANCEDB_ASSIGN_OR_RETURN(auto op, ReadCount());
        Repeat(op);
      } else if (c == '[') {
        const size_t start = out_.size();
        LANCEDB_RETURN_NOT_OK(Class());
        Atom(start);
      } else if (c == '(') {
        LANCEDB_RETURN_NOT_OK(Open());
      } else if (c == ')') {
        ++i_;
        const size_t start = groups_.empty() ? out_.size() : groups_.back();
        if (!groups_.empty()) groups_.pop_back();
        out_ += ')';
        Atom(start);
      } else if (c == '|') {
        ++i_;
        out_ += '|';
        NoAtom();
      } else if (c == '\\') {
        const size_t start = out_.size();
        LANCEDB_ASSIGN_OR_RETURN(auto escape, ReadEscape());
        out_ += escape.text;
        Atom(start);
      } else {
        const size_t start = out_.size();
        CopyCodePoint();
        Atom(start);
      }
    }
    return std::move(out_);
  }

 private:
  Status Fail(const std::string& what) const {
    return Status::InvalidArgument("invalid regular expression '" + std::string(p_) + "': " + what);
  }

  /// In verbose mode, skip whitespace and '#' comments (to the end of the line).
  void SkipVerbose() {
    while (verbose_ && i_ < p_.size()) {
      size_t next = i_;
      const uint32_t c = DecodeUtf8(p_, &next);
      if (c == '#') {
        while (i_ < p_.size() && p_[i_] != '\n') ++i_;
      } else if (IsWhiteSpace(c)) {
        i_ = next;
      } else {
        return;
      }
    }
  }

  void CopyCodePoint() {
    const size_t start = i_;
    DecodeUtf8(p_, &i_);
    out_.append(p_.substr(start, i_ - start));
  }

  void Atom(size_t start) {
    atom_ = start;
    repeated_ = false;
    lazy_ok_ = false;
  }

  void NoAtom() {
    atom_ = std::string::npos;
    repeated_ = false;
    lazy_ok_ = false;
  }

  /// Append a repetition operator; a repetition of a repetition repeats a group of it.
  void Repeat(const std::string& op) {
    if (atom_ != std::string::npos && repeated_) {
      out_.insert(atom_, "(?:");
      out_ += ')';
    }
    out_ += op;  // with no atom, RE2 reports the missing argument
    repeated_ = true;
    lazy_ok_ = true;
  }

  /// {m}, {m,} or {m,n}, spaces allowed around the numbers; anything else is an error (a
  /// literal '{' must be escaped, as in Rust).
  Result<std::string> ReadCount() {
    const size_t start = i_++;
    auto spaces = [&] {
      while (i_ < p_.size() && p_[i_] == ' ') ++i_;
    };
    auto number = [&] {
      std::string digits;
      while (i_ < p_.size() && IsDigit(p_[i_])) digits += p_[i_++];
      return digits;
    };
    spaces();
    std::string op = "{" + number();
    bool ok = op.size() > 1;
    spaces();
    if (ok && i_ < p_.size() && p_[i_] == ',') {
      ++i_;
      spaces();
      op += "," + number();
      spaces();
    }
    if (!ok || i_ >= p_.size() || p_[i_] != '}') {
      return Fail("invalid repetition at '" + std::string(p_.substr(start, i_ - start + 1)) + "'");
    }
    ++i_;
    return op + "}";
  }

  /// A group: '(', '(?:', '(?flags:', '(?P<name>' or Rust's '(?<name>'; '(?flags)' sets flags
  /// and is no group. Other '(?' forms (look-around) are left for RE2 to refuse.
  Status Open() {
    const std::string_view rest = p_.substr(i_);
    size_t flags_end = 2;
    while (flags_end < rest.size() &&
           (std::isalpha(static_cast<unsigned char>(rest[flags_end])) || rest[flags_end] == '-')) {
      ++flags_end;
    }
    std::string opening;
    if (rest.starts_with("(?<") && !rest.starts_with("(?<=") && !rest.starts_with("(?<!")) {
      opening = "(?P<";
      i_ += 3;
    } else if (rest.starts_with("(?P<")) {
      opening = "(?P<";
      i_ += 4;
    } else if (rest.starts_with("(?") && flags_end < rest.size() &&
               (rest[flags_end] == ')' || rest[flags_end] == ':')) {
      opening = std::string(rest.substr(0, flags_end + 1));
      i_ += flags_end + 1;
      if (rest[flags_end] == ')') {  // (?flags): nothing to repeat
        out_ += opening;
        NoAtom();
        return Status::OK();
      }
    } else {
      opening = rest.starts_with("(?") ? "(?" : "(";
      i_ += opening.size();
    }
    groups_.push_back(out_.size());
    out_ += opening;
    NoAtom();
    return Status::OK();
  }

  /// The argument of \x, \p, \P, \u, \U at i_: "{...}" or `fixed` characters.
  Result<std::string_view> ReadEscapeArgument(size_t fixed) {
    const size_t start = i_;
    if (i_ < p_.size() && p_[i_] == '{') {
      const size_t close = p_.find('}', i_);
      if (close == std::string_view::npos) return Fail("unclosed escape");
      i_ = close + 1;
    } else {
      i_ = std::min(p_.size(), i_ + fixed);
    }
    return p_.substr(start, i_ - start);
  }

  /// \u{X..}, \uXXXX, \UXXXXXXXX as RE2's \x{...}.
  Result<std::string> CodePointEscape(char c) {
    LANCEDB_ASSIGN_OR_RETURN(auto arg, ReadEscapeArgument(c == 'u' ? 4 : 8));
    std::string_view hex = arg;
    if (!hex.empty() && hex.front() == '{') {
      hex = hex.substr(1, hex.size() - 2);
    } else if (hex.size() != (c == 'u' ? 4u : 8u)) {
      hex = {};
    }
    if (hex.empty() || !std::all_of(hex.begin(), hex.end(), IsHexDigit)) {
      return Fail(std::string("invalid \\") + c + " escape");
    }
    return "\\x{" + std::string(hex) + "}";
  }

  /// Read the escape at '\'.
  Result<Escape> ReadEscape() {
    if (++i_ >= p_.size()) return Fail("trailing backslash");
    const char c = p_[i_++];
    Escape e;
    if (auto shorthand = ShorthandClass(c)) return *shorthand;
    if (c == 'x' || c == 'p' || c == 'P') {
      LANCEDB_ASSIGN_OR_RETURN(auto arg, ReadEscapeArgument(c == 'x' ? 2 : 1));
      e.text = std::string("\\") + c + std::string(arg);
      return e;
    }
    if (c == 'u' || c == 'U') {
      LANCEDB_ASSIGN_OR_RETURN(e.text, CodePointEscape(c));
      return e;
    }
    if (c >= '1' && c <= '9') return Fail("back-references are not supported");
    // Any other escape means what it means to RE2; an escaped space (flag 'x') is a space.
    const size_t start = --i_;  // back to the first byte of the escaped code point
    const uint32_t cp = DecodeUtf8(p_, &i_);
    if (IsWhiteSpace(cp)) {
      char buf[16];
      std::snprintf(buf, sizeof(buf), "\\x{%X}", cp);
      e.text = buf;
    } else {
      e.text = "\\" + std::string(p_.substr(start, i_ - start));
    }
    return e;
  }

  /// A character class: '[' ... ']'. Rust's \W and \S inside a class become an alternation
  /// (RE2 classes cannot hold a complement).
  Status Class() {
    ++i_;
    bool negated = false;
    if (i_ < p_.size() && p_[i_] == '^') {
      negated = true;
      ++i_;
    }
    std::string items;
    std::vector<std::string> complements;
    for (bool first = true;; first = false) {
      SkipVerbose();
      if (i_ >= p_.size()) return Fail("unclosed character class");
      const char c = p_[i_];
      const std::string_view two = p_.substr(i_, 2);
      if (c == ']' && !first) {
        ++i_;
        break;
      }
      if (two == "&&" || two == "--" || two == "~~") {
        return Fail("class set operations (&&, --, ~~) are not supported");
      }
      if (c == '[') {
        const size_t close = p_.find(":]", i_);
        if (two != "[:" || close == std::string_view::npos) {
          return Fail("nested character classes are not supported");
        }
        items.append(p_.substr(i_, close + 2 - i_));  // [:alpha:]
        i_ = close + 2;
      } else if (c == '\\') {
        LANCEDB_ASSIGN_OR_RETURN(auto escape, ReadEscape());
        if (!escape.negated_items.empty()) {
          complements.push_back(std::move(escape.negated_items));
        } else {
          items += escape.class_items.empty() ? escape.text : escape.class_items;
        }
      } else {
        const size_t start = i_;
        DecodeUtf8(p_, &i_);
        items.append(p_.substr(start, i_ - start));
      }
    }
    if (complements.empty()) {
      out_ += (negated ? "[^" : "[") + items + "]";
      return Status::OK();
    }
    if (negated) return Fail("\\W and \\S inside a negated class are not supported");
    out_ += "(?:";
    if (!items.empty()) out_ += "[" + items + "]|";
    for (size_t k = 0; k < complements.size(); ++k) {
      out_ += (k ? "|[^" : "[^") + complements[k] + "]";
    }
    out_ += ")";
    return Status::OK();
  }

  std::string_view p_;
  bool verbose_;
  size_t i_ = 0;
  std::string out_;
  /// Where the last atom (character, class, group, escape) starts in out_; npos if none.
  size_t atom_ = std::string::npos;
  /// The last atom already has a repetition operator.
  bool repeated_ = false;
  /// A '?' now makes the last repetition lazy.
  bool lazy_ok_ = false;
  /// Where the open groups start in out_.
  std::vector<size_t> groups_;
};

}  // namespace

Result<std::string> TranslateRegex(std::string_view pattern, bool verbose) {
  return Translator(pattern, verbose).Run();
}

Result<std::shared_ptr<const Regex>> Regex::Compile(std::string_view pattern,
                                                    std::string_view flags, bool allow_global) {
  std::string inline_flags;
  bool verbose = false, global = false;
  for (char f : flags) {
    switch (f) {
      case 'i':
      case 'm':
      case 's':
      case 'U':
        if (inline_flags.find(f) == std::string::npos) inline_flags += f;
        break;
      case 'x':
        verbose = true;
        break;
      case 'u':
        break;  // Unicode mode is always on
      case 'g':
        if (!allow_global) {
          return Status::InvalidArgument(
              "regexp_like and regexp_match do not support the \"global\" option (flag 'g')");
        }
        global = true;
        break;
      case 'R':
        return Status::NotSupported("regular expression flag 'R' (CRLF mode) is not supported");
      default:
        return Status::InvalidArgument(std::string("unknown regular expression flag '") + f +
                                       "' (known: i, m, s, U, x, u" +
                                       (allow_global ? ", g)" : ")"));
    }
  }
  LANCEDB_ASSIGN_OR_RETURN(auto translated, TranslateRegex(pattern, verbose));
  if (!inline_flags.empty()) translated = "(?" + inline_flags + ")" + translated;
  RE2::Options options;
  options.set_log_errors(false);
  auto re = std::make_unique<RE2>(translated, options);
  if (!re->ok()) {
    return Status::InvalidArgument("invalid regular expression '" + std::string(pattern) +
                                   "': " + re->error());
  }
  return std::make_shared<const Regex>(std::move(re), global);
}

}  // namespace lancedb::expr
