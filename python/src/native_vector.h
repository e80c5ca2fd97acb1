// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Native functions for vector search and index management, registered on lancedb_cpp._native
// by native.cc. They take the Table as first argument; the Python API (lancedb_cpp/_vector.py,
// lancedb_cpp/index.py) wraps them.

#pragma once

#include <nanobind/nanobind.h>

#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "lancedb/query.h"
#include "lancedb/status.h"

namespace lancedb::python {

/// Raise the Python exception for a failed status (defined in native.cc, the one place where
/// engine codes become exceptions).
[[noreturn]] void RaiseStatus(const Status& status);

/// An ordering as the Python API passes it: (column, ascending, nulls_first) triples.
using OrderingArg = std::optional<std::vector<std::tuple<std::string, bool, bool>>>;

inline std::vector<ColumnOrdering> ToOrdering(OrderingArg ordering) {
  std::vector<ColumnOrdering> out;
  if (!ordering) return out;
  for (auto& [column, ascending, nulls_first] : *ordering) {
    out.push_back({std::move(column), ascending, nulls_first});
  }
  return out;
}

/// Run `fn` (returning Status) with the GIL released; raise on failure.
template <typename Fn>
void RunWithoutGil(Fn&& fn) {
  Status status;
  {
    nanobind::gil_scoped_release release;
    status = fn();
  }
  if (!status.ok()) RaiseStatus(status);
}

/// Register vector_query, vector_query_schema and the index functions on `m`.
void BindVectorSearch(nanobind::module_& m);
void BindFullTextSearch(nanobind::module_& m);

}  // namespace lancedb::python
