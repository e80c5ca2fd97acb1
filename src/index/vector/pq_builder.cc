// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/pq_builder.h"

#include <cstring>
#include <limits>

#include "index/vector/kmeans.h"
#include "index/vector/parallel.h"
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
  std::vector<uint64_t> seeds(m);
  for (uint64_t& s : seeds) s = rng.Next();
  std::vector<float> codebook(static_cast<size_t>(k) * dim);
  std::vector<Status> errors(m);
  // One sub-vector per task, each k-means on one thread: 8-dimensional sub-spaces are too
  // small a job to split further.
  int threads = params.num_threads > 0 ? params.num_threads : DefaultNumThreads();
  ParallelFor(static_cast<int64_t>(m), threads, [&](int64_t s) {
    std::vector<float> slice(static_cast<size_t>(n) * sub_dim);
    for (int64_t r = 0; r < n; ++r) {
      std::memcpy(&slice[r * sub_dim], &data[r * dim + s * sub_dim], sub_dim * sizeof(float));
    }
    KMeansParams kp;
    kp.num_clusters = k;
    kp.max_iterations = params.max_iterations;
    kp.sample_rate = params.sample_rate;
    kp.distance_type = DistanceType::kL2;
    kp.seed = seeds[s];
    kp.num_threads = 1;
    Result<KMeansResult> km = TrainKMeans(slice, sub_dim, kp);
    if (!km.ok()) {
      errors[s] = km.status();
      return;
    }
    std::memcpy(&codebook[s * k * sub_dim], km->centroids.data(), km->centroids.size() * 4);
  });
  for (const Status& e : errors) LANCEDB_RETURN_NOT_OK(e);
  return Make(dim, m, params.num_bits, metric, use_residual, std::move(codebook));
}

void ProductQuantizer::EncodeCodes(std::span<const float> vectors, std::span<const float> centroid,
                                   uint8_t* codes) const {
  const size_t n = vectors.size() / dim_;
  const size_t sub = sub_dim();
  const float* x = vectors.data();
  std::vector<float> residual;
  if (use_residual_) {
    residual.resize(vectors.size());
    for (size_t r = 0; r < n; ++r) {
      for (size_t j = 0; j < dim_; ++j) residual[r * dim_ + j] = x[r * dim_ + j] - centroid[j];
    }
    x = residual.data();
  }
  // Each sub-vector's nearest codeword by squared L2 (the first among equals), over all rows
  // at once; the scores are ||c||^2 - 2 x·c, whose argmin is the L2 distance's.
  std::vector<uint32_t> best(n);
  std::vector<float> score(n);
  for (size_t s = 0; s < num_sub_vectors_; ++s) {
    internal::NearestCentroids(encode_panels_[s], x + s * sub, static_cast<int64_t>(n), dim_,
                               best.data(), score.data());
    for (size_t r = 0; r < n; ++r) codes[r * num_sub_vectors_ + s] = static_cast<uint8_t>(best[r]);
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
