// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The Lance-layout writer (lance_ivf_write.h): what it writes reads back (lance_ivf_read.h) as
// the same index, searching alike; the bytes are deterministic; extended indices stay in
// Lance form. LanceDB itself reads these files in
// python/tests/test_lancedb_reads_our_vector_indices.py.

#include "index/vector/lance_ivf_write.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "array/half.h"
#include "index/vector/hnsw_index.h"
#include "index/vector/ivf_builder.h"
#include "index/vector/ivf_extend.h"
#include "index/vector/lance_ivf_read.h"
#include "index/vector/lance_rq_storage.h"
#include "index/vector/test_util.h"

namespace lancedb::index::vector {
namespace LANCEDB_TEST_FILE_NS {

constexpr size_t kDim = 16;
constexpr int64_t kRows = 600;

/// The case: LanceDB's type name (IVF_PQ4: 4-bit PQ) and a distance type.
struct Case {
  std::string type;
  DistanceType distance;
};

std::unique_ptr<IvfIndex> BuildLance(const std::vector<float>& data, const Case& c,
                                     uint64_t seed = 5,
                                     array::TypeId element_type = array::TypeId::kFloat32) {
  IvfBuildParams p;
  p.distance_type = c.distance;
  p.num_partitions = 6;
  p.seed = seed;
  p.num_threads = 1;
  if (c.type.rfind("IVF_PQ", 0) == 0) {
    p.quantizer = QuantizerType::kPq;
    p.num_sub_vectors = 4;
    p.num_bits = c.type == "IVF_PQ4" ? 4 : 8;
  }
  auto built = BuildIvfIndex(data, testing::Iota(kRows), kDim, p);
  EXPECT_TRUE(built.ok()) << built.status().ToString();
  const std::string type = c.type == "IVF_PQ4" ? "IVF_PQ" : c.type;
  auto lance = ToLanceIvfIndex(std::move(*built), type, element_type);
  EXPECT_TRUE(lance.ok()) << lance.status().ToString();
  return std::move(*lance);
}

std::vector<Case> AllCases() {
  std::vector<Case> out;
  for (const char* type : {"IVF_FLAT", "IVF_PQ", "IVF_PQ4", "IVF_SQ"}) {
    for (auto d : {DistanceType::kL2, DistanceType::kCosine, DistanceType::kDot}) {
      out.push_back({type, d});
    }
  }
  return out;
}

/// `queries`: 5 queries; empty for 5 clustered ones.
void ExpectSameSearches(const IvfIndex& a, const IvfIndex& b, std::vector<float> queries = {}) {
  if (queries.empty()) queries = testing::ClusteredData(5, kDim, 3, 99);
  for (size_t nprobes : {1, 3, 6}) {
    for (size_t q = 0; q < 5; ++q) {
      IvfSearchParams sp;
      sp.k = 10;
      sp.nprobes = nprobes;
      auto query = std::span<const float>(queries).subspan(q * kDim, kDim);
      auto x = a.Search(query, sp);
      auto y = b.Search(query, sp);
      ASSERT_TRUE(x.ok() && y.ok());
      ASSERT_EQ(x->size(), y->size());
      for (size_t i = 0; i < x->size(); ++i) {
        EXPECT_EQ((*x)[i].row_id, (*y)[i].row_id);
        EXPECT_EQ((*x)[i].distance, (*y)[i].distance);
      }
    }
  }
}

TEST(LanceIvfWrite, ReadsBackAsTheSameIndex) {
  auto data = testing::ClusteredData(kRows, kDim, 8, 1);
  auto fs = io::LocalFileSystem();
  for (const auto& c : AllCases()) {
    SCOPED_TRACE(c.type + " " + std::string(DistanceTypeName(c.distance)));
    testing::ScratchDir dir("lance-ivf");
    auto index = BuildLance(data, c);
    const std::string want = c.type == "IVF_PQ4" ? "IVF_PQ" : c.type;
    EXPECT_EQ(LanceIvfTypeName(*index), want);
    auto files = WriteLanceIvfIndexFiles(fs, dir.Sub("i"), *index);
    ASSERT_TRUE(files.ok()) << files.status().ToString();
    ASSERT_EQ(files->size(), 2u);
    EXPECT_EQ((*files)[0].name, "auxiliary.idx");
    EXPECT_EQ((*files)[1].name, "index.idx");
    std::string type;
    auto read = ReadLanceIvfIndexFiles(fs, dir.Sub("i"), &type);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    EXPECT_EQ(type, want);
    EXPECT_EQ(LanceIvfTypeName(**read), want);
    ASSERT_EQ((*read)->num_partitions(), index->num_partitions());
    for (int64_t p = 0; p < index->num_partitions(); ++p) {
      EXPECT_EQ((*read)->partition(p).row_ids, index->partition(p).row_ids);
    }
    EXPECT_TRUE(std::equal(index->centroids().begin(), index->centroids().end(),
                           (*read)->centroids().begin(), (*read)->centroids().end()));
    ExpectSameSearches(*index, **read);
    // Recall stays usable: a row's own vector finds it with every partition probed.
    IvfSearchParams all;
    all.k = 5;
    all.nprobes = 6;
    auto hit = (*read)->Search(std::span<const float>(data).subspan(7 * kDim, kDim), all);
    ASSERT_TRUE(hit.ok());
    if (c.distance != DistanceType::kDot) {
      EXPECT_TRUE(
          std::any_of(hit->begin(), hit->end(), [](const Neighbor& n) { return n.row_id == 7; }));
    }
  }
}

TEST(LanceIvfWrite, SameIndexSameBytes) {
  auto data = testing::ClusteredData(kRows, kDim, 8, 2);
  auto fs = io::LocalFileSystem();
  for (const char* type : {"IVF_FLAT", "IVF_PQ", "IVF_PQ4", "IVF_SQ"}) {
    SCOPED_TRACE(type);
    const Case c{type, DistanceType::kCosine};
    testing::ExpectSameSeedSameBytes("lance-ivf", [&](const std::string& dir, uint64_t seed) {
      ASSERT_TRUE(WriteLanceIvfIndexFiles(fs, dir, *BuildLance(data, c, seed)).ok());
    });
  }
}

TEST(LanceIvfWrite, ExtendedIndexStaysInLanceForm) {
  auto data = testing::ClusteredData(kRows + 100, kDim, 8, 3);
  auto fs = io::LocalFileSystem();
  const std::vector<float> first(data.begin(), data.begin() + kRows * kDim);
  const std::vector<float> added(data.begin() + kRows * kDim, data.end());
  for (const auto& c : AllCases()) {
    SCOPED_TRACE(c.type + " " + std::string(DistanceTypeName(c.distance)));
    testing::ScratchDir dir("lance-ivf");
    ASSERT_TRUE(WriteLanceIvfIndexFiles(fs, dir.Sub("a"), *BuildLance(first, c)).ok());
    auto read = ReadLanceIvfIndexFiles(fs, dir.Sub("a"), nullptr);
    ASSERT_TRUE(read.ok());
    auto ids = testing::Iota(100, kRows);
    ASSERT_TRUE(ExtendIvfIndex(read->get(), added, ids, HnswParams{}, nullptr).ok());
    EXPECT_EQ((*read)->num_rows(), kRows + 100);
    ASSERT_FALSE(LanceIvfTypeName(**read).empty());
    ASSERT_TRUE(WriteLanceIvfIndexFiles(fs, dir.Sub("b"), **read).ok());
    auto again = ReadLanceIvfIndexFiles(fs, dir.Sub("b"), nullptr);
    ASSERT_TRUE(again.ok());
    ExpectSameSearches(**read, **again);
    // An added row ranks near the top for its own vector (PQ codes are coarse: near, not
    // first).
    IvfSearchParams all;
    all.k = kRows + 100;
    all.nprobes = 6;
    auto hit = (*again)->Search(std::span<const float>(added).subspan(5 * kDim, kDim), all);
    ASSERT_TRUE(hit.ok());
    auto at = std::find_if(hit->begin(), hit->end(),
                           [](const Neighbor& n) { return n.row_id == kRows + 5; });
    ASSERT_NE(at, hit->end());
    if (c.distance != DistanceType::kDot) {
      EXPECT_LT(at - hit->begin(), 30);
    }
  }
}

TEST(LanceIvfWrite, RemapMovesAndDropsRows) {
  auto data = testing::ClusteredData(kRows, kDim, 8, 5);
  auto fs = io::LocalFileSystem();
  for (const char* type : {"IVF_FLAT", "IVF_PQ", "IVF_PQ4", "IVF_SQ"}) {
    SCOPED_TRACE(type);
    auto index = BuildLance(data, {type, DistanceType::kL2});
    // Even rows move to 1000 + row; odd rows are deleted.
    auto map = [](uint64_t id) -> std::optional<uint64_t> {
      if (id % 2 != 0) return std::nullopt;
      return 1000 + id;
    };
    // The expected index: each partition's even rows, in order, under their new ids.
    auto expected = BuildLance(data, {type, DistanceType::kL2});
    ASSERT_TRUE(RemapLanceIvfIndex(index.get(), map).ok());
    EXPECT_EQ(index->num_rows(), kRows / 2);
    testing::ScratchDir dir("lance-ivf");
    ASSERT_TRUE(WriteLanceIvfIndexFiles(fs, dir.Sub("r"), *index).ok());
    auto read = ReadLanceIvfIndexFiles(fs, dir.Sub("r"), nullptr);
    ASSERT_TRUE(read.ok());
    IvfSearchParams sp;
    sp.k = 20;
    sp.nprobes = 6;
    auto query = std::span<const float>(data).subspan(10 * kDim, kDim);
    sp.accept = [](uint64_t id) { return id % 2 == 0; };
    auto want = expected->Search(query, sp);
    sp.accept = [](uint64_t) { return true; };  // the same (prefiltered, exact) 4-bit scan
    auto got = (*read)->Search(query, sp);
    ASSERT_TRUE(want.ok() && got.ok());
    ASSERT_EQ(got->size(), want->size());
    for (size_t i = 0; i < got->size(); ++i) {
      EXPECT_EQ((*got)[i].row_id, 1000 + (*want)[i].row_id);
      EXPECT_EQ((*got)[i].distance, (*want)[i].distance);
    }
  }
}

TEST(LanceIvfWrite, HalfAndDoubleColumnsReadBackAsTheSameIndex) {
  // Values of a float16 column (its vectors are float16 values).
  auto data = testing::ClusteredData(kRows, kDim, 8, 6);
  std::vector<uint16_t> halves(data.size());
  array::FloatToHalf(data, std::span(halves));
  array::HalfToFloat(halves, std::span(data));
  auto fs = io::LocalFileSystem();
  for (auto element : {array::TypeId::kFloat16, array::TypeId::kFloat64}) {
    for (const auto& c : AllCases()) {
      SCOPED_TRACE(c.type + " " + std::string(DistanceTypeName(c.distance)) +
                   (element == array::TypeId::kFloat16 ? " float16" : " float64"));
      testing::ScratchDir dir("lance-ivf");
      auto index = BuildLance(data, c, 5, element);
      ASSERT_TRUE(WriteLanceIvfIndexFiles(fs, dir.Sub("i"), *index, element).ok());
      auto read = ReadLanceIvfIndexFiles(fs, dir.Sub("i"), nullptr);
      ASSERT_TRUE(read.ok()) << read.status().ToString();
      // float16: the index holds float16 values, which the files keep exactly.
      EXPECT_TRUE(std::equal(index->centroids().begin(), index->centroids().end(),
                             (*read)->centroids().begin(), (*read)->centroids().end()));
      ExpectSameSearches(*index, **read);
      // Rewritten as read: the same bytes.
      ASSERT_TRUE(WriteLanceIvfIndexFiles(fs, dir.Sub("j"), **read, element).ok());
      for (const char* file : {"index.idx", "auxiliary.idx"}) {
        EXPECT_EQ(testing::ReadFileBytes(dir.Sub("i/") + file),
                  testing::ReadFileBytes(dir.Sub("j/") + file))
            << file;
      }
    }
  }
}

TEST(LanceIvfWrite, HammingFlatReadsBackAsTheSameIndex) {
  // Bytes carried one per float (binary_vectors.h).
  std::vector<float> data(kRows * kDim);
  uint32_t state = 7;
  for (auto& v : data) {
    state = state * 1664525u + 1013904223u;
    v = static_cast<float>(state >> 24);
  }
  auto fs = io::LocalFileSystem();
  testing::ScratchDir dir("lance-ivf");
  auto index = BuildLance(data, {"IVF_FLAT", DistanceType::kHamming}, 5, array::TypeId::kUInt8);
  EXPECT_EQ(LanceIvfTypeName(*index), "IVF_FLAT");
  ASSERT_TRUE(WriteLanceIvfIndexFiles(fs, dir.Sub("i"), *index, array::TypeId::kUInt8).ok());
  auto read = ReadLanceIvfIndexFiles(fs, dir.Sub("i"), nullptr);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ((*read)->distance_type(), DistanceType::kHamming);
  EXPECT_TRUE(std::equal(index->centroids().begin(), index->centroids().end(),
                         (*read)->centroids().begin(), (*read)->centroids().end()));
  ExpectSameSearches(*index, **read, std::vector<float>(data.begin(), data.begin() + 5 * kDim));
  // A row's own vector is at distance 0 with every partition probed.
  IvfSearchParams all;
  all.k = 1;
  all.nprobes = 6;
  auto hit = (*read)->Search(std::span<const float>(data).subspan(9 * kDim, kDim), all);
  ASSERT_TRUE(hit.ok());
  ASSERT_EQ(hit->size(), 1u);
  EXPECT_EQ((*hit)[0].distance, 0.0f);
}

TEST(LanceIvfWrite, RejectsElementTypesLanceDoesNotIndex) {
  auto data = testing::ClusteredData(kRows, kDim, 8, 4);
  IvfBuildParams p;
  p.num_partitions = 4;
  p.seed = 1;
  p.quantizer = QuantizerType::kFlat;
  auto flat = BuildIvfIndex(data, testing::Iota(kRows), kDim, p);
  ASSERT_TRUE(flat.ok());
  // uint8 vectors take hamming only; int32 vectors are not indexed.
  for (auto element : {array::TypeId::kUInt8, array::TypeId::kInt32}) {
    auto copy = BuildIvfIndex(data, testing::Iota(kRows), kDim, p);
    ASSERT_TRUE(copy.ok());
    auto converted = ToLanceIvfIndex(std::move(*copy), "IVF_FLAT", element);
    EXPECT_TRUE(converted.status().IsInvalidArgument()) << converted.status().ToString();
  }
  auto lance = ToLanceIvfIndex(std::move(*flat), "IVF_FLAT");
  ASSERT_TRUE(lance.ok());
  testing::ScratchDir dir("lance-ivf");
  auto written =
      WriteLanceIvfIndexFiles(io::LocalFileSystem(), dir.Sub("x"), **lance, array::TypeId::kUInt8);
  EXPECT_TRUE(written.status().IsInvalidArgument());
  EXPECT_FALSE(std::filesystem::exists(dir.Sub("x")));
}

TEST(LanceIvfWrite, RejectsIndicesNotInLanceForm) {
  auto data = testing::ClusteredData(kRows, kDim, 8, 4);
  IvfBuildParams p;
  p.num_partitions = 4;
  p.seed = 1;
  p.quantizer = QuantizerType::kSq;  // lancedb-cpp's per-dimension SQ
  auto own = BuildIvfIndex(data, testing::Iota(kRows), kDim, p);
  ASSERT_TRUE(own.ok());
  EXPECT_EQ(LanceIvfTypeName(**own), "");
  testing::ScratchDir dir("lance-ivf");
  auto written = WriteLanceIvfIndexFiles(io::LocalFileSystem(), dir.Sub("x"), **own);
  EXPECT_TRUE(written.status().IsInvalidArgument());
  EXPECT_FALSE(std::filesystem::exists(dir.Sub("x/index.idx")));
  auto converted = ToLanceIvfIndex(std::move(*own), "IVF_SQ");
  EXPECT_TRUE(converted.status().IsInvalidArgument()) << converted.status().ToString();
  p.quantizer = QuantizerType::kFlat;
  auto flat = BuildIvfIndex(data, testing::Iota(kRows), kDim, p);
  ASSERT_TRUE(flat.ok());
  auto rq = ToLanceIvfIndex(std::move(*flat), "IVF_HNSW_RQ");
  EXPECT_TRUE(rq.status().IsInvalidArgument());
}

// IVF_RQ in Lance's layout: files written and read back give the same index (codes packed and
// blocked as Lance lays them out, then unpacked), searched alike, and close to the exact
// distances; for 1, 3 and 8 bits and each metric.
TEST(LanceIvfWrite, RqRoundTripsThroughLanceFiles) {
  auto data = testing::ClusteredData(kRows, kDim, 8, 4);
  for (int bits : {1, 3, 8}) {
    for (DistanceType metric : {DistanceType::kL2, DistanceType::kDot}) {
      SCOPED_TRACE(std::to_string(bits) + " bits, " + std::string(DistanceTypeName(metric)));
      IvfBuildParams p;
      p.num_partitions = 4;
      p.seed = 1;
      p.distance_type = metric;
      p.quantizer = QuantizerType::kFlat;
      auto flat = BuildIvfIndex(data, testing::Iota(kRows), kDim, p);
      ASSERT_TRUE(flat.ok());
      auto rq = ToLanceIvfIndex(std::move(*flat), "IVF_RQ", array::TypeId::kFloat32, bits, 5);
      ASSERT_TRUE(rq.ok()) << rq.status().ToString();
      EXPECT_EQ(LanceIvfTypeName(**rq), "IVF_RQ");
      testing::ScratchDir dir("lance-ivf");
      ASSERT_TRUE(WriteLanceIvfIndexFiles(io::LocalFileSystem(), dir.Sub("x"), **rq).ok());
      auto back = ReadLanceIvfIndexFiles(io::LocalFileSystem(), dir.Sub("x"), nullptr);
      ASSERT_TRUE(back.ok()) << back.status().ToString();
      for (int64_t part = 0; part < (*rq)->num_partitions(); ++part) {
        const auto& a = static_cast<const LanceRqStorage&>(*(*rq)->partition(part).storage);
        const auto& b = static_cast<const LanceRqStorage&>(*(*back)->partition(part).storage);
        EXPECT_EQ(a.rows().codes, b.rows().codes);
        EXPECT_EQ(a.rows().ex_codes, b.rows().ex_codes);
        EXPECT_EQ(a.rows().add, b.rows().add);
        EXPECT_EQ(a.rows().ex_scale, b.rows().ex_scale);
        // The l2 estimates track the exact distances (more bits, closer). (The factors are
        // Lance's: checked against LanceDB's files by hand; its dot estimate is of 1 - q.x.)
        if (metric == DistanceType::kDot) continue;
        std::span<const float> q(data.data(), kDim);
        auto computer = a.QueryComputer(q);
        double err = 0.0;
        double scale = 0.0;
        for (int64_t r = 0; r < a.num_rows(); ++r) {
          const uint64_t id = (*rq)->partition(part).row_ids[r];
          const float* v = data.data() + id * kDim;
          float exact = 0.0f;
          for (size_t d = 0; d < kDim; ++d) {
            exact += (q[d] - v[d]) * (q[d] - v[d]);
          }
          err += std::fabs(computer->Distance(r) - exact);
          scale += std::fabs(exact);
        }
        EXPECT_LT(err, (bits == 1 ? 0.3 : 0.05) * scale);
      }
    }
  }
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::index::vector
