// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Unit tests of the compressive-encoding decoders with hand-built inputs: FastLanes
// bit-packing (against a scalar reference packer written from the layout in lance-format.md
// §2.3), FSST, RLE, General lz4/zstd framing, Variable block form, ByteStreamSplit, and
// corrupted or truncated inputs, which must fail with Corruption and never read out of bounds.

#include <gtest/gtest.h>
#include <lz4.h>
#include <zstd.h>

#include <cstring>
#include <random>

#include "format/bitpacking.h"
#include "format/fsst.h"
#include "format/general_compression.h"
#include "format/page_decoder.h"

namespace lancedb::format {
namespace LANCEDB_TEST_FILE_NS {

namespace pb = lance::encodings21;

constexpr int kFlOrder[8] = {0, 4, 2, 6, 1, 5, 3, 7};

/// Scalar FastLanes packer: row r of lane l is element FL_ORDER[r/8]*16 + (r%8)*128 + l.
template <typename T>
std::vector<T> Pack(const std::vector<T>& in, int width) {
  constexpr int t = sizeof(T) * 8;
  constexpr int lanes = 1024 / t;
  std::vector<T> out(static_cast<size_t>(1024 * width / t), 0);
  for (int lane = 0; lane < lanes; ++lane) {
    for (int row = 0; row < t; ++row) {
      const uint64_t v = static_cast<uint64_t>(in[kFlOrder[row / 8] * 16 + (row % 8) * 128 + lane]);
      for (int b = 0; b < width; ++b) {
        const int bit = row * width + b;
        if ((v >> b) & 1) out[lanes * (bit / t) + lane] |= static_cast<T>(T{1} << (bit % t));
      }
    }
  }
  return out;
}

template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

template <typename T>
std::vector<T> RandomValues(int width, size_t n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) {
    const uint64_t r = rng();
    x = static_cast<T>(width >= 64 ? r : (r & ((uint64_t{1} << width) - 1)));
  }
  return v;
}

template <typename T>
void CheckInlineRoundTrip() {
  constexpr int t = sizeof(T) * 8;
  for (int width = 0; width <= t; ++width) {
    auto values = RandomValues<T>(width, 1024 + 300, static_cast<uint32_t>(width));
    std::vector<T> block1(values.begin(), values.begin() + 1024);
    std::vector<T> block2(values.begin() + 1024, values.end());
    block2.resize(1024, 0);
    std::vector<T> encoded{static_cast<T>(width)};
    for (T w : Pack(block1, width)) encoded.push_back(w);
    encoded.push_back(static_cast<T>(width));
    for (T w : Pack(block2, width)) encoded.push_back(w);
    std::vector<T> decoded(values.size());
    auto bytes = Bytes(encoded);
    ASSERT_TRUE(DecodeInlineBitpacking(bytes, t, static_cast<int64_t>(values.size()),
                                       reinterpret_cast<uint8_t*>(decoded.data()))
                    .ok());
    EXPECT_EQ(decoded, values) << "word " << t << " width " << width;
  }
}

TEST(Bitpacking, InlineRoundTripsEveryWidth) {
  CheckInlineRoundTrip<uint8_t>();
  CheckInlineRoundTrip<uint16_t>();
  CheckInlineRoundTrip<uint32_t>();
  CheckInlineRoundTrip<uint64_t>();
}

TEST(Bitpacking, OutOfLinePackedAndRawTails) {
  auto values = RandomValues<uint16_t>(3, 2048 + 100, 9);
  std::vector<uint16_t> full(values.begin(), values.begin() + 1024);
  std::vector<uint16_t> full2(values.begin() + 1024, values.begin() + 2048);
  std::vector<uint16_t> encoded = Pack(full, 3);
  for (auto w : Pack(full2, 3)) encoded.push_back(w);
  // Raw tail: the 100 values follow as they are.
  std::vector<uint16_t> raw = encoded;
  raw.insert(raw.end(), values.begin() + 2048, values.end());
  std::vector<uint16_t> decoded(values.size());
  auto bytes = Bytes(raw);
  ASSERT_TRUE(DecodeOutOfLineBitpacking(bytes, 16, 3, static_cast<int64_t>(values.size()),
                                        reinterpret_cast<uint8_t*>(decoded.data()))
                  .ok());
  EXPECT_EQ(decoded, values);
  // Packed tail: padded to 1024 and packed.
  std::vector<uint16_t> tail(values.begin() + 2048, values.end());
  tail.resize(1024, 0);
  std::vector<uint16_t> packed = encoded;
  for (auto w : Pack(tail, 3)) packed.push_back(w);
  bytes = Bytes(packed);
  std::fill(decoded.begin(), decoded.end(), 0);
  ASSERT_TRUE(DecodeOutOfLineBitpacking(bytes, 16, 3, static_cast<int64_t>(values.size()),
                                        reinterpret_cast<uint8_t*>(decoded.data()))
                  .ok());
  EXPECT_EQ(decoded, values);
}

TEST(Bitpacking, RejectsTruncatedAndBadWidths) {
  std::vector<uint32_t> encoded{5};
  encoded.resize(1 + 1024 * 5 / 32);
  auto bytes = Bytes(encoded);
  std::vector<uint32_t> out(1024);
  auto* dst = reinterpret_cast<uint8_t*>(out.data());
  EXPECT_TRUE(DecodeInlineBitpacking(bytes, 32, 1024, dst).ok());
  for (size_t cut : {size_t{0}, size_t{3}, size_t{4}, bytes.size() - 1}) {
    auto st = DecodeInlineBitpacking(std::span(bytes).first(cut), 32, 1024, dst);
    EXPECT_TRUE(st.IsCorruption()) << cut << ": " << st.ToString();
  }
  encoded[0] = 33;
  bytes = Bytes(encoded);
  EXPECT_TRUE(DecodeInlineBitpacking(bytes, 32, 1024, dst).IsCorruption());
  EXPECT_TRUE(DecodeInlineBitpacking(bytes, 24, 1024, dst).IsNotSupported());
  EXPECT_TRUE(
      DecodeOutOfLineBitpacking(std::span(bytes).first(8), 32, 5, 1024, dst).IsCorruption());
  EXPECT_TRUE(DecodeOutOfLineBitpacking(bytes, 32, 40, 10, dst).IsCorruption());
}

std::string SymbolTable(const std::vector<std::string>& symbols, bool enabled) {
  std::string t(8 + 9 * symbols.size(), '\0');
  uint64_t header = (0x46535354ull << 32) | (enabled ? 1ull << 24 : 0) | symbols.size();
  std::memcpy(t.data(), &header, 8);
  for (size_t i = 0; i < symbols.size(); ++i) {
    std::memcpy(t.data() + 8 + 8 * i, symbols[i].data(), symbols[i].size());
    t[8 + 8 * symbols.size() + i] = static_cast<char>(symbols[i].size());
  }
  return t;
}

LeafValues Strings(const std::vector<std::string>& values) {
  LeafValues v;
  v.kind = ValueKind::kVariable;
  v.offsets = {0};
  for (const auto& s : values) {
    v.data.insert(v.data.end(), s.begin(), s.end());
    v.offsets.push_back(static_cast<int64_t>(v.data.size()));
  }
  v.num_values = static_cast<int64_t>(values.size());
  return v;
}

std::vector<std::string> ToStrings(const LeafValues& v) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < v.num_values; ++i) {
    out.emplace_back(v.data.begin() + v.offsets[i], v.data.begin() + v.offsets[i + 1]);
  }
  return out;
}

TEST(Fsst, DecodesSymbolsAndEscapes) {
  auto fsst = FsstDecoder::Make(SymbolTable({"hello", " ", "world!!!"}, true));
  ASSERT_TRUE(fsst.ok());
  LeafValues out = Strings({});
  auto in = Strings({std::string("\x00\x01\x02", 3), "", std::string("\xff\x41\x00\xff\xff", 5)});
  ASSERT_TRUE(fsst->Decode(in, &out).ok());
  EXPECT_EQ(ToStrings(out), (std::vector<std::string>{"hello world!!!", "", "Ahello\xff"}));
}

TEST(Fsst, SwitchedOffCopiesValues) {
  auto fsst = FsstDecoder::Make(SymbolTable({"xyz"}, false));
  ASSERT_TRUE(fsst.ok());
  LeafValues out = Strings({});
  ASSERT_TRUE(fsst->Decode(Strings({"\xff\x01", "ab"}), &out).ok());
  EXPECT_EQ(ToStrings(out), (std::vector<std::string>{"\xff\x01", "ab"}));
}

TEST(Fsst, RejectsBadTablesAndDanglingEscapes) {
  EXPECT_TRUE(FsstDecoder::Make("FSST").status().IsCorruption());
  EXPECT_TRUE(FsstDecoder::Make(std::string(2312, '\0')).status().IsCorruption());
  std::string t = SymbolTable({"ab", "cd"}, true);
  EXPECT_TRUE(FsstDecoder::Make(t.substr(0, t.size() - 1)).status().IsCorruption());
  auto fsst = FsstDecoder::Make(t);
  ASSERT_TRUE(fsst.ok());
  LeafValues out = Strings({});
  // The escape at the end of the first value must not consume the second value.
  EXPECT_TRUE(fsst->Decode(Strings({std::string("\x00\xff", 2), "\x01"}), &out).IsCorruption());
}

/// A mini-block Variable chunk: (n + 1) u32 offsets relative to the chunk, then the bytes.
std::vector<uint8_t> VariableChunk(const std::vector<std::string>& values) {
  std::vector<uint32_t> offsets{static_cast<uint32_t>((values.size() + 1) * 4)};
  for (const auto& v : values) offsets.push_back(offsets.back() + static_cast<uint32_t>(v.size()));
  std::vector<uint8_t> chunk(offsets.size() * 4);
  std::memcpy(chunk.data(), offsets.data(), chunk.size());
  for (const auto& v : values) chunk.insert(chunk.end(), v.begin(), v.end());
  return chunk;
}

TEST(Fsst, DecodesChunkOffsetsInPlaceWithEscapesAtEveryPosition) {
  auto fsst = FsstDecoder::Make(SymbolTable({"ab", "cdefghij", "k"}, true));
  ASSERT_TRUE(fsst.ok());
  // Escapes at every position of the four-code blocks, and values of 0 to 9 codes.
  std::vector<std::string> codes;
  std::vector<std::string> expected;
  for (int len = 0; len < 10; ++len) {
    for (int esc = -1; esc < len; ++esc) {
      std::string c;
      std::string e;
      for (int i = 0; i < len; ++i) {
        if (i == esc) {
          c += "\xff";
          c += static_cast<char>('A' + i);
          e += static_cast<char>('A' + i);
        } else {
          c += static_cast<char>(i % 3);
          e += i % 3 == 0 ? "ab" : i % 3 == 1 ? "cdefghij" : "k";
        }
      }
      codes.push_back(c);
      expected.push_back(e);
    }
  }
  auto chunk = VariableChunk(codes);
  LeafValues out = Strings({"x"});
  std::vector<uint8_t> scratch;
  ASSERT_TRUE(
      fsst->DecodeRaw(chunk.data(), 4, chunk, static_cast<int64_t>(codes.size()), &out, &scratch)
          .ok());
  expected.insert(expected.begin(), "x");
  EXPECT_EQ(ToStrings(out), expected);
  LeafValues whole = Strings({"x"});
  ASSERT_TRUE(fsst->Decode(Strings(codes), &whole).ok());
  EXPECT_EQ(ToStrings(whole), expected);
}

TEST(Fsst, RejectsChunkOffsetsOutOfOrderOrBounds) {
  auto fsst = FsstDecoder::Make(SymbolTable({"ab"}, true));
  ASSERT_TRUE(fsst.ok());
  // Offsets 12, 14, 15: two codes, then one.
  auto chunk = VariableChunk({std::string(2, '\0'), std::string(1, '\0')});
  auto swapped = chunk;
  const uint32_t past_next = 16;  // the first value ends after the second one
  std::memcpy(swapped.data() + 4, &past_next, 4);
  LeafValues out = Strings({"kept"});
  EXPECT_TRUE(fsst->DecodeRaw(swapped.data(), 4, swapped, 2, &out, nullptr).IsCorruption());
  EXPECT_EQ(ToStrings(out), std::vector<std::string>{"kept"});
  auto beyond = chunk;
  const uint32_t far = 1000;
  std::memcpy(beyond.data() + 8, &far, 4);
  EXPECT_TRUE(fsst->DecodeRaw(beyond.data(), 4, beyond, 2, &out, nullptr).IsCorruption());
  std::vector<uint8_t> scratch;
  auto dangling = VariableChunk({std::string("\x00\xff", 2), std::string(1, '\0')});
  EXPECT_TRUE(fsst->DecodeRaw(dangling.data(), 4, dangling, 2, &out, &scratch).IsCorruption());
  EXPECT_EQ(ToStrings(out), std::vector<std::string>{"kept"});
}

std::vector<uint8_t> Lz4Frame(const std::vector<uint8_t>& plain) {
  std::vector<uint8_t> out(4 + LZ4_compressBound(static_cast<int>(plain.size())));
  uint32_t size = static_cast<uint32_t>(plain.size());
  std::memcpy(out.data(), &size, 4);
  int n = LZ4_compress_default(reinterpret_cast<const char*>(plain.data()),
                               reinterpret_cast<char*>(out.data() + 4),
                               static_cast<int>(plain.size()), static_cast<int>(out.size() - 4));
  out.resize(4 + static_cast<size_t>(n));
  return out;
}

std::vector<uint8_t> ZstdFrame(const std::vector<uint8_t>& plain, bool prefix) {
  std::vector<uint8_t> out(8 + ZSTD_compressBound(plain.size()));
  uint64_t size = plain.size();
  std::memcpy(out.data(), &size, 8);
  size_t n = ZSTD_compress(out.data() + 8, out.size() - 8, plain.data(), plain.size(), 3);
  out.resize(8 + n);
  if (!prefix) out.erase(out.begin(), out.begin() + 8);
  return out;
}

TEST(GeneralCompression, Lz4AndZstdFramings) {
  std::vector<uint8_t> plain(10000);
  for (size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<uint8_t>(i % 97);
  for (const auto& [scheme, frame] :
       {std::pair{pb::COMPRESSION_ALGORITHM_LZ4, Lz4Frame(plain)},
        std::pair{pb::COMPRESSION_ALGORITHM_ZSTD, ZstdFrame(plain, true)},
        std::pair{pb::COMPRESSION_ALGORITHM_ZSTD, ZstdFrame(plain, false)}}) {
    std::vector<uint8_t> out;
    ASSERT_TRUE(DecompressGeneral(scheme, frame, &out).ok());
    EXPECT_EQ(out, plain);
    for (size_t cut : {size_t{2}, frame.size() / 2, frame.size() - 1}) {
      std::vector<uint8_t> partial;
      auto st = DecompressGeneral(scheme, std::span(frame).first(cut), &partial);
      EXPECT_TRUE(st.IsCorruption()) << cut << ": " << st.ToString();
    }
  }
  std::vector<uint8_t> out;
  EXPECT_TRUE(
      DecompressGeneral(pb::COMPRESSION_ALGORITHM_UNSPECIFIED, plain, &out).IsNotSupported());
}

pb::CompressiveEncoding Flat(int bits) {
  pb::CompressiveEncoding e;
  e.mutable_flat()->set_bits_per_value(static_cast<uint64_t>(bits));
  return e;
}

TEST(BlockDecoders, RleBlockForm) {
  pb::CompressiveEncoding e;
  *e.mutable_rle()->mutable_values() = Flat(16);
  *e.mutable_rle()->mutable_run_lengths() = Flat(8);
  auto decoder = ValueDecoderRegistry::Default().MakeBlock(e, FixedLayout(16));
  ASSERT_TRUE(decoder.ok());
  std::vector<uint8_t> block = {4, 0, 0, 0, 0, 0, 0, 0, 7, 0, 1, 0, 3, 2};
  LeafValues out = FixedLayout(16);
  ASSERT_TRUE((*decoder)(block, 5, &out).ok());
  std::vector<uint16_t> levels(5);
  std::memcpy(levels.data(), out.data.data(), 10);
  EXPECT_EQ(levels, (std::vector<uint16_t>{7, 7, 7, 1, 1}));
  LeafValues again = FixedLayout(16);
  EXPECT_TRUE((*decoder)(block, 6, &again).IsCorruption());
  block[0] = 200;
  EXPECT_TRUE((*decoder)(block, 5, &again).IsCorruption());
}

TEST(BlockDecoders, VariableBlockAndGeneralLz4) {
  // u32 bits_per_offset, u32 bytes_start, offsets relative to the bytes, then the bytes.
  std::vector<uint32_t> header = {32, 8 + 4 * 4, 0, 3, 3, 8};
  std::vector<uint8_t> block = Bytes(header);
  for (char c : std::string("abcdefgh")) block.push_back(static_cast<uint8_t>(c));
  pb::CompressiveEncoding var;
  *var.mutable_variable()->mutable_offsets() = Flat(32);
  LeafValues layout = Strings({});
  auto decoder = ValueDecoderRegistry::Default().MakeBlock(var, layout);
  ASSERT_TRUE(decoder.ok());
  LeafValues out = layout;
  ASSERT_TRUE((*decoder)(block, 3, &out).ok());
  EXPECT_EQ(ToStrings(out), (std::vector<std::string>{"abc", "", "defgh"}));

  pb::CompressiveEncoding general;
  general.mutable_general()->mutable_compression()->set_scheme(pb::COMPRESSION_ALGORITHM_LZ4);
  *general.mutable_general()->mutable_values() = var;
  auto wrapped = ValueDecoderRegistry::Default().MakeBlock(general, layout);
  ASSERT_TRUE(wrapped.ok());
  LeafValues out2 = layout;
  ASSERT_TRUE((*wrapped)(Lz4Frame(block), 3, &out2).ok());
  EXPECT_EQ(ToStrings(out2), ToStrings(out));

  block[8 + 12] = 99;  // third end offset past the bytes
  LeafValues bad = layout;
  EXPECT_TRUE((*decoder)(block, 3, &bad).IsCorruption());
  EXPECT_TRUE((*decoder)(std::span(block).first(12), 3, &bad).IsCorruption());
}

TEST(ChunkDecoders, RleAndByteStreamSplit) {
  pb::CompressiveEncoding rle;
  *rle.mutable_rle()->mutable_values() = Flat(32);
  *rle.mutable_rle()->mutable_run_lengths() = Flat(8);
  auto decoder = ValueDecoderRegistry::Default().Make(rle, FixedLayout(32));
  ASSERT_TRUE(decoder.ok());
  std::vector<uint8_t> values = Bytes(std::vector<uint32_t>{5, 9});
  std::vector<uint8_t> lengths = {255, 3};
  std::vector<std::span<const uint8_t>> buffers = {values, lengths};
  LeafValues out = FixedLayout(32);
  ASSERT_TRUE((*decoder)(buffers, 258, &out).ok());
  EXPECT_EQ(out.num_values, 258);
  uint32_t last;
  std::memcpy(&last, out.data.data() + 257 * 4, 4);
  EXPECT_EQ(last, 9u);
  EXPECT_TRUE((*decoder)(buffers, 300, &out).IsCorruption());
  EXPECT_TRUE((*decoder)(std::span(buffers).first(1), 3, &out).IsCorruption());

  pb::CompressiveEncoding bss;
  *bss.mutable_byte_stream_split()->mutable_values() = Flat(16);
  auto split = ValueDecoderRegistry::Default().Make(bss, FixedLayout(16));
  ASSERT_TRUE(split.ok());
  std::vector<uint8_t> planes = {0x01, 0x02, 0x03, 0xA1, 0xA2, 0xA3};
  std::vector<std::span<const uint8_t>> one = {planes};
  LeafValues s = FixedLayout(16);
  ASSERT_TRUE((*split)(one, 3, &s).ok());
  EXPECT_EQ(s.data, (std::vector<uint8_t>{0x01, 0xA1, 0x02, 0xA2, 0x03, 0xA3}));
  EXPECT_TRUE((*split)(one, 4, &s).IsCorruption());
}

TEST(ChunkDecoders, UnknownEncodingsAreNotSupported) {
  pb::CompressiveEncoding packed;
  packed.mutable_packed_struct();
  EXPECT_TRUE(
      ValueDecoderRegistry::Default().Make(packed, FixedLayout(32)).status().IsNotSupported());
  pb::CompressiveEncoding none;
  EXPECT_TRUE(
      ValueDecoderRegistry::Default().MakeBlock(none, FixedLayout(16)).status().IsNotSupported());
  // Inline bit-packing of 32-bit words cannot fill a 64-bit column.
  pb::CompressiveEncoding inl;
  inl.mutable_inline_bitpacking()->set_uncompressed_bits_per_value(32);
  EXPECT_TRUE(ValueDecoderRegistry::Default().Make(inl, FixedLayout(64)).status().IsNotSupported());
}

TEST(Levels, OutOfLineBitpackedLevels) {
  pb::CompressiveEncoding e;
  e.mutable_out_of_line_bitpacking()->set_uncompressed_bits_per_value(16);
  *e.mutable_out_of_line_bitpacking()->mutable_values() = Flat(1);
  std::vector<uint16_t> levels(1024);
  for (size_t i = 0; i < levels.size(); ++i) levels[i] = (i % 3 == 0) ? 1 : 0;
  auto bytes = Bytes(Pack(levels, 1));
  std::vector<uint16_t> out;
  ASSERT_TRUE(DecodeLevels(e, bytes, 700, &out).ok());
  EXPECT_EQ(out, std::vector<uint16_t>(levels.begin(), levels.begin() + 700));
  out.clear();
  EXPECT_TRUE(DecodeLevels(e, std::span(bytes).first(10), 700, &out).IsCorruption());
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::format
