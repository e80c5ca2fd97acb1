// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Page decoding for file versions 2.1/2.2 (lance-format.md §2.3). A page is decoded by the
// decoder registered for its structural layout (mini-block, full-zip, constant, ...); layouts
// hand their compressed buffers to the decoders registered for compressive encodings
// (Flat, Variable, FixedSizeList, ...). New layouts and encodings (bitpacking, FSST, RLE,
// dictionaries, general compression) plug in by registering more decoders; whatever is not
// registered fails with NotSupported naming the file, column and page.
// Thread-safety: registries are immutable after construction; decoders are stateless.

#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/buffer.h"
#include "format/leaf_data.h"
#include "format/proto/encodings_v2_1.pb.h"

namespace lancedb::format {

/// Most values one block decoder call may produce from an input that does not bound the count
/// (Constant); layout decoders bound their counts by rows, chunk sizes or buffer sizes first.
inline constexpr int64_t kMaxBlockValues = int64_t{1} << 28;

/// Most values in one mini-block chunk (Lance writes at most 4096).
inline constexpr int64_t kMaxChunkValues = 4096;

/// Everything a layout decoder needs about one page.
struct PageContext {
  const LeafPath* path = nullptr;
  int64_t num_rows = 0;
  std::vector<BufferPtr> buffers;
  /// "file 'x.lance', column 3, page 2", for error messages.
  std::string where;
  /// Empty values of the leaf's layout (kind, widths), to decode into.
  LeafValues value_layout;
  /// Size of every page buffer, also of those left unread (null in `buffers`).
  std::vector<int64_t> buffer_sizes;
  /// Reads bytes [offset, offset + length) of page buffer `index` (bounds-checked). Set by
  /// takes, which leave the buffers named by PageDecoder::RangeBuffers() unread.
  std::function<Result<BufferPtr>(size_t index, int64_t offset, int64_t length)> read_range;
};

/// Size of page buffer `index`, read or not; -1 when the page has no such buffer.
int64_t PageBufferSize(const PageContext& ctx, size_t index);

/// Bytes [offset, offset + length) of page buffer `index`: a slice of the buffer when it was
/// read, else a range read. Corruption when the range is outside the buffer.
Result<BufferPtr> ReadPageRange(const PageContext& ctx, size_t index, int64_t offset,
                                int64_t length);

/// Decodes whole pages of one structural layout into leaf items.
class PageDecoder {
 public:
  virtual ~PageDecoder() = default;
  /// Decode the page; `out` receives its items with page-independent level codes.
  virtual Status Decode(const lance::encodings21::PageLayout& layout, const PageContext& ctx,
                        LeafItems* out) const = 0;
  /// Decode only the page rows `rows` (ascending, repeats allowed) and append their items to
  /// `out` (whose values have the leaf's layout), in that order. Returns false, having appended
  /// nothing, when this page cannot locate rows without decoding all of it; the caller then
  /// decodes the whole page. Layouts decode each chunk or row range they need once.
  /// Page buffers that DecodeRows() reads by range (ReadPageRange) rather than whole.
  virtual std::vector<size_t> RangeBuffers(const lance::encodings21::PageLayout& layout) const {
    (void)layout;
    return {};
  }
  virtual Result<bool> DecodeRows(const lance::encodings21::PageLayout& layout,
                                  const PageContext& ctx, std::span<const int64_t> rows,
                                  LeafItems* out) const {
    (void)layout;
    (void)ctx;
    (void)rows;
    (void)out;
    return false;
  }
};

/// Layout decoders keyed by the PageLayout oneof case.
class PageDecoderRegistry {
 public:
  using LayoutCase = lance::encodings21::PageLayout::LayoutCase;
  void Register(LayoutCase layout, std::shared_ptr<const PageDecoder> decoder) {
    decoders_[layout] = std::move(decoder);
  }
  /// nullptr when no decoder handles `layout`.
  const PageDecoder* Find(LayoutCase layout) const {
    auto it = decoders_.find(layout);
    return it == decoders_.end() ? nullptr : it->second.get();
  }
  /// Mini-block, full-zip and constant layouts.
  static const PageDecoderRegistry& Default();

 private:
  std::map<LayoutCase, std::shared_ptr<const PageDecoder>> decoders_;
};

/// Decodes the value buffers of one mini-block chunk and appends the values to `out`.
using ChunkValueDecoder = std::function<Status(std::span<const std::span<const uint8_t>> buffers,
                                               int64_t num_values, LeafValues* out)>;

/// Decodes one buffer holding `num_values` values in a block context (levels, dictionaries,
/// constant-layout levels) and appends them to `out`.
using BlockValueDecoder =
    std::function<Status(std::span<const uint8_t> bytes, int64_t num_values, LeafValues* out)>;

/// Compressive-encoding decoders keyed by the CompressiveEncoding oneof case. A factory
/// inspects the encoding (and the leaf layout to decode into) and returns a decoder, or
/// NotSupported. Chunk decoders read mini-block chunk buffers; block decoders whole buffers.
class ValueDecoderRegistry {
 public:
  using CompressionCase = lance::encodings21::CompressiveEncoding::CompressionCase;
  using Factory = std::function<Result<ChunkValueDecoder>(
      const lance::encodings21::CompressiveEncoding& encoding, const LeafValues& layout)>;
  using BlockFactory = std::function<Result<BlockValueDecoder>(
      const lance::encodings21::CompressiveEncoding& encoding, const LeafValues& layout)>;
  void Register(CompressionCase c, Factory factory) { factories_[c] = std::move(factory); }
  void RegisterBlock(CompressionCase c, BlockFactory factory) {
    block_factories_[c] = std::move(factory);
  }
  Result<ChunkValueDecoder> Make(const lance::encodings21::CompressiveEncoding& encoding,
                                 const LeafValues& layout) const;
  Result<BlockValueDecoder> MakeBlock(const lance::encodings21::CompressiveEncoding& encoding,
                                      const LeafValues& layout) const;
  /// Every encoding Lance 2.1/2.2 writes: Flat, Variable, FixedSizeList, InlineBitpacking,
  /// OutOfLineBitpacking, Rle, Fsst, General, ByteStreamSplit, Constant.
  static const ValueDecoderRegistry& Default();

 private:
  std::map<CompressionCase, Factory> factories_;
  std::map<CompressionCase, BlockFactory> block_factories_;
};

/// Width in bits of the values an encoding decodes to when it is fixed-width (dictionary
/// indices); NotSupported otherwise.
Result<int64_t> DecodedValueBits(const lance::encodings21::CompressiveEncoding& encoding);

/// A fixed-width layout of `bits` per value (levels, dictionary indices).
LeafValues FixedLayout(int64_t bits);

/// Append `num_values` zero-initialised fixed-width values to `out` and return their bytes.
/// REQUIRES: out->bits_per_value % 8 == 0.
uint8_t* GrowFixed(LeafValues* out, int64_t num_values);

/// Name of a compressive encoding, for messages ("flat", "fsst", ...).
std::string EncodingName(const lance::encodings21::CompressiveEncoding& encoding);

/// Decoder of one buffer of u16 repetition or definition levels.
Result<BlockValueDecoder> MakeLevelDecoder(const lance::encodings21::CompressiveEncoding& encoding);

/// Decode `num_levels` levels from `bytes` with `decoder` and append them to `out`.
Status DecodeLevelsWith(const BlockValueDecoder& decoder, std::span<const uint8_t> bytes,
                        int64_t num_levels, std::vector<uint16_t>* out);

/// Decode levels with a decoder made for `encoding` (see MakeLevelDecoder).
Status DecodeLevels(const lance::encodings21::CompressiveEncoding& encoding,
                    std::span<const uint8_t> bytes, int64_t num_levels, std::vector<uint16_t>* out);

/// Translate a page's definition levels to level codes (leaf_data.h), given its layers.
Status DefinitionToCodes(const google::protobuf::RepeatedField<int>& layers, const LeafPath& path,
                         const std::vector<uint16_t>& def, int64_t num_items,
                         std::vector<uint16_t>* codes);

/// Highest definition level that still has a value slot, given the layers (inner to outer).
uint16_t MaxVisibleDefinition(const google::protobuf::RepeatedField<int>& layers);

/// True when an item with this level code has a value slot.
bool CodeIsVisible(const LeafPath& path, uint16_t code);

/// CodeIsVisible() of every code a page of `path` can hold (index = code).
std::vector<uint8_t> VisibleCodeTable(const LeafPath& path);

/// Number of items with a value slot among `codes` (all of them when the path has no list).
int64_t CountVisible(const LeafPath& path, std::span<const uint16_t> codes);

}  // namespace lancedb::format
