// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Vectorized evaluation of bound expressions over record batches, with SQL three-valued logic.
// Each node is evaluated once per batch into a Vec by a tight loop specialised on the value
// kind; there are no per-row virtual calls. Thread-safety: stateless functions.

#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "array/array.h"
#include "expr/binder.h"
#include "expr/vec.h"

namespace lancedb::expr {

/// Evaluate `e` over `batch`, which must hold every column the expression reads (by name,
/// including `_rowid` / `_rowoffset` when used).
Result<Vec> EvaluateVec(const BoundExpr& e, const array::RecordBatch& batch);

/// Evaluate `e` into an Arrow array of `type` (default: the expression's type). A bare
/// top-level column is returned as is.
Result<array::ArrayPtr> Evaluate(const BoundExpression& e, const array::RecordBatch& batch,
                                 const array::DataTypePtr& type = nullptr);

/// Evaluate a filter: the indices of the rows where it is TRUE (NULL and FALSE drop the row).
Result<std::vector<int64_t>> EvaluateFilter(const BoundExpression& filter,
                                            const array::RecordBatch& batch);

}  // namespace lancedb::expr
