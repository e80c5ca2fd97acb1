// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// LanceDB's `new_table_*` storage options: creation overrides, not storage settings.
//   new_table_enable_stable_row_ids     "true" | "false" (default false)
//   new_table_enable_v2_manifest_paths  "true" | "false" (default true)
//   new_table_data_storage_version      "stable" | "2.2" | "2.1" (the versions written;
//                                       "2.0"/"legacy" and "next" are NotSupported)
// They may be set on the connection (for every table it creates) or on one CreateTable call
// (overriding the connection's); either way the storage layer never sees them.

#pragma once

#include <map>
#include <string>

#include "lancedb/status.h"
#include "table/dataset.h"

namespace lancedb::db {

/// The storage options of one table: the connection's, overridden by the table's.
std::map<std::string, std::string> MergeStorageOptions(
    const std::map<std::string, std::string>& connection,
    const std::map<std::string, std::string>& table);

/// `options` without the `new_table_*` keys: what is passed on to storage.
std::map<std::string, std::string> StorageOnlyOptions(std::map<std::string, std::string> options);

/// Set the creation parameters from the `new_table_*` keys of `storage_options`.
/// InvalidArgument for a bad value; NotSupported for a data storage version not written.
Status ApplyNewTableOptions(const std::map<std::string, std::string>& storage_options,
                            table::WriteParams* params);

}  // namespace lancedb::db
