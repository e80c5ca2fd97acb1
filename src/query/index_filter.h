// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Filters answered by scalar indices. A bound filter is split into the part the table's
// scalar indices answer — a tree of index lookups combined with AND / OR / NOT under SQL's
// three-valued logic — and the rest, which the rows the lookups return must still pass (the
// executor evaluates the whole filter on them, which gives the same answer since lookups are
// exact). Lookups answer for the fragments every index they use covers; other fragments are
// scanned. Mirrors Lance's planning (docs/query-planning.md): an AND keeps its indexed
// conjuncts, an OR or NOT is indexed only when all of it is, IN / BETWEEN / IS NULL / bare
// boolean columns / array_has_any / array_has_all / array_contains are recognized.
// Thread-safety: an IndexFilter is immutable once planned.

#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "expr/binder.h"
#include "index/scalar_index_manager.h"
#include "table/dataset.h"

namespace lancedb::query {

/// A node of the lookup tree.
struct IndexLookup {
  enum class Op : uint8_t { kLookup, kAnd, kOr, kNot };
  Op op = Op::kLookup;
  /// kLookup: the index (all its segments), the column, the query.
  std::string index_name;
  std::string column;
  index::scalar::ScalarIndexType type = index::scalar::ScalarIndexType::kBTree;
  index::scalar::ScalarQuery query;
  /// kLookup: `IS TRUE` / `IS FALSE` / `IS NULL` shapes never yield NULL.
  bool never_null = false;
  std::vector<const index::ScalarSegment*> segments;
  std::vector<IndexLookup> children;

  /// As LanceDB's explain_plan prints it: "[i = 5]@i_idx(BTree)", "AND(..,..)", "NOT(..)".
  std::string ToString() const;
};

/// What the indices answer of a filter.
struct IndexFilter {
  IndexLookup root;
  /// The fragments every index of the tree covers: the lookups answer for these.
  std::set<uint64_t> fragments;
  /// Whether the tree is the whole filter (nothing left to evaluate on its rows).
  bool exact = false;
  /// The top-level conjuncts of the filter (its AND chain, left to right, from 0) that the
  /// tree does not answer: what explain_plan shows as `refine_filter`.
  std::vector<size_t> residual;
  /// The indices in use (for explain_plan), by name.
  std::set<std::string> indices;
};

/// Plan the lookups of `filter` over `segments` (those of `dataset`). nullopt when no index
/// helps (no indexed conjunct, or the indices cover no fragment).
std::optional<IndexFilter> PlanIndexFilter(const expr::BoundExpr& filter,
                                           const std::vector<index::ScalarSegment>& segments);

/// Run the lookups: the row addresses of the live rows of `filter.fragments` where the tree is
/// TRUE, ascending. On tables with stable row ids the indices hold ids, mapped to addresses
/// here (a row updated since indexing lives in an uncovered fragment and is not returned).
Result<std::vector<uint64_t>> EvaluateIndexFilter(const IndexFilter& filter,
                                                  const table::Dataset& dataset);

/// The number of rows EvaluateIndexFilter returns, without listing them.
Result<int64_t> CountIndexFilter(const IndexFilter& filter, const table::Dataset& dataset);

}  // namespace lancedb::query
