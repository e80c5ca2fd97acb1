// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// FLAT "quantization": a partition's float32 vectors as they are. Also the exact storage HNSW
// graphs are built on. Row offsets are 64-bit: a partition may hold more than 2^31 bytes.
// Thread-safety: immutable.

#pragma once

#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "index/vector/binary_vectors.h"
#include "index/vector/quantizer.h"

namespace lancedb::index::vector {

class FlatStorage final : public PartitionStorage {
 public:
  /// Layout: vectors (num_rows, dim). `metric` is kL2, kDot or kHamming (the index metric;
  /// hamming vectors carry one byte per float, binary_vectors.h, and are kept packed too), or
  /// kCosine (1 - cos: LanceDB's FLAT storage of a cosine index on a float16 column, whose
  /// normalized rows are not quite unit vectors).
  FlatStorage(std::vector<float> vectors, size_t dim, DistanceType metric)
      : owned_(std::move(vectors)), vectors_(owned_), dim_(dim), metric_(metric) {
    Pack();
  }
  /// View vectors owned elsewhere; they must outlive the storage. Layout: (num_rows, dim).
  static FlatStorage View(std::span<const float> vectors, size_t dim, DistanceType metric) {
    return FlatStorage(vectors, dim, metric);
  }
  FlatStorage(FlatStorage&&) = default;

  int64_t num_rows() const override { return static_cast<int64_t>(vectors_.size() / dim_); }
  size_t dim() const { return dim_; }
  DistanceType metric() const { return metric_; }
  /// Layout: (num_rows, dim).
  std::span<const float> vectors() const { return vectors_; }
  const float* row(int64_t r) const { return vectors_.data() + static_cast<size_t>(r) * dim_; }

  float Distance(const float* query, int64_t r) const {
    if (metric_ == DistanceType::kHamming) {
      return HammingToByteFloats(&packed_[static_cast<size_t>(r) * dim_], query, dim_);
    }
    if (metric_ == DistanceType::kCosine) {
      return vector::Distance(DistanceType::kCosine, query, row(r), dim_);
    }
    return metric_ == DistanceType::kDot ? -Dot(query, row(r), dim_) : L2(query, row(r), dim_);
  }

  std::unique_ptr<DistanceComputer> QueryComputer(std::span<const float> query) const override {
    return std::make_unique<Computer>(this, query);
  }

 private:
  class Computer final : public DistanceComputer {
   public:
    Computer(const FlatStorage* s, std::span<const float> q) : s_(s), q_(q.begin(), q.end()) {
      if (s->metric_ == DistanceType::kHamming) q_packed_ = PackByteFloats(q.data(), q.size());
    }
    float Distance(int64_t row) const override {
      if (!q_packed_.empty()) {
        return static_cast<float>(
            Hamming(q_packed_.data(), &s_->packed_[static_cast<size_t>(row) * s_->dim_], s_->dim_));
      }
      return s_->Distance(q_.data(), row);
    }
    void Prefetch(int64_t row) const override {
      if (!q_packed_.empty()) return;
      const auto* bytes = reinterpret_cast<const char*>(s_->row(row));
      for (size_t at = 0; at < s_->dim_ * sizeof(float); at += 64) __builtin_prefetch(bytes + at);
    }

   private:
    const FlatStorage* s_;
    std::vector<float> q_;
    std::vector<uint8_t> q_packed_;  // hamming: the query's bytes
  };

  FlatStorage(std::span<const float> view, size_t dim, DistanceType metric)
      : vectors_(view), dim_(dim), metric_(metric) {
    Pack();
  }

  void Pack() {
    if (metric_ == DistanceType::kHamming)
      packed_ = PackByteFloats(vectors_.data(), vectors_.size());
  }

  std::vector<float> owned_;
  std::span<const float> vectors_;  // owned_ or external memory
  size_t dim_;
  DistanceType metric_;
  std::vector<uint8_t> packed_;  // hamming: the rows' bytes, (num_rows, dim)
};

/// The FLAT quantizer: stores vectors unchanged.
class FlatQuantizer final : public Quantizer {
 public:
  FlatQuantizer(size_t dim, DistanceType metric) : dim_(dim), metric_(metric) {}
  QuantizerType type() const override { return QuantizerType::kFlat; }
  std::unique_ptr<PartitionStorage> Encode(std::span<const float> vectors,
                                           std::span<const float> centroid) const override {
    return std::make_unique<FlatStorage>(std::vector<float>(vectors.begin(), vectors.end()), dim_,
                                         metric_);
  }

 private:
  size_t dim_;
  DistanceType metric_;
};

}  // namespace lancedb::index::vector
