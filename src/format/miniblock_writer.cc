// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Mini-block page writer (lance-format.md §2.3), in the grammar of file version 2.2 or 2.1:
//   buffer 0: one word per chunk (u32 in 2.2, u16 in 2.1),
//             ((chunk_bytes / 8 - 1) << 4) | log2(values in chunk), the last chunk storing
//             log2 = 0; a 2.1 chunk is therefore at most 32 KiB;
//   buffer 1: the chunks, each
//             u16 num_levels [u16 rep_bytes] [u16 def_bytes] size per value buffer (u32 in
//             2.2, u16 in 2.1), 0xFE padding to 8, then rep, def and each value buffer, each
//             padded to 8;
//   buffer 2: the repetition index when there are lists: per chunk (u64 rows completed in the
//             chunk, u64 leftover items of an unfinished row).
// Every chunk but the last holds a power-of-two number of values (at most 4096). Levels are
// raw u16 (Flat(16)); a chunk takes the levels up to its last value, so invisible items (null
// or empty lists) right after a chunk's last value start the next chunk.

#include <algorithm>
#include <bit>
#include <cstring>
#include <string_view>

#include "common/bit_util.h"
#include "format/page_decoder.h"
#include "format/page_encoder.h"

namespace lancedb::format {

namespace pb = lance::encodings21;

namespace {

constexpr int64_t kMaxFixedChunkBytes = 8 * 1024 - 6;
constexpr int64_t kTargetVariableChunkBytes = 4 * 1024;
constexpr uint8_t kChunkPad = 0xFE;
constexpr uint8_t kVariablePad = 0x48;

struct PlannedChunk {
  int64_t first_value = 0;
  int64_t num_values = 0;
};

/// Power-of-two values per chunk for fixed-width values (about 4 KiB per chunk).
int64_t FixedValuesPerChunk(const LeafValues& v, bool with_validity) {
  int64_t bytes_per_word = v.bits_per_value % 8 == 0 ? v.bits_per_value / 8 : v.bits_per_value;
  int64_t values_per_word = v.bits_per_value % 8 == 0 ? 1 : 8;
  if (with_validity) bytes_per_word += bit_util::CeilDiv(v.fsl_dim, 8) * values_per_word;
  int64_t size = 2 * bytes_per_word;
  int64_t n = values_per_word == 1 ? 2 : 8;
  while (2 * size < kMaxFixedChunkBytes && 2 * n <= kMaxChunkValues) {
    size *= 2;
    n *= 2;
  }
  return n;
}

/// Values per chunk: at most `max_values` (a power of two) each.
std::vector<PlannedChunk> PlanChunks(const LeafValues& v, bool with_validity, int64_t max_values) {
  std::vector<PlannedChunk> chunks;
  const int64_t total = v.num_values;
  int64_t start = 0;
  const int64_t width = v.large_offsets ? 8 : 4;
  const int64_t fixed_n =
      v.kind == ValueKind::kFixed ? std::min(FixedValuesPerChunk(v, with_validity), max_values) : 0;
  while (start < total) {
    int64_t remaining = total - start;
    int64_t n;
    if (v.kind == ValueKind::kFixed) {
      n = std::min(fixed_n, remaining);
    } else {
      auto bytes = [&](int64_t count) {
        return v.offsets[start + count] - v.offsets[start] + (count + 1) * width;
      };
      if (remaining <= max_values && bytes(remaining) <= kTargetVariableChunkBytes) {
        n = remaining;
      } else {
        n = std::min<int64_t>(2, max_values);
        while (2 * n <= max_values && 2 * n <= remaining &&
               bytes(2 * n) <= kTargetVariableChunkBytes) {
          n *= 2;
        }
        n = std::min(n, remaining);
      }
    }
    chunks.push_back({start, n});
    start += n;
  }
  return chunks;
}

void PadTo(std::vector<uint8_t>* out, size_t alignment, uint8_t byte) {
  while (out->size() % alignment != 0) out->push_back(byte);
}

/// The value buffers of one chunk.
std::vector<std::vector<uint8_t>> ChunkValueBuffers(const LeafValues& v, const PlannedChunk& c,
                                                    bool with_validity) {
  std::vector<std::vector<uint8_t>> buffers;
  if (v.kind == ValueKind::kVariable) {
    const int64_t width = v.large_offsets ? 8 : 4;
    std::vector<uint8_t> buf;
    const int64_t base = v.offsets[c.first_value];
    const int64_t header = (c.num_values + 1) * width;
    for (int64_t i = 0; i <= c.num_values; ++i) {
      int64_t off = v.offsets[c.first_value + i] - base + header;
      if (width == 8) {
        buf.insert(buf.end(), reinterpret_cast<uint8_t*>(&off),
                   reinterpret_cast<uint8_t*>(&off) + 8);
      } else {
        uint32_t off32 = static_cast<uint32_t>(off);
        buf.insert(buf.end(), reinterpret_cast<uint8_t*>(&off32),
                   reinterpret_cast<uint8_t*>(&off32) + 4);
      }
    }
    buf.insert(buf.end(), v.data.begin() + base,
               v.data.begin() + v.offsets[c.first_value + c.num_values]);
    PadTo(&buf, static_cast<size_t>(width), kVariablePad);
    buffers.push_back(std::move(buf));
    return buffers;
  }
  if (with_validity) {
    std::vector<uint8_t> bits;
    int64_t nbits = 0;
    AppendBits(v.item_validity.data(), c.first_value * v.fsl_dim, c.num_values * v.fsl_dim, &bits,
               &nbits);
    buffers.push_back(std::move(bits));
  }
  std::vector<uint8_t> data;
  if (v.bits_per_value % 8 == 0) {
    const int64_t w = v.bits_per_value / 8;
    data.assign(v.data.begin() + c.first_value * w,
                v.data.begin() + (c.first_value + c.num_values) * w);
  } else {
    int64_t nbits = 0;
    AppendBits(v.data.data(), c.first_value * v.bits_per_value, c.num_values * v.bits_per_value,
               &data, &nbits);
  }
  buffers.push_back(std::move(data));
  return buffers;
}

/// The message of EncodeChunks' NotSupported when a chunk outgrows its header (over 32767
/// levels; in 2.1 also a value buffer over 64 KiB or a chunk over 32 KiB): EncodeMiniBlock then
/// tries fewer values per chunk.
constexpr std::string_view kChunkTooLarge = "Mini-block chunk too large";

/// Encode the page with at most `max_values` values per chunk.
Result<EncodedPage> EncodeChunks(const LeafPath& path, const LeafItems& items,
                                 const PageLevels& levels, const pb::CompressiveEncoding& value,
                                 bool with_validity, int minor_version, int64_t max_values) {
  const bool small = minor_version == 1;  // 2.1: u16 chunk words and buffer sizes
  const LeafValues& v = items.values;
  const std::vector<PlannedChunk> chunks = PlanChunks(v, with_validity, max_values);
  const bool has_rep = !items.rep.empty();
  const bool has_def = !levels.def.empty();
  const uint16_t max_rep = static_cast<uint16_t>(path.max_rep);
  const int64_t num_items = items.num_items();
  auto visible = [&](int64_t i) { return !has_def || levels.def[i] <= levels.max_visible_def; };

  std::vector<uint8_t> data;
  std::vector<uint32_t> words;
  std::vector<uint64_t> rep_index;
  int64_t level_pos = 0;
  size_t num_value_buffers = 1;
  for (size_t ci = 0; ci < chunks.size(); ++ci) {
    const PlannedChunk& c = chunks[ci];
    const bool last = ci + 1 == chunks.size();
    // Levels of this chunk: up to (and including) its last visible item.
    int64_t level_start = level_pos;
    if (has_rep || has_def) {
      if (last) {
        level_pos = num_items;
      } else {
        int64_t taken = 0;
        while (taken < c.num_values) taken += visible(level_pos++) ? 1 : 0;
      }
    }
    const int64_t num_levels = level_pos - level_start;
    if (num_levels > 32767) {
      return Status::NotSupported(std::string(kChunkTooLarge));
    }
    if (has_rep) {
      // Repetition index: rows finishing in the chunk and leftover items (Lance semantics).
      const uint16_t* r = items.rep.data() + level_start;
      uint64_t rows = 0;
      for (int64_t i = 1; i < num_levels; ++i) rows += r[i] == max_rep ? 1 : 0;
      uint64_t leftovers = 0;
      if (!last) {
        leftovers = static_cast<uint64_t>(num_levels);
        for (int64_t i = num_levels - 1; i >= 0; --i) {
          if (r[i] == max_rep) {
            leftovers = static_cast<uint64_t>(num_levels - i);
            break;
          }
        }
      }
      if (ci > 0 && num_levels > 0 && r[0] == max_rep && rep_index.back() != 0) {
        rep_index[rep_index.size() - 2] += 1;
        rep_index.back() = 0;
      }
      if (last) rows += 1;
      rep_index.push_back(rows);
      rep_index.push_back(leftovers);
    }
    auto value_buffers = ChunkValueBuffers(v, c, with_validity);
    num_value_buffers = value_buffers.size();
    const size_t chunk_start = data.size();
    auto put16 = [&](uint16_t x) {
      data.push_back(static_cast<uint8_t>(x));
      data.push_back(static_cast<uint8_t>(x >> 8));
    };
    put16(static_cast<uint16_t>((has_rep || has_def) ? num_levels : 0));
    if (has_rep) put16(static_cast<uint16_t>(num_levels * 2));
    if (has_def) put16(static_cast<uint16_t>(num_levels * 2));
    for (const auto& b : value_buffers) {
      if (small) {
        if (b.size() > UINT16_MAX) return Status::NotSupported(std::string(kChunkTooLarge));
        put16(static_cast<uint16_t>(b.size()));
      } else {
        uint32_t size = static_cast<uint32_t>(b.size());
        data.insert(data.end(), reinterpret_cast<uint8_t*>(&size),
                    reinterpret_cast<uint8_t*>(&size) + 4);
      }
    }
    PadTo(&data, 8, kChunkPad);
    if (has_rep) {
      const auto* p = reinterpret_cast<const uint8_t*>(items.rep.data() + level_start);
      data.insert(data.end(), p, p + num_levels * 2);
      PadTo(&data, 8, kChunkPad);
    }
    if (has_def) {
      const auto* p = reinterpret_cast<const uint8_t*>(levels.def.data() + level_start);
      data.insert(data.end(), p, p + num_levels * 2);
      PadTo(&data, 8, kChunkPad);
    }
    for (const auto& b : value_buffers) {
      data.insert(data.end(), b.begin(), b.end());
      PadTo(&data, 8, kChunkPad);
    }
    const uint64_t chunk_bytes = data.size() - chunk_start;
    if (chunk_bytes / 8 - 1 >= (small ? (1u << 12) : (1u << 28))) {
      return Status::NotSupported(std::string(kChunkTooLarge));
    }
    const uint32_t log2 =
        last ? 0 : static_cast<uint32_t>(std::countr_zero(static_cast<uint64_t>(c.num_values)));
    words.push_back(static_cast<uint32_t>(((chunk_bytes / 8 - 1) << 4) | log2));
  }

  EncodedPage page;
  page.num_rows = items.num_rows;
  if (small) {
    std::vector<uint16_t> words16(words.begin(), words.end());
    page.buffers.push_back(Buffer::Copy(words16.data(), static_cast<int64_t>(words16.size() * 2)));
  } else {
    page.buffers.push_back(Buffer::Copy(words.data(), static_cast<int64_t>(words.size() * 4)));
  }
  page.buffers.push_back(Buffer::Copy(data.data(), static_cast<int64_t>(data.size())));
  if (has_rep) {
    page.buffers.push_back(
        Buffer::Copy(rep_index.data(), static_cast<int64_t>(rep_index.size() * 8)));
  }
  auto* mb = page.layout.mutable_mini_block_layout();
  if (has_rep) mb->mutable_rep_compression()->mutable_flat()->set_bits_per_value(16);
  if (has_def) mb->mutable_def_compression()->mutable_flat()->set_bits_per_value(16);
  *mb->mutable_value_compression() = value;
  for (auto l : levels.layers) mb->add_layers(l);
  mb->set_num_buffers(num_value_buffers);
  mb->set_repetition_index_depth(has_rep ? 1 : 0);
  mb->set_num_items(static_cast<uint64_t>(v.num_values));
  mb->set_has_large_chunk(!small);
  return page;
}

}  // namespace

Result<EncodedPage> EncodeMiniBlock(const LeafPath& path, const LeafItems& items,
                                    const PageLevels& levels, const pb::CompressiveEncoding& value,
                                    bool with_validity, int minor_version) {
  // A 2.1 chunk holds at most 32 KiB: with many rep/def levels (raw u16) per value, chunks of
  // fewer values are tried until every chunk fits.
  for (int64_t max_values = kMaxChunkValues;; max_values /= 2) {
    auto page = EncodeChunks(path, items, levels, value, with_validity, minor_version, max_values);
    if (page.ok() || max_values == 1 || page.status().message() != kChunkTooLarge) return page;
  }
}

}  // namespace lancedb::format
