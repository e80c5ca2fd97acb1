// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The fixed-size footer of a Lance v2 file (lance-format.md §2.1), 40 bytes, little endian:
//   u64 column_meta_start, u64 cmo_table_pos, u64 gbo_table_pos, u32 num_global_buffers,
//   u32 num_columns, u16 major, u16 minor, "LANC".
// Thread-safety: plain values and pure functions.

#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "lancedb/status.h"

namespace lancedb::format {

inline constexpr int64_t kFooterSize = 40;
inline constexpr int64_t kPageAlignment = 64;
inline constexpr std::string_view kMagic = "LANC";

struct Footer {
  uint64_t column_meta_start = 0;
  uint64_t cmo_table_pos = 0;
  uint64_t gbo_table_pos = 0;
  uint32_t num_global_buffers = 0;
  uint32_t num_columns = 0;
  uint16_t major = 0;
  uint16_t minor = 0;
};

std::string EncodeFooter(const Footer& footer);

/// Parse and bounds-check the last 40 bytes of a file of `file_size` bytes.
/// Corruption naming `path` when the magic or the offsets are wrong.
Result<Footer> DecodeFooter(std::string_view bytes, int64_t file_size, const std::string& path);

}  // namespace lancedb::format
