// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Product quantization: the vector is cut into num_sub_vectors (paper: M) slices of
// dim / num_sub_vectors values, each replaced by the index of the nearest of 2^num_bits
// centroids (paper: k*) of its slice's codebook, trained by k-means. Thread-safety: immutable
// after Train.

#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "index/vector/kmeans_kernels.h"
#include "index/vector/quantizer.h"

namespace lancedb::index::vector {

struct PqParams {
  size_t num_sub_vectors = 0;
  int num_bits = 8;  ///< 4 or 8
  int max_iterations = 50;
  int64_t sample_rate = 256;
  std::optional<uint64_t> seed;
  /// Sub-vectors train on this many threads at once (0: one per core); the codebook does not
  /// depend on it.
  int num_threads = 0;
};

class ProductQuantizer final : public Quantizer {
 public:
  /// Train the codebooks on `data` (already residuals when `use_residual`).
  /// `metric` is the index metric (kL2 or kDot). Layout: data (num_rows, dim).
  /// Errors: InvalidArgument when num_sub_vectors does not divide dim, num_bits is not 4 or 8,
  /// or there are fewer rows than 2^num_bits.
  static Result<std::unique_ptr<ProductQuantizer>> Train(std::span<const float> data, size_t dim,
                                                         DistanceType metric, bool use_residual,
                                                         const PqParams& params);
  /// Rebuild from persisted parameters. Layout: codebook (num_sub_vectors, 2^num_bits, sub_dim).
  static Result<std::unique_ptr<ProductQuantizer>> Make(size_t dim, size_t num_sub_vectors,
                                                        int num_bits, DistanceType metric,
                                                        bool use_residual,
                                                        std::vector<float> codebook);

  QuantizerType type() const override { return QuantizerType::kPq; }
  std::unique_ptr<PartitionStorage> Encode(std::span<const float> vectors,
                                           std::span<const float> centroid) const override;
  /// Encode into `codes`, one byte per sub-vector. Layout: codes (num_rows, num_sub_vectors).
  void EncodeCodes(std::span<const float> vectors, std::span<const float> centroid,
                   uint8_t* codes) const;
  /// Rebuild a partition's storage from persisted codes.
  std::unique_ptr<PartitionStorage> FromCodes(std::vector<uint8_t> codes,
                                              std::span<const float> centroid) const;

  size_t dim() const { return dim_; }
  size_t num_sub_vectors() const { return num_sub_vectors_; }
  size_t sub_dim() const { return dim_ / num_sub_vectors_; }
  int num_bits() const { return num_bits_; }
  size_t num_centroids() const { return size_t{1} << num_bits_; }
  DistanceType metric() const { return metric_; }
  bool use_residual() const { return use_residual_; }
  /// Layout: (num_sub_vectors, 2^num_bits, sub_dim).
  std::span<const float> codebook() const { return codebook_; }
  /// The codebook with each sub-vector's centroids side by side, for distance tables computed
  /// many centroids at a time. Layout: (num_sub_vectors, sub_dim, 2^num_bits).
  std::span<const float> codebook_by_dim() const { return codebook_by_dim_; }

  /// Fill the asymmetric-distance lookup table for `query` (residual already applied).
  /// Layout: lut (num_sub_vectors, 2^num_bits).
  void BuildLookupTable(const float* query, float* lut) const;

 private:
  ProductQuantizer(size_t dim, size_t m, int bits, DistanceType metric, bool residual,
                   std::vector<float> codebook)
      : dim_(dim),
        num_sub_vectors_(m),
        num_bits_(bits),
        metric_(metric),
        use_residual_(residual),
        codebook_(std::move(codebook)) {
    const int64_t k = int64_t{1} << bits;
    const size_t sub = dim / m;
    codebook_by_dim_.resize(codebook_.size());
    for (size_t s = 0; s < m; ++s) {
      encode_panels_.push_back(
          internal::MakeCentroidPanels(&codebook_[s * k * sub], k, sub, /*l2=*/true));
      for (size_t c = 0; c < static_cast<size_t>(k); ++c) {
        for (size_t j = 0; j < sub; ++j) {
          codebook_by_dim_[(s * sub + j) * k + c] = codebook_[(s * k + c) * sub + j];
        }
      }
    }
  }

  size_t dim_;
  size_t num_sub_vectors_;
  int num_bits_;
  DistanceType metric_;
  bool use_residual_;
  std::vector<float> codebook_;
  std::vector<float> codebook_by_dim_;
  /// Each sub-vector's codebook prepared for the nearest-centroid kernel of encoding.
  std::vector<internal::CentroidPanels> encode_panels_;
};

/// Return LanceDB's default num_sub_vectors for `dim`: dim/16 when divisible, else dim/8, else 1.
size_t DefaultNumSubVectors(size_t dim);

}  // namespace lancedb::index::vector
