// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// LanceDB's `new_table_*` storage options: creation overrides, not storage settings.
//   new_table_enable_stable_row_ids     "true" | "false" (default false)
//   new_table_enable_v2_manifest_paths  "true" | "false" (default true)
//   new_table_data_storage_version      "stable" | "2.2" (the only version written)
// The storage layer never sees them (local and memory:// storage take no options).

#pragma once

#include <map>
#include <string>

#include "lancedb/status.h"
#include "table/dataset.h"

namespace lancedb::db {

/// Set the creation parameters from the `new_table_*` keys of `storage_options`.
/// InvalidArgument for a bad value; NotSupported for a data storage version not written.
Status ApplyNewTableOptions(const std::map<std::string, std::string>& storage_options,
                            table::WriteParams* params);

}  // namespace lancedb::db
