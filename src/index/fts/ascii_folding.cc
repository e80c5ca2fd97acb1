// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/fts/ascii_folding.h"

#include <utf8proc.h>

#include <cstdint>

#include "expr/utf8.h"

namespace lancedb::index::fts {

namespace {

/// Letters with no compatibility decomposition that LanceDB still folds. Established by
/// running every code point of the BMP and of the mathematical and enclosed alphanumerics
/// through LanceDB 0.39 (lancedb.tokenize with ascii_folding on and off).
struct SpecialFold {
  char32_t code_point;
  const char* ascii;
};
constexpr SpecialFold kSpecialFolds[] = {
    {U'\u00C6', "AE"}, {U'\u00D0', "D"}, {U'\u00D8', "O"}, {U'\u00DE', "TH"}, {U'\u00DF', "ss"},
    {U'\u00E6', "ae"}, {U'\u00F0', "d"}, {U'\u00F8', "o"}, {U'\u00FE', "th"}, {U'\u0110', "D"},
    {U'\u0111', "d"},  {U'\u0126', "H"}, {U'\u0127', "h"}, {U'\u0131', "i"},  {U'\u0138', "k"},
    {U'\u0141', "L"},  {U'\u0142', "l"}, {U'\u014A', "N"}, {U'\u014B', "n"},  {U'\u0152', "OE"},
    {U'\u0153', "oe"}, {U'\u0166', "T"}, {U'\u0167', "t"}, {U'\u1E9E', "SS"}, {U'\uA7F1', "S"},
};

const char* SpecialFoldOf(uint32_t cp) {
  for (const SpecialFold& fold : kSpecialFolds) {
    if (fold.code_point == cp) return fold.ascii;
  }
  return nullptr;
}

/// Append the ASCII folding of the non-ASCII code point `cp` to *out; return false (and
/// append nothing) when it has none.
bool FoldCodePoint(uint32_t cp, std::string* out) {
  utf8proc_int32_t parts[32];
  int boundclass = UTF8PROC_BOUNDCLASS_START;
  utf8proc_ssize_t n = utf8proc_decompose_char(
      static_cast<utf8proc_int32_t>(cp), parts, 32,
      static_cast<utf8proc_option_t>(UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT), &boundclass);
  if (n <= 0 || n > 32) {
    parts[0] = static_cast<utf8proc_int32_t>(cp);
    n = 1;
  }
  size_t start = out->size();
  for (utf8proc_ssize_t i = 0; i < n; ++i) {
    auto part = static_cast<uint32_t>(parts[i]);
    if (part < 0x80) {
      out->push_back(static_cast<char>(part));
    } else if (const char* special = SpecialFoldOf(part)) {
      out->append(special);
    }
  }
  return out->size() > start;
}

}  // namespace

bool FoldToAscii(std::string_view text, std::string* out) {
  size_t i = 0;
  while (i < text.size() && static_cast<unsigned char>(text[i]) < 0x80) ++i;
  if (i == text.size()) return false;
  bool changed = false;
  std::string folded(text.substr(0, i));
  while (i < text.size()) {
    size_t begin = i;
    uint32_t cp = expr::DecodeUtf8(text, &i);
    if (cp < 0x80 || !FoldCodePoint(cp, &folded)) {
      folded.append(text.substr(begin, i - begin));
    } else {
      changed = true;
    }
  }
  if (changed) *out = std::move(folded);
  return changed;
}

}  // namespace lancedb::index::fts
