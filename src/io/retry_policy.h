// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// RetryPolicy: when an object-store request is tried again and how long to wait first —
// exponential backoff with jitter, bounded in count and in total time. Pure functions.
// Thread-safety: immutable values.

#pragma once

#include <chrono>
#include <cstdint>

namespace lancedb::io {

struct RetryPolicy {
  /// Attempts after the first (storage option client_max_retries).
  int max_retries = 10;
  /// No retry starts later than this after the first attempt (client_retry_timeout).
  std::chrono::milliseconds retry_timeout{180000};
  /// The first wait; each later one doubles, up to max_backoff.
  std::chrono::milliseconds initial_backoff{100};
  std::chrono::milliseconds max_backoff{15000};
};

/// Whether an HTTP status is worth another attempt: 408, 429 and every 5xx.
bool IsRetryableHttpStatus(int64_t status);

/// The wait before retry number `retry` (0 = the first retry): the capped exponential delay
/// d = min(max_backoff, initial_backoff * 2^retry), jittered to [d/2, d] by `uniform01` in
/// [0, 1) ("equal jitter": spreads racing clients apart and still grows).
std::chrono::milliseconds BackoffDelay(const RetryPolicy& policy, int retry, double uniform01);

/// Whether retry number `retry` may start `elapsed` after the first attempt.
bool MayRetry(const RetryPolicy& policy, int retry, std::chrono::milliseconds elapsed);

}  // namespace lancedb::io
