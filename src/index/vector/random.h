// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// A small seeded random generator whose output is fixed by this file alone (xoshiro256**
// seeded through splitmix64), so training with a seed gives the same bytes on every platform
// and standard library. Thread-safety: externally synchronized (one generator per thread).

#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <random>

namespace lancedb::index::vector {

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (auto& s : state_) s = SplitMix(seed);
  }

  /// Return the next 64 random bits.
  uint64_t Next() {
    uint64_t result = Rotl(state_[1] * 5, 7) * 9;
    uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = Rotl(state_[3], 45);
    return result;
  }

  /// Return a uniform integer in [0, bound). REQUIRES: bound > 0.
  uint64_t Uniform(uint64_t bound) {
    // Rejection sampling keeps the distribution exact.
    uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t x;
    do {
      x = Next();
    } while (x >= limit);
    return x % bound;
  }

  /// Return a uniform double in [0, 1).
  double UniformDouble() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

  /// Return a standard normal sample (Box-Muller).
  double Normal() {
    double u1 = UniformDouble();
    double u2 = UniformDouble();
    if (u1 < 1e-300) u1 = 1e-300;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

  /// Return `seed` when given, else a fresh nondeterministic seed.
  static uint64_t ResolveSeed(std::optional<uint64_t> seed) {
    if (seed) return *seed;
    std::random_device rd;
    return (static_cast<uint64_t>(rd()) << 32) ^ rd();
  }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t SplitMix(uint64_t& x) {
    uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t state_[4];
};

}  // namespace lancedb::index::vector
