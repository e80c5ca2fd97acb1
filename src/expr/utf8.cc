// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "expr/utf8.h"

#include <utf8proc.h>

#include <algorithm>
#include <iterator>

namespace lancedb::expr {

namespace {

constexpr uint32_t kCapitalSigma = 0x3a3;
constexpr uint32_t kSmallSigma = 0x3c3;
constexpr uint32_t kFinalSigma = 0x3c2;
constexpr uint32_t kSharpS = 0xdf;
constexpr uint32_t kCapitalIWithDot = 0x130;
constexpr uint32_t kDotlessI = 0x131;
constexpr uint32_t kCombiningDotAbove = 0x307;

uint32_t SimpleLower(uint32_t c) {
  return static_cast<uint32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c)));
}

uint32_t SimpleUpper(uint32_t c) {
  return static_cast<uint32_t>(utf8proc_toupper(static_cast<utf8proc_int32_t>(c)));
}

utf8proc_category_t Category(uint32_t c) {
  return utf8proc_category(static_cast<utf8proc_int32_t>(c));
}

/// Decode the well-formed UTF-8 sequence at s[*i] into *cp and advance past it; false (and
/// *i advanced by one byte) when the bytes there are not one.
bool DecodeWellFormed(std::string_view s, size_t* i, uint32_t* cp) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[*i + k]); };
  const unsigned char lead = byte(0);
  const size_t len = Utf8SequenceLength(lead);
  bool ok = lead < 0x80 || (lead >= 0xc2 && lead <= 0xf4 && *i + len <= s.size());
  for (size_t k = 1; ok && k < len; ++k) ok = (byte(k) & 0xc0) == 0x80;
  if (ok && len >= 3) {
    // No overlong forms, surrogates or code points above U+10FFFF.
    const unsigned char second = byte(1);
    ok = !(lead == 0xe0 && second < 0xa0) && !(lead == 0xed && second >= 0xa0) &&
         !(lead == 0xf0 && second < 0x90) && !(lead == 0xf4 && second >= 0x90);
  }
  if (!ok) {
    ++*i;
    return false;
  }
  *cp = DecodeUtf8(s, i);
  return true;
}

/// Map the code points of `s` with append(cp, &out); bytes that are not well-formed UTF-8
/// are copied as they are.
template <typename Append>
std::string MapCodePoints(std::string_view s, Append append) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t start = i;
    uint32_t c;
    if (DecodeWellFormed(s, &i, &c)) {
      append(c, start, i, &out);
    } else {
      out.push_back(s[start]);
    }
  }
  return out;
}

/// Unicode's Cased property, from the general category and the case mappings (the few
/// Other_Lowercase modifier letters without a mapping, such as ª, are not seen as cased).
bool IsCased(uint32_t c) {
  const auto cat = Category(c);
  return cat == UTF8PROC_CATEGORY_LU || cat == UTF8PROC_CATEGORY_LL ||
         cat == UTF8PROC_CATEGORY_LT || SimpleLower(c) != c || SimpleUpper(c) != c;
}

/// Unicode's Case_Ignorable property: marks, format characters, modifiers, and the
/// apostrophes, periods and colons that may sit inside a word (Word_Break MidLetter,
/// MidNumLet, Single_Quote).
bool IsCaseIgnorable(uint32_t c) {
  switch (Category(c)) {
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_ME:
    case UTF8PROC_CATEGORY_CF:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_SK:
      return true;
    default:
      break;
  }
  static constexpr uint32_t kInWord[] = {0x27,   0x2e,   0x3a,   0xb7,   0x387,  0x55f,
                                         0x5f4,  0x2018, 0x2019, 0x2024, 0x2027, 0xfe13,
                                         0xfe52, 0xfe55, 0xff07, 0xff0e, 0xff1a};
  return std::find(std::begin(kInWord), std::end(kInWord), c) != std::end(kInWord);
}

/// Whether the first code point of `s` (from the front, or from the back when `backward`)
/// that is not case-ignorable is cased.
bool CasedAfterIgnorables(std::string_view s, bool backward) {
  while (!s.empty()) {
    size_t start = 0;
    if (backward) {
      start = s.size() - 1;
      while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xc0) == 0x80) --start;
    }
    size_t end = start;
    const uint32_t c = DecodeUtf8(s, &end);
    if (!IsCaseIgnorable(c)) return IsCased(c);
    s = backward ? s.substr(0, start) : s.substr(end);
  }
  return false;
}

/// Append the full upper case of `c` (SpecialCasing's unconditional mappings included):
/// the simple mapping when there is one (and is not to title case); otherwise ß becomes SS,
/// and a lower or title case letter with a canonical or compatibility decomposition (ligatures,
/// letters with ypogegrammeni, ŉ, ǰ, ...) becomes its decomposition upper-cased and composed again
/// (NFC).
void AppendUpper(uint32_t c, std::string* out) {
  if (c == kSharpS) {  // (utf8proc maps ß to ẞ, which Unicode's mappings do not)
    out->append("SS");
    return;
  }
  const uint32_t simple = SimpleUpper(c);
  // A simple mapping to a title case letter (ᾳ to ᾼ) is overridden by the full one (ΑΙ).
  if (simple != c && Category(simple) != UTF8PROC_CATEGORY_LT) return AppendUtf8(simple, out);
  const utf8proc_property_t* prop = utf8proc_get_property(static_cast<utf8proc_int32_t>(c));
  const bool letter =
      prop->category == UTF8PROC_CATEGORY_LL || prop->category == UTF8PROC_CATEGORY_LT;
  const bool compat = prop->decomp_type == UTF8PROC_DECOMP_TYPE_COMPAT;
  if (!letter || prop->decomp_seqindex == UINT16_MAX || (prop->decomp_type != 0 && !compat)) {
    return AppendUtf8(simple, out);
  }
  utf8proc_int32_t parts[8];
  const auto options =
      static_cast<utf8proc_option_t>(UTF8PROC_DECOMPOSE | (compat ? UTF8PROC_COMPAT : 0));
  auto n = utf8proc_decompose_char(static_cast<utf8proc_int32_t>(c), parts, 8, options, nullptr);
  if (n <= 0 || n > 8) return AppendUtf8(simple, out);
  bool changed = false;
  for (utf8proc_ssize_t k = 0; k < n; ++k) {
    const auto upper = utf8proc_toupper(parts[k]);
    changed |= upper != parts[k];
    parts[k] = upper;
  }
  if (!changed) return AppendUtf8(simple, out);
  // Compose again when a starter follows the base (ᾀ: Α + ̓ + Ι gives Ἀ + Ι), not when only
  // marks do (ΐ stays Ι + ̈ + ́), as SpecialCasing lists them.
  bool starter_after_base = false;
  for (utf8proc_ssize_t k = 1; k < n; ++k) {
    starter_after_base |= utf8proc_get_property(parts[k])->combining_class == 0;
  }
  if (starter_after_base) n = utf8proc_normalize_utf32(parts, n, UTF8PROC_COMPOSE);
  for (utf8proc_ssize_t k = 0; k < n; ++k) AppendUtf8(static_cast<uint32_t>(parts[k]), out);
}

}  // namespace

size_t Utf8SequenceLength(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c >> 5) == 0x6) return 2;
  if ((c >> 4) == 0xe) return 3;
  if ((c >> 3) == 0x1e) return 4;
  return 1;
}

uint32_t DecodeUtf8(std::string_view s, size_t* i) {
  unsigned char c = static_cast<unsigned char>(s[*i]);
  size_t len = std::min(Utf8SequenceLength(c), s.size() - *i);
  uint32_t cp = len == 1 ? c : (c & (0xff >> (len + 1)));
  for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[*i + k]) & 0x3f);
  *i += len;
  return cp;
}

void AppendUtf8(uint32_t cp, std::string* out) {
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

int64_t Utf8Length(std::string_view s) {
  int64_t n = 0;
  for (unsigned char c : s) n += (c & 0xc0) != 0x80;
  return n;
}

size_t Utf8ByteOffset(std::string_view s, int64_t chars) {
  size_t i = 0;
  while (i < s.size() && chars > 0) {
    i += std::min(Utf8SequenceLength(static_cast<unsigned char>(s[i])), s.size() - i);
    --chars;
  }
  return i;
}

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
        t += std::min(Utf8SequenceLength(static_cast<unsigned char>(text[t])), text.size() - t);
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
    star_t += std::min(Utf8SequenceLength(static_cast<unsigned char>(text[star_t])),
                       text.size() - star_t);
    t = star_t;
    p = star_p;
  }
  while (p < pattern.size() && pattern[p] == '%') ++p;
  return p == pattern.size();
}

std::string Utf8Lower(std::string_view s) {
  return MapCodePoints(s, [&](uint32_t c, size_t start, size_t end, std::string* out) {
    if (c < 0x80) {
      out->push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c));
    } else if (c == kCapitalSigma) {
      // Final_Sigma: a capital sigma that ends a word (a cased letter before it, none after
      // it, case-ignorable characters skipped) becomes the final form.
      const bool word_final = CasedAfterIgnorables(s.substr(0, start), true) &&
                              !CasedAfterIgnorables(s.substr(end), false);
      AppendUtf8(word_final ? kFinalSigma : kSmallSigma, out);
    } else if (c == kCapitalIWithDot) {
      AppendUtf8('i', out);  // SpecialCasing: İ lowers to i + combining dot above
      AppendUtf8(kCombiningDotAbove, out);
    } else {
      AppendUtf8(SimpleLower(c), out);
    }
  });
}

std::string Utf8Upper(std::string_view s) {
  return MapCodePoints(s, [](uint32_t c, size_t, size_t, std::string* out) {
    if (c < 0x80) {
      out->push_back(static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c));
    } else {
      AppendUpper(c, out);
    }
  });
}

uint32_t FoldCodePoint(uint32_t c) {
  if (c < 0x80) return c >= 'A' && c <= 'Z' ? c + 32 : c;
  // Simple case folding: one representative per case orbit (σ ς Σ, s ſ S, k K K, ß ẞ, ...).
  // The Turkish dotted and dotless i have no simple folding; they match only themselves.
  if (c == kCapitalIWithDot || c == kDotlessI) return c;
  return SimpleLower(SimpleUpper(c));
}

std::string Utf8Fold(std::string_view s) {
  return MapCodePoints(
      s, [](uint32_t c, size_t, size_t, std::string* out) { AppendUtf8(FoldCodePoint(c), out); });
}

}  // namespace lancedb::expr
