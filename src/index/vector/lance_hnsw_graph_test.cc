// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// LanceDB's HNSW graphs (lance_hnsw_graph.h) on small hand-made graphs over points on a line,
// and the Rust BinaryHeap moves they rely on (rust_heap.h). Searches over real LanceDB graphs
// are compared with LanceDB in python/tests/test_lancedb_vector_indices.py.

#include "index/vector/lance_hnsw_graph.h"

#include <gtest/gtest.h>

#include "array/builder.h"
#include "common/test_util.h"
#include "index/vector/flat_storage.h"
#include "index/vector/rust_heap.h"

namespace lancedb::index::vector {
namespace LANCEDB_TEST_FILE_NS {

namespace la = lancedb::array;

/// index.idx's rows for one graph: per level, (node, neighbours) in row order.
struct GraphRows {
  std::vector<std::vector<std::pair<uint32_t, std::vector<uint32_t>>>> levels;
  uint32_t entry_point = 0;

  Result<std::unique_ptr<LanceHnswGraph>> Read(size_t num_rows) const {
    std::vector<uint32_t> ids, values;
    std::vector<int64_t> offsets = {0};
    std::string level_offsets = "[0";
    for (const auto& level : levels) {
      for (const auto& [node, neighbors] : level) {
        ids.push_back(node);
        values.insert(values.end(), neighbors.begin(), neighbors.end());
        offsets.push_back(static_cast<int64_t>(values.size()));
      }
      level_offsets += "," + std::to_string(ids.size());
    }
    level_offsets += "]";
    auto id_array = la::MakePrimitive(la::uint32(), ids);
    auto list =
        la::MakeList(la::list(la::uint32()), offsets, la::MakePrimitive(la::uint32(), values));
    const std::string meta =
        "{\"entry_point\":" + std::to_string(entry_point) +
        ",\"params\":{\"max_level\":7,\"m\":20},\"level_offsets\":" + level_offsets + "}";
    return LanceHnswGraph::Read(*id_array, *list, nullptr, 0, static_cast<int64_t>(ids.size()),
                                meta, num_rows);
  }
};

/// Points 0, 1, ..., n - 1 on a line; level 0 a chain, level 1 {0, n - 1} linked.
GraphRows Chain(uint32_t n) {
  GraphRows g;
  g.levels.resize(2);
  for (uint32_t i = 0; i < n; ++i) {
    std::vector<uint32_t> nb;
    if (i > 0) nb.push_back(i - 1);
    if (i + 1 < n) nb.push_back(i + 1);
    g.levels[0].push_back({i, nb});
  }
  g.levels[1] = {{0, {n - 1}}, {n - 1, {0}}};
  return g;
}

std::vector<float> Line(uint32_t n) {
  std::vector<float> x(n);
  for (uint32_t i = 0; i < n; ++i) x[i] = static_cast<float>(i);
  return x;
}

std::vector<uint64_t> Rows(const std::vector<Neighbor>& found) {
  std::vector<uint64_t> rows;
  for (const auto& n : found) rows.push_back(n.row_id);
  return rows;
}

TEST(RustHeap, PopsEqualEntriesInRustsOrderAndSortsAscending) {
  RustHeap</*kMin=*/false> max_heap;
  for (uint32_t id : {1u, 2u, 3u}) max_heap.Push({1.0f, id});
  EXPECT_EQ(max_heap.Pop().id, 1u);  // the root: the first pushed
  EXPECT_EQ(max_heap.Pop().id, 2u);
  RustHeap</*kMin=*/true> min_heap;
  for (float d : {3.0f, 1.0f, 2.0f, 0.5f}) min_heap.Push({d, static_cast<uint32_t>(d * 2)});
  EXPECT_EQ(min_heap.top().distance, 0.5f);
  RustHeap</*kMin=*/false> sorted;
  for (float d : {3.0f, 1.0f, 2.0f, 0.5f, 2.5f}) sorted.Push({d, 0});
  std::vector<float> out;
  for (const auto& n : std::move(sorted).IntoSortedVec()) out.push_back(n.distance);
  EXPECT_EQ(out, (std::vector<float>{0.5f, 1.0f, 2.0f, 2.5f, 3.0f}));
}

TEST(LanceHnswGraph, DescendsFromTheEntryPointAndSearchesLevelZero) {
  ASSERT_OK_AND_ASSIGN(auto graph, Chain(8).Read(8));
  EXPECT_EQ(graph->num_nodes(), 8u);
  EXPECT_EQ(graph->num_levels(), 2u);
  FlatStorage storage(Line(8), 1, DistanceType::kL2);
  auto dc = storage.QueryComputer(std::vector<float>{5.8f});
  LanceHnswGraph::Query q;
  q.k = 3;
  q.ef = 3;
  auto found = graph->SearchAsLance(*dc, q);
  EXPECT_EQ(Rows(found), (std::vector<uint64_t>{6, 5, 7}));
  EXPECT_NEAR(found[0].distance, 0.04f, 1e-5);
}

TEST(LanceHnswGraph, NarrowBreadthStopsAtALocalMinimum) {
  // A chain 0 - 1 - 2 - 3 at x = 0, 5, 1.5, 1, entered at 0, queried at 1: with ef = 1 the far
  // node 1 never becomes a candidate and the search ends at 0; with ef = 4 it walks on to 3.
  GraphRows g;
  g.levels.resize(1);
  g.levels[0] = {{0, {1}}, {1, {0, 2}}, {2, {1, 3}}, {3, {2}}};
  FlatStorage storage(std::vector<float>{0.0f, 5.0f, 1.5f, 1.0f}, 1, DistanceType::kL2);
  ASSERT_OK_AND_ASSIGN(auto graph, g.Read(4));
  auto dc = storage.QueryComputer(std::vector<float>{1.0f});
  LanceHnswGraph::Query q;
  q.k = 1;
  q.ef = 1;
  EXPECT_EQ(Rows(graph->SearchAsLance(*dc, q)), (std::vector<uint64_t>{0}));
  q.ef = 4;
  EXPECT_EQ(Rows(graph->SearchAsLance(*dc, q)), (std::vector<uint64_t>{3}));
  q.k = 4;
  EXPECT_EQ(Rows(graph->SearchAsLance(*dc, q)), (std::vector<uint64_t>{3, 2, 0, 1}));
}

TEST(LanceHnswGraph, FiltersAndRanges) {
  ASSERT_OK_AND_ASSIGN(auto graph, Chain(20).Read(20));
  FlatStorage storage(Line(20), 1, DistanceType::kL2);
  auto near = storage.QueryComputer(std::vector<float>{10.3f});
  LanceHnswGraph::Query q;
  q.k = 2;
  q.ef = 4;
  // Most rows pass: the graph is searched (entered at 0, descending to 19 on level 1), the
  // filtered rows walked through but left out of the results.
  q.accept = [](int64_t r) { return r != 10 && r != 11; };
  EXPECT_EQ(Rows(graph->SearchAsLance(*near, q)), (std::vector<uint64_t>{9, 12}));
  auto dc = storage.QueryComputer(std::vector<float>{10.0f});
  // Under 10% pass: the passing rows are scored exactly, wherever the graph would lead.
  q.accept = [](int64_t r) { return r == 19; };
  EXPECT_EQ(Rows(graph->SearchAsLance(*dc, q)), (std::vector<uint64_t>{19}));
  // A distance range keeps rows out of the results, not out of the walk.
  q.accept = nullptr;
  q.in_range = [](float d) { return d >= 4.0f && d < 10.0f; };
  const auto found = graph->SearchAsLance(*dc, q);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].distance, 4.0f);
  EXPECT_EQ(found[1].distance, 4.0f);
}

TEST(LanceHnswGraph, RejectsInconsistentGraphs) {
  GraphRows g = Chain(4);
  EXPECT_TRUE(g.Read(5).status().IsCorruption());  // nodes != the partition's rows
  g.entry_point = 7;
  EXPECT_TRUE(g.Read(4).status().IsCorruption());
  g = Chain(4);
  g.levels[0][2].second = {9};
  EXPECT_TRUE(g.Read(4).status().IsCorruption());
  g = Chain(4);
  std::swap(g.levels[0][0], g.levels[0][1]);  // level 0 out of node order
  EXPECT_TRUE(g.Read(4).status().IsCorruption());
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::index::vector
