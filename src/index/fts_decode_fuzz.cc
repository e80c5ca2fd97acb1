// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// libFuzzer target over the byte decoders of FTS indices read from disk: the fst token
// dictionary, posting blocks, position streams, InvertedIndexDetails and the params JSON. The
// first byte picks the decoder; none may crash or read out of bounds on any input.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "index/fts/fst_map.h"
#include "index/fts/fts_params.h"
#include "index/fts/posting_codec.h"

namespace fts = lancedb::index::fts;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<uint32_t> a, b;
  switch (data[0] % 5) {
    case 0: {
      auto map = fts::DecodeFstMap(std::span(data + 1, size - 1));
      if (map.ok() && !map->empty()) {
        (void)fts::FstMapGet(std::span(data + 1, size - 1), map->front().first);
      }
      break;
    }
    case 1:
      (void)fts::DecodePostingBlock(bytes, fts::kPostingBlockSize, &a, &b);
      (void)fts::PostingBlockFirstDoc(bytes, fts::kPostingBlockSize);
      break;
    case 2:
      (void)fts::DecodePostingBlock(bytes, size % 127 + 1, &a, &b);
      (void)fts::PostingBlockFirstDoc(bytes, size % 127 + 1);
      break;
    case 3:
      (void)fts::DecodePositionBlock(bytes, size % 300, &a);
      break;
    case 4:
      (void)fts::DecodeInvertedIndexDetails(bytes);
      (void)fts::FtsParamsFromJson(bytes);
      break;
  }
  return 0;
}
