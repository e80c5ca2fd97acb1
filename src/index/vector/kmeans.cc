// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/kmeans.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <unordered_set>

#include "index/vector/binary_vectors.h"
#include "index/vector/kmeans_kernels.h"
#include "index/vector/parallel.h"
#include "index/vector/random.h"

namespace lancedb::index::vector {
namespace {

/// Rows per task of the parallel assignment step (fixed, so the split does not depend on the
/// thread count; each row's result is independent of the split anyway).
constexpr int64_t kAssignChunkRows = 512;

int ResolveThreads(int num_threads) { return num_threads > 0 ? num_threads : DefaultNumThreads(); }

/// Nearest centroid of every row and its distance, given the rows' squared norms (L2 only;
/// without them the L2 "distances" are the kernel's scores, ||c||^2 - 2 x·c).
void AssignRows(const internal::CentroidPanels& panels, const float* data, const float* norms,
                int64_t n, DistanceType type, int threads, uint32_t* assignment, float* distances) {
  const size_t dim = panels.dim;
  ParallelFor((n + kAssignChunkRows - 1) / kAssignChunkRows, threads, [&](int64_t t) {
    const int64_t begin = t * kAssignChunkRows;
    const int64_t m = std::min(kAssignChunkRows, n - begin);
    internal::NearestCentroids(panels, data + static_cast<size_t>(begin) * dim, m, dim,
                               assignment + begin, distances + begin);
    for (int64_t r = begin; r < begin + m; ++r) {
      switch (type) {
        case DistanceType::kL2:
          if (norms) distances[r] = std::max(0.0f, distances[r] + norms[r]);
          break;
        case DistanceType::kCosine:
          distances[r] = 1.0f + distances[r];
          break;
        default:
          break;
      }
    }
  });
}

std::vector<float> SquaredNorms(const float* data, int64_t n, size_t dim) {
  std::vector<float> norms(n);
  for (int64_t r = 0; r < n; ++r) norms[r] = internal::SquaredNorm(data + r * dim, dim);
  return norms;
}

Status ValidateData(std::span<const float> data) {
  for (float v : data) {
    if (!std::isfinite(v)) {
      return Status::InvalidArgument("k-means training data contains NaN or infinite values");
    }
  }
  return Status::OK();
}

void InitRandom(const std::vector<float>& data, int64_t n, size_t dim, int64_t k, Rng& rng,
                std::vector<float>& centroids) {
  std::vector<int64_t> picks = SampleRows(n, k, rng.Next());
  for (int64_t c = 0; c < k; ++c) {
    std::memcpy(&centroids[c * dim], &data[picks[c] * dim], dim * sizeof(float));
  }
}

void InitPlusPlus(const std::vector<float>& data, int64_t n, size_t dim, int64_t k,
                  DistanceType type, Rng& rng, std::vector<float>& centroids) {
  std::vector<double> d2(n, std::numeric_limits<double>::infinity());
  int64_t first = static_cast<int64_t>(rng.Uniform(n));
  std::memcpy(centroids.data(), &data[first * dim], dim * sizeof(float));
  for (int64_t c = 1; c < k; ++c) {
    const float* last = &centroids[(c - 1) * dim];
    double total = 0;
    for (int64_t r = 0; r < n; ++r) {
      const float* x = &data[r * dim];
      double d = type == DistanceType::kL2 ? L2(x, last, dim) : 1.0 - Dot(x, last, dim);
      d2[r] = std::min(d2[r], std::max(d, 0.0));
      total += d2[r];
    }
    int64_t pick = static_cast<int64_t>(rng.Uniform(n));
    if (total > 0) {
      double target = rng.UniformDouble() * total;
      double acc = 0;
      for (int64_t r = 0; r < n; ++r) {
        acc += d2[r];
        if (acc >= target) {
          pick = r;
          break;
        }
      }
    }
    std::memcpy(&centroids[c * dim], &data[pick * dim], dim * sizeof(float));
  }
}

/// Recompute centroids as means (double sums in row order); repair empty clusters by splitting
/// the largest one. Returns nothing; `centroids` is updated in place.
void UpdateCentroids(const std::vector<float>& data, int64_t n, size_t dim, int64_t k,
                     const std::vector<uint32_t>& assignment, DistanceType type, Rng& rng,
                     std::vector<float>& centroids) {
  std::vector<double> sums(static_cast<size_t>(k) * dim, 0.0);
  std::vector<int64_t> counts(k, 0);
  for (int64_t r = 0; r < n; ++r) {
    uint32_t c = assignment[r];
    ++counts[c];
    double* s = &sums[c * dim];
    const float* x = &data[r * dim];
    for (size_t j = 0; j < dim; ++j) s[j] += x[j];
  }
  for (int64_t c = 0; c < k; ++c) {
    if (counts[c] == 0) continue;
    for (size_t j = 0; j < dim; ++j) {
      centroids[c * dim + j] = static_cast<float>(sums[c * dim + j] / counts[c]);
    }
  }
  // Empty clusters: take a perturbed copy of a large cluster's centroid (chosen with
  // probability proportional to its size) and split that cluster's count.
  for (int64_t c = 0; c < k; ++c) {
    if (counts[c] != 0) continue;
    int64_t donor = 0;
    for (;;) {
      donor = static_cast<int64_t>(rng.Uniform(k));
      double p = static_cast<double>(counts[donor] - 1) / static_cast<double>(n - k);
      if (counts[donor] > 1 && rng.UniformDouble() < std::max(p, 1e-3)) break;
    }
    constexpr float kEps = 1.0f / 1024;
    for (size_t j = 0; j < dim; ++j) {
      float v = centroids[donor * dim + j];
      float sign = (j % 2 == 0) ? 1.0f : -1.0f;
      centroids[c * dim + j] = v * (1 + sign * kEps);
      centroids[donor * dim + j] = v * (1 - sign * kEps);
    }
    counts[c] = counts[donor] / 2;
    counts[donor] -= counts[c];
  }
  if (type == DistanceType::kCosine) NormalizeRows(centroids.data(), k, dim);
}

/// Nearest centroid by hamming distance (the first among equals) for rows and centroids
/// carried as byte floats, packed here. Layout: data (n, dim); centroids (k, dim).
void AssignHamming(const uint8_t* data, int64_t n, const uint8_t* centroids, int64_t k, size_t dim,
                   int threads, uint32_t* assignment, float* distances) {
  ParallelFor((n + kAssignChunkRows - 1) / kAssignChunkRows, threads, [&](int64_t t) {
    const int64_t begin = t * kAssignChunkRows;
    const int64_t end = std::min(n, begin + kAssignChunkRows);
    for (int64_t r = begin; r < end; ++r) {
      const uint8_t* x = data + static_cast<size_t>(r) * dim;
      uint32_t best = std::numeric_limits<uint32_t>::max(), best_c = 0;
      for (int64_t c = 0; c < k; ++c) {
        const uint32_t d = Hamming(x, centroids + static_cast<size_t>(c) * dim, dim);
        if (d < best) {
          best = d;
          best_c = static_cast<uint32_t>(c);
        }
      }
      assignment[r] = best_c;
      if (distances) distances[r] = static_cast<float>(best);
    }
  });
}

/// k-modes over packed bytes: Lloyd iterations whose centroids are each cluster's bitwise
/// majority (a bit is set when more than half of the cluster's rows set it), as Lance trains
/// IVF for hamming; an empty cluster keeps its centroid. Layout: train (n, dim) bytes.
KMeansResult TrainKModes(const std::vector<uint8_t>& train, int64_t n, size_t dim,
                         const KMeansParams& params, Rng& rng) {
  const int64_t k = params.num_clusters;
  std::vector<uint8_t> centroids(static_cast<size_t>(k) * dim);
  std::vector<int64_t> picks = SampleRows(n, k, rng.Next());
  for (int64_t c = 0; c < k; ++c) {
    std::memcpy(&centroids[c * dim], &train[picks[c] * dim], dim);
  }
  const int threads = ResolveThreads(params.num_threads);
  std::vector<uint32_t> assignment(n);
  std::vector<float> dist(n);
  std::vector<uint32_t> ones(static_cast<size_t>(k) * dim * 8);
  std::vector<int64_t> counts(k);
  KMeansResult result;
  double prev_loss = std::numeric_limits<double>::infinity();
  for (int it = 0; it < std::max(params.max_iterations, 1); ++it) {
    AssignHamming(train.data(), n, centroids.data(), k, dim, threads, assignment.data(),
                  dist.data());
    double loss = 0;
    for (float d : dist) loss += d;
    result.loss = loss;
    result.iterations = it + 1;
    std::fill(ones.begin(), ones.end(), 0u);
    std::fill(counts.begin(), counts.end(), 0);
    for (int64_t r = 0; r < n; ++r) {
      const uint32_t c = assignment[r];
      ++counts[c];
      uint32_t* o = &ones[static_cast<size_t>(c) * dim * 8];
      const uint8_t* x = &train[static_cast<size_t>(r) * dim];
      for (size_t j = 0; j < dim; ++j) {
        for (int b = 0; b < 8; ++b) o[j * 8 + b] += (x[j] >> b) & 1u;
      }
    }
    for (int64_t c = 0; c < k; ++c) {
      if (counts[c] == 0) continue;
      const uint32_t* o = &ones[static_cast<size_t>(c) * dim * 8];
      for (size_t j = 0; j < dim; ++j) {
        uint8_t byte = 0;
        for (int b = 0; b < 8; ++b) {
          if (2 * static_cast<int64_t>(o[j * 8 + b]) > counts[c]) byte |= uint8_t(1u << b);
        }
        centroids[c * dim + j] = byte;
      }
    }
    if (it > 0 && prev_loss - loss <= params.tolerance * std::abs(prev_loss)) break;
    prev_loss = loss;
  }
  result.centroids.assign(centroids.begin(), centroids.end());
  return result;
}

}  // namespace

void NormalizeRows(float* data, int64_t num_rows, size_t dim) {
  for (int64_t r = 0; r < num_rows; ++r) {
    float* x = data + static_cast<size_t>(r) * dim;
    float norm = std::sqrt(Norm2(x, dim));
    if (norm > 0) {
      for (size_t j = 0; j < dim; ++j) x[j] /= norm;
    }
  }
}

std::vector<int64_t> SampleRows(int64_t num_rows, int64_t count, uint64_t rng_seed) {
  Rng rng(rng_seed);
  count = std::min(count, num_rows);
  std::vector<int64_t> out;
  if (count * 4 >= num_rows) {
    // Partial Fisher-Yates over all indices.
    std::vector<int64_t> idx(num_rows);
    std::iota(idx.begin(), idx.end(), 0);
    for (int64_t i = 0; i < count; ++i) {
      int64_t j = i + static_cast<int64_t>(rng.Uniform(num_rows - i));
      std::swap(idx[i], idx[j]);
    }
    out.assign(idx.begin(), idx.begin() + count);
  } else {
    // Floyd's algorithm: `count` distinct values without O(num_rows) memory.
    std::unordered_set<int64_t> seen;
    seen.reserve(count * 2);
    for (int64_t j = num_rows - count; j < num_rows; ++j) {
      int64_t t = static_cast<int64_t>(rng.Uniform(j + 1));
      if (!seen.insert(t).second) seen.insert(j);
    }
    std::vector<int64_t> sorted(seen.begin(), seen.end());
    out = std::move(sorted);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void AssignToCentroids(const float* data, int64_t num_rows, const float* centroids,
                       int64_t num_centroids, size_t dim, DistanceType distance_type,
                       uint32_t* assignment, float* distances, int num_threads) {
  if (distance_type == DistanceType::kHamming) {
    std::vector<uint8_t> rows = PackByteFloats(data, static_cast<size_t>(num_rows) * dim);
    std::vector<uint8_t> cents =
        PackByteFloats(centroids, static_cast<size_t>(num_centroids) * dim);
    AssignHamming(rows.data(), num_rows, cents.data(), num_centroids, dim,
                  ResolveThreads(num_threads), assignment, distances);
    return;
  }
  const bool l2 = distance_type == DistanceType::kL2;
  internal::CentroidPanels panels = internal::MakeCentroidPanels(centroids, num_centroids, dim, l2);
  std::vector<float> norms;
  if (l2 && distances) norms = SquaredNorms(data, num_rows, dim);
  std::vector<float> scratch;
  if (!distances) {
    scratch.resize(num_rows);
    distances = scratch.data();
  }
  // Without distances asked the norms are not needed: the argmin is the scores'.
  AssignRows(panels, data, norms.empty() ? nullptr : norms.data(), num_rows, distance_type,
             ResolveThreads(num_threads), assignment, distances);
}

Result<KMeansResult> TrainKMeans(std::span<const float> data, size_t dim,
                                 const KMeansParams& params) {
  if (dim == 0) return Status::InvalidArgument("k-means: dimension must be positive");
  int64_t n = static_cast<int64_t>(data.size() / dim);
  int64_t k = params.num_clusters;
  if (k <= 0) return Status::InvalidArgument("k-means: num_clusters must be positive");
  if (k > n) {
    return Status::InvalidArgument("k-means: cannot train " + std::to_string(k) +
                                   " clusters from " + std::to_string(n) + " rows");
  }
  LANCEDB_RETURN_NOT_OK(ValidateData(data));
  const bool hamming = params.distance_type == DistanceType::kHamming;
  if (hamming && !AreByteFloats(data.data(), data.size())) {
    return Status::InvalidArgument(
        "k-means with hamming distance needs uint8 vectors (values 0..255, one byte per value)");
  }
  Rng rng(Rng::ResolveSeed(params.seed));

  // Sample at most k * sample_rate rows, keeping their order.
  int64_t max_rows = params.sample_rate > 0 ? k * params.sample_rate : n;
  std::vector<float> train;
  if (n > max_rows) {
    std::vector<int64_t> rows = SampleRows(n, max_rows, rng.Next());
    train.resize(rows.size() * dim);
    for (size_t i = 0; i < rows.size(); ++i) {
      std::memcpy(&train[i * dim], &data[rows[i] * dim], dim * sizeof(float));
    }
    n = max_rows;
  } else {
    train.assign(data.begin(), data.end());
  }
  if (params.distance_type == DistanceType::kCosine) NormalizeRows(train.data(), n, dim);
  if (hamming) return TrainKModes(PackByteFloats(train.data(), train.size()), n, dim, params, rng);

  KMeansResult result;
  result.centroids.resize(static_cast<size_t>(k) * dim);
  if (params.initial_centroids.size() == result.centroids.size()) {
    result.centroids = params.initial_centroids;
  } else if (params.init == KMeansInit::kKMeansPlusPlus) {
    InitPlusPlus(train, n, dim, k, params.distance_type, rng, result.centroids);
  } else {
    InitRandom(train, n, dim, k, rng, result.centroids);
  }
  std::vector<uint32_t> assignment(n);
  std::vector<float> dist(n);
  const bool l2 = params.distance_type == DistanceType::kL2;
  std::vector<float> norms;
  if (l2) norms = SquaredNorms(train.data(), n, dim);
  const int threads = ResolveThreads(params.num_threads);
  double prev_loss = std::numeric_limits<double>::infinity();
  for (int it = 0; it < std::max(params.max_iterations, 1); ++it) {
    internal::CentroidPanels panels =
        internal::MakeCentroidPanels(result.centroids.data(), k, dim, l2);
    AssignRows(panels, train.data(), norms.data(), n, params.distance_type, threads,
               assignment.data(), dist.data());
    double loss = 0;
    for (float d : dist) loss += d;
    result.loss = loss;
    result.iterations = it + 1;
    UpdateCentroids(train, n, dim, k, assignment, params.distance_type, rng, result.centroids);
    // The first iteration has nothing to compare with (inf - loss <= tol * inf would stop it).
    if (it > 0 && prev_loss - loss <= params.tolerance * std::abs(prev_loss)) break;
    prev_loss = loss;
  }
  return result;
}

namespace {

/// Shares of `total` proportional to `sizes` (largest remainders first; ties: the first).
std::vector<int64_t> ProportionalShares(const std::vector<int64_t>& sizes, int64_t total) {
  int64_t all = 0;
  for (int64_t s : sizes) all += s;
  std::vector<int64_t> shares(sizes.size());
  std::vector<std::pair<double, size_t>> remainders;
  int64_t given = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const double exact =
        static_cast<double>(total) * static_cast<double>(sizes[i]) / static_cast<double>(all);
    shares[i] = static_cast<int64_t>(exact);
    given += shares[i];
    remainders.emplace_back(exact - static_cast<double>(shares[i]), i);
  }
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t j = 0; given < total && j < remainders.size(); ++j, ++given) {
    ++shares[remainders[j].second];
  }
  return shares;
}

/// The top-down tree of TrainHierarchicalKMeans over `train` (rows, dim), already sampled and
/// normalized for cosine.
class KMeansTree {
 public:
  KMeansTree(const std::vector<float>& train, size_t dim, const KMeansParams& params,
             int64_t branching, Rng& rng)
      : train_(train), dim_(dim), params_(params), branching_(branching), rng_(rng) {}

  /// Append to `leaves` the centroids of the leaves under the node of `rows` owing `owed`.
  Status Grow(std::vector<int64_t> rows, int64_t owed, std::vector<float>* leaves) {
    const auto n = static_cast<int64_t>(rows.size());
    if (owed <= 1 || n <= 1) return Leaf(rows, leaves);
    const int64_t k = std::min({branching_, owed, n});
    std::vector<float> sub(static_cast<size_t>(n) * dim_);
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(&sub[static_cast<size_t>(i) * dim_], &train_[static_cast<size_t>(rows[i]) * dim_],
                  dim_ * sizeof(float));
    }
    KMeansParams level = params_;
    level.num_clusters = k;
    level.seed = rng_.Next();
    level.initial_centroids.clear();
    LANCEDB_ASSIGN_OR_RETURN(KMeansResult km, TrainKMeans(sub, dim_, level));
    std::vector<uint32_t> assignment(static_cast<size_t>(n));
    AssignToCentroids(sub.data(), n, km.centroids.data(), k, dim_, params_.distance_type,
                      assignment.data(), nullptr, 1);
    std::vector<std::vector<int64_t>> parts(static_cast<size_t>(k));
    for (int64_t i = 0; i < n; ++i) parts[assignment[i]].push_back(rows[i]);
    std::vector<int64_t> kept;  // the non-empty parts' clusters
    for (int64_t c = 0; c < k; ++c) {
      if (!parts[c].empty()) kept.push_back(c);
    }
    if (kept.size() <= 1) return Leaf(rows, leaves);  // duplicates: cannot split
    if (owed <= k) {
      for (int64_t c : kept) LANCEDB_RETURN_NOT_OK(Leaf(parts[c], leaves));
      return Status::OK();
    }
    std::vector<int64_t> sizes;
    for (int64_t c : kept) sizes.push_back(static_cast<int64_t>(parts[c].size()));
    std::vector<int64_t> shares = ProportionalShares(sizes, owed);
    // A part owed nothing joins the nearest part owed something.
    for (size_t i = 0; i < kept.size(); ++i) {
      if (shares[i] > 0) continue;
      size_t to = kept.size();
      float best = std::numeric_limits<float>::infinity();
      for (size_t j = 0; j < kept.size(); ++j) {
        if (shares[j] == 0) continue;
        const float d = L2(&km.centroids[static_cast<size_t>(kept[i]) * dim_],
                           &km.centroids[static_cast<size_t>(kept[j]) * dim_], dim_);
        if (d < best) {
          best = d;
          to = j;
        }
      }
      auto& into = parts[kept[to]];
      into.insert(into.end(), parts[kept[i]].begin(), parts[kept[i]].end());
      parts[kept[i]].clear();
    }
    for (size_t i = 0; i < kept.size(); ++i) {
      if (shares[i] == 0) continue;
      std::vector<int64_t>& part = parts[kept[i]];
      std::sort(part.begin(), part.end());
      LANCEDB_RETURN_NOT_OK(Grow(std::move(part), shares[i], leaves));
    }
    return Status::OK();
  }

 private:
  /// The mean of `rows` (unit length for cosine).
  Status Leaf(const std::vector<int64_t>& rows, std::vector<float>* leaves) {
    std::vector<double> sum(dim_, 0.0);
    for (int64_t r : rows) {
      const float* x = &train_[static_cast<size_t>(r) * dim_];
      for (size_t j = 0; j < dim_; ++j) sum[j] += x[j];
    }
    const size_t at = leaves->size();
    for (size_t j = 0; j < dim_; ++j) {
      leaves->push_back(static_cast<float>(sum[j] / static_cast<double>(rows.size())));
    }
    if (params_.distance_type == DistanceType::kCosine) NormalizeRows(leaves->data() + at, 1, dim_);
    return Status::OK();
  }

  const std::vector<float>& train_;
  size_t dim_;
  const KMeansParams& params_;
  int64_t branching_;
  Rng& rng_;
};

}  // namespace

Result<KMeansResult> TrainHierarchicalKMeans(std::span<const float> data, size_t dim,
                                             const KMeansParams& params, int64_t branching,
                                             int refine_iterations) {
  if (dim == 0) return Status::InvalidArgument("k-means: dimension must be positive");
  const int64_t k = params.num_clusters;
  const int64_t rows = static_cast<int64_t>(data.size() / dim);
  if (params.distance_type == DistanceType::kHamming || branching < 2 || k <= branching ||
      k > rows) {
    return TrainKMeans(data, dim, params);
  }
  LANCEDB_RETURN_NOT_OK(ValidateData(data));
  Rng rng(Rng::ResolveSeed(params.seed));
  const int64_t max_rows = params.sample_rate > 0 ? k * params.sample_rate : rows;
  std::vector<float> train;
  int64_t n = rows;
  if (rows > max_rows) {
    std::vector<int64_t> picked = SampleRows(rows, max_rows, rng.Next());
    train.resize(picked.size() * dim);
    for (size_t i = 0; i < picked.size(); ++i) {
      std::memcpy(&train[i * dim], &data[picked[i] * dim], dim * sizeof(float));
    }
    n = max_rows;
  } else {
    train.assign(data.begin(), data.end());
  }
  if (params.distance_type == DistanceType::kCosine) NormalizeRows(train.data(), n, dim);
  std::vector<int64_t> everything(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) everything[static_cast<size_t>(i)] = i;
  std::vector<float> leaves;
  KMeansTree tree(train, dim, params, branching, rng);
  LANCEDB_RETURN_NOT_OK(tree.Grow(std::move(everything), k, &leaves));
  // A node whose k-means left a part empty, or that could not split (duplicate rows), has fewer
  // leaves than it owed: the missing centroids start as sample rows, which the refinement moves
  // (or, for duplicates, splits off a copy of a crowded centroid, as k-means repairs an empty
  // cluster).
  const int64_t missing = k - static_cast<int64_t>(leaves.size() / dim);
  if (missing > 0) {
    for (int64_t r : SampleRows(n, missing, rng.Next())) {
      leaves.insert(leaves.end(), train.begin() + r * static_cast<int64_t>(dim),
                    train.begin() + (r + 1) * static_cast<int64_t>(dim));
    }
  }
  KMeansParams refine = params;
  refine.sample_rate = 0;  // the sample already
  refine.seed = rng.Next();
  refine.max_iterations = std::max(refine_iterations, 1);
  refine.initial_centroids = std::move(leaves);
  if (refine_iterations > 0) return TrainKMeans(train, dim, refine);
  KMeansResult result;
  result.centroids = std::move(refine.initial_centroids);
  result.iterations = 0;
  return result;
}

}  // namespace lancedb::index::vector
