// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/vector/distance.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "array/bfloat16.h"
#include "array/half.h"
#include "index/vector/binary_vectors.h"
#include "index/vector/distance_kernels.h"

namespace lancedb::index::vector {
namespace internal {
namespace {

using array::HalfToFloat;

float L2Scalar(const float* a, const float* b, size_t dim) {
  float acc[4] = {0, 0, 0, 0};
  size_t i = 0;
  for (; i + 4 <= dim; i += 4) {
    for (size_t j = 0; j < 4; ++j) {
      float d = a[i + j] - b[i + j];
      acc[j] += d * d;
    }
  }
  float sum = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  for (; i < dim; ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return sum;
}

float DotScalar(const float* a, const float* b, size_t dim) {
  float acc[4] = {0, 0, 0, 0};
  size_t i = 0;
  for (; i + 4 <= dim; i += 4) {
    for (size_t j = 0; j < 4; ++j) acc[j] += a[i + j] * b[i + j];
  }
  float sum = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  for (; i < dim; ++i) sum += a[i] * b[i];
  return sum;
}

float L2F16Scalar(const uint16_t* a, const uint16_t* b, size_t dim) {
  float sum = 0;
  for (size_t i = 0; i < dim; ++i) {
    float d = HalfToFloat(a[i]) - HalfToFloat(b[i]);
    sum += d * d;
  }
  return sum;
}

float DotF16Scalar(const uint16_t* a, const uint16_t* b, size_t dim) {
  float sum = 0;
  for (size_t i = 0; i < dim; ++i) sum += HalfToFloat(a[i]) * HalfToFloat(b[i]);
  return sum;
}

double L2F64Scalar(const double* a, const double* b, size_t dim) {
  double sum = 0;
  for (size_t i = 0; i < dim; ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return sum;
}

double DotF64Scalar(const double* a, const double* b, size_t dim) {
  double sum = 0;
  for (size_t i = 0; i < dim; ++i) sum += a[i] * b[i];
  return sum;
}

uint32_t HammingScalar(const uint8_t* a, const uint8_t* b, size_t num_bytes) {
  uint32_t count = 0;
  for (size_t i = 0; i < num_bytes; ++i) count += std::popcount(static_cast<uint8_t>(a[i] ^ b[i]));
  return count;
}

void Pq4BlockScalar(const float* lut, const uint8_t* codes, size_t num_sub_vectors, float* out) {
  for (size_t r = 0; r < kPq4BlockRows; ++r) {
    float acc[4] = {0, 0, 0, 0};
    size_t s = 0;
    for (; s + 4 <= num_sub_vectors; s += 4) {
      for (size_t j = 0; j < 4; ++j) acc[j] += lut[(s + j) * 16 + codes[(s + j) * 16 + r]];
    }
    for (; s < num_sub_vectors; ++s) acc[0] += lut[s * 16 + codes[s * 16 + r]];
    out[r] = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  }
}

}  // namespace

const Kernels kScalarKernels = {L2Scalar,    DotScalar,    L2F16Scalar,   DotF16Scalar,
                                L2F64Scalar, DotF64Scalar, HammingScalar, Pq4BlockScalar};

}  // namespace internal

namespace {

const internal::Kernels* KernelsFor(SimdLevel level) {
  switch (level) {
    case SimdLevel::kAvx512:
      return &internal::kAvx512Kernels;
    case SimdLevel::kAvx2:
      return &internal::kAvx2Kernels;
    case SimdLevel::kScalar:
      break;
  }
  return &internal::kScalarKernels;
}

SimdLevel InitialLevel() {
  SimdLevel level = DetectSimdLevel();
  // LANCEDB_SIMD=scalar|avx2|avx512 caps the level (for benchmarks and tests).
  if (const char* env = std::getenv("LANCEDB_SIMD")) {
    std::string_view v(env);
    SimdLevel cap = v == "scalar" ? SimdLevel::kScalar
                    : v == "avx2" ? SimdLevel::kAvx2
                                  : SimdLevel::kAvx512;
    level = std::min(level, cap);
  }
  return level;
}

std::atomic<SimdLevel> g_level{InitialLevel()};
std::atomic<const internal::Kernels*> g_kernels{KernelsFor(g_level.load())};

inline const internal::Kernels& K() { return *g_kernels.load(std::memory_order_relaxed); }

}  // namespace

SimdLevel DetectSimdLevel() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  // The float16 kernels of both levels convert with F16C.
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                    array::internal::CpuHasF16c();
  if (avx2 && __builtin_cpu_supports("avx512f")) return SimdLevel::kAvx512;
  if (avx2) return SimdLevel::kAvx2;
#endif
  return SimdLevel::kScalar;
}

SimdLevel ActiveSimdLevel() { return g_level.load(); }

void SetSimdLevel(SimdLevel level) {
  level = std::min(level, DetectSimdLevel());
  g_level.store(level);
  g_kernels.store(KernelsFor(level));
}

std::string_view SimdLevelName(SimdLevel level) {
  switch (level) {
    case SimdLevel::kAvx512:
      return "avx512";
    case SimdLevel::kAvx2:
      return "avx2";
    case SimdLevel::kScalar:
      break;
  }
  return "scalar";
}

Result<DistanceType> ParseDistanceType(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "l2" || lower == "euclidean") return DistanceType::kL2;
  if (lower == "cosine") return DistanceType::kCosine;
  if (lower == "dot") return DistanceType::kDot;
  if (lower == "hamming") return DistanceType::kHamming;
  return Status::InvalidArgument("Unknown distance type '" + std::string(name) +
                                 "'; expected one of: l2, cosine, dot, hamming");
}

std::string_view DistanceTypeName(DistanceType type) {
  switch (type) {
    case DistanceType::kL2:
      return "l2";
    case DistanceType::kCosine:
      return "cosine";
    case DistanceType::kDot:
      return "dot";
    case DistanceType::kHamming:
      return "hamming";
  }
  return "l2";
}

float L2(const float* a, const float* b, size_t dim) noexcept { return K().l2(a, b, dim); }
float Dot(const float* a, const float* b, size_t dim) noexcept { return K().dot(a, b, dim); }
float L2F16(const uint16_t* a, const uint16_t* b, size_t dim) noexcept {
  return K().l2_f16(a, b, dim);
}
float DotF16(const uint16_t* a, const uint16_t* b, size_t dim) noexcept {
  return K().dot_f16(a, b, dim);
}
double L2F64(const double* a, const double* b, size_t dim) noexcept {
  return K().l2_f64(a, b, dim);
}
double DotF64(const double* a, const double* b, size_t dim) noexcept {
  return K().dot_f64(a, b, dim);
}
void Pq4ScanBlock(const float* lut, const uint8_t* codes, size_t num_sub_vectors,
                  float* out) noexcept {
  K().pq4_block(lut, codes, num_sub_vectors, out);
}

uint32_t Hamming(const uint8_t* a, const uint8_t* b, size_t num_bytes) noexcept {
  return K().hamming(a, b, num_bytes);
}

float Distance(DistanceType type, const float* a, const float* b, size_t dim) noexcept {
  switch (type) {
    case DistanceType::kL2:
      return L2(a, b, dim);
    case DistanceType::kDot:
      return -Dot(a, b, dim);
    case DistanceType::kCosine: {
      // A zero vector is at distance 1; a NaN (or infinite) element gives NaN, which searches
      // drop, as LanceDB does.
      float denom = std::sqrt(Norm2(a, dim)) * std::sqrt(Norm2(b, dim));
      return denom != 0 ? 1.0f - Dot(a, b, dim) / denom : 1.0f;
    }
    case DistanceType::kHamming: {
      // uint8 vectors carried one byte per float (binary_vectors.h).
      const std::vector<uint8_t> packed = PackByteFloats(a, dim);
      return HammingToByteFloats(packed.data(), b, dim);
    }
  }
  return 0.0f;
}

float VectorNorm(ElementType element_type, const void* v, size_t dim) noexcept {
  switch (element_type) {
    case ElementType::kFloat16: {
      auto* p = static_cast<const uint16_t*>(v);
      return std::sqrt(DotF16(p, p, dim));
    }
    case ElementType::kFloat32: {
      auto* p = static_cast<const float*>(v);
      return std::sqrt(Dot(p, p, dim));
    }
    case ElementType::kFloat64: {
      auto* p = static_cast<const double*>(v);
      return static_cast<float>(std::sqrt(DotF64(p, p, dim)));
    }
    case ElementType::kBFloat16: {
      std::vector<float> p(dim);
      array::BFloat16ToFloat(std::span(static_cast<const uint16_t*>(v), dim), std::span(p));
      return std::sqrt(Dot(p.data(), p.data(), dim));
    }
    case ElementType::kUInt8:
      break;
  }
  return 0.0f;
}

namespace {

template <typename T, typename L2Fn, typename DotFn>
void BatchTyped(DistanceType type, const T* q, const T* data, int64_t n, size_t dim, float* out,
                float qnorm, L2Fn l2, DotFn dot) {
  for (int64_t r = 0; r < n; ++r) {
    const T* v = data + static_cast<size_t>(r) * dim;
    switch (type) {
      case DistanceType::kL2:
        out[r] = static_cast<float>(l2(q, v, dim));
        break;
      case DistanceType::kDot:
        out[r] = -static_cast<float>(dot(q, v, dim));
        break;
      case DistanceType::kCosine: {
        // As LanceDB's exact search: a zero vector (0 / 0) or a NaN or infinite element
        // gives NaN, which the search drops. Half and single precision compute in float, as
        // Lance does (1 - x.y / (|x| |y|)), so that identical vectors are at exactly 0;
        // double precision stays in double.
        if constexpr (std::is_same_v<T, double>) {
          double vn = std::sqrt(static_cast<double>(dot(v, v, dim)));
          double denom = vn * qnorm;
          out[r] = static_cast<float>(1.0 - static_cast<double>(dot(q, v, dim)) / denom);
        } else {
          float vn = std::sqrt(static_cast<float>(dot(v, v, dim)));
          out[r] = 1.0f - static_cast<float>(dot(q, v, dim)) / (vn * qnorm);
        }
        break;
      }
      case DistanceType::kHamming:
        out[r] = 0.0f;
        break;
    }
  }
}

}  // namespace

void DistanceBatch(DistanceType type, ElementType element_type, const void* query,
                   const void* elements, int64_t num_rows, size_t dim, float* out,
                   std::optional<float> query_norm) noexcept {
  if (type == DistanceType::kHamming) {
    auto* q = static_cast<const uint8_t*>(query);
    auto* d = static_cast<const uint8_t*>(elements);
    for (int64_t r = 0; r < num_rows; ++r) {
      out[r] = static_cast<float>(Hamming(q, d + static_cast<size_t>(r) * dim, dim));
    }
    return;
  }
  float qnorm = 0;
  if (type == DistanceType::kCosine) {
    qnorm = query_norm ? *query_norm : VectorNorm(element_type, query, dim);
  }
  switch (element_type) {
    case ElementType::kFloat32:
      BatchTyped(type, static_cast<const float*>(query), static_cast<const float*>(elements),
                 num_rows, dim, out, qnorm, K().l2, K().dot);
      break;
    case ElementType::kFloat16:
      BatchTyped(type, static_cast<const uint16_t*>(query), static_cast<const uint16_t*>(elements),
                 num_rows, dim, out, qnorm, K().l2_f16, K().dot_f16);
      break;
    case ElementType::kFloat64:
      BatchTyped(type, static_cast<const double*>(query), static_cast<const double*>(elements),
                 num_rows, dim, out, qnorm, K().l2_f64, K().dot_f64);
      break;
    case ElementType::kBFloat16: {
      // Widened (exactly) to float32 a block of rows at a time, then the float32 kernels.
      std::vector<float> q(dim);
      array::BFloat16ToFloat(std::span(static_cast<const uint16_t*>(query), dim), std::span(q));
      constexpr int64_t kBlock = 64;
      std::vector<float> rows(static_cast<size_t>(kBlock) * dim);
      const auto* data = static_cast<const uint16_t*>(elements);
      for (int64_t b = 0; b < num_rows; b += kBlock) {
        const int64_t n = std::min(kBlock, num_rows - b);
        const size_t values = static_cast<size_t>(n) * dim;
        array::BFloat16ToFloat(std::span(data + static_cast<size_t>(b) * dim, values),
                               std::span(rows.data(), values));
        BatchTyped(type, q.data(), rows.data(), n, dim, out + b, qnorm, K().l2, K().dot);
      }
      break;
    }
    case ElementType::kUInt8:
      std::fill(out, out + num_rows, 0.0f);
      break;
  }
}

}  // namespace lancedb::index::vector
