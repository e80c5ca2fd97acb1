// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Full-text search, mirroring LanceDB's `table.query().full_text_search(query)` and the query
// classes of `lancedb.query` (MatchQuery, PhraseQuery, BooleanQuery, MultiMatchQuery,
// BoostQuery). The result has the selected columns, then `_score` (float32, BM25, larger is
// better), then `_rowid` and `_rowaddr` when asked, sorted by descending score (or by the
// query's ordering).
//
// Rows of fragments the index does not cover (appended after it was built) are searched exactly
// and merged with the indexed results; deleted rows never appear.
//
// Thread-safety: FullTextQuery and FtsQuery are values; executing a query is const and
// thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lancedb/arrow_c.h"
#include "lancedb/query.h"
#include "lancedb/status.h"
#include "lancedb/vector_query.h"

namespace lancedb {

/// How the terms of a match query combine (LanceDB's Operator).
enum class FtsOperator : uint8_t { kOr, kAnd };
/// The role of a clause of a boolean query (LanceDB's Occur).
enum class FtsOccur : uint8_t { kShould, kMust, kMustNot };

/// A full-text query tree.
struct FullTextQuery {
  enum class Kind : uint8_t { kMatch, kPhrase, kBoolean, kMultiMatch, kBoost };
  Kind kind = Kind::kMatch;
  /// Match, phrase and multi-match: the query text (analyzed as the column's index does).
  std::string query;
  /// Match and phrase: the column; empty means every FTS-indexed column.
  std::string column;
  /// Match: score multiplier.
  float boost = 1.0f;
  /// Match: maximum Levenshtein distance of fuzzy term expansions; nullopt = automatic
  /// (0 for terms of at most 2 characters, 1 up to 5, else 2).
  std::optional<uint32_t> fuzziness = 0;
  /// Match: expansions per fuzzy term at most.
  uint32_t max_expansions = 50;
  FtsOperator op = FtsOperator::kOr;
  /// Match: leading characters a fuzzy expansion keeps unchanged.
  uint32_t prefix_length = 0;
  /// Phrase: extra positions allowed between consecutive terms.
  uint32_t slop = 0;
  /// Multi-match: the columns and their boosts (empty boosts: all 1).
  std::vector<std::string> columns;
  std::vector<float> boosts;
  /// Boolean: the clauses and their roles (same length). Boost: {positive, negative}.
  std::vector<FullTextQuery> children;
  std::vector<FtsOccur> occurs;
  /// Boost: the negative query's score is multiplied by this and subtracted.
  float negative_boost = 0.5f;

  static FullTextQuery Match(std::string query, std::string column = {});
  static FullTextQuery Phrase(std::string query, std::string column = {}, uint32_t slop = 0);
  static FullTextQuery MultiMatch(std::string query, std::vector<std::string> columns,
                                  std::vector<float> boosts = {});
  static FullTextQuery Boolean(std::vector<std::pair<FtsOccur, FullTextQuery>> clauses);
  static FullTextQuery Boost(FullTextQuery positive, FullTextQuery negative,
                             float negative_boost = 0.5f);
};

/// Parse LanceDB's JSON form of a query (FullTextQuery.to_json(): {"match": {...}},
/// {"phrase": ...}, {"boolean": ...}, {"multi_match": ...}, {"boost": ...}).
Result<FullTextQuery> ParseFullTextQueryJson(std::string_view json);

/// The full description of a full-text query.
struct FtsQueryRequest {
  /// Filter, projection, limit (default 10), offset, ordering, with_row_id, with_row_address
  /// and batch length, as for a plain query. NotSupported for fragment_ids and takes.
  QueryRequest base;
  FullTextQuery query;
  /// true: filter before the search; false: filter the top rows (possibly fewer remain).
  bool prefilter = true;
  /// Search only the indexed rows.
  bool fast_search = false;
};

/// Builder for a full-text query (Table::Search()).
class FtsQuery {
 public:
  FtsQuery(std::shared_ptr<const Table> table, FtsQueryRequest request)
      : table_(std::move(table)), request_(std::move(request)) {}
  FtsQuery& Limit(int64_t limit);
  FtsQuery& Offset(int64_t offset);
  FtsQuery& Where(const std::string& filter);
  FtsQuery& Postfilter();
  FtsQuery& Select(std::vector<std::string> columns);
  FtsQuery& WithRowId(bool with_row_id = true);
  FtsQuery& WithRowAddress(bool with_row_address = true);
  /// Sort the `limit + offset` best rows by `ordering`, then apply offset and limit.
  FtsQuery& OrderBy(std::vector<ColumnOrdering> ordering);
  FtsQuery& FastSearch(bool fast = true);
  const FtsQueryRequest& request() const { return request_; }
  /// Run the query (errors before any data is read) and stream the result into `out`.
  /// InvalidArgument: empty query, no FTS index for the column, phrase without positions,
  /// unknown column, bad filter.
  Status Execute(ArrowArrayStream* out) const;
  Status OutputSchema(ArrowSchema* out) const;
  Result<std::string> ExplainPlan(bool verbose = false) const;

 private:
  std::shared_ptr<const Table> table_;
  FtsQueryRequest request_;
};

/// A hybrid query: a vector query and a full-text query over the same snapshot, with the same
/// filter and projection, each returning `limit + offset` rows, fused by reciprocal rank
/// (RRF, LanceDB's default reranker): a row's `_relevance_score` is the sum over the lists
/// holding it of 1 / (rank + rrf_k), ranks from 1. Rows come best first (ties keep the order
/// vector results first, then full-text-only rows); the result has the selected columns,
/// `_relevance_score` (float32), and `_rowid` when asked.
struct HybridQueryRequest {
  /// The vector half: vectors, column, distance type, nprobes, refine factor, ...; its
  /// `base`, `prefilter` are replaced by the fields below.
  VectorQueryRequest vector;
  /// The full-text half.
  FullTextQuery text;
  /// Filter, projection, limit (default 10), offset and with_row_id of the fused result
  /// (NotSupported: order_by, with_row_address, fragment_ids).
  QueryRequest base;
  bool prefilter = true;
  /// RRF's constant K (LanceDB: 60).
  double rrf_k = 60.0;
};

/// Builder for a hybrid query (Table::HybridSearch()).
class HybridQuery {
 public:
  HybridQuery(std::shared_ptr<const Table> table, HybridQueryRequest request)
      : table_(std::move(table)), request_(std::move(request)) {}
  HybridQuery& Limit(int64_t limit);
  HybridQuery& Offset(int64_t offset);
  HybridQuery& Where(const std::string& filter);
  HybridQuery& Postfilter();
  HybridQuery& Select(std::vector<std::string> columns);
  HybridQuery& WithRowId(bool with_row_id = true);
  /// RRF's K (must be positive).
  HybridQuery& RrfK(double k);
  /// Options of the vector half (column, distance type, nprobes, ...).
  VectorQueryRequest& vector() { return request_.vector; }
  const HybridQueryRequest& request() const { return request_; }
  /// Run both searches and fuse them into `out`. Errors of either half are returned.
  Status Execute(ArrowArrayStream* out) const;

 private:
  std::shared_ptr<const Table> table_;
  HybridQueryRequest request_;
};

/// Parameters of an FTS (inverted) index: LanceDB's FTS(...) with its defaults.
struct FtsIndexConfig {
  bool with_position = false;
  /// "simple", "whitespace", "raw", "ngram", "icu".
  std::string base_tokenizer = "simple";
  std::string language = "English";
  /// Tokens of at least this many UTF-8 bytes are dropped; nullopt: no limit.
  std::optional<uint32_t> max_token_length = 40;
  bool lower_case = true;
  bool stem = true;
  bool remove_stop_words = true;
  /// Replaces the language's stop words.
  std::optional<std::vector<std::string>> custom_stop_words;
  bool ascii_folding = true;
  uint32_t ngram_min_length = 3;
  uint32_t ngram_max_length = 3;
  bool prefix_only = false;
  /// 128 (256 is LanceDB's experimental format 3, not written here).
  uint32_t block_size = 128;
  /// Build memory in MiB over all workers (a partition is written whenever a worker's share
  /// fills); nullopt: 2048 MiB per worker. Not persisted.
  std::optional<uint64_t> memory_limit_mib;
  /// Build threads; nullopt: the machine's cores. Not persisted.
  std::optional<uint32_t> num_workers;
};

/// Analyze `text` as a query on an index built with `config`: the tokens with positions
/// relative to the first one (LanceDB's tokenize()). InvalidArgument for bad options.
Result<std::vector<std::pair<std::string, uint32_t>>> Tokenize(std::string_view text,
                                                               const FtsIndexConfig& config);

}  // namespace lancedb
