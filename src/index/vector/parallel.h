// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// ParallelFor: split an index range over a few threads. Results must not depend on the
// number of threads (callers reduce per-task outputs in task order), so a seeded build is
// reproducible whatever the machine's core count.

#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace lancedb::index::vector {

/// Return the default number of compute threads (one per core).
inline int DefaultNumThreads() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

/// Call fn(task) for every task in [0, num_tasks) on up to `num_threads` threads (the calling
/// thread included). Tasks are handed out dynamically; fn must be thread-safe across tasks.
template <typename Fn>
void ParallelFor(int64_t num_tasks, int num_threads, Fn&& fn) {
  if (num_tasks <= 0) return;
  int threads = static_cast<int>(std::min<int64_t>(std::max(num_threads, 1), num_tasks));
  if (threads == 1) {
    for (int64_t t = 0; t < num_tasks; ++t) fn(t);
    return;
  }
  std::atomic<int64_t> next{0};
  auto worker = [&] {
    for (int64_t t = next.fetch_add(1); t < num_tasks; t = next.fetch_add(1)) fn(t);
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (int i = 1; i < threads; ++i) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
}

}  // namespace lancedb::index::vector
