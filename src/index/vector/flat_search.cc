// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/flat_search.h"

#include <algorithm>
#include <cmath>

#include "common/bit_util.h"
#include "index/vector/parallel.h"

namespace lancedb::index::vector {

void TopK::Push(float distance, uint64_t row_id) {
  if (std::isnan(distance) || k_ == 0) return;
  Neighbor n{distance, row_id};
  if (heap_.size() < k_) {
    heap_.push_back(n);
    std::push_heap(heap_.begin(), heap_.end());
  } else if (n < heap_.front()) {
    std::pop_heap(heap_.begin(), heap_.end());
    heap_.back() = n;
    std::push_heap(heap_.begin(), heap_.end());
  }
}

void TopK::Merge(const TopK& other) {
  for (const auto& n : other.heap_) Push(n.distance, n.row_id);
}

std::vector<Neighbor> TopK::Sorted() const {
  std::vector<Neighbor> out = heap_;
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

constexpr int64_t kRowsPerTask = 8192;
constexpr int64_t kBlockRows = 256;

struct Task {
  size_t chunk;
  int64_t begin;
  int64_t end;
};

Status Validate(std::span<const VectorChunk> chunks, const FlatSearchOptions& options) {
  if (options.k == 0) return Status::InvalidArgument("k (limit) must be positive");
  for (const auto& c : chunks) {
    if (c.element_type != chunks[0].element_type) {
      return Status::InvalidArgument("FlatSearch: all chunks must have the same element type");
    }
  }
  if (!chunks.empty()) {
    bool is_u8 = chunks[0].element_type == ElementType::kUInt8;
    if ((options.distance_type == DistanceType::kHamming) != is_u8) {
      return Status::InvalidArgument(
          "hamming distance applies to uint8 vectors only, and uint8 vectors support only "
          "hamming");
    }
  }
  return Status::OK();
}

std::vector<Task> MakeTasks(std::span<const VectorChunk> chunks) {
  std::vector<Task> tasks;
  for (size_t c = 0; c < chunks.size(); ++c) {
    for (int64_t b = 0; b < chunks[c].num_rows; b += kRowsPerTask) {
      tasks.push_back({c, b, std::min(chunks[c].num_rows, b + kRowsPerTask)});
    }
  }
  return tasks;
}

bool InRange(float d, const FlatSearchOptions& o) {
  if (o.lower_bound && d < *o.lower_bound) return false;
  if (o.upper_bound && !(d < *o.upper_bound)) return false;
  return true;
}

/// Scan the rows of `task` block by block; each block (kBlockRows rows, a few hundred KiB at
/// most) is compared with every query while it is in cache. topk[q] receives query q's hits.
void ScanTask(const VectorChunk& chunk, const Task& task, size_t dim, const uint8_t* queries,
              int64_t num_queries, const std::vector<std::optional<float>>& norms,
              const FlatSearchOptions& options, TopK* topk) {
  const size_t row_bytes = dim * ElementSize(chunk.element_type);
  const bool bounded = options.lower_bound || options.upper_bound;
  float dist[kBlockRows];
  for (int64_t b = task.begin; b < task.end; b += kBlockRows) {
    const int64_t n = std::min(kBlockRows, task.end - b);
    const auto* base = static_cast<const uint8_t*>(chunk.data) + static_cast<size_t>(b) * row_bytes;
    for (int64_t q = 0; q < num_queries; ++q) {
      DistanceBatch(options.distance_type, chunk.element_type, queries + q * row_bytes, base, n,
                    dim, dist, norms[q]);
      TopK& top = topk[q];
      float threshold = top.threshold();
      for (int64_t i = 0; i < n; ++i) {
        // NaN distances fail this test and are skipped, as TopK::Push would.
        if (!(dist[i] <= threshold)) continue;
        const int64_t row = b + i;
        if (chunk.validity && !bit_util::GetBit(chunk.validity, row)) continue;
        if (bounded && !InRange(dist[i], options)) continue;
        const uint64_t id = chunk.row_ids ? chunk.row_ids[row] : chunk.first_row_id + row;
        top.Push(dist[i], id);
        threshold = top.threshold();
      }
    }
  }
}

}  // namespace

Result<std::vector<Neighbor>> FlatSearch(std::span<const VectorChunk> chunks, size_t dim,
                                         const void* query, const FlatSearchOptions& options) {
  LANCEDB_ASSIGN_OR_RETURN(auto all, FlatSearchBatch(chunks, dim, query, 1, options));
  return std::move(all[0]);
}

Result<std::vector<std::vector<Neighbor>>> FlatSearchBatch(std::span<const VectorChunk> chunks,
                                                           size_t dim, const void* queries,
                                                           int64_t num_queries,
                                                           const FlatSearchOptions& options) {
  LANCEDB_RETURN_NOT_OK(Validate(chunks, options));
  std::vector<Task> tasks = MakeTasks(chunks);
  ElementType type = chunks.empty() ? ElementType::kFloat32 : chunks[0].element_type;
  size_t qbytes = dim * ElementSize(type);
  int threads = options.num_threads > 0 ? options.num_threads : DefaultNumThreads();
  const int64_t num_tasks = static_cast<int64_t>(tasks.size());
  // One heap per (task, query): the merge is in task order, so results do not depend on
  // scheduling. Tasks split the rows (not the queries), so each block of vectors is read from
  // memory once for all the queries.
  std::vector<TopK> partial(static_cast<size_t>(num_queries * num_tasks), TopK(options.k));
  std::vector<std::optional<float>> norms(num_queries);
  for (int64_t q = 0; q < num_queries; ++q) {
    if (options.distance_type == DistanceType::kCosine) {
      norms[q] = VectorNorm(type, static_cast<const uint8_t*>(queries) + q * qbytes, dim);
    }
  }
  ParallelFor(num_tasks, threads, [&](int64_t t) {
    const Task& task = tasks[static_cast<size_t>(t)];
    ScanTask(chunks[task.chunk], task, dim, static_cast<const uint8_t*>(queries), num_queries,
             norms, options, &partial[static_cast<size_t>(t * num_queries)]);
  });
  std::vector<std::vector<Neighbor>> out(num_queries);
  for (int64_t q = 0; q < num_queries; ++q) {
    TopK merged(options.k);
    for (int64_t t = 0; t < num_tasks; ++t) merged.Merge(partial[t * num_queries + q]);
    out[q] = merged.Sorted();
  }
  return out;
}

}  // namespace lancedb::index::vector
