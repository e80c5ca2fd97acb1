// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Expected values are what DataFusion's lower()/upper() (Rust's str::to_lowercase and
// to_uppercase) and ILIKE (simple case folding) give, as checked with pylance.

#include "expr/utf8.h"

#include <gtest/gtest.h>

namespace lancedb::expr {
namespace LANCEDB_TEST_FILE_NS {

TEST(Utf8, LowerAndUpperCoverEveryScript) {
  // Armenian, Cherokee (lower case encoded after upper), Deseret (outside the BMP), Georgian,
  // Glagolitic, Coptic, Latin Extended-B/Additional, fullwidth Latin, titlecase digraphs.
  EXPECT_EQ(Utf8Lower("ԵՐԵՎԱՆ"), "երեվան");
  EXPECT_EQ(Utf8Upper("երևան"), "ԵՐԵՒԱՆ");  // և is a ligature: ԵՒ
  EXPECT_EQ(Utf8Lower("ᎠᎡ"), "ꭰꭱ");
  EXPECT_EQ(Utf8Upper("ꭰꭱ"), "ᎠᎡ");
  EXPECT_EQ(Utf8Lower("𐐀𐐁"), "𐐨𐐩");
  EXPECT_EQ(Utf8Upper("𐐨𐐩"), "𐐀𐐁");
  EXPECT_EQ(Utf8Lower("ᲐᲑᲒ"), "აბგ");
  EXPECT_EQ(Utf8Upper("ⰰⰱ ⲁⲃ ạ ǆ"), "ⰀⰁ ⲀⲂ Ạ Ǆ");
  EXPECT_EQ(Utf8Lower("ＡＢＣ Ǆ ǅ"), "ａｂｃ ǆ ǆ");
  EXPECT_EQ(Utf8Upper("ǅemal"), "ǄEMAL");
}

TEST(Utf8, UpperUsesOneToManyMappings) {
  EXPECT_EQ(Utf8Upper("straße"), "STRASSE");
  EXPECT_EQ(Utf8Upper("ﬁne ﬀ"), "FINE FF");
  EXPECT_EQ(Utf8Upper("ŉ"), "ʼN");
  EXPECT_EQ(Utf8Upper("ǰ"), "J\u030c");
  EXPECT_EQ(Utf8Upper("ᾳ ᾀ"), "ΑΙ \u1f08Ι");   // ypogegrammeni becomes a capital iota
  EXPECT_EQ(Utf8Upper("ΐ"), "Ι\u0308\u0301");  // SpecialCasing leaves these decomposed
  EXPECT_EQ(Utf8Upper("ẞ"), "ẞ");
  EXPECT_EQ(Utf8Lower("ẞ"), "ß");
}

TEST(Utf8, LowerMapsCapitalIWithDotAndFinalSigma) {
  EXPECT_EQ(Utf8Lower("İstanbul"), "i\u0307stanbul");
  EXPECT_EQ(Utf8Upper("ıi"), "II");
  EXPECT_EQ(Utf8Lower("ΣΊΣΥΦΟΣ"), "σίσυφος");
  EXPECT_EQ(Utf8Lower("Σ"), "σ");
  // Case-ignorable characters are skipped on both sides of the sigma.
  EXPECT_EQ(Utf8Lower("A.Σ."), "a.ς.");
  EXPECT_EQ(Utf8Lower("ΑΣ'Σ"), "ασ'ς");
  EXPECT_EQ(Utf8Lower("ΑΣ'Α"), "ασ'α");
  EXPECT_EQ(Utf8Lower("ΑΣ Α"), "ας α");
}

TEST(Utf8, FoldIsSimpleCaseFolding) {
  EXPECT_EQ(Utf8Fold("ΣΊΣΥΦΟΣ"), Utf8Fold("σίσυφος"));
  EXPECT_EQ(Utf8Fold("ς"), Utf8Fold("Σ"));
  EXPECT_EQ(Utf8Fold("KELVIN"), Utf8Fold("\u212aelvin"));  // Kelvin sign
  EXPECT_EQ(Utf8Fold("ſun"), "sun");
  EXPECT_EQ(Utf8Fold("ẞ"), Utf8Fold("ß"));
  EXPECT_NE(Utf8Fold("ß"), Utf8Fold("ss"));  // one character stays one character
  EXPECT_EQ(Utf8Fold("ᎠᎡ"), Utf8Fold("ꭰꭱ"));
  EXPECT_EQ(Utf8Fold("ԵՐԵՎԱՆ"), Utf8Fold("երեվան"));
  EXPECT_EQ(Utf8Fold("ǅ"), Utf8Fold("ǆ"));
  // The Turkish i's match only themselves.
  EXPECT_NE(Utf8Fold("İ"), Utf8Fold("i"));
  EXPECT_NE(Utf8Fold("ı"), Utf8Fold("i"));
}

TEST(Utf8, BytesThatAreNotUtf8AreCopied) {
  EXPECT_EQ(Utf8Upper("a\xffz\xc3"), "A\xffZ\xc3");
  EXPECT_EQ(Utf8Lower("A\xe2\x82"), "a\xe2\x82");
  // An overlong form, a surrogate.
  EXPECT_EQ(Utf8Lower("\xc0\xaf"
                      "A\xed\xa0\x80"),
            "\xc0\xaf"
            "a\xed\xa0\x80");
  EXPECT_EQ(Utf8Fold("\x80Σ"), "\x80σ");
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::expr
