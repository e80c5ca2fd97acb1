// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "db/vector_search.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "array/bfloat16.h"
#include "array/c_bridge.h"
#include "array/half.h"
#include "common/bit_util.h"
#include "db/table_impl.h"
#include "db/vector_column_cache.h"
#include "expr/evaluator.h"
#include "index/vector_index.h"
#include "io/file_system.h"
#include "table/deletion.h"
#include "table/manifest.h"
#include "table/row_ids.h"
#include "table/stable_row_ids.h"

namespace lancedb::db {

namespace vec = index::vector;

namespace {

std::optional<vec::ElementType> VectorElementType(const array::DataType& type) {
  if (type.id() != array::TypeId::kFixedSizeList) return std::nullopt;
  if (array::IsBFloat16Field(*type.value_field())) return vec::ElementType::kBFloat16;
  switch (type.value_type()->id()) {
    case array::TypeId::kFloat16:
      return vec::ElementType::kFloat16;
    case array::TypeId::kFloat32:
      return vec::ElementType::kFloat32;
    case array::TypeId::kFloat64:
      return vec::ElementType::kFloat64;
    case array::TypeId::kUInt8:
      return vec::ElementType::kUInt8;
    default:
      return std::nullopt;
  }
}

/// The single vectors of a column: the column's type, or for a multivector column (a list of
/// fixed-size lists) its item type.
const array::DataType& SingleVectorType(const array::DataType& type, bool* multivector) {
  *multivector = (type.id() == array::TypeId::kList || type.id() == array::TypeId::kLargeList) &&
                 type.value_type()->id() == array::TypeId::kFixedSizeList;
  return *multivector ? *type.value_type() : type;
}

std::string ColumnList(const array::Schema& schema) {
  std::string out;
  for (const auto& f : schema.fields()) out += (out.empty() ? "" : ", ") + f->name();
  return out;
}

/// Pick the vector column: the named one, or the only one of the query's dimension.
Status ResolveColumn(const array::Schema& schema, const VectorQueryRequest& request,
                     size_t query_dim, VectorPlan* plan) {
  if (request.column) {
    const int i = schema.GetFieldIndex(*request.column);
    if (i < 0) {
      return Status::InvalidArgument("Column '" + *request.column +
                                     "' not found; columns are: " + ColumnList(schema));
    }
    bool multivector = false;
    const auto& type = SingleVectorType(*schema.field(i)->type(), &multivector);
    auto element = VectorElementType(type);
    if (!element) {
      return Status::InvalidArgument("Column '" + *request.column +
                                     "' is not a vector column (fixed_size_list of float16, "
                                     "bfloat16, float32, float64 or uint8, or a list of those: "
                                     "a multivector) but " +
                                     schema.field(i)->type()->ToString());
    }
    plan->multivector = multivector;
    plan->column = *request.column;
    plan->dim = static_cast<size_t>(type.fixed_size());
    plan->element_type = *element;
    return Status::OK();
  }
  std::vector<std::string> matching;
  std::string all;
  for (const auto& f : schema.fields()) {
    bool multivector = false;
    const auto& type = SingleVectorType(*f->type(), &multivector);
    auto element = VectorElementType(type);
    if (!element || (request.multivector && !multivector)) continue;
    // As LanceDB, which does not take bfloat16 columns for vector columns: named ones only.
    if (*element == vec::ElementType::kBFloat16) continue;
    all += (all.empty() ? "" : ", ") + f->name() + " (" + std::to_string(type.fixed_size()) +
           (multivector ? ", multivector" : "") + ")";
    if (static_cast<size_t>(type.fixed_size()) == query_dim) {
      matching.push_back(f->name());
      plan->column = f->name();
      plan->dim = query_dim;
      plan->element_type = *element;
      plan->multivector = multivector;
    }
  }
  if (matching.size() == 1) return Status::OK();
  if (matching.empty()) {
    return Status::InvalidArgument(
        "There is no vector column of dimension " + std::to_string(query_dim) +
        " in the table (vector columns: " + (all.empty() ? "none" : all) +
        "); please specify the vector column name for vector search");
  }
  std::string names;
  for (const auto& n : matching) names += (names.empty() ? "" : ", ") + n;
  return Status::InvalidArgument("Several vector columns have dimension " +
                                 std::to_string(query_dim) + " (" + names +
                                 "); please specify the vector column name for vector search");
}

Status CheckQueries(const VectorPlan& plan) {
  for (size_t q = 0; q < plan.queries.size(); ++q) {
    const auto& v = plan.queries[q];
    if (v.size() != plan.dim) {
      return Status::InvalidArgument("Query vector has dimension " + std::to_string(v.size()) +
                                     " but column '" + plan.column + "' has dimension " +
                                     std::to_string(plan.dim));
    }
    for (float x : v) {
      if (std::isnan(x)) return Status::InvalidArgument("Query vector contains NaN values");
      if (plan.element_type == vec::ElementType::kUInt8 &&
          (x < 0 || x > 255 || x != std::floor(x))) {
        return Status::InvalidArgument("Query vector for uint8 column '" + plan.column +
                                       "' must hold integers in [0, 255]");
      }
    }
  }
  return Status::OK();
}

}  // namespace

std::vector<uint8_t> EncodeQueries(const VectorPlan& plan) {
  const size_t width = vec::ElementSize(plan.element_type);
  std::vector<uint8_t> out(plan.queries.size() * plan.dim * width);
  for (size_t q = 0; q < plan.queries.size(); ++q) {
    uint8_t* dst = out.data() + q * plan.dim * width;
    for (size_t i = 0; i < plan.dim; ++i) {
      const float x = plan.queries[q][i];
      switch (plan.element_type) {
        case vec::ElementType::kFloat16: {
          uint16_t h = array::FloatToHalf(x);
          std::memcpy(dst + i * 2, &h, 2);
          break;
        }
        case vec::ElementType::kBFloat16: {
          uint16_t b = array::FloatToBFloat16(x);
          std::memcpy(dst + i * 2, &b, 2);
          break;
        }
        case vec::ElementType::kFloat32:
          std::memcpy(dst + i * 4, &x, 4);
          break;
        case vec::ElementType::kFloat64: {
          double d = x;
          std::memcpy(dst + i * 8, &d, 8);
          break;
        }
        case vec::ElementType::kUInt8:
          dst[i] = static_cast<uint8_t>(x);
          break;
      }
    }
  }
  return out;
}

namespace {

/// Vectors kept alive for a flat search: either views into decoded arrays or compacted copies.
struct ChunkSet {
  std::vector<array::ArrayPtr> arrays;
  std::vector<std::vector<uint8_t>> copies;
  std::vector<std::vector<uint64_t>> ids;
  std::vector<vec::VectorChunk> chunks;
};

/// Add the rows `keep` (all when null) of the vector array `vectors` to `set`.
void AddChunk(const array::ArrayPtr& vectors, const uint64_t* addresses,
              const std::vector<int64_t>* keep, size_t dim, vec::ElementType type, ChunkSet* set) {
  const auto& child = vectors->children[0];
  const size_t width = vec::ElementSize(type);
  const size_t row_bytes = dim * width;
  if (vectors->length == 0 || child->buffers.size() < 2 || !child->buffers[1]) return;
  const uint8_t* base =
      child->buffers[1]->data() +
      static_cast<size_t>(child->offset + vectors->offset * static_cast<int64_t>(dim)) * width;
  std::vector<int64_t> rows;
  if (keep) {
    rows = *keep;
  } else {
    rows.resize(static_cast<size_t>(vectors->length));
    for (int64_t i = 0; i < vectors->length; ++i) rows[static_cast<size_t>(i)] = i;
  }
  if (vectors->null_count > 0) {
    std::erase_if(rows, [&](int64_t r) { return vectors->IsNull(r); });
  }
  if (rows.empty()) return;
  vec::VectorChunk chunk;
  chunk.element_type = type;
  chunk.num_rows = static_cast<int64_t>(rows.size());
  std::vector<uint64_t> ids(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) ids[i] = addresses[rows[i]];
  if (static_cast<int64_t>(rows.size()) == vectors->length) {
    chunk.data = base;
    set->arrays.push_back(vectors);
  } else {
    std::vector<uint8_t> copy(rows.size() * row_bytes);
    for (size_t i = 0; i < rows.size(); ++i) {
      std::memcpy(copy.data() + i * row_bytes, base + rows[i] * static_cast<int64_t>(row_bytes),
                  row_bytes);
    }
    chunk.data = copy.data();
    set->copies.push_back(std::move(copy));
  }
  chunk.row_ids = ids.data();
  set->ids.push_back(std::move(ids));
  set->chunks.push_back(chunk);
}

/// Read `columns` (and `_rowid`) for `addresses`, in order.
Result<array::RecordBatchPtr> TakeRows(const VectorPlan& plan,
                                       const std::vector<uint64_t>& addresses,
                                       const std::set<std::string>& wanted) {
  LANCEDB_ASSIGN_OR_RETURN(auto row_ids, RowIdsOf(*plan.dataset, addresses));
  return TakeRowsWithIds(*plan.dataset, addresses, row_ids, wanted);
}

/// Add the live rows of every fragment accepted by `fragment_filter` to `set`, viewing the
/// resident vector columns in place (no copy): row ids are row addresses, the validity bitmap
/// clears deleted and null rows.
Status AddResidentChunks(const VectorPlan& plan,
                         const std::function<bool(uint64_t)>& fragment_filter, ChunkSet* set) {
  const table::Dataset& dataset = *plan.dataset;
  const format::LanceField* field = dataset.lance_schema().FindTopLevel(plan.column);
  if (field == nullptr) return Status::Internal("vector column lost from the schema");
  const size_t row_bytes = plan.dim * vec::ElementSize(plan.element_type);
  for (const auto& frag : dataset.manifest().proto().fragments()) {
    if (fragment_filter && !fragment_filter(frag.id())) continue;
    LANCEDB_ASSIGN_OR_RETURN(auto vectors, ResidentFragmentColumn(dataset, frag, field->id));
    if (!vectors || vectors->length == 0) continue;
    const auto& child = vectors->children[0];
    if (child->buffers.size() < 2 || !child->buffers[1]) continue;
    const int64_t rows = std::min<int64_t>(vectors->length, frag.physical_rows());
    std::vector<uint8_t> validity;
    if (vectors->null_count > 0 || frag.has_deletion_file()) {
      validity.assign(static_cast<size_t>(bit_util::BytesForBits(rows)), 0xff);
      for (int64_t r = 0; r < rows; ++r) {
        if (vectors->IsNull(r)) bit_util::ClearBit(validity.data(), r);
      }
      LANCEDB_ASSIGN_OR_RETURN(
          auto deleted,
          table::ReadDeletions(*dataset.fs(), dataset.path(), dataset.manifest().proto(), frag));
      for (uint32_t r : deleted) {
        if (r < rows) bit_util::ClearBit(validity.data(), r);
      }
    }
    vec::VectorChunk chunk;
    chunk.element_type = plan.element_type;
    chunk.data = child->buffers[1]->data() +
                 static_cast<size_t>(child->offset) * vec::ElementSize(plan.element_type) +
                 static_cast<size_t>(vectors->offset) * row_bytes;
    chunk.num_rows = rows;
    chunk.first_row_id = frag.id() << 32;
    if (!validity.empty()) {
      chunk.validity = validity.data();
      set->copies.push_back(std::move(validity));
    }
    set->arrays.push_back(std::move(vectors));
    set->chunks.push_back(chunk);
  }
  return Status::OK();
}

/// Add the rows of the fragments accepted by `fragment_filter` that pass the prefilter to
/// `set`, scanning the vector and filter columns.
Status ScanChunks(const VectorPlan& plan, const std::function<bool(uint64_t)>& fragment_filter,
                  ChunkSet* set) {
  if (plan.projection.index_filter) {
    // Scalar indices answer (part of) the filter: find the matching rows first, then read
    // the vectors of those rows only.
    LANCEDB_ASSIGN_OR_RETURN(auto addresses,
                             query::MatchingRowAddresses(plan.dataset, &*plan.projection.filter));
    if (fragment_filter) {
      std::erase_if(addresses, [&](uint64_t a) { return !fragment_filter(a >> 32); });
    }
    std::sort(addresses.begin(), addresses.end());
    constexpr size_t kTakeChunk = 65536;
    for (size_t start = 0; start < addresses.size(); start += kTakeChunk) {
      std::vector<uint64_t> chunk(addresses.begin() + static_cast<std::ptrdiff_t>(start),
                                  addresses.begin() + static_cast<std::ptrdiff_t>(std::min(
                                                          addresses.size(), start + kTakeChunk)));
      LANCEDB_ASSIGN_OR_RETURN(auto rows, plan.dataset->Take(chunk, {plan.column}));
      AddChunk(rows->column(0), chunk.data(), nullptr, plan.dim, plan.element_type, set);
    }
    return Status::OK();
  }
  std::set<std::string> columns{plan.column};
  for (const auto& c : plan.projection.filter->columns) {
    if (!expr::IsVirtualColumn(c)) columns.insert(c);
  }
  table::ScanOptions options;
  options.columns.assign(columns.begin(), columns.end());
  options.with_row_id = true;
  options.batch_size = 16384;
  LANCEDB_ASSIGN_OR_RETURN(auto scan, plan.dataset->Scan(options));
  const bool stable = table::UsesStableRowIds(*plan.dataset);
  while (true) {
    LANCEDB_ASSIGN_OR_RETURN(auto batch, scan->Next());
    if (!batch) break;
    auto vectors = batch->GetColumnByName(plan.column);
    auto ids = batch->GetColumnByName(expr::kRowIdColumn);
    if (!vectors || !ids) return Status::Internal("scan lost the vector column");
    const uint64_t* addresses = ids->GetValues<uint64_t>(1);
    std::vector<uint64_t> converted;
    if (stable) {
      // The scan's _rowid holds stable row ids; the search works on row addresses.
      LANCEDB_ASSIGN_OR_RETURN(
          converted, table::RowIdsToAddresses(
                         *plan.dataset, std::vector<uint64_t>(addresses, addresses + ids->length)));
      addresses = converted.data();
    }
    LANCEDB_ASSIGN_OR_RETURN(auto keep, expr::EvaluateFilter(*plan.projection.filter, *batch));
    if (fragment_filter) {
      std::erase_if(keep, [&](int64_t r) { return !fragment_filter(addresses[r] >> 32); });
    }
    AddChunk(vectors, addresses, &keep, plan.dim, plan.element_type, set);
  }
  return Status::OK();
}

/// Drop the neighbours whose rows fail the filter (postfilter).
Status PostFilter(const VectorPlan& plan, std::vector<std::vector<vec::Neighbor>>* neighbors) {
  const auto& filter = *plan.projection.filter;
  for (auto& list : *neighbors) {
    if (list.empty()) continue;
    std::vector<uint64_t> addresses;
    for (const auto& n : list) addresses.push_back(n.row_id);
    LANCEDB_ASSIGN_OR_RETURN(auto rows, TakeRows(plan, addresses, filter.columns));
    LANCEDB_ASSIGN_OR_RETURN(auto keep, expr::EvaluateFilter(filter, *rows));
    std::vector<vec::Neighbor> kept;
    for (int64_t i : keep) kept.push_back(list[static_cast<size_t>(i)]);
    list = std::move(kept);
  }
  return Status::OK();
}

}  // namespace

Result<array::RecordBatchPtr> TakeRowsWithIds(const table::Dataset& ds,
                                              const std::vector<uint64_t>& addresses,
                                              const std::vector<uint64_t>& row_ids,
                                              const std::set<std::string>& wanted) {
  std::vector<std::string> columns;
  for (const auto& c : wanted) {
    if (!expr::IsVirtualColumn(c)) columns.push_back(c);
  }
  if (columns.empty()) {
    // A cheap top-level column, read when no other column is needed.
    const auto& schema = *ds.schema();
    columns.push_back(schema.field(0)->name());
    for (const auto& f : schema.fields()) {
      if (!f->type()->is_nested()) {
        columns.back() = f->name();
        break;
      }
    }
  }
  LANCEDB_ASSIGN_OR_RETURN(auto taken, ds.Take(addresses, columns));
  auto fields = taken->schema()->fields();
  auto arrays = taken->columns();
  fields.push_back(array::field(expr::kRowIdColumn, array::uint64(), false));
  arrays.push_back(array::ArrayData::Make(array::uint64(), static_cast<int64_t>(row_ids.size()),
                                          {nullptr, Buffer::FromVector(row_ids)}));
  return array::RecordBatch::Make(array::schema(fields), arrays, taken->num_rows());
}

Result<query::QueryPlan> PlanRankedProjection(const table::DatasetPtr& dataset, QueryRequest base,
                                              std::string_view kind) {
  if (base.fragment_ids) {
    return Status::NotSupported("fragment_ids: restricting a " + std::string(kind) +
                                " search to fragments is not supported; it applies to plain "
                                "queries");
  }
  base.with_row_id = false;
  base.with_row_address = false;
  base.order_by.clear();
  base.limit.reset();
  base.offset = 0;
  base.take_offsets.reset();
  base.take_row_ids.reset();
  LANCEDB_ASSIGN_OR_RETURN(auto projection, query::PlanQuery(dataset, base));
  if (projection.filter && projection.filter->columns.count(expr::kRowOffsetColumn)) {
    return Status::NotSupported("_rowoffset is not supported in " + std::string(kind) +
                                " query filters");
  }
  return projection;
}

Result<VectorPlan> PlanVectorQuery(table::DatasetPtr dataset, const VectorQueryRequest& request) {
  VectorPlan plan;
  if (request.vectors.empty()) return Status::InvalidArgument("Vector query has no query vector");
  const array::Schema& schema = *dataset->schema();
  LANCEDB_RETURN_NOT_OK(ResolveColumn(schema, request, request.vectors[0].size(), &plan));
  if (request.multivector && !plan.multivector) {
    return Status::InvalidArgument(
        "The query is a multivector but column '" + plan.column + "' (" +
        schema.field(schema.GetFieldIndex(plan.column))->type()->ToString() +
        ") is not a multivector column; search it with one vector, or several as a batch");
  }
  plan.queries = request.vectors;
  LANCEDB_RETURN_NOT_OK(CheckQueries(plan));
  if (plan.element_type == vec::ElementType::kFloat16) {
    // The query takes the column's precision, as LanceDB casts it: flat and index searches
    // then see the same query, and an index on a float16 column answers as one on a float32
    // column holding the same values.
    for (auto& query : plan.queries) {
      std::vector<uint16_t> halves(query.size());
      array::FloatToHalf(std::span<const float>(query), std::span(halves));
      array::HalfToFloat(std::span<const uint16_t>(halves), std::span(query));
    }
  }
  if (plan.element_type == vec::ElementType::kBFloat16) {
    // Likewise on a bfloat16 column (which LanceDB does not search).
    for (auto& query : plan.queries) {
      for (float& x : query) x = array::BFloat16ToFloat(array::FloatToBFloat16(x));
    }
  }
  if (request.distance_type) {
    auto parsed = vec::ParseDistanceType(*request.distance_type);
    if (!parsed.ok()) {
      return Status::InvalidArgument("Invalid distance type '" + *request.distance_type +
                                     "'; must be one of l2, cosine, dot, or hamming");
    }
    plan.distance_type = *parsed;
    const bool is_u8 = plan.element_type == vec::ElementType::kUInt8;
    if ((*parsed == vec::DistanceType::kHamming) != is_u8) {
      return Status::InvalidArgument(
          "Distance type " + std::string(vec::DistanceTypeName(*parsed)) +
          " does not apply to column '" + plan.column + "' of type " +
          schema.GetFieldByName(plan.column).ValueUnsafe()->type()->ToString() +
          " (hamming is for uint8 vectors only, and uint8 vectors support only hamming)");
    }
  }
  if (request.base.limit && *request.base.limit < 0) {
    return Status::InvalidArgument("Limit must be non-negative");
  }
  if (request.base.offset < 0) return Status::InvalidArgument("Offset must be non-negative");
  if (request.lower_bound && request.upper_bound && *request.lower_bound > *request.upper_bound) {
    return Status::InvalidArgument("distance_range: the lower bound is above the upper bound");
  }
  if (request.maximum_nprobes && *request.maximum_nprobes != 0 &&
      *request.maximum_nprobes < request.minimum_nprobes) {
    return Status::InvalidArgument(
        "Invalid input, maximum_nprobes must be greater than or equal to minimum_nprobes");
  }
  if (request.minimum_nprobes == 0) {
    return Status::InvalidArgument("Invalid input, minimum_nprobes must be greater than 0");
  }
  if (request.refine_factor && *request.refine_factor == 0) {
    return Status::InvalidArgument("refine_factor must be positive");
  }
  plan.limit = request.base.limit && *request.base.limit > 0 ? *request.base.limit : 10;
  plan.offset = request.base.offset;
  LANCEDB_ASSIGN_OR_RETURN(plan.projection, PlanRankedProjection(dataset, request.base, "vector"));
  LANCEDB_ASSIGN_OR_RETURN(plan.order_by, query::BindOrdering(request.base.order_by, schema));
  // On a multivector column the vectors are one query (LanceDB's behaviour).
  plan.batch = request.vectors.size() > 1 && !plan.multivector;
  std::vector<array::FieldPtr> fields;
  if (plan.batch) fields.push_back(array::field("query_index", array::int32(), false));
  for (const auto& f : plan.projection.output_schema->fields()) fields.push_back(f);
  fields.push_back(array::field("_distance", array::float32()));
  if (request.base.with_row_id) {
    fields.push_back(array::field(expr::kRowIdColumn, array::uint64(), false));
  }
  if (request.base.with_row_address) {
    fields.push_back(array::field(query::kRowAddrColumn, array::uint64(), false));
  }
  plan.output_schema = array::schema(std::move(fields));
  plan.request = request;
  plan.dataset = std::move(dataset);
  return plan;
}

Result<std::vector<uint64_t>> RowIdsOf(const table::Dataset& dataset,
                                       const std::vector<uint64_t>& addresses) {
  if (!table::UsesStableRowIds(dataset)) return addresses;
  std::map<uint64_t, std::vector<uint64_t>> fragment_ids;
  for (uint64_t a : addresses) fragment_ids.emplace(a >> 32, std::vector<uint64_t>());
  for (const auto& frag : dataset.manifest().proto().fragments()) {
    auto it = fragment_ids.find(frag.id());
    if (it == fragment_ids.end()) continue;
    LANCEDB_ASSIGN_OR_RETURN(it->second,
                             table::FragmentRowIds(*dataset.fs(), dataset.path(), frag));
  }
  std::vector<uint64_t> out;
  out.reserve(addresses.size());
  for (uint64_t a : addresses) {
    const auto& ids = fragment_ids[a >> 32];
    const uint64_t offset = a & 0xFFFFFFFFu;
    if (offset >= ids.size()) return Status::Internal("row address outside its fragment");
    out.push_back(ids[offset]);
  }
  return out;
}

float ReportedDistanceShift(vec::DistanceType type) {
  return type == vec::DistanceType::kDot ? 1.0f : 0.0f;
}

vec::DistanceType FlatDistanceType(const VectorPlan& plan) {
  if (plan.distance_type) return *plan.distance_type;
  return plan.element_type == vec::ElementType::kUInt8 ? vec::DistanceType::kHamming
                                                       : vec::DistanceType::kL2;
}

Result<std::vector<std::vector<vec::Neighbor>>> FlatNeighbors(
    const VectorPlan& plan, size_t k, vec::DistanceType distance_type,
    const std::function<bool(uint64_t)>& fragment_filter) {
  ChunkSet set;
  if (plan.request.prefilter && plan.projection.filter) {
    LANCEDB_RETURN_NOT_OK(ScanChunks(plan, fragment_filter, &set));
  } else {
    LANCEDB_RETURN_NOT_OK(AddResidentChunks(plan, fragment_filter, &set));
  }
  std::vector<std::vector<vec::Neighbor>> out(plan.queries.size());
  if (set.chunks.empty() || k == 0) return out;
  const auto queries = EncodeQueries(plan);
  vec::FlatSearchOptions search;
  search.k = k;
  search.distance_type = distance_type;
  // Bounds are given in reported units; the kernels work in their own (see ReportedDistanceShift).
  const float shift = ReportedDistanceShift(distance_type);
  if (plan.request.lower_bound) search.lower_bound = *plan.request.lower_bound - shift;
  if (plan.request.upper_bound) search.upper_bound = *plan.request.upper_bound - shift;
  return vec::FlatSearchBatch(set.chunks, plan.dim, queries.data(),
                              static_cast<int64_t>(plan.queries.size()), search);
}

Result<std::unique_ptr<array::RecordBatchReader>> ExecuteVectorPlan(const VectorPlan& plan) {
  const size_t k = static_cast<size_t>(plan.limit + plan.offset);
  LANCEDB_ASSIGN_OR_RETURN(auto neighbors, FindNeighbors(plan, k));
  if (!plan.request.prefilter && plan.projection.filter) {
    LANCEDB_RETURN_NOT_OK(PostFilter(plan, &neighbors));
  }
  std::vector<int32_t> query_index;
  std::vector<uint64_t> addresses;
  std::vector<float> distances;
  for (size_t q = 0; q < neighbors.size(); ++q) {
    auto& list = neighbors[q];
    if (!plan.order_by.empty()) {
      // The ordering applies to the limit + offset nearest rows, then offset and limit.
      std::vector<uint64_t> rows;
      for (const auto& n : list) rows.push_back(n.row_id);
      LANCEDB_ASSIGN_OR_RETURN(auto order,
                               query::OrderRowsAt(*plan.dataset, rows, plan.order_by, -1));
      std::vector<vec::Neighbor> ordered;
      for (int64_t i : order) ordered.push_back(list[static_cast<size_t>(i)]);
      list = std::move(ordered);
    }
    const size_t begin = std::min(list.size(), static_cast<size_t>(plan.offset));
    const size_t end = std::min(list.size(), begin + static_cast<size_t>(plan.limit));
    for (size_t i = begin; i < end; ++i) {
      query_index.push_back(static_cast<int32_t>(q));
      addresses.push_back(list[i].row_id);
      distances.push_back(list[i].distance);
    }
  }
  std::set<std::string> wanted;
  for (const auto& o : plan.projection.outputs) wanted.insert(o.columns.begin(), o.columns.end());
  std::vector<array::RecordBatchPtr> batches;
  const int64_t n = static_cast<int64_t>(addresses.size());
  if (n > 0) {
    LANCEDB_ASSIGN_OR_RETURN(auto rows, TakeRows(plan, addresses, wanted));
    std::vector<array::ArrayPtr> columns;
    if (plan.batch) {
      columns.push_back(
          array::ArrayData::Make(array::int32(), n, {nullptr, Buffer::FromVector(query_index)}));
    }
    for (const auto& out : plan.projection.outputs) {
      LANCEDB_ASSIGN_OR_RETURN(auto col, expr::Evaluate(out, *rows));
      columns.push_back(std::move(col));
    }
    columns.push_back(
        array::ArrayData::Make(array::float32(), n, {nullptr, Buffer::FromVector(distances)}));
    if (plan.request.base.with_row_id) columns.push_back(rows->GetColumnByName(expr::kRowIdColumn));
    if (plan.request.base.with_row_address) {
      columns.push_back(
          array::ArrayData::Make(array::uint64(), n, {nullptr, Buffer::FromVector(addresses)}));
    }
    LANCEDB_ASSIGN_OR_RETURN(auto all,
                             array::RecordBatch::Make(plan.output_schema, std::move(columns), n));
    const int64_t step = std::max<int64_t>(plan.request.base.max_batch_length, 1);
    for (int64_t start = 0; start < n; start += step) {
      batches.push_back(all->Slice(start, std::min(step, n - start)));
    }
  }
  return array::MakeVectorReader(plan.output_schema, std::move(batches));
}

Result<std::string> ExplainVectorPlan(const VectorPlan& plan, bool verbose) {
  const auto& r = plan.request;
  std::vector<std::shared_ptr<const index::VectorIndex>> segments;
  if (!r.bypass_vector_index) {
    LANCEDB_ASSIGN_OR_RETURN(segments, index::LoadVectorIndices(*plan.dataset, plan.column));
    if (!segments.empty() && plan.distance_type &&
        *plan.distance_type != segments[0]->ivf().distance_type()) {
      segments.clear();  // the index's distance differs: searched flat
    }
  }
  std::string out;
  std::string indent;
  auto line = [&](const std::string& text) {
    out += indent + text + "\n";
    indent += "  ";
  };
  std::string outputs;
  for (size_t i = 0; i < plan.projection.outputs.size(); ++i) {
    outputs += (i ? ", " : "") + plan.projection.output_names[i];
  }
  if (verbose)
    line("ProjectionExec: expr=[" + outputs + (outputs.empty() ? "" : ", ") + "_distance]");
  if (plan.limit > 0 || plan.offset > 0) {
    line("GlobalLimitExec: skip=" + std::to_string(plan.offset) +
         ", fetch=" + std::to_string(plan.limit));
  }
  // The rows' other columns are taken by row id, as LanceDB's LanceRead of a row-id stream.
  const std::string data_uri = io::JoinPath(plan.dataset->path(), "data");
  line("LanceRead: uri=" + data_uri + ", projection=[" + outputs + "], source=stream(_rowid)");
  if (!plan.order_by.empty()) {
    line("SortExec: TopK(fetch=" + std::to_string(plan.limit + plan.offset) + "), expr=[" +
         query::OrderingText(plan.order_by) + "]");
  }
  const bool postfilter = !r.prefilter && plan.projection.filter;
  if (postfilter) line("FilterExec: " + plan.projection.filter->sql);
  const int64_t k = plan.limit + plan.offset;
  line("SortExec: TopK(fetch=" + std::to_string(k) +
       "), expr=[_distance ASC NULLS LAST, _rowid ASC NULLS LAST]");
  if (plan.multivector && !segments.empty()) {
    // One index search per query vector, combined by late-interaction scoring.
    line("MultivectorScoring: k=" + std::to_string(k) +
         ", query_vectors=" + std::to_string(plan.queries.size()));
  }
  const std::string base = indent;
  const vec::DistanceType distance =
      segments.empty() ? FlatDistanceType(plan) : segments[0]->ivf().distance_type();
  std::string metric(vec::DistanceTypeName(distance));
  for (auto& c : metric) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::set<uint64_t> covered;
  for (const auto& s : segments) covered.insert(s->fragment_ids().begin(), s->fragment_ids().end());
  const auto& fragments = plan.dataset->manifest().proto().fragments();
  int uncovered = 0;
  for (const auto& f : fragments) uncovered += covered.count(f.id()) ? 0 : 1;
  if (!segments.empty()) {
    const size_t max_probes = r.maximum_nprobes.value_or(r.minimum_nprobes);
    const int64_t ann_k = plan.multivector ? k * 10 : k;
    out += base + "ANNSubIndex: name=" + segments[0]->name() + ", k=" + std::to_string(ann_k) +
           ", deltas=" + std::to_string(segments.size()) + ", metric=" + metric + "\n";
    out += base + "  ANNIvfPartition: uuid=" + segments[0]->uuid() +
           ", minimum_nprobes=" + std::to_string(r.minimum_nprobes) + ", maximum_nprobes=" +
           (max_probes == 0 ? std::string("None") : "Some(" + std::to_string(max_probes) + ")") +
           ", deltas=" + std::to_string(segments.size()) + "\n";
    if (r.refine_factor) {
      out += base + "  Refine: factor=" + std::to_string(*r.refine_factor) + "\n";
    }
  }
  if (segments.empty() || (uncovered > 0 && !r.fast_search)) {
    // The flat search, metric lower-cased as LanceDB prints it; with an index, over a scan of
    // the fragments the index does not cover (LanceDB's LanceScan).
    std::string flat_metric(vec::DistanceTypeName(distance));
    out += base + "KNNVectorDistance: metric=" + flat_metric + ", fragments=" +
           std::to_string(segments.empty() ? fragments.size() : static_cast<size_t>(uncovered)) +
           (segments.empty() ? "" : " (not covered by the index)") + "\n";
    if (!segments.empty()) {
      out += base + "  LanceScan: uri=" + data_uri + ", projection=[" + plan.column +
             "], row_id=true, row_addr=false, ordered=false, range=None\n";
    }
  }
  if (r.prefilter && plan.projection.filter) {
    // The prefilter's rows come from the plain-query plan of the filter.
    query::QueryPlan filter_plan = plan.projection;
    filter_plan.outputs.clear();
    filter_plan.output_names.clear();
    filter_plan.late_columns.clear();
    filter_plan.scan_columns.assign(plan.projection.filter->columns.begin(),
                                    plan.projection.filter->columns.end());
    filter_plan.with_row_id = true;
    filter_plan.limit = -1;
    filter_plan.offset = 0;
    std::string sub = query::ExplainPlan(filter_plan, /*verbose=*/false);
    size_t pos = 0;
    while (pos < sub.size()) {
      size_t end = sub.find('\n', pos);
      if (end == std::string::npos) end = sub.size();
      out += base + sub.substr(pos, end - pos) + "\n";
      pos = end + 1;
    }
  }
  return out;
}

Status LocalTable::ExecuteVectorQuery(const VectorQueryRequest& request,
                                      ArrowArrayStream* out) const {
  if (out == nullptr) return Status::InvalidArgument("ExecuteVectorQuery needs an output stream");
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  LANCEDB_ASSIGN_OR_RETURN(auto plan, PlanVectorQuery(ds, request));
  LANCEDB_ASSIGN_OR_RETURN(auto reader, ExecuteVectorPlan(plan));
  return array::ExportRecordBatchReader(std::move(reader), out);
}

Result<std::string> LocalTable::ExplainVectorQuery(const VectorQueryRequest& request,
                                                   bool verbose) const {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  LANCEDB_ASSIGN_OR_RETURN(auto plan, PlanVectorQuery(ds, request));
  return ExplainVectorPlan(plan, verbose);
}

Result<std::string> LocalTable::AnalyzeVectorQuery(const VectorQueryRequest& request) const {
  const auto start = std::chrono::steady_clock::now();
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  LANCEDB_ASSIGN_OR_RETURN(auto plan, PlanVectorQuery(ds, request));
  LANCEDB_ASSIGN_OR_RETURN(std::string text, ExplainVectorPlan(plan, /*verbose=*/true));
  LANCEDB_ASSIGN_OR_RETURN(auto reader, ExecuteVectorPlan(plan));
  int64_t rows = 0;
  while (true) {
    LANCEDB_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (!batch) break;
    rows += batch->num_rows();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return query::AnalyzeText(text, "output_rows=" + std::to_string(rows), seconds);
}

Status LocalTable::VectorQuerySchema(const VectorQueryRequest& request, ArrowSchema* out) const {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  LANCEDB_ASSIGN_OR_RETURN(auto plan, PlanVectorQuery(ds, request));
  return array::ExportSchema(*plan.output_schema, out);
}

}  // namespace lancedb::db
