// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Decoders of uncompressed mini-block chunk values (lance-format.md §2.3):
//   Flat(bits): the raw little-endian values (bit-packed LSB-first when bits % 8 != 0);
//   FixedSizeList(dim, has_validity, Flat(item bits)): [item validity bitmap] + flat items;
//   Variable(Flat 32|64 offsets): (n + 1) offsets relative to the chunk buffer, then bytes.

#include <cstring>

#include "format/page_decoder.h"

namespace lancedb::format {

namespace pb = lance::encodings21;

namespace {

Status NeedBuffers(std::span<const std::span<const uint8_t>> buffers, size_t n) {
  if (buffers.size() != n) {
    return Status::Corruption("Chunk has " + std::to_string(buffers.size()) +
                              " value buffers, expected " + std::to_string(n));
  }
  return Status::OK();
}

Status AppendFixed(std::span<const uint8_t> bytes, int64_t num_values, LeafValues* out) {
  const int64_t bits = out->bits_per_value;
  const int64_t need = (num_values * bits + 7) / 8;
  if (static_cast<int64_t>(bytes.size()) < need) {
    return Status::Corruption("Chunk value buffer holds " + std::to_string(bytes.size()) +
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

Result<ChunkValueDecoder> MakeFlat(const pb::CompressiveEncoding& e, const LeafValues& layout) {
  if (layout.kind != ValueKind::kFixed || !IsPlainFlat(e, layout.bits_per_value)) {
    return Status::NotSupported("Encoding " + EncodingName(e) + " for a column of " +
                                std::to_string(layout.bits_per_value) + "-bit values");
  }
  return ChunkValueDecoder([](std::span<const std::span<const uint8_t>> buffers, int64_t num_values,
                              LeafValues* out) -> Status {
    LANCEDB_RETURN_NOT_OK(NeedBuffers(buffers, 1));
    LANCEDB_RETURN_NOT_OK(AppendFixed(buffers[0], num_values, out));
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
  return ChunkValueDecoder([has_validity](std::span<const std::span<const uint8_t>> buffers,
                                          int64_t num_values, LeafValues* out) -> Status {
    LANCEDB_RETURN_NOT_OK(NeedBuffers(buffers, has_validity ? 2 : 1));
    const int64_t dim = out->fsl_dim;
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
    LANCEDB_RETURN_NOT_OK(AppendFixed(buffers.back(), num_values, out));
    out->num_values += num_values;
    return Status::OK();
  });
}

template <typename Offset>
Status AppendVariable(std::span<const uint8_t> buf, int64_t num_values, LeafValues* out) {
  const int64_t header = (num_values + 1) * static_cast<int64_t>(sizeof(Offset));
  if (static_cast<int64_t>(buf.size()) < header) {
    return Status::Corruption("Variable chunk of " + std::to_string(buf.size()) +
                              " bytes cannot hold " + std::to_string(num_values) + " offsets");
  }
  std::vector<Offset> offsets(static_cast<size_t>(num_values + 1));
  std::memcpy(offsets.data(), buf.data(), static_cast<size_t>(header));
  for (int64_t i = 0; i < num_values; ++i) {
    const uint64_t begin = static_cast<uint64_t>(offsets[i]);
    const uint64_t end = static_cast<uint64_t>(offsets[i + 1]);
    if (end < begin || end > buf.size()) {
      return Status::Corruption("Variable chunk offsets out of bounds");
    }
    out->data.insert(out->data.end(), buf.begin() + begin, buf.begin() + end);
    out->offsets.push_back(out->offsets.back() + static_cast<int64_t>(end - begin));
  }
  out->num_values += num_values;
  return Status::OK();
}

Result<ChunkValueDecoder> MakeVariable(const pb::CompressiveEncoding& e, const LeafValues& layout) {
  const auto& var = e.variable();
  const bool wide = IsPlainFlat(var.offsets(), 64);
  if (layout.kind != ValueKind::kVariable || var.has_values() ||
      !(wide || IsPlainFlat(var.offsets(), 32))) {
    return Status::NotSupported("variable encoding with offsets " + EncodingName(var.offsets()) +
                                " for this column");
  }
  return ChunkValueDecoder([wide](std::span<const std::span<const uint8_t>> buffers,
                                  int64_t num_values, LeafValues* out) -> Status {
    LANCEDB_RETURN_NOT_OK(NeedBuffers(buffers, 1));
    return wide ? AppendVariable<uint64_t>(buffers[0], num_values, out)
                : AppendVariable<uint32_t>(buffers[0], num_values, out);
  });
}

}  // namespace

const ValueDecoderRegistry& ValueDecoderRegistry::Default() {
  static const ValueDecoderRegistry registry = [] {
    ValueDecoderRegistry r;
    r.Register(pb::CompressiveEncoding::kFlat, MakeFlat);
    r.Register(pb::CompressiveEncoding::kFixedSizeList, MakeFixedSizeList);
    r.Register(pb::CompressiveEncoding::kVariable, MakeVariable);
    return r;
  }();
  return registry;
}

}  // namespace lancedb::format
