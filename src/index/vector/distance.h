// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Distance functions between vectors, as LanceDB reports them in `_distance` (smaller is
// closer): squared L2, cosine distance (1 - cos), dot (negative inner product) and hamming
// (popcount of xor over uint8 vectors). The float kernels have AVX-512, AVX2+FMA and scalar
// variants in one binary; the best one the CPU supports is chosen once at first use.
// Thread-safety: all functions are pure and thread-safe.

#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "lancedb/status.h"

namespace lancedb::index::vector {

/// Distance metric. Values match Lance's `VectorIndexDetails.metric_type`.
enum class DistanceType : uint8_t { kL2 = 0, kCosine = 1, kDot = 2, kHamming = 3 };

/// Parse "l2"/"euclidean", "cosine", "dot", "hamming" (case-insensitive).
Result<DistanceType> ParseDistanceType(std::string_view name);
/// Return LanceDB's lower-case name ("l2", "cosine", "dot", "hamming").
std::string_view DistanceTypeName(DistanceType type);

/// Vector element type of a column or a query.
/// kBFloat16: pylance's lance.bfloat16 (fixed_size_binary(2)); LanceDB does not search it.
enum class ElementType : uint8_t {
  kFloat16 = 0,
  kFloat32 = 1,
  kFloat64 = 2,
  kUInt8 = 3,
  kBFloat16 = 4
};

/// Width of one element in bytes.
constexpr size_t ElementSize(ElementType type) {
  switch (type) {
    case ElementType::kFloat16:
    case ElementType::kBFloat16:
      return 2;
    case ElementType::kFloat32:
      return 4;
    case ElementType::kFloat64:
      return 8;
    case ElementType::kUInt8:
      return 1;
  }
  return 0;
}

/// Instruction set of the kernels in use.
enum class SimdLevel : uint8_t { kScalar = 0, kAvx2 = 1, kAvx512 = 2 };

/// Return the best level this CPU supports.
SimdLevel DetectSimdLevel();
/// Return the level the kernels currently use.
SimdLevel ActiveSimdLevel();
/// Force the kernels to `level` (clamped to what the CPU supports); for tests and benchmarks.
/// Not thread-safe with concurrent distance calls.
void SetSimdLevel(SimdLevel level);
std::string_view SimdLevelName(SimdLevel level);

// ---------------------------------------------------------------------------------------------
// Pairwise kernels. `dim` is the number of elements; pointers need no alignment.

/// Return sum_i (a_i - b_i)^2.
float L2(const float* a, const float* b, size_t dim) noexcept;
/// Return sum_i a_i * b_i.
float Dot(const float* a, const float* b, size_t dim) noexcept;
/// Return sum_i a_i^2.
inline float Norm2(const float* a, size_t dim) noexcept { return Dot(a, a, dim); }

/// Half-precision (IEEE binary16 bits) variants; accumulate in float32.
float L2F16(const uint16_t* a, const uint16_t* b, size_t dim) noexcept;
float DotF16(const uint16_t* a, const uint16_t* b, size_t dim) noexcept;

/// Double-precision variants; accumulate in float64.
double L2F64(const double* a, const double* b, size_t dim) noexcept;
double DotF64(const double* a, const double* b, size_t dim) noexcept;

/// Return the number of differing bits between two byte vectors of `num_bytes` bytes.
uint32_t Hamming(const uint8_t* a, const uint8_t* b, size_t num_bytes) noexcept;

/// Rows per block of the 4-bit PQ scan.
constexpr size_t kPq4BlockRows = 16;

/// Sum, for each of kPq4BlockRows rows, the lookup-table entries its 4-bit codes select: row
/// r's distance is sum_s lut[s][codes[s][r]] (added in the same order as a one-row scan with
/// four interleaved accumulators, so every instruction set gives the same bits).
/// Layout: lut (num_sub_vectors, 16); codes (num_sub_vectors, kPq4BlockRows), one code (< 16)
/// per byte; out (kPq4BlockRows).
void Pq4ScanBlock(const float* lut, const uint8_t* codes, size_t num_sub_vectors,
                  float* out) noexcept;

/// Return the distance of `type` between two float32 vectors. For cosine, a zero vector has
/// distance 1 to everything. Hamming reads uint8 vectors carried one byte per float
/// (binary_vectors.h; `dim` bytes).
float Distance(DistanceType type, const float* a, const float* b, size_t dim) noexcept;

/// Compute the distance of `type` from `query` to each of `num_rows` vectors stored
/// contiguously in `elements` of `element_type`; write them to `out`.
/// Layout: elements (num_rows, dim); out (num_rows).
/// `query` has the same element type (raw bytes). For cosine, `query_norm` is the query's L2
/// norm (computed when absent); unlike Distance(), a zero query or row gives NaN (LanceDB's
/// exact search drops those rows), as does a NaN or infinite element. For hamming the element
/// type must be kUInt8 and `dim` is the number of bytes.
void DistanceBatch(DistanceType type, ElementType element_type, const void* query,
                   const void* elements, int64_t num_rows, size_t dim, float* out,
                   std::optional<float> query_norm = std::nullopt) noexcept;

/// Return the L2 norm of a vector of `element_type`.
float VectorNorm(ElementType element_type, const void* v, size_t dim) noexcept;

}  // namespace lancedb::index::vector
