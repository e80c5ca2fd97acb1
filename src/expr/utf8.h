// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// UTF-8 text as the SQL functions see it: code points, case mapping and folding (utf8procs
// Unicode tables), LIKE.
// Invalid UTF-8 is read byte by byte and never makes a function fail. Stateless.

#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace lancedb::expr {

/// The length of the UTF-8 sequence that starts with byte `c` (1 for a stray byte).
size_t Utf8SequenceLength(unsigned char c);
/// Decode the code point at s[*i] and advance *i past it. REQUIRES: *i < s.size().
uint32_t DecodeUtf8(std::string_view s, size_t* i);
/// Append the UTF-8 encoding of `cp` to `out`.
void AppendUtf8(uint32_t cp, std::string* out);
/// The number of code points in `s`.
int64_t Utf8Length(std::string_view s);
/// The byte offset of code point number `chars` of `s` (s.size() past the end).
size_t Utf8ByteOffset(std::string_view s, int64_t chars);

/// Lower-case UTF-8 as DataFusion's lower() (Rust's str::to_lowercase): Unicode's simple
/// mappings for every script (utf8proc), the final sigma rule, and İ to i + U+0307.
std::string Utf8Lower(std::string_view s);
/// Upper-case UTF-8 as DataFusion's upper() (Rust's str::to_uppercase): Unicode's mappings
/// for every script, including the one-to-many ones (ß to SS, ﬁ to FI, ŉ to ʼN, ...).
std::string Utf8Upper(std::string_view s);
/// Fold case for case-insensitive comparison (ILIKE), code point by code point (Unicode's
/// simple case folding, as Rust's case-insensitive regexes use): σ, ς and Σ fold together,
/// as do s, ſ and S; ß stays one character (it does not fold to ss).
std::string Utf8Fold(std::string_view s);
/// Fold one code point (Utf8Fold's mapping).
uint32_t FoldCodePoint(uint32_t cp);

/// LIKE matching on bytes: '%' any sequence, '_' one UTF-8 character, `escape` quotes.
bool LikeMatch(std::string_view text, std::string_view pattern, char escape);

}  // namespace lancedb::expr
