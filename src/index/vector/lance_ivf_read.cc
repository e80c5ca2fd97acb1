// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Layout read here: docs/format/lance-vector-index.md.

#include "index/vector/lance_ivf_read.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "array/half.h"
#include "format/file_reader.h"
#include "index/proto/lance_ivf.pb.h"
#include "index/vector/flat_storage.h"
#include "index/vector/index_file_columns.h"
#include "index/vector/lance_hnsw_graph.h"
#include "index/vector/lance_pq_storage.h"
#include "index/vector/lance_rq_storage.h"
#include "index/vector/lance_sq_storage.h"
#include "index/vector/pq_builder.h"

namespace lancedb::index::vector {
namespace {

namespace lpb = lance::index::pb;
using nlohmann::json;

/// One index file, read whole, with its schema metadata.
class LanceIndexFile {
 public:
  static Result<LanceIndexFile> Open(const io::FileSystemPtr& fs, const std::string& dir,
                                     const std::string& name) {
    LanceIndexFile f;
    f.name_ = name;
    LANCEDB_ASSIGN_OR_RETURN(f.reader_, format::FileReader::Open(fs, io::JoinPath(dir, name)));
    std::vector<int32_t> ids;
    for (const auto& field : f.reader_->schema().fields()) ids.push_back(field.id);
    LANCEDB_ASSIGN_OR_RETURN(f.batch_, f.reader_->Read(ids, 0, f.reader_->num_rows()));
    return f;
  }

  Status Corrupt(const std::string& what) const {
    return Status::Corruption("LanceDB vector index file " + name_ + ": " + what);
  }

  /// The schema metadata value of `key`; empty when absent.
  std::string Meta(const std::string& key) const {
    for (const auto& [k, v] : reader_->schema().metadata()) {
      if (k == key) return v;
    }
    return "";
  }

  /// The IVF message in the global buffer the metadata key "lance:ivf" names.
  Result<lpb::IVF> Ivf() const {
    const std::string pos = Meta("lance:ivf");
    uint32_t index = 0;
    auto [ptr, ec] = std::from_chars(pos.data(), pos.data() + pos.size(), index);
    if (pos.empty() || ec != std::errc() || ptr != pos.data() + pos.size()) {
      return Corrupt("bad or missing metadata lance:ivf");
    }
    LANCEDB_ASSIGN_OR_RETURN(auto bytes, GlobalBuffer(index));
    lpb::IVF ivf;
    if (!ivf.ParseFromString(bytes)) return Corrupt("the IVF message does not parse");
    return ivf;
  }

  Result<std::string> GlobalBuffer(uint32_t index) const {
    if (index == 0 || index >= reader_->num_global_buffers()) {
      return Corrupt("no global buffer " + std::to_string(index));
    }
    LANCEDB_ASSIGN_OR_RETURN(auto buffer, reader_->ReadGlobalBuffer(index));
    return std::string(reinterpret_cast<const char*>(buffer->data()),
                       static_cast<size_t>(buffer->size()));
  }

  int64_t num_rows() const { return batch_->num_rows(); }
  array::ArrayPtr Column(const char* name) const { return batch_->GetColumnByName(name); }

  /// The values of a fixed_size_list column of `T` items and `width` items per row.
  template <typename T>
  Result<std::span<const T>> ListValues(const char* column, int64_t width) const {
    auto col = Column(column);
    if (col == nullptr || col->children.size() != 1) {
      return Corrupt(std::string("missing list column ") + column);
    }
    if (col->length == 0) return std::span<const T>();
    auto [start, end] = col->GetListRange(0);
    const auto& child = col->children[0];
    if (end - start != width || child->type->bit_width() != 8 * static_cast<int>(sizeof(T))) {
      return Corrupt(std::string("unexpected type of column ") + column);
    }
    return std::span<const T>(child->GetValues<T>(1) + start,
                              static_cast<size_t>(col->length * width));
  }

  /// The values of a float32 column.
  Result<std::span<const float>> FloatValues(const char* column) const {
    auto col = Column(column);
    if (col == nullptr || col->type->id() != array::TypeId::kFloat32) {
      return Corrupt(std::string("missing float column ") + column);
    }
    return std::span<const float>(col->GetValues<float>(1), static_cast<size_t>(col->length));
  }

 private:
  std::string name_;
  std::unique_ptr<format::FileReader> reader_;
  array::RecordBatchPtr batch_;
};

/// The float values of a Tensor (float16, float32, float64; uint8: a hamming index's centroids)
/// with `expected` values.
Result<std::vector<float>> TensorFloats(const LanceIndexFile& f, const lpb::Tensor& t,
                                        size_t expected, const char* what) {
  const std::string& data = t.data();
  size_t width = 0;
  switch (t.data_type()) {
    case lpb::Tensor::FLOAT16:
      width = 2;
      break;
    case lpb::Tensor::FLOAT32:
      width = 4;
      break;
    case lpb::Tensor::FLOAT64:
      width = 8;
      break;
    case lpb::Tensor::UINT8:
      width = 1;
      break;
    default:
      return Status::NotSupported(std::string("LanceDB vector index: ") + what +
                                  " of tensor type " + std::to_string(t.data_type()));
  }
  if (data.size() != expected * width) return f.Corrupt(std::string(what) + " size");
  std::vector<float> out(expected);
  if (width == 1) {
    for (size_t i = 0; i < expected; ++i) out[i] = static_cast<uint8_t>(data[i]);
  } else if (width == 4) {
    std::memcpy(out.data(), data.data(), data.size());
  } else if (width == 8) {
    for (size_t i = 0; i < expected; ++i) {
      double v;
      std::memcpy(&v, data.data() + 8 * i, 8);
      out[i] = static_cast<float>(v);
    }
  } else {
    std::vector<uint16_t> halves(expected);
    std::memcpy(halves.data(), data.data(), data.size());
    array::HalfToFloat(std::span<const uint16_t>(halves), std::span(out));
  }
  return out;
}

/// The JSON object of auxiliary.idx's `storage_metadata` (a JSON list of one JSON text).
Result<json> StorageMetadata(const LanceIndexFile& aux) {
  json list = json::parse(aux.Meta("storage_metadata"), nullptr, /*allow_exceptions=*/false);
  if (!list.is_array() || list.empty() || !list[0].is_string()) {
    return aux.Corrupt("bad or missing metadata storage_metadata");
  }
  json meta = json::parse(list[0].get<std::string>(), nullptr, /*allow_exceptions=*/false);
  if (!meta.is_object()) return aux.Corrupt("bad storage_metadata");
  return meta;
}

Result<int64_t> JsonInt(const LanceIndexFile& f, const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) {
    return f.Corrupt(std::string("storage_metadata lacks ") + key);
  }
  return it->get<int64_t>();
}

/// Everything read from the two files before the partitions are built.
struct Model {
  std::string type;     // LanceDB's name, "IVF_PQ"
  std::string storage;  // the storage's: "IVF_PQ" for IVF_PQ and IVF_HNSW_PQ
  DistanceType distance_type = DistanceType::kL2;
  size_t dim = 0;
  int64_t num_partitions = 0;
  std::vector<float> centroids;   // (num_partitions, dim)
  bool half_precision = false;    // float16 centroids: an index on a float16 column
  bool double_precision = false;  // float64 centroids: an index on a float64 column
};

Result<Model> ReadModel(const LanceIndexFile& index) {
  Model m;
  json header = json::parse(index.Meta("lance:index"), nullptr, /*allow_exceptions=*/false);
  if (!header.is_object() || !header.contains("type") || !header["type"].is_string()) {
    return Status::NotSupported(
        "LanceDB vector index: a layout without lance:index metadata "
        "(written by an older Lance version)");
  }
  m.type = header["type"].get<std::string>();
  m.storage = m.type.starts_with("IVF_HNSW_") ? "IVF_" + m.type.substr(9) : m.type;
  if (m.storage != "IVF_FLAT" && m.storage != "IVF_PQ" && m.storage != "IVF_SQ" &&
      m.type != "IVF_RQ") {
    return Status::NotSupported("LanceDB vector index type " + m.type + " is not read yet");
  }
  const std::string distance =
      header.contains("distance_type") && header["distance_type"].is_string()
          ? header["distance_type"].get<std::string>()
          : "";
  auto parsed = ParseDistanceType(distance);
  if (!parsed.ok() || (*parsed == DistanceType::kHamming && m.storage != "IVF_FLAT")) {
    return Status::NotSupported("LanceDB " + m.type + " vector index with distance type '" +
                                distance + "'");
  }
  m.distance_type = *parsed;
  LANCEDB_ASSIGN_OR_RETURN(auto ivf, index.Ivf());
  if (!ivf.has_centroids_tensor() || ivf.centroids_tensor().shape_size() != 2) {
    return Status::NotSupported("LanceDB vector index without a centroids tensor");
  }
  m.num_partitions = ivf.centroids_tensor().shape(0);
  m.dim = ivf.centroids_tensor().shape(1);
  m.half_precision = ivf.centroids_tensor().data_type() == lpb::Tensor::FLOAT16;
  m.double_precision = ivf.centroids_tensor().data_type() == lpb::Tensor::FLOAT64;
  if (m.dim == 0) return index.Corrupt("centroids of dimension 0");
  LANCEDB_ASSIGN_OR_RETURN(
      m.centroids, TensorFloats(index, ivf.centroids_tensor(),
                                static_cast<size_t>(m.num_partitions) * m.dim, "centroids"));
  return m;
}

/// Builds each partition's storage from its rows of auxiliary.idx.
class StorageReader {
 public:
  virtual ~StorageReader() = default;
  virtual std::unique_ptr<PartitionStorage> Partition(size_t start, size_t len,
                                                      std::span<const float> centroid) const = 0;
};

class FlatReader final : public StorageReader {
 public:
  FlatReader(std::vector<float> vectors, size_t dim, DistanceType metric)
      : vectors_(std::move(vectors)), dim_(dim), metric_(metric) {}
  std::unique_ptr<PartitionStorage> Partition(size_t start, size_t len,
                                              std::span<const float>) const override {
    auto rows = std::span<const float>(vectors_).subspan(start * dim_, len * dim_);
    return std::make_unique<FlatStorage>(std::vector<float>(rows.begin(), rows.end()), dim_,
                                         metric_);
  }

 private:
  std::vector<float> vectors_;  // float32, whatever the column stores
  size_t dim_;
  DistanceType metric_;
};

/// PQ codes: `bytes_per_row` bytes a row (num_sub_vectors, or half of it for 4-bit codes, two
/// to a byte, low nibble first); `transposed`: stored column-major inside each partition.
class PqReader final : public StorageReader {
 public:
  PqReader(const ProductQuantizer* pq, std::span<const uint8_t> codes, size_t bytes_per_row,
           bool transposed, bool half_precision)
      : pq_(pq),
        codes_(codes),
        bytes_per_row_(bytes_per_row),
        transposed_(transposed),
        half_precision_(half_precision) {}
  std::unique_ptr<PartitionStorage> Partition(size_t start, size_t len,
                                              std::span<const float> centroid) const override {
    auto part = codes_.subspan(start * bytes_per_row_, len * bytes_per_row_);
    std::vector<uint8_t> bytes(part.size());  // column-major, as LancePqStorage takes them
    for (size_t r = 0; r < len; ++r) {
      for (size_t b = 0; b < bytes_per_row_; ++b) {
        bytes[b * len + r] = transposed_ ? part[b * len + r] : part[r * bytes_per_row_ + b];
      }
    }
    return std::make_unique<LancePqStorage>(pq_, std::move(bytes), len, centroid, half_precision_);
  }

 private:
  const ProductQuantizer* pq_;
  std::span<const uint8_t> codes_;
  size_t bytes_per_row_;
  bool transposed_;
  bool half_precision_;
};

class SqReader final : public StorageReader {
 public:
  SqReader(const LanceScalarQuantizer* sq, std::span<const uint8_t> codes, size_t dim)
      : sq_(sq), codes_(codes), dim_(dim) {}
  std::unique_ptr<PartitionStorage> Partition(size_t start, size_t len,
                                              std::span<const float>) const override {
    auto rows = codes_.subspan(start * dim_, len * dim_);
    return sq_->FromCodes(std::vector<uint8_t>(rows.begin(), rows.end()));
  }

 private:
  const LanceScalarQuantizer* sq_;
  std::span<const uint8_t> codes_;
  size_t dim_;
};

/// RaBitQ rows: sign codes packed per partition (Lance packs each partition's batch), extra
/// codes in 64-dimension blocks, float factors.
class RqReader final : public StorageReader {
 public:
  struct Columns {
    std::span<const uint8_t> codes, ex_codes;
    std::span<const float> add, scale, error, ex_add, ex_scale;
    size_t ex_row_bytes = 0;
  };
  RqReader(const LanceRabitQuantizer* rq, Columns cols, bool packed)
      : rq_(rq), cols_(cols), packed_(packed) {}
  std::unique_ptr<PartitionStorage> Partition(size_t start, size_t len,
                                              std::span<const float> centroid) const override {
    const size_t bytes = rq_->code_bytes();
    auto codes = cols_.codes.subspan(start * bytes, len * bytes);
    LanceRqRows rows;
    rows.codes = packed_ ? UnpackLanceRabitCodes(codes, len, bytes)
                         : std::vector<uint8_t>(codes.begin(), codes.end());
    auto slice = [&](std::span<const float> v) {
      return v.empty() ? std::vector<float>() : Slice(v.subspan(start, len));
    };
    rows.add = slice(cols_.add);
    rows.scale = slice(cols_.scale);
    rows.error = slice(cols_.error);
    rows.ex_add = slice(cols_.ex_add);
    rows.ex_scale = slice(cols_.ex_scale);
    if (rq_->num_bits() > 1) {
      const size_t ex_bytes = cols_.ex_row_bytes;
      rows.ex_codes = DecodeLanceExCodes(cols_.ex_codes.subspan(start * ex_bytes, len * ex_bytes),
                                         len, rq_->code_dim(), rq_->num_bits() - 1);
    }
    return std::make_unique<LanceRqStorage>(rq_, std::move(rows), centroid);
  }

 private:
  static std::vector<float> Slice(std::span<const float> v) { return {v.begin(), v.end()}; }

  const LanceRabitQuantizer* rq_;
  Columns cols_;
  bool packed_;
};

/// The RaBitQ quantizer and rows of auxiliary.idx; NotSupported for the layouts pylance 12 does
/// not write (dense rotation matrix, residual-query estimator, sequential extra codes).
Status ReadRqStorage(const LanceIndexFile& aux, const Model& model, const json& meta,
                     std::unique_ptr<Quantizer>* quantizer,
                     std::unique_ptr<StorageReader>* reader) {
  const std::string rotation = meta.value("rotation_type", "matrix");
  const std::string estimator = meta.value("query_estimator", "residual_query");
  if (rotation != "fast") {
    return Status::NotSupported("LanceDB IVF_RQ index with the '" + rotation + "' rotation");
  }
  if (estimator != "raw_query") {
    return Status::NotSupported("LanceDB IVF_RQ index with the '" + estimator + "' estimator");
  }
  LANCEDB_ASSIGN_OR_RETURN(int64_t code_dim, JsonInt(aux, meta, "code_dim"));
  LANCEDB_ASSIGN_OR_RETURN(int64_t bits, JsonInt(aux, meta, "num_bits"));
  const json& signs_json = meta.value("fast_rotation_signs", json());
  if (code_dim <= 0 || code_dim % 8 != 0 || static_cast<size_t>(code_dim) < model.dim || bits < 1 ||
      bits > 9 || !signs_json.is_array() ||
      signs_json.size() != static_cast<size_t>(code_dim / 2)) {
    return aux.Corrupt("bad RQ parameters: code_dim " + std::to_string(code_dim) + ", num_bits " +
                       std::to_string(bits));
  }
  std::vector<uint8_t> signs;
  for (const auto& v : signs_json) {
    if (!v.is_number_unsigned() || v.get<uint64_t>() > 255) return aux.Corrupt("bad RQ signs");
    signs.push_back(static_cast<uint8_t>(v.get<uint64_t>()));
  }
  auto rq = std::make_unique<LanceRabitQuantizer>(
      model.dim, static_cast<size_t>(code_dim), static_cast<int>(bits),
      IndexMetric(model.distance_type), std::move(signs));
  RqReader::Columns cols;
  LANCEDB_ASSIGN_OR_RETURN(cols.codes, aux.ListValues<uint8_t>("_rabit_codes", code_dim / 8));
  LANCEDB_ASSIGN_OR_RETURN(cols.add, aux.FloatValues("__add_factors"));
  LANCEDB_ASSIGN_OR_RETURN(cols.scale, aux.FloatValues("__scale_factors"));
  // Only the multi-bit search reads the error factors; kept for 1 bit too (to rewrite them).
  if (bits > 1 || aux.Column("__error_factors") != nullptr) {
    LANCEDB_ASSIGN_OR_RETURN(cols.error, aux.FloatValues("__error_factors"));
  }
  if (bits > 1) {
    if (aux.Column("__blocked_ex_codes") == nullptr) {
      return Status::NotSupported("LanceDB IVF_RQ index with sequential extra codes");
    }
    const int64_t blocks = (code_dim + 63) / 64;
    cols.ex_row_bytes = static_cast<size_t>(blocks * 8 * (bits - 1));
    LANCEDB_ASSIGN_OR_RETURN(
        cols.ex_codes,
        aux.ListValues<uint8_t>("__blocked_ex_codes", static_cast<int64_t>(cols.ex_row_bytes)));
    LANCEDB_ASSIGN_OR_RETURN(cols.ex_add, aux.FloatValues("__add_factors_ex"));
    LANCEDB_ASSIGN_OR_RETURN(cols.ex_scale, aux.FloatValues("__scale_factors_ex"));
  }
  const size_t n = cols.add.size();
  if (cols.codes.size() != n * static_cast<size_t>(code_dim / 8) || cols.scale.size() != n ||
      (!cols.error.empty() && cols.error.size() != n) ||
      (bits > 1 && (cols.error.size() != n || cols.ex_add.size() != n ||
                    cols.ex_scale.size() != n || cols.ex_codes.size() != n * cols.ex_row_bytes))) {
    return aux.Corrupt("the RQ columns disagree in length");
  }
  *reader = std::make_unique<RqReader>(rq.get(), cols, meta.value("packed", false));
  *quantizer = std::move(rq);
  return Status::OK();
}

/// The `flat` column's vectors (float16, float32, float64; uint8 with hamming distance) as
/// float32.
Result<std::vector<float>> FlatVectors(const LanceIndexFile& aux, int64_t dim) {
  auto col = aux.Column("flat");
  if (col == nullptr || col->children.size() != 1) return aux.Corrupt("missing column flat");
  switch (col->children[0]->type->bit_width()) {
    case 8: {
      LANCEDB_ASSIGN_OR_RETURN(auto bytes, aux.ListValues<uint8_t>("flat", dim));
      return std::vector<float>(bytes.begin(), bytes.end());
    }
    case 16: {
      LANCEDB_ASSIGN_OR_RETURN(auto halves, aux.ListValues<uint16_t>("flat", dim));
      std::vector<float> out(halves.size());
      array::HalfToFloat(halves, std::span(out));
      return out;
    }
    case 64: {
      LANCEDB_ASSIGN_OR_RETURN(auto doubles, aux.ListValues<double>("flat", dim));
      return std::vector<float>(doubles.begin(), doubles.end());
    }
    default: {
      LANCEDB_ASSIGN_OR_RETURN(auto floats, aux.ListValues<float>("flat", dim));
      return std::vector<float>(floats.begin(), floats.end());
    }
  }
}

/// The quantizer of `model` and a reader of its partitions over `aux`.
Status ReadStorage(const LanceIndexFile& aux, const Model& model,
                   std::unique_ptr<Quantizer>* quantizer, std::unique_ptr<StorageReader>* reader) {
  const DistanceType metric = IndexMetric(model.distance_type);
  const auto dim = static_cast<int64_t>(model.dim);
  if (model.storage == "IVF_FLAT") {
    // On a float16 column LanceDB scores cosine by 1 - cos against the stored (normalized,
    // rounded) rows, not by the halved squared L2 of unit vectors.
    const DistanceType flat_metric = LanceFlatMetric(model.distance_type, model.half_precision);
    LANCEDB_ASSIGN_OR_RETURN(auto vectors, FlatVectors(aux, dim));
    *quantizer = std::make_unique<FlatQuantizer>(model.dim, flat_metric);
    *reader = std::make_unique<FlatReader>(std::move(vectors), model.dim, flat_metric);
    return Status::OK();
  }
  LANCEDB_ASSIGN_OR_RETURN(json meta, StorageMetadata(aux));
  if (model.storage == "IVF_RQ") return ReadRqStorage(aux, model, meta, quantizer, reader);
  if (model.storage == "IVF_SQ") {
    LANCEDB_ASSIGN_OR_RETURN(int64_t bits, JsonInt(aux, meta, "num_bits"));
    const json& bounds = meta.value("bounds", json());
    if (bits != 8)
      return Status::NotSupported("LanceDB IVF_SQ index with " + std::to_string(bits) +
                                  "-bit codes");
    if (!bounds.is_object() || !bounds.value("start", json()).is_number() ||
        !bounds.value("end", json()).is_number()) {
      return aux.Corrupt("storage_metadata lacks the SQ bounds");
    }
    auto sq = std::make_unique<LanceScalarQuantizer>(
        model.dim, metric, bounds["start"].get<double>(), bounds["end"].get<double>());
    LANCEDB_ASSIGN_OR_RETURN(auto codes, aux.ListValues<uint8_t>("__sq_code", dim));
    *reader = std::make_unique<SqReader>(sq.get(), codes, model.dim);
    *quantizer = std::move(sq);
    return Status::OK();
  }
  LANCEDB_ASSIGN_OR_RETURN(int64_t bits, JsonInt(aux, meta, "nbits"));
  LANCEDB_ASSIGN_OR_RETURN(int64_t m, JsonInt(aux, meta, "num_sub_vectors"));
  LANCEDB_ASSIGN_OR_RETURN(int64_t position, JsonInt(aux, meta, "codebook_position"));
  if ((bits != 4 && bits != 8) || m <= 0 || model.dim % static_cast<size_t>(m) != 0 ||
      (bits == 4 && m % 2 != 0)) {
    return aux.Corrupt("bad PQ parameters: nbits " + std::to_string(bits) + ", num_sub_vectors " +
                       std::to_string(m));
  }
  if (position <= 0) return Status::NotSupported("LanceDB IVF_PQ index with an inline codebook");
  LANCEDB_ASSIGN_OR_RETURN(auto bytes, aux.GlobalBuffer(static_cast<uint32_t>(position)));
  lpb::Tensor tensor;
  if (!tensor.ParseFromString(bytes)) return aux.Corrupt("the PQ codebook does not parse");
  // Layout: (num_sub_vectors, 2^nbits, dim / num_sub_vectors), as ProductQuantizer's.
  LANCEDB_ASSIGN_OR_RETURN(
      auto codebook, TensorFloats(aux, tensor, (size_t{1} << bits) * model.dim, "PQ codebook"));
  // Lance encodes residuals for l2 and cosine, the vectors themselves for dot.
  LANCEDB_ASSIGN_OR_RETURN(
      auto pq, ProductQuantizer::Make(model.dim, static_cast<size_t>(m), static_cast<int>(bits),
                                      metric, metric != DistanceType::kDot, std::move(codebook)));
  const int64_t bytes_per_row = bits == 4 ? m / 2 : m;
  LANCEDB_ASSIGN_OR_RETURN(auto codes, aux.ListValues<uint8_t>("__pq_code", bytes_per_row));
  const bool transposed = meta.value("transposed", false);
  *reader = std::make_unique<PqReader>(pq.get(), codes, static_cast<size_t>(bytes_per_row),
                                       transposed, tensor.data_type() == lpb::Tensor::FLOAT16);
  *quantizer = std::move(pq);
  return Status::OK();
}

/// Replace the FLAT sub-indices of `parts` by the HNSW graphs of index.idx: its IVF message
/// holds each partition's rows, `lance:hnsw` a JSON list of each partition's graph metadata.
Status ReadHnswGraphs(const LanceIndexFile& index, std::vector<IvfPartition>* parts) {
  LANCEDB_ASSIGN_OR_RETURN(auto ivf, index.Ivf());
  json metas = json::parse(index.Meta("lance:hnsw"), nullptr, /*allow_exceptions=*/false);
  const int n = static_cast<int>(parts->size());
  if (!metas.is_array() || static_cast<int>(metas.size()) != n || ivf.offsets_size() != n ||
      ivf.lengths_size() != n) {
    return index.Corrupt("the HNSW graphs (lance:hnsw) do not match the partitions");
  }
  auto ids = index.Column("__vector_id");
  auto neighbors = index.Column("__neighbors");
  auto distances = index.Column("_distance");
  if (ids == nullptr || neighbors == nullptr) return index.Corrupt("missing HNSW graph columns");
  for (int p = 0; p < n; ++p) {
    if (!metas[p].is_string()) return index.Corrupt("bad lance:hnsw entry");
    IvfPartition& part = (*parts)[static_cast<size_t>(p)];
    LANCEDB_ASSIGN_OR_RETURN(
        part.sub_index, LanceHnswGraph::Read(*ids, *neighbors, distances.get(),
                                             static_cast<int64_t>(ivf.offsets(p)),
                                             static_cast<int64_t>(ivf.lengths(p)),
                                             metas[p].get<std::string>(), part.row_ids.size()));
  }
  return Status::OK();
}

}  // namespace

DistanceType LanceFlatMetric(DistanceType distance_type, bool half_precision) {
  return distance_type == DistanceType::kCosine && half_precision ? DistanceType::kCosine
                                                                  : IndexMetric(distance_type);
}

IvfSearchStyle LanceSearchStyle(bool flat, DistanceType distance_type, bool half_precision) {
  IvfSearchStyle style;
  style.as_lancedb = true;
  style.half_precision = half_precision;
  // Lance reports the PQ and SQ distances of cosine indices as found (squared L2 between
  // normalized vectors), the FLAT ones as 1 - cos (halved squared L2 of unit vectors, or 1 - cos
  // computed as such on a float16 column).
  const bool as_found =
      !flat || LanceFlatMetric(distance_type, half_precision) == DistanceType::kCosine;
  style.cosine = as_found ? CosineReport::kAsFound : CosineReport::kHalved;
  return style;
}

Result<std::unique_ptr<IvfIndex>> ReadLanceIvfIndexFiles(const io::FileSystemPtr& fs,
                                                         const std::string& dir,
                                                         std::string* index_type) {
  LANCEDB_ASSIGN_OR_RETURN(auto index, LanceIndexFile::Open(fs, dir, kIndexFile));
  LANCEDB_ASSIGN_OR_RETURN(Model model, ReadModel(index));
  LANCEDB_ASSIGN_OR_RETURN(auto aux, LanceIndexFile::Open(fs, dir, kAuxiliaryFile));
  LANCEDB_ASSIGN_OR_RETURN(auto ivf, aux.Ivf());
  if (ivf.offsets_size() != model.num_partitions || ivf.lengths_size() != model.num_partitions) {
    return aux.Corrupt("the partition table does not match the centroids");
  }
  auto row_ids_col = aux.Column("_rowid");
  if (row_ids_col == nullptr || row_ids_col->type->bit_width() != 64) {
    return aux.Corrupt("missing column _rowid");
  }
  std::span<const uint64_t> row_ids(row_ids_col->GetValues<uint64_t>(1),
                                    static_cast<size_t>(row_ids_col->length));
  std::unique_ptr<Quantizer> quantizer;
  std::unique_ptr<StorageReader> reader;
  LANCEDB_RETURN_NOT_OK(ReadStorage(aux, model, &quantizer, &reader));
  std::vector<IvfPartition> parts(static_cast<size_t>(model.num_partitions));
  for (int64_t p = 0; p < model.num_partitions; ++p) {
    const uint64_t start = ivf.offsets(static_cast<int>(p));
    const uint64_t len = ivf.lengths(static_cast<int>(p));
    if (start > row_ids.size() || len > row_ids.size() - start) {
      return aux.Corrupt("partition " + std::to_string(p) + " lies outside the file");
    }
    IvfPartition& part = parts[static_cast<size_t>(p)];
    part.row_ids.assign(row_ids.begin() + static_cast<int64_t>(start),
                        row_ids.begin() + static_cast<int64_t>(start + len));
    part.storage = reader->Partition(start, len,
                                     std::span<const float>(model.centroids)
                                         .subspan(static_cast<size_t>(p) * model.dim, model.dim));
    part.sub_index = std::make_unique<FlatSubIndex>();
  }
  const bool hnsw = model.storage != model.type;
  if (hnsw) LANCEDB_RETURN_NOT_OK(ReadHnswGraphs(index, &parts));
  if (index_type != nullptr) *index_type = model.type;
  IvfSearchStyle style =
      LanceSearchStyle(model.storage == "IVF_FLAT", model.distance_type, model.half_precision);
  style.double_precision = model.double_precision;
  // Lance's RQ storage estimates -x.y for dot, which LanceDB reports as it is.
  style.dot_as_found = model.storage == "IVF_RQ";
  return std::make_unique<IvfIndex>(
      model.dim, model.distance_type, std::move(model.centroids), std::move(quantizer),
      hnsw ? SubIndexType::kHnsw : SubIndexType::kFlat, std::move(parts), style);
}

}  // namespace lancedb::index::vector
