// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Mini-block page decoder (lance-format.md §2.3): u16 (2.1) or u32 (2.2, has_large_chunk)
// chunk words in buffer 0, chunks in buffer 1 with the grammar
//   u16 num_levels [u16 rep_bytes] [u16 def_bytes] (u16|u32 size) x num_buffers, pad to 8,
//   [rep, pad 8] [def, pad 8] value buffers each padded to 8.
// A dictionary page (MiniBlockLayout.dictionary) holds its block-encoded dictionary in buffer 2
// and index values in the chunks; indices are mapped through the dictionary chunk by chunk.
// Levels are decoded per chunk with the page-wide rep/def block encodings.
// Every offset read from the file is bounds-checked.

#include <algorithm>
#include <cstring>

#include "format/page_decoder.h"
#include "format/page_rows.h"

namespace lancedb::format {

namespace pb = lance::encodings21;

namespace {

int64_t PadTo8(int64_t x) { return (x + 7) / 8 * 8; }

class ChunkReader {
 public:
  explicit ChunkReader(std::span<const uint8_t> chunk) : chunk_(chunk) {}
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

Status BadIndex(uint64_t index, uint64_t size) {
  return Status::Corruption("dictionary index " + std::to_string(index) + " out of range [0, " +
                            std::to_string(size) + ")");
}

/// Gather dictionary entries by index into `out`. Indices are `index_bits` wide.
/// `max_bytes` bounds the gathered variable-width bytes of the whole page.
template <typename Index>
Status GatherDictionary(const LeafValues& dict, const uint8_t* indices, int64_t n,
                        int64_t max_bytes, LeafValues* out) {
  const uint64_t size = static_cast<uint64_t>(dict.num_values);
  if (dict.kind == ValueKind::kVariable) {
    int64_t total = static_cast<int64_t>(out->data.size());
    for (int64_t i = 0; i < n; ++i) {
      Index idx;
      std::memcpy(&idx, indices + i * static_cast<int64_t>(sizeof(Index)), sizeof(Index));
      if (static_cast<uint64_t>(idx) >= size) return BadIndex(static_cast<uint64_t>(idx), size);
      total += dict.offsets[idx + 1] - dict.offsets[idx];
    }
    if (total > max_bytes) {
      return Status::Corruption("dictionary values expand to more than " +
                                std::to_string(max_bytes) + " bytes");
    }
    // Size the output once, then copy every entry.
    size_t pos = out->data.size();
    out->data.resize(static_cast<size_t>(total));
    const size_t first = out->offsets.size();
    out->offsets.resize(first + static_cast<size_t>(n));
    int64_t* ends = out->offsets.data() + first;
    int64_t end_offset = ends[-1];
    for (int64_t i = 0; i < n; ++i) {
      Index idx;
      std::memcpy(&idx, indices + i * static_cast<int64_t>(sizeof(Index)), sizeof(Index));
      const int64_t begin = dict.offsets[idx];
      const size_t len = static_cast<size_t>(dict.offsets[idx + 1] - begin);
      if (len > 0) std::memcpy(out->data.data() + pos, dict.data.data() + begin, len);
      pos += len;
      end_offset += static_cast<int64_t>(len);
      ends[i] = end_offset;
    }
    out->num_values += n;
    return Status::OK();
  }
  if (dict.bits_per_value % 8 != 0 || dict.fsl_dim != 0) {
    return Status::NotSupported("dictionary of " + std::to_string(dict.bits_per_value) +
                                "-bit values");
  }
  const int64_t width = dict.bits_per_value / 8;
  uint8_t* dst = GrowFixed(out, n);
  for (int64_t i = 0; i < n; ++i) {
    Index idx;
    std::memcpy(&idx, indices + i * static_cast<int64_t>(sizeof(Index)), sizeof(Index));
    if (static_cast<uint64_t>(idx) >= size) return BadIndex(static_cast<uint64_t>(idx), size);
    std::memcpy(dst + i * width, dict.data.data() + static_cast<int64_t>(idx) * width,
                static_cast<size_t>(width));
  }
  return Status::OK();
}

/// The page's dictionary (buffer 2) and a chunk decoder that maps indices through it. For a
/// dictionary-typed leaf, `*dictionary` receives the page's dictionary as an array.
Result<ChunkValueDecoder> MakeDictionaryDecoder(const pb::MiniBlockLayout& mb,
                                                const PageContext& ctx, int64_t max_items,
                                                array::ArrayPtr* dictionary) {
  if (ctx.buffers.size() < 3) return Status::Corruption("missing dictionary buffer");
  const int64_t num_entries = static_cast<int64_t>(mb.num_dictionary_items());
  // A stored dictionary takes at least a bit per entry; it may hold entries no value of the page
  // uses (the input dictionary of a dictionary column is written whole). A constant dictionary
  // takes no space: it has at most one entry per value of the page.
  const int64_t max_entries = mb.dictionary().has_constant()
                                  ? std::min(static_cast<int64_t>(mb.num_items()), max_items)
                                  : ctx.buffers[2]->size() * 8 + 1024;
  if (num_entries < 0 || num_entries > max_entries) {
    return Status::Corruption("dictionary claims " + std::to_string(num_entries) + " entries");
  }
  // Mini-block values are narrow (Lance uses full-zip for values of 256 bytes or more), so a
  // page expands at most ~4096-fold over its encoded bytes; at least 128 MiB is allowed.
  int64_t encoded_bytes = 0;
  for (size_t i = 0; i < ctx.buffers.size(); ++i) {
    encoded_bytes += ctx.buffers[i]                ? ctx.buffers[i]->size()
                     : i < ctx.buffer_sizes.size() ? ctx.buffer_sizes[i]
                                                   : 0;
  }
  const int64_t max_bytes = std::max<int64_t>(int64_t{128} << 20, encoded_bytes * 4096);
  auto dict = std::make_shared<LeafValues>(ctx.value_layout);
  LANCEDB_ASSIGN_OR_RETURN(
      BlockValueDecoder dict_decoder,
      ValueDecoderRegistry::Default().MakeBlock(mb.dictionary(), ctx.value_layout));
  auto st = dict_decoder(ctx.buffers[2]->span(), num_entries, dict.get());
  if (!st.ok()) return st.WithContext("Dictionary");
  if (dict->num_values != num_entries) return Status::Corruption("dictionary size mismatch");
  const array::DataTypePtr& leaf_type = ctx.path->leaf_type;
  if (leaf_type != nullptr && leaf_type->is_dictionary()) {
    LANCEDB_ASSIGN_OR_RETURN(*dictionary, LeafValuesToArray(leaf_type->value_type(), *dict));
  }
  LANCEDB_ASSIGN_OR_RETURN(int64_t index_bits, DecodedValueBits(mb.value_compression()));
  if (index_bits != 8 && index_bits != 16 && index_bits != 32 && index_bits != 64) {
    return Status::NotSupported("dictionary indices of " + std::to_string(index_bits) + " bits");
  }
  auto indices = std::make_shared<LeafValues>(FixedLayout(index_bits));
  LANCEDB_ASSIGN_OR_RETURN(ChunkValueDecoder index_decoder,
                           ValueDecoderRegistry::Default().Make(mb.value_compression(), *indices));
  return ChunkValueDecoder(
      [dict, indices, index_decoder = std::move(index_decoder), index_bits, max_bytes](
          std::span<const std::span<const uint8_t>> buffers, int64_t n, LeafValues* out) -> Status {
        indices->Clear();
        LANCEDB_RETURN_NOT_OK(index_decoder(buffers, n, indices.get()));
        const uint8_t* p = indices->data.data();
        switch (index_bits) {
          case 8:
            return GatherDictionary<uint8_t>(*dict, p, n, max_bytes, out);
          case 16:
            return GatherDictionary<uint16_t>(*dict, p, n, max_bytes, out);
          case 32:
            return GatherDictionary<uint32_t>(*dict, p, n, max_bytes, out);
          default:
            return GatherDictionary<uint64_t>(*dict, p, n, max_bytes, out);
        }
      });
}

/// One chunk of a mini-block page: its bytes in buffer 1, its values and, from the repetition
/// index, the rows that start in it.
struct Chunk {
  int64_t offset = 0;
  int64_t bytes = 0;
  int64_t num_values = 0;
  int64_t first_row = 0;     // page row of the first row that starts in this chunk
  int64_t row_starts = 0;    // rows that start in this chunk
  bool has_trailer = false;  // its last row continues in the next chunk
};

/// A mini-block page opened for decoding: the chunk table and the value and level decoders.
/// Value decoders own scratch space, so one MiniBlockPage serves one thread.
class MiniBlockPage {
 public:
  Status Open(const pb::MiniBlockLayout& mb, const PageContext& ctx) {
    mb_ = &mb;
    ctx_ = &ctx;
    if (ctx.buffers.size() < 2 || !ctx.buffers[0]) return Status::Corruption("missing buffers");
    word_bytes_ = mb.has_large_chunk() ? 4 : 2;
    const int64_t num_chunks = static_cast<int64_t>(ctx.buffers[0]->size()) / word_bytes_;
    const int64_t max_items = num_chunks * kMaxChunkValues;
    if (mb.has_dictionary()) {
      LANCEDB_ASSIGN_OR_RETURN(decode_values_,
                               MakeDictionaryDecoder(mb, ctx, max_items, &dictionary_));
    } else {
      LANCEDB_ASSIGN_OR_RETURN(decode_values_, ValueDecoderRegistry::Default().Make(
                                                   mb.value_compression(), ctx.value_layout));
    }
    if (mb.has_rep_compression()) {
      LANCEDB_ASSIGN_OR_RETURN(rep_decoder_, MakeLevelDecoder(mb.rep_compression()));
    }
    if (mb.has_def_compression()) {
      LANCEDB_ASSIGN_OR_RETURN(def_decoder_, MakeLevelDecoder(mb.def_compression()));
    }
    num_items_ = static_cast<int64_t>(mb.num_items());
    num_buffers_ = static_cast<int64_t>(mb.num_buffers());
    if (num_buffers_ < 1 || num_buffers_ > 16) return Status::Corruption("bad num_buffers");
    if (num_items_ < 0 || num_items_ > max_items) {
      return Status::Corruption(std::to_string(num_items_) + " items in " +
                                std::to_string(num_chunks) + " chunks");
    }
    return ReadChunkTable(num_chunks);
  }

  int64_t num_items() const { return num_items_; }
  int64_t num_chunks() const { return static_cast<int64_t>(chunks_.size()); }
  bool has_rep() const { return mb_->has_rep_compression(); }
  bool has_def() const { return mb_->has_def_compression(); }
  const Chunk& chunk(int64_t c) const { return chunks_[static_cast<size_t>(c)]; }
  /// The page's dictionary when the leaf is dictionary-typed and the page has one, else null.
  const array::ArrayPtr& dictionary() const { return dictionary_; }

  /// Decode chunks [begin, end): levels are appended to `rep`/`def`, values to `values`.
  /// `data` holds the bytes of buffer 1 from offset `base` on, through the end of chunk end - 1.
  Status DecodeChunks(int64_t begin, int64_t end, std::span<const uint8_t> data, int64_t base,
                      std::vector<uint16_t>* rep, std::vector<uint16_t>* def,
                      LeafValues* values) const {
    std::vector<std::span<const uint8_t>> buffers(static_cast<size_t>(num_buffers_));
    std::vector<int64_t> sizes(static_cast<size_t>(num_buffers_));
    for (int64_t c = begin; c < end; ++c) {
      const Chunk& chunk = chunks_[static_cast<size_t>(c)];
      ChunkReader reader(
          data.subspan(static_cast<size_t>(chunk.offset - base), static_cast<size_t>(chunk.bytes)));
      LANCEDB_ASSIGN_OR_RETURN(uint64_t num_levels, reader.Read(2));
      uint64_t rep_bytes = 0;
      uint64_t def_bytes = 0;
      if (has_rep()) {
        LANCEDB_ASSIGN_OR_RETURN(rep_bytes, reader.Read(2));
      }
      if (has_def()) {
        LANCEDB_ASSIGN_OR_RETURN(def_bytes, reader.Read(2));
      }
      for (int64_t b = 0; b < num_buffers_; ++b) {
        LANCEDB_ASSIGN_OR_RETURN(uint64_t size, reader.Read(word_bytes_));
        sizes[b] = static_cast<int64_t>(size);
      }
      if (has_rep()) {
        LANCEDB_ASSIGN_OR_RETURN(auto bytes, reader.Take(static_cast<int64_t>(rep_bytes)));
        auto st = DecodeLevelsWith(rep_decoder_, bytes, static_cast<int64_t>(num_levels), rep);
        if (!st.ok()) return st.WithContext("Repetition levels of chunk " + std::to_string(c));
      }
      if (has_def()) {
        LANCEDB_ASSIGN_OR_RETURN(auto bytes, reader.Take(static_cast<int64_t>(def_bytes)));
        auto st = DecodeLevelsWith(def_decoder_, bytes, static_cast<int64_t>(num_levels), def);
        if (!st.ok()) return st.WithContext("Definition levels of chunk " + std::to_string(c));
      }
      for (int64_t b = 0; b < num_buffers_; ++b) {
        LANCEDB_ASSIGN_OR_RETURN(buffers[b], reader.Take(sizes[b]));
      }
      auto st = decode_values_(buffers, chunk.num_values, values);
      if (!st.ok()) return st.WithContext("Values of chunk " + std::to_string(c));
    }
    return Status::OK();
  }

  /// Turn decoded levels into items of `out` (whose values are decoded), checking that the
  /// levels describe as many visible items as there are values.
  Status FinishItems(std::vector<uint16_t> rep, const std::vector<uint16_t>& def,
                     int64_t num_values, LeafItems* out) const {
    const LeafPath& path = *ctx_->path;
    const int64_t item_count = has_rep()   ? static_cast<int64_t>(rep.size())
                               : has_def() ? static_cast<int64_t>(def.size())
                                           : num_values;
    if (path.max_rep > 0 && !has_rep()) {
      return Status::Corruption("list column page without repetition levels");
    }
    LANCEDB_RETURN_NOT_OK(DefinitionToCodes(mb_->layers(), path, def, item_count, &out->codes));
    if (path.max_rep > 0) out->rep = std::move(rep);
    const int64_t visible = CountVisible(path, out->codes);
    if (visible != out->values.num_values) {
      return Status::Corruption("levels describe " + std::to_string(visible) +
                                " values but the chunks hold " +
                                std::to_string(out->values.num_values));
    }
    return Status::OK();
  }

  /// Find the rows of every chunk: without lists a chunk's rows are its values; with lists
  /// they come from the repetition index, [rows ended in the chunk, items of its trailing
  /// partial row, ...] per chunk (lance-format.md §2.3). False when the page has no usable
  /// index.
  Result<bool> IndexChunkRows() {
    const LeafPath& path = *ctx_->path;
    if (path.max_rep == 0) {
      if (has_rep()) return false;
      int64_t row = 0;
      for (Chunk& c : chunks_) {
        c.first_row = row;
        c.row_starts = c.num_values;
        row += c.num_values;
      }
      return row == ctx_->num_rows ? Result<bool>(true) : RowCountMismatch(row);
    }
    const int64_t stride = static_cast<int64_t>(mb_->repetition_index_depth()) + 1;
    const size_t index_buffer = mb_->has_dictionary() ? 3 : 2;
    // Lance writes depth 1 (or the nesting depth); deeper indices are not used here.
    if (!has_rep() || stride < 2 || stride > 64 || ctx_->buffers.size() <= index_buffer) {
      return false;
    }
    const auto index = ctx_->buffers[index_buffer]->span();
    if (static_cast<int64_t>(index.size()) != num_chunks() * stride * 8) {
      return Status::Corruption("repetition index of " + std::to_string(index.size()) +
                                " bytes for " + std::to_string(num_chunks()) + " chunks");
    }
    int64_t row = 0;
    bool has_preamble = false;
    for (int64_t c = 0; c < num_chunks(); ++c) {
      uint64_t ends = 0;
      uint64_t partial = 0;
      std::memcpy(&ends, index.data() + c * stride * 8, 8);
      std::memcpy(&partial, index.data() + c * stride * 8 + 8, 8);
      Chunk& chunk = chunks_[static_cast<size_t>(c)];
      chunk.has_trailer = partial > 0;
      const uint64_t starts = ends + (chunk.has_trailer ? 1 : 0);
      // A chunk cannot start more rows than the page has (rows may hold no values).
      if (starts < (has_preamble ? 1u : 0u) || starts > static_cast<uint64_t>(ctx_->num_rows) + 1) {
        return Status::Corruption("repetition index of chunk " + std::to_string(c) +
                                  " is inconsistent");
      }
      chunk.first_row = row;
      chunk.row_starts = static_cast<int64_t>(starts) - (has_preamble ? 1 : 0);
      row += chunk.row_starts;
      if (row > ctx_->num_rows) break;
      has_preamble = chunk.has_trailer;
    }
    return row == ctx_->num_rows ? Result<bool>(true) : RowCountMismatch(row);
  }

 private:
  Status ReadChunkTable(int64_t num_chunks) {
    const auto words = ctx_->buffers[0]->span();
    const int64_t data_size = ctx_->buffers[1]                ? ctx_->buffers[1]->size()
                              : ctx_->buffer_sizes.size() > 1 ? ctx_->buffer_sizes[1]
                                                              : 0;
    chunks_.resize(static_cast<size_t>(num_chunks));
    int64_t offset = 0;
    int64_t values_seen = 0;
    for (int64_t c = 0; c < num_chunks; ++c) {
      uint64_t word = 0;
      std::memcpy(&word, words.data() + c * word_bytes_, static_cast<size_t>(word_bytes_));
      const int64_t chunk_bytes = static_cast<int64_t>((word >> 4) + 1) * 8;
      const int log2 = static_cast<int>(word & 0xF);
      const bool last = c + 1 == num_chunks;
      const int64_t n = last ? num_items_ - values_seen : (int64_t{1} << log2);
      if (n < 0 || n > kMaxChunkValues || offset + chunk_bytes > data_size) {
        return Status::Corruption("chunk " + std::to_string(c) + " is out of bounds");
      }
      chunks_[static_cast<size_t>(c)] = Chunk{offset, chunk_bytes, n};
      values_seen += n;
      offset += chunk_bytes;
    }
    if (values_seen != num_items_) {
      return Status::Corruption("chunks hold " + std::to_string(values_seen) +
                                " values, expected " + std::to_string(num_items_));
    }
    return Status::OK();
  }

  Status RowCountMismatch(int64_t rows) const {
    return Status::Corruption("chunks hold " + std::to_string(rows) + " rows, expected " +
                              std::to_string(ctx_->num_rows));
  }

  const pb::MiniBlockLayout* mb_ = nullptr;
  const PageContext* ctx_ = nullptr;
  int word_bytes_ = 2;
  int64_t num_items_ = 0;
  int64_t num_buffers_ = 0;
  std::vector<Chunk> chunks_;
  ChunkValueDecoder decode_values_;
  array::ArrayPtr dictionary_;
  BlockValueDecoder rep_decoder_;
  BlockValueDecoder def_decoder_;
};

/// Chunks [first, last] that hold a run of page rows.
struct ChunkSpan {
  int64_t first = 0;
  int64_t last = 0;
};

class MiniBlockDecoder final : public PageDecoder {
 public:
  Status Decode(const pb::PageLayout& layout, const PageContext& ctx,
                LeafItems* out) const override {
    auto st = DecodeImpl(layout.mini_block_layout(), ctx, out);
    return st.ok() ? st : st.WithContext("Mini-block page in " + ctx.where);
  }

  /// Takes read the chunks they need from buffer 1.
  std::vector<size_t> RangeBuffers(const pb::PageLayout& layout) const override { return {1}; }

  Result<bool> DecodeRows(const pb::PageLayout& layout, const PageContext& ctx,
                          std::span<const int64_t> rows, LeafItems* out) const override {
    auto taken = DecodeRowsImpl(layout.mini_block_layout(), ctx, rows, out);
    if (!taken.ok()) return taken.status().WithContext("Mini-block page in " + ctx.where);
    return taken;
  }

 private:
  static Status DecodeImpl(const pb::MiniBlockLayout& mb, const PageContext& ctx, LeafItems* out) {
    MiniBlockPage page;
    LANCEDB_RETURN_NOT_OK(page.Open(mb, ctx));
    out->num_rows = ctx.num_rows;
    out->values = ctx.value_layout;
    const int64_t data_size = ctx.buffers[1]->size();
    if (out->values.kind == ValueKind::kFixed && page.num_items() <= data_size * 8) {
      out->values.data.reserve(
          static_cast<size_t>((page.num_items() * out->values.bits_per_value + 7) / 8));
    } else if (out->values.kind == ValueKind::kVariable) {
      // Size the page once for typical expansions (none, or FSST's ~3x); both bounded by the
      // chunk bytes (every chunk holds its offsets).
      out->values.offsets.reserve(static_cast<size_t>(page.num_items()) + 1);
      const bool fsst = mb.value_compression().has_fsst();
      out->values.data.reserve(static_cast<size_t>(data_size * (fsst ? 3 : 1)));
    }
    std::vector<uint16_t> rep;
    std::vector<uint16_t> def;
    LANCEDB_RETURN_NOT_OK(page.DecodeChunks(0, page.num_chunks(), ctx.buffers[1]->span(), 0, &rep,
                                            &def, &out->values));
    if (out->values.num_values != page.num_items()) {
      return Status::Corruption("chunks decoded to " + std::to_string(out->values.num_values) +
                                " values, expected " + std::to_string(page.num_items()));
    }
    if (page.dictionary()) out->AddDictionary(page.dictionary());
    return page.FinishItems(std::move(rep), def, page.num_items(), out);
  }

  /// The chunks holding page row `row`: the chunk it starts in, and the following chunks while
  /// the row continues in them.
  static ChunkSpan ChunksOfRow(const MiniBlockPage& page, int64_t row) {
    int64_t lo = 0;
    int64_t hi = page.num_chunks();  // first chunk with first_row > row
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (page.chunk(mid).first_row <= row) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    ChunkSpan span{lo - 1, lo - 1};
    const Chunk& first = page.chunk(span.first);
    if (row + 1 < first.first_row + first.row_starts) return span;
    while (page.chunk(span.last).has_trailer && span.last + 1 < page.num_chunks()) {
      ++span.last;
      if (page.chunk(span.last).row_starts > 0) break;
    }
    return span;
  }

  /// Rows [begin, end) of a take and the chunks that hold them.
  struct RowGroup {
    ChunkSpan span;
    size_t begin = 0;
    size_t end = 0;
  };

  /// Group the rows whose chunks overlap or touch, so that every chunk is decoded once.
  static Result<std::vector<RowGroup>> GroupRows(const MiniBlockPage& page, const PageContext& ctx,
                                                 std::span<const int64_t> rows) {
    std::vector<RowGroup> groups;
    size_t i = 0;
    while (i < rows.size()) {
      if (rows[i] < 0 || rows[i] >= ctx.num_rows) {
        return Status::InvalidArgument("row " + std::to_string(rows[i]) + " is not in the page");
      }
      RowGroup group{ChunksOfRow(page, rows[i]), i, i + 1};
      while (group.end < rows.size() && rows[group.end] < ctx.num_rows) {
        const ChunkSpan next = ChunksOfRow(page, rows[group.end]);
        if (next.first > group.span.last + 1) break;
        group.span.last = std::max(group.span.last, next.last);
        ++group.end;
      }
      groups.push_back(group);
      i = group.end;
    }
    return groups;
  }

  /// Decode the chunks of `group` from `data` (bytes of buffer 1 from offset `base` on) and
  /// append its rows to `out`.
  static Status DecodeGroup(const MiniBlockPage& page, const PageContext& ctx,
                            const RowGroup& group, std::span<const int64_t> rows,
                            std::span<const uint8_t> data, int64_t base, LeafItems* out) {
    const LeafPath& path = *ctx.path;
    const ChunkSpan span = group.span;
    DecodedItems decoded;
    decoded.items.values = ctx.value_layout;
    std::vector<uint16_t> rep;
    std::vector<uint16_t> def;
    LANCEDB_RETURN_NOT_OK(page.DecodeChunks(span.first, span.last + 1, data, base, &rep, &def,
                                            &decoded.items.values));
    LANCEDB_RETURN_NOT_OK(
        page.FinishItems(std::move(rep), def, decoded.items.values.num_values, &decoded.items));
    if (page.dictionary()) decoded.items.AddDictionary(page.dictionary());
    decoded.IndexRows(path);
    int64_t expected = 0;
    for (int64_t c = span.first; c <= span.last; ++c) expected += page.chunk(c).row_starts;
    const int64_t first_row = page.chunk(span.first).first_row;
    const int64_t indexed = decoded.num_indexed_rows(path);
    if (indexed != expected || rows[group.end - 1] - first_row >= indexed) {
      return Status::Corruption("chunks " + std::to_string(span.first) + " to " +
                                std::to_string(span.last) + " start " + std::to_string(indexed) +
                                " rows, the repetition index says " + std::to_string(expected));
    }
    AppendRowList(path, decoded, rows.subspan(group.begin, group.end - group.begin), first_row,
                  out);
    return Status::OK();
  }

  /// Groups closer than this in buffer 1 are read at once (fewer, slightly larger reads).
  static constexpr int64_t kMaxReadGap = 64 << 10;
  static constexpr int64_t kMaxReadBytes = 8 << 20;

  static Result<bool> DecodeRowsImpl(const pb::MiniBlockLayout& mb, const PageContext& ctx,
                                     std::span<const int64_t> rows, LeafItems* out) {
    MiniBlockPage page;
    LANCEDB_RETURN_NOT_OK(page.Open(mb, ctx));
    LANCEDB_ASSIGN_OR_RETURN(bool indexed, page.IndexChunkRows());
    if (!indexed) return false;
    LANCEDB_ASSIGN_OR_RETURN(std::vector<RowGroup> groups, GroupRows(page, ctx, rows));
    auto begin_of = [&](size_t g) { return page.chunk(groups[g].span.first).offset; };
    auto end_of = [&](size_t g) {
      const Chunk& last = page.chunk(groups[g].span.last);
      return last.offset + last.bytes;
    };
    size_t g = 0;
    while (g < groups.size()) {
      size_t h = g + 1;  // groups [g, h) share one read
      while (h < groups.size() && begin_of(h) - end_of(h - 1) <= kMaxReadGap &&
             end_of(h) - begin_of(g) <= kMaxReadBytes) {
        ++h;
      }
      const int64_t base = begin_of(g);
      LANCEDB_ASSIGN_OR_RETURN(BufferPtr data, ReadPageRange(ctx, 1, base, end_of(h - 1) - base));
      for (; g < h; ++g) {
        LANCEDB_RETURN_NOT_OK(DecodeGroup(page, ctx, groups[g], rows, data->span(), base, out));
      }
    }
    return true;
  }
};

}  // namespace

std::shared_ptr<const PageDecoder> MakeMiniBlockDecoder() {
  return std::make_shared<MiniBlockDecoder>();
}

}  // namespace lancedb::format
