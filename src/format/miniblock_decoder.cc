// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Mini-block page decoder (lance-format.md §2.3): u16 (2.1) or u32 (2.2, has_large_chunk)
// chunk words in buffer 0, chunks in buffer 1 with the grammar
//   u16 num_levels [u16 rep_bytes] [u16 def_bytes] (u16|u32 size) x num_buffers, pad to 8,
//   [rep, pad 8] [def, pad 8] value buffers each padded to 8.
// Every offset read from the file is bounds-checked.

#include <cstring>

#include "format/page_decoder.h"

namespace lancedb::format {

namespace pb = lance::encodings21;

namespace {

int64_t PadTo8(int64_t x) { return (x + 7) / 8 * 8; }

class ChunkReader {
 public:
  ChunkReader(std::span<const uint8_t> chunk) : chunk_(chunk) {}
  Result<uint64_t> Read(int width) {
    if (pos_ + width > static_cast<int64_t>(chunk_.size())) return Overflow();
    uint64_t v = 0;
    std::memcpy(&v, chunk_.data() + pos_, static_cast<size_t>(width));
    pos_ += width;
    return v;
  }
  Result<std::span<const uint8_t>> Take(int64_t size) {
    pos_ = PadTo8(pos_);
    if (pos_ + size > static_cast<int64_t>(chunk_.size())) return Overflow();
    auto out = chunk_.subspan(static_cast<size_t>(pos_), static_cast<size_t>(size));
    pos_ += size;
    return out;
  }

 private:
  static Status Overflow() { return Status::Corruption("Mini-block chunk is truncated"); }
  std::span<const uint8_t> chunk_;
  int64_t pos_ = 0;
};

class MiniBlockDecoder final : public PageDecoder {
 public:
  Status Decode(const pb::PageLayout& layout, const PageContext& ctx,
                LeafItems* out) const override {
    auto st = DecodeImpl(layout.mini_block_layout(), ctx, out);
    return st.ok() ? st : st.WithContext("Mini-block page in " + ctx.where);
  }

 private:
  static Status DecodeImpl(const pb::MiniBlockLayout& mb, const PageContext& ctx, LeafItems* out) {
    const LeafPath& path = *ctx.path;
    if (mb.has_dictionary() || mb.num_dictionary_items() > 0) {
      return Status::NotSupported("dictionary-encoded mini-block pages are not supported yet");
    }
    if (ctx.buffers.size() < 2) return Status::Corruption("missing buffers");
    LANCEDB_ASSIGN_OR_RETURN(
        ChunkValueDecoder decode_values,
        ValueDecoderRegistry::Default().Make(mb.value_compression(), ctx.value_layout));
    const bool has_rep = mb.has_rep_compression();
    const bool has_def = mb.has_def_compression();
    const int word_bytes = mb.has_large_chunk() ? 4 : 2;
    const auto words = ctx.buffers[0]->span();
    const auto data = ctx.buffers[1]->span();
    const int64_t num_chunks = static_cast<int64_t>(words.size()) / word_bytes;
    const int64_t num_items = static_cast<int64_t>(mb.num_items());
    const int64_t num_buffers = static_cast<int64_t>(mb.num_buffers());
    if (num_buffers < 1 || num_buffers > 16) return Status::Corruption("bad num_buffers");
    out->num_rows = ctx.num_rows;
    out->values = ctx.value_layout;
    std::vector<uint16_t> rep;
    std::vector<uint16_t> def;
    int64_t offset = 0;
    int64_t values_seen = 0;
    for (int64_t c = 0; c < num_chunks; ++c) {
      uint64_t word = 0;
      std::memcpy(&word, words.data() + c * word_bytes, static_cast<size_t>(word_bytes));
      const int64_t chunk_bytes = static_cast<int64_t>((word >> 4) + 1) * 8;
      const int log2 = static_cast<int>(word & 0xF);
      const bool last = c + 1 == num_chunks;
      const int64_t n = last ? num_items - values_seen : (int64_t{1} << log2);
      if (n < 0 || offset + chunk_bytes > static_cast<int64_t>(data.size())) {
        return Status::Corruption("chunk " + std::to_string(c) + " is out of bounds");
      }
      ChunkReader reader(
          data.subspan(static_cast<size_t>(offset), static_cast<size_t>(chunk_bytes)));
      LANCEDB_ASSIGN_OR_RETURN(uint64_t num_levels, reader.Read(2));
      uint64_t rep_bytes = 0;
      uint64_t def_bytes = 0;
      if (has_rep) {
        LANCEDB_ASSIGN_OR_RETURN(rep_bytes, reader.Read(2));
      }
      if (has_def) {
        LANCEDB_ASSIGN_OR_RETURN(def_bytes, reader.Read(2));
      }
      std::vector<int64_t> sizes;
      for (int64_t b = 0; b < num_buffers; ++b) {
        LANCEDB_ASSIGN_OR_RETURN(uint64_t size, reader.Read(word_bytes));
        sizes.push_back(static_cast<int64_t>(size));
      }
      if (has_rep) {
        LANCEDB_ASSIGN_OR_RETURN(auto bytes, reader.Take(static_cast<int64_t>(rep_bytes)));
        LANCEDB_RETURN_NOT_OK(
            DecodeLevels(mb.rep_compression(), bytes, static_cast<int64_t>(num_levels), &rep));
      }
      if (has_def) {
        LANCEDB_ASSIGN_OR_RETURN(auto bytes, reader.Take(static_cast<int64_t>(def_bytes)));
        LANCEDB_RETURN_NOT_OK(
            DecodeLevels(mb.def_compression(), bytes, static_cast<int64_t>(num_levels), &def));
      }
      std::vector<std::span<const uint8_t>> buffers;
      for (int64_t size : sizes) {
        LANCEDB_ASSIGN_OR_RETURN(auto bytes, reader.Take(size));
        buffers.push_back(bytes);
      }
      LANCEDB_RETURN_NOT_OK(decode_values(buffers, n, &out->values));
      values_seen += n;
      offset += chunk_bytes;
    }
    if (values_seen != num_items) {
      return Status::Corruption("chunks hold " + std::to_string(values_seen) +
                                " values, expected " + std::to_string(num_items));
    }
    const int64_t item_count = has_rep   ? static_cast<int64_t>(rep.size())
                               : has_def ? static_cast<int64_t>(def.size())
                                         : num_items;
    if (path.max_rep > 0 && !has_rep) {
      return Status::Corruption("list column page without repetition levels");
    }
    LANCEDB_RETURN_NOT_OK(DefinitionToCodes(mb.layers(), path, def, item_count, &out->codes));
    if (path.max_rep > 0) out->rep = std::move(rep);
    int64_t visible = 0;
    for (uint16_t code : out->codes) visible += CodeIsVisible(path, code) ? 1 : 0;
    if (visible != out->values.num_values) {
      return Status::Corruption("levels describe " + std::to_string(visible) +
                                " values but the chunks hold " +
                                std::to_string(out->values.num_values));
    }
    return Status::OK();
  }
};

}  // namespace

std::shared_ptr<const PageDecoder> MakeMiniBlockDecoder() {
  return std::make_shared<MiniBlockDecoder>();
}

}  // namespace lancedb::format
