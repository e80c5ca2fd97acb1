// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The inverted index's byte encodings: round trips, bytes pylance wrote, corrupt input; the
// params JSON and InvertedIndexDetails forms.

#include "index/fts/posting_codec.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "common/test_util.h"
#include "index/fts/fts_params.h"

namespace lancedb::index::fts {
namespace LANCEDB_TEST_FILE_NS {

TEST(PostingCodec, FullAndTailBlocksRoundTrip) {
  std::mt19937 rng(7);
  for (size_t count : {1u, 2u, 77u, 127u, 128u}) {
    std::vector<uint32_t> docs, freqs;
    uint32_t d = rng() % 1000;
    for (size_t i = 0; i < count; ++i) {
      d += 1 + rng() % (i % 3 == 0 ? 70000 : 5);
      docs.push_back(d);
      freqs.push_back(1 + rng() % (i % 5 == 0 ? 300 : 3));
    }
    const std::string block = EncodePostingBlock(docs, freqs, 1.25f);
    std::vector<uint32_t> got_docs, got_freqs;
    ASSERT_OK(DecodePostingBlock(block, count, &got_docs, &got_freqs));
    EXPECT_EQ(got_docs, docs);
    EXPECT_EQ(got_freqs, freqs);
    ASSERT_OK_AND_ASSIGN(float score, PostingBlockMaxScore(block));
    EXPECT_EQ(score, 1.25f);
    // Every truncation is Corruption, never a read past the end.
    for (size_t cut = 0; cut < block.size(); ++cut) {
      std::vector<uint32_t> a, b;
      EXPECT_FALSE(DecodePostingBlock(block.substr(0, cut), count, &a, &b).ok()) << cut;
    }
  }
}

TEST(PostingCodec, DecodesATailBlockPylanceWrote) {
  // Token "dog" of a pylance index: score 0.986715, documents 0, 1, 4, each once.
  const std::string block("\x62\x99\x7c\x3f\x00\x01\x03\x01\x01\x01", 10);
  std::vector<uint32_t> docs, freqs;
  ASSERT_OK(DecodePostingBlock(block, 3, &docs, &freqs));
  EXPECT_EQ(docs, (std::vector<uint32_t>{0, 1, 4}));
  EXPECT_EQ(freqs, (std::vector<uint32_t>{1, 1, 1}));
  ASSERT_OK_AND_ASSIGN(float score, PostingBlockMaxScore(block));
  EXPECT_NEAR(score, 0.986715f, 1e-6);
  std::vector<uint32_t> positions;
  ASSERT_OK(DecodePositionBlock(std::string("\x08\x02\x03", 3), 3, &positions));
  EXPECT_EQ(positions, (std::vector<uint32_t>{8, 2, 3}));
}

TEST(PostingCodec, BitPackerLanesAndPositionGroups) {
  std::vector<uint32_t> values(128);
  for (uint32_t i = 0; i < 128; ++i) values[i] = i;
  std::string packed;
  Pack128(values.data(), 7, &packed);
  ASSERT_EQ(packed.size(), 16u * 7);
  // Lane 1's first word holds values 1, 5, 9, 13, 17 (7 bits each) from its lowest bit.
  uint32_t word;
  std::memcpy(&word, packed.data() + 4, 4);
  EXPECT_EQ(word & 0x7F, 1u);
  EXPECT_EQ((word >> 7) & 0x7F, 5u);
  std::vector<uint32_t> deltas(300);
  for (size_t i = 0; i < deltas.size(); ++i) deltas[i] = static_cast<uint32_t>(i * 37 % 1000);
  std::vector<uint32_t> back;
  ASSERT_OK(DecodePositionBlock(EncodePositionBlock(deltas), deltas.size(), &back));
  EXPECT_EQ(back, deltas);
}

TEST(FtsParams, JsonAndDetailsRoundTripWithLanceDefaults) {
  FtsParams p;
  EXPECT_EQ(FtsParamsToJson(p),
            "{\"lance_tokenizer\":\"text\",\"base_tokenizer\":\"simple\",\"language\":"
            "\"English\",\"with_position\":false,\"max_token_length\":40,\"lower_case\":true,"
            "\"stem\":true,\"remove_stop_words\":true,\"custom_stop_words\":null,"
            "\"ascii_folding\":true,\"min_ngram_length\":3,\"max_ngram_length\":3,"
            "\"prefix_only\":false,\"block_size\":128,\"split_identifiers\":false,"
            "\"split_on_numerics\":false,\"preserve_original\":false,\"index_operators\":false}");
  p.with_position = true;
  p.analyzer.language = "French";
  p.analyzer.max_token_length.reset();
  p.analyzer.stem = false;
  p.analyzer.custom_stop_words = std::vector<std::string>{"le", "la"};
  ASSERT_OK_AND_ASSIGN(auto back, FtsParamsFromJson(FtsParamsToJson(p)));
  EXPECT_EQ(FtsParamsToJson(back), FtsParamsToJson(p));
  ASSERT_OK_AND_ASSIGN(auto details, DecodeInvertedIndexDetails(EncodeInvertedIndexDetails(p)));
  EXPECT_EQ(details.analyzer.language, "French");
  EXPECT_TRUE(details.with_position);
  EXPECT_FALSE(details.analyzer.stem);
  EXPECT_TRUE(details.analyzer.lower_case);
  EXPECT_FALSE(details.analyzer.max_token_length.has_value());
  // Old, blank details mean the defaults.
  ASSERT_OK_AND_ASSIGN(auto blank, DecodeInvertedIndexDetails(""));
  EXPECT_EQ(FtsParamsToJson(blank), FtsParamsToJson(FtsParams{}));
  EXPECT_FALSE(FtsParamsFromJson("[1,2").ok());
  EXPECT_FALSE(DecodeInvertedIndexDetails(std::string("\x0a\x7f", 2)).ok());
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::index::fts
