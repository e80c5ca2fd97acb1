// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Re-execution of writes that a concurrent writer preempted (docs/concurrency.md). A delete,
// update or merge_insert that fails with a retryable commit conflict is executed again from the
// start on the newest version: its predicate or join is evaluated again, so what it changes is
// what it would change had it run after the writer that preempted it. Between executions it
// waits a random number of slots, 0 .. 2^(n + 2) - 1 with n the executions so far (at most
// 1023), a slot being about as long as the first execution took.

#pragma once

#include <algorithm>
#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <type_traits>

#include "common/random.h"
#include "lancedb/status.h"

namespace lancedb::db {

/// Default bound on re-executions, as LanceDB's retry_timeout.
inline constexpr std::chrono::milliseconds kDefaultRetryTimeout{30000};

/// Run `execute(attempt)` (attempt = 1, 2, ...) until it returns anything but a retryable commit
/// conflict, or until `timeout` has passed since the start; then return its last result. A
/// conflict still standing at the deadline is returned with "after N attempts" in its context.
template <typename Fn>
auto ExecuteWithRetry(std::string_view what, std::chrono::milliseconds timeout, Fn&& execute)
    -> std::invoke_result_t<Fn&, int> {
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + timeout;
  std::chrono::microseconds unit{1000};
  for (int attempt = 1;; ++attempt) {
    auto result = execute(attempt);
    const Status st = result.status();
    if (st.ok() || !st.IsRetryable()) return result;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      return st.WithContext(
          std::string(what) + " gave up after " + std::to_string(attempt) + " attempts in " +
          std::to_string(
              std::chrono::duration_cast<std::chrono::milliseconds>(now - start).count()) +
          " ms");
    }
    if (attempt == 1) {
      unit = std::max(unit,
                      std::chrono::duration_cast<std::chrono::microseconds>(now - start) * 11 / 10);
    }
    std::uniform_int_distribution<int64_t> slots(0, (int64_t{1} << std::min(attempt + 1, 10)) - 1);
    std::this_thread::sleep_until(std::min(now + unit * slots(ThreadRng()), deadline));
  }
}

}  // namespace lancedb::db
