// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Lance's inverted (full-text) index, format version 2 (docs/format/fts-index.md): a directory
// with metadata.lance and, per partition p, part_<p>_tokens.lance (token dictionary),
// part_<p>_invert.lance (posting lists in 128-document blocks, optional positions) and
// part_<p>_docs.lance (row id and token count of each document; postings name documents by
// their row number there). PartitionBuilder writes partitions; InvertedIndex reads an index
// written by lancedb-cpp or by LanceDB/pylance (Arrow or FST token dictionaries).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "array/array.h"
#include "index/fts/analyzer.h"
#include "index/fts/fts_params.h"
#include "index/scalar/scalar_index.h"
#include "io/file_system.h"

namespace lancedb::index::fts {

inline constexpr char kFtsMetadataFile[] = "metadata.lance";

/// Okapi BM25 as Lance scores it.
inline constexpr double kBm25K1 = 1.2;
inline constexpr double kBm25B = 0.75;
/// idf(t) = ln(1 + (N - n + 0.5) / (n + 0.5)) for a token in n of N documents.
double Bm25Idf(double num_docs_with_token, double num_docs);
/// The term-frequency factor (k1 + 1) f / (f + k1 (1 - b + b dl / avgdl)).
double Bm25Tf(double freq, double doc_length, double avg_doc_length);

/// Documents tokenized by one build worker, flushed as one partition at a time. Externally
/// synchronized.
class PartitionBuilder {
 public:
  PartitionBuilder(const FtsParams& params, const Analyzer* analyzer)
      : params_(params), analyzer_(analyzer) {}
  /// Tokenize `text` as document `row_id`. Documents without tokens are not stored.
  void Add(uint64_t row_id, std::string_view text);
  /// Approximate bytes held.
  size_t memory_bytes() const { return memory_bytes_; }
  bool empty() const { return row_ids_.empty(); }
  /// Write the documents added so far as partition `id` in `dir`, then start afresh.
  Result<std::vector<scalar::WrittenFile>> Flush(const io::FileSystemPtr& fs,
                                                 const std::string& dir, uint32_t id);

 private:
  /// A token's postings while building, varint-coded to keep the build's memory small:
  /// (document gap, frequency) per document, and per document its positions (first absolute,
  /// then gaps).
  struct TokenPostings {
    std::string postings;
    std::string positions;
    uint32_t last_doc = 0;
    uint32_t count = 0;
  };
  static Status DecodeBuildPostings(const TokenPostings& p, bool with_positions,
                                    std::vector<uint32_t>* docs, std::vector<uint32_t>* freqs,
                                    std::vector<uint32_t>* positions);

  FtsParams params_;
  const Analyzer* analyzer_;
  std::unordered_map<std::string, uint32_t> token_ids_;
  std::vector<std::string> tokens_;
  std::vector<TokenPostings> postings_;
  std::vector<uint64_t> row_ids_;
  std::vector<uint32_t> num_tokens_;
  std::vector<Token> scratch_;
  std::vector<std::pair<uint32_t, uint32_t>> doc_terms_;
  size_t memory_bytes_ = 0;
};

/// Write metadata.lance for an index of `partitions`.
Result<scalar::WrittenFile> WriteFtsMetadata(const io::FileSystemPtr& fs, const std::string& dir,
                                             const FtsParams& params,
                                             const std::vector<uint32_t>& partitions);

/// Read the build parameters of the index in `dir` from its metadata.lance alone (the `params`
/// JSON). IOError / Corruption when the file is missing or malformed.
Result<FtsParams> ReadFtsParams(const io::FileSystemPtr& fs, const std::string& dir);

/// An opened inverted index. Immutable; thread-safe.
class InvertedIndex {
 public:
  static Result<std::shared_ptr<const InvertedIndex>> Open(const io::FileSystemPtr& fs,
                                                           const std::string& dir);
  ~InvertedIndex();

  const FtsParams& params() const { return params_; }
  const Analyzer& analyzer() const { return *analyzer_; }
  /// Documents with at least one token, over all partitions (BM25's N).
  uint64_t num_docs() const { return num_docs_; }
  /// Tokens of all documents (avgdl = total_tokens / num_docs).
  uint64_t total_tokens() const { return total_tokens_; }
  /// Documents containing `token`, over all partitions.
  uint64_t DocFrequency(std::string_view token) const;
  /// Indexed tokens within Levenshtein distance `max_distance` of `token` whose first
  /// `prefix_length` characters equal its own, in byte order, at most `max_expansions`.
  std::vector<std::string> FuzzyExpand(std::string_view token, uint32_t max_distance,
                                       uint32_t max_expansions, uint32_t prefix_length) const;
  size_t num_partitions() const;
  /// The row ids and token counts of partition `p`'s documents (index = document id).
  std::span<const uint64_t> partition_row_ids(size_t p) const;
  std::span<const uint32_t> partition_num_tokens(size_t p) const;
  /// Decode the postings of `token` in partition `p` (document ids ascending) into `docs` and
  /// `freqs` (cleared first); empty when the partition does not hold the token.
  Status PartitionPostings(size_t p, std::string_view token, std::vector<uint32_t>* docs,
                           std::vector<uint32_t>* freqs) const;
  /// One posting block of a token: its bytes, its number of postings and its stored max score.
  struct Block {
    std::string_view bytes;
    size_t count;
    float max_score;
  };
  /// The position stream of `token` in partition `p` and the offset of each block's part of
  /// it (one per block of PartitionBlocks). InvalidArgument without positions stored; an empty
  /// stream when the token is absent.
  Status PartitionPositionStream(size_t p, std::string_view token, std::string_view* stream,
                                 std::span<const uint32_t>* block_offsets) const;
  /// The posting blocks of `token` in partition `p` (empty when absent).
  Status PartitionBlocks(size_t p, std::string_view token, std::vector<Block>* blocks) const;
  /// Partition `p`'s own statistics (block max scores were computed with them): documents,
  /// average length, and the documents holding `token`.
  uint64_t partition_num_docs(size_t p) const;
  double partition_avg_length(size_t p) const;
  uint64_t PartitionDocFrequency(size_t p, std::string_view token) const;

 private:
  struct Partition;
  InvertedIndex() = default;
  FtsParams params_;
  std::unique_ptr<Analyzer> analyzer_;
  std::vector<std::unique_ptr<Partition>> partitions_;
  uint64_t num_docs_ = 0;
  uint64_t total_tokens_ = 0;
};

/// Levenshtein distance of `a` and `b` over Unicode code points, capped at `cap + 1`.
uint32_t BoundedLevenshtein(std::u32string_view a, std::u32string_view b, uint32_t cap);

}  // namespace lancedb::index::fts
