// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The text analysis of LanceDB's full-text (INVERTED) index: a base tokenizer followed by the
// filters, in LanceDB's order:
//   base tokenizer -> drop long tokens -> lower-case -> stem -> drop stop words -> ASCII folding
// The long-token filter measures the raw token; stop words are matched after stemming and are
// case-sensitive; ASCII folding runs last. Positions are the base tokenizer's, counted before
// any filter, so a dropped stop word keeps its slot.
//
// Stemming uses Snowball 3.1.1's libstemmer (scripts/fetch_snowball.sh), as LanceDB 0.39's
// stemmers are Snowball 3; Debian stable's libstemmer 2.2 would differ on common words (Dutch
// was rewritten: "huizen" -> "huis"; English "added" -> "add", German "bereitete" -> "bereit").
//
// Thread-safety: an Analyzer is immutable after Make(); Analyze() may be called concurrently
// (the Snowball stemmers, which are not thread-safe, come from an internal pool).

#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "common/mutex.h"
#include "lancedb/status.h"

struct sb_stemmer;

namespace lancedb::index::fts {

/// Options of the analysis, under LanceDB's names (its `ngram_min_length`/`ngram_max_length`
/// are `min_ngram_length`/`max_ngram_length` here, as in the index's persisted params).
struct AnalyzerOptions {
  /// "simple", "whitespace", "raw", "ngram", "icu" or "icu/split".
  std::string base_tokenizer = "simple";
  /// One of LanceDB's 18 languages, capitalized as LanceDB accepts them ("English").
  std::string language = "English";
  /// Drop tokens whose UTF-8 byte length is >= this; nullopt keeps every token.
  std::optional<uint32_t> max_token_length = 40;
  bool lower_case = true;
  /// Snowball stemming for `language`.
  bool stem = true;
  bool remove_stop_words = true;
  /// Replaces the built-in stop words when set; an empty list removes nothing.
  std::optional<std::vector<std::string>> custom_stop_words;
  bool ascii_folding = true;
  /// Gram lengths in characters of the "ngram" tokenizer. REQUIRES: 0 < min <= max.
  uint32_t min_ngram_length = 3;
  uint32_t max_ngram_length = 3;
  /// "ngram" only: emit only the grams that start at the beginning of the text.
  bool prefix_only = false;
};

/// One token of analyzed text.
struct Token {
  std::string text;
  /// The base tokenizer's position (0 for every n-gram).
  uint32_t position = 0;
};

/// Return the languages LanceDB's analyzer accepts, in its order.
const std::vector<std::string_view>& SupportedLanguages();

/// The tokenizer and filter chain of an FTS index. Immutable; Analyze() is thread-safe.
class Analyzer {
 public:
  /// Validate `options` and build the analyzer. InvalidArgument for an unknown base tokenizer
  /// or language, and for n-gram lengths with min == 0 or min > max.
  static Result<std::unique_ptr<Analyzer>> Make(const AnalyzerOptions& options);
  ~Analyzer();
  Analyzer(const Analyzer&) = delete;
  Analyzer& operator=(const Analyzer&) = delete;

  const AnalyzerOptions& options() const { return options_; }

  /// Append the tokens of `text` to *out in document form: positions are the base tokenizer's
  /// positions, counted before any filter (stop words keep their slot).
  void Analyze(std::string_view text, std::vector<Token>* out) const;

 private:
  enum class BaseTokenizer : uint8_t { kSimple, kWhitespace, kRaw, kNgram, kIcu, kIcuSplit };

  explicit Analyzer(AnalyzerOptions options);

  /// Run the filters over one base token and append what survives.
  void Filter(std::string_view raw, uint32_t position, sb_stemmer* stemmer,
              std::vector<Token>* out) const;
  void FilterUncached(std::string_view raw, uint32_t position, sb_stemmer* stemmer,
                      std::vector<Token>* out) const;
  void TokenizeIcu(std::string_view text, sb_stemmer* stemmer, std::vector<Token>* out) const;
  sb_stemmer* AcquireStemmer() const;
  void ReleaseStemmer(sb_stemmer* stemmer) const;

  AnalyzerOptions options_;
  /// Unique per analyzer (keys the per-thread filter memo).
  uint64_t id_ = 0;
  BaseTokenizer base_ = BaseTokenizer::kSimple;
  std::string stemmer_algorithm_;
  std::unordered_set<std::string> stop_words_;
  /// The ICU word-break prototype of the icu tokenizers (cloned per call); null otherwise.
  struct WordBreak;
  std::unique_ptr<WordBreak> word_break_;
  mutable Mutex stemmer_mu_;
  mutable std::vector<sb_stemmer*> idle_stemmers_ LANCEDB_GUARDED_BY(stemmer_mu_);
};

}  // namespace lancedb::index::fts
