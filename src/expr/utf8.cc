// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "expr/utf8.h"

#include <algorithm>

namespace lancedb::expr {

namespace {

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
      AppendUtf8(f(DecodeUtf8(s, &i)), &out);
    }
  }
  return out;
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

uint32_t FoldCodePoint(uint32_t cp) { return FoldCp(cp); }

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
  std::string out;
  out.reserve(s.size());
  bool after_cased = false;
  for (size_t i = 0; i < s.size();) {
    const uint32_t c = DecodeUtf8(s, &i);
    uint32_t lower = LowerCp(c);
    if (c == 0x3a3 && after_cased) {
      // A capital sigma ending a word becomes the final form.
      size_t j = i;
      if (j >= s.size() || !IsCased(DecodeUtf8(s, &j))) lower = 0x3c2;
    }
    AppendUtf8(lower, &out);
    after_cased = IsCased(c);
  }
  return out;
}

std::string Utf8Upper(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const uint32_t c = DecodeUtf8(s, &i);
    if (c == 0xdf) {
      out += "SS";  // the one multi-character mapping kept (German sharp s)
    } else {
      AppendUtf8(UpperCp(c), &out);
    }
  }
  return out;
}

std::string Utf8Fold(std::string_view s) { return MapCp(s, FoldCp); }

}  // namespace lancedb::expr
