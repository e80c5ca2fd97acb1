// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// A partition of a LanceDB-built IVF_RQ (RaBitQ) index, scored with LanceDB's arithmetic so that
// searches over its files give LanceDB's candidates and distances
// (docs/format/lance-vector-index.md, "IVF_RQ"). Read: the "raw query" estimator with the fast
// rotation that pylance 12 writes, 1 to 9 bits a dimension.
//   - The query q (normalized for cosine) is rotated once: r = R q, R the fast rotation
//     (LanceFastRotate); sum_q is the sum of r in order.
//   - Binary inner product of a row: sum of r over the dimensions whose sign bit is set, read
//     from a table of the sums of each 4 dimensions for each 4-bit pattern. For the rows of
//     whole blocks of 32 (Lance's packed layout) the table is first quantized to 8 bits
//     (round half to even of (t - min) * 255 / (max - min)); the integer sum s gives
//     s * ((max - min) / 255) + num_tables * min. The last num_rows % 32 rows are summed exactly.
//   - 1 bit: d = (ip - 0.5 sum_q) * scale + add + f, with the per-query factor f = |q - c|^2 (l2,
//     cosine) or -<r, R c> (dot).
//   - B > 1 bits (ex_bits = B - 1): d = (2^ex ip + <r, ex> - (2^ex - 0.5) sum_q) * ex_scale +
//     ex_add + f; LanceDB skips a row (OfferAsLance) when its 1-bit lower bound
//     (ip - 0.5 sum_q) * scale + add + f - error * e, e = |q - c| (l2, cosine) or |r - R c|
//     (dot), is not below the worst of a full top-k heap (or the upper bound of the range).
// Distances are Lance's: squared L2 between normalized vectors for cosine (as found), -x.y for
// dot (reported as it is: IvfSearchStyle::dot_as_found). Thread-safety: immutable.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "index/vector/quantizer.h"

namespace lancedb::index::vector {

/// Apply Lance's fast rotation (4 rounds of sign flips, Walsh-Hadamard transform and scaling;
/// Kac walks when `out.size()` is not a power of two) to `in`, zero-padded to `out.size()`.
/// `signs`: 4 * ceil(out.size() / 8) bytes, bit i of a round's bytes flips dimension i.
void LanceFastRotate(std::span<const float> in, std::span<float> out,
                     std::span<const uint8_t> signs) noexcept;

/// Unpack Lance's packed RaBitQ sign codes (`n` rows of `code_bytes`: blocks of 32 rows
/// interleaved by nibble, the last n % 32 rows column-major) into row-major rows.
std::vector<uint8_t> UnpackLanceRabitCodes(std::span<const uint8_t> packed, size_t n,
                                           size_t code_bytes);

/// Pack row-major RaBitQ sign codes (`n` rows of `code_bytes`) in Lance's order (the inverse of
/// UnpackLanceRabitCodes).
std::vector<uint8_t> PackLanceRabitCodes(std::span<const uint8_t> rows, size_t n,
                                         size_t code_bytes);

/// Block one value a dimension (`n` rows of `code_dim`, each below 2^ex_bits) in Lance's
/// layout (the inverse of DecodeLanceExCodes).
std::vector<uint8_t> EncodeLanceExCodes(std::span<const uint8_t> values, size_t n, size_t code_dim,
                                        int ex_bits);

/// Fast rotation signs for `code_dim` (4 rounds of ceil(code_dim / 8) bytes) drawn from `seed`.
std::vector<uint8_t> LanceFastRotationSigns(size_t code_dim, uint64_t seed);

/// Decode Lance's blocked extra codes (`n` rows, blocks of 64 dimensions of `ex_bits` bits)
/// into one value a dimension. Layout: out (n, code_dim).
std::vector<uint8_t> DecodeLanceExCodes(std::span<const uint8_t> blocked, size_t n, size_t code_dim,
                                        int ex_bits);

class LanceRabitQuantizer final : public Quantizer {
 public:
  /// `metric`: the index metric (kL2 for l2 and cosine, kDot). REQUIRES: code_dim a multiple of
  /// 8, at least dim; signs.size() == 4 * code_dim / 8; 1 <= num_bits <= 9.
  LanceRabitQuantizer(size_t dim, size_t code_dim, int num_bits, DistanceType metric,
                      std::vector<uint8_t> signs)
      : dim_(dim),
        code_dim_(code_dim),
        num_bits_(num_bits),
        metric_(metric),
        signs_(std::move(signs)) {}

  QuantizerType type() const override { return QuantizerType::kRq; }
  /// Encode rows as Lance's RQ transform does (residuals to `centroid`, rotated; sign codes,
  /// for num_bits > 1 the extra codes at the rescaling that best aligns them with the residual;
  /// the raw-query factors). Returns a LanceRqStorage (codes unpacked).
  std::unique_ptr<PartitionStorage> Encode(std::span<const float> vectors,
                                           std::span<const float> centroid) const override;

  size_t dim() const { return dim_; }
  size_t code_dim() const { return code_dim_; }
  size_t code_bytes() const { return code_dim_ / 8; }
  int num_bits() const { return num_bits_; }
  DistanceType metric() const { return metric_; }
  /// The fast rotation signs (4 rounds of code_dim / 8 bytes).
  std::span<const uint8_t> signs() const { return signs_; }
  /// out = R v. Layout: v (dim), out (code_dim).
  void Rotate(std::span<const float> v, std::span<float> out) const noexcept {
    LanceFastRotate(v, out, signs_);
  }

 private:
  size_t dim_;
  size_t code_dim_;
  int num_bits_;
  DistanceType metric_;
  std::vector<uint8_t> signs_;
};

/// The per-row parts of a partition. Layouts: codes (num_rows, code_bytes), row-major;
/// ex_codes (num_rows, code_dim), one value a dimension (empty for 1 bit); the factors
/// (num_rows) each (the ex factors empty for 1 bit).
struct LanceRqRows {
  std::vector<uint8_t> codes;
  std::vector<float> add;
  std::vector<float> scale;
  std::vector<float> error;
  std::vector<uint8_t> ex_codes;
  std::vector<float> ex_add;
  std::vector<float> ex_scale;
};

class LanceRqStorage final : public PartitionStorage {
 public:
  /// `rq` outlives the storage. Layout: centroid (dim).
  LanceRqStorage(const LanceRabitQuantizer* rq, LanceRqRows rows, std::span<const float> centroid);

  int64_t num_rows() const override { return static_cast<int64_t>(rows_.add.size()); }
  std::unique_ptr<DistanceComputer> QueryComputer(std::span<const float> query) const override;

  const LanceRabitQuantizer& rq() const { return *rq_; }
  /// The rows `keep` (ascending local rows) of this storage, then (if given) those of `more`.
  std::unique_ptr<LanceRqStorage> Select(const std::vector<size_t>& keep,
                                         const LanceRqStorage* more) const;
  const LanceRqRows& rows() const { return rows_; }
  std::span<const float> centroid() const { return centroid_; }
  /// R c. Layout: (code_dim).
  std::span<const float> rotated_centroid() const { return rotated_centroid_; }

 private:
  const LanceRabitQuantizer* rq_;
  LanceRqRows rows_;
  std::vector<float> centroid_;
  std::vector<float> rotated_centroid_;
};

}  // namespace lancedb::index::vector
