// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Arrow type names as DataFusion's `arrow_cast(expr, 'type')` takes them: the names arrow-rs
// prints for a DataType, in both its current spelling (`Timestamp(µs, "UTC")`, `List(Int32)`,
// `FixedSizeList(4 x Float32)`) and the older one (`Timestamp(Microsecond, Some("UTC"))`,
// `List(Field { ... })` is not accepted). Thread-safety: stateless functions.

#pragma once

#include <string_view>

#include "array/type.h"
#include "lancedb/status.h"

namespace lancedb::expr {

/// Parse an Arrow type name ("Int32", "Decimal128(19, 18)", "Timestamp(ns, \"UTC\")",
/// "List(non-null Utf8)", "Dictionary(Int32, Utf8)" ...). InvalidArgument naming the text when
/// it is not a type name; NotSupported for types lancedb-cpp does not represent (views,
/// unions, maps, intervals, run-end encoded, 256-bit decimals).
Result<array::DataTypePtr> ParseArrowTypeName(std::string_view text);

}  // namespace lancedb::expr
