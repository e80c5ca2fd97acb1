// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Page encoding for file versions 2.1/2.2 (lance-format.md §2.3, §2.6): chooses a structural
// layout for the items of one page of a leaf column and serializes it with the simplest
// compressive encodings (Flat / Variable / FixedSizeList values, raw u16 rep/def levels):
//   * ConstantLayout when no leaf value is valid (2.1 calls it AllNullLayout and has no
//     num_rep_values / num_def_values: its levels are always raw u16 buffers 0 and 1),
//   * FullZipLayout when a value can be 256 bytes or more,
//   * MiniBlockLayout otherwise: u32 chunk words and buffer sizes in 2.2 (has_large_chunk),
//     u16 ones in 2.1 (chunks of at most 32 KiB).
// `minor_version` is the file version's minor number: 1 (2.1) or 2 (2.2).
// Thread-safety: stateless functions.

#pragma once

#include <cstdint>
#include <vector>

#include "common/buffer.h"
#include "format/leaf_data.h"
#include "format/proto/encodings_v2_1.pb.h"

namespace lancedb::format {

struct EncodedPage {
  std::vector<BufferPtr> buffers;
  lance::encodings21::PageLayout layout;
  int64_t num_rows = 0;
};

/// The rep/def layers of a page (inner to outer) and the translation of level codes to
/// definition levels.
struct PageLevels {
  std::vector<lance::encodings21::RepDefLayer> layers;
  std::vector<uint16_t> def;  // empty when every item is valid at every layer
  uint16_t max_def = 0;
  /// Highest definition level that still has a value slot (items above it are invisible).
  uint16_t max_visible_def = UINT16_MAX;
};

/// Derive layers and definition levels for `items` of a leaf with `path`.
PageLevels ComputePageLevels(const LeafPath& path, const LeafItems& items);

/// Bytes of a full-zip control word for these level widths (0, 1, 2 or 4).
int FullZipControlWordBytes(uint32_t bits_rep, uint32_t bits_def);

/// Encode a full-zip page of `items` with values compressed as `value` (lance-format.md §2.3).
Result<EncodedPage> EncodeFullZip(const LeafPath& path, const LeafItems& items,
                                  const PageLevels& levels,
                                  const lance::encodings21::CompressiveEncoding& value);

/// Encode a mini-block page of `items` with values compressed as `value` (plus an FSL item
/// validity buffer per chunk with `with_validity`).
Result<EncodedPage> EncodeMiniBlock(const LeafPath& path, const LeafItems& items,
                                    const PageLevels& levels,
                                    const lance::encodings21::CompressiveEncoding& value,
                                    bool with_validity, int minor_version);

/// Encode one page. REQUIRES: items.num_rows > 0.
Result<EncodedPage> EncodePage(const LeafPath& path, const LeafItems& items, int minor_version = 2);

}  // namespace lancedb::format
