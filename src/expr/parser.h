// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Parser for the SQL expression dialect LanceDB accepts in filters, projections and updates
// (DataFusion over sqlparser's generic dialect). Thread-safety: stateless functions.

#pragma once

#include <string_view>

#include "expr/ast.h"
#include "lancedb/status.h"

namespace lancedb::expr {

/// Parse one expression. InvalidArgument on a syntax error, with the 1-based column and what
/// was expected: "Syntax error at position 7: expected an expression, found ')'".
Result<NodePtr> Parse(std::string_view sql);

/// Parse a SQL type name (`INT`, `BIGINT UNSIGNED`, `DOUBLE PRECISION`, `VARCHAR`, `DATE`,
/// `TIMESTAMP`, ...) into an Arrow type, as DataFusion maps them. InvalidArgument when unknown.
Result<array::DataTypePtr> ParseTypeName(std::string_view name);

/// Parse 'YYYY-MM-DD' into days since the epoch.
Result<int64_t> ParseDate(std::string_view text);
/// Parse 'YYYY-MM-DD[ T]HH:MM:SS[.ffffff][Z|+HH:MM]' (or a date alone) into microseconds since
/// the epoch (UTC).
Result<int64_t> ParseTimestamp(std::string_view text);
/// Parse 'HH:MM[:SS[.ffffff]]' into microseconds since midnight.
Result<int64_t> ParseTime(std::string_view text);
/// Parse an interval such as '1 day 2 hours' or '1.5 seconds' into microseconds. Units are
/// fixed lengths (week .. microsecond); months and years are NotSupported.
Result<int64_t> ParseInterval(std::string_view text);

}  // namespace lancedb::expr
