// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Reading side of ivf_persist.h (layout: docs/format/vector-index.md).

#include <charconv>
#include <map>

#include "array/array.h"
#include "format/file_reader.h"
#include "index/vector/flat_storage.h"
#include "index/vector/hnsw_index.h"
#include "index/vector/ivf_persist.h"
#include "index/vector/ivf_persist_internal.h"
#include "index/vector/sq_builder.h"

namespace lancedb::index::vector {
namespace {

/// The columns of one index file, read whole.
class LoadedFile {
 public:
  static Result<LoadedFile> Open(const io::FileSystemPtr& fs, const std::string& dir,
                                 const std::string& name) {
    LoadedFile f;
    f.name_ = name;
    LANCEDB_ASSIGN_OR_RETURN(auto reader, format::FileReader::Open(fs, io::JoinPath(dir, name)));
    std::vector<int32_t> ids;
    for (const auto& field : reader->schema().fields()) ids.push_back(field.id);
    LANCEDB_ASSIGN_OR_RETURN(f.batch_, reader->Read(ids, 0, reader->num_rows()));
    for (const auto& [k, v] : reader->schema().metadata()) {
      if (k != kMetaKey) continue;
      for (size_t pos = 0; pos < v.size();) {
        size_t end = v.find('\n', pos);
        if (end == std::string::npos) end = v.size();
        std::string line = v.substr(pos, end - pos);
        size_t eq = line.find('=');
        if (eq != std::string::npos) f.metadata_[line.substr(0, eq)] = line.substr(eq + 1);
        pos = end + 1;
      }
    }
    return f;
  }

  int64_t num_rows() const { return batch_->num_rows(); }
  const std::map<std::string, std::string>& metadata() const { return metadata_; }

  Status Corrupt(const std::string& what) const {
    return Status::Corruption("Vector index file " + name_ + ": " + what);
  }

  /// A fixed-width column's values, checked against type width T.
  template <typename T>
  Result<std::span<const T>> Values(const char* column) const {
    auto col = batch_->GetColumnByName(column);
    if (col == nullptr) return Corrupt(std::string("missing column ") + column);
    if (col->type->bit_width() != 8 * static_cast<int>(sizeof(T))) {
      return Corrupt(std::string("unexpected type of column ") + column);
    }
    return std::span<const T>(col->GetValues<T>(1), static_cast<size_t>(col->length));
  }

  /// A fixed_size_list column's flattened values and its list width.
  template <typename T>
  Result<std::span<const T>> ListValues(const char* column, int64_t* width) const {
    auto col = batch_->GetColumnByName(column);
    if (col == nullptr || col->children.size() != 1) {
      return Corrupt(std::string("missing list column ") + column);
    }
    if (col->length == 0) return std::span<const T>();
    auto [start, end] = col->GetListRange(0);
    *width = end - start;
    const auto& child = col->children[0];
    if (child->type->bit_width() != 8 * static_cast<int>(sizeof(T))) {
      return Corrupt(std::string("unexpected item type of column ") + column);
    }
    return std::span<const T>(child->GetValues<T>(1) + start,
                              static_cast<size_t>(col->length * *width));
  }

  array::ArrayPtr Column(const char* column) const { return batch_->GetColumnByName(column); }

 private:
  std::string name_;
  array::RecordBatchPtr batch_;
  std::map<std::string, std::string> metadata_;
};

Result<int64_t> MetaInt(const LoadedFile& f, const char* key, std::optional<int64_t> dflt = {}) {
  auto it = f.metadata().find(key);
  if (it == f.metadata().end()) {
    if (dflt) return *dflt;
    return f.Corrupt(std::string("missing metadata ") + key);
  }
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
  if (ec != std::errc() || ptr != it->second.data() + it->second.size()) {
    return f.Corrupt(std::string("bad metadata ") + key + "=" + it->second);
  }
  return v;
}

std::string MetaString(const LoadedFile& f, const char* key) {
  auto it = f.metadata().find(key);
  return it == f.metadata().end() ? std::string() : it->second;
}

struct Header {
  size_t dim = 0;
  DistanceType distance_type = DistanceType::kL2;
  std::string quantizer;
  bool hnsw = false;
  size_t m = 20;
};

Result<std::unique_ptr<Quantizer>> LoadQuantizer(const io::FileSystemPtr& fs,
                                                 const std::string& dir, const LoadedFile& index,
                                                 const Header& h) {
  DistanceType metric = IndexMetric(h.distance_type);
  if (h.quantizer == "FLAT") {
    return std::unique_ptr<Quantizer>(std::make_unique<FlatQuantizer>(h.dim, metric));
  }
  LANCEDB_ASSIGN_OR_RETURN(LoadedFile q, LoadedFile::Open(fs, dir, kQuantizerFile));
  int64_t width = 0;
  if (h.quantizer == "PQ") {
    LANCEDB_ASSIGN_OR_RETURN(int64_t m, MetaInt(index, kMetaNumSubVectors));
    LANCEDB_ASSIGN_OR_RETURN(int64_t bits, MetaInt(index, kMetaNumBits));
    LANCEDB_ASSIGN_OR_RETURN(auto book, q.ListValues<float>("codebook", &width));
    bool residual = MetaString(index, kMetaUseResidual) == "true";
    LANCEDB_ASSIGN_OR_RETURN(
        auto pq, ProductQuantizer::Make(h.dim, static_cast<size_t>(m), static_cast<int>(bits),
                                        metric, residual, {book.begin(), book.end()}));
    return std::unique_ptr<Quantizer>(std::move(pq));
  }
  if (h.quantizer == "SQ") {
    LANCEDB_ASSIGN_OR_RETURN(auto bounds, q.ListValues<float>("bounds", &width));
    if (bounds.size() != 2 * h.dim) return q.Corrupt("bounds do not match the dimension");
    LANCEDB_ASSIGN_OR_RETURN(
        auto sq, ScalarQuantizer::Make(h.dim, metric, {bounds.begin(), bounds.begin() + h.dim},
                                       {bounds.begin() + h.dim, bounds.end()}));
    return std::unique_ptr<Quantizer>(std::move(sq));
  }
  if (h.quantizer == "RQ") {
    LANCEDB_ASSIGN_OR_RETURN(auto rot, q.ListValues<float>("rotation", &width));
    LANCEDB_ASSIGN_OR_RETURN(auto rq,
                             RabitQuantizer::Make(h.dim, metric, {rot.begin(), rot.end()}));
    return std::unique_ptr<Quantizer>(std::move(rq));
  }
  return index.Corrupt("unknown quantizer " + h.quantizer);
}

/// Rebuilds partition p's storage from rows [start, start + len) of auxiliary.idx.
struct AuxReader {
  const LoadedFile& file;
  const Quantizer& quantizer;
  size_t dim;
  DistanceType metric;  // the index metric
  std::span<const uint64_t> row_ids;
  std::span<const float> floats, norms, factors;
  std::span<const uint8_t> codes;
  int64_t width = 0;

  Status Init() {
    LANCEDB_ASSIGN_OR_RETURN(row_ids, file.Values<uint64_t>(kRowIdColumn));
    QuantizerType t = quantizer.type();
    if (t == QuantizerType::kFlat) {
      LANCEDB_ASSIGN_OR_RETURN(floats, file.ListValues<float>(kFlatColumn, &width));
      if (floats.size() != row_ids.size() * dim) return file.Corrupt("flat vectors size");
      return Status::OK();
    }
    LANCEDB_ASSIGN_OR_RETURN(codes, file.ListValues<uint8_t>(CodeColumnName(t), &width));
    if (codes.size() != row_ids.size() * static_cast<size_t>(CodeWidth(quantizer, dim))) {
      return file.Corrupt("code column size");
    }
    if (t == QuantizerType::kRq) {
      LANCEDB_ASSIGN_OR_RETURN(norms, file.Values<float>(kNormColumn));
      LANCEDB_ASSIGN_OR_RETURN(factors, file.Values<float>(kFactorColumn));
    }
    return Status::OK();
  }

  std::unique_ptr<PartitionStorage> Partition(size_t start, size_t len,
                                              std::span<const float> centroid) const {
    size_t w = static_cast<size_t>(CodeWidth(quantizer, dim));
    std::vector<uint8_t> c(codes.begin() + start * w, codes.begin() + (start + len) * w);
    switch (quantizer.type()) {
      case QuantizerType::kFlat:
        return std::make_unique<FlatStorage>(
            std::vector<float>(floats.begin() + start * dim, floats.begin() + (start + len) * dim),
            dim, metric);
      case QuantizerType::kPq:
        return static_cast<const ProductQuantizer&>(quantizer).FromCodes(std::move(c), centroid);
      case QuantizerType::kSq:
        return static_cast<const ScalarQuantizer&>(quantizer).FromCodes(std::move(c));
      case QuantizerType::kRq:
        return static_cast<const RabitQuantizer&>(quantizer).FromParts(
            std::move(c), {norms.begin() + start, norms.begin() + start + len},
            {factors.begin() + start, factors.begin() + start + len}, centroid);
    }
    return nullptr;
  }
};

Result<std::unique_ptr<HnswGraph>> LoadGraph(const LoadedFile& f, size_t m, uint64_t start,
                                             uint64_t len, int64_t num_nodes, uint32_t entry,
                                             int32_t max_level) {
  LANCEDB_ASSIGN_OR_RETURN(auto ids, f.Values<uint32_t>(kVectorIdColumn));
  LANCEDB_ASSIGN_OR_RETURN(auto levels, f.Values<uint8_t>(kLevelColumn));
  auto lists = f.Column(kNeighborsColumn);
  if (lists == nullptr || lists->children.size() != 1 || start + len > ids.size()) {
    return f.Corrupt("bad neighbour lists");
  }
  const uint32_t* values = lists->children[0]->GetValues<uint32_t>(1);
  auto graph = std::make_unique<HnswGraph>(num_nodes, m);
  for (uint64_t r = start; r < start + len; ++r) {
    if (ids[r] >= num_nodes) return f.Corrupt("HNSW node id out of range");
    if (levels[r] > 0) graph->SetLevel(ids[r], levels[r]);
  }
  for (uint64_t r = start; r < start + len; ++r) {
    auto [b, e] = lists->GetListRange(static_cast<int64_t>(r));
    for (int64_t i = b; i < e; ++i) {
      if (values[i] >= num_nodes) return f.Corrupt("HNSW neighbour out of range");
    }
    graph->SetNeighbors(ids[r], levels[r], {values + b, static_cast<size_t>(e - b)});
  }
  if (num_nodes > 0) graph->SetEntryPoint(entry, max_level);
  return graph;
}

}  // namespace

Result<std::unique_ptr<IvfIndex>> ReadIvfIndexFiles(const io::FileSystemPtr& fs,
                                                    const std::string& dir, IvfFileParams* params) {
  LANCEDB_ASSIGN_OR_RETURN(LoadedFile index, LoadedFile::Open(fs, dir, kIndexFile));
  LANCEDB_ASSIGN_OR_RETURN(int64_t version, MetaInt(index, kMetaFormatVersion));
  if (version > kIvfFormatVersion) {
    return Status::NotSupported("Vector index format version " + std::to_string(version) +
                                " is newer than this library supports");
  }
  Header h;
  LANCEDB_ASSIGN_OR_RETURN(int64_t dim, MetaInt(index, kMetaDimension));
  h.dim = static_cast<size_t>(dim);
  LANCEDB_ASSIGN_OR_RETURN(h.distance_type,
                           ParseDistanceType(MetaString(index, kMetaDistanceType)));
  h.quantizer = MetaString(index, kMetaQuantizer);
  h.hnsw = MetaString(index, kMetaSubIndex) == "HNSW";
  LANCEDB_ASSIGN_OR_RETURN(int64_t m, MetaInt(index, kMetaHnswM, 20));
  h.m = static_cast<size_t>(m);
  if (params != nullptr) {
    params->index_type = MetaString(index, kMetaIndexType);
    params->m = h.m;
    LANCEDB_ASSIGN_OR_RETURN(int64_t efc, MetaInt(index, kMetaHnswEfConstruction, 300));
    params->ef_construction = static_cast<size_t>(efc);
    if (index.metadata().count(kMetaSeed)) {
      LANCEDB_ASSIGN_OR_RETURN(int64_t seed, MetaInt(index, kMetaSeed));
      params->seed = static_cast<uint64_t>(seed);
    }
  }
  int64_t width = 0;
  LANCEDB_ASSIGN_OR_RETURN(auto centroids, index.ListValues<float>(kCentroidColumn, &width));
  LANCEDB_ASSIGN_OR_RETURN(auto offsets, index.Values<uint64_t>(kOffsetColumn));
  LANCEDB_ASSIGN_OR_RETURN(auto lengths, index.Values<uint64_t>(kLengthColumn));
  const int64_t num_partitions = index.num_rows();
  if (centroids.size() != static_cast<size_t>(num_partitions) * h.dim) {
    return index.Corrupt("centroids do not match the dimension");
  }
  LANCEDB_ASSIGN_OR_RETURN(auto quantizer, LoadQuantizer(fs, dir, index, h));
  LANCEDB_ASSIGN_OR_RETURN(LoadedFile aux_file, LoadedFile::Open(fs, dir, kAuxiliaryFile));
  AuxReader aux{aux_file, *quantizer, h.dim, IndexMetric(h.distance_type), {}, {}, {}, {}, {}, 0};
  LANCEDB_RETURN_NOT_OK(aux.Init());
  std::optional<LoadedFile> hnsw_file;
  if (h.hnsw) {
    LANCEDB_ASSIGN_OR_RETURN(hnsw_file, LoadedFile::Open(fs, dir, kHnswFile));
  }
  std::vector<IvfPartition> parts(num_partitions);
  for (int64_t p = 0; p < num_partitions; ++p) {
    if (offsets[p] + lengths[p] > aux.row_ids.size()) return index.Corrupt("partition range");
    std::span<const float> centroid = centroids.subspan(p * h.dim, h.dim);
    IvfPartition& part = parts[p];
    part.row_ids.assign(aux.row_ids.begin() + offsets[p],
                        aux.row_ids.begin() + offsets[p] + lengths[p]);
    part.storage = aux.Partition(offsets[p], lengths[p], centroid);
    if (h.hnsw) {
      LANCEDB_ASSIGN_OR_RETURN(auto ho, index.Values<uint64_t>(kHnswOffsetColumn));
      LANCEDB_ASSIGN_OR_RETURN(auto hl, index.Values<uint64_t>(kHnswLengthColumn));
      LANCEDB_ASSIGN_OR_RETURN(auto he, index.Values<uint32_t>(kHnswEntryColumn));
      LANCEDB_ASSIGN_OR_RETURN(auto hm, index.Values<int32_t>(kHnswMaxLevelColumn));
      LANCEDB_ASSIGN_OR_RETURN(
          part.sub_index,
          LoadGraph(*hnsw_file, h.m, ho[p], hl[p], static_cast<int64_t>(lengths[p]), he[p], hm[p]));
    } else {
      part.sub_index = std::make_unique<FlatSubIndex>();
    }
  }
  return std::make_unique<IvfIndex>(
      h.dim, h.distance_type, std::vector<float>(centroids.begin(), centroids.end()),
      std::move(quantizer), h.hnsw ? SubIndexType::kHnsw : SubIndexType::kFlat, std::move(parts));
}

}  // namespace lancedb::index::vector
