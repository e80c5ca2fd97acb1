// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "db/new_table_options.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "table/dataset.h"

namespace lancedb::db {
namespace {

Result<bool> ParseBool(const std::string& key, std::string value) {
  std::transform(value.begin(), value.end(), value.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (value == "true") return true;
  if (value == "false") return false;
  return Status::InvalidArgument("Storage option '" + key + "' must be 'true' or 'false', got '" +
                                 value + "'");
}

constexpr std::string_view kNewTablePrefix = "new_table_";

}  // namespace

std::map<std::string, std::string> MergeStorageOptions(
    const std::map<std::string, std::string>& connection,
    const std::map<std::string, std::string>& table) {
  std::map<std::string, std::string> merged = table;
  merged.insert(connection.begin(), connection.end());  // keeps the table's values
  return merged;
}

std::map<std::string, std::string> StorageOnlyOptions(std::map<std::string, std::string> options) {
  std::erase_if(options, [](const auto& kv) { return kv.first.starts_with(kNewTablePrefix); });
  return options;
}

Status ApplyNewTableOptions(const std::map<std::string, std::string>& options,
                            table::WriteParams* params) {
  for (const auto& [key, value] : options) {
    if (key == "new_table_enable_stable_row_ids") {
      LANCEDB_ASSIGN_OR_RETURN(params->enable_stable_row_ids, ParseBool(key, value));
    } else if (key == "new_table_enable_v2_manifest_paths") {
      LANCEDB_ASSIGN_OR_RETURN(params->enable_v2_manifest_paths, ParseBool(key, value));
    } else if (key == "new_table_data_storage_version") {
      if (auto version = table::ParseDataStorageVersion(value); !version.ok()) {
        return Status::NotSupported("new_table_data_storage_version '" + value +
                                    "' is not supported: " + version.status().message());
      }
      params->data_storage_version = value == "stable" ? "2.2" : value;
    }
  }
  return Status::OK();
}

}  // namespace lancedb::db
