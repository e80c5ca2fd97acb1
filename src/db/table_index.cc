// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// LocalTable index management: create, list, statistics, drop, wait and incremental optimize,
// over the index layer (src/index/vector_index.h, index_manager.h). Writes start from the
// newest version and publish what they commit.

#include <unordered_set>

#include "db/table_impl.h"
#include "index/fts_index_manager.h"
#include "index/index_details.h"
#include "index/index_manager.h"
#include "index/scalar_index_manager.h"
#include "index/vector_index.h"
#include "table/row_ids.h"
#include "table/stable_row_ids.h"

namespace lancedb::db {
namespace {

/// Whether the segment `info` of a table with stable row ids may be extended with the rows it
/// does not cover. Not when one of them has an id the segment holds (a row updated since
/// indexing keeps its id: it would be indexed twice, once with its stale vector), nor for an
/// HNSW sub-index (its rebuild reads the indexed rows by row address). Such segments leave
/// those rows unindexed (searched exactly) until the index is recreated.
Result<bool> CanExtendWithStableRowIds(const table::Dataset& ds, const IndexInfo& info) {
  if (info.columns.empty()) return false;
  LANCEDB_ASSIGN_OR_RETURN(auto segments, index::LoadVectorIndices(ds, info.columns[0]));
  for (const auto& segment : segments) {
    if (segment->name() != info.name) continue;
    const auto& ivf = segment->ivf();
    if (ivf.sub_index_type() == index::vector::SubIndexType::kHnsw) return false;
    std::unordered_set<uint64_t> indexed;
    for (int64_t p = 0; p < ivf.num_partitions(); ++p) {
      indexed.insert(ivf.partition(p).row_ids.begin(), ivf.partition(p).row_ids.end());
    }
    for (const auto& frag : ds.manifest().proto().fragments()) {
      if (segment->covers(frag.id())) continue;
      LANCEDB_ASSIGN_OR_RETURN(auto ids, table::FragmentRowIds(*ds.fs(), ds.path(), frag));
      for (uint64_t id : ids) {
        if (indexed.count(id)) return false;
      }
    }
  }
  return true;
}

}  // namespace

Status LocalTable::CreateIndex(const std::string& column, const VectorIndexConfig& config,
                               const CreateIndexOptions& options) {
  LANCEDB_RETURN_NOT_OK(CheckWritable());
  LANCEDB_ASSIGN_OR_RETURN(auto latest, LatestForWrite());
  LANCEDB_ASSIGN_OR_RETURN(auto written, index::CreateVectorIndex(latest, column, config, options));
  Publish(written);
  return Status::OK();
}

Status LocalTable::CreateScalarIndex(const std::string& column, ScalarIndexType type,
                                     const CreateIndexOptions& options) {
  LANCEDB_RETURN_NOT_OK(CheckWritable());
  LANCEDB_ASSIGN_OR_RETURN(auto latest, LatestForWrite());
  LANCEDB_ASSIGN_OR_RETURN(auto written, index::CreateScalarIndex(latest, column, type, options));
  Publish(written);
  return Status::OK();
}

Result<std::vector<IndexInfo>> LocalTable::ListIndices() const {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  return index::ListIndices(*ds);
}

Result<std::vector<std::pair<std::string, uint32_t>>> LocalTable::Tokenize(
    std::string_view query, const std::optional<std::string>& column,
    const std::optional<std::string>& index_name) const {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  LANCEDB_ASSIGN_OR_RETURN(auto params, index::FindFtsIndexParams(*ds, column, index_name));
  LANCEDB_ASSIGN_OR_RETURN(auto analyzer, index::fts::Analyzer::Make(params.analyzer));
  std::vector<index::fts::Token> tokens;
  analyzer->Analyze(query, &tokens);
  std::vector<std::pair<std::string, uint32_t>> out;
  for (auto& t : tokens) out.emplace_back(std::move(t.text), t.position - tokens[0].position);
  return out;
}

Result<IndexStatistics> LocalTable::IndexStats(const std::string& name) const {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  return index::GetIndexStatistics(*ds, name);
}

Status LocalTable::PrewarmIndex(const std::string& name) const {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  return index::PrewarmIndex(*ds, name);
}

Status LocalTable::DropIndex(const std::string& name) {
  LANCEDB_RETURN_NOT_OK(CheckWritable());
  LANCEDB_ASSIGN_OR_RETURN(auto latest, LatestForWrite());
  LANCEDB_ASSIGN_OR_RETURN(auto written, index::DropIndex(latest, name));
  Publish(written);
  return Status::OK();
}

Status LocalTable::WaitForIndex(const std::vector<std::string>& names,
                                std::chrono::milliseconds timeout) const {
  if (timeout.count() < 0) return Status::InvalidArgument("wait_for_index: negative timeout");
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  LANCEDB_ASSIGN_OR_RETURN(auto indices, index::ListIndices(*ds));
  for (const auto& name : names) {
    bool found = false;
    for (const auto& info : indices) found |= info.name == name;
    if (!found) return Status::NotFound("Index '" + name + "' not found");
  }
  return Status::OK();
}

Status LocalTable::OptimizeIndices(const CreateIndexOptions& options) {
  LANCEDB_RETURN_NOT_OK(CheckWritable());
  LANCEDB_ASSIGN_OR_RETURN(auto latest, LatestForWrite());
  LANCEDB_ASSIGN_OR_RETURN(auto indices, index::ListIndices(*latest));
  for (const auto& info : indices) {
    if (info.type_url == index::fts::kInvertedIndexTypeUrl) {
      LANCEDB_ASSIGN_OR_RETURN(latest, index::OptimizeFtsIndex(latest, info.name));
      continue;
    }
    if (index::scalar::ScalarIndexTypeFromUrl(info.type_url)) {
      LANCEDB_ASSIGN_OR_RETURN(latest, index::OptimizeScalarIndex(latest, info.name));
      continue;
    }
    const bool lance = info.type_url == index::kLanceVectorIndexTypeUrl;
    if (info.type_url != index::kVectorIndexTypeUrl && !lance) continue;
    if (table::UsesStableRowIds(*latest)) {
      LANCEDB_ASSIGN_OR_RETURN(bool safe, CanExtendWithStableRowIds(*latest, info));
      if (!safe) continue;
    }
    auto optimized = index::OptimizeVectorIndex(latest, info.name, options);
    // A Lance index of a type (or column type) lancedb-cpp does not extend keeps its
    // unindexed rows, which searches scan exactly.
    if (lance && optimized.status().IsNotSupported()) continue;
    LANCEDB_ASSIGN_OR_RETURN(latest, std::move(optimized));
  }
  Publish(latest);
  return Status::OK();
}

}  // namespace lancedb::db

namespace lancedb {

Result<std::vector<std::pair<std::string, uint32_t>>> Table::Tokenize(
    std::string_view, const std::optional<std::string>&, const std::optional<std::string>&) const {
  return Status::NotSupported("tokenize is not supported by this table");
}

Status Table::PrewarmIndex(const std::string&) const {
  return Status::NotSupported("prewarm_index is not supported by this table");
}

}  // namespace lancedb
