// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Decoders of uncompressed values (lance-format.md §2.3), in chunk and block form:
//   Flat(bits): the raw little-endian values (bit-packed LSB-first when bits % 8 != 0);
//   FixedSizeList(dim, has_validity, Flat(item bits)): [item validity bitmap] + flat items;
//   Variable(Flat 32|64 offsets): chunk form = (n + 1) offsets relative to the chunk buffer,
//     then bytes; block form = u32|u64 bits_per_offset, u32|u64 bytes_start, (n + 1) offsets
//     relative to bytes_start, bytes;
//   ByteStreamSplit(Flat(bits)): byte plane b holds byte b of every value;
//   Constant(value): the value repeated.
// The registry also holds the compressed decoders of compressed_decoders.cc.

#include <cstring>

#include "format/page_decoder.h"

namespace lancedb::format {

namespace pb = lance::encodings21;

// Defined in compressed_decoders.cc.
void RegisterCompressedDecoders(ValueDecoderRegistry* registry);

namespace {

using Buffers = std::span<const std::span<const uint8_t>>;

Status NeedBuffers(Buffers buffers, size_t n) {
  if (buffers.size() != n) {
    return Status::Corruption("Chunk has " + std::to_string(buffers.size()) +
                              " value buffers, expected " + std::to_string(n));
  }
  return Status::OK();
}

Status AppendFixed(std::span<const uint8_t> bytes, int64_t num_values, LeafValues* out) {
  const int64_t bits = out->bits_per_value;
  if (num_values < 0 || bits <= 0 || num_values > static_cast<int64_t>(bytes.size()) * 8 / bits) {
    return Status::Corruption("Value buffer of " + std::to_string(bytes.size()) +
                              " bytes cannot hold " + std::to_string(num_values) + " values");
  }
  const int64_t need = (num_values * bits + 7) / 8;
  if (static_cast<int64_t>(bytes.size()) < need) {
    return Status::Corruption("Value buffer holds " + std::to_string(bytes.size()) +
                              " bytes, expected " + std::to_string(need));
  }
  if (bits % 8 == 0) {
    out->data.insert(out->data.end(), bytes.begin(), bytes.begin() + need);
  } else {
    int64_t nbits = out->num_values * bits;
    AppendBits(bytes.data(), 0, num_values * bits, &out->data, &nbits);
  }
  return Status::OK();
}

bool IsPlainFlat(const pb::CompressiveEncoding& e, int64_t bits) {
  return e.has_flat() && !e.flat().has_data() &&
         static_cast<int64_t>(e.flat().bits_per_value()) == bits;
}

Status CheckFlat(const pb::CompressiveEncoding& e, const LeafValues& layout) {
  if (layout.kind != ValueKind::kFixed || !IsPlainFlat(e, layout.bits_per_value)) {
    return Status::NotSupported("Encoding " + EncodingName(e) + " for a column of " +
                                std::to_string(layout.bits_per_value) + "-bit values");
  }
  return Status::OK();
}

Result<ChunkValueDecoder> MakeFlat(const pb::CompressiveEncoding& e, const LeafValues& layout) {
  LANCEDB_RETURN_NOT_OK(CheckFlat(e, layout));
  return ChunkValueDecoder([](Buffers buffers, int64_t num_values, LeafValues* out) -> Status {
    LANCEDB_RETURN_NOT_OK(NeedBuffers(buffers, 1));
    LANCEDB_RETURN_NOT_OK(AppendFixed(buffers[0], num_values, out));
    out->num_values += num_values;
    return Status::OK();
  });
}

Result<BlockValueDecoder> MakeFlatBlock(const pb::CompressiveEncoding& e,
                                        const LeafValues& layout) {
  LANCEDB_RETURN_NOT_OK(CheckFlat(e, layout));
  return BlockValueDecoder(
      [](std::span<const uint8_t> bytes, int64_t num_values, LeafValues* out) -> Status {
        LANCEDB_RETURN_NOT_OK(AppendFixed(bytes, num_values, out));
        out->num_values += num_values;
        return Status::OK();
      });
}

Result<ChunkValueDecoder> MakeFixedSizeList(const pb::CompressiveEncoding& e,
                                            const LeafValues& layout) {
  const auto& fsl = e.fixed_size_list();
  if (layout.fsl_dim <= 0 || static_cast<int64_t>(fsl.items_per_value()) != layout.fsl_dim ||
      !IsPlainFlat(fsl.values(), layout.item_bits)) {
    return Status::NotSupported("fixed_size_list encoding over " + EncodingName(fsl.values()) +
                                " for this column");
  }
  const bool has_validity = fsl.has_validity();
  return ChunkValueDecoder(
      [has_validity](Buffers buffers, int64_t num_values, LeafValues* out) -> Status {
        LANCEDB_RETURN_NOT_OK(NeedBuffers(buffers, has_validity ? 2 : 1));
        const int64_t dim = out->fsl_dim;
        LANCEDB_RETURN_NOT_OK(AppendFixed(buffers.back(), num_values, out));
        if (has_validity) {
          if (static_cast<int64_t>(buffers[0].size()) * 8 < num_values * dim) {
            return Status::Corruption("Fixed-size-list validity buffer too small");
          }
          if (out->item_validity.empty()) {
            int64_t filled = 0;
            AppendBits(nullptr, 0, out->num_values * dim, &out->item_validity, &filled);
          }
          int64_t vbits = out->num_values * dim;
          AppendBits(buffers[0].data(), 0, num_values * dim, &out->item_validity, &vbits);
        } else if (!out->item_validity.empty()) {
          int64_t vbits = out->num_values * dim;
          AppendBits(nullptr, 0, num_values * dim, &out->item_validity, &vbits);
        }
        out->num_values += num_values;
        return Status::OK();
      });
}

/// Append `num_values` values whose (n + 1) offsets are at `offsets`, relative to `bytes`.
template <typename Offset>
Status AppendVariableValues(const uint8_t* offsets, std::span<const uint8_t> bytes,
                            int64_t num_values, LeafValues* out) {
  Offset first;
  std::memcpy(&first, offsets, sizeof(Offset));
  Offset last;
  std::memcpy(&last, offsets + num_values * static_cast<int64_t>(sizeof(Offset)), sizeof(Offset));
  if (last < first || static_cast<uint64_t>(last) > bytes.size()) {
    return Status::Corruption("Variable offsets out of bounds");
  }
  const int64_t base = out->offsets.back() - static_cast<int64_t>(first);
  const size_t start = out->offsets.size();
  out->offsets.resize(start + static_cast<size_t>(num_values));
  int64_t* dst = out->offsets.data() + start;
  Offset prev = first;
  for (int64_t i = 1; i <= num_values; ++i) {
    Offset o;
    std::memcpy(&o, offsets + i * static_cast<int64_t>(sizeof(Offset)), sizeof(Offset));
    if (o < prev) {
      out->offsets.resize(start);
      return Status::Corruption("Variable offsets decrease");
    }
    dst[i - 1] = static_cast<int64_t>(o) + base;
    prev = o;
  }
  out->data.insert(out->data.end(), bytes.begin() + static_cast<int64_t>(first),
                   bytes.begin() + static_cast<int64_t>(last));
  out->num_values += num_values;
  return Status::OK();
}

template <typename Offset>
Status AppendVariableChunk(std::span<const uint8_t> buf, int64_t num_values, LeafValues* out) {
  if (num_values < 0 || num_values >= static_cast<int64_t>(buf.size() / sizeof(Offset))) {
    return Status::Corruption("Variable chunk of " + std::to_string(buf.size()) +
                              " bytes cannot hold " + std::to_string(num_values) + " offsets");
  }
  return AppendVariableValues<Offset>(buf.data(), buf, num_values, out);
}

Result<bool> CheckVariable(const pb::CompressiveEncoding& e, const LeafValues& layout) {
  const auto& var = e.variable();
  const bool wide = IsPlainFlat(var.offsets(), 64);
  if (layout.kind != ValueKind::kVariable || var.has_values() ||
      !(wide || IsPlainFlat(var.offsets(), 32))) {
    return Status::NotSupported("variable encoding with offsets " + EncodingName(var.offsets()) +
                                " for this column");
  }
  return wide;
}

Result<ChunkValueDecoder> MakeVariable(const pb::CompressiveEncoding& e, const LeafValues& layout) {
  LANCEDB_ASSIGN_OR_RETURN(bool wide, CheckVariable(e, layout));
  return ChunkValueDecoder([wide](Buffers buffers, int64_t num_values, LeafValues* out) -> Status {
    LANCEDB_RETURN_NOT_OK(NeedBuffers(buffers, 1));
    return wide ? AppendVariableChunk<uint64_t>(buffers[0], num_values, out)
                : AppendVariableChunk<uint32_t>(buffers[0], num_values, out);
  });
}

template <typename Offset>
Status AppendVariableBlock(std::span<const uint8_t> buf, int64_t num_values, LeafValues* out) {
  constexpr int64_t kWord = sizeof(Offset);
  if (static_cast<int64_t>(buf.size()) < 2 * kWord) {
    return Status::Corruption("Variable block is truncated");
  }
  Offset bits;
  Offset bytes_start;
  std::memcpy(&bits, buf.data(), sizeof(Offset));
  std::memcpy(&bytes_start, buf.data() + kWord, sizeof(Offset));
  if (bits != kWord * 8) return Status::Corruption("Variable block has a bad offset width");
  if (num_values < 0 || static_cast<uint64_t>(num_values) >= buf.size() / kWord) {
    return Status::Corruption("Variable block of " + std::to_string(buf.size()) +
                              " bytes cannot hold " + std::to_string(num_values) + " offsets");
  }
  const uint64_t offsets_end = 2 * kWord + static_cast<uint64_t>(num_values + 1) * kWord;
  if (offsets_end > static_cast<uint64_t>(bytes_start) || bytes_start > buf.size()) {
    return Status::Corruption("Variable block offsets out of bounds");
  }
  return AppendVariableValues<Offset>(
      buf.data() + 2 * kWord, buf.subspan(static_cast<size_t>(bytes_start)), num_values, out);
}

Result<BlockValueDecoder> MakeVariableBlock(const pb::CompressiveEncoding& e,
                                            const LeafValues& layout) {
  LANCEDB_ASSIGN_OR_RETURN(bool wide, CheckVariable(e, layout));
  (void)wide;  // the block names its own offset width
  return BlockValueDecoder(
      [](std::span<const uint8_t> bytes, int64_t num_values, LeafValues* out) -> Status {
        if (bytes.size() >= 4 && bytes[0] == 64) {
          return AppendVariableBlock<uint64_t>(bytes, num_values, out);
        }
        return AppendVariableBlock<uint32_t>(bytes, num_values, out);
      });
}

Status CheckByteStreamSplit(const pb::CompressiveEncoding& e, const LeafValues& layout) {
  if (layout.kind != ValueKind::kFixed || layout.bits_per_value % 8 != 0 ||
      !IsPlainFlat(e.byte_stream_split().values(), layout.bits_per_value)) {
    return Status::NotSupported("byte_stream_split over " +
                                EncodingName(e.byte_stream_split().values()) + " for this column");
  }
  return Status::OK();
}

Status AppendByteStreamSplit(std::span<const uint8_t> bytes, int64_t num_values, LeafValues* out) {
  const int64_t width = out->bits_per_value / 8;
  if (num_values < 0 || width <= 0 || num_values > static_cast<int64_t>(bytes.size()) / width) {
    return Status::Corruption("Byte-stream-split buffer too small");
  }
  uint8_t* dst = GrowFixed(out, num_values);
  for (int64_t b = 0; b < width; ++b) {
    const uint8_t* plane = bytes.data() + b * num_values;
    for (int64_t i = 0; i < num_values; ++i) dst[i * width + b] = plane[i];
  }
  return Status::OK();
}

Result<ChunkValueDecoder> MakeByteStreamSplit(const pb::CompressiveEncoding& e,
                                              const LeafValues& layout) {
  LANCEDB_RETURN_NOT_OK(CheckByteStreamSplit(e, layout));
  return ChunkValueDecoder([](Buffers buffers, int64_t num_values, LeafValues* out) -> Status {
    LANCEDB_RETURN_NOT_OK(NeedBuffers(buffers, 1));
    return AppendByteStreamSplit(buffers[0], num_values, out);
  });
}

Result<BlockValueDecoder> MakeByteStreamSplitBlock(const pb::CompressiveEncoding& e,
                                                   const LeafValues& layout) {
  LANCEDB_RETURN_NOT_OK(CheckByteStreamSplit(e, layout));
  return BlockValueDecoder(AppendByteStreamSplit);
}

Result<BlockValueDecoder> MakeConstantBlock(const pb::CompressiveEncoding& e,
                                            const LeafValues& layout) {
  const auto& c = e.constant();
  if (layout.kind != ValueKind::kFixed || layout.bits_per_value % 8 != 0 || !c.has_value() ||
      static_cast<int64_t>(c.value().size()) * 8 != layout.bits_per_value) {
    return Status::NotSupported("constant encoding for this column");
  }
  return BlockValueDecoder([value = c.value()](std::span<const uint8_t>, int64_t num_values,
                                               LeafValues* out) -> Status {
    // Nothing in the input bounds the count: callers bound it by the page's rows or chunk.
    if (num_values < 0 || num_values > kMaxBlockValues) {
      return Status::Corruption("Constant block with " + std::to_string(num_values) + " values");
    }
    uint8_t* dst = GrowFixed(out, num_values);
    for (int64_t i = 0; i < num_values; ++i) {
      std::memcpy(dst + i * static_cast<int64_t>(value.size()), value.data(), value.size());
    }
    return Status::OK();
  });
}

}  // namespace

const ValueDecoderRegistry& ValueDecoderRegistry::Default() {
  static const ValueDecoderRegistry registry = [] {
    ValueDecoderRegistry r;
    r.Register(pb::CompressiveEncoding::kFlat, MakeFlat);
    r.Register(pb::CompressiveEncoding::kFixedSizeList, MakeFixedSizeList);
    r.Register(pb::CompressiveEncoding::kVariable, MakeVariable);
    r.Register(pb::CompressiveEncoding::kByteStreamSplit, MakeByteStreamSplit);
    r.RegisterBlock(pb::CompressiveEncoding::kFlat, MakeFlatBlock);
    r.RegisterBlock(pb::CompressiveEncoding::kVariable, MakeVariableBlock);
    r.RegisterBlock(pb::CompressiveEncoding::kByteStreamSplit, MakeByteStreamSplitBlock);
    r.RegisterBlock(pb::CompressiveEncoding::kConstant, MakeConstantBlock);
    RegisterCompressedDecoders(&r);
    return r;
  }();
  return registry;
}

}  // namespace lancedb::format
