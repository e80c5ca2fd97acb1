// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// What the other writes of a LocalTable must know about computed columns (table_computed.cc):
// which columns an input change makes stale, and which columns cannot be dropped, renamed or
// retyped because a computed column reads them.
// Thread-safety: stateless functions.

#pragma once

#include <set>
#include <string>

#include "array/type.h"
#include "lancedb/status.h"

namespace lancedb::db {

/// The positions of the computed columns of `schema` that read a column of `changed`, directly
/// or through another computed column (not counting the columns in `changed` themselves).
Result<std::set<int>> ComputedColumnsReading(const array::Schema& schema,
                                             const std::set<std::string>& changed);

/// InvalidArgument "Invalid input, column 'x' is read by computed column 'd'; drop that column
/// first" when a computed column of `schema` (other than `column`) reads top-level column
/// `column`.
Status CheckNotReadByComputed(const array::Schema& schema, const std::string& column);

}  // namespace lancedb::db
