// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// IVF_HNSW_* in Lance's layout (lance_hnsw_write.h, lance_ivf_write.h): the graphs written
// read back as the same graphs, searching alike; the bytes are deterministic; extended and
// remapped indices keep Lance-form graphs. LanceDB itself reads these files in
// python/tests/test_lancedb_reads_our_vector_indices.py.

#include "index/vector/lance_hnsw_write.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "index/vector/ivf_builder.h"
#include "index/vector/ivf_extend.h"
#include "index/vector/lance_ivf_read.h"
#include "index/vector/lance_ivf_write.h"
#include "index/vector/test_util.h"

namespace lancedb::index::vector {
namespace LANCEDB_TEST_FILE_NS {

constexpr size_t kDim = 16;
constexpr int64_t kRows = 600;
constexpr int64_t kPartitions = 3;

struct Case {
  std::string type;  // IVF_HNSW_FLAT, IVF_HNSW_SQ, IVF_HNSW_PQ
  DistanceType distance;
};

std::vector<Case> AllCases() {
  std::vector<Case> out;
  for (const char* type : {"IVF_HNSW_FLAT", "IVF_HNSW_SQ", "IVF_HNSW_PQ"}) {
    for (auto d : {DistanceType::kL2, DistanceType::kCosine, DistanceType::kDot}) {
      out.push_back({type, d});
    }
  }
  return out;
}

std::unique_ptr<IvfIndex> BuildLance(const std::vector<float>& data, const Case& c,
                                     uint64_t seed = 5) {
  IvfBuildParams p;
  p.distance_type = c.distance;
  p.num_partitions = kPartitions;
  p.seed = seed;
  p.num_threads = 1;
  p.sub_index = SubIndexType::kHnsw;
  p.m = 8;
  p.ef_construction = 40;
  p.lance_hnsw = true;
  if (c.type == "IVF_HNSW_PQ") {
    p.quantizer = QuantizerType::kPq;
    p.num_sub_vectors = 4;
  }
  auto built =
      BuildIvfIndex(data, testing::Iota(static_cast<int64_t>(data.size() / kDim)), kDim, p);
  EXPECT_TRUE(built.ok()) << built.status().ToString();
  auto lance = ToLanceIvfIndex(std::move(*built), c.type);
  EXPECT_TRUE(lance.ok()) << lance.status().ToString();
  return std::move(*lance);
}

const LanceHnswGraph& Graph(const IvfIndex& index, int64_t p) {
  return dynamic_cast<const LanceHnswGraph&>(*index.partition(p).sub_index);
}

void ExpectSameGraphs(const IvfIndex& a, const IvfIndex& b) {
  ASSERT_EQ(a.num_partitions(), b.num_partitions());
  for (int64_t p = 0; p < a.num_partitions(); ++p) {
    const LanceHnswGraph& x = Graph(a, p);
    const LanceHnswGraph& y = Graph(b, p);
    EXPECT_EQ(x.entry_point(), y.entry_point());
    ASSERT_EQ(x.num_nodes(), y.num_nodes());
    if (x.num_nodes() > 0) {  // an empty graph is written without parameters, as by Lance
      EXPECT_EQ(x.params().m, y.params().m);
      EXPECT_EQ(x.params().ef_construction, y.params().ef_construction);
      EXPECT_EQ(x.params().max_level, y.params().max_level);
    }
    ASSERT_EQ(x.num_levels(), y.num_levels());
    for (size_t l = 0; l < x.num_levels(); ++l) {
      EXPECT_EQ(x.levels()[l].nodes, y.levels()[l].nodes);
      EXPECT_EQ(x.levels()[l].offsets, y.levels()[l].offsets);
      EXPECT_EQ(x.levels()[l].neighbors, y.levels()[l].neighbors);
      EXPECT_EQ(x.levels()[l].distances, y.levels()[l].distances);
    }
  }
}

void ExpectSameSearches(const IvfIndex& a, const IvfIndex& b) {
  auto queries = testing::ClusteredData(5, kDim, 3, 99);
  for (size_t nprobes : {1, 2, 3}) {
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

TEST(LanceHnswWrite, BuildsGraphsWithLancesShape) {
  auto data = testing::ClusteredData(kRows, kDim, 8, 1);
  auto index = BuildLance(data, {"IVF_HNSW_SQ", DistanceType::kL2});
  EXPECT_EQ(LanceIvfTypeName(*index), "IVF_HNSW_SQ");
  for (int64_t p = 0; p < kPartitions; ++p) {
    const LanceHnswGraph& g = Graph(*index, p);
    EXPECT_EQ(g.num_nodes(), index->partition(p).row_ids.size());
    EXPECT_EQ(g.params().max_level, 7u);
    EXPECT_EQ(g.params().m, 8u);
    EXPECT_EQ(g.params().ef_construction, 40u);
    EXPECT_LE(g.num_levels(), 7u);
    // The entry point is on the top level; level 0 keeps up to 2m neighbours, the others m.
    EXPECT_NE(
        std::find(g.levels().back().nodes.begin(), g.levels().back().nodes.end(), g.entry_point()),
        g.levels().back().nodes.end());
    for (size_t l = 0; l < g.num_levels(); ++l) {
      const auto& level = g.levels()[l];
      EXPECT_TRUE(std::is_sorted(level.nodes.begin(), level.nodes.end()));
      for (size_t i = 0; i + 1 < level.offsets.size(); ++i) {
        EXPECT_LE(level.offsets[i + 1] - level.offsets[i], l == 0 ? 16u : 8u);
      }
    }
  }
}

TEST(LanceHnswWrite, ReadsBackAsTheSameIndex) {
  auto data = testing::ClusteredData(kRows, kDim, 8, 1);
  auto fs = io::LocalFileSystem();
  for (const auto& c : AllCases()) {
    SCOPED_TRACE(c.type + " " + std::string(DistanceTypeName(c.distance)));
    testing::ScratchDir dir("lance-hnsw");
    auto index = BuildLance(data, c);
    EXPECT_EQ(LanceIvfTypeName(*index), c.type);
    auto files = WriteLanceIvfIndexFiles(fs, dir.Sub("i"), *index);
    ASSERT_TRUE(files.ok()) << files.status().ToString();
    std::string type;
    auto read = ReadLanceIvfIndexFiles(fs, dir.Sub("i"), &type);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    EXPECT_EQ(type, c.type);
    EXPECT_EQ(LanceIvfTypeName(**read), c.type);
    ExpectSameGraphs(*index, **read);
    ExpectSameSearches(*index, **read);
    // Recall: a row's own vector finds it with every partition probed.
    IvfSearchParams all;
    all.k = 5;
    all.nprobes = kPartitions;
    auto hit = (*read)->Search(std::span<const float>(data).subspan(7 * kDim, kDim), all);
    ASSERT_TRUE(hit.ok());
    if (c.distance != DistanceType::kDot) {
      EXPECT_TRUE(
          std::any_of(hit->begin(), hit->end(), [](const Neighbor& n) { return n.row_id == 7; }));
    }
  }
}

TEST(LanceHnswWrite, SameSeedSameBytes) {
  auto data = testing::ClusteredData(kRows, kDim, 8, 2);
  auto fs = io::LocalFileSystem();
  for (const char* type : {"IVF_HNSW_FLAT", "IVF_HNSW_SQ", "IVF_HNSW_PQ"}) {
    SCOPED_TRACE(type);
    const Case c{type, DistanceType::kCosine};
    testing::ExpectSameSeedSameBytes("lance-hnsw", [&](const std::string& dir, uint64_t seed) {
      ASSERT_TRUE(WriteLanceIvfIndexFiles(fs, dir, *BuildLance(data, c, seed)).ok());
    });
  }
}

TEST(LanceHnswWrite, ExtendedIndexKeepsLanceGraphs) {
  auto data = testing::ClusteredData(kRows + 100, kDim, 8, 3);
  auto fs = io::LocalFileSystem();
  const std::vector<float> first(data.begin(), data.begin() + kRows * kDim);
  const std::vector<float> added(data.begin() + kRows * kDim, data.end());
  for (const auto& c : AllCases()) {
    SCOPED_TRACE(c.type + " " + std::string(DistanceTypeName(c.distance)));
    testing::ScratchDir dir("lance-hnsw");
    ASSERT_TRUE(WriteLanceIvfIndexFiles(fs, dir.Sub("a"), *BuildLance(first, c)).ok());
    auto read = ReadLanceIvfIndexFiles(fs, dir.Sub("a"), nullptr);
    ASSERT_TRUE(read.ok());
    const IvfIndex* base = read->get();
    auto existing = [&](int64_t p) -> Result<std::vector<float>> {
      std::vector<float> out;
      for (uint64_t id : base->partition(p).row_ids) {
        out.insert(out.end(), first.begin() + id * kDim, first.begin() + (id + 1) * kDim);
      }
      return out;
    };
    // The graphs' parameters (m = 8), not these, build the grown partitions' graphs.
    HnswParams other{30, 100, 42};
    ASSERT_TRUE(
        ExtendIvfIndex(read->get(), added, testing::Iota(100, kRows), other, existing).ok());
    EXPECT_EQ((*read)->num_rows(), kRows + 100);
    ASSERT_EQ(LanceIvfTypeName(**read), c.type);
    for (int64_t p = 0; p < kPartitions; ++p) {
      EXPECT_EQ(Graph(**read, p).num_nodes(), (*read)->partition(p).row_ids.size());
      EXPECT_EQ(Graph(**read, p).params().m, 8u);
    }
    ASSERT_TRUE(WriteLanceIvfIndexFiles(fs, dir.Sub("b"), **read).ok());
    auto again = ReadLanceIvfIndexFiles(fs, dir.Sub("b"), nullptr);
    ASSERT_TRUE(again.ok());
    ExpectSameGraphs(**read, **again);
    ExpectSameSearches(**read, **again);
  }
}

TEST(LanceHnswWrite, RemapRebuildsTheGraphsOfPartitionsThatLostRows) {
  auto data = testing::ClusteredData(kRows, kDim, 8, 5);
  auto fs = io::LocalFileSystem();
  for (const auto& c : AllCases()) {
    SCOPED_TRACE(c.type + " " + std::string(DistanceTypeName(c.distance)));
    auto index = BuildLance(data, c);
    // Rows of partition 0 move to 1000 + row; partition 1 loses every row (an empty graph,
    // written as Lance writes one); odd rows of the others are deleted.
    std::set<uint64_t> first(index->partition(0).row_ids.begin(),
                             index->partition(0).row_ids.end());
    std::set<uint64_t> second(index->partition(1).row_ids.begin(),
                              index->partition(1).row_ids.end());
    auto map = [&](uint64_t id) -> std::optional<uint64_t> {
      if (second.count(id) != 0 || (first.count(id) == 0 && id % 2 != 0)) return std::nullopt;
      return 1000 + id;
    };
    std::vector<uint32_t> kept_neighbors = Graph(*index, 0).levels()[0].neighbors;
    ASSERT_TRUE(RemapLanceIvfIndex(index.get(), map).ok());
    EXPECT_EQ(Graph(*index, 0).levels()[0].neighbors, kept_neighbors);  // no row lost
    EXPECT_EQ(Graph(*index, 1).num_nodes(), 0u);
    for (int64_t p = 0; p < kPartitions; ++p) {
      EXPECT_EQ(Graph(*index, p).num_nodes(), index->partition(p).row_ids.size());
      for (uint64_t id : index->partition(p).row_ids) EXPECT_GE(id, 1000u);
    }
    testing::ScratchDir dir("lance-hnsw");
    ASSERT_TRUE(WriteLanceIvfIndexFiles(fs, dir.Sub("r"), *index).ok());
    auto read = ReadLanceIvfIndexFiles(fs, dir.Sub("r"), nullptr);
    ASSERT_TRUE(read.ok());
    ExpectSameGraphs(*index, **read);
    ExpectSameSearches(*index, **read);
  }
}

TEST(LanceHnswWrite, RejectsLancedbCppsOwnGraphs) {
  auto data = testing::ClusteredData(kRows, kDim, 8, 4);
  IvfBuildParams p;
  p.num_partitions = kPartitions;
  p.seed = 1;
  p.sub_index = SubIndexType::kHnsw;  // lancedb-cpp's own graphs
  auto own = BuildIvfIndex(data, testing::Iota(kRows), kDim, p);
  ASSERT_TRUE(own.ok());
  auto converted = ToLanceIvfIndex(std::move(*own), "IVF_HNSW_FLAT");
  EXPECT_TRUE(converted.status().IsInvalidArgument()) << converted.status().ToString();
  EXPECT_TRUE(MakeLanceHnswColumns(*BuildLance(data, {"IVF_HNSW_FLAT", DistanceType::kL2})).ok());
}

TEST(LanceHnswWrite, DecodesStoragesToTheirVectors) {
  auto data = testing::ClusteredData(kRows, kDim, 8, 6);
  for (const char* type : {"IVF_HNSW_FLAT", "IVF_HNSW_SQ", "IVF_HNSW_PQ"}) {
    SCOPED_TRACE(type);
    auto index = BuildLance(data, {type, DistanceType::kL2});
    const IvfPartition& part = index->partition(1);
    auto decoded = DecodeLanceStorage(index->quantizer(), *part.storage,
                                      index->centroids().subspan(kDim, kDim));
    ASSERT_TRUE(decoded.ok());
    ASSERT_EQ(decoded->size(), part.row_ids.size() * kDim);
    // The decoded vectors approximate the originals (exactly for FLAT).
    double err = 0, norm = 0;
    for (size_t r = 0; r < part.row_ids.size(); ++r) {
      for (size_t j = 0; j < kDim; ++j) {
        const float x = data[part.row_ids[r] * kDim + j];
        err += std::abs((*decoded)[r * kDim + j] - x);
        norm += std::abs(x);
      }
    }
    if (std::string(type) == "IVF_HNSW_FLAT") {
      EXPECT_EQ(err, 0.0);
    } else {
      EXPECT_LT(err, 0.35 * norm);
    }
  }
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::index::vector
