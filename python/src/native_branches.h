// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Native functions for branches, cherry-picks and table clones, registered on
// lancedb_cpp._native by native.cc; the Python API (lancedb_cpp/_branches.py) wraps them.

#pragma once

#include <nanobind/nanobind.h>

namespace lancedb::python {

/// Register the branch and clone functions on the module.
void RegisterBranches(nanobind::module_& m);

}  // namespace lancedb::python
