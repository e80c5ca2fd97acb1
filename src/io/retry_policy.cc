// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "io/retry_policy.h"

#include <algorithm>
#include <cmath>

namespace lancedb::io {

bool IsRetryableHttpStatus(int64_t status) {
  return status == 408 || status == 429 || (status >= 500 && status <= 599);
}

std::chrono::milliseconds BackoffDelay(const RetryPolicy& policy, int retry, double uniform01) {
  const double initial = static_cast<double>(policy.initial_backoff.count());
  const double cap = static_cast<double>(policy.max_backoff.count());
  const double exponent = std::min(std::max(retry, 0), 62);
  const double delay = std::min(cap, initial * std::ldexp(1.0, static_cast<int>(exponent)));
  const double jitter = std::clamp(uniform01, 0.0, 1.0);
  return std::chrono::milliseconds(static_cast<int64_t>(delay / 2 + delay / 2 * jitter));
}

bool MayRetry(const RetryPolicy& policy, int retry, std::chrono::milliseconds elapsed) {
  return retry < policy.max_retries && elapsed < policy.retry_timeout;
}

}  // namespace lancedb::io
