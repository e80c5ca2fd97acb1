// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "format/general_compression.h"

#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

namespace lancedb::format {
namespace {

namespace pb = lance::encodings21;

constexpr uint32_t kZstdMagic = 0xFD2FB528;

/// An LZ4 block expands at most 255-fold: a match of L bytes costs at least L / 255 bytes.
constexpr uint64_t kLz4MaxRatio = 255;

Status DecompressLz4(std::span<const uint8_t> in, std::vector<uint8_t>* out, uint64_t max_bytes) {
  if (in.size() < 4) return Status::Corruption("LZ4 buffer is shorter than its size prefix");
  uint32_t size = 0;
  std::memcpy(&size, in.data(), 4);
  if (size == 0 && in.size() == 4) return Status::OK();
  if (in.size() - 4 > static_cast<size_t>(INT32_MAX) || size > static_cast<uint32_t>(INT32_MAX) ||
      size > max_bytes || size > (in.size() - 4) * kLz4MaxRatio + 16) {
    return Status::Corruption("LZ4 block of " + std::to_string(in.size() - 4) + " bytes declares " +
                              std::to_string(size) + " bytes");
  }
  const size_t start = out->size();
  out->resize(start + size);
  const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data() + 4),
                                    reinterpret_cast<char*>(out->data() + start),
                                    static_cast<int>(in.size() - 4), static_cast<int>(size));
  if (n < 0 || static_cast<uint32_t>(n) != size) {
    out->resize(start);
    return Status::Corruption("LZ4 block does not decompress to its declared " +
                              std::to_string(size) + " bytes");
  }
  return Status::OK();
}

bool IsBareZstdFrame(std::span<const uint8_t> in) {
  if (in.size() < 8) return true;
  uint32_t magic = 0;
  std::memcpy(&magic, in.data(), 4);
  return magic == kZstdMagic && (in[4] & 0x10) == 0;
}

Status DecompressZstdStream(std::span<const uint8_t> in, std::vector<uint8_t>* out,
                            uint64_t max_bytes) {
  std::unique_ptr<ZSTD_DStream, size_t (*)(ZSTD_DStream*)> stream(ZSTD_createDStream(),
                                                                  ZSTD_freeDStream);
  if (!stream) return Status::Internal("Cannot allocate a zstd stream");
  ZSTD_inBuffer input{in.data(), in.size(), 0};
  const size_t start = out->size();
  size_t produced = 0;
  size_t ret = 1;
  while (true) {
    if (out->size() - start - produced < ZSTD_DStreamOutSize()) {
      out->resize(out->size() + ZSTD_DStreamOutSize());
    }
    ZSTD_outBuffer output{out->data() + start + produced, out->size() - start - produced, 0};
    ret = ZSTD_decompressStream(stream.get(), &output, &input);
    if (ZSTD_isError(ret)) {
      out->resize(start);
      return Status::Corruption(std::string("zstd frame does not decompress: ") +
                                ZSTD_getErrorName(ret));
    }
    produced += output.pos;
    if (produced > max_bytes) {
      out->resize(start);
      return Status::Corruption("zstd frame is too large");
    }
    // Done when all input is consumed and the decoder did not fill its output.
    if (input.pos == input.size && output.pos < output.size) break;
  }
  out->resize(start + produced);
  if (ret != 0) return Status::Corruption("zstd frame is truncated");
  return Status::OK();
}

Status DecompressZstd(std::span<const uint8_t> in, std::vector<uint8_t>* out, uint64_t max_bytes) {
  if (in.empty()) return Status::OK();
  if (IsBareZstdFrame(in)) return DecompressZstdStream(in, out, max_bytes);
  uint64_t size = 0;
  std::memcpy(&size, in.data(), 8);
  if (size > max_bytes) {
    return Status::Corruption("zstd buffer of " + std::to_string(in.size()) + " bytes declares " +
                              std::to_string(size) + " bytes");
  }
  // Stream rather than allocate the declared size: memory follows the data actually produced.
  const size_t start = out->size();
  LANCEDB_RETURN_NOT_OK(DecompressZstdStream(in.subspan(8), out, size));
  if (out->size() - start != size) {
    out->resize(start);
    return Status::Corruption("zstd buffer does not decompress to its declared " +
                              std::to_string(size) + " bytes");
  }
  return Status::OK();
}

}  // namespace

uint64_t DefaultDecompressionLimit(size_t input_bytes) {
  constexpr uint64_t kFloor = uint64_t{64} << 20;
  const uint64_t scaled = std::min<uint64_t>(input_bytes, kMaxDecompressedBytes / 4096) * 4096;
  return std::min(kMaxDecompressedBytes, std::max(kFloor, scaled));
}

Status DecompressGeneral(pb::CompressionScheme scheme, std::span<const uint8_t> input,
                         std::vector<uint8_t>* out, uint64_t max_bytes) {
  switch (scheme) {
    case pb::COMPRESSION_ALGORITHM_LZ4:
      return DecompressLz4(input, out, max_bytes);
    case pb::COMPRESSION_ALGORITHM_ZSTD:
      return DecompressZstd(input, out, max_bytes);
    default:
      return Status::NotSupported("General compression scheme " + std::to_string(scheme));
  }
}

}  // namespace lancedb::format
