// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Range analysis of bound filters over zone statistics (format/statistics.h): decides,
// conservatively, that no row of a row range can make a filter TRUE, so that a scan may skip
// the range. Each node is abstracted as the set of SQL truth values {TRUE, FALSE, NULL} its rows
// may take; comparisons use the column's min/max converted into the evaluator's value domain
// (the same coercions the binder made: int -> float, date -> timestamp, timestamp units to
// microseconds). NaN values and unknown bounds make every outcome possible. Expressions the
// analysis does not understand may take any value. Thread-safety: stateless functions.

#pragma once

#include "expr/bound.h"
#include "format/statistics.h"

namespace lancedb::expr {

/// Truth values a filter may take over a range (bit set).
enum Outcome : uint8_t {
  kMayBeTrue = 1,
  kMayBeFalse = 2,
  kMayBeNull = 4,
  kAnyOutcome = 7,
};

/// The truth values `e` (a boolean expression) may take over the rows the statistics describe.
uint8_t PossibleOutcomes(const BoundExpr& e, const format::RangeStatsLookup& stats);

/// False only when no row described by `stats` can make `filter` TRUE.
bool MayMatch(const BoundExpr& filter, const format::RangeStatsLookup& stats);

/// A pruning predicate for scans (table::ScanOptions) over `filter`, which is kept alive.
format::RangePredicate MakeRangePredicate(BoundPtr filter);

}  // namespace lancedb::expr
