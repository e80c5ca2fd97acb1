// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// VectorQuery: a nearest-neighbour query over a vector column, mirroring LanceDB's Rust
// `VectorQuery` (`table.query().nearest_to(v).distance_type(..).limit(..)`). The result has
// the selected columns, then `_distance` (float32, smaller is closer), then `_rowid` and
// `_rowaddr` when asked; a batch query (several vectors) puts an int32 `query_index` column
// first.
//
// Without a usable index (or with BypassVectorIndex) the search is exact over the table
// snapshot. With an index, the indexed fragments are searched through it and the fragments
// appended after it exactly, and the two are merged; deleted rows never appear.
//
// Thread-safety: a VectorQuery is a value; do not share one builder between threads while
// modifying it. Executing it is const and thread-safe.

#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lancedb/arrow_c.h"
#include "lancedb/query.h"
#include "lancedb/status.h"

namespace lancedb {

/// The full description of a vector query; what the builder fills in.
struct VectorQueryRequest {
  /// Filter, projection, limit, offset, ordering, with_row_id, with_row_address and batch
  /// length, as for a plain query. The limit defaults to 10 here (unset or 0 means 10).
  /// NotSupported for fragment_ids and takes.
  QueryRequest base;
  /// Query vectors, each of the column's dimension (uint8 values 0..255 for hamming).
  /// Several vectors make a batch query (a `query_index` column tells them apart).
  std::vector<std::vector<float>> vectors;
  /// The vector column; unset: the single vector column of the query's dimension.
  std::optional<std::string> column;
  /// "l2", "cosine", "dot" or "hamming"; unset: the index's, else l2.
  std::optional<std::string> distance_type;
  /// Partitions probed at least (LanceDB default 20).
  size_t minimum_nprobes = 20;
  /// Partitions probed at most while fewer than `limit` rows are found; 0 = no bound.
  /// Unset: equal to minimum_nprobes.
  std::optional<size_t> maximum_nprobes;
  /// Re-rank refine_factor * limit index candidates with exact distances.
  std::optional<uint32_t> refine_factor;
  /// HNSW search breadth; unset: 1.5 * limit.
  std::optional<size_t> ef;
  /// Keep only lower_bound <= _distance < upper_bound.
  std::optional<float> lower_bound;
  std::optional<float> upper_bound;
  /// true: filter before the search, so `limit` rows come back whenever that many match;
  /// false: filter the `limit` nearest rows (possibly fewer remain).
  bool prefilter = true;
  /// The vectors are one multivector query (late interaction): InvalidArgument unless the
  /// column is a multivector column (list<fixed_size_list>). On a multivector column the
  /// vectors are one multivector query whether or not this is set.
  bool multivector = false;
  /// Search exhaustively even when the column is indexed.
  bool bypass_vector_index = false;
  /// Search only the indexed rows (skip rows appended after the index was built).
  bool fast_search = false;
};

/// Builder for a vector query. Obtain with Query::NearestTo() or Table::VectorSearch(); the
/// builder keeps the table alive.
class VectorQuery {
 public:
  VectorQuery(std::shared_ptr<const Table> table, VectorQueryRequest request)
      : table_(std::move(table)), request_(std::move(request)) {}

  /// Add another query vector (a batch query).
  VectorQuery& AddQueryVector(std::vector<float> vector);
  /// Search this vector column (default: inferred from the query's dimension).
  VectorQuery& Column(std::string column);
  /// "l2" (default), "cosine", "dot", "hamming". Checked when the query runs.
  VectorQuery& DistanceType(std::string distance_type);
  /// Return at most `limit` rows per query vector (default 10; 0 means 10).
  VectorQuery& Limit(int64_t limit);
  /// Skip the first `offset` nearest rows.
  VectorQuery& Offset(int64_t offset);
  /// Keep only rows where the SQL `filter` is TRUE (prefilter unless Postfilter()).
  VectorQuery& Where(const std::string& filter);
  /// Apply the filter to the nearest rows instead of before the search.
  VectorQuery& Postfilter();
  /// Return these columns (then `_distance`).
  VectorQuery& Select(std::vector<std::string> columns);
  /// Return computed columns: each (alias, SQL expression).
  VectorQuery& Select(std::vector<std::pair<std::string, std::string>> expressions);
  /// Append the `_rowid` column.
  VectorQuery& WithRowId(bool with_row_id = true);
  /// Append the `_rowaddr` column.
  VectorQuery& WithRowAddress(bool with_row_address = true);
  /// Sort the `limit + offset` nearest rows of each query vector by `ordering`, then apply
  /// offset and limit.
  VectorQuery& OrderBy(std::vector<ColumnOrdering> ordering);
  /// Probe exactly `nprobes` IVF partitions.
  VectorQuery& Nprobes(size_t nprobes);
  VectorQuery& MinimumNprobes(size_t nprobes);
  /// 0: probe as many partitions as needed to fill `limit`.
  VectorQuery& MaximumNprobes(size_t nprobes);
  VectorQuery& RefineFactor(uint32_t refine_factor);
  VectorQuery& Ef(size_t ef);
  /// Keep only lower <= _distance < upper (either bound may be absent).
  VectorQuery& DistanceRange(std::optional<float> lower, std::optional<float> upper);
  VectorQuery& BypassVectorIndex(bool bypass = true);
  VectorQuery& FastSearch(bool fast = true);
  /// Maximum rows per output batch.
  VectorQuery& MaxBatchLength(int64_t rows);

  const VectorQueryRequest& request() const { return request_; }

  /// Run the query: validate every option and expression first (errors are returned here,
  /// before any data is read), then stream the result into `out` (caller releases it).
  /// InvalidArgument: wrong dimension, NaN in a query vector, unknown distance type, no or
  /// ambiguous vector column, bad filter or projection.
  Status Execute(ArrowArrayStream* out) const;
  /// The schema the query returns (caller releases it).
  Status OutputSchema(ArrowSchema* out) const;
  /// The plan as text, as LanceDB's explain_plan: the index searched (or the flat scan), the
  /// top-k, the prefilter's own plan (scalar index lookups) and the take of the output columns.
  Result<std::string> ExplainPlan(bool verbose = false) const;
  /// Run the query and return its plan with measured output rows and time.
  Result<std::string> AnalyzePlan() const;

 private:
  std::shared_ptr<const Table> table_;
  VectorQueryRequest request_;
};

}  // namespace lancedb
