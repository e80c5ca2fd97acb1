// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Shared pieces of page decoding (levels, codes, registries) and the constant layout:
// no buffers = every item null at the innermost nullable layer; an inline value = every row
// holds it; otherwise raw u16 repetition (buffer 0) and definition (buffer 1) levels.

#include "format/page_decoder.h"

#include <algorithm>
#include <cstring>

namespace lancedb::format {

namespace pb = lance::encodings21;

namespace {

int NumDefLevels(int layer) {
  switch (layer) {
    case pb::REPDEF_NULLABLE_ITEM:
    case pb::REPDEF_NULLABLE_LIST:
    case pb::REPDEF_EMPTYABLE_LIST:
      return 1;
    case pb::REPDEF_NULL_AND_EMPTY_LIST:
      return 2;
    default:
      return 0;
  }
}

bool IsListLayer(int layer) {
  return layer == pb::REPDEF_ALL_VALID_LIST || layer == pb::REPDEF_NULLABLE_LIST ||
         layer == pb::REPDEF_EMPTYABLE_LIST || layer == pb::REPDEF_NULL_AND_EMPTY_LIST;
}

/// Levels of a constant page: raw u16 when `has_compression` is false.
Status ConstantLevels(bool has_compression, const pb::CompressiveEncoding& compression,
                      const BufferPtr& buffer, int64_t count, std::vector<uint16_t>* out) {
  if (count == 0) return Status::OK();
  if (has_compression) return DecodeLevels(compression, buffer->span(), count, out);
  if (buffer->size() < count * 2) {
    return Status::Corruption("Constant page level buffer holds " + std::to_string(buffer->size()) +
                              " bytes for " + std::to_string(count) + " levels");
  }
  out->resize(static_cast<size_t>(count));
  std::memcpy(out->data(), buffer->data(), static_cast<size_t>(count) * 2);
  return Status::OK();
}

class ConstantDecoder final : public PageDecoder {
 public:
  Status Decode(const pb::PageLayout& layout, const PageContext& ctx,
                LeafItems* out) const override {
    auto st = DecodeImpl(layout.constant_layout(), ctx, out);
    return st.ok() ? st : st.WithContext("Constant page in " + ctx.where);
  }

 private:
  static Status DecodeImpl(const pb::ConstantLayout& c, const PageContext& ctx, LeafItems* out) {
    const LeafPath& path = *ctx.path;
    out->num_rows = ctx.num_rows;
    out->values = ctx.value_layout;
    const bool has_value = c.has_inline_value();
    if (has_value &&
        (out->values.kind != ValueKind::kFixed || out->values.bits_per_value % 8 != 0 ||
         static_cast<int64_t>(c.inline_value().size()) * 8 != out->values.bits_per_value)) {
      return Status::NotSupported("inline value of " + std::to_string(c.inline_value().size()) +
                                  " bytes for this column");
    }
    std::vector<uint16_t> rep;
    std::vector<uint16_t> def;
    int64_t num_items = ctx.num_rows;
    const int64_t nrep = static_cast<int64_t>(c.num_rep_values());
    const int64_t ndef = static_cast<int64_t>(c.num_def_values());
    if (ctx.buffers.empty() || (nrep == 0 && ndef == 0)) {
      def.assign(static_cast<size_t>(num_items), has_value ? 0 : 1);
      if (path.max_rep > 0) rep.assign(static_cast<size_t>(num_items), path.max_rep);
    } else {
      if (ctx.buffers.size() < 2 || (nrep > 0 && ndef > 0 && nrep != ndef) ||
          nrep > (int64_t{1} << 32) || ndef > (int64_t{1} << 32)) {
        return Status::Corruption("level buffers are inconsistent");
      }
      LANCEDB_RETURN_NOT_OK(
          ConstantLevels(c.has_rep_compression(), c.rep_compression(), ctx.buffers[0], nrep, &rep));
      LANCEDB_RETURN_NOT_OK(
          ConstantLevels(c.has_def_compression(), c.def_compression(), ctx.buffers[1], ndef, &def));
      num_items = std::max(nrep, ndef);
      if (nrep == 0 && path.max_rep > 0) {
        return Status::Corruption("list column without repetition levels");
      }
      if (ndef == 0) def.assign(static_cast<size_t>(num_items), 0);
    }
    LANCEDB_RETURN_NOT_OK(DefinitionToCodes(c.layers(), path, def, num_items, &out->codes));
    if (path.max_rep > 0) out->rep = std::move(rep);
    for (uint16_t code : out->codes) {
      if (code == 0) {
        if (!has_value) return Status::Corruption("valid items but no inline value");
        out->values.data.insert(out->values.data.end(), c.inline_value().begin(),
                                c.inline_value().end());
        out->values.num_values++;
      } else if (CodeIsVisible(path, code)) {
        out->values.AppendNullSlot();
      }
    }
    return Status::OK();
  }
};

}  // namespace

std::string EncodingName(const pb::CompressiveEncoding& e) {
  switch (e.compression_case()) {
    case pb::CompressiveEncoding::kFlat:
      return "flat(" + std::to_string(e.flat().bits_per_value()) + ")";
    case pb::CompressiveEncoding::kVariable:
      return "variable";
    case pb::CompressiveEncoding::kConstant:
      return "constant";
    case pb::CompressiveEncoding::kOutOfLineBitpacking:
      return "out_of_line_bitpacking";
    case pb::CompressiveEncoding::kInlineBitpacking:
      return "inline_bitpacking";
    case pb::CompressiveEncoding::kFsst:
      return "fsst";
    case pb::CompressiveEncoding::kDictionary:
      return "dictionary";
    case pb::CompressiveEncoding::kRle:
      return "rle";
    case pb::CompressiveEncoding::kByteStreamSplit:
      return "byte_stream_split";
    case pb::CompressiveEncoding::kGeneral:
      return "general";
    case pb::CompressiveEncoding::kFixedSizeList:
      return "fixed_size_list";
    case pb::CompressiveEncoding::kPackedStruct:
      return "packed_struct";
    case pb::CompressiveEncoding::kVariablePackedStruct:
      return "variable_packed_struct";
    case pb::CompressiveEncoding::COMPRESSION_NOT_SET:
      break;
  }
  return "unknown";
}

LeafValues FixedLayout(int64_t bits) {
  LeafValues v;
  v.kind = ValueKind::kFixed;
  v.bits_per_value = bits;
  return v;
}

uint8_t* GrowFixed(LeafValues* out, int64_t num_values) {
  const size_t start = out->data.size();
  out->data.resize(start + static_cast<size_t>(num_values * (out->bits_per_value / 8)));
  out->num_values += num_values;
  return out->data.data() + start;
}

Result<BlockValueDecoder> MakeLevelDecoder(const pb::CompressiveEncoding& encoding) {
  auto decoder = ValueDecoderRegistry::Default().MakeBlock(encoding, FixedLayout(16));
  if (!decoder.ok()) return decoder.status().WithContext("Levels");
  return decoder;
}

Status DecodeLevelsWith(const BlockValueDecoder& decoder, std::span<const uint8_t> bytes,
                        int64_t num_levels, std::vector<uint16_t>* out) {
  LeafValues levels = FixedLayout(16);
  levels.data.reserve(static_cast<size_t>(num_levels) * 2);
  LANCEDB_RETURN_NOT_OK(decoder(bytes, num_levels, &levels));
  if (levels.num_values != num_levels) {
    return Status::Corruption("Level buffer decoded to " + std::to_string(levels.num_values) +
                              " levels, expected " + std::to_string(num_levels));
  }
  const size_t start = out->size();
  out->resize(start + static_cast<size_t>(num_levels));
  if (num_levels > 0) {
    std::memcpy(out->data() + start, levels.data.data(), static_cast<size_t>(num_levels) * 2);
  }
  return Status::OK();
}

Status DecodeLevels(const pb::CompressiveEncoding& encoding, std::span<const uint8_t> bytes,
                    int64_t num_levels, std::vector<uint16_t>* out) {
  LANCEDB_ASSIGN_OR_RETURN(BlockValueDecoder decoder, MakeLevelDecoder(encoding));
  return DecodeLevelsWith(decoder, bytes, num_levels, out);
}

uint16_t MaxVisibleDefinition(const google::protobuf::RepeatedField<int>& layers) {
  uint16_t sum = 0;
  for (int layer : layers) {
    if (IsListLayer(layer)) return sum;
    sum = static_cast<uint16_t>(sum + NumDefLevels(layer));
  }
  return UINT16_MAX;
}

Status DefinitionToCodes(const google::protobuf::RepeatedField<int>& layers, const LeafPath& path,
                         const std::vector<uint16_t>& def, int64_t num_items,
                         std::vector<uint16_t>* codes) {
  if (layers.size() != path.depth()) {
    return Status::NotSupported("Page has " + std::to_string(layers.size()) +
                                " rep/def layers but the field has " +
                                std::to_string(path.depth()) + " structural levels");
  }
  std::vector<uint16_t> code_of(1, 0);
  for (int layer = 0; layer < layers.size(); ++layer) {
    const bool is_list = path.steps[path.depth() - 1 - layer] == StepKind::kList;
    if (is_list != IsListLayer(layers[layer])) {
      return Status::Corruption("Rep/def layer " + std::to_string(layer) +
                                " does not match the field structure");
    }
    switch (layers[layer]) {
      case pb::REPDEF_NULLABLE_ITEM:
      case pb::REPDEF_NULLABLE_LIST:
        code_of.push_back(NullCode(layer));
        break;
      case pb::REPDEF_EMPTYABLE_LIST:
        code_of.push_back(EmptyCode(layer));
        break;
      case pb::REPDEF_NULL_AND_EMPTY_LIST:
        code_of.push_back(NullCode(layer));
        code_of.push_back(EmptyCode(layer));
        break;
      default:
        break;
    }
  }
  codes->clear();
  if (def.empty()) {
    codes->assign(static_cast<size_t>(num_items), 0);
    return Status::OK();
  }
  if (static_cast<int64_t>(def.size()) != num_items) {
    return Status::Corruption("Page has " + std::to_string(def.size()) + " definition levels for " +
                              std::to_string(num_items) + " items");
  }
  codes->reserve(def.size());
  for (uint16_t d : def) {
    if (d >= code_of.size()) {
      return Status::Corruption("Definition level " + std::to_string(d) + " out of range");
    }
    codes->push_back(code_of[d]);
  }
  return Status::OK();
}

bool CodeIsVisible(const LeafPath& path, uint16_t code) {
  if (code == 0) return true;
  if (CodeIsEmpty(code)) return false;
  return !path.HasListAtOrBelow(path.depth() - 1 - CodeLayer(code));
}

Result<ChunkValueDecoder> ValueDecoderRegistry::Make(const pb::CompressiveEncoding& encoding,
                                                     const LeafValues& layout) const {
  auto it = factories_.find(encoding.compression_case());
  if (it == factories_.end()) {
    return Status::NotSupported("Compressive encoding '" + EncodingName(encoding) +
                                "' is not supported in mini-block chunks");
  }
  return it->second(encoding, layout);
}

Result<BlockValueDecoder> ValueDecoderRegistry::MakeBlock(const pb::CompressiveEncoding& encoding,
                                                          const LeafValues& layout) const {
  auto it = block_factories_.find(encoding.compression_case());
  if (it == block_factories_.end()) {
    return Status::NotSupported("Compressive encoding '" + EncodingName(encoding) +
                                "' is not supported for whole buffers");
  }
  return it->second(encoding, layout);
}

Result<int64_t> DecodedValueBits(const pb::CompressiveEncoding& e) {
  switch (e.compression_case()) {
    case pb::CompressiveEncoding::kFlat:
      return static_cast<int64_t>(e.flat().bits_per_value());
    case pb::CompressiveEncoding::kInlineBitpacking:
      return static_cast<int64_t>(e.inline_bitpacking().uncompressed_bits_per_value());
    case pb::CompressiveEncoding::kOutOfLineBitpacking:
      return static_cast<int64_t>(e.out_of_line_bitpacking().uncompressed_bits_per_value());
    case pb::CompressiveEncoding::kRle:
      return DecodedValueBits(e.rle().values());
    case pb::CompressiveEncoding::kGeneral:
      return DecodedValueBits(e.general().values());
    case pb::CompressiveEncoding::kByteStreamSplit:
      return DecodedValueBits(e.byte_stream_split().values());
    default:
      return Status::NotSupported("Encoding '" + EncodingName(e) + "' is not fixed-width");
  }
}

// Defined in miniblock_decoder.cc and fullzip_decoder.cc.
std::shared_ptr<const PageDecoder> MakeMiniBlockDecoder();
std::shared_ptr<const PageDecoder> MakeFullZipDecoder();

const PageDecoderRegistry& PageDecoderRegistry::Default() {
  static const PageDecoderRegistry registry = [] {
    PageDecoderRegistry r;
    r.Register(pb::PageLayout::kMiniBlockLayout, MakeMiniBlockDecoder());
    r.Register(pb::PageLayout::kFullZipLayout, MakeFullZipDecoder());
    r.Register(pb::PageLayout::kConstantLayout, std::make_shared<ConstantDecoder>());
    return r;
  }();
  return registry;
}

}  // namespace lancedb::format
