// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Building and registering vector indices (vector_index.h).

#include <roaring/roaring.h>

#include <chrono>
#include <optional>
#include <random>
#include <unordered_set>

#include "array/bfloat16.h"
#include "array/half.h"
#include "index/index_details.h"
#include "index/proto/lance_vector_index.pb.h"
#include "index/proto/vector_index.pb.h"
#include "index/vector/distance.h"
#include "index/vector/lance_hnsw_graph.h"
#include "index/vector/lance_ivf_read.h"
#include "index/vector/lance_ivf_write.h"
#include "index/vector/lance_rq_storage.h"
#include "index/vector_index_internal.h"
#include "table/commit.h"
#include "table/create_index_op.h"
#include "table/manifest.h"
#include "table/row_ids.h"
#include "table/stable_row_ids.h"

namespace lancedb::index {
namespace {

namespace pb = table::pb;
using vector::QuantizerType;
using vector::SubIndexType;

void SetQuantizerAndSubIndex(VectorIndexType type, vector::IvfBuildParams* p) {
  switch (type) {
    case VectorIndexType::kIvfFlat:
    case VectorIndexType::kIvfHnswFlat:
      p->quantizer = QuantizerType::kFlat;
      break;
    case VectorIndexType::kIvfPq:
    case VectorIndexType::kIvfHnswPq:
      p->quantizer = QuantizerType::kPq;
      break;
    case VectorIndexType::kIvfSq:
    case VectorIndexType::kIvfHnswSq:
      p->quantizer = QuantizerType::kSq;
      break;
    case VectorIndexType::kIvfRq:
      p->quantizer = QuantizerType::kRq;
      break;
  }
  bool hnsw = type == VectorIndexType::kIvfHnswFlat || type == VectorIndexType::kIvfHnswPq ||
              type == VectorIndexType::kIvfHnswSq;
  p->sub_index = hnsw ? SubIndexType::kHnsw : SubIndexType::kFlat;
}

/// The vector column's dimension and element type; InvalidArgument otherwise.
Result<size_t> VectorColumnDim(const table::Dataset& dataset, const std::string& column) {
  const array::Schema& schema = *dataset.schema();
  int i = schema.GetFieldIndex(column);
  if (i < 0) {
    std::string names;
    for (const auto& f : schema.fields()) names += (names.empty() ? "" : ", ") + f->name();
    return Status::InvalidArgument("Column '" + column + "' not found; columns are: " + names);
  }
  const auto& type = schema.field(i)->type();
  if (IsMultivectorType(*type)) return static_cast<size_t>(type->value_type()->fixed_size());
  // uint8 vectors are binary: indexed with hamming distance only (CheckElementMetric).
  // bfloat16 ones (which LanceDB does not index) are indexed in lancedb-cpp's own layout.
  bool ok =
      type->id() == array::TypeId::kFixedSizeList &&
      (type->value_type()->is_floating() || type->value_type()->id() == array::TypeId::kUInt8 ||
       array::IsBFloat16Field(*type->value_field()));
  if (!ok) {
    return Status::InvalidArgument("Column '" + column + "' of type " + type->ToString() +
                                   " is not a vector column (fixed_size_list of float16, "
                                   "bfloat16, float32, float64 or, for hamming, uint8, or a list "
                                   "of float vectors: a multivector); a vector index needs one");
  }
  return static_cast<size_t>(type->fixed_size());
}

/// uint8 vectors take hamming distance and hamming takes uint8 vectors (as LanceDB).
Status CheckElementMetric(const table::Dataset& dataset, const std::string& column,
                          vector::DistanceType distance_type) {
  const auto& type = dataset.schema()->GetFieldByName(column).ValueUnsafe()->type();
  const bool u8 = type->value_type()->id() == array::TypeId::kUInt8;
  if (u8 && distance_type != vector::DistanceType::kHamming) {
    return Status::InvalidArgument(
        "Unsupported data type UInt8 with distance type " +
        std::string(vector::DistanceTypeName(distance_type)) + ": column '" + column +
        "' holds uint8 vectors, which are indexed with distance type hamming only");
  }
  if (!u8 && distance_type == vector::DistanceType::kHamming) {
    return Status::InvalidArgument(
        "Distance type hamming needs uint8 vectors "
        "(fixed_size_list<uint8>); column '" +
        column + "' is " + type->ToString());
  }
  return Status::OK();
}

lancedb_cpp::VectorIndexDetails Details(const vector::IvfIndex& ivf,
                                        const vector::IvfFileParams& fp) {
  lancedb_cpp::VectorIndexDetails d;
  d.set_metric_type(static_cast<uint32_t>(ivf.distance_type()));
  d.set_index_type(fp.index_type);
  d.set_num_partitions(static_cast<uint64_t>(ivf.num_partitions()));
  d.set_dimension(static_cast<uint32_t>(ivf.dim()));
  if (auto* pq = dynamic_cast<const vector::ProductQuantizer*>(&ivf.quantizer())) {
    d.set_num_sub_vectors(static_cast<uint32_t>(pq->num_sub_vectors()));
    d.set_num_bits(static_cast<uint32_t>(pq->num_bits()));
  } else if (ivf.quantizer().type() == QuantizerType::kRq) {
    d.set_num_bits(1);
  }
  if (ivf.sub_index_type() == SubIndexType::kHnsw) {
    d.set_m(static_cast<uint32_t>(fp.m));
    d.set_ef_construction(static_cast<uint32_t>(fp.ef_construction));
  }
  if (fp.seed) d.set_seed(*fp.seed);
  d.set_format_version(vector::kIvfFormatVersion);
  return d;
}

/// Lance's details of a Lance-form index of type `type` (IVF_FLAT, IVF_PQ, IVF_SQ,
/// IVF_HNSW_*), as LanceDB records them (without its build hints; IVF_HNSW_FLAT without a
/// compression, as LanceDB).
lance::index::pb::VectorIndexDetails LanceDetails(const vector::IvfIndex& ivf,
                                                  const std::string& type) {
  using LanceMetric = lance::index::pb::VectorIndexDetails::MetricType;
  lance::index::pb::VectorIndexDetails d;
  d.set_metric_type(static_cast<LanceMetric>(ivf.distance_type()));
  if (type.starts_with("IVF_HNSW_")) {
    for (int64_t p = 0; p < ivf.num_partitions(); ++p) {
      const auto* g = dynamic_cast<const vector::LanceHnswGraph*>(ivf.partition(p).sub_index.get());
      if (g == nullptr || g->num_nodes() == 0) continue;
      auto* h = d.mutable_hnsw_index_config();
      h->set_max_connections(static_cast<uint32_t>(g->params().m));
      h->set_construction_ef(static_cast<uint32_t>(g->params().ef_construction));
      h->set_max_level(static_cast<uint32_t>(g->params().max_level));
      break;
    }
    if (type == "IVF_HNSW_FLAT") return d;
  }
  if (type == "IVF_RQ") {
    const auto& rq = static_cast<const vector::LanceRabitQuantizer&>(ivf.quantizer());
    d.mutable_rq()->set_num_bits(static_cast<uint32_t>(rq.num_bits()));
    d.mutable_rq()->set_rotation_type(
        lance::index::pb::VectorIndexDetails::RabitQuantization::FAST);
  } else if (type.ends_with("_PQ")) {
    const auto& pq = static_cast<const vector::ProductQuantizer&>(ivf.quantizer());
    d.mutable_pq()->set_num_bits(static_cast<uint32_t>(pq.num_bits()));
    d.mutable_pq()->set_num_sub_vectors(static_cast<uint32_t>(pq.num_sub_vectors()));
  } else if (type.ends_with("_SQ")) {
    d.mutable_sq()->set_num_bits(8);
  } else {
    d.mutable_flat();
  }
  return d;
}

/// Whether `config` on a column of `column_type` is written in Lance's layout: every type, on
/// every vector column Lance indexes, unless the own layout is asked for.
bool UseLanceLayout(const VectorIndexConfig& config, const array::DataType& column_type) {
  return !config.own_layout && LanceIndexElementType(column_type) != array::TypeId::kNull;
}

}  // namespace

array::TypeId LanceIndexElementType(const array::DataType& column_type) {
  if (IsMultivectorType(column_type)) {
    // A multivector index holds the row's vectors one by one, as a vector column's (float16 /
    // float32 / float64: IsMultivectorType admits no others).
    return column_type.value_type()->value_type()->id();
  }
  if (column_type.id() != array::TypeId::kFixedSizeList) return array::TypeId::kNull;
  switch (column_type.value_type()->id()) {
    case array::TypeId::kFloat16:
    case array::TypeId::kFloat32:
    case array::TypeId::kFloat64:
    case array::TypeId::kUInt8:
      return column_type.value_type()->id();
    default:
      return array::TypeId::kNull;
  }
}

array::TypeId VectorElementType(const table::Dataset& dataset, int32_t field_id) {
  const std::string column = FieldName(dataset, field_id);
  const int i = column.empty() ? -1 : dataset.schema()->GetFieldIndex(column);
  if (i < 0) return array::TypeId::kNull;
  return LanceIndexElementType(*dataset.schema()->field(i)->type());
}

bool IsMultivectorType(const array::DataType& type) {
  if (type.id() != array::TypeId::kList && type.id() != array::TypeId::kLargeList) return false;
  const auto& inner = type.value_type();
  return inner->id() == array::TypeId::kFixedSizeList && inner->value_type()->is_floating() &&
         !array::IsBFloat16Field(*inner->value_field());
}

void AppendVectorAsFloats(const array::ArrayData& child, int64_t start, size_t dim,
                          std::vector<float>* out) {
  switch (child.type->id()) {
    case array::TypeId::kFloat32: {
      const float* v = child.GetValues<float>(1) + start;
      out->insert(out->end(), v, v + dim);
      break;
    }
    case array::TypeId::kFloat64: {
      const double* v = child.GetValues<double>(1) + start;
      for (size_t j = 0; j < dim; ++j) out->push_back(static_cast<float>(v[j]));
      break;
    }
    case array::TypeId::kUInt8: {
      // Binary vectors: one byte per float (binary_vectors.h).
      const uint8_t* v = child.GetValues<uint8_t>(1) + start;
      for (size_t j = 0; j < dim; ++j) out->push_back(static_cast<float>(v[j]));
      break;
    }
    case array::TypeId::kFixedSizeBinary: {
      // bfloat16 (VectorColumnDim admits no other fixed_size_binary elements).
      const uint16_t* v = child.GetValues<uint16_t>(1) + start;
      for (size_t j = 0; j < dim; ++j) out->push_back(array::BFloat16ToFloat(v[j]));
      break;
    }
    default: {
      const uint16_t* v = child.GetValues<uint16_t>(1) + start;
      const size_t at = out->size();
      out->resize(at + dim);
      array::HalfToFloat(std::span(v, dim), std::span(*out).subspan(at));
      break;
    }
  }
}

uint64_t NowMillis() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

std::string IndexDir(const table::Dataset& dataset, const std::string& uuid) {
  return io::JoinPath(io::JoinPath(dataset.path(), "_indices"), uuid);
}

std::string IndexDir(const table::Dataset& dataset, const table::pb::IndexMetadata& index) {
  auto dir = table::IndexDirPath(dataset.manifest().proto(), dataset.path(), index);
  return dir.ok() ? *dir : IndexDir(dataset, table::IndexUuidString(index));
}

NewIndexUuid MakeIndexUuid() {
  static thread_local std::mt19937_64 rng(std::random_device{}() ^
                                          static_cast<uint64_t>(NowMillis()) << 20);
  NewIndexUuid out;
  for (int i = 0; i < 2; ++i) {
    uint64_t v = rng();
    for (int b = 0; b < 8; ++b) out.bytes.push_back(static_cast<char>(v >> (8 * b)));
  }
  out.bytes[6] = static_cast<char>((out.bytes[6] & 0x0F) | 0x40);  // version 4
  out.bytes[8] = static_cast<char>((out.bytes[8] & 0x3F) | 0x80);  // variant 10
  pb::IndexMetadata tmp;
  tmp.mutable_uuid()->set_uuid(out.bytes);
  out.text = table::IndexUuidString(tmp);
  return out;
}

std::string EncodeFragmentBitmap(const std::vector<uint64_t>& fragment_ids) {
  roaring_bitmap_t* r = roaring_bitmap_create();
  for (uint64_t id : fragment_ids) roaring_bitmap_add(r, static_cast<uint32_t>(id));
  roaring_bitmap_run_optimize(r);
  std::string out(roaring_bitmap_portable_size_in_bytes(r), '\0');
  roaring_bitmap_portable_serialize(r, out.data());
  roaring_bitmap_free(r);
  return out;
}

Result<std::vector<uint64_t>> DecodeFragmentBitmap(const std::string& bytes) {
  if (bytes.empty()) return std::vector<uint64_t>();
  roaring_bitmap_t* r = roaring_bitmap_portable_deserialize_safe(bytes.data(), bytes.size());
  if (r == nullptr) return Status::Corruption("Index fragment_bitmap is not a roaring bitmap");
  std::vector<uint32_t> ids(roaring_bitmap_get_cardinality(r));
  roaring_bitmap_to_uint32_array(r, ids.data());
  roaring_bitmap_free(r);
  return std::vector<uint64_t>(ids.begin(), ids.end());
}

std::string FieldName(const table::Dataset& dataset, int32_t field_id) {
  const auto* f = dataset.lance_schema().FindById(field_id);
  if (f == nullptr) return std::string();
  std::string path = f->name;  // a struct member is named by its dotted path ("s.a")
  for (int32_t parent = f->parent_id; parent != -1;) {
    const auto* p = dataset.lance_schema().FindById(parent);
    if (p == nullptr) break;
    path = p->name + "." + path;
    parent = p->parent_id;
  }
  return path;
}

Result<vector::IvfBuildParams> ResolveVectorIndexParams(const VectorIndexConfig& c, size_t dim,
                                                        int64_t num_rows) {
  if (c.seed && c.accelerator) {
    return Status::InvalidArgument("seed is not supported with accelerator-based index training");
  }
  vector::IvfBuildParams p;
  LANCEDB_ASSIGN_OR_RETURN(p.distance_type, vector::ParseDistanceType(c.distance_type));
  SetQuantizerAndSubIndex(c.index_type, &p);
  if (p.distance_type == vector::DistanceType::kHamming && p.quantizer != QuantizerType::kFlat) {
    return Status::NotSupported(
        "Distance type hamming (uint8 vectors) is indexed by IVF_FLAT and "
        "IVF_HNSW_FLAT only, not by " +
        std::string(VectorIndexTypeName(c.index_type)) +
        " (as LanceDB, whose quantizers reject UInt8 data)");
  }
  if (c.num_partitions && *c.num_partitions <= 0) {
    return Status::InvalidArgument("num_partitions must be positive");
  }
  if (c.target_partition_size && *c.target_partition_size <= 0) {
    return Status::InvalidArgument("target_partition_size must be positive");
  }
  p.target_partition_size = c.target_partition_size.value_or(0);
  p.num_partitions =
      c.num_partitions.value_or(vector::DefaultNumPartitions(num_rows, p.target_partition_size));
  if (p.num_partitions > num_rows) {
    return Status::InvalidArgument("num_partitions (" + std::to_string(p.num_partitions) +
                                   ") exceeds the number of rows (" + std::to_string(num_rows) +
                                   ") of the column to index");
  }
  if (c.max_iterations <= 0) return Status::InvalidArgument("max_iterations must be positive");
  if (c.sample_rate <= 0) return Status::InvalidArgument("sample_rate must be positive");
  p.max_iterations = c.max_iterations;
  p.sample_rate = c.sample_rate;
  p.seed = c.seed;
  if (p.quantizer == QuantizerType::kPq) {
    if (c.num_sub_vectors && *c.num_sub_vectors <= 0) {
      return Status::InvalidArgument("num_sub_vectors must be positive");
    }
    p.num_bits = c.num_bits.value_or(8);
    if (p.num_bits != 4 && p.num_bits != 8) {
      return Status::InvalidArgument("num_bits must be 4 or 8 for PQ, got " +
                                     std::to_string(p.num_bits));
    }
    p.num_sub_vectors = c.num_sub_vectors ? static_cast<size_t>(*c.num_sub_vectors)
                                          : vector::DefaultNumSubVectors(dim);
    // 4-bit codes are stored two to a byte: Lance rounds an odd default up and refuses an odd
    // choice.
    if (p.num_bits == 4 && p.num_sub_vectors % 2 != 0) {
      if (c.num_sub_vectors) {
        return Status::InvalidArgument(
            "PQ: num_sub_vectors must be divisible by 2 for num_bits=4, but got " +
            std::to_string(p.num_sub_vectors));
      }
      ++p.num_sub_vectors;
    }
    if (dim % p.num_sub_vectors != 0) {
      return Status::InvalidArgument("num_sub_vectors (" + std::to_string(p.num_sub_vectors) +
                                     ") must divide the vector dimension (" + std::to_string(dim) +
                                     ")");
    }
    if (num_rows < (int64_t{1} << p.num_bits)) {
      return Status::InvalidArgument("PQ training needs at least " +
                                     std::to_string(1 << p.num_bits) + " rows, the column has " +
                                     std::to_string(num_rows));
    }
  } else if (p.quantizer == QuantizerType::kRq) {
    p.num_bits = c.num_bits.value_or(1);
    if (p.num_bits < 1 || p.num_bits > 9) {
      return Status::InvalidArgument("Invalid input, IVF_RQ num_bits must be in 1..=9, got " +
                                     std::to_string(p.num_bits));
    }
  }
  if (p.sub_index == SubIndexType::kHnsw) {
    if (c.m < 2 || c.m > 512) return Status::InvalidArgument("HNSW m must be in [2, 512]");
    if (c.ef_construction <= 0) return Status::InvalidArgument("ef_construction must be positive");
    p.m = static_cast<size_t>(c.m);
    p.ef_construction = static_cast<size_t>(c.ef_construction);
  }
  return p;
}

Status ReadVectorColumn(const table::Dataset& dataset, const std::string& column,
                        const std::function<bool(uint64_t)>& fragment_filter, size_t* dim,
                        std::vector<float>* vectors, std::vector<uint64_t>* row_addresses) {
  LANCEDB_ASSIGN_OR_RETURN(*dim, VectorColumnDim(dataset, column));
  const array::Schema& schema = *dataset.schema();
  const bool multivector = IsMultivectorType(*schema.field(schema.GetFieldIndex(column))->type());
  table::ScanOptions opts;
  opts.columns = {column};
  opts.with_row_id = true;
  LANCEDB_ASSIGN_OR_RETURN(auto reader, dataset.Scan(opts));
  // With stable row ids (§3) `_rowid` holds stable ids, which the index stores as they are;
  // the fragment filter then applies through the ids of the accepted fragments.
  std::optional<std::unordered_set<uint64_t>> accepted_ids;
  if (fragment_filter && table::UsesStableRowIds(dataset)) {
    accepted_ids.emplace();
    for (const auto& frag : dataset.manifest().proto().fragments()) {
      if (!fragment_filter(frag.id())) continue;
      LANCEDB_ASSIGN_OR_RETURN(auto ids,
                               table::FragmentRowIds(*dataset.fs(), dataset.path(), frag));
      accepted_ids->insert(ids.begin(), ids.end());
    }
  }
  while (true) {
    LANCEDB_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (batch == nullptr) break;
    auto vec = batch->GetColumnByName(column);
    auto ids = batch->GetColumnByName("_rowid");
    if (vec == nullptr || ids == nullptr) return Status::Internal("scan lost the vector column");
    const uint64_t* addr = ids->GetValues<uint64_t>(1);
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      if (vec->IsNull(r)) continue;
      if (accepted_ids ? accepted_ids->count(addr[r]) == 0
                       : fragment_filter && !fragment_filter(addr[r] >> 32)) {
        continue;
      }
      auto [start, end] = vec->GetListRange(r);
      if (multivector) {
        // Every vector of the row, under the row's address.
        const array::ArrayData& inner = *vec->children[0];
        for (int64_t j = start; j < end; ++j) {
          if (inner.IsNull(j)) continue;
          AppendVectorAsFloats(*inner.children[0], inner.GetListRange(j).first, *dim, vectors);
          row_addresses->push_back(addr[r]);
        }
        continue;
      }
      AppendVectorAsFloats(*vec->children[0], start, *dim, vectors);
      row_addresses->push_back(addr[r]);
    }
  }
  return Status::OK();
}

Result<table::DatasetPtr> CommitVectorIndex(const table::DatasetPtr& dataset,
                                            const vector::IvfIndex& ivf,
                                            const vector::IvfFileParams& file_params,
                                            const std::string& name, int32_t field_id,
                                            const std::vector<uint64_t>& fragments,
                                            std::vector<pb::IndexMetadata> removed, bool replace) {
  NewIndexUuid uuid = MakeIndexUuid();
  const std::string dir = IndexDir(*dataset, uuid.text);
  const std::string lance_type = vector::LanceIvfTypeName(ivf);
  const bool lance = !lance_type.empty();
  LANCEDB_ASSIGN_OR_RETURN(
      auto files, lance ? vector::WriteLanceIvfIndexFiles(dataset->fs(), dir, ivf,
                                                          VectorElementType(*dataset, field_id))
                        : vector::WriteIvfIndexFiles(dataset->fs(), dir, ivf, file_params));
  pb::IndexMetadata meta;
  meta.mutable_uuid()->set_uuid(uuid.bytes);
  meta.add_fields(field_id);
  meta.set_name(name);
  meta.set_dataset_version(dataset->version());
  meta.set_fragment_bitmap(EncodeFragmentBitmap(fragments));
  if (lance) {
    meta.mutable_index_details()->set_type_url(kLanceVectorIndexTypeUrl);
    meta.mutable_index_details()->set_value(LanceDetails(ivf, lance_type).SerializeAsString());
  } else {
    meta.mutable_index_details()->set_type_url(kVectorIndexTypeUrl);
    meta.mutable_index_details()->set_value(Details(ivf, file_params).SerializeAsString());
  }
  // LanceDB records IVF_RQ indices with index_version 2, the other vector types with 1.
  meta.set_index_version(lance_type == "IVF_RQ" ? 2 : kVectorIndexVersion);
  meta.set_created_at(NowMillis());
  for (const auto& f : files) {
    auto* file = meta.add_files();
    file->set_path(f.name);
    file->set_size_bytes(static_cast<uint64_t>(f.size_bytes));
  }
  table::CreateIndexOperation op({meta}, std::move(removed), replace);
  auto committed = table::CommitOperation(dataset, &op);
  if (!committed.ok()) (void)dataset->fs()->DeleteDirRecursive(dir);
  return committed;
}

Result<std::optional<pb::IndexMetadata>> RemapVectorIndex(
    const table::Dataset& read, const pb::IndexMetadata& meta,
    const std::function<std::optional<uint64_t>(uint64_t)>& map,
    const std::vector<uint64_t>& new_fragments) {
  const std::string column = meta.fields_size() == 1 ? FieldName(read, meta.fields(0)) : "";
  const int i = column.empty() ? -1 : read.schema()->GetFieldIndex(column);
  if (meta.index_details().type_url() != kLanceVectorIndexTypeUrl || i < 0) {
    return std::optional<pb::IndexMetadata>();
  }
  const array::TypeId element_type = LanceIndexElementType(*read.schema()->field(i)->type());
  if (element_type == array::TypeId::kNull) return std::optional<pb::IndexMetadata>();
  auto loaded = vector::ReadLanceIvfIndexFiles(read.fs(), IndexDir(read, meta), nullptr);
  if (loaded.status().IsNotSupported()) return std::optional<pb::IndexMetadata>();
  LANCEDB_ASSIGN_OR_RETURN(auto ivf, std::move(loaded));
  if (vector::LanceIvfTypeName(*ivf).empty()) return std::optional<pb::IndexMetadata>();
  LANCEDB_RETURN_NOT_OK(vector::RemapLanceIvfIndex(ivf.get(), map));
  NewIndexUuid uuid = MakeIndexUuid();
  const std::string dir = IndexDir(read, uuid.text);
  LANCEDB_ASSIGN_OR_RETURN(auto files,
                           vector::WriteLanceIvfIndexFiles(read.fs(), dir, *ivf, element_type));
  pb::IndexMetadata out = meta;
  out.mutable_uuid()->set_uuid(uuid.bytes);
  out.set_fragment_bitmap(EncodeFragmentBitmap(new_fragments));
  out.clear_files();
  for (const auto& f : files) {
    auto* file = out.add_files();
    file->set_path(f.name);
    file->set_size_bytes(static_cast<uint64_t>(f.size_bytes));
  }
  return std::optional<pb::IndexMetadata>(std::move(out));
}

Result<table::DatasetPtr> CreateVectorIndex(const table::DatasetPtr& dataset,
                                            const std::string& column,
                                            const VectorIndexConfig& config,
                                            const CreateIndexOptions& options) {
  const std::string name = options.name.empty() ? column + "_idx" : options.name;
  if (!options.replace) {
    for (const auto& m : dataset->manifest().index_section().indices()) {
      if (m.name() == name) {
        return Status::AlreadyExists("Index name '" + name +
                                     "' already exists, please specify a different name or use "
                                     "replace=True");
      }
    }
  }
  LANCEDB_ASSIGN_OR_RETURN(size_t dim, VectorColumnDim(*dataset, column));
  // Validate what can be validated before reading any data.
  const array::Schema& schema = *dataset->schema();
  if (IsMultivectorType(*schema.field(schema.GetFieldIndex(column))->type())) {
    auto distance = vector::ParseDistanceType(config.distance_type);
    if (distance.ok() && *distance != vector::DistanceType::kCosine) {
      // As LanceDB: the candidates of a multivector search are scored by cosine similarity.
      return Status::InvalidArgument("Build Vector Index: multivector column '" + column +
                                     "' supports only cosine distance, got " +
                                     config.distance_type);
    }
  }
  if (config.seed && config.accelerator) {
    return Status::InvalidArgument("seed is not supported with accelerator-based index training");
  }
  LANCEDB_ASSIGN_OR_RETURN(auto checked, ResolveVectorIndexParams(config, dim, INT64_MAX / 2));
  LANCEDB_RETURN_NOT_OK(CheckElementMetric(*dataset, column, checked.distance_type));
  std::vector<float> vectors;
  std::vector<uint64_t> rows;
  LANCEDB_RETURN_NOT_OK(ReadVectorColumn(*dataset, column, nullptr, &dim, &vectors, &rows));
  if (rows.empty()) {
    return Status::InvalidArgument("Cannot train a vector index on column '" + column +
                                   "': it has no non-null rows");
  }
  LANCEDB_ASSIGN_OR_RETURN(
      auto params, ResolveVectorIndexParams(config, dim, static_cast<int64_t>(rows.size())));
  params.progress = options.progress;
  const std::string type_name(VectorIndexTypeName(config.index_type));
  const auto& column_type = *schema.field(schema.GetFieldIndex(column))->type();
  const bool lance = UseLanceLayout(config, column_type);
  if (!lance && params.quantizer == QuantizerType::kRq && params.num_bits != 1) {
    return Status::InvalidArgument(
        "IVF_RQ in lancedb-cpp's own layout (own_layout, or a bfloat16 column, which LanceDB "
        "does not index) supports "
        "num_bits=1 only, got " +
        std::to_string(params.num_bits));
  }
  // Lance's IVF_RQ encodes the stored vectors with its own rotation (ToLanceIvfIndex).
  if (lance && config.index_type == VectorIndexType::kIvfRq) {
    if (dim % 8 != 0) {  // as LanceDB, before training
      return Status::InvalidArgument(
          "Invalid input, vector dimension must be divisible by 8 for IVF_RQ");
    }
    params.quantizer = QuantizerType::kFlat;
  }
  // Lance's IVF_SQ codes every dimension with one range: trained on the stored vectors.
  if (lance && (config.index_type == VectorIndexType::kIvfSq ||
                config.index_type == VectorIndexType::kIvfHnswSq)) {
    params.quantizer = QuantizerType::kFlat;
  }
  params.lance_hnsw = lance;
  LANCEDB_ASSIGN_OR_RETURN(auto ivf, vector::BuildIvfIndex(vectors, rows, dim, params));
  // The index holds its own copy of what it needs: the column's vectors go before the files
  // are written (which copy the index's vectors once more for an IVF_FLAT).
  std::vector<float>().swap(vectors);
  std::vector<uint64_t>().swap(rows);
  if (lance) {
    LANCEDB_ASSIGN_OR_RETURN(
        ivf, vector::ToLanceIvfIndex(std::move(ivf), type_name, LanceIndexElementType(column_type),
                                     params.num_bits, config.seed));
  }
  vector::IvfFileParams fp{type_name, config.seed, params.m, params.ef_construction};
  std::vector<uint64_t> fragments;
  for (const auto& frag : dataset->manifest().proto().fragments()) fragments.push_back(frag.id());
  const auto* field = dataset->lance_schema().FindTopLevel(column);
  return CommitVectorIndex(dataset, *ivf, fp, name, field->id, fragments, {}, options.replace);
}

}  // namespace lancedb::index
