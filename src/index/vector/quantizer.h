// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The two small interfaces IVF composes (Lance's Quantization / IvfSubIndex, FAISS's
// InvertedLists + quantizer): a Quantizer turns one partition's vectors into a
// PartitionStorage that computes (approximate) distances to a query, and a SubIndex (flat
// scan, HNSW) chooses which rows of a partition to score. Distances inside the index use the
// "index metric": squared L2 for l2 and cosine (vectors normalized first), negative inner
// product for dot. Thread-safety: storages and sub-indices are immutable after construction
// and safe to share; a DistanceComputer belongs to one thread.

#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "index/vector/distance.h"
#include "index/vector/flat_search.h"
#include "lancedb/status.h"

namespace lancedb::index::vector {

class LanceHeap;

/// Accepts a local row of the partition being searched (prefilter); null accepts all.
using RowPredicate = std::function<bool(int64_t row)>;

/// Quantization of the stored vectors. Values are persisted.
enum class QuantizerType : uint8_t { kFlat = 0, kPq = 1, kSq = 2, kRq = 3 };

/// Distances from one query to the rows of one partition.
class DistanceComputer {
 public:
  virtual ~DistanceComputer() = default;
  /// Return the distance to the partition's local row `row` (0-based, arrival order).
  virtual float Distance(int64_t row) const = 0;
  /// Write the distances to local rows [begin, begin + n) to `out` (a storage may scan a block
  /// of rows faster than row by row). Layout: out (n).
  virtual void Distances(int64_t begin, int64_t n, float* out) const {
    for (int64_t i = 0; i < n; ++i) out[i] = Distance(begin + i);
  }
  /// Write the distances to every row as LanceDB's unfiltered scan of the partition computes
  /// them for a search of `k` rows (its 4-bit PQ estimates most rows from a quantized table);
  /// false when that scan gives Distance's values. Layout: out (num_rows).
  virtual bool LanceScanAll(size_t k, float* out) const { return false; }
  /// Hint that Distance(row) will be asked soon: a storage may start loading the row.
  virtual void Prefetch(int64_t /*row*/) const {}
  /// True when OfferAsLance does the scan (the caller then computes no distances itself).
  virtual bool ScansIntoHeap() const { return false; }
  /// Offer the rows `accept` takes (all when null) to `heap`, the top-k shared by every
  /// partition of a search, as LanceDB's scan of the partition does, and return true (a
  /// storage whose scan consults that heap: multi-bit RaBitQ); false when the caller offers
  /// Distances' values itself. `in_range` and `below_upper` take the storage's distances;
  /// local row r has id row_ids[r].
  virtual bool OfferAsLance(const RowPredicate& accept, const std::function<bool(float)>& in_range,
                            const std::function<bool(float)>& below_upper,
                            std::span<const uint64_t> row_ids, LanceHeap& heap) const {
    return false;
  }
};

/// The encoded vectors of one partition, in arrival order.
class PartitionStorage {
 public:
  virtual ~PartitionStorage() = default;
  virtual int64_t num_rows() const = 0;
  /// Return a computer for `query`, given in original space (the storage subtracts its
  /// partition centroid itself when it encodes residuals). Layout: query (dim).
  virtual std::unique_ptr<DistanceComputer> QueryComputer(std::span<const float> query) const = 0;
};

/// Trained quantizer parameters (codebook, bounds, rotation); encodes partitions.
class Quantizer {
 public:
  virtual ~Quantizer() = default;
  virtual QuantizerType type() const = 0;
  /// Encode the rows of one partition. `centroid` is the partition's IVF centroid.
  /// Layout: vectors (num_rows, dim); centroid (dim).
  virtual std::unique_ptr<PartitionStorage> Encode(std::span<const float> vectors,
                                                   std::span<const float> centroid) const = 0;
};

struct SubIndexSearchParams {
  size_t k = 10;
  /// HNSW search breadth (ignored by the flat sub-index); 0: max(k, 1.5 * k).
  size_t ef = 0;
};

/// A search structure over one partition's rows.
class SubIndex {
 public:
  virtual ~SubIndex() = default;
  /// Push the best rows (local row numbers as row_id) into `out`.
  virtual void Search(const DistanceComputer& distances, int64_t num_rows,
                      const SubIndexSearchParams& params, const RowPredicate& accept,
                      TopK& out) const = 0;
};

/// The flat sub-index: scores every row.
class FlatSubIndex final : public SubIndex {
 public:
  void Search(const DistanceComputer& distances, int64_t num_rows,
              const SubIndexSearchParams& params, const RowPredicate& accept,
              TopK& out) const override {
    constexpr int64_t kBlock = 64;
    float d[kBlock];
    for (int64_t b = 0; b < num_rows; b += kBlock) {
      const int64_t n = std::min(kBlock, num_rows - b);
      distances.Distances(b, n, d);
      for (int64_t i = 0; i < n; ++i) {
        if (!(d[i] <= out.threshold()) || (accept && !accept(b + i))) continue;
        out.Push(d[i], static_cast<uint64_t>(b + i));
      }
    }
  }
};

/// Return the metric used inside the index for a user distance type (l2 for cosine).
inline DistanceType IndexMetric(DistanceType type) {
  return type == DistanceType::kCosine ? DistanceType::kL2 : type;
}

/// Convert an index-metric distance back to the user's metric (cosine: |a-b|^2/2 = 1-cos on
/// unit vectors).
inline float ToUserDistance(DistanceType type, float d) {
  return type == DistanceType::kCosine ? d * 0.5f : d;
}

}  // namespace lancedb::index::vector
