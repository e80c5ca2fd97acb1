// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "expr/regex.h"

#include <gtest/gtest.h>

namespace lancedb::expr {
namespace LANCEDB_TEST_FILE_NS {

bool Like(std::string_view text, std::string_view pattern, std::string_view flags = "") {
  auto re = Regex::Compile(pattern, flags, false);
  EXPECT_TRUE(re.ok()) << re.status().ToString();
  return re.ok() && RE2::PartialMatch(text, (*re)->re2());
}

TEST(Regex, TranslatesRustSyntaxToRe2) {
  auto t = [](std::string_view p, bool verbose = false) {
    auto r = TranslateRegex(p, verbose);
    return r.ok() ? *r : r.status().ToString();
  };
  EXPECT_EQ(t("a.b"), "a.b");
  EXPECT_EQ(t(R"(\d\D)"), R"(\p{Nd}\P{Nd})");
  EXPECT_EQ(t("(?<year>x)"), "(?P<year>x)");
  EXPECT_EQ(t("(?<=x)"), "(?<=x)");  // left for RE2 to refuse
  EXPECT_EQ(t(R"(\u{41}\u0042\U00000043)"), R"(\x{41}\x{0042}\x{00000043})");
  EXPECT_EQ(t("a++"), "(?:a+)+");
  EXPECT_EQ(t("(ab)*?+"), "(?:(ab)*?)+");
  EXPECT_EQ(t("[a-c]{ 2 , 3 }{2}"), "(?:[a-c]{2,3}){2}");
  EXPECT_EQ(t("(?i)a+"), "(?i)a+");
  EXPECT_EQ(t("(?:ab)+(?i:c)(?-i)(?P<n>d)*"), "(?:ab)+(?i:c)(?-i)(?P<n>d)*");
  EXPECT_EQ(t(" a b # comment\n c ", true), "abc");
  EXPECT_EQ(t(R"([ a\ ]\ )", true), R"([a\x{20}]\x{20})");
  EXPECT_EQ(t(R"([\Wa])").substr(0, 8), "(?:[a]|[");
}

TEST(Regex, ShorthandClassesAreUnicode) {
  EXPECT_TRUE(Like("٣", R"(^\d$)"));         // ARABIC-INDIC DIGIT THREE
  EXPECT_TRUE(Like("Ωμέγα", R"(^\w+$)"));    // Greek letters and a combining accent
  EXPECT_TRUE(Like("a\u00a0b", R"(a\sb)"));  // NO-BREAK SPACE
  EXPECT_TRUE(Like("ⓐ", R"(^\w$)"));         // circled letters are Alphabetic
  EXPECT_FALSE(Like("-", R"(\w)"));
  EXPECT_TRUE(Like("-", R"(^[\W\d]$)"));
  EXPECT_TRUE(Like("7", R"(^[\W\d]$)"));
  EXPECT_FALSE(Like("x", R"([\W\d])"));
}

TEST(Regex, FlagsFollowDataFusion) {
  EXPECT_TRUE(Like("ΣΊΣΥΦΟΣ", "σίσυφος", "i"));
  EXPECT_TRUE(Like("ΣΊΣΥΦΟΣ", "(?i)σίσυφοσ"));
  EXPECT_TRUE(Like("\u212aelvin", "kelvin", "i"));
  EXPECT_FALSE(Like("line1\nline2", "^line2"));
  EXPECT_TRUE(Like("line1\nline2", "^line2", "m"));
  EXPECT_FALSE(Like("1\n2", "1.2"));
  EXPECT_TRUE(Like("1\n2", "1.2", "s"));
  EXPECT_TRUE(Like("a b", "a b"));
  EXPECT_FALSE(Like("a b", "a b", "x"));
  EXPECT_TRUE(Like("ab", "a b # the b", "x"));
  EXPECT_TRUE(Like("ab", "ab", "u"));
  auto global = Regex::Compile("a", "g", true);
  ASSERT_TRUE(global.ok());
  EXPECT_TRUE((*global)->global());
}

TEST(Regex, BadPatternsAndFlagsAreInvalidArgumentNamingThePattern) {
  auto status = [](std::string_view p, std::string_view f = "", bool global = false) {
    return Regex::Compile(p, f, global).status();
  };
  EXPECT_TRUE(status("(").IsInvalidArgument());
  EXPECT_NE(status("(").message().find("invalid regular expression '('"), std::string::npos);
  EXPECT_NE(status("(a)\\1").message().find("back-references are not supported"),
            std::string::npos);
  EXPECT_TRUE(status("a{,2}").IsInvalidArgument());
  EXPECT_TRUE(status("x{").IsInvalidArgument());
  EXPECT_TRUE(status("[a[b]]").IsInvalidArgument());
  EXPECT_TRUE(status("[a&&b]").IsInvalidArgument());
  EXPECT_TRUE(status(R"([^\S])").IsInvalidArgument());
  EXPECT_TRUE(status(R"(\u{zz})").IsInvalidArgument());
  EXPECT_TRUE(status("a\\").IsInvalidArgument());
  EXPECT_TRUE(status("a", "g").IsInvalidArgument());
  EXPECT_TRUE(status("a", "c").IsInvalidArgument());
  EXPECT_TRUE(status("a", "q", true).IsInvalidArgument());
  EXPECT_TRUE(status("a", "R").IsNotSupported());
  EXPECT_TRUE(status("a", "gimsUxu", true).ok());
}

TEST(Regex, MatchingIsLinearInTheText) {
  // Patterns that make a backtracking engine take exponential time.
  const std::string text(5000, 'a');
  EXPECT_FALSE(Like(text, "^(a+)+b"));
  EXPECT_FALSE(Like(text, "^(a|a)*b"));
  EXPECT_FALSE(Like(text, "^(a*)*b"));
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::expr
