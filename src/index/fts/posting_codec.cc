// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/fts/posting_codec.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace lancedb::index::fts {

namespace {

void PutU32(uint32_t v, std::string* out) {
  char b[4];
  std::memcpy(b, &v, 4);  // little-endian host (x86-64, aarch64)
  out->append(b, 4);
}

bool GetU32(std::string_view bytes, size_t* pos, uint32_t* v) {
  if (bytes.size() - *pos < 4 || *pos > bytes.size()) return false;
  std::memcpy(v, bytes.data() + *pos, 4);
  *pos += 4;
  return true;
}

Status Truncated(const char* what) {
  return Status::Corruption(std::string("Inverted index: truncated or malformed ") + what);
}

}  // namespace

void PutVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

bool GetVarint(std::string_view bytes, size_t* pos, uint64_t* value) {
  uint64_t v = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (*pos >= bytes.size()) return false;
    const auto b = static_cast<uint8_t>(bytes[(*pos)++]);
    v |= static_cast<uint64_t>(b & 0x7F) << shift;
    if ((b & 0x80) == 0) {
      *value = v;
      return true;
    }
  }
  return false;
}

uint8_t BitsNeeded(const uint32_t* values, size_t n) {
  uint32_t all = 0;
  for (size_t i = 0; i < n; ++i) all |= values[i];
  return static_cast<uint8_t>(32 - std::countl_zero(all));
}

void Pack128(const uint32_t* values, uint8_t num_bits, std::string* out) {
  if (num_bits == 0) return;
  std::vector<uint32_t> words(4u * num_bits, 0);
  for (uint32_t lane = 0; lane < 4; ++lane) {
    uint64_t acc = 0;
    uint32_t filled = 0, word = 0;
    for (uint32_t slot = 0; slot < 32; ++slot) {
      const uint64_t v = num_bits == 32 ? values[slot * 4 + lane]
                                        : values[slot * 4 + lane] & ((1u << num_bits) - 1);
      acc |= v << filled;
      filled += num_bits;
      while (filled >= 32) {
        words[4 * word + lane] = static_cast<uint32_t>(acc);
        ++word;
        acc >>= 32;
        filled -= 32;
      }
    }
  }
  for (uint32_t w : words) PutU32(w, out);
}

bool Unpack128(std::string_view bytes, size_t* pos, uint8_t num_bits, uint32_t* values) {
  if (num_bits > 32) return false;
  if (num_bits == 0) {
    std::fill(values, values + 128, 0u);
    return true;
  }
  const size_t size = 16u * num_bits;
  if (*pos > bytes.size() || bytes.size() - *pos < size) return false;
  const char* base = bytes.data() + *pos;
  const uint64_t mask = num_bits == 32 ? 0xFFFFFFFFull : (1ull << num_bits) - 1;
  for (uint32_t lane = 0; lane < 4; ++lane) {
    uint64_t acc = 0;
    uint32_t avail = 0, word = 0;
    for (uint32_t slot = 0; slot < 32; ++slot) {
      if (avail < num_bits) {
        uint32_t w;
        std::memcpy(&w, base + 4 * (4 * word + lane), 4);
        ++word;
        acc |= static_cast<uint64_t>(w) << avail;
        avail += 32;
      }
      values[slot * 4 + lane] = static_cast<uint32_t>(acc & mask);
      acc >>= num_bits;
      avail -= num_bits;
    }
  }
  *pos += size;
  return true;
}

std::string EncodePostingBlock(std::span<const uint32_t> docs, std::span<const uint32_t> freqs,
                               float max_score) {
  std::string out;
  uint32_t score_bits;
  std::memcpy(&score_bits, &max_score, 4);
  PutU32(score_bits, &out);
  if (docs.size() == kPostingBlockSize) {
    uint32_t deltas[kPostingBlockSize];
    deltas[0] = 0;
    for (size_t i = 1; i < kPostingBlockSize; ++i) deltas[i] = docs[i] - docs[i - 1];
    PutU32(docs[0], &out);
    const uint8_t db = BitsNeeded(deltas, kPostingBlockSize);
    out.push_back(static_cast<char>(db));
    Pack128(deltas, db, &out);
    const uint8_t fb = BitsNeeded(freqs.data(), kPostingBlockSize);
    out.push_back(static_cast<char>(fb));
    Pack128(freqs.data(), fb, &out);
    return out;
  }
  uint32_t prev = 0;
  for (size_t i = 0; i < docs.size(); ++i) {
    PutVarint(i == 0 ? docs[0] : docs[i] - prev, &out);
    prev = docs[i];
  }
  for (uint32_t f : freqs) PutVarint(f, &out);
  return out;
}

Result<float> PostingBlockMaxScore(std::string_view block) {
  size_t pos = 0;
  uint32_t bits;
  if (!GetU32(block, &pos, &bits)) return Truncated("posting block");
  float score;
  std::memcpy(&score, &bits, 4);
  return score;
}

Result<uint32_t> PostingBlockFirstDoc(std::string_view block, size_t count) {
  size_t pos = 4;
  if (count == kPostingBlockSize) {
    uint32_t first;
    if (!GetU32(block, &pos, &first)) return Truncated("posting block");
    return first;
  }
  uint64_t first;
  if (!GetVarint(block, &pos, &first) || first > 0xFFFFFFFFull) {
    return Truncated("posting tail block");
  }
  return static_cast<uint32_t>(first);
}

Status DecodePostingBlock(std::string_view block, size_t count, std::vector<uint32_t>* docs,
                          std::vector<uint32_t>* freqs) {
  size_t pos = 4;
  if (block.size() < 4) return Truncated("posting block");
  if (count == kPostingBlockSize) {
    uint32_t first;
    if (!GetU32(block, &pos, &first) || pos >= block.size()) return Truncated("posting block");
    uint32_t v[kPostingBlockSize];
    const auto db = static_cast<uint8_t>(block[pos++]);
    if (!Unpack128(block, &pos, db, v) || pos >= block.size()) return Truncated("posting block");
    uint32_t doc = first;
    for (size_t i = 0; i < kPostingBlockSize; ++i) {
      doc += v[i];
      docs->push_back(doc);
    }
    const auto fb = static_cast<uint8_t>(block[pos++]);
    if (!Unpack128(block, &pos, fb, v)) return Truncated("posting block");
    freqs->insert(freqs->end(), v, v + kPostingBlockSize);
    return Status::OK();
  }
  uint64_t doc = 0;
  for (size_t i = 0; i < count; ++i) {
    uint64_t d;
    if (!GetVarint(block, &pos, &d)) return Truncated("posting tail block");
    doc = i == 0 ? d : doc + d;
    if (doc > 0xFFFFFFFFull) return Truncated("posting tail block");
    docs->push_back(static_cast<uint32_t>(doc));
  }
  for (size_t i = 0; i < count; ++i) {
    uint64_t f;
    if (!GetVarint(block, &pos, &f) || f > 0xFFFFFFFFull) return Truncated("posting tail block");
    freqs->push_back(static_cast<uint32_t>(f));
  }
  return Status::OK();
}

std::string EncodePositionBlock(std::span<const uint32_t> deltas) {
  std::string out;
  size_t i = 0;
  for (; i + kPostingBlockSize <= deltas.size(); i += kPostingBlockSize) {
    const uint8_t bits = BitsNeeded(deltas.data() + i, kPostingBlockSize);
    out.push_back(static_cast<char>(bits));
    Pack128(deltas.data() + i, bits, &out);
  }
  for (; i < deltas.size(); ++i) PutVarint(deltas[i], &out);
  return out;
}

Status DecodePositionBlock(std::string_view bytes, size_t count, std::vector<uint32_t>* deltas) {
  size_t pos = 0, done = 0;
  uint32_t v[kPostingBlockSize];
  for (; done + kPostingBlockSize <= count; done += kPostingBlockSize) {
    if (pos >= bytes.size()) return Truncated("position stream");
    const auto bits = static_cast<uint8_t>(bytes[pos++]);
    if (!Unpack128(bytes, &pos, bits, v)) return Truncated("position stream");
    deltas->insert(deltas->end(), v, v + kPostingBlockSize);
  }
  for (; done < count; ++done) {
    uint64_t d;
    if (!GetVarint(bytes, &pos, &d) || d > 0xFFFFFFFFull) return Truncated("position stream");
    deltas->push_back(static_cast<uint32_t>(d));
  }
  return Status::OK();
}

}  // namespace lancedb::index::fts
