// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The unpack kernel walks the rows of a lane group (row-major), so that the inner loop runs
// over the LANES contiguous packed words and contiguous output elements and vectorizes.
// Loads and stores go through memcpy: page buffers carry no alignment guarantee.

#include "format/bitpacking.h"

#include <cstring>
#include <string>

namespace lancedb::format {
namespace {

constexpr int kFlOrder[8] = {0, 4, 2, 6, 1, 5, 3, 7};

template <typename T>
inline T Load(const uint8_t* p, int64_t i) {
  T v;
  std::memcpy(&v, p + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

template <typename T>
inline void Store(uint8_t* p, int64_t i, T v) {
  std::memcpy(p + i * static_cast<int64_t>(sizeof(T)), &v, sizeof(T));
}

template <typename T>
constexpr T LowMask(int bits) {
  return bits >= static_cast<int>(sizeof(T) * 8) ? static_cast<T>(~T{0})
                                                 : static_cast<T>((T{1} << bits) - 1);
}

template <typename T>
void Unpack(int width, const uint8_t* packed, uint8_t* out) {
  constexpr int kBits = static_cast<int>(sizeof(T) * 8);
  constexpr int kLanes = 1024 / kBits;
  if (width == 0) {
    std::memset(out, 0, 1024 * sizeof(T));
    return;
  }
  const T mask = LowMask<T>(width);
  for (int row = 0; row < kBits; ++row) {
    const int start_bit = row * width;
    const int curr = start_bit / kBits;
    const int shift = start_bit % kBits;
    const int end_bit = start_bit + width;
    const int rem = end_bit % kBits;
    const int64_t base = kFlOrder[row / 8] * 16 + (row % 8) * 128;
    const uint8_t* src = packed + static_cast<int64_t>(kLanes) * curr * sizeof(T);
    if (end_bit / kBits > curr && rem != 0) {
      // The value straddles two words of its lane.
      const int low_bits = width - rem;
      const T low_mask = LowMask<T>(low_bits);
      const T high_mask = LowMask<T>(rem);
      const uint8_t* next = src + kLanes * sizeof(T);
      for (int lane = 0; lane < kLanes; ++lane) {
        const T lo = static_cast<T>(static_cast<T>(Load<T>(src, lane) >> shift) & low_mask);
        const T hi = static_cast<T>(Load<T>(next, lane) & high_mask);
        Store<T>(out, base + lane, static_cast<T>(lo | static_cast<T>(hi << low_bits)));
      }
    } else {
      for (int lane = 0; lane < kLanes; ++lane) {
        Store<T>(out, base + lane,
                 static_cast<T>(static_cast<T>(Load<T>(src, lane) >> shift) & mask));
      }
    }
  }
}

Status CheckWordBits(int word_bits) {
  if (word_bits != 8 && word_bits != 16 && word_bits != 32 && word_bits != 64) {
    return Status::NotSupported("Bit-packing of " + std::to_string(word_bits) + "-bit words");
  }
  return Status::OK();
}

}  // namespace

void UnpackFastLanes(int word_bits, int width, const uint8_t* packed, uint8_t* out) {
  switch (word_bits) {
    case 8:
      return Unpack<uint8_t>(width, packed, out);
    case 16:
      return Unpack<uint16_t>(width, packed, out);
    case 32:
      return Unpack<uint32_t>(width, packed, out);
    default:
      return Unpack<uint64_t>(width, packed, out);
  }
}

Status DecodeInlineBitpacking(std::span<const uint8_t> bytes, int word_bits, int64_t num_values,
                              uint8_t* out) {
  LANCEDB_RETURN_NOT_OK(CheckWordBits(word_bits));
  const int64_t word_bytes = word_bits / 8;
  const int64_t size = static_cast<int64_t>(bytes.size());
  int64_t pos = 0;
  std::vector<uint8_t> scratch;
  for (int64_t done = 0; done < num_values; done += kFastLanesBlock) {
    if (pos + word_bytes > size) {
      return Status::Corruption("Bit-packed chunk is truncated before its width word");
    }
    uint64_t width = 0;
    std::memcpy(&width, bytes.data() + pos, static_cast<size_t>(word_bytes));
    pos += word_bytes;
    if (width > static_cast<uint64_t>(word_bits)) {
      return Status::Corruption("Bit-packed chunk has width " + std::to_string(width) + " for " +
                                std::to_string(word_bits) + "-bit values");
    }
    const int64_t packed_bytes = kFastLanesBlock * static_cast<int64_t>(width) / 8;
    if (pos + packed_bytes > size) {
      return Status::Corruption("Bit-packed chunk holds " + std::to_string(size - pos) +
                                " bytes, expected " + std::to_string(packed_bytes));
    }
    const int64_t n = std::min(kFastLanesBlock, num_values - done);
    uint8_t* dst = out + done * word_bytes;
    if (n < kFastLanesBlock) {
      scratch.resize(static_cast<size_t>(kFastLanesBlock * word_bytes));
      dst = scratch.data();
    }
    UnpackFastLanes(word_bits, static_cast<int>(width), bytes.data() + pos, dst);
    if (n < kFastLanesBlock) {
      std::memcpy(out + done * word_bytes, scratch.data(), static_cast<size_t>(n * word_bytes));
    }
    pos += packed_bytes;
  }
  return Status::OK();
}

Status DecodeOutOfLineBitpacking(std::span<const uint8_t> bytes, int word_bits, int width,
                                 int64_t num_values, uint8_t* out) {
  LANCEDB_RETURN_NOT_OK(CheckWordBits(word_bits));
  if (width < 0 || width > word_bits) {
    return Status::Corruption("Out-of-line bit-packing width " + std::to_string(width) + " for " +
                              std::to_string(word_bits) + "-bit values");
  }
  const int64_t word_bytes = word_bits / 8;
  const int64_t words_per_block = (kFastLanesBlock * width + word_bits - 1) / word_bits;
  const int64_t full = num_values / kFastLanesBlock;
  const int64_t tail = num_values % kFastLanesBlock;
  const int64_t words = static_cast<int64_t>(bytes.size()) / word_bytes;
  const bool raw_tail = tail > 0 && words == full * words_per_block + tail;
  const int64_t need = full * words_per_block + (tail == 0 ? 0 : raw_tail ? tail : words_per_block);
  if (words < need) {
    return Status::Corruption(
        "Out-of-line bit-packed buffer holds " + std::to_string(bytes.size()) + " bytes for " +
        std::to_string(num_values) + " values at width " + std::to_string(width));
  }
  const uint8_t* src = bytes.data();
  const int64_t block_bytes = words_per_block * word_bytes;
  for (int64_t b = 0; b < full; ++b) {
    UnpackFastLanes(word_bits, width, src + b * block_bytes,
                    out + b * kFastLanesBlock * word_bytes);
  }
  if (tail == 0) return Status::OK();
  uint8_t* dst = out + full * kFastLanesBlock * word_bytes;
  const uint8_t* tail_src = src + full * block_bytes;
  if (raw_tail) {
    std::memcpy(dst, tail_src, static_cast<size_t>(tail * word_bytes));
  } else {
    std::vector<uint8_t> scratch(static_cast<size_t>(kFastLanesBlock * word_bytes));
    UnpackFastLanes(word_bits, width, tail_src, scratch.data());
    std::memcpy(dst, scratch.data(), static_cast<size_t>(tail * word_bytes));
  }
  return Status::OK();
}

}  // namespace lancedb::format
