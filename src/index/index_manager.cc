// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/index_manager.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "index/fts/fts_params.h"
#include "index/fts_index_manager.h"
#include "index/index_details.h"
#include "index/scalar/scalar_index.h"
#include "index/scalar_index_manager.h"
#include "index/vector/ivf_extend.h"
#include "index/vector/lance_hnsw_write.h"
#include "index/vector/lance_ivf_read.h"
#include "index/vector/lance_ivf_write.h"
#include "index/vector/multivec.h"
#include "index/vector_index.h"
#include "index/vector_index_internal.h"
#include "table/commit.h"
#include "table/create_index_op.h"
#include "table/manifest.h"
#include "table/stable_row_ids.h"

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

/// The IndexInfo of the segments of one index, in manifest order (LanceDB's IndexConfig).
Result<IndexInfo> Describe(const table::Dataset& dataset,
                           const std::vector<const pb::IndexMetadata*>& segments) {
  const pb::IndexMetadata& first = *segments.front();
  IndexInfo info;
  info.name = first.name();
  info.index_type = IndexTypeName(first);
  for (int32_t f : first.fields()) info.columns.push_back(FieldName(dataset, f));
  info.index_uuid = table::IndexUuidString(first);
  info.type_url = first.index_details().type_url();
  info.index_version = first.index_version();
  info.dataset_version = first.dataset_version();
  info.num_segments = static_cast<int32_t>(segments.size());
  info.size_bytes = 0;
  std::set<uint64_t> covered;
  for (const auto* m : segments) {
    LANCEDB_ASSIGN_OR_RETURN(auto frags, DecodeFragmentBitmap(m->fragment_bitmap()));
    covered.insert(frags.begin(), frags.end());
    if (m->has_created_at()) {
      info.created_at_millis = std::min(
          info.created_at_millis.value_or(std::numeric_limits<uint64_t>::max()), m->created_at());
    }
    if (m->files_size() == 0) info.size_bytes.reset();  // not recorded (older writers)
    if (info.size_bytes) {
      for (const auto& f : m->files()) *info.size_bytes += f.size_bytes();
    }
  }
  info.fragment_ids.assign(covered.begin(), covered.end());
  info.num_indexed_rows = LiveRows(dataset, covered, true);
  info.num_unindexed_rows =
      std::max<int64_t>(0, LiveRows(dataset, {}, false) - info.num_indexed_rows);
  LANCEDB_ASSIGN_OR_RETURN(info.details_json, IndexDetailsJson(dataset, first));
  return info;
}

}  // namespace

Result<std::vector<IndexInfo>> ListIndices(const table::Dataset& dataset) {
  std::map<std::string, std::vector<const pb::IndexMetadata*>> by_name;
  for (const auto& m : dataset.manifest().index_section().indices()) {
    by_name[m.name()].push_back(&m);
  }
  std::vector<IndexInfo> out;
  for (const auto& [name, segments] : by_name) {
    LANCEDB_ASSIGN_OR_RETURN(auto info, Describe(dataset, segments));
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
  stats.index_type = IndexTypeName(*segments[0], &stats.distance_type);
  stats.num_indices = static_cast<int64_t>(segments.size());
  stats.num_indexed_rows = LiveRows(dataset, covered, true);
  stats.num_unindexed_rows = LiveRows(dataset, covered, false);
  return stats;
}

Status PrewarmIndex(const table::Dataset& dataset, const std::string& name) {
  auto segments = Segments(dataset, name);
  if (!segments.ok()) {
    if (segments.status().IsNotFound()) {
      return Status::NotFound("Lance index not found: name=" + name);
    }
    return segments.status();
  }
  bool scalar_done = false, fts_done = false;
  for (const pb::IndexMetadata* meta : *segments) {
    const std::string& url = meta->index_details().type_url();
    if (url == fts::kInvertedIndexTypeUrl) {
      // The loaders open every segment of their kind (the ones a query would open) and keep
      // them in the segment cache.
      if (!fts_done) LANCEDB_RETURN_NOT_OK(LoadFtsIndices(dataset).status());
      fts_done = true;
    } else if (scalar::ScalarIndexTypeFromUrl(url)) {
      if (!scalar_done) LANCEDB_RETURN_NOT_OK(LoadScalarIndices(dataset).status());
      scalar_done = true;
    } else if (url == kVectorIndexTypeUrl) {
      LANCEDB_RETURN_NOT_OK(VectorIndex::Load(dataset, *meta).status());
    } else if (Status st = url == kLanceVectorIndexTypeUrl
                               ? VectorIndex::Load(dataset, *meta).status()
                               : Status::NotSupported("");
               !st.IsNotSupported()) {
      // A Lance vector index of a type lancedb-cpp reads: loaded as searches load it.
      LANCEDB_RETURN_NOT_OK(st);
    } else {
      const std::string dir = IndexDir(dataset, *meta);
      LANCEDB_ASSIGN_OR_RETURN(auto files, dataset.fs()->ListDir(dir));
      constexpr int64_t kChunk = 8 << 20;  // bounded memory for large index files
      for (const auto& f : files) {
        if (f.is_dir) continue;
        for (int64_t offset = 0; offset < f.size; offset += kChunk) {
          LANCEDB_RETURN_NOT_OK(
              dataset.fs()
                  ->ReadRange(dir + "/" + f.name, offset, std::min(kChunk, f.size - offset))
                  .status());
        }
      }
    }
  }
  return Status::OK();
}

Result<table::DatasetPtr> DropIndex(const table::DatasetPtr& dataset, const std::string& name) {
  LANCEDB_ASSIGN_OR_RETURN(auto segments, Segments(*dataset, name));
  std::vector<pb::IndexMetadata> removed;
  for (const auto* m : segments) removed.push_back(*m);
  table::CreateIndexOperation op({}, std::move(removed), false);
  return table::CommitOperation(dataset, &op);
}

namespace {

/// The row vectors partition `p` of `ivf` (over multivector `column`) holds, in its order: the
/// partition lists each row's vectors together, so they are the vectors of its rows (in order
/// of first appearance) that the centroids assign to `p`.
Result<std::vector<float>> MultivectorPartitionVectors(const table::Dataset& dataset,
                                                       const std::string& column,
                                                       const vector::IvfIndex& ivf, int64_t p) {
  std::vector<uint64_t> rows;
  std::set<uint64_t> seen;
  for (uint64_t id : ivf.partition(p).row_ids) {
    if (seen.insert(id).second) rows.push_back(id);
  }
  LANCEDB_ASSIGN_OR_RETURN(auto batch, dataset.Take(rows, {column}));
  const array::ArrayData& col = *batch->column(0);
  const size_t dim = ivf.dim();
  std::vector<float> vectors;
  std::vector<int64_t> counts;
  for (int64_t r = 0; r < col.length; ++r) {
    const auto [start, end] =
        col.IsNull(r) ? std::pair<int64_t, int64_t>{0, 0} : col.GetListRange(r);
    const array::ArrayData& inner = *col.children[0];
    int64_t count = 0;
    for (int64_t j = start; j < end; ++j) {
      if (inner.IsNull(j)) continue;
      AppendVectorAsFloats(*inner.children[0], inner.GetListRange(j).first, dim, &vectors);
      ++count;
    }
    counts.push_back(count);
  }
  return vector::VectorsOfPartition(vectors, counts, dim, ivf.centroids(), ivf.num_partitions(),
                                    ivf.distance_type(), p);
}

}  // namespace

Result<table::DatasetPtr> OptimizeVectorIndex(const table::DatasetPtr& dataset,
                                              const std::string& name,
                                              const CreateIndexOptions& options) {
  LANCEDB_ASSIGN_OR_RETURN(auto segments, Segments(*dataset, name));
  // The last segment is extended with the rows no segment covers (LanceDB's optimize may have
  // left several segments of one model); the others stay as they are.
  const pb::IndexMetadata& meta = *segments.back();
  const std::string& url = meta.index_details().type_url();
  const bool lance = url == kLanceVectorIndexTypeUrl;
  if (url != kVectorIndexTypeUrl && !lance) {
    return Status::NotSupported("Index '" + name + "' is not a vector index");
  }
  std::set<uint64_t> covered, own;
  for (const auto* m : segments) {
    LANCEDB_ASSIGN_OR_RETURN(auto frags, DecodeFragmentBitmap(m->fragment_bitmap()));
    covered.insert(frags.begin(), frags.end());
    if (m == &meta) own.insert(frags.begin(), frags.end());
  }
  // The segment's fragments still in the table, and those no segment covers.
  std::vector<uint64_t> fragments;
  bool complete = true;
  for (const auto& f : dataset->manifest().proto().fragments()) {
    if (own.count(f.id()) != 0) fragments.push_back(f.id());
    if (covered.count(f.id()) == 0) {
      fragments.push_back(f.id());
      complete = false;
    }
  }
  if (complete) return dataset;
  const std::string column = meta.fields_size() ? FieldName(*dataset, meta.fields(0)) : "";
  if (column.empty()) return Status::NotFound("The column of index '" + name + "' is gone");

  // A private copy (not the cached one): it is extended in place.
  vector::IvfFileParams fp;
  const std::string dir = IndexDir(*dataset, meta);
  const array::Schema& schema = *dataset->schema();
  const int column_index = schema.GetFieldIndex(column);
  const bool multivector =
      column_index >= 0 && IsMultivectorType(*schema.field(column_index)->type());
  std::unique_ptr<vector::IvfIndex> ivf;
  if (lance) {
    // Lance's layout is extended and written back in Lance's layout, on the vector columns
    // lancedb-cpp writes it for.
    if (column_index < 0 ||
        LanceIndexElementType(*schema.field(column_index)->type()) == array::TypeId::kNull) {
      return Status::NotSupported("Index '" + name +
                                  "': extending a Lance vector index of a column that is not "
                                  "float16, float32, float64 or uint8 vectors or multivectors");
    }
    LANCEDB_ASSIGN_OR_RETURN(ivf, vector::ReadLanceIvfIndexFiles(dataset->fs(), dir, nullptr));
    if (vector::LanceIvfTypeName(*ivf).empty()) {
      return Status::NotSupported("Index '" + name + "': extending this Lance index type");
    }
  } else {
    LANCEDB_ASSIGN_OR_RETURN(ivf, vector::ReadIvfIndexFiles(dataset->fs(), dir, &fp));
    // A compaction rewrote rows of this segment without remapping it (lancedb-cpp's own layout
    // is not remapped): its partitions still name the old row addresses, which cannot be read
    // back to extend it. It stays as it is (searches skip those rows and scan the fragments it
    // does not cover); re-creating the index indexes them again.
    if (!table::UsesStableRowIds(*dataset)) {
      std::set<uint64_t> present;
      for (const auto& f : dataset->manifest().proto().fragments()) present.insert(f.id());
      for (int64_t p = 0; p < ivf->num_partitions(); ++p) {
        for (uint64_t id : ivf->partition(p).row_ids) {
          if (own.count(id >> 32) == 0 || present.count(id >> 32) == 0) return dataset;
        }
      }
    }
  }
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
    if (multivector && lance) {
      // The partition's rows in its storage's order, as the graph is rebuilt over them (a row's
      // vectors cannot be told apart by row id, and Lance's assignment is its own).
      return vector::DecodeLanceStorage(base->quantizer(), *base->partition(p).storage,
                                        base->centroids().subspan(p * base->dim(), base->dim()));
    }
    if (multivector) return MultivectorPartitionVectors(*dataset, column, *base, p);
    LANCEDB_ASSIGN_OR_RETURN(auto batch, dataset->Take(ids, {column}));
    auto col = batch->column(0);
    for (int64_t r = 0; r < col->length; ++r) {
      auto [start, end] = col->GetListRange(r);
      AppendVectorAsFloats(*col->children[0], start, static_cast<size_t>(end - start), &out);
    }
    return out;
  };
  LANCEDB_RETURN_NOT_OK(vector::ExtendIvfIndex(ivf.get(), vectors, rows, hnsw, existing));
  if (options.progress) options.progress("optimize", 1.0);
  return CommitVectorIndex(dataset, *ivf, fp, name, meta.fields(0), fragments, {meta}, false);
}

}  // namespace lancedb::index
