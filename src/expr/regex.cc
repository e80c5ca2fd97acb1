// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "expr/regex.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
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
constexpr std::string_view kDigitItems = R"(\p{Nd})";
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

  /// A group: '(', '(?:', '(?flags:', '(?P<name>' or Rust's '(?<name>'; '(?flags)' sets flags.
  Status Open() {
    if (p_.substr(i_, 3) == "(?<" && p_.substr(i_, 4) != "(?<=" && p_.substr(i_, 4) != "(?<!") {
      i_ += 3;
      groups_.push_back(out_.size());
      out_ += "(?P<";
      NoAtom();
      return Status::OK();
    }
    size_t j = i_ + 1;
    if (p_.substr(i_, 2) == "(?" && p_.substr(i_, 3) != "(?P") {
      for (j = i_ + 2;
           j < p_.size() && (std::isalpha(static_cast<unsigned char>(p_[j])) || p_[j] == '-');
           ++j) {
      }
      if (j < p_.size() && p_[j] == ')') {  // (?flags): not a group, nothing to repeat
        out_.append(p_.substr(i_, j + 1 - i_));
        i_ = j + 1;
        NoAtom();
        return Status::OK();
      }
    }
    groups_.push_back(out_.size());
    out_ += '(';
    ++i_;
    NoAtom();
    return Status::OK();
  }

  /// Read the escape at '\'.
  Result<Escape> ReadEscape() {
    ++i_;
    if (i_ >= p_.size()) return Fail("trailing backslash");
    const char c = p_[i_];
    Escape e;
    auto take_braced_or = [&](size_t fixed) -> Result<std::string> {
      // The argument of \x, \p, \P: "{...}" or `fixed` characters.
      const size_t start = i_;
      if (i_ < p_.size() && p_[i_] == '{') {
        const size_t close = p_.find('}', i_);
        if (close == std::string_view::npos) return Fail("unclosed escape");
        i_ = close + 1;
      } else {
        i_ = std::min(p_.size(), i_ + fixed);
      }
      return std::string(p_.substr(start, i_ - start));
    };
    ++i_;
    switch (c) {
      case 'd':
        e.text = std::string(kDigitItems);
        e.class_items = e.text;
        return e;
      case 'D':
        e.text = R"(\P{Nd})";
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
      case 'x':
      case 'p':
      case 'P': {
        LANCEDB_ASSIGN_OR_RETURN(auto arg, take_braced_or(c == 'x' ? 2 : 1));
        e.text = std::string("\\") + c + arg;
        return e;
      }
      case 'u':
      case 'U': {
        std::string hex;
        if (i_ < p_.size() && p_[i_] == '{') {
          LANCEDB_ASSIGN_OR_RETURN(hex, take_braced_or(0));
          hex = hex.substr(1, hex.size() - 2);
        } else {
          const size_t digits = c == 'u' ? 4 : 8;
          hex = std::string(p_.substr(i_, digits));
          i_ += hex.size();
          if (hex.size() != digits) hex.clear();
        }
        for (char h : hex) {
          if (!IsHexDigit(h)) hex.clear();
        }
        if (hex.empty()) return Fail(std::string("invalid \\") + c + " escape");
        e.text = "\\x{" + hex + "}";
        return e;
      }
      default:
        break;
    }
    if (c >= '1' && c <= '9') return Fail("back-references are not supported");
    // Any other escape means what it means to RE2; an escaped space (flag 'x') is a space.
    const size_t start = i_ - 1;  // the escaped code point
    size_t end = start;
    const uint32_t cp = DecodeUtf8(p_, &end);
    i_ = end;
    if (IsWhiteSpace(cp)) {
      char buf[16];
      std::snprintf(buf, sizeof(buf), "\\x{%X}", cp);
      e.text = buf;
    } else {
      e.text = "\\" + std::string(p_.substr(start, end - start));
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
