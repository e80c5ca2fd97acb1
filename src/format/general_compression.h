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

/// Largest output accepted for `input_bytes` of compressed input: 4096 times the input
/// (zstd's best ratio on constant data is about 1:32000 per block, but Lance compresses
/// chunks and values of at most a few MiB), at least 64 MiB, at most kMaxDecompressedBytes.
uint64_t DefaultDecompressionLimit(size_t input_bytes);

/// Append the decompression of `input` (compressed with `scheme`) to `out`. A declared or
/// produced size above `max_bytes` (and, for LZ4, above what LZ4 can expand `input` to) is
/// Corruption, checked before allocating; output memory grows only with decompressed data.
/// Corruption when the data does not decompress; NotSupported for an unknown scheme.
Status DecompressGeneral(lance::encodings21::CompressionScheme scheme,
                         std::span<const uint8_t> input, std::vector<uint8_t>* out,
                         uint64_t max_bytes);

/// DecompressGeneral with DefaultDecompressionLimit(input.size()).
inline Status DecompressGeneral(lance::encodings21::CompressionScheme scheme,
                                std::span<const uint8_t> input, std::vector<uint8_t>* out) {
  return DecompressGeneral(scheme, input, out, DefaultDecompressionLimit(input.size()));
}

}  // namespace lancedb::format
