// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/ivf_extend.h"

#include "index/vector/flat_storage.h"
#include "index/vector/hnsw_builder.h"
#include "index/vector/kmeans.h"
#include "index/vector/lance_hnsw_write.h"
#include "index/vector/lance_ivf_write.h"
#include "index/vector/lance_pq_storage.h"
#include "index/vector/lance_rq_storage.h"
#include "index/vector/lance_sq_storage.h"
#include "index/vector/pq_storage.h"
#include "index/vector/rq_storage.h"
#include "index/vector/sq_builder.h"
#include "index/vector/sq_storage.h"

namespace lancedb::index::vector {
namespace {

/// Return a storage holding the rows of `a` followed by those of `b` (same type).
Result<std::unique_ptr<PartitionStorage>> Concat(const Quantizer& q, const PartitionStorage& a,
                                                 const PartitionStorage& b,
                                                 std::span<const float> centroid) {
  auto cat = [](auto x, auto y) {
    std::vector<std::remove_cvref_t<decltype(x[0])>> out(x.begin(), x.end());
    out.insert(out.end(), y.begin(), y.end());
    return out;
  };
  if (dynamic_cast<const LancePqStorage*>(&a) != nullptr ||
      dynamic_cast<const LanceSqStorage*>(&a) != nullptr ||
      dynamic_cast<const LanceRqStorage*>(&a) != nullptr) {
    return ConcatLanceStorage(q, a, b, centroid);  // the layout LanceDB builds
  }
  if (auto* fa = dynamic_cast<const FlatStorage*>(&a)) {
    auto& fb = dynamic_cast<const FlatStorage&>(b);
    return std::unique_ptr<PartitionStorage>(
        std::make_unique<FlatStorage>(cat(fa->vectors(), fb.vectors()), fa->dim(), fa->metric()));
  }
  if (auto* pa = dynamic_cast<const PqStorage*>(&a)) {
    auto& pb = dynamic_cast<const PqStorage&>(b);
    return static_cast<const ProductQuantizer&>(q).FromCodes(cat(pa->codes(), pb.codes()),
                                                             centroid);
  }
  if (auto* sa = dynamic_cast<const SqStorage*>(&a)) {
    auto& sb = dynamic_cast<const SqStorage&>(b);
    return static_cast<const ScalarQuantizer&>(q).FromCodes(cat(sa->codes(), sb.codes()));
  }
  if (auto* ra = dynamic_cast<const RqStorage*>(&a)) {
    auto& rb = dynamic_cast<const RqStorage&>(b);
    return static_cast<const RabitQuantizer&>(q).FromParts(
        cat(ra->codes(), rb.codes()), cat(ra->norms(), rb.norms()),
        cat(ra->factors(), rb.factors()), centroid);
  }
  return Status::NotSupported("Cannot extend this partition storage");
}

}  // namespace

Status ExtendIvfIndex(IvfIndex* index, std::span<const float> vectors,
                      std::span<const uint64_t> row_ids, const HnswParams& hnsw,
                      const PartitionVectors& existing) {
  const size_t dim = index->dim();
  const auto n = static_cast<int64_t>(row_ids.size());
  if (vectors.size() != row_ids.size() * dim) {
    return Status::InvalidArgument("ExtendIvfIndex: vectors and row ids disagree in length");
  }
  const bool cosine = index->distance_type() == DistanceType::kCosine;
  // Lance-form graphs are rebuilt alike: Lance's form, the parameters they were built with.
  const bool lance_graphs = index->style().as_lancedb;
  const HnswParams graph_params = lance_graphs ? LanceHnswBuildParams(*index, hnsw) : hnsw;
  std::vector<float> data(vectors.begin(), vectors.end());
  if (cosine) NormalizeRows(data.data(), n, dim);
  std::vector<uint32_t> assignment(n);
  DistanceType metric = IndexMetric(index->distance_type());
  AssignToCentroids(data.data(), n, index->centroids().data(), index->num_partitions(), dim, metric,
                    assignment.data(), nullptr);
  std::vector<std::vector<int64_t>> members(index->num_partitions());
  for (int64_t r = 0; r < n; ++r) members[assignment[r]].push_back(r);
  for (int64_t p = 0; p < index->num_partitions(); ++p) {
    if (members[p].empty()) continue;
    IvfPartition* part = index->mutable_partition(p);
    std::vector<float> all;
    if (index->sub_index_type() == SubIndexType::kHnsw) {
      LANCEDB_ASSIGN_OR_RETURN(all, existing(p));
      if (all.size() != part->row_ids.size() * dim) {
        return Status::Internal("ExtendIvfIndex: existing vectors of partition " +
                                std::to_string(p) + " have the wrong size");
      }
      if (cosine) NormalizeRows(all.data(), static_cast<int64_t>(all.size() / dim), dim);
    }
    std::vector<float> fresh(members[p].size() * dim);
    for (size_t i = 0; i < members[p].size(); ++i) {
      std::copy_n(&data[members[p][i] * dim], dim, &fresh[i * dim]);
      part->row_ids.push_back(row_ids[members[p][i]]);
    }
    std::span<const float> centroid = index->centroids().subspan(p * dim, dim);
    auto added = index->quantizer().Encode(fresh, centroid);
    LANCEDB_ASSIGN_OR_RETURN(part->storage,
                             Concat(index->quantizer(), *part->storage, *added, centroid));
    if (index->sub_index_type() == SubIndexType::kHnsw) {
      all.insert(all.end(), fresh.begin(), fresh.end());
      HnswParams hp = graph_params;
      hp.seed ^= static_cast<uint64_t>(p);
      FlatStorage exact(std::move(all), dim, metric);
      if (lance_graphs) {
        part->sub_index = BuildLanceHnsw(exact, hp);
      } else {
        part->sub_index = BuildHnsw(exact, hp);
      }
    }
  }
  return Status::OK();
}

}  // namespace lancedb::index::vector
