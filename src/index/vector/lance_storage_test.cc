// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// LanceDB's search arithmetic (lance_heap.h, lance_sq_storage.h, lance_pq_storage.h); searches
// over real LanceDB indices are compared with LanceDB in src/db/lance_vector_index_test.cc and
// python/tests/test_lancedb_vector_indices.py.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "index/vector/flat_storage.h"
#include "index/vector/ivf_index.h"
#include "index/vector/lance_heap.h"
#include "index/vector/lance_pq_storage.h"
#include "index/vector/lance_sq_storage.h"

namespace lancedb::index::vector {
namespace LANCEDB_TEST_FILE_NS {

std::vector<uint64_t> Ids(const LanceHeap& heap) {
  std::vector<uint64_t> ids;
  for (const auto& n : heap.entries()) ids.push_back(n.row_id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

TEST(LanceHeap, KeepsTheFirstOfEqualRowsUntilACloserOneEvictsTheRoot) {
  LanceHeap heap(2);
  heap.Offer(1.0f, 10);
  heap.Offer(1.0f, 11);
  heap.Offer(1.0f, 12);  // not strictly closer: ignored
  EXPECT_EQ(Ids(heap), (std::vector<uint64_t>{10, 11}));
  heap.Offer(0.5f, 13);  // evicts the root, the first row offered
  EXPECT_EQ(Ids(heap), (std::vector<uint64_t>{11, 13}));
  heap.Offer(std::nanf(""), 14);
  EXPECT_EQ(Ids(heap), (std::vector<uint64_t>{11, 13}));
}

// One top-k for all probed partitions, not one per partition: the three rules keep different
// rows among equally distant ones, and LanceDB 12 follows this one.
TEST(LanceIvfSearch, OneHeapForAllProbedPartitions) {
  std::vector<IvfPartition> parts(2);
  // Partition 0 (probed first: its centroid is nearer the query 0) holds row 100 at squared
  // distance 4; partition 1 holds rows 200, 201 at 4, then row 202 at 1.
  const std::vector<std::vector<float>> values = {{2.0f}, {2.0f, -2.0f, 1.0f}};
  const std::vector<std::vector<uint64_t>> ids = {{100}, {200, 201, 202}};
  for (size_t p = 0; p < parts.size(); ++p) {
    parts[p].row_ids = ids[p];
    parts[p].storage = std::make_unique<FlatStorage>(values[p], 1, DistanceType::kL2);
    parts[p].sub_index = std::make_unique<FlatSubIndex>();
  }
  IvfSearchStyle style;
  style.as_lancedb = true;
  IvfIndex index(1, DistanceType::kL2, {0.5f, 1.5f},
                 std::make_unique<FlatQuantizer>(1, DistanceType::kL2), SubIndexType::kFlat,
                 std::move(parts), style);
  IvfSearchParams params;
  params.k = 2;
  params.nprobes = 2;
  auto found = index.Search(std::vector<float>{0.0f}, params);
  ASSERT_TRUE(found.ok());
  // The shared heap keeps 100 and 200 (201 is not strictly closer), then 202 evicts the root,
  // 100. Per-partition heaps would keep 201 (partition 1's heap evicts 200); ranking all rows
  // by (distance, row id) would keep 100.
  ASSERT_EQ(found->size(), 2u);
  EXPECT_EQ((*found)[0].row_id, 202u);
  EXPECT_EQ((*found)[0].distance, 1.0f);
  EXPECT_EQ((*found)[1].row_id, 200u);
  EXPECT_EQ((*found)[1].distance, 4.0f);
}

TEST(LanceScalarQuantizer, TruncatesAndSaturatesAsLance) {
  LanceScalarQuantizer sq(4, DistanceType::kL2, -1.0, 1.0);
  const std::vector<float> values = {-2.0f, -1.0f, 0.0f, 0.999f, 1.0f, 3.0f};
  std::vector<uint8_t> codes(values.size());
  sq.Quantize(values, codes.data());
  // (v + 1) * 255 / 2, truncated: 127.5 -> 127, 254.87 -> 254.
  EXPECT_EQ(codes, (std::vector<uint8_t>{0, 0, 127, 254, 255, 255}));
}

TEST(LanceScalarQuantizer, DistancesAreLances) {
  LanceScalarQuantizer l2(2, DistanceType::kL2, 0.0, 510.0);
  auto storage = l2.Encode(std::vector<float>{0.0f, 510.0f, 201.0f, 199.9f}, {});
  ASSERT_EQ(storage->num_rows(), 2);
  auto dc = storage->QueryComputer(std::vector<float>{0.0f, 1.9f});
  // Codes (0, 255) and (100, 99) against the query's (0, 0), times (510 / 255)^2.
  EXPECT_FLOAT_EQ(dc->Distance(0), 255.0f * 255.0f * 4.0f);
  EXPECT_FLOAT_EQ(dc->Distance(1), (100.0f * 100.0f + 99.0f * 99.0f) * 4.0f);
  LanceScalarQuantizer dot(2, DistanceType::kDot, 0.0, 2.55);
  auto dot_storage = dot.Encode(std::vector<float>{1.0f, 2.0f}, {});
  // Minus the dot product with the decoded row (1.0, 2.0).
  EXPECT_NEAR(dot_storage->QueryComputer(std::vector<float>{1.0f, 1.0f})->Distance(0), -3.0f, 1e-4);
}

TEST(LanceKernels, SumInLanesAsLance) {
  std::vector<float> x(37), y(37);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(i) * 0.25f;
    y[i] = 1.0f - static_cast<float>(i) * 0.125f;
  }
  double l2 = 0, dot = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    l2 += (x[i] - y[i]) * (x[i] - y[i]);
    dot += x[i] * y[i];
  }
  EXPECT_NEAR(LanceL2(x.data(), y.data(), x.size()), l2, 1e-3);
  EXPECT_NEAR(LanceDot(x.data(), y.data(), x.size()), dot, 1e-3);
  std::vector<float> v = {3.0f, 4.0f};
  LanceNormalize(v);
  EXPECT_FLOAT_EQ(v[0], 0.6f);
  EXPECT_FLOAT_EQ(v[1], 0.8f);
}

// On a float64 column the cosine query is normalized in double: each value is the double
// quotient rounded once to float, which for some values differs from the float normalization by
// an ulp (enough to move an 8-bit RQ lookup-table entry by one step).
TEST(LanceKernels, NormalizeAsDoubleRoundsOnce) {
  uint32_t state = 7;
  size_t differing = 0;
  for (int round = 0; round < 50; ++round) {
    std::vector<float> v(32);
    for (float& x : v) {
      state = state * 1664525u + 1013904223u;
      x = static_cast<float>(state >> 8) / static_cast<float>(1u << 24) * 4.0f - 2.0f;
    }
    std::vector<float> as_float = v, as_double = v;
    LanceNormalize(as_float);
    LanceNormalizeAsDouble(as_double);
    double sum = 0.0;
    for (float x : v) sum += static_cast<double>(x) * x;
    for (size_t i = 0; i < v.size(); ++i) {
      EXPECT_EQ(as_double[i], static_cast<float>(v[i] / std::sqrt(sum)));
      differing += as_double[i] != as_float[i];
    }
  }
  EXPECT_GT(differing, 0u);  // the two are not the same function
}

// LanceL2 / LanceDot (vectorized where the CPU allows) give the bits of Lance's order: the
// remainder summed first, 16 lanes over the 16-wide chunks, the lanes added in order.
TEST(LanceKernels, SumInLanesBitForBit) {
  uint32_t state = 99;
  auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / static_cast<float>(1u << 24) * 8.0f - 4.0f;
  };
  for (size_t n : {size_t{5}, size_t{16}, size_t{37}, size_t{128}, size_t{200}}) {
    std::vector<float> x(n), y(n);
    for (size_t i = 0; i < n; ++i) {
      x[i] = next();
      y[i] = next();
    }
    for (bool dot : {false, true}) {
      auto term = [dot](float a, float b) {
        const float d = a - b;
        return dot ? a * b : d * d;
      };
      const size_t chunks = n / 16;
      float tail = 0.0f;
      for (size_t i = chunks * 16; i < n; ++i) tail += term(x[i], y[i]);
      float lanes[16] = {};
      for (size_t c = 0; c < chunks; ++c) {
        for (size_t l = 0; l < 16; ++l) lanes[l] += term(x[c * 16 + l], y[c * 16 + l]);
      }
      float sum = 0.0f;
      for (float v : lanes) sum += v;
      const float got = dot ? LanceDot(x.data(), y.data(), n) : LanceL2(x.data(), y.data(), n);
      EXPECT_EQ(got, tail + sum) << "n " << n << (dot ? " dot" : " l2");
    }
  }
}

// The distance table is computed many centroids at a time; each entry must still be
// LanceL2 / LanceDot of the query's sub-vector and the centroid, bit for bit (sub-vectors
// shorter than, equal to and longer than the 16 lanes; 8-bit and 4-bit codes).
TEST(LancePqStorage, DistanceTableEntriesAreLanceSums) {
  uint32_t state = 12345;
  auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / static_cast<float>(1u << 24) * 6.0f - 3.0f;
  };
  for (DistanceType metric : {DistanceType::kL2, DistanceType::kDot}) {
    for (int bits : {8, 4}) {
      for (size_t sub : {size_t{8}, size_t{20}, size_t{40}}) {
        const size_t m = 4;
        const size_t dim = m * sub;
        const size_t k = size_t{1} << bits;
        std::vector<float> book(k * dim);
        for (float& v : book) v = next();
        std::vector<float> query(dim);
        for (float& v : query) v = next();
        auto pq = ProductQuantizer::Make(dim, m, bits, metric, /*use_residual=*/false, book);
        ASSERT_TRUE(pq.ok()) << pq.status().ToString();
        // Row r holds centroid r in every sub-vector. Codes: byte b of row r at b * k + r.
        const size_t bytes = bits == 8 ? m : m / 2;
        std::vector<uint8_t> codes(bytes * k);
        for (size_t b = 0; b < bytes; ++b) {
          for (size_t r = 0; r < k; ++r) {
            codes[b * k + r] = static_cast<uint8_t>(bits == 8 ? r : r | (r << 4));
          }
        }
        const std::vector<float> centroid(dim, 0.0f);
        LancePqStorage storage(pq->get(), codes, k, centroid, false);
        auto dc = storage.QueryComputer(query);
        for (size_t r = 0; r < k; ++r) {
          float expected = 0.0f;
          for (size_t s = 0; s < m; ++s) {
            const float* q = query.data() + s * sub;
            const float* c = book.data() + (s * k + r) * sub;
            expected +=
                metric == DistanceType::kDot ? 1.0f - LanceDot(q, c, sub) : LanceL2(q, c, sub);
          }
          if (metric == DistanceType::kDot) expected = expected - static_cast<float>(m - 1) - 1.0f;
          EXPECT_EQ(dc->Distance(static_cast<int64_t>(r)), expected)
              << "bits " << bits << ", sub_dim " << sub << ", row " << r;
        }
      }
    }
  }
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::index::vector
