// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/fts/fst_map.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "common/test_dirs.h"

namespace lancedb::index::fts {
namespace LANCEDB_TEST_FILE_NS {

using Entries = std::vector<std::pair<std::string, uint64_t>>;

/// The token dictionaries written by tools/gen_fst_testdata.py.
std::filesystem::path TestData(const std::string& name) {
  return testdirs::SourceDir() / "src/index/fts/testdata" / name;
}

std::vector<uint8_t> ReadBytes(const std::string& name) {
  std::ifstream in(TestData(name), std::ios::binary);
  EXPECT_TRUE(in.good()) << TestData(name);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The expected (token, id) pairs of `<name>.tokens.tsv`, sorted by token bytes.
Entries ReadExpected(const std::string& name) {
  std::ifstream in(TestData(name + ".tokens.tsv"));
  EXPECT_TRUE(in.good()) << TestData(name + ".tokens.tsv");
  Entries entries;
  std::string line;
  while (std::getline(in, line)) {
    const size_t tab = line.find('\t');
    EXPECT_NE(tab, std::string::npos) << line;
    entries.emplace_back(line.substr(0, tab), std::stoull(line.substr(tab + 1)));
  }
  std::sort(entries.begin(), entries.end());
  return entries;
}

void WriteU64(std::vector<uint8_t>& bytes, size_t at, uint64_t value) {
  for (int i = 0; i < 8; ++i) bytes[at + i] = static_cast<uint8_t>(value >> (8 * i));
}

/// Recompute the trailing checksum of a version 3 fst after an edit.
void Reseal(std::vector<uint8_t>& bytes) {
  const uint32_t sum = FstChecksum(std::span(bytes).first(bytes.size() - 4));
  std::memcpy(bytes.data() + bytes.size() - 4, &sum, 4);  // little-endian host
}

void ExpectDecodes(const std::string& name) {
  const std::vector<uint8_t> bytes = ReadBytes(name + ".fst");
  const Entries expected = ReadExpected(name);
  auto decoded = DecodeFstMap(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, expected);
}

TEST(FstMap, DecodesTinyDictionary) { ExpectDecodes("tiny"); }

TEST(FstMap, DecodesLargeDictionaryWithNonAsciiAndWideNodes) {
  ExpectDecodes("large");
  const Entries expected = ReadExpected("large");
  EXPECT_EQ(expected.size(), 2100u);
  EXPECT_TRUE(std::any_of(expected.begin(), expected.end(),
                          [](const auto& e) { return e.first == "k\xE4\xB8\xBF"; }));
}

TEST(FstMap, DecodesEmptyMapAndEmptyKey) {
  auto empty = DecodeFstMap(ReadBytes("empty_map.fst"));
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_TRUE(empty->empty());
  auto empty_key = DecodeFstMap(ReadBytes("empty_key.fst"));
  ASSERT_TRUE(empty_key.ok()) << empty_key.status().ToString();
  EXPECT_EQ(*empty_key, (Entries{{"", 0}}));
  auto got = FstMapGet(ReadBytes("empty_key.fst"), "");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, std::optional<uint64_t>(0));
}

TEST(FstMap, GetFindsEveryKeyAndNothingElse) {
  const std::vector<uint8_t> bytes = ReadBytes("large.fst");
  const Entries expected = ReadExpected("large");
  for (const auto& [token, id] : expected) {
    auto got = FstMapGet(bytes, token);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, std::optional<uint64_t>(id)) << token;
  }
  for (const std::string absent : {"", "k", "w", "zzz", "data", "k\xE4\xB8", "wab", "\xFF"}) {
    auto got = FstMapGet(bytes, absent);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_FALSE(got->has_value()) << absent;
  }
}

TEST(FstMap, ChecksumMatchesTheOneLanceWrote) {
  const std::vector<uint8_t> bytes = ReadBytes("tiny.fst");
  std::vector<uint8_t> resealed = bytes;
  Reseal(resealed);
  EXPECT_EQ(resealed, bytes);
}

TEST(FstMap, ChecksumMismatchIsCorruption) {
  std::vector<uint8_t> bytes = ReadBytes("tiny.fst");
  bytes[20] ^= 0x01;
  auto decoded = DecodeFstMap(bytes);
  ASSERT_TRUE(decoded.status().IsCorruption()) << decoded.status().ToString();
  EXPECT_NE(decoded.status().message().find("checksum"), std::string::npos);
  EXPECT_TRUE(FstMapGet(bytes, "hello").status().IsCorruption());
}

TEST(FstMap, TruncatedBytesAreCorruption) {
  const std::vector<uint8_t> bytes = ReadBytes("tiny.fst");
  for (size_t size = 0; size < bytes.size(); ++size) {
    auto decoded = DecodeFstMap(std::span(bytes).first(size));
    EXPECT_TRUE(decoded.status().IsCorruption()) << size << ": " << decoded.status().ToString();
  }
}

TEST(FstMap, BadVersionOrTypeIsCorruption) {
  const std::vector<uint8_t> original = ReadBytes("tiny.fst");
  for (const auto& [at, value, word] : {std::tuple<size_t, uint64_t, std::string>{0, 4, "version"},
                                        {0, 0, "version"},
                                        {8, 1, "type"}}) {
    std::vector<uint8_t> bytes = original;
    WriteU64(bytes, at, value);
    Reseal(bytes);
    auto decoded = DecodeFstMap(bytes);
    ASSERT_TRUE(decoded.status().IsCorruption()) << decoded.status().ToString();
    EXPECT_NE(decoded.status().message().find(word), std::string::npos)
        << decoded.status().ToString();
  }
}

TEST(FstMap, WrongFooterIsCorruption) {
  const std::vector<uint8_t> original = ReadBytes("tiny.fst");
  const size_t footer = original.size() - 20;
  const uint64_t root = original.size() - 21;
  for (const auto& [at, value, word] :
       {std::tuple<size_t, uint64_t, std::string>{footer, 9, "more keys"},
        {footer, 11, "footer counts 11"},
        {footer + 8, root - 1, "root"},
        {footer + 8, 1u << 30, "root"}}) {
    std::vector<uint8_t> bytes = original;
    WriteU64(bytes, at, value);
    Reseal(bytes);
    auto decoded = DecodeFstMap(bytes);
    ASSERT_TRUE(decoded.status().IsCorruption()) << decoded.status().ToString();
    EXPECT_NE(decoded.status().message().find(word), std::string::npos)
        << decoded.status().ToString();
  }
}

TEST(FstMap, ReadsVersionsWithoutChecksum) {
  // Versions 1 and 2 end at the root address; version 1 has no transition index, so only maps
  // without nodes of more than 32 transitions read the same in it.
  for (const auto& [name, version] :
       {std::pair<std::string, uint64_t>{"tiny", 1}, {"tiny", 2}, {"large", 2}}) {
    std::vector<uint8_t> bytes = ReadBytes(name + ".fst");
    bytes.erase(bytes.end() - 4, bytes.end());  // the checksum
    WriteU64(bytes, 0, version);
    auto decoded = DecodeFstMap(bytes);
    ASSERT_TRUE(decoded.ok()) << name << " v" << version << ": " << decoded.status().ToString();
    EXPECT_EQ(*decoded, ReadExpected(name));
  }
}

/// Flip random bytes (resealing the checksum so the nodes are parsed): every outcome is a map of
/// ascending keys or Corruption, never a crash or out-of-bounds read (run under ASan).
TEST(FstMap, RandomMutationsNeverCrash) {
  std::mt19937_64 rng(42);
  const std::vector<std::vector<uint8_t>> originals = {ReadBytes("tiny.fst"),
                                                       ReadBytes("large.fst")};
  int decoded_ok = 0;
  for (int iteration = 0; iteration < 4000; ++iteration) {
    std::vector<uint8_t> bytes = originals[iteration % 2 == 0 || iteration % 7 == 0 ? 0 : 1];
    const int num_flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < num_flips; ++f) {
      bytes[rng() % bytes.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
    }
    if (rng() % 8 != 0) Reseal(bytes);
    auto decoded = DecodeFstMap(bytes);
    if (decoded.ok()) {
      ++decoded_ok;
      EXPECT_TRUE(std::is_sorted(decoded->begin(), decoded->end()));
      for (size_t i = 0; i < decoded->size(); i += 97) {
        auto got = FstMapGet(bytes, (*decoded)[i].first);
        ASSERT_TRUE(got.ok()) << got.status().ToString();
        EXPECT_EQ(*got, std::optional<uint64_t>((*decoded)[i].second));
      }
    } else {
      EXPECT_TRUE(decoded.status().IsCorruption()) << decoded.status().ToString();
    }
    auto got = FstMapGet(bytes, "hello");
    EXPECT_TRUE(got.ok() || got.status().IsCorruption()) << got.status().ToString();
  }
  // Flips of output bytes keep a valid shape: some mutants decode.
  EXPECT_GT(decoded_ok, 0);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::index::fts
