// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Shared pieces of page decoding (levels, codes, registries) and the constant layout:
// no buffers = every item null at the innermost nullable layer; an inline value = every row
// holds it; otherwise raw u16 repetition (buffer 0) and definition (buffer 1) levels.

#include "format/page_decoder.h"

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

std::vector<uint16_t> ReadU16(std::span<const uint8_t> bytes, int64_t count) {
  std::vector<uint16_t> out(static_cast<size_t>(count));
  if (count > 0) std::memcpy(out.data(), bytes.data(), static_cast<size_t>(count) * 2);
  return out;
}

class ConstantDecoder final : public PageDecoder {
 public:
  Status Decode(const pb::PageLayout& layout, const PageContext& ctx,
                LeafItems* out) const override {
    const auto& c = layout.constant_layout();
    const LeafPath& path = *ctx.path;
    out->num_rows = ctx.num_rows;
    out->values = ctx.value_layout;
    if (c.has_inline_value()) {
      if (!ctx.buffers.empty() || out->values.kind != ValueKind::kFixed ||
          out->values.bits_per_value % 8 != 0 ||
          static_cast<int64_t>(c.inline_value().size()) * 8 != out->values.bits_per_value) {
        return Status::NotSupported("Constant page with an inline value of " +
                                    std::to_string(c.inline_value().size()) +
                                    " bytes for this column in " + ctx.where);
      }
      out->codes.assign(static_cast<size_t>(ctx.num_rows), 0);
      for (int64_t i = 0; i < ctx.num_rows; ++i) {
        out->values.data.insert(out->values.data.end(), c.inline_value().begin(),
                                c.inline_value().end());
      }
      out->values.num_values = ctx.num_rows;
      if (path.max_rep > 0) out->rep.assign(static_cast<size_t>(ctx.num_rows), path.max_rep);
      return Status::OK();
    }
    std::vector<uint16_t> rep;
    std::vector<uint16_t> def;
    int64_t num_items = ctx.num_rows;
    if (ctx.buffers.empty()) {
      def.assign(static_cast<size_t>(num_items), 1);
      if (path.max_rep > 0) rep.assign(static_cast<size_t>(num_items), path.max_rep);
    } else {
      if (c.has_rep_compression() || c.has_def_compression() || ctx.buffers.size() < 2) {
        return Status::NotSupported("Constant page with compressed levels in " + ctx.where);
      }
      const int64_t nrep = static_cast<int64_t>(c.num_rep_values());
      const int64_t ndef = static_cast<int64_t>(c.num_def_values());
      if (ctx.buffers[0]->size() < nrep * 2 || ctx.buffers[1]->size() < ndef * 2 ||
          (nrep > 0 && ndef > 0 && nrep != ndef)) {
        return Status::Corruption("Constant page level buffers are inconsistent in " + ctx.where);
      }
      rep = ReadU16(ctx.buffers[0]->span(), nrep);
      def = ReadU16(ctx.buffers[1]->span(), ndef);
      num_items = std::max(nrep, ndef);
      if (nrep == 0 && path.max_rep > 0) {
        return Status::Corruption("Constant page without repetition levels in " + ctx.where);
      }
      if (ndef == 0) def.assign(static_cast<size_t>(num_items), 0);
    }
    LANCEDB_RETURN_NOT_OK(DefinitionToCodes(c.layers(), path, def, num_items, &out->codes));
    if (path.max_rep > 0) out->rep = std::move(rep);
    for (uint16_t code : out->codes) {
      if (code == 0) {
        return Status::NotSupported("Constant page with valid values in " + ctx.where);
      }
      if (CodeIsVisible(path, code)) out->values.AppendNullSlot();
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

Status DecodeLevels(const pb::CompressiveEncoding& encoding, std::span<const uint8_t> bytes,
                    int64_t num_levels, std::vector<uint16_t>* out) {
  if (!encoding.has_flat() || encoding.flat().bits_per_value() != 16 ||
      encoding.flat().has_data()) {
    return Status::NotSupported("Levels encoded with " + EncodingName(encoding));
  }
  if (static_cast<int64_t>(bytes.size()) < num_levels * 2) {
    return Status::Corruption("Level buffer holds " + std::to_string(bytes.size()) +
                              " bytes, expected " + std::to_string(num_levels * 2));
  }
  std::vector<uint16_t> levels = ReadU16(bytes, num_levels);
  out->insert(out->end(), levels.begin(), levels.end());
  return Status::OK();
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
                                "' is not supported yet");
  }
  return it->second(encoding, layout);
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
