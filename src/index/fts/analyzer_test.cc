// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Expected tokens were produced by LanceDB 0.39's lancedb.tokenize (pylance 12) with the same
// options. lancedb.tokenize returns the query form, whose positions are re-based to the first
// surviving token; ExpectQueryForm re-bases Analyze()'s document-form positions the same way.

#include "index/fts/analyzer.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace lancedb::index::fts {
namespace LANCEDB_TEST_FILE_NS {

using Tokens = std::vector<std::pair<std::string, uint32_t>>;

Tokens AnalyzeToPairs(const AnalyzerOptions& options, std::string_view text) {
  auto analyzer = Analyzer::Make(options);
  EXPECT_TRUE(analyzer.ok()) << analyzer.status().ToString();
  if (!analyzer.ok()) return {};
  std::vector<Token> tokens;
  (*analyzer)->Analyze(text, &tokens);
  Tokens pairs;
  for (Token& token : tokens) pairs.emplace_back(std::move(token.text), token.position);
  return pairs;
}

/// Compare with LanceDB's query form: positions re-based to the first token.
void ExpectQueryForm(const AnalyzerOptions& options, std::string_view text,
                     const Tokens& expected) {
  Tokens actual = AnalyzeToPairs(options, text);
  if (!actual.empty()) {
    const uint32_t first = actual.front().second;
    for (auto& token : actual) token.second -= first;
  }
  EXPECT_EQ(actual, expected) << "text: " << text;
}

TEST(Analyzer, StemsEnglishWithPorter2) {
  {
    AnalyzerOptions o;
    ExpectQueryForm(o, "The lazy dogs were running quickly to their houses",
                    {{"lazi", 0}, {"dog", 1}, {"run", 3}, {"quick", 4}, {"hous", 7}});
  }
}

TEST(Analyzer, RemovesEnglishStopWordsAfterStemming) {
  {
    AnalyzerOptions o;
    o.stem = false;
    ExpectQueryForm(o,
                    "over all through are whom nor own same once further against doing having "
                    "being ain aren couldn",
                    {});
  }
  {
    AnalyzerOptions o;
    o.base_tokenizer = "whitespace";
    o.stem = false;
    ExpectQueryForm(o, "he'd he'll i'm we've they're you're should've mightn't", {});
  }
  {
    AnalyzerOptions o;
    o.ascii_folding = false;
    ExpectQueryForm(o,
                    "over all through are whom nor own same once further against doing having "
                    "being ain aren couldn",
                    {{"onc", 0}});
  }
  {
    AnalyzerOptions o;
    o.base_tokenizer = "whitespace";
    ExpectQueryForm(o, "he'd he'll i'm we've they're you're should've mightn't",
                    {{"we'v", 0}, {"they'r", 1}, {"you'r", 2}, {"should'v", 3}});
  }
  {
    AnalyzerOptions o;
    ExpectQueryForm(o, "would could ought able according also yet via etc whose",
                    {{"would", 0},
                     {"could", 1},
                     {"ought", 2},
                     {"abl", 3},
                     {"accord", 4},
                     {"also", 5},
                     {"yet", 6},
                     {"via", 7},
                     {"etc", 8},
                     {"whose", 9}});
  }
  {
    AnalyzerOptions o;
    ExpectQueryForm(o, "does very having", {{"doe", 0}, {"veri", 1}});
  }
  {
    AnalyzerOptions o;
    o.stem = false;
    ExpectQueryForm(o, "having being does", {});
  }
}

TEST(Analyzer, StopWordsAreCaseSensitive) {
  {
    AnalyzerOptions o;
    o.lower_case = false;
    ExpectQueryForm(o, "THE The the quick", {{"THE", 0}, {"The", 1}, {"quick", 3}});
  }
  {
    AnalyzerOptions o;
    o.lower_case = false;
    o.stem = false;
    ExpectQueryForm(o, "The AND and Over", {{"The", 0}, {"AND", 1}, {"Over", 3}});
  }
}

TEST(Analyzer, FoldsToAsciiLast) {
  {
    AnalyzerOptions o;
    o.base_tokenizer = "whitespace";
    o.stem = false;
    o.remove_stop_words = false;
    ExpectQueryForm(
        o, "café naïve Über Æsop straße œuvre Øre łódź đak þorn ðe ﬁne ÉCOLE ΣΟΦΙΑ Привет ½ ① ⒜ ™",
        {{"cafe", 0},
         {"naive", 1},
         {"uber", 2},
         {"aesop", 3},
         {"strasse", 4},
         {"oeuvre", 5},
         {"ore", 6},
         {"lodz", 7},
         {"dak", 8},
         {"thorn", 9},
         {"de", 10},
         {"fine", 11},
         {"ecole", 12},
         {"σοφια", 13},
         {"привет", 14},
         {"12", 15},
         {"1", 16},
         {"(a)", 17},
         {"TM", 18}});
  }
  {
    AnalyzerOptions o;
    ExpectQueryForm(o, "naïve café résumé", {{"naiv", 0}, {"cafe", 1}, {"resume", 2}});
  }
  {
    AnalyzerOptions o;
    o.ascii_folding = false;
    o.stem = false;
    ExpectQueryForm(o, "café naïve Über", {{"café", 0}, {"naïve", 1}, {"über", 2}});
  }
}

TEST(Analyzer, LowerCasesUnicode) {
  {
    AnalyzerOptions o;
    o.stem = false;
    o.ascii_folding = false;
    ExpectQueryForm(o, "ÉCOLE ΣΟΦΙΑ İstanbul ПРИВЕТ Ǆemal",
                    {{"école", 0}, {"σοφια", 1}, {"i̇stanbul", 2}, {"привет", 3}, {"ǆemal", 4}});
  }
}

TEST(Analyzer, SimpleTokenizer) {
  {
    AnalyzerOptions o;
    o.stem = false;
    o.remove_stop_words = false;
    ExpectQueryForm(o, "hello_world C++ U.S.A. 3.14 x1y2 日本語のテキスト e-mail it's",
                    {{"hello", 0},
                     {"world", 1},
                     {"c", 2},
                     {"u", 3},
                     {"s", 4},
                     {"a", 5},
                     {"3", 6},
                     {"14", 7},
                     {"x1y2", 8},
                     {"日本語のテキスト", 9},
                     {"e", 10},
                     {"mail", 11},
                     {"it", 12},
                     {"s", 13}});
  }
}

TEST(Analyzer, WhitespaceTokenizer) {
  {
    AnalyzerOptions o;
    o.base_tokenizer = "whitespace";
    o.stem = false;
    o.remove_stop_words = false;
    ExpectQueryForm(o, "Hello, world!  tab\there\nnew-line",
                    {{"hello,", 0}, {"world!", 1}, {"tab", 2}, {"here", 3}, {"new-line", 4}});
  }
  {
    AnalyzerOptions o;
    o.base_tokenizer = "whitespace";
    ExpectQueryForm(o, "Hello, the world! running", {{"hello,", 0}, {"world!", 2}, {"run", 3}});
  }
}

TEST(Analyzer, RawTokenizer) {
  {
    AnalyzerOptions o;
    o.base_tokenizer = "raw";
    ExpectQueryForm(o, "Hello, World!", {{"hello, world!", 0}});
  }
  {
    AnalyzerOptions o;
    o.base_tokenizer = "raw";
    ExpectQueryForm(o, "The", {});
  }
  {
    AnalyzerOptions o;
    o.base_tokenizer = "raw";
    ExpectQueryForm(o, "running", {{"run", 0}});
  }
  {
    AnalyzerOptions o;
    o.base_tokenizer = "raw";
    ExpectQueryForm(o, "", {{"", 0}});
  }
}

TEST(Analyzer, NgramTokenizer) {
  {
    AnalyzerOptions o;
    o.base_tokenizer = "ngram";
    ExpectQueryForm(o, "Hello World the",
                    {{"hel", 0},
                     {"ell", 0},
                     {"llo", 0},
                     {"lo ", 0},
                     {"o w", 0},
                     {" wo", 0},
                     {"wor", 0},
                     {"orl", 0},
                     {"rld", 0},
                     {"ld ", 0},
                     {"d t", 0},
                     {" th", 0}});
  }
  {
    AnalyzerOptions o;
    o.base_tokenizer = "ngram";
    o.stem = false;
    o.remove_stop_words = false;
    o.min_ngram_length = 2;
    o.max_ngram_length = 4;
    ExpectQueryForm(
        o, "Hello World",
        {{"he", 0},   {"hel", 0},  {"hell", 0}, {"el", 0},   {"ell", 0},  {"ello", 0}, {"ll", 0},
         {"llo", 0},  {"llo ", 0}, {"lo", 0},   {"lo ", 0},  {"lo w", 0}, {"o ", 0},   {"o w", 0},
         {"o wo", 0}, {" w", 0},   {" wo", 0},  {" wor", 0}, {"wo", 0},   {"wor", 0},  {"worl", 0},
         {"or", 0},   {"orl", 0},  {"orld", 0}, {"rl", 0},   {"rld", 0},  {"ld", 0}});
  }
  {
    AnalyzerOptions o;
    o.base_tokenizer = "ngram";
    o.prefix_only = true;
    o.min_ngram_length = 1;
    o.max_ngram_length = 4;
    ExpectQueryForm(o, "Hello World", {{"h", 0}, {"hel", 0}, {"hell", 0}});
  }
  {
    AnalyzerOptions o;
    o.base_tokenizer = "ngram";
    o.prefix_only = true;
    o.stem = false;
    o.remove_stop_words = false;
    o.min_ngram_length = 2;
    o.max_ngram_length = 5;
    ExpectQueryForm(o, "Über alles", {{"ub", 0}, {"ube", 0}, {"uber", 0}, {"uber ", 0}});
  }
  {
    AnalyzerOptions o;
    o.base_tokenizer = "ngram";
    ExpectQueryForm(o, "ab", {});
  }
  {
    AnalyzerOptions o;
    o.base_tokenizer = "ngram";
    o.stem = false;
    o.remove_stop_words = false;
    ExpectQueryForm(o, "日本語テ", {{"日本語", 0}, {"本語テ", 0}});
  }
}

TEST(Analyzer, IcuTokenizerSegmentsCjk) {
  {
    AnalyzerOptions o;
    o.base_tokenizer = "icu";
    o.remove_stop_words = false;
    o.stem = false;
    ExpectQueryForm(o, "日本語のテキスト 中文文本 Hello, world! 3.14 x1y2 don't C++ café",
                    {{"日本語", 0},
                     {"の", 1},
                     {"テキスト", 2},
                     {"中文", 3},
                     {"文本", 4},
                     {"hello", 5},
                     {"world", 6},
                     {"3.14", 7},
                     {"x1y2", 8},
                     {"don't", 9},
                     {"c", 10},
                     {"cafe", 11}});
  }
  {
    AnalyzerOptions o;
    o.base_tokenizer = "icu";
    ExpectQueryForm(o, "中文文本 The running dogs", {{"中文", 0}, {"文本", 1}, {"run", 3}});
  }
  {
    AnalyzerOptions o;
    o.base_tokenizer = "icu/split";
    o.remove_stop_words = false;
    o.stem = false;
    ExpectQueryForm(o, "日本語のテキスト 3.14 x1y2 don't abc_def a.b",
                    {{"日本語", 0},
                     {"の", 1},
                     {"テキスト", 2},
                     {"3", 3},
                     {"14", 4},
                     {"x1y2", 5},
                     {"don", 6},
                     {"t", 7},
                     {"abc", 8},
                     {"def", 9},
                     {"a", 10},
                     {"b", 11}});
  }
}

TEST(Analyzer, MaxTokenLength) {
  {
    AnalyzerOptions o;
    o.stem = false;
    ExpectQueryForm(
        o, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb end",
        {{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 0}, {"end", 2}});
  }
  {
    AnalyzerOptions o;
    o.stem = false;
    ExpectQueryForm(o, "éééééééééééééééééééé ééééééééééééééééééé end",
                    {{"eeeeeeeeeeeeeeeeeee", 0}, {"end", 1}});
  }
  {
    AnalyzerOptions o;
    o.stem = false;
    o.max_token_length = std::nullopt;
    ExpectQueryForm(
        o, "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb end",
        {{"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", 0}, {"end", 1}});
  }
  {
    AnalyzerOptions o;
    o.stem = false;
    o.max_token_length = 5;
    ExpectQueryForm(o, "four fives sixsix end", {{"four", 0}, {"end", 3}});
  }
  {
    AnalyzerOptions o;
    o.max_token_length = 6;
    o.stem = false;
    o.lower_case = true;
    ExpectQueryForm(o, "ÉÉÉ ÉÉ abc", {{"ee", 0}, {"abc", 1}});
  }
}

TEST(Analyzer, CustomStopWords) {
  {
    AnalyzerOptions o;
    o.custom_stop_words = std::vector<std::string>{"quick", "fox"};
    ExpectQueryForm(o, "The quick brown fox", {{"the", 0}, {"brown", 2}});
  }
  {
    AnalyzerOptions o;
    o.custom_stop_words = std::vector<std::string>{};
    ExpectQueryForm(o, "The quick brown fox", {{"the", 0}, {"quick", 1}, {"brown", 2}, {"fox", 3}});
  }
  {
    AnalyzerOptions o;
    o.custom_stop_words = std::vector<std::string>{"run"};
    ExpectQueryForm(o, "running runs runner", {{"runner", 0}});
  }
  {
    AnalyzerOptions o;
    o.custom_stop_words = std::vector<std::string>{"quick"};
    o.remove_stop_words = false;
    ExpectQueryForm(o, "The quick brown fox", {{"the", 0}, {"quick", 1}, {"brown", 2}, {"fox", 3}});
  }
}

TEST(Analyzer, LowerCaseOff) {
  {
    AnalyzerOptions o;
    o.lower_case = false;
    ExpectQueryForm(o, "Running RUNNING Houses The quick",
                    {{"Run", 0}, {"RUNNING", 1}, {"Hous", 2}, {"The", 3}, {"quick", 4}});
  }
}

TEST(Analyzer, StemsEveryLanguage) {
  // Expected stems are lancedb.tokenize's (Snowball 3; Debian stable's 2.2 differs on each
  // English and Dutch case below).
  {
    AnalyzerOptions o;
    o.language = "English";
    ExpectQueryForm(o, "added universities universe universal",
                    {{"add", 0}, {"universiti", 1}, {"univers", 2}, {"universal", 3}});
  }
  {
    AnalyzerOptions o;
    o.language = "Dutch";
    ExpectQueryForm(o, "lopende huizen", {{"loop", 0}, {"huis", 1}});
  }
  {
    AnalyzerOptions o;
    o.language = "German";
    ExpectQueryForm(o, "bereitete", {{"bereit", 0}});
  }
  {
    AnalyzerOptions o;
    o.language = "French";
    ExpectQueryForm(o, "continuellement manger", {{"continuel", 0}, {"mang", 1}});
  }
  {
    AnalyzerOptions o;
    o.language = "German";
    ExpectQueryForm(o, "Häuser laufen", {{"haus", 0}, {"lauf", 1}});
  }
  {
    AnalyzerOptions o;
    o.language = "Spanish";
    ExpectQueryForm(o, "corriendo canciones", {{"corr", 0}, {"cancion", 1}});
  }
  {
    AnalyzerOptions o;
    o.language = "Russian";
    ExpectQueryForm(o, "бегущий книги", {{"бегущ", 0}, {"книг", 1}});
  }
  {
    AnalyzerOptions o;
    o.language = "Italian";
    ExpectQueryForm(o, "mangiando libri", {{"mang", 0}, {"libr", 1}});
  }
  {
    AnalyzerOptions o;
    o.language = "Swedish";
    ExpectQueryForm(o, "springande husen", {{"spring", 0}, {"hus", 1}});
  }
  {
    AnalyzerOptions o;
    o.language = "Greek";
    ExpectQueryForm(o, "τρέχοντας βιβλία", {{"τρεχ", 0}, {"βιβλ", 1}});
  }
  {
    AnalyzerOptions o;
    o.language = "Arabic";
    ExpectQueryForm(o, "المكتبات", {{"مكتب", 0}});
  }
  {
    AnalyzerOptions o;
    o.language = "Tamil";
    ExpectQueryForm(o, "புத்தகங்கள்", {{"புத", 0}, {"தகங", 1}, {"கள", 2}});
  }
  {
    AnalyzerOptions o;
    o.language = "Turkish";
    ExpectQueryForm(o, "kitaplar evlerde", {{"kitap", 0}, {"ev", 1}});
  }
  {
    AnalyzerOptions o;
    o.language = "Finnish";
    ExpectQueryForm(o, "taloissa juoksemassa", {{"talo", 0}, {"juoksem", 1}});
  }
  {
    AnalyzerOptions o;
    o.language = "Hungarian";
    ExpectQueryForm(o, "házakban futó", {{"haz", 0}, {"futo", 1}});
  }
  {
    AnalyzerOptions o;
    o.language = "Portuguese";
    ExpectQueryForm(o, "correndo livros", {{"corr", 0}, {"livr", 1}});
  }
  {
    AnalyzerOptions o;
    o.language = "Romanian";
    ExpectQueryForm(o, "cărțile alergând", {{"cart", 0}, {"alerg", 1}});
  }
  {
    AnalyzerOptions o;
    o.language = "Norwegian";
    ExpectQueryForm(o, "husene løpende", {{"hus", 0}, {"lop", 1}});
  }
  {
    AnalyzerOptions o;
    o.language = "Danish";
    ExpectQueryForm(o, "husene løbende", {{"hus", 0}, {"lob", 1}});
  }
}

TEST(Analyzer, RemovesOtherLanguagesStopWords) {
  {
    AnalyzerOptions o;
    o.language = "French";
    o.stem = false;
    ExpectQueryForm(o, "le chat et la souris", {{"chat", 0}, {"souris", 3}});
  }
  {
    AnalyzerOptions o;
    o.language = "German";
    o.stem = false;
    ExpectQueryForm(o, "der Hund und die Katze", {{"hund", 0}, {"katze", 3}});
  }
  {
    AnalyzerOptions o;
    o.language = "Spanish";
    o.stem = false;
    ExpectQueryForm(o, "el perro y el gato", {{"perro", 0}, {"gato", 3}});
  }
  {
    AnalyzerOptions o;
    o.language = "Russian";
    o.stem = false;
    ExpectQueryForm(o, "и кошка в доме", {{"кошка", 0}, {"доме", 2}});
  }
  {
    AnalyzerOptions o;
    o.language = "Turkish";
    o.stem = false;
    ExpectQueryForm(o, "ve kedi için", {{"kedi", 0}});
  }
}

TEST(Analyzer, PositionsAreDocumentForm) {
  // Stop words and over-long tokens keep their slots: "The" is position 0.
  AnalyzerOptions options;
  options.max_token_length = 10;
  EXPECT_EQ(AnalyzeToPairs(options, "The quick brown extraordinarily fox"),
            (Tokens{{"quick", 1}, {"brown", 2}, {"fox", 4}}));
  options.max_token_length = 40;
  options.base_tokenizer = "icu";
  EXPECT_EQ(AnalyzeToPairs(options, "the 日本語のテキスト"),
            (Tokens{{"日本語", 1}, {"テキスト", 3}}));
  options.base_tokenizer = "ngram";
  EXPECT_EQ(AnalyzeToPairs(options, "abcd"), (Tokens{{"abc", 0}, {"bcd", 0}}));
}

TEST(Analyzer, IcuUsesEveryLanguagesStopWords) {
  // With no custom list the icu tokenizers drop the stop words of every language LanceDB
  // knows, Japanese and digits included ("dog" is one of them).
  AnalyzerOptions options;
  options.base_tokenizer = "icu";
  EXPECT_EQ(AnalyzeToPairs(options, "le chat der Hund the dog の 3 y perro"),
            (Tokens{{"chat", 1}, {"hund", 3}, {"perro", 9}}));
  options.base_tokenizer = "simple";
  EXPECT_EQ(AnalyzeToPairs(options, "le chat der Hund the dog の 3 y perro"),
            (Tokens{{"le", 0},
                    {"chat", 1},
                    {"der", 2},
                    {"hund", 3},
                    {"dog", 5},
                    {"の", 6},
                    {"3", 7},
                    {"perro", 9}}));
}

TEST(Analyzer, AppendsToOutput) {
  auto analyzer = Analyzer::Make(AnalyzerOptions{});
  ASSERT_TRUE(analyzer.ok());
  std::vector<Token> tokens;
  (*analyzer)->Analyze("quick", &tokens);
  (*analyzer)->Analyze("the fox", &tokens);
  ASSERT_EQ(tokens.size(), 2u);
  EXPECT_EQ(tokens[0].text, "quick");
  EXPECT_EQ(tokens[1].text, "fox");
  EXPECT_EQ(tokens[1].position, 1u);
}

TEST(Analyzer, AnalyzeIsThreadSafe) {
  auto analyzer = Analyzer::Make(AnalyzerOptions{});
  ASSERT_TRUE(analyzer.ok());
  const Analyzer& shared = **analyzer;
  std::vector<std::thread> threads;
  std::vector<size_t> mismatches(4, 0);
  for (size_t t = 0; t < mismatches.size(); ++t) {
    threads.emplace_back([&shared, &mismatches, t] {
      for (int i = 0; i < 2000; ++i) {
        std::vector<Token> tokens;
        shared.Analyze("The lazy dogs were running to their houses", &tokens);
        if (tokens.size() != 4 || tokens[2].text != "run" || tokens[3].text != "hous") {
          ++mismatches[t];
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (size_t count : mismatches) EXPECT_EQ(count, 0u);
}

TEST(Analyzer, MakeRejectsUnknownBaseTokenizer) {
  AnalyzerOptions options;
  options.base_tokenizer = "jieba";
  auto analyzer = Analyzer::Make(options);
  ASSERT_FALSE(analyzer.ok());
  EXPECT_EQ(analyzer.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(analyzer.status().message().find("'jieba'"), std::string::npos);
  EXPECT_NE(analyzer.status().message().find("simple, whitespace, raw, ngram, icu"),
            std::string::npos);
}

TEST(Analyzer, MakeRejectsUnknownLanguage) {
  for (const char* language : {"Chinese", "english", ""}) {
    AnalyzerOptions options;
    options.language = language;
    auto analyzer = Analyzer::Make(options);
    ASSERT_FALSE(analyzer.ok()) << language;
    EXPECT_EQ(analyzer.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(analyzer.status().message().find("'" + std::string(language) + "'"),
              std::string::npos);
    EXPECT_NE(analyzer.status().message().find("Arabic, Danish"), std::string::npos);
  }
  for (std::string_view language : SupportedLanguages()) {
    AnalyzerOptions options;
    options.language = std::string(language);
    EXPECT_TRUE(Analyzer::Make(options).ok()) << language;
  }
  EXPECT_EQ(SupportedLanguages().size(), 18u);
}

TEST(Analyzer, MakeRejectsBadNgramLengths) {
  AnalyzerOptions options;
  options.base_tokenizer = "ngram";
  options.min_ngram_length = 4;
  options.max_ngram_length = 3;
  auto analyzer = Analyzer::Make(options);
  ASSERT_FALSE(analyzer.ok());
  EXPECT_EQ(analyzer.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(analyzer.status().message().find("min_ngram_length (4)"), std::string::npos);
  options.min_ngram_length = 0;
  analyzer = Analyzer::Make(options);
  ASSERT_FALSE(analyzer.ok());
  EXPECT_EQ(analyzer.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(analyzer.status().message().find("min_ngram_length"), std::string::npos);
  // As in LanceDB, the lengths are only checked for the ngram tokenizer.
  options.base_tokenizer = "simple";
  EXPECT_TRUE(Analyzer::Make(options).ok());
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::index::fts
