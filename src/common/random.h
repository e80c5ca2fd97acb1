// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Non-deterministic randomness for names and ids (file names, UUIDs, backoff jitter): one
// generator per thread, seeded once from std::random_device. Never for anything a test or a
// seed must reproduce (index builds take their own seeded generators).

#pragma once

#include <cstdint>
#include <random>

namespace lancedb {

/// This thread's generator.
inline std::mt19937_64& ThreadRng() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return rng;
}

/// 64 random bits from this thread's generator.
inline uint64_t RandomU64() { return ThreadRng()(); }

}  // namespace lancedb
