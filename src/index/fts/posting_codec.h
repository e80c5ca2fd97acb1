// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The byte encodings of Lance's inverted index, format version 2 (docs/format/fts-index.md):
// posting blocks of 128 documents (BitPacker4x-packed doc-id deltas and frequencies after a
// 4-byte block max score and the first doc id), a varint tail block, and position streams
// (groups of 128 bit-packed deltas, varint remainder). Pure functions over byte strings;
// decoders return Corruption for truncated or inconsistent input and never read out of bounds.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lancedb/status.h"

namespace lancedb::index::fts {

/// Documents per full posting block (format version 2).
inline constexpr size_t kPostingBlockSize = 128;

/// Append `value` as an unsigned LEB128 varint.
void PutVarint(uint64_t value, std::string* out);
/// Read a varint at `*pos`, advancing it. False when truncated or longer than 10 bytes.
bool GetVarint(std::string_view bytes, size_t* pos, uint64_t* value);

/// Append 128 values packed with `num_bits` bits each in BitPacker4x's lane layout: value i
/// goes to lane i % 4, slot i / 4; each lane packs LSB-first into 32-bit words and word m of
/// lane l is the (4m + l)-th little-endian u32 of the output (16 * num_bits bytes).
void Pack128(const uint32_t* values, uint8_t num_bits, std::string* out);
/// Inverse of Pack128: read 16 * num_bits bytes at `*pos`. False when truncated.
bool Unpack128(std::string_view bytes, size_t* pos, uint8_t num_bits, uint32_t* values);
/// The bits needed for the largest of `n` values (0 when all are 0).
uint8_t BitsNeeded(const uint32_t* values, size_t n);

/// One encoded posting block: documents `docs` (ascending) with frequencies `freqs`, and the
/// block's max score. A block of exactly kPostingBlockSize documents is bit-packed; a shorter
/// one (the tail) is varint-coded.
std::string EncodePostingBlock(std::span<const uint32_t> docs, std::span<const uint32_t> freqs,
                               float max_score);

/// Decode one block holding `count` documents (kPostingBlockSize for a full block), appending
/// to `docs` and `freqs`. Corruption on malformed bytes.
Status DecodePostingBlock(std::string_view block, size_t count, std::vector<uint32_t>* docs,
                          std::vector<uint32_t>* freqs);
/// The max score stored at the start of a block.
Result<float> PostingBlockMaxScore(std::string_view block);
/// The first document id of a block of `count` postings, without decoding the rest.
Result<uint32_t> PostingBlockFirstDoc(std::string_view block, size_t count);

/// The position stream of one block: each document's positions (ascending) as deltas (first
/// absolute), concatenated; full groups of 128 deltas bit-packed after a u8 bit width, the rest
/// as varints.
std::string EncodePositionBlock(std::span<const uint32_t> deltas);
/// Decode `count` deltas of a position stream.
Status DecodePositionBlock(std::string_view bytes, size_t count, std::vector<uint32_t>* deltas);

}  // namespace lancedb::index::fts
