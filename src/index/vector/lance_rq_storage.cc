// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Layout and arithmetic: lance_rq_storage.h and docs/format/lance-vector-index.md ("IVF_RQ").

#include "index/vector/lance_rq_storage.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "index/vector/lance_heap.h"
#include "index/vector/lance_pq_storage.h"
#include "index/vector/random.h"

namespace lancedb::index::vector {
namespace {

constexpr int kRotationRounds = 4;
constexpr size_t kBatchRows = 32;  // rows of one packed block
constexpr size_t kExBlockDims = 64;
// Lance's nibble order inside a packed block: byte j holds rows kPerm[j] and kPerm[j] + 16.
constexpr size_t kPerm[16] = {0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15};

void Walsh(std::span<float> v) noexcept {
  for (size_t half = 1; half < v.size(); half *= 2) {
    for (size_t i = 0; i < v.size(); i += 2 * half) {
      for (size_t j = i; j < i + half; ++j) {
        const float x = v[j];
        const float y = v[j + half];
        v[j] = x + y;
        v[j + half] = x - y;
      }
    }
  }
}

void Scale(std::span<float> v, float factor) noexcept {
  for (float& x : v) x *= factor;
}

void KacWalk(std::span<float> v) noexcept {
  const size_t half = v.size() / 2;
  for (size_t i = 0; i < half; ++i) {
    const float x = v[i];
    const float y = v[i + half];
    v[i] = x + y;
    v[i + half] = x - y;
  }
}

/// The top bit of dimension 16k + b of a block, from its little-endian top-bit plane.
int TopBit(const uint8_t* plane, size_t k, size_t b) {
  const size_t bit = 8 * (b % 8) + 2 * k + b / 8;
  return (plane[bit / 8] >> (bit % 8)) & 1;
}

/// Decode one block of 64 dimensions (8 * ex_bits bytes at `g`) into `v`.
void DecodeExBlock(const uint8_t* g, int ex_bits, uint8_t* v) {
  switch (ex_bits) {
    case 1:
      for (size_t i = 0; i < 64; ++i) v[i] = (g[i / 8] >> (i % 8)) & 1;
      break;
    case 2:
    case 3:
      for (size_t k = 0; k < 4; ++k) {
        for (size_t b = 0; b < 16; ++b) {
          v[16 * k + b] = static_cast<uint8_t>(((g[b] >> (2 * k)) & 3) |
                                               (ex_bits == 3 ? TopBit(g + 16, k, b) << 2 : 0));
        }
      }
      break;
    case 4:
      for (size_t unit = 0; unit < 4; ++unit) {
        for (size_t b = 0; b < 8; ++b) {
          v[16 * unit + b] = g[8 * unit + b] & 15;
          v[16 * unit + 8 + b] = g[8 * unit + b] >> 4;
        }
      }
      break;
    case 5:
      for (size_t k = 0; k < 4; ++k) {
        for (size_t b = 0; b < 16; ++b) {
          const int nibble = (g[16 * (k / 2) + b] >> (4 * (k % 2))) & 15;
          v[16 * k + b] = static_cast<uint8_t>(nibble | TopBit(g + 32, k, b) << 4);
        }
      }
      break;
    case 6:
    case 7:
      for (size_t k = 0; k < 3; ++k) {
        for (size_t b = 0; b < 16; ++b) v[16 * k + b] = g[16 * k + b] & 0x3f;
      }
      for (size_t b = 0; b < 16; ++b) {
        v[48 + b] =
            static_cast<uint8_t>((g[b] >> 6) | (g[16 + b] >> 6) << 2 | (g[32 + b] >> 6) << 4);
      }
      if (ex_bits == 7) {
        for (size_t k = 0; k < 4; ++k) {
          for (size_t b = 0; b < 16; ++b) v[16 * k + b] |= TopBit(g + 48, k, b) << 6;
        }
      }
      break;
    default:
      std::memcpy(v, g, 64);
  }
}

/// Scores the rows of one partition for one query (see the header for the arithmetic).
class RqComputer final : public DistanceComputer {
 public:
  RqComputer(const LanceRqStorage& s, std::span<const float> query) : s_(s) {
    const LanceRabitQuantizer& rq = s.rq();
    const size_t code_dim = rq.code_dim();
    rotated_.resize(code_dim);
    rq.Rotate(query, rotated_);
    for (float v : rotated_) sum_q_ += v;
    const float dist_q_c = LanceL2(query.data(), s.centroid().data(), rq.dim());
    if (rq.metric() == DistanceType::kDot) {
      const float* c = s.rotated_centroid().data();
      query_factor_ = -LanceDot(rotated_.data(), c, code_dim);
      query_error_ = std::sqrt(LanceL2(rotated_.data(), c, code_dim));
    } else {
      query_factor_ = dist_q_c;
      query_error_ = std::sqrt(std::max(dist_q_c, 0.0f));
    }
    BuildTables();
    const size_t n = s.rows().add.size();
    packed_rows_ = exact_all_ ? 0 : n - n % kBatchRows;
  }

  float Distance(int64_t row) const override {
    const auto r = static_cast<size_t>(row);
    const float ip = BinaryIp(r);
    if (s_.rq().num_bits() == 1) {
      const auto& rows = s_.rows();
      return (ip + -0.5f * sum_q_) * rows.scale[r] + rows.add[r] + query_factor_;
    }
    return MultiBit(r, ip);
  }

  bool ScansIntoHeap() const override { return true; }
  bool OfferAsLance(const RowPredicate& accept, const std::function<bool(float)>& in_range,
                    const std::function<bool(float)>& below_upper,
                    std::span<const uint64_t> row_ids, LanceHeap& heap) const override {
    const size_t n = row_ids.size();
    const bool gated = s_.rq().num_bits() > 1;
    const auto& rows = s_.rows();
    for (size_t r = 0; r < n; ++r) {
      if (accept && !accept(static_cast<int64_t>(r))) continue;
      if (!gated) {
        const float d = Distance(static_cast<int64_t>(r));
        if (in_range(d)) heap.Offer(d, row_ids[r]);
        continue;
      }
      // LanceDB scores a row's extra bits only when its 1-bit lower bound may still enter.
      const float ip = BinaryIp(r);
      const float lower = (ip - 0.5f * sum_q_) * rows.scale[r] + rows.add[r] + query_factor_ -
                          rows.error[r] * query_error_;
      if (!below_upper(lower)) continue;
      if (heap.full() && lower >= heap.worst()) continue;
      const float d = MultiBit(r, ip);
      if (in_range(d)) heap.Offer(d, row_ids[r]);
    }
    return true;
  }

 private:
  /// The sums of each 4 rotated dimensions for each bit pattern, and their 8-bit quantization.
  void BuildTables() {
    const size_t code_dim = rotated_.size();
    table_.assign(code_dim * 4, 0.0f);
    for (size_t seg = 0; seg < code_dim / 4; ++seg) {
      float* t = &table_[seg * 16];
      for (unsigned j = 1; j < 16; ++j) {
        const unsigned low = j & (~j + 1);
        t[j] = t[j - low] + rotated_[4 * seg + static_cast<size_t>(std::countr_zero(j))];
      }
    }
    float lo = std::numeric_limits<float>::infinity();
    float hi = -std::numeric_limits<float>::infinity();
    for (float v : table_) {
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
    const auto num_tables = static_cast<float>(code_dim / 4);
    if (!std::isfinite(num_tables * lo) || !std::isfinite(num_tables * hi) ||
        !std::isfinite(num_tables * (hi - lo))) {
      exact_all_ = true;  // Lance then sums every row exactly
      return;
    }
    lut_.assign(table_.size(), 0);
    const float factor = 255.0f / (hi - lo);
    if (std::isfinite(factor)) {
      for (size_t i = 0; i < table_.size(); ++i) {
        // Round half to even (the SIMD converts' mode), saturated to a byte.
        const float q = std::nearbyint((table_[i] - lo) * factor);
        lut_[i] = static_cast<uint8_t>(std::clamp(q, 0.0f, 255.0f));
      }
    }
    lut_step_ = (hi - lo) / 255.0f;
    lut_base_ = num_tables * lo;
  }

  float BinaryIp(size_t row) const {
    const size_t bytes = s_.rq().code_bytes();
    const uint8_t* code = s_.rows().codes.data() + row * bytes;
    if (row < packed_rows_) {
      uint16_t sum = 0;  // wraps as Lance's 16-bit SIMD lanes do
      for (size_t b = 0; b < bytes; ++b) {
        sum = static_cast<uint16_t>(sum + lut_[32 * b + (code[b] & 15)] +
                                    lut_[32 * b + 16 + (code[b] >> 4)]);
      }
      return static_cast<float>(sum) * lut_step_ + lut_base_;
    }
    float sum = 0.0f;
    for (size_t b = 0; b < bytes; ++b) {
      sum += table_[32 * b + (code[b] & 15)] + table_[32 * b + 16 + (code[b] >> 4)];
    }
    return sum;
  }

  /// The estimate with the extra bits; <r, ex> in 16 lanes, as Lance's AVX-512 kernel.
  float MultiBit(size_t row, float ip) const {
    const size_t code_dim = rotated_.size();
    const uint8_t* ex = s_.rows().ex_codes.data() + row * code_dim;
    float lanes[16] = {};
    for (size_t d = 0; d < code_dim; ++d) {
      lanes[d % 16] = std::fma(rotated_[d], static_cast<float>(ex[d]), lanes[d % 16]);
    }
    for (size_t width = 8; width > 0; width /= 2) {
      for (size_t i = 0; i < width; ++i) lanes[i] += lanes[i + width];
    }
    const int ex_bits = s_.rq().num_bits() - 1;
    const auto code_scale = static_cast<float>(1u << ex_bits);
    const float code_bias = -(code_scale - 0.5f);
    const float full = code_scale * ip + lanes[0] + code_bias * sum_q_;
    const auto& rows = s_.rows();
    return full * rows.ex_scale[row] + rows.ex_add[row] + query_factor_;
  }

  const LanceRqStorage& s_;
  std::vector<float> rotated_;
  std::vector<float> table_;  // (code_dim / 4, 16)
  std::vector<uint8_t> lut_;
  bool exact_all_ = false;
  size_t packed_rows_ = 0;
  float lut_step_ = 0.0f;
  float lut_base_ = 0.0f;
  float sum_q_ = 0.0f;
  float query_factor_ = 0.0f;
  float query_error_ = 0.0f;
};

/// For each (dimension, bit) of a 64-dimension block of `ex_bits`: the block bit holding it.
/// Found by decoding each single-bit block (every layout moves bits, one to one).
const std::vector<uint16_t>& ExBitPositions(int ex_bits) {
  static const auto tables = [] {
    std::array<std::vector<uint16_t>, 9> t;
    for (int bits = 1; bits <= 8; ++bits) {
      const size_t block_bytes = kExBlockDims * static_cast<size_t>(bits) / 8;
      t[bits].assign(kExBlockDims * static_cast<size_t>(bits), 0);
      std::vector<uint8_t> block(block_bytes);
      uint8_t values[kExBlockDims];
      for (size_t k = 0; k < 8 * block_bytes; ++k) {
        std::fill(block.begin(), block.end(), 0);
        block[k / 8] = static_cast<uint8_t>(1u << (k % 8));
        DecodeExBlock(block.data(), bits, values);
        for (size_t d = 0; d < kExBlockDims; ++d) {
          if (values[d] != 0) {
            t[bits][d * static_cast<size_t>(bits) + std::countr_zero(values[d])] =
                static_cast<uint16_t>(k);
          }
        }
      }
    }
    return t;
  }();
  return tables[ex_bits];
}

constexpr float kExEpsilon = 1.0e-5f;
// Where the search for the rescaling factor starts, as a fraction of its end, per ex_bits.
constexpr float kExSearchStart[9] = {0.0f, 0.15f, 0.20f, 0.52f, 0.59f, 0.71f, 0.75f, 0.77f, 0.81f};
constexpr float kErrorEpsilon = 1.9f;

/// The factor t maximizing the cosine between (floor(t |o_i|) + 1/2) and |o| (|o| the
/// normalized absolute residual), over the thresholds where a code steps up.
float BestExRescale(std::span<const float> abs_normalized, int ex_bits) {
  float max_value = 0.0f;
  for (float v : abs_normalized) {
    if (std::isfinite(v)) max_value = std::max(max_value, v);
  }
  if (max_value <= 0.0f) return 0.0f;
  const size_t max_code = (size_t{1} << ex_bits) - 1;
  const float t_end = static_cast<float>(max_code + 10) / max_value;
  const float t_start = t_end * kExSearchStart[ex_bits];
  std::vector<size_t> codes(abs_normalized.size(), 0);
  float denominator = static_cast<float>(abs_normalized.size()) * 0.25f;
  float numerator = 0.0f;
  std::vector<std::pair<float, size_t>> steps;
  for (size_t i = 0; i < abs_normalized.size(); ++i) {
    const float v = abs_normalized[i];
    if (v <= 0.0f || !std::isfinite(v)) continue;
    const auto code = static_cast<size_t>(
        std::clamp(std::floor(t_start * v + kExEpsilon), 0.0f, static_cast<float>(max_code)));
    codes[i] = code;
    denominator += static_cast<float>(code * code + code);
    numerator += (static_cast<float>(code) + 0.5f) * v;
    for (size_t next = code + 1; next <= max_code; ++next) {
      const float at = static_cast<float>(next) / v;
      if (at < t_end) steps.emplace_back(at, i);
    }
  }
  std::sort(steps.begin(), steps.end(), [](const auto& a, const auto& b) {
    // Unstable in Lance; ties in t give the same best t whatever their order.
    return a.first < b.first;
  });
  float best = numerator / std::sqrt(denominator);
  float best_t = t_start;
  for (const auto& [at, i] : steps) {
    const size_t code = ++codes[i];
    denominator += static_cast<float>(2 * code);
    numerator += abs_normalized[i];
    const float ip = numerator / std::sqrt(denominator);
    if (ip > best) {
      best = ip;
      best_t = at;
    }
  }
  return best_t;
}

/// The extra codes of a rotated residual (one value a dimension, into `ex`); returns the
/// residual's inner product with its full code (sign and extra bits, centred).
float QuantizeEx(std::span<const float> rotated, int ex_bits, std::span<uint8_t> ex) {
  float norm_sq = 0.0f;
  for (float v : rotated) norm_sq += v * v;
  if (norm_sq <= std::numeric_limits<float>::epsilon() || !std::isfinite(norm_sq)) {
    std::fill(ex.begin(), ex.end(), 0);
    return 0.0f;
  }
  const float norm = std::sqrt(norm_sq);
  std::vector<float> abs_normalized(rotated.size());
  for (size_t i = 0; i < rotated.size(); ++i) abs_normalized[i] = std::fabs(rotated[i]) / norm;
  const float t = BestExRescale(abs_normalized, ex_bits);
  const auto max_code = static_cast<uint8_t>((1u << ex_bits) - 1);
  const float bias = -(static_cast<float>(1u << ex_bits) - 0.5f);
  float dot = 0.0f;
  for (size_t i = 0; i < rotated.size(); ++i) {
    auto code = static_cast<uint8_t>(std::clamp(std::floor(t * abs_normalized[i] + kExEpsilon),
                                                0.0f, static_cast<float>(max_code)));
    const bool positive = !std::signbit(rotated[i]);
    if (!positive) code = static_cast<uint8_t>(~code & max_code);
    const uint32_t full = (static_cast<uint32_t>(positive) << ex_bits) + code;
    dot += rotated[i] * (static_cast<float>(full) + bias);
    ex[i] = code;
  }
  return dot;
}

float Ratio(float numerator, float denominator) {
  return denominator == 0.0f ? 0.0f : numerator / denominator;
}

/// Lance's bound on the 1-bit estimate's error for a row.
float ErrorFactor(DistanceType metric, float norm_sq, float binary_dot, size_t code_dim) {
  if (code_dim <= 1 || norm_sq <= 0.0f || binary_dot == 0.0f) return 0.0f;
  const float code_norm_sq = static_cast<float>(code_dim) * 0.25f;
  const float alignment = norm_sq * code_norm_sq / (binary_dot * binary_dot);
  const float angular =
      std::sqrt(std::max(alignment - 1.0f, 0.0f) / (static_cast<float>(code_dim) - 1.0f));
  const float error = std::sqrt(norm_sq) * kErrorEpsilon * angular;
  return metric == DistanceType::kDot ? error : 2.0f * error;
}

}  // namespace

void LanceFastRotate(std::span<const float> in, std::span<float> out,
                     std::span<const uint8_t> signs) noexcept {
  const size_t dim = out.size();
  std::fill(out.begin(), out.end(), 0.0f);
  std::copy_n(in.begin(), std::min(in.size(), dim), out.begin());
  if (dim == 0) return;
  const size_t bytes = (dim + 7) / 8;
  const size_t trunc = std::bit_floor(dim);
  const float scale = 1.0f / std::sqrt(static_cast<float>(trunc));
  for (int round = 0; round < kRotationRounds; ++round) {
    const uint8_t* s = signs.data() + static_cast<size_t>(round) * bytes;
    for (size_t i = 0; i < dim; ++i) {
      if ((s[i / 8] >> (i % 8)) & 1) out[i] = -out[i];
    }
    if (trunc == dim) {
      Walsh(out);
      Scale(out, scale);
      continue;
    }
    auto window = round % 2 == 0 ? out.first(trunc) : out.last(trunc);
    Walsh(window);
    Scale(window, scale);
    KacWalk(out);
  }
  if (trunc != dim) Scale(out, 0.25f);
}

std::vector<uint8_t> UnpackLanceRabitCodes(std::span<const uint8_t> packed, size_t n,
                                           size_t code_bytes) {
  std::vector<uint8_t> out(n * code_bytes);
  const size_t blocks = n / kBatchRows;
  for (size_t block = 0; block < blocks; ++block) {
    const uint8_t* base = packed.data() + block * kBatchRows * code_bytes;
    uint8_t* rows = out.data() + block * kBatchRows * code_bytes;
    for (size_t i = 0; i < code_bytes; ++i) {
      const uint8_t* col = base + i * kBatchRows;  // low nibbles, then high nibbles
      for (size_t j = 0; j < 16; ++j) {
        const uint8_t lo = col[j];
        const uint8_t hi = col[j + 16];
        rows[kPerm[j] * code_bytes + i] = static_cast<uint8_t>((lo & 15) | (hi & 15) << 4);
        rows[(kPerm[j] + 16) * code_bytes + i] = static_cast<uint8_t>((lo >> 4) | (hi & 0xf0));
      }
    }
  }
  const size_t rest = n - blocks * kBatchRows;
  const size_t offset = blocks * kBatchRows * code_bytes;
  for (size_t r = 0; r < rest; ++r) {
    for (size_t c = 0; c < code_bytes; ++c) {
      out[offset + r * code_bytes + c] = packed[offset + c * rest + r];
    }
  }
  return out;
}

std::vector<uint8_t> DecodeLanceExCodes(std::span<const uint8_t> blocked, size_t n, size_t code_dim,
                                        int ex_bits) {
  const size_t blocks = (code_dim + kExBlockDims - 1) / kExBlockDims;
  const size_t block_bytes = kExBlockDims * static_cast<size_t>(ex_bits) / 8;
  std::vector<uint8_t> out(n * code_dim);
  uint8_t values[kExBlockDims];
  for (size_t r = 0; r < n; ++r) {
    for (size_t b = 0; b < blocks; ++b) {
      DecodeExBlock(blocked.data() + (r * blocks + b) * block_bytes, ex_bits, values);
      const size_t count = std::min(kExBlockDims, code_dim - b * kExBlockDims);
      std::copy_n(values, count, out.data() + r * code_dim + b * kExBlockDims);
    }
  }
  return out;
}

std::vector<uint8_t> PackLanceRabitCodes(std::span<const uint8_t> rows, size_t n,
                                         size_t code_bytes) {
  std::vector<uint8_t> out(n * code_bytes);
  const size_t blocks = n / kBatchRows;
  for (size_t block = 0; block < blocks; ++block) {
    uint8_t* base = out.data() + block * kBatchRows * code_bytes;
    const uint8_t* in = rows.data() + block * kBatchRows * code_bytes;
    for (size_t i = 0; i < code_bytes; ++i) {
      uint8_t* col = base + i * kBatchRows;
      for (size_t j = 0; j < 16; ++j) {
        const uint8_t a = in[kPerm[j] * code_bytes + i];
        const uint8_t b = in[(kPerm[j] + 16) * code_bytes + i];
        col[j] = static_cast<uint8_t>((a & 15) | (b & 15) << 4);
        col[j + 16] = static_cast<uint8_t>((a >> 4) | (b & 0xf0));
      }
    }
  }
  const size_t rest = n - blocks * kBatchRows;
  const size_t offset = blocks * kBatchRows * code_bytes;
  for (size_t r = 0; r < rest; ++r) {
    for (size_t c = 0; c < code_bytes; ++c) {
      out[offset + c * rest + r] = rows[offset + r * code_bytes + c];
    }
  }
  return out;
}

std::vector<uint8_t> EncodeLanceExCodes(std::span<const uint8_t> values, size_t n, size_t code_dim,
                                        int ex_bits) {
  const size_t blocks = (code_dim + kExBlockDims - 1) / kExBlockDims;
  const size_t block_bytes = kExBlockDims * static_cast<size_t>(ex_bits) / 8;
  const auto& positions = ExBitPositions(ex_bits);
  std::vector<uint8_t> out(n * blocks * block_bytes, 0);
  for (size_t r = 0; r < n; ++r) {
    for (size_t d = 0; d < code_dim; ++d) {
      const uint8_t v = values[r * code_dim + d];
      uint8_t* block = out.data() + (r * blocks + d / kExBlockDims) * block_bytes;
      for (int b = 0; b < ex_bits; ++b) {
        if ((v >> b) & 1) {
          const uint16_t k = positions[(d % kExBlockDims) * static_cast<size_t>(ex_bits) + b];
          block[k / 8] = static_cast<uint8_t>(block[k / 8] | 1u << (k % 8));
        }
      }
    }
  }
  return out;
}

std::vector<uint8_t> LanceFastRotationSigns(size_t code_dim, uint64_t seed) {
  Rng rng(seed);
  std::vector<uint8_t> signs(static_cast<size_t>(kRotationRounds) * ((code_dim + 7) / 8));
  for (auto& s : signs) s = static_cast<uint8_t>(rng.Next() >> 56);
  return signs;
}

std::unique_ptr<PartitionStorage> LanceRabitQuantizer::Encode(
    std::span<const float> vectors, std::span<const float> centroid) const {
  const size_t n = dim_ == 0 ? 0 : vectors.size() / dim_;
  const size_t bytes = code_bytes();
  const int ex_bits = num_bits_ - 1;
  std::vector<float> rotated_centroid(code_dim_);
  Rotate(centroid, rotated_centroid);
  LanceRqRows rows;
  rows.codes.assign(n * bytes, 0);
  rows.add.resize(n);
  rows.scale.resize(n);
  rows.error.resize(n);
  if (ex_bits > 0) {
    rows.ex_codes.assign(n * code_dim_, 0);
    rows.ex_add.resize(n);
    rows.ex_scale.resize(n);
  }
  std::vector<float> residual(dim_);
  std::vector<float> rotated(code_dim_);
  const float ex_bias = -(static_cast<float>(1u << ex_bits) - 0.5f);
  for (size_t r = 0; r < n; ++r) {
    const float* v = vectors.data() + r * dim_;
    for (size_t j = 0; j < dim_; ++j) residual[j] = v[j] - centroid[j];
    float norm_sq = 0.0f;
    if (metric_ == DistanceType::kDot) {
      for (float x : residual) norm_sq += x * x;
    } else {
      norm_sq = LanceL2(v, centroid.data(), dim_);
    }
    Rotate(residual, rotated);
    uint8_t* code = rows.codes.data() + r * bytes;
    for (size_t d = 0; d < code_dim_; ++d) {
      if (!std::signbit(rotated[d]))
        code[d / 8] = static_cast<uint8_t>(code[d / 8] | 1u << (d % 8));
    }
    std::span<uint8_t> ex;
    float ex_dot = 0.0f;
    if (ex_bits > 0) {
      ex = std::span(rows.ex_codes).subspan(r * code_dim_, code_dim_);
      ex_dot = QuantizeEx(rotated, ex_bits, ex);
    }
    float binary_dot = 0.0f;
    float binary_centroid = 0.0f;
    float ex_centroid = 0.0f;
    float residual_centroid = 0.0f;
    for (size_t d = 0; d < code_dim_; ++d) {
      const bool positive = !std::signbit(rotated[d]);
      const float half = positive ? 0.5f : -0.5f;
      const float c = rotated_centroid[d];
      binary_dot += rotated[d] * half;
      binary_centroid += c * half;
      if (ex_bits > 0) {
        const uint32_t full = (static_cast<uint32_t>(positive) << ex_bits) + ex[d];
        ex_centroid += c * (static_cast<float>(full) + ex_bias);
      }
      residual_centroid += rotated[d] * c;
    }
    const float binary_correction = Ratio(norm_sq * binary_centroid, binary_dot);
    const float ex_correction = Ratio(norm_sq * ex_centroid, ex_dot);
    rows.error[r] = ErrorFactor(metric_, norm_sq, binary_dot, code_dim_);
    const bool dot = metric_ == DistanceType::kDot;
    const float base = dot ? 1.0f - residual_centroid : norm_sq;
    const float k = dot ? 1.0f : 2.0f;
    rows.add[r] = base + k * binary_correction;
    rows.scale[r] = Ratio(-k * norm_sq, binary_dot);
    if (ex_bits > 0) {
      rows.ex_add[r] = base + k * ex_correction;
      rows.ex_scale[r] = Ratio(-k * norm_sq, ex_dot);
    }
  }
  return std::make_unique<LanceRqStorage>(this, std::move(rows), centroid);
}

LanceRqStorage::LanceRqStorage(const LanceRabitQuantizer* rq, LanceRqRows rows,
                               std::span<const float> centroid)
    : rq_(rq),
      rows_(std::move(rows)),
      centroid_(centroid.begin(), centroid.end()),
      rotated_centroid_(rq->code_dim()) {
  rq_->Rotate(centroid_, rotated_centroid_);
}

std::unique_ptr<LanceRqStorage> LanceRqStorage::Select(const std::vector<size_t>& keep,
                                                       const LanceRqStorage* more) const {
  const size_t bytes = rq_->code_bytes();
  const size_t code_dim = rq_->code_dim();
  const bool ex = rq_->num_bits() > 1;
  LanceRqRows out;
  auto take = [&](const LanceRqRows& from, size_t r) {
    out.codes.insert(out.codes.end(), from.codes.begin() + r * bytes,
                     from.codes.begin() + (r + 1) * bytes);
    out.add.push_back(from.add[r]);
    out.scale.push_back(from.scale[r]);
    out.error.push_back(from.error.empty() ? 0.0f : from.error[r]);
    if (ex) {
      out.ex_codes.insert(out.ex_codes.end(), from.ex_codes.begin() + r * code_dim,
                          from.ex_codes.begin() + (r + 1) * code_dim);
      out.ex_add.push_back(from.ex_add[r]);
      out.ex_scale.push_back(from.ex_scale[r]);
    }
  };
  for (size_t r : keep) take(rows_, r);
  if (more != nullptr) {
    for (size_t r = 0; r < more->rows_.add.size(); ++r) take(more->rows_, r);
  }
  return std::make_unique<LanceRqStorage>(rq_, std::move(out), centroid_);
}

std::unique_ptr<DistanceComputer> LanceRqStorage::QueryComputer(
    std::span<const float> query) const {
  return std::make_unique<RqComputer>(*this, query);
}

}  // namespace lancedb::index::vector
