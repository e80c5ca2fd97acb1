// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Body buffer codecs of the Arrow IPC format (Arrow spec, "Compression"): each compressed
// buffer is a zstd frame or an LZ4 frame (not the LZ4 block format).

#include <lz4frame.h>
#include <zstd.h>

#include <algorithm>
#include <memory>
#include <string>

#include "array/ipc_internal.h"

namespace lancedb::array::ipc::internal {

namespace {

Result<BufferPtr> ZstdCompress(const uint8_t* data, int64_t size) {
  size_t bound = ZSTD_compressBound(static_cast<size_t>(size));
  BufferBuilder out(static_cast<int64_t>(bound));
  out.Resize(static_cast<int64_t>(bound));
  size_t n = ZSTD_compress(out.data(), bound, data, static_cast<size_t>(size), 1);
  if (ZSTD_isError(n)) {
    return Status::Internal(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
  }
  out.Resize(static_cast<int64_t>(n));
  return out.Finish();
}

Result<BufferPtr> Lz4Compress(const uint8_t* data, int64_t size) {
  LZ4F_preferences_t prefs{};
  prefs.frameInfo.contentSize = static_cast<unsigned long long>(size);
  size_t bound = LZ4F_compressFrameBound(static_cast<size_t>(size), &prefs);
  BufferBuilder out(static_cast<int64_t>(bound));
  out.Resize(static_cast<int64_t>(bound));
  size_t n = LZ4F_compressFrame(out.data(), bound, data, static_cast<size_t>(size), &prefs);
  if (LZ4F_isError(n)) {
    return Status::Internal(std::string("lz4 compression failed: ") + LZ4F_getErrorName(n));
  }
  out.Resize(static_cast<int64_t>(n));
  return out.Finish();
}

Status ZstdDecompress(const uint8_t* data, int64_t size, uint8_t* out, int64_t out_size) {
  size_t n = ZSTD_decompress(out, static_cast<size_t>(out_size), data, static_cast<size_t>(size));
  if (ZSTD_isError(n)) {
    return Status::Corruption(std::string("IPC: zstd decompression failed: ") +
                              ZSTD_getErrorName(n));
  }
  if (static_cast<int64_t>(n) != out_size) {
    return Status::Corruption("IPC: zstd buffer decompressed to " + std::to_string(n) +
                              " bytes, expected " + std::to_string(out_size));
  }
  return Status::OK();
}

Status Lz4Decompress(const uint8_t* data, int64_t size, uint8_t* out, int64_t out_size) {
  LZ4F_dctx* raw_ctx = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&raw_ctx, LZ4F_VERSION))) {
    return Status::Internal("lz4: cannot create a decompression context");
  }
  std::unique_ptr<LZ4F_dctx, decltype(&LZ4F_freeDecompressionContext)> ctx(
      raw_ctx, &LZ4F_freeDecompressionContext);
  size_t in_pos = 0;
  size_t out_pos = 0;
  size_t hint = 1;
  while (hint != 0) {
    size_t in_n = static_cast<size_t>(size) - in_pos;
    size_t out_n = static_cast<size_t>(out_size) - out_pos;
    if (in_n == 0) return Status::Corruption("IPC: truncated lz4 frame in record batch body");
    hint = LZ4F_decompress(ctx.get(), out + out_pos, &out_n, data + in_pos, &in_n, nullptr);
    if (LZ4F_isError(hint)) {
      return Status::Corruption(std::string("IPC: lz4 decompression failed: ") +
                                LZ4F_getErrorName(hint));
    }
    in_pos += in_n;
    out_pos += out_n;
    if (in_n == 0 && out_n == 0) {
      // No progress: the output is full but the frame wants to write more.
      return Status::Corruption("IPC: lz4 buffer is larger than its declared length");
    }
  }
  if (static_cast<int64_t>(out_pos) != out_size) {
    return Status::Corruption("IPC: lz4 buffer decompressed to " + std::to_string(out_pos) +
                              " bytes, expected " + std::to_string(out_size));
  }
  return Status::OK();
}

}  // namespace

Result<BufferPtr> CompressBuffer(Compression codec, const uint8_t* data, int64_t size) {
  switch (codec) {
    case Compression::kZstd:
      return ZstdCompress(data, size);
    case Compression::kLz4Frame:
      return Lz4Compress(data, size);
    case Compression::kNone:
      break;
  }
  return Status::InvalidArgument("IPC: no compression codec selected");
}

Result<BufferPtr> DecompressBuffer(Compression codec, const uint8_t* data, int64_t size,
                                   int64_t uncompressed_size) {
  // Allocate only after the cheap frame checks, so that a hostile length prefix cannot make
  // us allocate much more than the frame could expand to: zstd frames (as Arrow writers emit
  // them) declare their content size, which must match; otherwise the codec's maximum
  // expansion ratio bounds the size (LZ4 < 256x; zstd RLE blocks < 32768x).
  constexpr int64_t kMaxUncompressed = int64_t{1} << 32;
  int64_t bound = kMaxUncompressed;
  if (codec == Compression::kZstd) {
    unsigned long long declared = ZSTD_getFrameContentSize(data, static_cast<size_t>(size));
    if (declared == ZSTD_CONTENTSIZE_ERROR ||
        (declared != ZSTD_CONTENTSIZE_UNKNOWN &&
         declared != static_cast<uint64_t>(uncompressed_size))) {
      return Status::Corruption("IPC: zstd frame does not match the buffer's declared length " +
                                std::to_string(uncompressed_size));
    }
    if (declared == ZSTD_CONTENTSIZE_UNKNOWN) bound = std::min(bound, size * 32768 + (1 << 20));
  } else {
    bound = std::min(bound, size * 256 + (1 << 20));
  }
  if (uncompressed_size < 0 || uncompressed_size > bound) {
    return Status::Corruption("IPC: invalid uncompressed buffer length " +
                              std::to_string(uncompressed_size) + " for a " + std::to_string(size) +
                              "-byte frame");
  }
  BufferPtr out = Buffer::Allocate(uncompressed_size);
  if (uncompressed_size == 0) return out;
  switch (codec) {
    case Compression::kZstd:
      LANCEDB_RETURN_NOT_OK(ZstdDecompress(data, size, out->mutable_data(), uncompressed_size));
      return out;
    case Compression::kLz4Frame:
      LANCEDB_RETURN_NOT_OK(Lz4Decompress(data, size, out->mutable_data(), uncompressed_size));
      return out;
    case Compression::kNone:
      break;
  }
  return Status::Internal("IPC: no compression codec selected");
}

}  // namespace lancedb::array::ipc::internal
