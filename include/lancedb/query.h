// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Query: a builder for a plain (non-vector) query over a Table, mirroring LanceDB's Rust
// `Query` (`table.query().only_if(..).select(..).limit(..)`) and `TakeQuery`
// (`take_offsets`, `take_row_ids`). Filters and projections are SQL expression strings in the
// DataFusion dialect LanceDB accepts. Thread-safety: a Query is a value; do not share one
// builder between threads while modifying it. Executing it is const and thread-safe.

#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lancedb/arrow_c.h"
#include "lancedb/status.h"

namespace lancedb {

class Table;
class VectorQuery;

/// What a query returns, LanceDB's `Select`.
enum class SelectKind : uint8_t {
  kAll,      ///< every column of the table
  kColumns,  ///< named columns (nested paths allowed: "a.b"), in the order given
  kDynamic,  ///< (alias, SQL expression) pairs, in the order given
};

/// One key of a query's ordering (LanceDB's ColumnOrdering).
struct ColumnOrdering {
  /// A column of the table (a dot path for a struct member), not an alias of the selection.
  std::string column;
  bool ascending = true;
  /// Nulls before every value (else after them), in either direction.
  bool nulls_first = false;
};

/// The full description of a plain query; what the builder fills in.
struct QueryRequest {
  /// SQL filter; rows where it is not TRUE are dropped. Repeated Where() calls are ANDed.
  std::optional<std::string> filter;
  SelectKind select = SelectKind::kAll;
  std::vector<std::string> columns;                          ///< for kColumns
  std::vector<std::pair<std::string, std::string>> dynamic;  ///< for kDynamic: alias, expr
  /// Maximum rows returned; unset or 0 = no limit.
  std::optional<int64_t> limit;
  /// Rows (after filtering) skipped before the first returned.
  int64_t offset = 0;
  /// Append the `_rowid` column (uint64).
  bool with_row_id = false;
  /// Maximum rows per output batch.
  int64_t max_batch_length = 1024;
  /// Take only these row offsets (positions among the live rows, LanceDB `take_offsets`).
  std::optional<std::vector<uint64_t>> take_offsets;
  /// Take only these row ids (LanceDB `take_row_ids`): each row once, in table order.
  std::optional<std::vector<uint64_t>> take_row_ids;
  /// Let scalar indices answer the filter where they cover the table (results are the same
  /// either way; false scans every fragment).
  bool use_scalar_index = true;
  /// Sort the matching rows by these keys (the first key first; rows equal on every key keep
  /// their scan order) before offset and limit apply. Values order as DataFusion orders them:
  /// nulls first or last as asked in either direction, floats in IEEE total order (NaN after
  /// +inf), strings by bytes, lists and structs item by item (array/sort.h). Vector and
  /// full-text queries sort their `limit + offset` best rows, then apply offset and limit.
  /// InvalidArgument for a key that is not a column of the table.
  std::vector<ColumnOrdering> order_by;
  /// Append the `_rowaddr` column (uint64: fragment id << 32 | row offset in the fragment),
  /// after `_rowid`.
  bool with_row_address = false;
  /// Read only the fragments with these ids (as the manifest numbers them). InvalidArgument
  /// naming the ids the version does not have; NotSupported with takes.
  std::optional<std::vector<uint64_t>> fragment_ids;
};

/// Builder for a query on one table. Obtain with Table::Query(), Table::TakeOffsets() or
/// Table::TakeRowIds(); the builder keeps the table alive.
class Query {
 public:
  Query(std::shared_ptr<const Table> table, QueryRequest request = {})
      : table_(std::move(table)), request_(std::move(request)) {}

  /// Keep only rows where `filter` (SQL) is TRUE. A second call ANDs with the first.
  Query& Where(const std::string& filter);
  /// Return these columns, in order.
  Query& Select(std::vector<std::string> columns);
  /// Return computed columns: each (alias, SQL expression).
  Query& Select(std::vector<std::pair<std::string, std::string>> expressions);
  /// Return at most `limit` rows (0 = no limit).
  Query& Limit(int64_t limit);
  /// Skip the first `offset` matching rows.
  Query& Offset(int64_t offset);
  /// Append the `_rowid` column.
  Query& WithRowId(bool with_row_id = true);
  /// Maximum rows per output batch.
  Query& MaxBatchLength(int64_t rows);
  /// Whether scalar indices may answer the filter (default true).
  Query& UseScalarIndex(bool use);
  /// Sort the result by `ordering` before offset and limit (empty: scan order).
  Query& OrderBy(std::vector<ColumnOrdering> ordering);
  /// Append the `_rowaddr` column.
  Query& WithRowAddress(bool with_row_address = true);
  /// Read only the fragments with these ids.
  Query& FragmentIds(std::vector<uint64_t> fragment_ids);
  /// Turn this query into a nearest-neighbour query for `vector` (vector_query.h), keeping
  /// its filter, projection, offset, limit, ordering, with_row_id and with_row_address.
  VectorQuery NearestTo(std::vector<float> vector) const;
  /// Turn this query into a multivector (late interaction, MaxSim) query: `vectors` are one
  /// query against a multivector column (list<fixed_size_list>); see
  /// VectorQueryRequest::multivector.
  VectorQuery NearestToMultivector(std::vector<std::vector<float>> vectors) const;

  const QueryRequest& request() const { return request_; }

  /// Run the query: bind and type-check every expression (errors are returned here, before
  /// any data is read), then stream the result into `out` (caller releases it).
  Status Execute(ArrowArrayStream* out) const;
  /// The schema the query returns (caller releases it).
  Status OutputSchema(ArrowSchema* out) const;
  /// The plan as text, as LanceDB's explain_plan: the read, the scalar index lookups and the
  /// filter left to evaluate (with `verbose`, every projected expression).
  Result<std::string> ExplainPlan(bool verbose = false) const;
  /// Run the query and return the plan with what each step did: rows returned by the index
  /// lookups, fragments scanned, index pages decoded, output rows and times.
  Result<std::string> AnalyzePlan() const;

 private:
  std::shared_ptr<const Table> table_;
  QueryRequest request_;
};

}  // namespace lancedb
