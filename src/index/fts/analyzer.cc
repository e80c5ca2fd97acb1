// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/fts/analyzer.h"

#include <libstemmer.h>
#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/uchar.h>
#include <unicode/utext.h>
#include <utf8proc.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "expr/utf8.h"
#include "index/fts/ascii_folding.h"
#include "index/fts/stop_words.h"

namespace lancedb::index::fts {

namespace {

constexpr std::string_view kBaseTokenizers[] = {"simple", "whitespace", "raw",
                                                "ngram",  "icu",        "icu/split"};

std::string JoinNames(std::span<const std::string_view> names) {
  std::string joined;
  for (std::string_view name : names) {
    if (!joined.empty()) joined += ", ";
    joined += name;
  }
  return joined;
}

/// Rust's char::is_alphanumeric: the Alphabetic property or a numeric general category.
bool IsAlphanumeric(uint32_t cp) {
  auto c = static_cast<UChar32>(cp);
  if (u_hasBinaryProperty(c, UCHAR_ALPHABETIC)) return true;
  const int8_t type = u_charType(c);
  return type == U_DECIMAL_DIGIT_NUMBER || type == U_LETTER_NUMBER || type == U_OTHER_NUMBER;
}

/// Whether `text` holds an alphanumeric code point.
bool HasAlphanumeric(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    if (IsAlphanumeric(expr::DecodeUtf8(text, &i))) return true;
  }
  return false;
}

/// Rust's char::is_ascii_whitespace (LanceDB's whitespace tokenizer splits on nothing else:
/// not on U+00A0 or U+3000).
bool IsAsciiWhitespace(uint32_t cp) {
  return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\f' || cp == '\r';
}

/// Lower-case character by character, as Rust's char::to_lowercase: Unicode's mappings with
/// no context, so a capital sigma always becomes σ (never the final ς), and İ becomes i
/// followed by U+0307.
std::string LowerCase(std::string_view text) {
  std::string lower;
  lower.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t begin = i;
    const uint32_t cp = expr::DecodeUtf8(text, &i);
    if (cp < 0x80) {
      lower.push_back(static_cast<char>(cp >= 'A' && cp <= 'Z' ? cp + ('a' - 'A') : cp));
    } else if (cp == 0x130) {  // İ
      lower.append("i\u0307");
    } else {
      const auto mapped =
          static_cast<uint32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(cp)));
      if (mapped == cp) {
        lower.append(text.substr(begin, i - begin));  // also keeps ill-formed bytes as they are
      } else {
        expr::AppendUtf8(mapped, &lower);
      }
    }
  }
  return lower;
}

/// Call emit(token) for each maximal run of code points of `text` that satisfy keep(cp).
template <typename Keep, typename Emit>
void SplitRuns(std::string_view text, Keep keep, Emit emit) {
  size_t run_start = 0;
  bool in_run = false;
  for (size_t i = 0; i < text.size();) {
    const size_t begin = i;
    const bool kept = keep(expr::DecodeUtf8(text, &i));
    if (kept && !in_run) {
      run_start = begin;
      in_run = true;
    } else if (!kept && in_run) {
      emit(text.substr(run_start, begin - run_start));
      in_run = false;
    }
  }
  if (in_run) emit(text.substr(run_start));
}

}  // namespace

const std::vector<std::string_view>& SupportedLanguages() {
  static const std::vector<std::string_view> kLanguages = {
      "Arabic",   "Danish",  "Dutch",     "English", "Finnish",   "French",
      "German",   "Greek",   "Hungarian", "Italian", "Norwegian", "Portuguese",
      "Romanian", "Russian", "Spanish",   "Swedish", "Tamil",     "Turkish"};
  return kLanguages;
}

struct Analyzer::WordBreak {
  std::unique_ptr<icu::BreakIterator> prototype;
};

namespace {

std::atomic<uint64_t> next_analyzer_id{1};

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

/// The filter results of one analyzer on this thread, by raw token (nullopt: removed). Text
/// repeats its words (Zipf), so most tokens skip lower-casing, stemming and folding.
struct FilterMemo {
  static constexpr size_t kMaxEntries = 1 << 18;
  static constexpr size_t kMaxKeyBytes = 64;
  uint64_t analyzer_id = 0;
  std::unordered_map<std::string, std::optional<std::string>, StringHash, std::equal_to<>> map;
};

FilterMemo& ThreadMemo(uint64_t analyzer_id) {
  thread_local FilterMemo memo;
  if (memo.analyzer_id != analyzer_id || memo.map.size() >= FilterMemo::kMaxEntries) {
    memo.map.clear();
    memo.analyzer_id = analyzer_id;
  }
  return memo;
}

}  // namespace

Analyzer::Analyzer(AnalyzerOptions options)
    : options_(std::move(options)), id_(next_analyzer_id++) {}

Analyzer::~Analyzer() {
  MutexLock lock(&stemmer_mu_);
  for (sb_stemmer* stemmer : idle_stemmers_) sb_stemmer_delete(stemmer);
}

Result<std::unique_ptr<Analyzer>> Analyzer::Make(const AnalyzerOptions& options) {
  const auto* tokenizer =
      std::find(std::begin(kBaseTokenizers), std::end(kBaseTokenizers), options.base_tokenizer);
  if (tokenizer == std::end(kBaseTokenizers)) {
    return Status::InvalidArgument("Unknown base tokenizer '" + options.base_tokenizer +
                                   "'; expected one of: " + JoinNames(kBaseTokenizers));
  }
  const auto& languages = SupportedLanguages();
  if (std::find(languages.begin(), languages.end(), options.language) == languages.end()) {
    return Status::InvalidArgument("Unknown language '" + options.language +
                                   "'; expected one of: " + JoinNames(languages));
  }
  const auto base = static_cast<BaseTokenizer>(tokenizer - std::begin(kBaseTokenizers));
  if (base == BaseTokenizer::kNgram) {
    if (options.min_ngram_length == 0) {
      return Status::InvalidArgument("min_ngram_length must be greater than 0");
    }
    if (options.min_ngram_length > options.max_ngram_length) {
      return Status::InvalidArgument("min_ngram_length (" +
                                     std::to_string(options.min_ngram_length) +
                                     ") must not be greater than max_ngram_length (" +
                                     std::to_string(options.max_ngram_length) + ")");
    }
  }

  std::unique_ptr<Analyzer> analyzer(new Analyzer(options));  // private constructor
  analyzer->base_ = base;
  if (options.stem) {
    analyzer->stemmer_algorithm_ = options.language;
    for (char& c : analyzer->stemmer_algorithm_) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');  // "English" -> "english"
    }
    sb_stemmer* stemmer = sb_stemmer_new(analyzer->stemmer_algorithm_.c_str(), "UTF_8");
    if (stemmer == nullptr) {
      return Status::Internal("libstemmer has no algorithm '" + analyzer->stemmer_algorithm_ + "'");
    }
    MutexLock lock(&analyzer->stemmer_mu_);
    analyzer->idle_stemmers_.push_back(stemmer);
  }
  if (options.remove_stop_words) {
    if (options.custom_stop_words.has_value()) {
      analyzer->stop_words_.insert(options.custom_stop_words->begin(),
                                   options.custom_stop_words->end());
    } else if (base == BaseTokenizer::kIcu || base == BaseTokenizer::kIcuSplit) {
      for (std::string_view word : AllLanguagesStopWords()) analyzer->stop_words_.emplace(word);
    } else {
      for (std::string_view word : BuiltinStopWords(options.language)) {
        analyzer->stop_words_.emplace(word);
      }
    }
  }
  if (base == BaseTokenizer::kIcu || base == BaseTokenizer::kIcuSplit) {
    UErrorCode status = U_ZERO_ERROR;
    auto word_break = std::make_unique<WordBreak>();
    word_break->prototype.reset(
        icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), status));
    if (U_FAILURE(status) || word_break->prototype == nullptr) {
      return Status::Internal(std::string("ICU word break iterator: ") + u_errorName(status));
    }
    analyzer->word_break_ = std::move(word_break);
  }
  return analyzer;
}

sb_stemmer* Analyzer::AcquireStemmer() const {
  if (stemmer_algorithm_.empty()) return nullptr;
  {
    MutexLock lock(&stemmer_mu_);
    if (!idle_stemmers_.empty()) {
      sb_stemmer* stemmer = idle_stemmers_.back();
      idle_stemmers_.pop_back();
      return stemmer;
    }
  }
  return sb_stemmer_new(stemmer_algorithm_.c_str(), "UTF_8");
}

void Analyzer::ReleaseStemmer(sb_stemmer* stemmer) const {
  if (stemmer == nullptr) return;
  MutexLock lock(&stemmer_mu_);
  idle_stemmers_.push_back(stemmer);
}

void Analyzer::Filter(std::string_view raw, uint32_t position, sb_stemmer* stemmer,
                      std::vector<Token>* out) const {
  if (options_.max_token_length.has_value() && raw.size() >= *options_.max_token_length) return;
  if (raw.size() > FilterMemo::kMaxKeyBytes) return FilterUncached(raw, position, stemmer, out);
  FilterMemo& memo = ThreadMemo(id_);
  auto hit = memo.map.find(raw);
  if (hit != memo.map.end()) {
    if (hit->second) out->push_back(Token{*hit->second, position});
    return;
  }
  const size_t before = out->size();
  FilterUncached(raw, position, stemmer, out);
  memo.map.emplace(std::string(raw), out->size() > before
                                         ? std::optional<std::string>(out->back().text)
                                         : std::nullopt);
}

void Analyzer::FilterUncached(std::string_view raw, uint32_t position, sb_stemmer* stemmer,
                              std::vector<Token>* out) const {
  std::string text = options_.lower_case ? LowerCase(raw) : std::string(raw);
  if (stemmer != nullptr) {
    const sb_symbol* stemmed = sb_stemmer_stem(
        stemmer, reinterpret_cast<const sb_symbol*>(text.data()), static_cast<int>(text.size()));
    if (stemmed != nullptr) {
      text.assign(reinterpret_cast<const char*>(stemmed),
                  static_cast<size_t>(sb_stemmer_length(stemmer)));
    }
  }
  if (stop_words_.count(text) != 0) return;
  if (options_.ascii_folding) {
    std::string folded;
    if (FoldToAscii(text, &folded)) text = std::move(folded);
  }
  out->push_back(Token{std::move(text), position});
}

void Analyzer::TokenizeIcu(std::string_view text, sb_stemmer* stemmer,
                           std::vector<Token>* out) const {
  UErrorCode status = U_ZERO_ERROR;
  UText* utext = utext_openUTF8(nullptr, text.data(), static_cast<int64_t>(text.size()), &status);
  std::unique_ptr<icu::BreakIterator> words(word_break_->prototype->clone());
  if (U_FAILURE(status) || words == nullptr) {
    utext_close(utext);
    return;
  }
  words->setText(utext, status);
  uint32_t position = 0;
  int32_t start = words->first();
  for (int32_t end = words->next(); end != icu::BreakIterator::DONE;
       start = end, end = words->next()) {
    std::string_view word =
        text.substr(static_cast<size_t>(start), static_cast<size_t>(end - start));
    // LanceDB keeps the segments that hold a letter or number (Rust's is_alphanumeric), which
    // also keeps a lone ① or ½ that ICU's rule status counts as neither.
    if (!HasAlphanumeric(word)) continue;
    if (base_ == BaseTokenizer::kIcuSplit) {
      SplitRuns(word, IsAlphanumeric,
                [&](std::string_view piece) { Filter(piece, position++, stemmer, out); });
    } else {
      Filter(word, position++, stemmer, out);
    }
  }
  utext_close(utext);
}

void Analyzer::Analyze(std::string_view text, std::vector<Token>* out) const {
  sb_stemmer* stemmer = AcquireStemmer();
  uint32_t position = 0;
  switch (base_) {
    case BaseTokenizer::kSimple:
      SplitRuns(text, IsAlphanumeric,
                [&](std::string_view token) { Filter(token, position++, stemmer, out); });
      break;
    case BaseTokenizer::kWhitespace:
      SplitRuns(
          text, [](uint32_t cp) { return !IsAsciiWhitespace(cp); },
          [&](std::string_view token) { Filter(token, position++, stemmer, out); });
      break;
    case BaseTokenizer::kRaw:
      Filter(text, 0, stemmer, out);
      break;
    case BaseTokenizer::kNgram: {
      // Character n-grams, grouped by start character and ascending in length.
      std::vector<size_t> offsets;
      for (size_t i = 0; i < text.size();) {
        offsets.push_back(i);
        expr::DecodeUtf8(text, &i);
      }
      offsets.push_back(text.size());
      const size_t num_chars = offsets.size() - 1;
      const size_t num_starts = options_.prefix_only ? std::min<size_t>(num_chars, 1) : num_chars;
      for (size_t begin = 0; begin < num_starts; ++begin) {
        for (size_t length = options_.min_ngram_length;
             length <= options_.max_ngram_length && begin + length <= num_chars; ++length) {
          Filter(text.substr(offsets[begin], offsets[begin + length] - offsets[begin]), 0, stemmer,
                 out);
        }
      }
      break;
    }
    case BaseTokenizer::kIcu:
    case BaseTokenizer::kIcuSplit:
      TokenizeIcu(text, stemmer, out);
      break;
  }
  ReleaseStemmer(stemmer);
}

}  // namespace lancedb::index::fts
