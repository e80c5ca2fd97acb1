// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// ASCII folding as LanceDB's FTS analyzer does it, code point by code point: a character is
// replaced by the ASCII characters of its compatibility decomposition (NFKD), with a few
// letters that have no decomposition spelled out (æ -> ae, ß -> ss, ø -> o, ł -> l, þ -> th,
// ...); a character whose decomposition yields no ASCII at all (Greek, Cyrillic, CJK, a lone
// combining mark) is kept as it is. Stateless.

#pragma once

#include <string>
#include <string_view>

namespace lancedb::index::fts {

/// Fold `text` to ASCII where LanceDB does; return whether anything changed. *out receives
/// the folded text only when it changed.
bool FoldToAscii(std::string_view text, std::string* out);

}  // namespace lancedb::index::fts
