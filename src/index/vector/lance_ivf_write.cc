// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Layout written here: docs/format/lance-vector-index.md.

#include "index/vector/lance_ivf_write.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <type_traits>

#include "array/array.h"
#include "array/builder.h"
#include "array/half.h"
#include "format/file_writer.h"
#include "index/proto/lance_ivf.pb.h"
#include "index/vector/flat_storage.h"
#include "index/vector/index_file_columns.h"
#include "index/vector/lance_hnsw_write.h"
#include "index/vector/lance_ivf_read.h"
#include "index/vector/lance_pq_storage.h"
#include "index/vector/lance_rq_storage.h"
#include "index/vector/lance_sq_storage.h"
#include "index/vector/parallel.h"
#include "index/vector/pq_storage.h"
#include "index/vector/random.h"

namespace lancedb::index::vector {
namespace {

namespace lpb = lance::index::pb;
using array::ArrayPtr;
using nlohmann::ordered_json;

/// One column of a file: name, values and nullability (as Lance declares it).
struct Column {
  std::string name;
  ArrayPtr values;
  bool nullable;
};

/// Write a Lance file of `columns` whose global buffers 1, 2, ... are `buffers`.
Status WriteFile(const io::FileSystemPtr& fs, const std::string& dir, const std::string& name,
                 const std::vector<Column>& columns, array::KeyValueMetadata metadata,
                 const std::vector<std::string>& buffers, std::vector<IvfFile>* written) {
  std::vector<array::FieldPtr> fields;
  std::vector<ArrayPtr> arrays;
  for (const auto& c : columns) {
    fields.push_back(array::field(c.name, c.values->type, c.nullable));
    arrays.push_back(c.values);
  }
  auto schema = array::schema(fields, std::move(metadata));
  LANCEDB_ASSIGN_OR_RETURN(auto lance_schema, format::LanceSchema::FromArrow(*schema));
  format::FileWriterOptions options;
  options.statistics_zone_rows = 0;  // the first buffer added is global buffer 1
  LANCEDB_ASSIGN_OR_RETURN(
      auto writer, format::FileWriter::Open(fs, io::JoinPath(dir, name), lance_schema, options));
  for (const auto& b : buffers) writer->AddGlobalBuffer(b);
  const int64_t n = arrays[0]->length;
  constexpr int64_t kBatch = 64 * 1024;
  for (int64_t start = 0; start == 0 || start < n; start += kBatch) {
    std::vector<ArrayPtr> slice;
    for (const auto& a : arrays)
      slice.push_back(array::Slice(a, start, std::min(kBatch, n - start)));
    LANCEDB_ASSIGN_OR_RETURN(auto batch, array::RecordBatch::Make(schema, slice));
    Status st = writer->Write(*batch);
    if (!st.ok()) {
      writer->Abort();
      return st;
    }
  }
  LANCEDB_ASSIGN_OR_RETURN(auto result, writer->Finish());
  written->push_back({name, result.file_size_bytes});
  return Status::OK();
}

/// `values` as `T`: float16 bits (uint16_t), double, or the bytes a hamming index carries one
/// per float (uint8_t).
template <typename T>
std::vector<T> Converted(std::span<const float> values) {
  std::vector<T> out(values.size());
  if constexpr (std::is_same_v<T, uint16_t>) {
    array::FloatToHalf(values, std::span(out));
  } else {
    std::transform(values.begin(), values.end(), out.begin(),
                   [](float v) { return static_cast<T>(v); });
  }
  return out;
}

/// Return `fn(arrow type, tensor type, converted values)` for `values` as the column's element
/// type: float16, float32, float64, or uint8 (a hamming index's vectors).
template <typename Fn>
auto WithElements(std::span<const float> values, array::TypeId element_type, Fn fn) {
  switch (element_type) {
    case array::TypeId::kFloat16:
      return fn(array::float16(), lpb::Tensor::FLOAT16, Converted<uint16_t>(values));
    case array::TypeId::kFloat64:
      return fn(array::float64(), lpb::Tensor::FLOAT64, Converted<double>(values));
    case array::TypeId::kUInt8:
      return fn(array::uint8(), lpb::Tensor::UINT8, Converted<uint8_t>(values));
    default:
      return fn(array::float32(), lpb::Tensor::FLOAT32,
                std::vector<float>(values.begin(), values.end()));
  }
}

/// The Tensor of `values` with `shape`, in the column's element type (as Lance stores its
/// centroids and PQ codebooks).
std::string ValuesTensor(std::span<const float> values, std::vector<uint32_t> shape,
                         array::TypeId element_type) {
  return WithElements(values, element_type, [&](const auto&, auto tensor_type, const auto& v) {
    lpb::Tensor t;
    t.set_data_type(tensor_type);
    for (uint32_t s : shape) t.add_shape(s);
    t.set_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(v[0])));
    return t.SerializeAsString();
  });
}

/// Lance's PQ codes of a partition from one code a byte, row-major: packed two a byte (low
/// nibble first) for 4-bit codes, then stored column-major (byte b of row r at b * rows + r).
std::vector<uint8_t> ToLanceCodes(std::span<const uint8_t> row_major, size_t m, int bits) {
  const size_t rows = m == 0 ? 0 : row_major.size() / m;
  const size_t width = bits == 4 ? m / 2 : m;
  std::vector<uint8_t> out(rows * width);
  for (size_t r = 0; r < rows; ++r) {
    const uint8_t* code = row_major.data() + r * m;
    for (size_t b = 0; b < width; ++b) {
      out[b * rows + r] =
          bits == 4 ? static_cast<uint8_t>((code[2 * b] & 0x0f) | (code[2 * b + 1] << 4)) : code[b];
    }
  }
  return out;
}

/// Bytes a row of `pq`'s codes takes in Lance's layout.
size_t LanceCodeWidth(const ProductQuantizer& pq) {
  return pq.num_bits() == 4 ? pq.num_sub_vectors() / 2 : pq.num_sub_vectors();
}

/// The smallest and largest value of the FLAT storages of `index`.
std::pair<float, float> ValueRange(const IvfIndex& index) {
  float lo = std::numeric_limits<float>::infinity();
  float hi = -std::numeric_limits<float>::infinity();
  for (int64_t p = 0; p < index.num_partitions(); ++p) {
    const auto& s = static_cast<const FlatStorage&>(*index.partition(p).storage);
    for (float v : s.vectors()) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (lo > hi) return {0.0f, 0.0f};
  return {lo, hi};
}

/// The type of the storage (auxiliary.idx) of index type `type`: IVF_SQ for IVF_HNSW_SQ.
std::string StorageTypeName(const std::string& type) {
  return type.starts_with("IVF_HNSW_") ? "IVF_" + type.substr(9) : type;
}

bool AllSubIndices(const IvfIndex& index, auto is_kind) {
  for (int64_t p = 0; p < index.num_partitions(); ++p) {
    if (!is_kind(index.partition(p).sub_index.get())) return false;
  }
  return true;
}

bool IsLanceGraph(const SubIndex* s) { return dynamic_cast<const LanceHnswGraph*>(s) != nullptr; }

bool AllStorages(const IvfIndex& index, auto is_kind) {
  for (int64_t p = 0; p < index.num_partitions(); ++p) {
    if (!is_kind(index.partition(p).storage.get())) return false;
  }
  return true;
}

/// The codes of auxiliary.idx (partitions in order) and its storage_metadata entry.
struct AuxContent {
  std::vector<Column> data;
  std::string storage_metadata;
  std::vector<std::string> buffers;  // after the IVF message (global buffer 1)
};

AuxContent FlatContent(const IvfIndex& index, int64_t n, array::TypeId element_type) {
  const auto dim = static_cast<int32_t>(index.dim());
  // The vectors go straight from the partitions into the column's buffer, in the column's
  // element type: one copy of what may be the whole table's vectors.
  const array::DataTypePtr item = element_type == array::TypeId::kFloat16   ? array::float16()
                                  : element_type == array::TypeId::kFloat64 ? array::float64()
                                  : element_type == array::TypeId::kUInt8   ? array::uint8()
                                                                            : array::float32();
  const int64_t values = n * dim;
  const int64_t width = element_type == array::TypeId::kFloat16   ? 2
                        : element_type == array::TypeId::kFloat64 ? 8
                        : element_type == array::TypeId::kUInt8   ? 1
                                                                  : 4;
  auto buffer = Buffer::AllocateUninitialized(values * width);
  uint8_t* out = buffer->mutable_data();
  for (int64_t p = 0; p < index.num_partitions(); ++p) {
    auto v = static_cast<const FlatStorage&>(*index.partition(p).storage).vectors();
    if (v.empty()) continue;  // an empty partition (no data pointer to copy from)
    switch (element_type) {
      case array::TypeId::kFloat16:
        array::FloatToHalf(v, std::span(reinterpret_cast<uint16_t*>(out), v.size()));
        break;
      case array::TypeId::kFloat64:
        std::transform(v.begin(), v.end(), reinterpret_cast<double*>(out),
                       [](float x) { return static_cast<double>(x); });
        break;
      case array::TypeId::kUInt8:
        std::transform(v.begin(), v.end(), out, [](float x) { return static_cast<uint8_t>(x); });
        break;
      default:
        std::memcpy(out, v.data(), v.size() * sizeof(float));
        break;
    }
    out += static_cast<int64_t>(v.size()) * width;
  }
  auto column = array::MakeFixedSizeList(array::fixed_size_list(item, dim),
                                         array::ArrayData::Make(item, values, {nullptr, buffer}));
  ordered_json meta = {{"dim", dim}};
  // LanceDB declares the column of float vectors non-nullable, that of (hamming) bytes nullable.
  return {{{"flat", column, element_type == array::TypeId::kUInt8}},
          ordered_json::array({meta.dump()}).dump(),
          {}};
}

AuxContent PqContent(const IvfIndex& index, int64_t n, array::TypeId element_type) {
  const auto& pq = static_cast<const ProductQuantizer&>(index.quantizer());
  std::vector<uint8_t> codes;
  for (int64_t p = 0; p < index.num_partitions(); ++p) {
    auto c = static_cast<const LancePqStorage&>(*index.partition(p).storage).codes();
    codes.insert(codes.end(), c.begin(), c.end());
  }
  const auto width = static_cast<int32_t>(LanceCodeWidth(pq));
  ordered_json meta = {{"codebook_position", 2},
                       {"nbits", pq.num_bits()},
                       {"num_sub_vectors", pq.num_sub_vectors()},
                       {"dimension", index.dim()},
                       {"codebook_tensor", ordered_json::array()},
                       {"transposed", true}};
  // Layout: (num_sub_vectors, 2^nbits, sub_dim), declared as (2^nbits, dim) as Lance does.
  std::string codebook =
      ValuesTensor(pq.codebook(),
                   {static_cast<uint32_t>(pq.num_centroids()), static_cast<uint32_t>(index.dim())},
                   element_type);
  return {{{"__pq_code", FixedListColumn(array::uint8(), codes.data(), n, width), true}},
          ordered_json::array({meta.dump()}).dump(),
          {std::move(codebook)}};
}

AuxContent SqContent(const IvfIndex& index, int64_t n) {
  const auto& sq = static_cast<const LanceScalarQuantizer&>(index.quantizer());
  const auto dim = static_cast<int32_t>(index.dim());
  std::vector<uint8_t> codes;
  for (int64_t p = 0; p < index.num_partitions(); ++p) {
    auto c = static_cast<const LanceSqStorage&>(*index.partition(p).storage).codes();
    codes.insert(codes.end(), c.begin(), c.end());
  }
  ordered_json meta = {
      {"dim", dim}, {"num_bits", 8}, {"bounds", {{"start", sq.start()}, {"end", sq.end()}}}};
  return {{{"__sq_code", FixedListColumn(array::uint8(), codes.data(), n, dim), true}},
          ordered_json::array({meta.dump()}).dump(),
          {}};
}

AuxContent RqContent(const IvfIndex& index, int64_t n) {
  const auto& rq = static_cast<const LanceRabitQuantizer&>(index.quantizer());
  const int ex_bits = rq.num_bits() - 1;
  LanceRqRows all;
  std::vector<uint8_t> ex_blocks;
  for (int64_t p = 0; p < index.num_partitions(); ++p) {
    const auto& rows = static_cast<const LanceRqStorage&>(*index.partition(p).storage).rows();
    const size_t len = rows.add.size();
    // Each partition's codes are packed on their own, as Lance packs a partition's batch.
    auto packed = PackLanceRabitCodes(rows.codes, len, rq.code_bytes());
    all.codes.insert(all.codes.end(), packed.begin(), packed.end());
    all.add.insert(all.add.end(), rows.add.begin(), rows.add.end());
    all.scale.insert(all.scale.end(), rows.scale.begin(), rows.scale.end());
    if (rows.error.size() == len) {
      all.error.insert(all.error.end(), rows.error.begin(), rows.error.end());
    } else {
      all.error.resize(all.error.size() + len, 0.0f);
    }
    if (ex_bits > 0) {
      auto blocked = EncodeLanceExCodes(rows.ex_codes, len, rq.code_dim(), ex_bits);
      ex_blocks.insert(ex_blocks.end(), blocked.begin(), blocked.end());
      all.ex_add.insert(all.ex_add.end(), rows.ex_add.begin(), rows.ex_add.end());
      all.ex_scale.insert(all.ex_scale.end(), rows.ex_scale.begin(), rows.ex_scale.end());
    }
  }
  const auto bytes = static_cast<int32_t>(rq.code_bytes());
  std::vector<Column> columns = {
      {"_rabit_codes", FixedListColumn(array::uint8(), all.codes.data(), n, bytes), true},
      {"__add_factors", PrimitiveColumn(array::float32(), all.add.data(), n), true},
      {"__scale_factors", PrimitiveColumn(array::float32(), all.scale.data(), n), true},
      {"__error_factors", PrimitiveColumn(array::float32(), all.error.data(), n), true}};
  if (ex_bits > 0) {
    const auto width = static_cast<int32_t>(8 * ex_bits * ((rq.code_dim() + 63) / 64));
    columns.push_back(
        {"__blocked_ex_codes", FixedListColumn(array::uint8(), ex_blocks.data(), n, width), true});
    columns.push_back(
        {"__add_factors_ex", PrimitiveColumn(array::float32(), all.ex_add.data(), n), true});
    columns.push_back(
        {"__scale_factors_ex", PrimitiveColumn(array::float32(), all.ex_scale.data(), n), true});
  }
  ordered_json signs = ordered_json::array();
  for (uint8_t b : rq.signs()) signs.push_back(b);
  ordered_json meta = {{"rotate_mat_position", nullptr}, {"fast_rotation_signs", signs},
                       {"rotation_type", "fast"},        {"code_dim", rq.code_dim()},
                       {"num_bits", rq.num_bits()},      {"packed", true},
                       {"query_estimator", "raw_query"}};
  return {std::move(columns), ordered_json::array({meta.dump()}).dump(), {}};
}

Status WriteAll(const io::FileSystemPtr& fs, const std::string& dir, const IvfIndex& index,
                const std::string& type, array::TypeId element_type,
                std::vector<IvfFile>* written) {
  LANCEDB_RETURN_NOT_OK(fs->CreateDir(dir));
  const int64_t partitions = index.num_partitions();
  const std::string distance(DistanceTypeName(index.distance_type()));
  // auxiliary.idx: the rows grouped by partition, the partitions' row ranges.
  lpb::IVF ranges;
  std::vector<uint64_t> row_ids;
  for (int64_t p = 0; p < partitions; ++p) {
    const auto& ids = index.partition(p).row_ids;
    ranges.add_offsets(row_ids.size());
    ranges.add_lengths(static_cast<uint32_t>(ids.size()));
    row_ids.insert(row_ids.end(), ids.begin(), ids.end());
  }
  const auto n = static_cast<int64_t>(row_ids.size());
  const std::string storage = StorageTypeName(type);
  AuxContent aux = storage == "IVF_FLAT" ? FlatContent(index, n, element_type)
                   : storage == "IVF_PQ" ? PqContent(index, n, element_type)
                   : storage == "IVF_RQ" ? RqContent(index, n)
                                         : SqContent(index, n);
  std::vector<std::string> aux_buffers = {ranges.SerializeAsString()};
  aux_buffers.insert(aux_buffers.end(), aux.buffers.begin(), aux.buffers.end());
  std::vector<Column> aux_columns = {
      {"_rowid", PrimitiveColumn(array::uint64(), row_ids.data(), n), true}};
  aux_columns.insert(aux_columns.end(), aux.data.begin(), aux.data.end());
  LANCEDB_RETURN_NOT_OK(WriteFile(
      fs, dir, kAuxiliaryFile, aux_columns,
      {{"distance_type", distance}, {"lance:ivf", "1"}, {"storage_metadata", aux.storage_metadata}},
      aux_buffers, written));
  // index.idx: the IVF model and the sub-indices: HNSW graphs (their rows, per partition), or
  // no rows and an (empty) FLAT sub-index metadata per partition.
  std::optional<LanceHnswColumns> graphs;
  if (storage != type) {
    LANCEDB_ASSIGN_OR_RETURN(graphs, MakeLanceHnswColumns(index));
  }
  lpb::IVF model;
  uint64_t graph_rows = 0;
  for (int64_t p = 0; p < partitions; ++p) {
    const uint32_t rows = graphs ? graphs->rows[p] : 0;
    model.add_offsets(graph_rows);
    model.add_lengths(rows);
    graph_rows += rows;
  }
  *model.mutable_centroids_tensor() = [&] {
    lpb::Tensor t;
    t.ParseFromString(ValuesTensor(
        index.centroids(), {static_cast<uint32_t>(partitions), static_cast<uint32_t>(index.dim())},
        element_type));
    return t;
  }();
  ordered_json header = {{"type", type}, {"distance_type", distance}};
  if (graphs) {
    return WriteFile(
        fs, dir, kIndexFile,
        {{"__vector_id", graphs->vector_ids, true},
         {"__neighbors", graphs->neighbors, true},
         {"_distance", graphs->distances, true}},
        {{"lance:hnsw", graphs->metadata}, {"lance:index", header.dump()}, {"lance:ivf", "1"}},
        {model.SerializeAsString()}, written);
  }
  ordered_json flat = ordered_json::array();
  for (int64_t p = 0; p < partitions; ++p) flat.push_back("");
  const uint64_t none = 0;
  // Written last: its presence marks a complete index directory.
  return WriteFile(
      fs, dir, kIndexFile, {{"__flat_marker", PrimitiveColumn(array::uint64(), &none, 0), false}},
      {{"lance:flat", flat.dump()}, {"lance:index", header.dump()}, {"lance:ivf", "1"}},
      {model.SerializeAsString()}, written);
}

/// Round `values` to float16 and back: what a float16 column's index file keeps of them.
void RoundToHalf(std::span<float> values) {
  std::vector<uint16_t> halves(values.size());
  array::FloatToHalf(values, std::span(halves));
  array::HalfToFloat(halves, values);
}

/// Round the vectors of the FLAT storages of `index` to float16; the storages take `metric`.
void RoundFlatToHalf(IvfIndex* index, DistanceType metric) {
  for (int64_t p = 0; p < index->num_partitions(); ++p) {
    IvfPartition* part = index->mutable_partition(p);
    const auto& s = static_cast<const FlatStorage&>(*part->storage);
    std::vector<float> vectors(s.vectors().begin(), s.vectors().end());
    RoundToHalf(std::span(vectors));
    part->storage = std::make_unique<FlatStorage>(std::move(vectors), s.dim(), metric);
  }
}

/// InvalidArgument unless Lance writes `index_type` on `index`'s columns of `element_type`:
/// float16, float32 or float64 vectors; uint8 vectors with hamming distance for IVF_FLAT and
/// IVF_HNSW_FLAT.
Status CheckElementType(const IvfIndex& index, const std::string& index_type,
                        array::TypeId element_type) {
  const bool hamming = index.distance_type() == DistanceType::kHamming;
  const bool floats = element_type == array::TypeId::kFloat16 ||
                      element_type == array::TypeId::kFloat32 ||
                      element_type == array::TypeId::kFloat64;
  if (hamming ? element_type == array::TypeId::kUInt8 && StorageTypeName(index_type) == "IVF_FLAT"
              : floats) {
    return Status::OK();
  }
  return Status::InvalidArgument("Cannot write a Lance " + index_type + " index with distance " +
                                 std::string(DistanceTypeName(index.distance_type())) +
                                 " on vectors of this element type");
}

}  // namespace

std::string LanceIvfTypeName(const IvfIndex& index) {
  if (!index.style().as_lancedb) return "";
  const bool hnsw = index.sub_index_type() == SubIndexType::kHnsw;
  if (hnsw ? !AllSubIndices(index, IsLanceGraph) : index.sub_index_type() != SubIndexType::kFlat) {
    return "";
  }
  const std::string prefix = hnsw ? "IVF_HNSW_" : "IVF_";
  const Quantizer& q = index.quantizer();
  if (dynamic_cast<const FlatQuantizer*>(&q) != nullptr &&
      AllStorages(index, [](const PartitionStorage* s) {
        return dynamic_cast<const FlatStorage*>(s) != nullptr;
      })) {
    return prefix + "FLAT";
  }
  if (dynamic_cast<const ProductQuantizer*>(&q) != nullptr &&
      AllStorages(index, [](const PartitionStorage* s) {
        return dynamic_cast<const LancePqStorage*>(s) != nullptr;
      })) {
    return prefix + "PQ";
  }
  if (dynamic_cast<const LanceScalarQuantizer*>(&q) != nullptr &&
      AllStorages(index, [](const PartitionStorage* s) {
        return dynamic_cast<const LanceSqStorage*>(s) != nullptr;
      })) {
    return prefix + "SQ";
  }
  if (!hnsw && dynamic_cast<const LanceRabitQuantizer*>(&q) != nullptr &&
      AllStorages(index, [](const PartitionStorage* s) {
        return dynamic_cast<const LanceRqStorage*>(s) != nullptr;
      })) {
    return "IVF_RQ";
  }
  return "";
}

Result<std::unique_ptr<IvfIndex>> ToLanceIvfIndex(std::unique_ptr<IvfIndex> built,
                                                  const std::string& hnsw_or_ivf_type,
                                                  array::TypeId element_type, int rq_num_bits,
                                                  std::optional<uint64_t> seed) {
  // IVF_HNSW_* converts the storage as its IVF type and keeps the Lance-form graphs.
  const std::string index_type = StorageTypeName(hnsw_or_ivf_type);
  const bool hnsw = index_type != hnsw_or_ivf_type;
  const size_t dim = built->dim();
  const DistanceType metric = IndexMetric(built->distance_type());
  LANCEDB_RETURN_NOT_OK(CheckElementType(*built, index_type, element_type));
  const bool half = element_type == array::TypeId::kFloat16;
  const bool flat_storages = AllStorages(*built, [](const PartitionStorage* s) {
    return dynamic_cast<const FlatStorage*>(s) != nullptr;
  });
  const auto* pq = dynamic_cast<const ProductQuantizer*>(&built->quantizer());
  const bool pq_storages = AllStorages(*built, [](const PartitionStorage* s) {
    return dynamic_cast<const PqStorage*>(s) != nullptr;
  });
  const bool sub_indices_ok =
      hnsw ? built->sub_index_type() == SubIndexType::kHnsw && AllSubIndices(*built, IsLanceGraph)
           : built->sub_index_type() == SubIndexType::kFlat;
  const bool ok =
      sub_indices_ok &&
      ((index_type == "IVF_PQ" && pq != nullptr && pq_storages) ||
       ((index_type == "IVF_FLAT" || index_type == "IVF_SQ" || (index_type == "IVF_RQ" && !hnsw)) &&
        flat_storages));
  if (!ok) {
    return Status::InvalidArgument("Cannot write this index as a Lance " + hnsw_or_ivf_type +
                                   " index");
  }
  std::vector<float> centroids(built->centroids().begin(), built->centroids().end());
  if (half) RoundToHalf(std::span(centroids));
  std::unique_ptr<Quantizer> quantizer;
  std::vector<IvfPartition> parts(static_cast<size_t>(built->num_partitions()));
  if (index_type == "IVF_PQ") {
    std::vector<float> codebook(pq->codebook().begin(), pq->codebook().end());
    if (half) RoundToHalf(std::span(codebook));
    LANCEDB_ASSIGN_OR_RETURN(
        auto lance_pq,
        ProductQuantizer::Make(dim, pq->num_sub_vectors(), pq->num_bits(), pq->metric(),
                               pq->use_residual(), std::move(codebook)));
    for (int64_t p = 0; p < built->num_partitions(); ++p) {
      IvfPartition* from = built->mutable_partition(p);
      const auto& s = static_cast<const PqStorage&>(*from->storage);
      parts[p].storage = std::make_unique<LancePqStorage>(
          lance_pq.get(), ToLanceCodes(s.codes(), pq->num_sub_vectors(), pq->num_bits()),
          from->row_ids.size(), std::span<const float>(centroids).subspan(p * dim, dim), half);
    }
    quantizer = std::move(lance_pq);
  } else if (index_type == "IVF_SQ") {
    if (half) RoundFlatToHalf(built.get(), metric);
    auto [lo, hi] = ValueRange(*built);
    auto sq = std::make_unique<LanceScalarQuantizer>(dim, metric, lo, hi);
    for (int64_t p = 0; p < built->num_partitions(); ++p) {
      const auto& s = static_cast<const FlatStorage&>(*built->partition(p).storage);
      parts[p].storage =
          sq->Encode(s.vectors(), std::span<const float>(centroids).subspan(p * dim, dim));
    }
    quantizer = std::move(sq);
  } else if (index_type == "IVF_RQ") {
    if (dim % 8 != 0) {
      return Status::InvalidArgument(
          "Invalid input, vector dimension must be divisible by 8 for IVF_RQ");
    }
    // A seed of its own for the rotation, derived from the build's.
    const uint64_t rotation_seed = Rng::ResolveSeed(seed) ^ 0x52615269745125ULL;
    auto rq = std::make_unique<LanceRabitQuantizer>(dim, dim, rq_num_bits, metric,
                                                    LanceFastRotationSigns(dim, rotation_seed));
    // On a float16 column the (normalized) rows and the centroids are float16 values, as Lance
    // keeps them. Partitions encode independently (the same bytes whatever the number of threads).
    if (half) RoundFlatToHalf(built.get(), metric);
    ParallelFor(built->num_partitions(), DefaultNumThreads(), [&](int64_t p) {
      const auto& s = static_cast<const FlatStorage&>(*built->partition(p).storage);
      parts[p].storage =
          rq->Encode(s.vectors(), std::span<const float>(centroids).subspan(p * dim, dim));
    });
    quantizer = std::move(rq);
  } else {
    const DistanceType flat_metric = LanceFlatMetric(built->distance_type(), half);
    if (half) RoundFlatToHalf(built.get(), flat_metric);
    for (int64_t p = 0; p < built->num_partitions(); ++p) {
      parts[p].storage = std::move(built->mutable_partition(p)->storage);
    }
    quantizer = std::make_unique<FlatQuantizer>(dim, flat_metric);
  }
  for (int64_t p = 0; p < built->num_partitions(); ++p) {
    parts[p].row_ids = std::move(built->mutable_partition(p)->row_ids);
    if (hnsw) {
      parts[p].sub_index = std::move(built->mutable_partition(p)->sub_index);
    } else {
      parts[p].sub_index = std::make_unique<FlatSubIndex>();
    }
  }
  IvfSearchStyle style = LanceSearchStyle(index_type == "IVF_FLAT", built->distance_type(), half);
  style.double_precision = element_type == array::TypeId::kFloat64;
  style.dot_as_found = index_type == "IVF_RQ";  // the RQ estimate, as LanceDB reports it
  return std::make_unique<IvfIndex>(
      dim, built->distance_type(), std::move(centroids), std::move(quantizer),
      hnsw ? SubIndexType::kHnsw : SubIndexType::kFlat, std::move(parts), style);
}

Result<std::unique_ptr<PartitionStorage>> ConcatLanceStorage(const Quantizer& q,
                                                             const PartitionStorage& a,
                                                             const PartitionStorage& b,
                                                             std::span<const float> centroid) {
  const auto* pq = dynamic_cast<const ProductQuantizer*>(&q);
  const auto* lpa = dynamic_cast<const LancePqStorage*>(&a);
  const auto* pb = dynamic_cast<const PqStorage*>(&b);
  if (pq != nullptr && lpa != nullptr && pb != nullptr) {
    const auto ra = static_cast<size_t>(lpa->num_rows());
    const auto rb = static_cast<size_t>(pb->num_rows());
    const size_t width = LanceCodeWidth(*pq);
    const std::vector<uint8_t> added =
        ToLanceCodes(pb->codes(), pq->num_sub_vectors(), pq->num_bits());
    std::vector<uint8_t> codes;
    codes.reserve((ra + rb) * width);
    for (size_t c = 0; c < width; ++c) {  // column-major: byte c of every row, then c + 1
      codes.insert(codes.end(), lpa->codes().begin() + c * ra, lpa->codes().begin() + (c + 1) * ra);
      codes.insert(codes.end(), added.begin() + c * rb, added.begin() + (c + 1) * rb);
    }
    return std::unique_ptr<PartitionStorage>(std::make_unique<LancePqStorage>(
        pq, std::move(codes), ra + rb, centroid, lpa->half_precision()));
  }
  const auto* sq = dynamic_cast<const LanceScalarQuantizer*>(&q);
  const auto* sa = dynamic_cast<const LanceSqStorage*>(&a);
  const auto* sb = dynamic_cast<const LanceSqStorage*>(&b);
  if (sq != nullptr && sa != nullptr && sb != nullptr) {
    std::vector<uint8_t> codes(sa->codes().begin(), sa->codes().end());
    codes.insert(codes.end(), sb->codes().begin(), sb->codes().end());
    return sq->FromCodes(std::move(codes));
  }
  const auto* ra = dynamic_cast<const LanceRqStorage*>(&a);
  const auto* rb = dynamic_cast<const LanceRqStorage*>(&b);
  if (ra != nullptr && rb != nullptr) {
    std::vector<size_t> all(static_cast<size_t>(ra->num_rows()));
    for (size_t r = 0; r < all.size(); ++r) all[r] = r;
    return std::unique_ptr<PartitionStorage>(ra->Select(all, rb));
  }
  return Status::NotSupported("Cannot extend this Lance partition storage");
}

namespace {

/// The rows `keep` (ascending local rows) of a Lance-form partition storage.
std::unique_ptr<PartitionStorage> KeepRows(const Quantizer& q, const PartitionStorage& storage,
                                           const std::vector<size_t>& keep,
                                           std::span<const float> centroid) {
  const auto n = static_cast<size_t>(storage.num_rows());
  if (const auto* f = dynamic_cast<const FlatStorage*>(&storage)) {
    std::vector<float> vectors;
    vectors.reserve(keep.size() * f->dim());
    for (size_t r : keep) vectors.insert(vectors.end(), f->row(r), f->row(r) + f->dim());
    return std::make_unique<FlatStorage>(std::move(vectors), f->dim(), f->metric());
  }
  if (const auto* p = dynamic_cast<const LancePqStorage*>(&storage)) {
    const size_t width = n == 0 ? 0 : p->codes().size() / n;
    std::vector<uint8_t> codes;
    codes.reserve(keep.size() * width);
    for (size_t c = 0; c < width; ++c) {  // column-major
      for (size_t r : keep) codes.push_back(p->codes()[c * n + r]);
    }
    return std::make_unique<LancePqStorage>(&p->pq(), std::move(codes), keep.size(), centroid,
                                            p->half_precision());
  }
  if (const auto* r = dynamic_cast<const LanceRqStorage*>(&storage)) {
    return r->Select(keep, nullptr);
  }
  const auto& sq = static_cast<const LanceScalarQuantizer&>(q);
  const auto& codes = static_cast<const LanceSqStorage&>(storage).codes();
  std::vector<uint8_t> kept;
  kept.reserve(keep.size() * sq.dim());
  for (size_t r : keep) {
    kept.insert(kept.end(), codes.begin() + r * sq.dim(), codes.begin() + (r + 1) * sq.dim());
  }
  return sq.FromCodes(std::move(kept));
}

}  // namespace

Status RemapLanceIvfIndex(IvfIndex* index,
                          const std::function<std::optional<uint64_t>(uint64_t)>& map) {
  if (LanceIvfTypeName(*index).empty()) {
    return Status::InvalidArgument(
        "The index is not in Lance form (IVF_FLAT, IVF_PQ, IVF_SQ, IVF_RQ, IVF_HNSW_*)");
  }
  const size_t dim = index->dim();
  const bool hnsw = index->sub_index_type() == SubIndexType::kHnsw;
  const HnswParams graph_params = LanceHnswBuildParams(*index, HnswParams{});
  for (int64_t p = 0; p < index->num_partitions(); ++p) {
    IvfPartition* part = index->mutable_partition(p);
    std::vector<size_t> keep;
    std::vector<uint64_t> ids;
    for (size_t r = 0; r < part->row_ids.size(); ++r) {
      if (auto moved = map(part->row_ids[r])) {
        keep.push_back(r);
        ids.push_back(*moved);
      }
    }
    if (keep.size() != part->row_ids.size()) {
      const auto centroid = index->centroids().subspan(p * dim, dim);
      part->storage = KeepRows(index->quantizer(), *part->storage, keep, centroid);
      if (hnsw) {  // as Lance: the graph is rebuilt over the rows kept, from their codes
        LANCEDB_ASSIGN_OR_RETURN(auto vectors,
                                 DecodeLanceStorage(index->quantizer(), *part->storage, centroid));
        HnswParams hp = graph_params;
        hp.seed ^= static_cast<uint64_t>(p);
        part->sub_index = BuildLanceHnsw(
            FlatStorage(std::move(vectors), dim, IndexMetric(index->distance_type())), hp);
      }
    }
    part->row_ids = std::move(ids);
  }
  return Status::OK();
}

Result<std::vector<IvfFile>> WriteLanceIvfIndexFiles(const io::FileSystemPtr& fs,
                                                     const std::string& dir, const IvfIndex& index,
                                                     array::TypeId element_type) {
  const std::string type = LanceIvfTypeName(index);
  if (type.empty()) {
    return Status::InvalidArgument(
        "The index is not in Lance form (IVF_FLAT, IVF_PQ, IVF_SQ, IVF_RQ, IVF_HNSW_*)");
  }
  LANCEDB_RETURN_NOT_OK(CheckElementType(index, type, element_type));
  std::vector<IvfFile> written;
  Status st = WriteAll(fs, dir, index, type, element_type, &written);
  if (!st.ok()) {
    (void)fs->DeleteDirRecursive(dir);
    return st;
  }
  return written;
}

}  // namespace lancedb::index::vector
