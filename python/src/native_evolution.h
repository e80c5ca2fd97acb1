// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Native functions for table evolution and maintenance (merge_insert, tags, schema changes,
// compaction), registered on lancedb_cpp._native by native.cc. They take the Table as first
// argument; the Python API (lancedb_cpp/_evolution.py) wraps them.

#pragma once

#include <nanobind/nanobind.h>

#include <optional>
#include <type_traits>
#include <utility>

#include "lancedb/status.h"

namespace lancedb::python {

/// Raise the Python exception for a failed status (native.cc, the one translation point).
[[noreturn]] void RaiseStatus(const Status& status);

/// Run `fn` with the GIL released; raise on failure, return the value otherwise.
template <typename Fn>
auto CallWithoutGil(Fn&& fn) {
  using R = decltype(fn());
  if constexpr (std::is_same_v<R, Status>) {
    Status status;
    {
      nanobind::gil_scoped_release release;
      status = fn();
    }
    if (!status.ok()) RaiseStatus(status);
  } else {
    std::optional<R> result;
    {
      nanobind::gil_scoped_release release;
      result.emplace(fn());
    }
    if (!result->ok()) RaiseStatus(result->status());
    return result->MoveValueUnsafe();
  }
}

/// Register the evolution functions on the module.
void RegisterEvolution(nanobind::module_& m);
/// Register the statistics, manifest naming and progress functions (native_table_info.cc).
void RegisterTableInfo(nanobind::module_& m);

}  // namespace lancedb::python
