// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Loading (with the process-wide cache) and searching vector indices (vector_index.h).

#include "index/vector_index.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <unordered_map>

#include "index/index_details.h"
#include "index/vector/distance.h"
#include "index/vector/flat_search.h"
#include "index/vector/lance_ivf_read.h"
#include "index/vector_index_internal.h"
#include "table/create_index_op.h"
#include "table/manifest.h"
#include "table/row_ids.h"
#include "table/stable_row_ids.h"

namespace lancedb::index {
namespace {

/// Loaded segments by "{dataset path}#{uuid}". A uuid names immutable files, so entries never
/// go stale; they are dropped only by ClearVectorIndexCache.
struct Cache {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<const VectorIndex>> entries;
  /// LanceDB-built segments that are not read (NotSupported), with the reason.
  std::map<std::string, Status> unsupported;
};

Cache& GetCache() {
  static Cache* cache = new Cache();
  return *cache;
}

}  // namespace

bool VectorIndex::covers(uint64_t fragment_id) const {
  return std::binary_search(fragment_ids_.begin(), fragment_ids_.end(), fragment_id);
}

Result<std::shared_ptr<const VectorIndex>> VectorIndex::Load(const table::Dataset& dataset,
                                                             const table::pb::IndexMetadata& meta) {
  const std::string& url = meta.index_details().type_url();
  const bool lance = url == kLanceVectorIndexTypeUrl;
  if (url != kVectorIndexTypeUrl && !lance) {
    return Status::NotSupported("Index '" + meta.name() + "' has type " + url +
                                ", not a vector index");
  }
  const std::string uuid = table::IndexUuidString(meta);
  const std::string key = dataset.path() + "#" + uuid;
  Cache& cache = GetCache();
  {
    std::lock_guard lock(cache.mu);
    auto it = cache.entries.find(key);
    if (it != cache.entries.end()) return it->second;
    auto unsupported = cache.unsupported.find(key);
    if (unsupported != cache.unsupported.end()) return unsupported->second;
  }
  const std::string dir = IndexDir(dataset, meta);
  vector::IvfFileParams fp;
  auto read = lance ? vector::ReadLanceIvfIndexFiles(dataset.fs(), dir, &fp.index_type)
                    : vector::ReadIvfIndexFiles(dataset.fs(), dir, &fp);
  if (lance && read.status().IsNotSupported()) {
    std::lock_guard lock(cache.mu);
    cache.unsupported.emplace(key, read.status());
    return read.status();
  }
  LANCEDB_ASSIGN_OR_RETURN(auto ivf, std::move(read));
  LANCEDB_ASSIGN_OR_RETURN(auto fragments, DecodeFragmentBitmap(meta.fragment_bitmap()));
  std::string column = meta.fields_size() > 0 ? FieldName(dataset, meta.fields(0)) : "";
  auto loaded = std::make_shared<const VectorIndex>(meta.name(), uuid, column, fp.index_type,
                                                    std::move(fragments), std::move(ivf));
  std::lock_guard lock(cache.mu);
  auto [it, inserted] = cache.entries.emplace(key, loaded);
  return it->second;
}

void ClearVectorIndexCache() {
  Cache& cache = GetCache();
  std::lock_guard lock(cache.mu);
  cache.entries.clear();
  cache.unsupported.clear();
}

namespace {

/// The row address of every stable row id of the fragments of `dataset` that `index` covers
/// (deleted rows included: the caller's prefilter removes them).
Result<std::unordered_map<uint64_t, uint64_t>> StableIdAddresses(const VectorIndex& index,
                                                                 const table::Dataset& dataset) {
  std::unordered_map<uint64_t, uint64_t> out;
  for (const auto& frag : dataset.manifest().proto().fragments()) {
    if (!index.covers(frag.id())) continue;
    LANCEDB_ASSIGN_OR_RETURN(auto ids, table::FragmentRowIds(*dataset.fs(), dataset.path(), frag));
    out.reserve(out.size() + ids.size());
    for (size_t offset = 0; offset < ids.size(); ++offset) {
      out.emplace(ids[offset], (frag.id() << 32) | offset);
    }
  }
  return out;
}

}  // namespace

std::vector<uint64_t> VectorIndex::RowFragments(const vector::IvfIndex& ivf) {
  std::vector<uint64_t> out;
  for (int64_t p = 0; p < ivf.num_partitions(); ++p) {
    for (uint64_t id : ivf.partition(p).row_ids) {
      const uint64_t f = id >> 32;
      if (out.empty() || out.back() != f) out.push_back(f);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Result<std::vector<vector::Neighbor>> VectorIndex::Search(std::span<const float> query,
                                                          const VectorSearchParams& params,
                                                          const table::Dataset& dataset) const {
  vector::IvfSearchParams sp;
  const bool refine = params.refine_factor > 0;
  sp.k = refine ? params.k * params.refine_factor : params.k;
  sp.nprobes = params.nprobes;
  sp.ef = params.ef;
  sp.lower_bound = params.lower_bound;
  sp.upper_bound = params.upper_bound;
  // On a table with stable row ids the index holds stable ids (§3). Only ids whose rows sit in
  // a fragment this segment covers are searched: a row updated since the index was built lives
  // in a newer, uncovered fragment (searched exactly by the caller), so its indexed vector is
  // stale; a row removed by compaction or deletion maps to no live address.
  std::unordered_map<uint64_t, uint64_t> stable;
  const bool uses_stable = table::UsesStableRowIds(dataset);
  if (uses_stable) {
    LANCEDB_ASSIGN_OR_RETURN(stable, StableIdAddresses(*this, dataset));
  }
  // Rows of fragments that left the table, or that this segment no longer covers (rewritten by
  // a compaction that did not remap the segment: lancedb-cpp's own layout), are never returned:
  // their addresses name rows that moved.
  std::vector<bool> present;
  bool all_present = true;
  for (const auto& frag : dataset.manifest().proto().fragments()) {
    if (frag.id() >= present.size()) present.resize(frag.id() + 1, false);
    present[frag.id()] = true;
  }
  for (uint64_t f : fragment_ids_) all_present = all_present && f < present.size() && present[f];
  for (uint64_t f : row_fragments_) all_present = all_present && covers(f);
  if (!uses_stable) {
    std::vector<bool> covered(present.size(), false);
    for (uint64_t f : fragment_ids_) {
      if (f < covered.size()) covered[f] = present[f];
    }
    present = std::move(covered);
  }
  if (uses_stable) {
    sp.accept = [&](uint64_t id) {
      auto it = stable.find(id);
      return it != stable.end() && (!params.accept || params.accept(it->second));
    };
  } else if (all_present) {
    sp.accept = params.accept;
  } else {
    sp.accept = [&](uint64_t addr) {
      uint64_t f = addr >> 32;
      return f < present.size() && present[f] && (!params.accept || params.accept(addr));
    };
  }
  LANCEDB_ASSIGN_OR_RETURN(auto found, ivf_->Search(query, sp));
  if (uses_stable) {
    // Callers work on row addresses; every id found passed `accept`, so it is mapped.
    for (auto& n : found) {
      auto it = stable.find(n.row_id);
      if (it == stable.end()) return Status::Internal("index returned an unaccepted row id");
      n.row_id = it->second;
    }
  }
  if (!refine || found.empty()) return found;
  // Re-rank the candidates with exact distances on the stored vectors: from the caller's
  // resident fragment columns when it has them, else taken from the table.
  std::vector<uint64_t> addresses;
  for (const auto& n : found) addresses.push_back(n.row_id);
  std::vector<std::pair<array::ArrayPtr, int64_t>> rows;  // (column, row) per candidate
  if (params.fragment_vectors) {
    std::unordered_map<uint64_t, array::ArrayPtr> columns;
    for (uint64_t address : addresses) {
      const uint64_t fragment = address >> 32;
      auto it = columns.find(fragment);
      if (it == columns.end()) {
        LANCEDB_ASSIGN_OR_RETURN(auto column, params.fragment_vectors(fragment));
        it = columns.emplace(fragment, std::move(column)).first;
      }
      const auto row = static_cast<int64_t>(address & 0xffffffffu);
      if (!it->second || row >= it->second->length) {
        rows.clear();
        break;
      }
      rows.emplace_back(it->second, row);
    }
  }
  if (rows.size() != addresses.size()) {
    rows.clear();
    LANCEDB_ASSIGN_OR_RETURN(auto batch, dataset.Take(addresses, {column_}));
    for (size_t i = 0; i < addresses.size(); ++i) {
      rows.emplace_back(batch->column(0), static_cast<int64_t>(i));
    }
  }
  const size_t dim = ivf_->dim();
  std::vector<float> row;
  vector::TopK top(params.k);
  for (size_t i = 0; i < addresses.size(); ++i) {
    const array::ArrayData& col = *rows[i].first;
    const int64_t index = rows[i].second;
    if (col.IsNull(index)) continue;
    const int64_t start = col.GetListRange(index).first;
    row.clear();
    AppendVectorAsFloats(*col.children[0], start, dim, &row);
    const float d = vector::Distance(ivf_->distance_type(), query.data(), row.data(), dim);
    // As LanceDB: the range applies to the refined distances before the k best are kept (the
    // query reports dot distances as 1 - x.y).
    const float reported = ivf_->distance_type() == vector::DistanceType::kDot ? d + 1.0f : d;
    if (reported < params.lower_bound || !(reported < params.upper_bound)) continue;
    top.Push(d, addresses[i]);
  }
  return top.Sorted();
}

Status RerankExactly(const table::Dataset& dataset, const std::string& column,
                     vector::DistanceType type, std::span<const float> query,
                     std::vector<vector::Neighbor>* neighbors) {
  if (neighbors->empty()) return Status::OK();
  std::vector<uint64_t> addresses;
  for (const auto& n : *neighbors) addresses.push_back(n.row_id);
  LANCEDB_ASSIGN_OR_RETURN(auto batch, dataset.Take(addresses, {column}));
  const array::ArrayData& col = *batch->column(0);
  const size_t dim = query.size();
  std::vector<float> row;
  std::vector<vector::Neighbor> out;
  for (size_t i = 0; i < addresses.size(); ++i) {
    const auto index = static_cast<int64_t>(i);
    if (col.IsNull(index)) continue;
    row.clear();
    AppendVectorAsFloats(*col.children[0], col.GetListRange(index).first, dim, &row);
    const float d = vector::Distance(type, query.data(), row.data(), dim);
    if (!std::isnan(d)) out.push_back({d, addresses[i]});
  }
  std::sort(out.begin(), out.end());
  *neighbors = std::move(out);
  return Status::OK();
}

Result<std::vector<std::shared_ptr<const VectorIndex>>> LoadVectorIndices(
    const table::Dataset& dataset, const std::string& column) {
  std::vector<std::shared_ptr<const VectorIndex>> out;
  for (const auto& meta : dataset.manifest().index_section().indices()) {
    const std::string& url = meta.index_details().type_url();
    if (url != kVectorIndexTypeUrl && url != kLanceVectorIndexTypeUrl) continue;
    if (meta.fields_size() == 0 || FieldName(dataset, meta.fields(0)) != column) continue;
    auto loaded = VectorIndex::Load(dataset, meta);
    // A LanceDB-built segment of a type not read yet: its fragments count as uncovered and
    // are searched exactly.
    if (url == kLanceVectorIndexTypeUrl && loaded.status().IsNotSupported()) continue;
    LANCEDB_RETURN_NOT_OK(loaded.status());
    out.push_back(*std::move(loaded));
  }
  return out;
}

}  // namespace lancedb::index
