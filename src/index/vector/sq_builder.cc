// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/sq_builder.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "index/vector/kmeans.h"
#include "index/vector/random.h"
#include "index/vector/sq_storage.h"

namespace lancedb::index::vector {

ScalarQuantizer::ScalarQuantizer(size_t dim, DistanceType metric, std::vector<float> lower,
                                 std::vector<float> upper)
    : dim_(dim), metric_(metric), lower_(std::move(lower)), upper_(std::move(upper)) {
  scale_.resize(dim_);
  for (size_t j = 0; j < dim_; ++j) scale_[j] = (upper_[j] - lower_[j]) / 255.0f;
}

Result<std::unique_ptr<ScalarQuantizer>> ScalarQuantizer::Make(size_t dim, DistanceType metric,
                                                               std::vector<float> lower,
                                                               std::vector<float> upper) {
  if (lower.size() != dim || upper.size() != dim) {
    return Status::Corruption("SQ bounds have the wrong length");
  }
  return std::unique_ptr<ScalarQuantizer>(
      new ScalarQuantizer(dim, metric, std::move(lower), std::move(upper)));
}

Result<std::unique_ptr<ScalarQuantizer>> ScalarQuantizer::Train(std::span<const float> data,
                                                                size_t dim, DistanceType metric,
                                                                int64_t max_rows,
                                                                std::optional<uint64_t> seed) {
  int64_t n = static_cast<int64_t>(data.size() / dim);
  if (n == 0) return Status::InvalidArgument("SQ training needs at least one row");
  std::vector<int64_t> rows;
  if (max_rows > 0 && n > max_rows) {
    rows = SampleRows(n, max_rows, Rng::ResolveSeed(seed));
  } else {
    rows.resize(n);
    for (int64_t r = 0; r < n; ++r) rows[r] = r;
  }
  std::vector<float> lower(dim, std::numeric_limits<float>::infinity());
  std::vector<float> upper(dim, -std::numeric_limits<float>::infinity());
  for (int64_t r : rows) {
    const float* x = &data[r * dim];
    for (size_t j = 0; j < dim; ++j) {
      lower[j] = std::min(lower[j], x[j]);
      upper[j] = std::max(upper[j], x[j]);
    }
  }
  return Make(dim, metric, std::move(lower), std::move(upper));
}

std::unique_ptr<PartitionStorage> ScalarQuantizer::Encode(std::span<const float> vectors,
                                                          std::span<const float> centroid) const {
  std::vector<uint8_t> codes(vectors.size());
  size_t n = vectors.size() / dim_;
  for (size_t r = 0; r < n; ++r) {
    for (size_t j = 0; j < dim_; ++j) {
      float v = vectors[r * dim_ + j];
      float q = scale_[j] > 0 ? std::round((v - lower_[j]) / scale_[j]) : 0.0f;
      codes[r * dim_ + j] = static_cast<uint8_t>(std::clamp(q, 0.0f, 255.0f));
    }
  }
  return FromCodes(std::move(codes));
}

std::unique_ptr<PartitionStorage> ScalarQuantizer::FromCodes(std::vector<uint8_t> codes) const {
  return std::make_unique<SqStorage>(this, std::move(codes));
}

}  // namespace lancedb::index::vector
