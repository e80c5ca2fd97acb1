// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/index_manager.h"

#include <algorithm>
#include <map>
#include <set>

#include "index/proto/vector_index.pb.h"
#include "index/vector/distance.h"
#include "index/vector/ivf_extend.h"
#include "index/vector_index_internal.h"
#include "table/commit.h"
#include "table/create_index_op.h"
#include "table/manifest.h"

namespace lancedb::index {
namespace {

namespace pb = table::pb;

/// The segments of index `name`, in manifest order. NotFound when there are none.
Result<std::vector<const pb::IndexMetadata*>> Segments(const table::Dataset& dataset,
                                                       const std::string& name) {
  std::vector<const pb::IndexMetadata*> out;
  for (const auto& m : dataset.manifest().index_section().indices()) {
    if (m.name() == name) out.push_back(&m);
  }
  if (out.empty()) return Status::NotFound("Index '" + name + "' not found");
  return out;
}

/// LanceDB's type name of a segment ("IVF_PQ", "BTREE", ...; "UNKNOWN" otherwise).
std::string TypeName(const pb::IndexMetadata& m, std::string* distance_type = nullptr) {
  const std::string& url = m.index_details().type_url();
  if (url == kVectorIndexTypeUrl) {
    lancedb_cpp::VectorIndexDetails d;
    if (!d.ParseFromString(m.index_details().value())) return "UNKNOWN";
    if (distance_type) {
      *distance_type =
          std::string(vector::DistanceTypeName(static_cast<vector::DistanceType>(d.metric_type())));
    }
    return d.index_type();
  }
  static const std::map<std::string, std::string> kLance = {
      {"/lance.table.BTreeIndexDetails", "BTREE"},
      {"/lance.table.BitmapIndexDetails", "BITMAP"},
      {"/lance.table.LabelListIndexDetails", "LABEL_LIST"},
      {"/lance.table.InvertedIndexDetails", "FTS"},
      {"/lance.index.pb.VectorIndexDetails", "IVF_PQ"}};
  auto it = kLance.find(url);
  return it == kLance.end() ? "UNKNOWN" : it->second;
}

/// Rows of `fragments` not deleted (from fragment metadata).
int64_t LiveRows(const table::Dataset& dataset, const std::set<uint64_t>& fragments, bool covered) {
  int64_t n = 0;
  for (const auto& f : dataset.manifest().proto().fragments()) {
    if (fragments.count(f.id()) != (covered ? 1u : 0u)) continue;
    n += static_cast<int64_t>(f.physical_rows()) -
         static_cast<int64_t>(f.has_deletion_file() ? f.deletion_file().num_deleted_rows() : 0);
  }
  return n;
}

}  // namespace

Result<std::vector<IndexInfo>> ListIndices(const table::Dataset& dataset) {
  std::map<std::string, IndexInfo> by_name;
  for (const auto& m : dataset.manifest().index_section().indices()) {
    IndexInfo& info = by_name[m.name()];
    LANCEDB_ASSIGN_OR_RETURN(auto frags, DecodeFragmentBitmap(m.fragment_bitmap()));
    if (info.name.empty()) {
      info.name = m.name();
      info.index_type = TypeName(m);
      for (int32_t f : m.fields()) info.columns.push_back(FieldName(dataset, f));
      info.index_uuid = table::IndexUuidString(m);
      info.type_url = m.index_details().type_url();
      info.index_version = m.index_version();
      info.dataset_version = m.dataset_version();
      info.created_at_millis = m.created_at();
    }
    info.fragment_ids.insert(info.fragment_ids.end(), frags.begin(), frags.end());
  }
  std::vector<IndexInfo> out;
  for (auto& [name, info] : by_name) {
    std::sort(info.fragment_ids.begin(), info.fragment_ids.end());
    out.push_back(std::move(info));
  }
  return out;
}

Result<IndexStatistics> GetIndexStatistics(const table::Dataset& dataset, const std::string& name) {
  LANCEDB_ASSIGN_OR_RETURN(auto segments, Segments(dataset, name));
  IndexStatistics stats;
  std::set<uint64_t> covered;
  for (const auto* m : segments) {
    LANCEDB_ASSIGN_OR_RETURN(auto frags, DecodeFragmentBitmap(m->fragment_bitmap()));
    covered.insert(frags.begin(), frags.end());
  }
  stats.index_type = TypeName(*segments[0], &stats.distance_type);
  stats.num_indices = static_cast<int64_t>(segments.size());
  stats.num_indexed_rows = LiveRows(dataset, covered, true);
  stats.num_unindexed_rows = LiveRows(dataset, covered, false);
  return stats;
}

Result<table::DatasetPtr> DropIndex(const table::DatasetPtr& dataset, const std::string& name) {
  LANCEDB_ASSIGN_OR_RETURN(auto segments, Segments(*dataset, name));
  std::vector<pb::IndexMetadata> removed;
  for (const auto* m : segments) removed.push_back(*m);
  table::CreateIndexOperation op({}, std::move(removed), false);
  return table::CommitOperation(dataset, &op);
}

Result<table::DatasetPtr> OptimizeVectorIndex(const table::DatasetPtr& dataset,
                                              const std::string& name,
                                              const CreateIndexOptions& options) {
  LANCEDB_ASSIGN_OR_RETURN(auto segments, Segments(*dataset, name));
  if (segments.size() != 1 || segments[0]->index_details().type_url() != kVectorIndexTypeUrl) {
    return Status::NotSupported("Index '" + name +
                                "' is not a single-segment lancedb-cpp vector index");
  }
  const pb::IndexMetadata& meta = *segments[0];
  LANCEDB_ASSIGN_OR_RETURN(auto covered_list, DecodeFragmentBitmap(meta.fragment_bitmap()));
  std::set<uint64_t> covered(covered_list.begin(), covered_list.end());
  std::vector<uint64_t> all;
  for (const auto& f : dataset->manifest().proto().fragments()) all.push_back(f.id());
  bool complete = std::all_of(all.begin(), all.end(), [&](uint64_t f) { return covered.count(f); });
  if (complete) return dataset;
  const std::string column = meta.fields_size() ? FieldName(*dataset, meta.fields(0)) : "";
  if (column.empty()) return Status::NotFound("The column of index '" + name + "' is gone");

  // A private copy (not the cached one): it is extended in place.
  vector::IvfFileParams fp;
  LANCEDB_ASSIGN_OR_RETURN(auto ivf,
                           vector::ReadIvfIndexFiles(dataset->fs(), IndexDir(*dataset, meta), &fp));
  size_t dim = 0;
  std::vector<float> vectors;
  std::vector<uint64_t> rows;
  LANCEDB_RETURN_NOT_OK(ReadVectorColumn(
      *dataset, column, [&](uint64_t f) { return covered.count(f) == 0; }, &dim, &vectors, &rows));
  if (options.progress) options.progress("optimize", 0.0);
  vector::HnswParams hnsw{fp.m, fp.ef_construction, fp.seed.value_or(42)};
  const vector::IvfIndex* base = ivf.get();
  auto existing = [&](int64_t p) -> Result<std::vector<float>> {
    const auto& ids = base->partition(p).row_ids;
    std::vector<float> out;
    if (ids.empty()) return out;
    LANCEDB_ASSIGN_OR_RETURN(auto batch, dataset->Take(ids, {column}));
    auto col = batch->column(0);
    for (int64_t r = 0; r < col->length; ++r) {
      auto [start, end] = col->GetListRange(r);
      const auto& child = *col->children[0];
      if (child.type->id() != array::TypeId::kFloat32) {
        return Status::NotSupported("Optimizing an HNSW index needs a float32 vector column");
      }
      const float* v = child.GetValues<float>(1) + start;
      out.insert(out.end(), v, v + (end - start));
    }
    return out;
  };
  LANCEDB_RETURN_NOT_OK(vector::ExtendIvfIndex(ivf.get(), vectors, rows, hnsw, existing));
  if (options.progress) options.progress("optimize", 1.0);
  return CommitVectorIndex(dataset, *ivf, fp, name, meta.fields(0), all, {meta}, false);
}

}  // namespace lancedb::index
