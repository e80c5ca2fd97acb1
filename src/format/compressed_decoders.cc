// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Decoders of the compressing encodings (lance-format.md §2.3), in chunk and block form:
//   InlineBitpacking(bits): blocks of [width word][FastLanes words] (bitpacking.h);
//   OutOfLineBitpacking(bits, Flat(width)): block form only, raw or packed tail;
//   Rle(Flat(bits), Flat(8)): chunk form = two buffers (run values, u8 run lengths);
//     block form = [u64 byte length of the values][values][u8 run lengths];
//   General(scheme, inner): chunk form = the chunk's first buffer compressed; block form = the
//     whole buffer compressed (general_compression.h);
//   Fsst(symbol table, Variable): each value of the Variable chunk is expanded in place.
// Decoders that need scratch space own it (they are made per page and used by one thread).

#include <algorithm>
#include <cstring>
#include <memory>

#include "format/bitpacking.h"
#include "format/fsst.h"
#include "format/general_compression.h"
#include "format/page_decoder.h"

namespace lancedb::format {

namespace pb = lance::encodings21;

namespace {

using Buffers = std::span<const std::span<const uint8_t>>;

Status NeedWordLayout(const LeafValues& layout, uint64_t bits, const pb::CompressiveEncoding& e) {
  if (layout.kind != ValueKind::kFixed || static_cast<uint64_t>(layout.bits_per_value) != bits ||
      (bits != 8 && bits != 16 && bits != 32 && bits != 64)) {
    return Status::NotSupported("Encoding " + EncodingName(e) + " of " + std::to_string(bits) +
                                "-bit words for a column of " +
                                std::to_string(layout.bits_per_value) + "-bit values");
  }
  return Status::OK();
}

Status NeedBufferCount(Buffers buffers, size_t n) {
  if (buffers.size() != n) {
    return Status::Corruption("Chunk has " + std::to_string(buffers.size()) +
                              " value buffers, expected " + std::to_string(n));
  }
  return Status::OK();
}

// ---- bit-packing -------------------------------------------------------------------------------

Status AppendInline(std::span<const uint8_t> bytes, int64_t num_values, LeafValues* out) {
  // Every block of 1024 values starts with a width word.
  const int64_t max_blocks = static_cast<int64_t>(bytes.size()) / (out->bits_per_value / 8);
  if (num_values < 0 || num_values > max_blocks * kFastLanesBlock) {
    return Status::Corruption("Bit-packed buffer of " + std::to_string(bytes.size()) +
                              " bytes cannot hold " + std::to_string(num_values) + " values");
  }
  const size_t start = out->data.size();
  uint8_t* dst = GrowFixed(out, num_values);
  Status st = DecodeInlineBitpacking(bytes, static_cast<int>(out->bits_per_value), num_values, dst);
  if (!st.ok()) {
    out->data.resize(start);
    out->num_values -= num_values;
  }
  return st;
}

Result<ChunkValueDecoder> MakeInline(const pb::CompressiveEncoding& e, const LeafValues& layout) {
  LANCEDB_RETURN_NOT_OK(
      NeedWordLayout(layout, e.inline_bitpacking().uncompressed_bits_per_value(), e));
  if (e.inline_bitpacking().has_values()) {
    return Status::NotSupported("inline bit-packing with compressed values");
  }
  return ChunkValueDecoder([](Buffers buffers, int64_t num_values, LeafValues* out) -> Status {
    LANCEDB_RETURN_NOT_OK(NeedBufferCount(buffers, 1));
    return AppendInline(buffers[0], num_values, out);
  });
}

Result<BlockValueDecoder> MakeInlineBlock(const pb::CompressiveEncoding& e,
                                          const LeafValues& layout) {
  LANCEDB_RETURN_NOT_OK(
      NeedWordLayout(layout, e.inline_bitpacking().uncompressed_bits_per_value(), e));
  return BlockValueDecoder(AppendInline);
}

Result<BlockValueDecoder> MakeOutOfLineBlock(const pb::CompressiveEncoding& e,
                                             const LeafValues& layout) {
  const auto& ool = e.out_of_line_bitpacking();
  LANCEDB_RETURN_NOT_OK(NeedWordLayout(layout, ool.uncompressed_bits_per_value(), e));
  if (!ool.values().has_flat() || ool.values().flat().has_data() ||
      ool.values().flat().bits_per_value() > ool.uncompressed_bits_per_value()) {
    return Status::NotSupported("out-of-line bit-packing over " + EncodingName(ool.values()));
  }
  const int width = static_cast<int>(ool.values().flat().bits_per_value());
  return BlockValueDecoder(
      [width](std::span<const uint8_t> bytes, int64_t num_values, LeafValues* out) -> Status {
        // Width 0 packs nothing: the count is bounded by the caller (levels per chunk/page).
        const int64_t max_values =
            width == 0 ? kMaxBlockValues
                       : static_cast<int64_t>(bytes.size()) * 8 / width + kFastLanesBlock;
        if (num_values < 0 || num_values > max_values) {
          return Status::Corruption("Bit-packed buffer of " + std::to_string(bytes.size()) +
                                    " bytes cannot hold " + std::to_string(num_values) + " values");
        }
        const size_t start = out->data.size();
        uint8_t* dst = GrowFixed(out, num_values);
        Status st = DecodeOutOfLineBitpacking(bytes, static_cast<int>(out->bits_per_value), width,
                                              num_values, dst);
        if (!st.ok()) {
          out->data.resize(start);
          out->num_values -= num_values;
        }
        return st;
      });
}

// ---- run-length encoding -----------------------------------------------------------------------

template <typename T>
Status ExpandRuns(std::span<const uint8_t> values, std::span<const uint8_t> lengths,
                  int64_t num_values, uint8_t* out) {
  const size_t runs = values.size() / sizeof(T);
  if (values.size() % sizeof(T) != 0 || lengths.size() < runs) {
    return Status::Corruption("RLE buffers hold " + std::to_string(values.size()) +
                              " value bytes and " + std::to_string(lengths.size()) + " lengths");
  }
  int64_t pos = 0;
  for (size_t r = 0; r < runs && pos < num_values; ++r) {
    T v;
    std::memcpy(&v, values.data() + r * sizeof(T), sizeof(T));
    const int64_t n = std::min<int64_t>(lengths[r], num_values - pos);
    for (int64_t i = 0; i < n; ++i) std::memcpy(out + (pos + i) * sizeof(T), &v, sizeof(T));
    pos += n;
  }
  if (pos != num_values) {
    return Status::Corruption("RLE runs hold " + std::to_string(pos) + " values, expected " +
                              std::to_string(num_values));
  }
  return Status::OK();
}

Status AppendRuns(std::span<const uint8_t> values, std::span<const uint8_t> lengths,
                  int64_t num_values, LeafValues* out) {
  // Each run is at most 255 values long and has a length byte.
  if (num_values < 0 || num_values > static_cast<int64_t>(lengths.size()) * 255) {
    return Status::Corruption("RLE buffer of " + std::to_string(lengths.size()) +
                              " run lengths cannot hold " + std::to_string(num_values) + " values");
  }
  const size_t start = out->data.size();
  uint8_t* dst = GrowFixed(out, num_values);
  Status st;
  switch (out->bits_per_value) {
    case 8:
      st = ExpandRuns<uint8_t>(values, lengths, num_values, dst);
      break;
    case 16:
      st = ExpandRuns<uint16_t>(values, lengths, num_values, dst);
      break;
    case 32:
      st = ExpandRuns<uint32_t>(values, lengths, num_values, dst);
      break;
    default:
      st = ExpandRuns<uint64_t>(values, lengths, num_values, dst);
      break;
  }
  if (!st.ok()) {
    out->data.resize(start);
    out->num_values -= num_values;
  }
  return st;
}

Status CheckRle(const pb::CompressiveEncoding& e, const LeafValues& layout) {
  const auto& rle = e.rle();
  if (!rle.values().has_flat() || rle.values().flat().has_data() || !rle.run_lengths().has_flat() ||
      rle.run_lengths().flat().bits_per_value() != 8) {
    return Status::NotSupported("RLE over " + EncodingName(rle.values()) + " and " +
                                EncodingName(rle.run_lengths()));
  }
  return NeedWordLayout(layout, rle.values().flat().bits_per_value(), e);
}

Result<ChunkValueDecoder> MakeRle(const pb::CompressiveEncoding& e, const LeafValues& layout) {
  LANCEDB_RETURN_NOT_OK(CheckRle(e, layout));
  return ChunkValueDecoder([](Buffers buffers, int64_t num_values, LeafValues* out) -> Status {
    LANCEDB_RETURN_NOT_OK(NeedBufferCount(buffers, 2));
    return AppendRuns(buffers[0], buffers[1], num_values, out);
  });
}

Result<BlockValueDecoder> MakeRleBlock(const pb::CompressiveEncoding& e, const LeafValues& layout) {
  LANCEDB_RETURN_NOT_OK(CheckRle(e, layout));
  return BlockValueDecoder(
      [](std::span<const uint8_t> bytes, int64_t num_values, LeafValues* out) -> Status {
        if (num_values == 0) return Status::OK();
        if (bytes.size() < 8) return Status::Corruption("RLE block is truncated");
        uint64_t values_len = 0;
        std::memcpy(&values_len, bytes.data(), 8);
        if (values_len > bytes.size() - 8) {
          return Status::Corruption("RLE block values out of bounds");
        }
        return AppendRuns(bytes.subspan(8, static_cast<size_t>(values_len)),
                          bytes.subspan(8 + static_cast<size_t>(values_len)), num_values, out);
      });
}

// ---- general compression -----------------------------------------------------------------------

Status CheckGeneral(const pb::CompressiveEncoding& e) {
  if (!e.general().has_compression() || !e.general().has_values()) {
    return Status::Corruption("General encoding without a scheme or inner encoding");
  }
  return Status::OK();
}

Result<ChunkValueDecoder> MakeGeneral(const pb::CompressiveEncoding& e, const LeafValues& layout) {
  LANCEDB_RETURN_NOT_OK(CheckGeneral(e));
  LANCEDB_ASSIGN_OR_RETURN(ChunkValueDecoder inner,
                           ValueDecoderRegistry::Default().Make(e.general().values(), layout));
  auto scratch = std::make_shared<std::vector<uint8_t>>();
  const auto scheme = e.general().compression().scheme();
  return ChunkValueDecoder([inner = std::move(inner), scratch, scheme](
                               Buffers buffers, int64_t num_values, LeafValues* out) -> Status {
    if (buffers.empty()) return Status::Corruption("General chunk without buffers");
    scratch->clear();
    uint64_t limit = DefaultDecompressionLimit(buffers[0].size());
    if (out->kind == ValueKind::kFixed && num_values >= 0) {
      // Flat, bit-packed (padded to 1024-value blocks plus a width word) or RLE values.
      const uint64_t width = static_cast<uint64_t>((out->bits_per_value + 7) / 8);
      limit = std::min(
          limit, (static_cast<uint64_t>(num_values) + 2 * kFastLanesBlock) * width * 2 + 4096);
    }
    LANCEDB_RETURN_NOT_OK(DecompressGeneral(scheme, buffers[0], scratch.get(), limit));
    std::vector<std::span<const uint8_t>> plain(buffers.begin(), buffers.end());
    plain[0] = *scratch;
    return inner(plain, num_values, out);
  });
}

Result<BlockValueDecoder> MakeGeneralBlock(const pb::CompressiveEncoding& e,
                                           const LeafValues& layout) {
  LANCEDB_RETURN_NOT_OK(CheckGeneral(e));
  LANCEDB_ASSIGN_OR_RETURN(BlockValueDecoder inner,
                           ValueDecoderRegistry::Default().MakeBlock(e.general().values(), layout));
  const auto scheme = e.general().compression().scheme();
  return BlockValueDecoder([inner = std::move(inner), scheme](std::span<const uint8_t> bytes,
                                                              int64_t num_values,
                                                              LeafValues* out) -> Status {
    std::vector<uint8_t> plain;
    LANCEDB_RETURN_NOT_OK(DecompressGeneral(scheme, bytes, &plain));
    return inner(plain, num_values, out);
  });
}

// ---- FSST --------------------------------------------------------------------------------------

Result<ChunkValueDecoder> MakeFsst(const pb::CompressiveEncoding& e, const LeafValues& layout) {
  if (layout.kind != ValueKind::kVariable) {
    return Status::NotSupported("FSST for a fixed-width column");
  }
  LANCEDB_ASSIGN_OR_RETURN(FsstDecoder fsst, FsstDecoder::Make(e.fsst().symbol_table()));
  const auto& values = e.fsst().values();
  const auto& offsets = values.variable().offsets();
  if (values.has_variable() && !values.variable().has_values() && offsets.has_flat() &&
      !offsets.flat().has_data() &&
      (offsets.flat().bits_per_value() == 32 || offsets.flat().bits_per_value() == 64)) {
    // Plain Variable codes: expand them straight from the chunk, (n + 1) offsets then bytes.
    const int width = static_cast<int>(offsets.flat().bits_per_value() / 8);
    auto scratch = std::make_shared<std::vector<uint8_t>>();
    return ChunkValueDecoder([fsst, width, scratch](Buffers buffers, int64_t num_values,
                                                    LeafValues* out) -> Status {
      if (buffers.size() != 1) {
        return Status::Corruption("Chunk has " + std::to_string(buffers.size()) +
                                  " value buffers, expected 1");
      }
      const auto buf = buffers[0];
      if (num_values < 0 || num_values >= static_cast<int64_t>(buf.size()) / width) {
        return Status::Corruption("Variable chunk of " + std::to_string(buf.size()) +
                                  " bytes cannot hold " + std::to_string(num_values) + " offsets");
      }
      return fsst.DecodeRaw(buf.data(), width, buf, num_values, out, scratch.get());
    });
  }
  LANCEDB_ASSIGN_OR_RETURN(ChunkValueDecoder inner,
                           ValueDecoderRegistry::Default().Make(e.fsst().values(), layout));
  auto scratch = std::make_shared<LeafValues>(layout);
  return ChunkValueDecoder([inner = std::move(inner), scratch, fsst](
                               Buffers buffers, int64_t num_values, LeafValues* out) -> Status {
    scratch->Clear();
    LANCEDB_RETURN_NOT_OK(inner(buffers, num_values, scratch.get()));
    return fsst.Decode(*scratch, out);
  });
}

}  // namespace

void RegisterCompressedDecoders(ValueDecoderRegistry* r) {
  r->Register(pb::CompressiveEncoding::kInlineBitpacking, MakeInline);
  r->Register(pb::CompressiveEncoding::kRle, MakeRle);
  r->Register(pb::CompressiveEncoding::kGeneral, MakeGeneral);
  r->Register(pb::CompressiveEncoding::kFsst, MakeFsst);
  r->RegisterBlock(pb::CompressiveEncoding::kInlineBitpacking, MakeInlineBlock);
  r->RegisterBlock(pb::CompressiveEncoding::kOutOfLineBitpacking, MakeOutOfLineBlock);
  r->RegisterBlock(pb::CompressiveEncoding::kRle, MakeRleBlock);
  r->RegisterBlock(pb::CompressiveEncoding::kGeneral, MakeGeneralBlock);
}

}  // namespace lancedb::format
