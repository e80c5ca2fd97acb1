// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Late interaction (MaxSim) over multivectors: a row of a multivector column is a list of
// vectors (list<fixed_size_list<T>[dim]>), a query is a list of vectors too, and the row's
// distance is the sum, over the query's vectors, of the distance to the row's nearest vector.
// An index on such a column holds every row vector (sub-vector) under its row's address; the
// indexed search collects candidates per query vector and combines them as LanceDB's
// MultivectorScoring does (ScoreMultivectorCandidates).
// Thread-safety: the functions are pure and thread-safe.

#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "index/vector/distance.h"
#include "index/vector/flat_search.h"

namespace lancedb::index::vector {

/// Return the MaxSim distance between `num_queries` query vectors and one row's `num_vectors`
/// vectors: sum over the queries of the smallest distance to a row vector, in the kernels'
/// units (DistanceBatch: l2 squared, cosine 1 - cos, dot -x.y, hamming bits). NaN when the row
/// has no vectors or a distance is NaN (a zero vector under cosine), as in LanceDB.
/// Layout: queries (num_queries, dim), vectors (num_vectors, dim), both of `element_type`
/// (raw bytes); query_norms (num_queries), used for cosine. REQUIRES: scratch.size() >=
/// num_vectors.
float MultivectorDistance(DistanceType type, ElementType element_type, const void* queries,
                          size_t num_queries, std::span<const float> query_norms,
                          const void* vectors, int64_t num_vectors, size_t dim,
                          std::span<float> scratch) noexcept;

/// Combine the candidates an index found for each query vector into row distances, as
/// LanceDB's MultivectorScoring does (XTR-style imputation): `lists[q]` holds query vector q's
/// nearest row vectors (cosine distances, sorted by distance then row id; a row may appear
/// several times, its first entry counts). A row's similarity to query vector q is 1 - its
/// distance there, or, when the row is not in lists[q], the similarity of the last entry of
/// lists[q] (0 when lists[q] is empty). The result holds every row found in some list with
/// distance num_queries - sum of similarities, sorted by distance then row id.
std::vector<Neighbor> ScoreMultivectorCandidates(std::span<const std::vector<Neighbor>> lists);

/// Return the row vectors of `rows` that an IVF index with `centroids` assigns to
/// `partition`, in the order it stores them: row by row (rows in the given order), each row's
/// vectors in list order. Extending an HNSW partition rebuilds its graph from these.
/// Layout: vectors (num_vectors, dim), the vectors of row i being the counts[i] after those of
/// rows 0..i-1; centroids (num_partitions, dim). For cosine the assignment uses the
/// normalized vectors, the returned ones are as given.
std::vector<float> VectorsOfPartition(std::span<const float> vectors,
                                      std::span<const int64_t> counts, size_t dim,
                                      std::span<const float> centroids, int64_t num_partitions,
                                      DistanceType distance_type, int64_t partition);

}  // namespace lancedb::index::vector
