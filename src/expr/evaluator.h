// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Vectorized evaluation of bound expressions over record batches, with SQL three-valued logic.
// Each node is evaluated once per batch into a Vec by a tight loop specialised on the value
// kind; there are no per-row virtual calls. Thread-safety: stateless functions.

#pragma once

#include <cstdint>
#include <memory>
#include <regex>
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

/// Evaluate one function call (evaluator_functions.cc).
Result<Vec> EvaluateFunction(const BoundExpr& e, const array::RecordBatch& batch);
/// LIKE matching on bytes: '%' any sequence, '_' one UTF-8 character, `escape` quotes.
bool LikeMatch(std::string_view text, std::string_view pattern, char escape);
/// Lower/upper-case UTF-8 (ASCII, Latin-1, Greek and Cyrillic letters).
std::string Utf8Lower(std::string_view s);
std::string Utf8Upper(std::string_view s);
/// Fold case for case-insensitive comparison (ILIKE): Utf8Lower's mapping without the final
/// sigma rule, with ς, ſ and µ folded to σ, s and μ.
std::string Utf8Fold(std::string_view s);

/// A regular expression matched over code points (the UTF-8 text decoded), so that `.` and
/// character classes see characters, not bytes. Case-insensitive matching lowers pattern and
/// text with Utf8Lower's mapping (one code point to one). ECMAScript syntax (std::regex), which
/// agrees with DataFusion's (Rust regex) on the common subset. Immutable.
struct Utf8Regex {
  std::wregex re;
  bool case_insensitive = false;
};
/// Compile `pattern` with DataFusion's regexp flags ('i' case-insensitive, 'c' case-sensitive,
/// 'g' rejected as DataFusion does); InvalidArgument naming the problem otherwise.
Result<std::shared_ptr<const Utf8Regex>> CompileRegex(std::string_view pattern,
                                                      std::string_view flags);

}  // namespace lancedb::expr
