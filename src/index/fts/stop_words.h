// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The built-in stop-word lists of LanceDB's FTS analyzer, one per supported language. Stop
// words are compared with the token after lower-casing and stemming, byte for byte.
// Immutable static data.

#pragma once

#include <span>
#include <string_view>
#include <vector>

namespace lancedb::index::fts {

/// Return the built-in stop words of `language` (one of SupportedLanguages(), capitalized),
/// or an empty span for any other name.
std::span<const std::string_view> BuiltinStopWords(std::string_view language);

/// Return the stop words that the icu tokenizers use when no custom list is given: the words
/// of every language's list together, and the further words (Japanese, Chinese, digits, ...)
/// that LanceDB removes there.
const std::vector<std::string_view>& AllLanguagesStopWords();

}  // namespace lancedb::index::fts
