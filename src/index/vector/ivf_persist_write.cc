// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Writing side of ivf_persist.h (layout: docs/format/vector-index.md).

#include <cstring>

#include "array/array.h"
#include "array/builder.h"
#include "format/file_writer.h"
#include "index/vector/flat_storage.h"
#include "index/vector/hnsw_index.h"
#include "index/vector/index_file_columns.h"
#include "index/vector/ivf_persist.h"
#include "index/vector/ivf_persist_internal.h"
#include "index/vector/pq_storage.h"
#include "index/vector/rq_storage.h"
#include "index/vector/sq_builder.h"
#include "index/vector/sq_storage.h"

namespace lancedb::index::vector {
namespace {

using array::ArrayPtr;

/// Writes one Lance file of `columns` (names and arrays, equal lengths) in batches.
class FileBuilder {
 public:
  FileBuilder(const io::FileSystemPtr& fs, std::string dir, std::vector<IvfFile>* written)
      : fs_(fs), dir_(std::move(dir)), written_(written) {}

  Status Write(const std::string& name, const std::vector<std::string>& names,
               const std::vector<ArrayPtr>& columns, array::KeyValueMetadata metadata) {
    std::vector<array::FieldPtr> fields;
    for (size_t i = 0; i < names.size(); ++i) {
      fields.push_back(array::field(names[i], columns[i]->type, false));
    }
    auto schema = array::schema(fields, std::move(metadata));
    LANCEDB_ASSIGN_OR_RETURN(auto lance_schema, format::LanceSchema::FromArrow(*schema));
    std::string path = io::JoinPath(dir_, name);
    LANCEDB_ASSIGN_OR_RETURN(auto writer, format::FileWriter::Open(fs_, path, lance_schema));
    int64_t n = columns.empty() ? 0 : columns[0]->length;
    constexpr int64_t kBatch = 64 * 1024;
    for (int64_t start = 0; start < n || (n == 0 && start == 0); start += kBatch) {
      std::vector<ArrayPtr> slice;
      int64_t len = std::min(kBatch, n - start);
      for (const auto& c : columns) slice.push_back(array::Slice(c, start, len));
      LANCEDB_ASSIGN_OR_RETURN(auto batch, array::RecordBatch::Make(schema, slice));
      Status st = writer->Write(*batch);
      if (!st.ok()) {
        writer->Abort();
        return st;
      }
      if (n == 0) break;
    }
    LANCEDB_ASSIGN_OR_RETURN(auto result, writer->Finish());
    written_->push_back({name, result.file_size_bytes});
    return Status::OK();
  }

 private:
  io::FileSystemPtr fs_;
  std::string dir_;
  std::vector<IvfFile>* written_;
};

array::KeyValueMetadata IndexMetadata(const IvfIndex& index, const IvfFileParams& p) {
  array::KeyValueMetadata md = {
      {kMetaFormatVersion, std::to_string(kIvfFormatVersion)},
      {kMetaIndexType, p.index_type},
      {kMetaDistanceType, std::string(DistanceTypeName(index.distance_type()))},
      {kMetaDimension, std::to_string(index.dim())},
      {kMetaNumPartitions, std::to_string(index.num_partitions())},
      {kMetaQuantizer, std::string(QuantizerName(index.quantizer().type()))},
      {kMetaSubIndex, index.sub_index_type() == SubIndexType::kHnsw ? "HNSW" : "FLAT"},
  };
  if (auto* pq = dynamic_cast<const ProductQuantizer*>(&index.quantizer())) {
    md.emplace_back(kMetaNumSubVectors, std::to_string(pq->num_sub_vectors()));
    md.emplace_back(kMetaNumBits, std::to_string(pq->num_bits()));
    md.emplace_back(kMetaUseResidual, pq->use_residual() ? "true" : "false");
  }
  if (index.sub_index_type() == SubIndexType::kHnsw) {
    md.emplace_back(kMetaHnswM, std::to_string(p.m));
    md.emplace_back(kMetaHnswEfConstruction, std::to_string(p.ef_construction));
  }
  if (p.seed) md.emplace_back(kMetaSeed, std::to_string(*p.seed));
  std::string lines;
  for (const auto& [k, v] : md) lines += k + "=" + v + "\n";
  return {{kMetaKey, lines}};
}

Status WriteQuantizer(const IvfIndex& index, FileBuilder* out) {
  const Quantizer& q = index.quantizer();
  auto f32 = array::float32();
  if (auto* pq = dynamic_cast<const ProductQuantizer*>(&q)) {
    auto width = static_cast<int32_t>(pq->sub_dim());
    int64_t rows = static_cast<int64_t>(pq->codebook().size()) / width;
    return out->Write(kQuantizerFile, {"codebook"},
                      {FixedListColumn(f32, pq->codebook().data(), rows, width)}, {});
  }
  auto dim = static_cast<int32_t>(index.dim());
  if (auto* sq = dynamic_cast<const ScalarQuantizer*>(&q)) {
    std::vector<float> bounds(sq->lower().begin(), sq->lower().end());
    bounds.insert(bounds.end(), sq->upper().begin(), sq->upper().end());
    return out->Write(kQuantizerFile, {"bounds"}, {FixedListColumn(f32, bounds.data(), 2, dim)},
                      {});
  }
  if (auto* rq = dynamic_cast<const RabitQuantizer*>(&q)) {
    return out->Write(kQuantizerFile, {"rotation"},
                      {FixedListColumn(f32, rq->rotation().data(), dim, dim)}, {});
  }
  return Status::OK();  // FLAT: nothing to store
}

/// Concatenates the per-partition columns of auxiliary.idx.
struct AuxColumns {
  std::vector<uint64_t> row_ids;
  std::vector<uint8_t> codes;  // PQ/SQ/RQ, row-major
  std::vector<float> floats;   // FLAT vectors
  std::vector<float> norms, factors;
  int32_t code_width = 0;
};

Status AppendPartition(const IvfPartition& part, AuxColumns* aux) {
  aux->row_ids.insert(aux->row_ids.end(), part.row_ids.begin(), part.row_ids.end());
  const PartitionStorage* s = part.storage.get();
  std::span<const uint8_t> codes;
  if (auto* f = dynamic_cast<const FlatStorage*>(s)) {
    aux->floats.insert(aux->floats.end(), f->vectors().begin(), f->vectors().end());
    return Status::OK();
  } else if (auto* pq = dynamic_cast<const PqStorage*>(s)) {
    codes = pq->codes();
  } else if (auto* sq = dynamic_cast<const SqStorage*>(s)) {
    codes = sq->codes();
  } else if (auto* rq = dynamic_cast<const RqStorage*>(s)) {
    codes = rq->codes();
    aux->norms.insert(aux->norms.end(), rq->norms().begin(), rq->norms().end());
    aux->factors.insert(aux->factors.end(), rq->factors().begin(), rq->factors().end());
  } else {
    return Status::NotSupported("Cannot persist this partition storage");
  }
  aux->codes.insert(aux->codes.end(), codes.begin(), codes.end());
  return Status::OK();
}

Status WriteAuxiliary(const IvfIndex& index, FileBuilder* out, std::vector<uint64_t>* offsets,
                      std::vector<uint64_t>* lengths) {
  AuxColumns aux;
  for (int64_t p = 0; p < index.num_partitions(); ++p) {
    offsets->push_back(aux.row_ids.size());
    lengths->push_back(index.partition(p).row_ids.size());
    LANCEDB_RETURN_NOT_OK(AppendPartition(index.partition(p), &aux));
  }
  auto n = static_cast<int64_t>(aux.row_ids.size());
  std::vector<std::string> names = {kRowIdColumn};
  std::vector<ArrayPtr> cols = {PrimitiveColumn(array::uint64(), aux.row_ids.data(), n)};
  auto dim = static_cast<int32_t>(index.dim());
  switch (index.quantizer().type()) {
    case QuantizerType::kFlat:
      names.push_back(kFlatColumn);
      cols.push_back(FixedListColumn(array::float32(), aux.floats.data(), n, dim));
      break;
    case QuantizerType::kPq:
    case QuantizerType::kSq:
    case QuantizerType::kRq: {
      int32_t width = CodeWidth(index.quantizer(), index.dim());
      if (aux.codes.size() != static_cast<size_t>(n * width)) {
        return Status::Internal("Partition codes disagree with the quantizer's code width");
      }
      names.push_back(CodeColumnName(index.quantizer().type()));
      cols.push_back(FixedListColumn(array::uint8(), aux.codes.data(), n, width));
      if (index.quantizer().type() == QuantizerType::kRq) {
        names.insert(names.end(), {kNormColumn, kFactorColumn});
        cols.push_back(PrimitiveColumn(array::float32(), aux.norms.data(), n));
        cols.push_back(PrimitiveColumn(array::float32(), aux.factors.data(), n));
      }
      break;
    }
  }
  return out->Write(kAuxiliaryFile, names, cols, {});
}

/// Writes hnsw.idx; fills each partition's row range, entry point and max level.
Status WriteHnsw(const IvfIndex& index, FileBuilder* out, std::vector<uint64_t>* offsets,
                 std::vector<uint64_t>* lengths, std::vector<uint32_t>* entries,
                 std::vector<int32_t>* max_levels) {
  std::vector<uint32_t> ids, neighbors;
  std::vector<uint8_t> levels;
  std::vector<int64_t> list_offsets = {0};
  for (int64_t p = 0; p < index.num_partitions(); ++p) {
    offsets->push_back(ids.size());
    const auto* g = dynamic_cast<const HnswGraph*>(index.partition(p).sub_index.get());
    if (g == nullptr) return Status::Internal("HNSW index partition without a graph");
    for (int64_t node = 0; node < g->num_nodes(); ++node) {
      auto id = static_cast<uint32_t>(node);
      for (int level = 0; level <= g->level(id); ++level) {
        auto nb = g->Neighbors(id, level);
        ids.push_back(id);
        levels.push_back(static_cast<uint8_t>(level));
        neighbors.insert(neighbors.end(), nb.begin(), nb.end());
        list_offsets.push_back(static_cast<int64_t>(neighbors.size()));
      }
    }
    lengths->push_back(ids.size() - offsets->back());
    entries->push_back(g->entry_point());
    max_levels->push_back(g->max_level());
  }
  auto n = static_cast<int64_t>(ids.size());
  auto child =
      PrimitiveColumn(array::uint32(), neighbors.data(), static_cast<int64_t>(neighbors.size()));
  auto lists = array::MakeList(array::list(array::uint32()), list_offsets, child);
  return out->Write(kHnswFile, {kVectorIdColumn, kLevelColumn, kNeighborsColumn},
                    {PrimitiveColumn(array::uint32(), ids.data(), n),
                     PrimitiveColumn(array::uint8(), levels.data(), n), lists},
                    {});
}

}  // namespace

Result<std::vector<IvfFile>> WriteIvfIndexFiles(const io::FileSystemPtr& fs, const std::string& dir,
                                                const IvfIndex& index,
                                                const IvfFileParams& params) {
  std::vector<IvfFile> written;
  FileBuilder out(fs, dir, &written);
  auto write_all = [&]() -> Status {
    LANCEDB_RETURN_NOT_OK(fs->CreateDir(dir));
    LANCEDB_RETURN_NOT_OK(WriteQuantizer(index, &out));
    std::vector<uint64_t> offsets, lengths, hnsw_offsets, hnsw_lengths;
    std::vector<uint32_t> entries;
    std::vector<int32_t> max_levels;
    LANCEDB_RETURN_NOT_OK(WriteAuxiliary(index, &out, &offsets, &lengths));
    bool hnsw = index.sub_index_type() == SubIndexType::kHnsw;
    if (hnsw) {
      LANCEDB_RETURN_NOT_OK(
          WriteHnsw(index, &out, &hnsw_offsets, &hnsw_lengths, &entries, &max_levels));
    }
    auto p = index.num_partitions();
    std::vector<std::string> names = {kCentroidColumn, kOffsetColumn, kLengthColumn};
    std::vector<ArrayPtr> cols = {FixedListColumn(array::float32(), index.centroids().data(), p,
                                                  static_cast<int32_t>(index.dim())),
                                  PrimitiveColumn(array::uint64(), offsets.data(), p),
                                  PrimitiveColumn(array::uint64(), lengths.data(), p)};
    if (hnsw) {
      names.insert(names.end(),
                   {kHnswOffsetColumn, kHnswLengthColumn, kHnswEntryColumn, kHnswMaxLevelColumn});
      cols.push_back(PrimitiveColumn(array::uint64(), hnsw_offsets.data(), p));
      cols.push_back(PrimitiveColumn(array::uint64(), hnsw_lengths.data(), p));
      cols.push_back(PrimitiveColumn(array::uint32(), entries.data(), p));
      cols.push_back(PrimitiveColumn(array::int32(), max_levels.data(), p));
    }
    // index.idx last: its presence marks a complete index directory.
    return out.Write(kIndexFile, names, cols, IndexMetadata(index, params));
  };
  Status st = write_all();
  if (!st.ok()) {
    (void)fs->DeleteDirRecursive(dir);
    return st;
  }
  return written;
}

}  // namespace lancedb::index::vector
