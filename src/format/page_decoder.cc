// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Shared pieces of page decoding (levels, codes, registries) and the constant layout (one
// value, inline or in buffer 0, or none for all-null pages, plus optional rep/def levels).

#include "format/page_decoder.h"

#include <algorithm>
#include <cstring>

#include "common/int_util.h"

namespace lancedb::format {

namespace pb = lance::encodings21;
using int_util::LoadU32;
using int_util::LoadU64;

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

/// Levels of a constant page: raw u16 when `has_compression` is false. `count` is the number
/// the layout declares; raw buffers may leave it 0 and imply it by their length. An empty
/// buffer means the page has no such levels.
Status ConstantLevels(bool has_compression, const pb::CompressiveEncoding& compression,
                      const BufferPtr& buffer, int64_t count, int64_t max_count,
                      std::vector<uint16_t>* out) {
  if (buffer->size() == 0 && count == 0) return Status::OK();
  if (has_compression) {
    if (count <= 0 || count > max_count) {
      return Status::Corruption("Constant page declares " + std::to_string(count) +
                                " compressed levels");
    }
    return DecodeLevels(compression, buffer->span(), count, out);
  }
  if (count == 0) count = buffer->size() / 2;
  if (count > max_count || buffer->size() != count * 2) {
    return Status::Corruption("Constant page level buffer holds " + std::to_string(buffer->size()) +
                              " bytes for " + std::to_string(count) + " levels");
  }
  out->resize(static_cast<size_t>(count));
  std::memcpy(out->data(), buffer->data(), static_cast<size_t>(count) * 2);
  return Status::OK();
}

/// Decode the out-of-line scalar of a constant page into `value` (one value of the leaf's
/// layout). Layout (Lance `encode_scalar_value_buffer`): u32 num_buffers, one u32 length per
/// buffer, then the Arrow buffers of a length-1 array (fixed: the value; variable: two offsets
/// and the bytes). No validity bitmap and no children.
Status DecodeScalarBuffer(std::span<const uint8_t> bytes, LeafValues* value) {
  if (bytes.size() < 4) return Status::Corruption("scalar value buffer is truncated");
  const uint32_t num_buffers = LoadU32(bytes.data());
  if (num_buffers == 0 || num_buffers > 3 || bytes.size() < 4 + 4 * size_t{num_buffers}) {
    return Status::Corruption("scalar value buffer declares " + std::to_string(num_buffers) +
                              " buffers");
  }
  std::vector<std::span<const uint8_t>> parts;
  size_t pos = 4 + 4 * size_t{num_buffers};
  for (uint32_t i = 0; i < num_buffers; ++i) {
    const size_t len = LoadU32(bytes.data() + 4 + 4 * i);
    if (len > bytes.size() - pos) return Status::Corruption("scalar value buffer is truncated");
    parts.push_back(bytes.subspan(pos, len));
    pos += len;
  }
  if (value->kind == ValueKind::kVariable) {
    const size_t width = value->large_offsets ? 8 : 4;
    if (parts.size() != 2 || parts[0].size() < 2 * width) {
      return Status::Corruption("scalar string value needs offsets and bytes");
    }
    int64_t begin = 0;
    int64_t end = 0;
    if (width == 4) {
      begin = static_cast<int32_t>(LoadU32(parts[0].data()));
      end = static_cast<int32_t>(LoadU32(parts[0].data() + 4));
    } else {
      begin = static_cast<int64_t>(LoadU64(parts[0].data()));
      end = static_cast<int64_t>(LoadU64(parts[0].data() + 8));
    }
    if (begin < 0 || end < begin || static_cast<uint64_t>(end) > parts[1].size()) {
      return Status::Corruption("scalar string offsets out of range");
    }
    value->data.assign(parts[1].begin() + begin, parts[1].begin() + end);
    value->offsets = {0, end - begin};
  } else if (value->kind == ValueKind::kFixed && value->fsl_dim == 0) {
    const size_t nbytes = static_cast<size_t>((value->bits_per_value + 7) / 8);
    if (parts.size() != 1 || parts[0].size() < nbytes) {
      return Status::Corruption("scalar value of " + std::to_string(parts[0].size()) +
                                " bytes for a " + std::to_string(value->bits_per_value) +
                                "-bit column");
    }
    value->data.assign(parts[0].begin(), parts[0].begin() + nbytes);
    if (value->bits_per_value < 8) {
      value->data[0] = static_cast<uint8_t>(value->data[0] & ((1u << value->bits_per_value) - 1));
    }
  } else {
    return Status::NotSupported("out-of-line constant value for this column type");
  }
  value->num_values = 1;
  return Status::OK();
}

/// The single value of a constant page: inline bytes or buffer 0. `value->num_values` stays 0
/// when the page has no value (all items null).
Status ConstantScalar(const pb::ConstantLayout& c, const PageContext& ctx, bool value_in_buffer,
                      LeafValues* value) {
  *value = ctx.value_layout;
  value->Clear();
  if (value_in_buffer) return DecodeScalarBuffer(ctx.buffers[0]->span(), value);
  if (!c.has_inline_value()) return Status::OK();
  if (value->kind == ValueKind::kFixed && value->fsl_dim == 0 && value->bits_per_value < 8 &&
      c.inline_value().size() == 1) {
    // A boolean: one byte whose low bits are the value (as a constant in a value buffer).
    const auto byte = static_cast<uint8_t>(c.inline_value()[0]);
    value->data.assign(1, static_cast<uint8_t>(byte & ((1u << value->bits_per_value) - 1)));
    value->num_values = 1;
    return Status::OK();
  }
  if (value->kind != ValueKind::kFixed || value->bits_per_value % 8 != 0 ||
      static_cast<int64_t>(c.inline_value().size()) * 8 != value->bits_per_value) {
    return Status::NotSupported("inline value of " + std::to_string(c.inline_value().size()) +
                                " bytes for this column");
  }
  value->data.assign(c.inline_value().begin(), c.inline_value().end());
  value->num_values = 1;
  return Status::OK();
}

/// Constant pages (lance-format.md §2.3, Lance `ConstantPageScheduler`). Buffers by case:
/// inline value: none, or [rep, def]; value buffer: [value], or [value, rep, def];
/// no value (all null; 2.1 `AllNullLayout`): none, or [rep, def]. Level buffers are raw u16
/// unless the layout names a compression; an empty level buffer means no such levels.
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
    const size_t nbuf = ctx.buffers.size();
    const bool value_in_buffer = !c.has_inline_value() && (nbuf == 1 || nbuf == 3);
    if (nbuf > 3 || (c.has_inline_value() && nbuf != 0 && nbuf != 2)) {
      return Status::Corruption("unexpected buffer count " + std::to_string(nbuf));
    }
    LeafValues scalar;
    LANCEDB_RETURN_NOT_OK(ConstantScalar(c, ctx, value_in_buffer, &scalar));
    const bool has_value = scalar.num_values == 1;
    out->num_rows = ctx.num_rows;
    out->values = ctx.value_layout;
    out->values.Clear();

    std::vector<uint16_t> rep;
    std::vector<uint16_t> def;
    const size_t level_base = value_in_buffer ? 1 : 0;
    if (nbuf >= level_base + 2) {
      // Raw levels are bounded by their buffer. Compressed levels need a bound from outside:
      // every row has at least one level; more than 1024 per row on average (list items of a
      // constant page) is treated as corrupt.
      const int64_t max_levels =
          std::min(kMaxBlockValues, std::max<int64_t>(ctx.num_rows, 1) * 1024);
      LANCEDB_RETURN_NOT_OK(
          ConstantLevels(c.has_rep_compression(), c.rep_compression(), ctx.buffers[level_base],
                         static_cast<int64_t>(c.num_rep_values()), max_levels, &rep));
      LANCEDB_RETURN_NOT_OK(
          ConstantLevels(c.has_def_compression(), c.def_compression(), ctx.buffers[level_base + 1],
                         static_cast<int64_t>(c.num_def_values()), max_levels, &def));
    }
    int64_t num_items = ctx.num_rows;
    if (!rep.empty() || !def.empty()) {
      if (!rep.empty() && !def.empty() && rep.size() != def.size()) {
        return Status::Corruption("level buffers are inconsistent");
      }
      num_items = static_cast<int64_t>(std::max(rep.size(), def.size()));
    }
    if (rep.empty() && path.max_rep > 0) {
      if (!def.empty() && num_items != ctx.num_rows) {
        return Status::Corruption("list column without repetition levels");
      }
      rep.assign(static_cast<size_t>(num_items), static_cast<uint16_t>(path.max_rep));
    }
    if (def.empty()) def.assign(static_cast<size_t>(num_items), has_value ? 0 : 1);
    LANCEDB_RETURN_NOT_OK(DefinitionToCodes(c.layers(), path, def, num_items, &out->codes));
    if (path.max_rep > 0) out->rep = std::move(rep);
    int64_t num_valid = 0;
    for (uint16_t code : out->codes) num_valid += code == 0 ? 1 : 0;
    if (num_valid > 0 && !has_value) return Status::Corruption("valid items but no value");
    if (out->values.kind == ValueKind::kFixed && out->values.bits_per_value % 8 == 0) {
      out->values.data.reserve(static_cast<size_t>(num_items * (out->values.bits_per_value / 8)));
    }
    for (uint16_t code : out->codes) {
      if (code == 0) {
        out->values.AppendFrom(scalar, 0, 1);
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

int64_t PageBufferSize(const PageContext& ctx, size_t index) {
  if (index < ctx.buffers.size() && ctx.buffers[index]) return ctx.buffers[index]->size();
  return index < ctx.buffer_sizes.size() ? ctx.buffer_sizes[index] : -1;
}

Result<BufferPtr> ReadPageRange(const PageContext& ctx, size_t index, int64_t offset,
                                int64_t length) {
  const int64_t size = PageBufferSize(ctx, index);
  if (size < 0 || offset < 0 || length < 0 || offset > size || length > size - offset) {
    return Status::Corruption("Range [" + std::to_string(offset) + ", +" + std::to_string(length) +
                              ") is outside page buffer " + std::to_string(index));
  }
  if (index < ctx.buffers.size() && ctx.buffers[index]) {
    return Buffer::Slice(ctx.buffers[index], offset, length);
  }
  if (!ctx.read_range) return Status::Internal("Page buffer " + std::to_string(index) + " unread");
  return ctx.read_range(index, offset, length);
}

LeafValues FixedLayout(int64_t bits) {
  LeafValues v;
  v.kind = ValueKind::kFixed;
  v.bits_per_value = bits;
  return v;
}

uint8_t* GrowFixed(LeafValues* out, int64_t num_values) {
  out->Materialize();
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

std::vector<uint8_t> VisibleCodeTable(const LeafPath& path) {
  std::vector<uint8_t> table(static_cast<size_t>(EmptyCode(path.depth())) + 1);
  for (size_t code = 0; code < table.size(); ++code) {
    table[code] = CodeIsVisible(path, static_cast<uint16_t>(code)) ? 1 : 0;
  }
  return table;
}

int64_t CountVisible(const LeafPath& path, std::span<const uint16_t> codes) {
  if (path.max_rep == 0) return static_cast<int64_t>(codes.size());
  const std::vector<uint8_t> table = VisibleCodeTable(path);
  int64_t visible = 0;
  for (uint16_t code : codes) {
    visible += code < table.size() ? table[code] : (CodeIsVisible(path, code) ? 1 : 0);
  }
  return visible;
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
