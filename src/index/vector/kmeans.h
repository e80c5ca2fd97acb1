// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Lloyd's k-means over float32 vectors, the training step of IVF partitioning and of PQ
// codebooks. The assignment step scores blocks of rows against panels of transposed
// centroids (kmeans_kernels.h: ||c||^2 - 2 x·c with one fused multiply-add per dimension, the
// same bits on every instruction set), over row chunks on several threads; the update sums in
// double precision in row order. With a seed, the result depends only on the data, its row
// order and the parameters: not on the thread count, the instruction set, the process or the
// time. Thread-safety: the functions are thread-safe.

#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "index/vector/distance.h"
#include "lancedb/status.h"

namespace lancedb::index::vector {

enum class KMeansInit : uint8_t { kRandom = 0, kKMeansPlusPlus = 1 };

struct KMeansParams {
  int64_t num_clusters = 0;
  int max_iterations = 50;
  /// Train on at most num_clusters * sample_rate rows, sampled with the seed.
  int64_t sample_rate = 256;
  KMeansInit init = KMeansInit::kRandom;
  /// When not empty: the starting centroids (num_clusters * dim values) instead of `init`.
  std::vector<float> initial_centroids;
  /// kL2 and kCosine (spherical: unit vectors and unit centroids) and kDot; kHamming for
  /// uint8 vectors carried one byte per float (binary_vectors.h): k-modes, whose centroids
  /// are their clusters' bitwise majorities.
  DistanceType distance_type = DistanceType::kL2;
  /// Seed of the sampling, the initialisation and the empty-cluster repair; absent: random.
  std::optional<uint64_t> seed;
  /// Stop when the loss improves by less than this fraction between iterations.
  double tolerance = 1e-4;
  /// Threads of the assignment step; 0: one per core. Does not change the result.
  int num_threads = 0;
};

struct KMeansResult {
  std::vector<float> centroids;  ///< Layout: (num_clusters, dim)
  double loss = 0;               ///< sum of distances of the training rows to their centroid
  int iterations = 0;
};

/// Train num_clusters centroids on `data`. Layout: data (num_rows, dim).
/// Errors: InvalidArgument when num_clusters is 0 or exceeds the number of rows, or when the
/// data has NaN/infinite values (for hamming: values that are not bytes).
Result<KMeansResult> TrainKMeans(std::span<const float> data, size_t dim,
                                 const KMeansParams& params);

/// Train num_clusters centroids top-down, as Lance trains more than 256 IVF partitions, on a
/// sample of num_clusters * sample_rate rows: a node of the tree holds rows and owes a number
/// of centroids (the root: all the sample, num_clusters). A node owing one centroid, or holding
/// one row, is a leaf; otherwise a k-means of its rows into min(branching, owed) clusters splits
/// it, and each part owes a share of the node's centroids proportional to its rows (a part
/// owed none joins its nearest sibling that is owed some); parts of a node that owed no more
/// than it split into are leaves. A leaf's centroid is the mean of its rows. The leaves, more
/// even in size than flat k-means makes them, are then refined by `refine_iterations` Lloyd
/// iterations over the sample; leaves the tree could not make (a part left empty, duplicate
/// rows) start as sample rows. Hamming and num_clusters <= branching train as TrainKMeans.
/// Errors: as TrainKMeans.
Result<KMeansResult> TrainHierarchicalKMeans(std::span<const float> data, size_t dim,
                                             const KMeansParams& params, int64_t branching,
                                             int refine_iterations);

/// Write the index of the nearest centroid for each row into `assignment` (and the distance
/// into `distances` when not null). Cosine expects unit-normalized rows and centroids and
/// reports 1 - dot; hamming expects byte floats. Among centroids at equal distance the first one
/// wins. `num_threads` (0: one per core) does not change the result. Layout: data (num_rows, dim);
/// centroids (num_centroids, dim).
void AssignToCentroids(const float* data, int64_t num_rows, const float* centroids,
                       int64_t num_centroids, size_t dim, DistanceType distance_type,
                       uint32_t* assignment, float* distances, int num_threads = 0);

/// Normalize each row to unit L2 norm in place (zero rows stay zero). Layout: (num_rows, dim).
void NormalizeRows(float* data, int64_t num_rows, size_t dim);

/// Return `count` distinct row indices of [0, num_rows) chosen with `rng_seed`, ascending.
std::vector<int64_t> SampleRows(int64_t num_rows, int64_t count, uint64_t rng_seed);

}  // namespace lancedb::index::vector
