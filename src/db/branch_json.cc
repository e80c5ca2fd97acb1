// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// BranchDiff and CherryPickResult as the camelCase JSON of LanceDB's REST protocol and Python
// API (lancedb-api.md §2.4.7, 43c/43d).

#include <nlohmann/json.hpp>

#include "lancedb/branch.h"

namespace lancedb {
namespace {

using Json = nlohmann::ordered_json;

Json ColumnJson(const ColumnSummary& c) {
  return Json{{"name", c.name}, {"dataType", c.data_type}, {"nullable", c.nullable}};
}

Json IndexJson(const IndexSummary& i) {
  Json j{{"indexName", i.index_name}, {"columns", i.columns}};
  if (i.index_type) j["indexType"] = *i.index_type;
  j["status"] = i.status;
  return j;
}

Json DiffJson(const BranchDiff& d) {
  Json j;
  j["fromBranch"] = d.from_branch;
  j["parentVersion"] = d.parent_version;
  j["mainVersion"] = d.main_version;
  j["branchVersion"] = d.branch_version;
  j["baseMoved"] = d.base_moved;
  j["rowCountMain"] = d.row_count_main;
  j["rowCountBranch"] = d.row_count_branch;
  const auto& r = d.row_summary;
  j["rowSummary"] =
      Json{{"unchanged", r.unchanged},          {"newOnBase", r.new_on_base},
           {"newOnBranch", r.new_on_branch},    {"staleRecompute", r.stale_recompute},
           {"inputsChanged", r.inputs_changed}, {"deltaAvailable", r.delta_available}};
  auto columns = [](const std::vector<ColumnSummary>& v) {
    Json a = Json::array();
    for (const auto& c : v) a.push_back(ColumnJson(c));
    return a;
  };
  auto indexes = [](const std::vector<IndexSummary>& v) {
    Json a = Json::array();
    for (const auto& i : v) a.push_back(IndexJson(i));
    return a;
  };
  j["addedColumns"] = columns(d.added_columns);
  j["removedColumns"] = columns(d.removed_columns);
  Json changed = Json::array();
  for (const auto& c : d.changed_columns) {
    changed.push_back(
        Json{{"name", c.name}, {"main", ColumnJson(c.main)}, {"branch", ColumnJson(c.branch)}});
  }
  j["changedColumns"] = std::move(changed);
  j["addedIndexes"] = indexes(d.added_indexes);
  j["removedIndexes"] = indexes(d.removed_indexes);
  Json errors = Json::array();
  for (const auto& e : d.errors) errors.push_back(Json{{"code", e.code}, {"message", e.message}});
  j["errors"] = std::move(errors);
  return j;
}

}  // namespace

const char* CherryPickStatusName(CherryPickStatus status) {
  switch (status) {
    case CherryPickStatus::kReady:
      return "ready";
    case CherryPickStatus::kFailed:
      return "failed";
    case CherryPickStatus::kNotImplemented:
      return "notImplemented";
    case CherryPickStatus::kCherryPicked:
      return "cherryPicked";
  }
  return "failed";
}

std::string BranchDiffToJson(const BranchDiff& diff) { return DiffJson(diff).dump(); }

std::string CherryPickResultToJson(const CherryPickResult& result) {
  Json j;
  j["status"] = CherryPickStatusName(result.status);
  j["diff"] = DiffJson(result.diff);
  j["preview"] = Json{{"promotedColumns", result.promoted_columns}};
  if (result.main_version_after) j["mainVersionAfter"] = *result.main_version_after;
  return j.dump();
}

}  // namespace lancedb
