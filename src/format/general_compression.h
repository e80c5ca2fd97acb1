// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// General (block) compression framing of Lance 2.1/2.2 buffers (lance-format.md §2.3,
// "General framing"):
//   LZ4:  u32 LE uncompressed size, then one raw LZ4 block (not the LZ4 frame format);
//   zstd: u64 LE uncompressed size, then a zstd frame — or a bare zstd frame, told apart by the
//         zstd magic and a clear bit 4 of the frame header descriptor (as Lance does).
// Thread-safety: stateless functions.

#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/buffer.h"
#include "format/proto/encodings_v2_1.pb.h"

namespace lancedb::format {

/// Largest decompressed buffer accepted (guards against absurd sizes in corrupt headers).
inline constexpr uint64_t kMaxDecompressedBytes = uint64_t{1} << 34;

/// Append the decompression of `input` (compressed with `scheme`) to `out`.
/// Corruption when the data does not decompress; NotSupported for an unknown scheme.
Status DecompressGeneral(lance::encodings21::CompressionScheme scheme,
                         std::span<const uint8_t> input, std::vector<uint8_t>* out);

}  // namespace lancedb::format
