// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The parameters of an inverted (FTS) index and their two persisted forms
// (docs/format/fts-index.md): the `params` JSON of the index's metadata.lance (every analysis
// option, in Lance's key order) and the InvertedIndexDetails protobuf of the manifest entry
// (type URL /lance.table.InvertedIndexDetails; custom stop words are not in it).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "index/fts/analyzer.h"
#include "lancedb/status.h"

namespace lancedb::index::fts {

inline constexpr char kInvertedIndexTypeUrl[] = "/lance.table.InvertedIndexDetails";
/// Manifest index_version of an inverted index (format version 2, 128-document blocks).
inline constexpr int32_t kInvertedIndexVersion = 2;

/// Everything persisted about how an inverted index was built.
struct FtsParams {
  AnalyzerOptions analyzer;
  /// Store token positions (needed by phrase queries).
  bool with_position = false;
  /// Documents per posting block; only 128 (format version 2) is written here.
  uint32_t block_size = 128;
  /// "text" (utf8, large_utf8, list<utf8> columns).
  std::string lance_tokenizer = "text";
};

/// The `params` JSON, keys in Lance's order.
std::string FtsParamsToJson(const FtsParams& params);
/// Parse a `params` JSON (missing keys take their defaults). Corruption when malformed.
Result<FtsParams> FtsParamsFromJson(std::string_view json);

/// The serialized InvertedIndexDetails message.
std::string EncodeInvertedIndexDetails(const FtsParams& params);
/// Parse InvertedIndexDetails; an "old, blank" message (no tokenizer, no language) gives the
/// defaults. Corruption when malformed.
Result<FtsParams> DecodeInvertedIndexDetails(std::string_view bytes);

}  // namespace lancedb::index::fts
