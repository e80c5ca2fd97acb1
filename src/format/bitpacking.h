// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// FastLanes bit-unpacking (lance-format.md §2.3, "FastLanes bit layout"): 1024 values of a word
// type T (t bits) packed at width W into 1024*W/t words. Lane l of row r holds input element
// FL_ORDER[r/8]*16 + (r%8)*128 + l; each lane concatenates its rows at width W, LSB first, and
// word w of lane l sits at packed[LANES*w + l] (LANES = 1024/t).
// Thread-safety: stateless functions.

#pragma once

#include <cstdint>
#include <span>

#include "common/buffer.h"

namespace lancedb::format {

/// Values in one FastLanes block.
inline constexpr int64_t kFastLanesBlock = 1024;

/// Unpack one block of 1024 values of `word_bits` (8/16/32/64) packed at `width` bits.
/// `packed` holds 1024*width/word_bits words, `out` receives 1024 words (little-endian bytes).
/// REQUIRES: width <= word_bits; both spans are large enough (checked by the callers).
void UnpackFastLanes(int word_bits, int width, const uint8_t* packed, uint8_t* out);

/// Decode InlineBitpacking data: blocks of `[one word = width][1024*width/word_bits words]`,
/// the last block zero-padded. Writes `num_values` words to `out`.
Status DecodeInlineBitpacking(std::span<const uint8_t> bytes, int word_bits, int64_t num_values,
                              uint8_t* out);

/// Decode OutOfLineBitpacking data: full blocks at a fixed `width`; the tail is either a
/// padded packed block or `tail` raw words (told apart by the buffer length).
Status DecodeOutOfLineBitpacking(std::span<const uint8_t> bytes, int word_bits, int width,
                                 int64_t num_values, uint8_t* out);

}  // namespace lancedb::format
