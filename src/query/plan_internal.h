// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Pieces of plain-query execution shared by plan.cc (scans, index lookups, takes) and
// plan_order.cc (ordered results). Not part of the query layer's interface.

#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "query/plan.h"

namespace lancedb::query::internal {

/// The names of the sort keys in the sort input: "__lancedb_sort_key0", ...
inline constexpr const char* kSortKeyPrefix = "__lancedb_sort_key";

/// A non-null uint64 array of `values`.
array::ArrayPtr U64Array(const std::vector<uint64_t>& values);

/// `batch` with `extra` (name, array) columns appended; `nullable` as the scanner declares
/// them (row ids and addresses are never null).
Result<array::RecordBatchPtr> WithColumns(
    const array::RecordBatch& batch,
    const std::vector<std::pair<std::string, array::ArrayPtr>>& extra, bool nullable = true);

/// The outputs of `plan` evaluated over `input` (which holds every column they read), then
/// `row_ids` and `addresses` when the plan returns them.
Result<array::RecordBatchPtr> Project(const QueryPlan& plan, const array::RecordBatch& input,
                                      const array::ArrayPtr& row_ids,
                                      const array::ArrayPtr& addresses);

/// A snapshot holding only the fragments of `dataset` accepted by `keep`.
Result<table::DatasetPtr> FragmentView(const table::DatasetPtr& dataset,
                                       const std::function<bool(uint64_t)>& keep);

/// A plan reading the ordering keys (named by kSortKeyPrefix and their position), the
/// columns the outputs read unless plan.late_sort, `_rowid`, `_rowaddr` and, when an output of
/// the plan uses it, `_rowoffset` of every row `request` matches.
Result<QueryPlan> PlanSortInput(const table::DatasetPtr& dataset, const QueryRequest& request,
                                const QueryPlan& plan);

/// Stream the result of an ordered plan: drain `keys` (the stream of plan.sort_input), order
/// its rows, keep [offset, offset + limit) and take the output columns of those rows.
std::unique_ptr<array::RecordBatchReader> MakeSortedReader(
    QueryPlan plan, std::unique_ptr<array::RecordBatchReader> keys,
    std::shared_ptr<QueryMetrics> metrics);

/// The SortExec line of an ordered plan, in LanceDB's explain_plan shape.
std::string ExplainSort(const QueryPlan& plan);

}  // namespace lancedb::query::internal
