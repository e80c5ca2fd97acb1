// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/pq_builder.h"

#include <cstring>
#include <limits>

#include "index/vector/kmeans.h"
#include "index/vector/pq_storage.h"
#include "index/vector/random.h"

namespace lancedb::index::vector {

size_t DefaultNumSubVectors(size_t dim) {
  if (dim % 16 == 0) return dim / 16;
  if (dim % 8 == 0) return dim / 8;
  return 1;
}

Result<std::unique_ptr<ProductQuantizer>> ProductQuantizer::Make(size_t dim, size_t num_sub_vectors,
                                                                 int num_bits, DistanceType metric,
                                                                 bool use_residual,
                                                                 std::vector<float> codebook) {
  if (num_sub_vectors == 0 || dim % num_sub_vectors != 0) {
    return Status::InvalidArgument("num_sub_vectors (" + std::to_string(num_sub_vectors) +
                                   ") must divide the vector dimension (" + std::to_string(dim) +
                                   ")");
  }
  if (num_bits != 4 && num_bits != 8) {
    return Status::InvalidArgument("num_bits must be 4 or 8, got " + std::to_string(num_bits));
  }
  if (codebook.size() != (size_t{1} << num_bits) * dim) {
    return Status::Corruption("PQ codebook has " + std::to_string(codebook.size()) +
                              " values; expected " + std::to_string((size_t{1} << num_bits) * dim));
  }
  return std::unique_ptr<ProductQuantizer>(new ProductQuantizer(
      dim, num_sub_vectors, num_bits, metric, use_residual, std::move(codebook)));
}

Result<std::unique_ptr<ProductQuantizer>> ProductQuantizer::Train(std::span<const float> data,
                                                                  size_t dim, DistanceType metric,
                                                                  bool use_residual,
                                                                  const PqParams& params) {
  size_t m = params.num_sub_vectors;
  LANCEDB_RETURN_NOT_OK(Make(dim, m, params.num_bits, metric, use_residual,
                             std::vector<float>((size_t{1} << params.num_bits) * dim))
                            .status());
  int64_t n = static_cast<int64_t>(data.size() / dim);
  int64_t k = int64_t{1} << params.num_bits;
  if (n < k) {
    return Status::InvalidArgument("PQ training needs at least " + std::to_string(k) +
                                   " rows (2^num_bits); got " + std::to_string(n));
  }
  Rng rng(Rng::ResolveSeed(params.seed));
  size_t sub_dim = dim / m;
  std::vector<float> codebook(static_cast<size_t>(k) * dim);
  std::vector<float> slice(static_cast<size_t>(n) * sub_dim);
  for (size_t s = 0; s < m; ++s) {
    for (int64_t r = 0; r < n; ++r) {
      std::memcpy(&slice[r * sub_dim], &data[r * dim + s * sub_dim], sub_dim * sizeof(float));
    }
    KMeansParams kp;
    kp.num_clusters = k;
    kp.max_iterations = params.max_iterations;
    kp.sample_rate = params.sample_rate;
    kp.distance_type = DistanceType::kL2;
    kp.seed = rng.Next();
    LANCEDB_ASSIGN_OR_RETURN(KMeansResult km, TrainKMeans(slice, sub_dim, kp));
    std::memcpy(&codebook[s * k * sub_dim], km.centroids.data(), km.centroids.size() * 4);
  }
  return Make(dim, m, params.num_bits, metric, use_residual, std::move(codebook));
}

void ProductQuantizer::EncodeCodes(std::span<const float> vectors, std::span<const float> centroid,
                                   uint8_t* codes) const {
  size_t n = vectors.size() / dim_;
  size_t sub = sub_dim();
  size_t k = num_centroids();
  // Codebook transposed per sub-vector, so that the distances from one sub-vector to all k
  // centroids are a loop over contiguous lanes. Layout: (num_sub_vectors, sub_dim, k).
  std::vector<float> transposed(num_sub_vectors_ * sub * k);
  for (size_t s = 0; s < num_sub_vectors_; ++s) {
    for (size_t c = 0; c < k; ++c) {
      for (size_t j = 0; j < sub; ++j) {
        transposed[(s * sub + j) * k + c] = codebook_[(s * k + c) * sub + j];
      }
    }
  }
  std::vector<float> residual(dim_);
  std::vector<float> dist(k);
  for (size_t r = 0; r < n; ++r) {
    const float* x = &vectors[r * dim_];
    if (use_residual_) {
      for (size_t j = 0; j < dim_; ++j) residual[j] = x[j] - centroid[j];
      x = residual.data();
    }
    for (size_t s = 0; s < num_sub_vectors_; ++s) {
      std::fill(dist.begin(), dist.end(), 0.0f);
      for (size_t j = 0; j < sub; ++j) {
        const float xj = x[s * sub + j];
        const float* lane = &transposed[(s * sub + j) * k];
        for (size_t c = 0; c < k; ++c) {
          const float d = xj - lane[c];
          dist[c] += d * d;
        }
      }
      // The first centroid of least distance, as a scan in centroid order picks.
      size_t best_c = 0;
      for (size_t c = 1; c < k; ++c) {
        if (dist[c] < dist[best_c]) best_c = c;
      }
      codes[r * num_sub_vectors_ + s] = static_cast<uint8_t>(best_c);
    }
  }
}

std::unique_ptr<PartitionStorage> ProductQuantizer::Encode(std::span<const float> vectors,
                                                           std::span<const float> centroid) const {
  std::vector<uint8_t> codes(vectors.size() / dim_ * num_sub_vectors_);
  EncodeCodes(vectors, centroid, codes.data());
  return FromCodes(std::move(codes), centroid);
}

std::unique_ptr<PartitionStorage> ProductQuantizer::FromCodes(
    std::vector<uint8_t> codes, std::span<const float> centroid) const {
  return std::make_unique<PqStorage>(this, std::move(codes), centroid);
}

void ProductQuantizer::BuildLookupTable(const float* query, float* lut) const {
  size_t sub = sub_dim();
  size_t k = num_centroids();
  for (size_t s = 0; s < num_sub_vectors_; ++s) {
    const float* book = &codebook_[s * k * sub];
    const float* q = query + s * sub;
    for (size_t c = 0; c < k; ++c) {
      lut[s * k + c] =
          metric_ == DistanceType::kDot ? -Dot(q, book + c * sub, sub) : L2(q, book + c * sub, sub);
    }
  }
}

}  // namespace lancedb::index::vector
