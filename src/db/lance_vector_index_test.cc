// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Searches over the IVF_PQ index LanceDB 0.39 built on the fixture table ops.lance
// (docs/format/lance-vector-index.md): the rows and distances LanceDB itself returns.

#include <gtest/gtest.h>

#include <filesystem>

#include "array/c_bridge.h"
#include "common/test_dirs.h"
#include "common/test_util.h"
#include "db/vector_query_test_util.h"
#include "lancedb/lancedb.h"
#include "table/table_test_util.h"

namespace lancedb {
namespace LANCEDB_TEST_FILE_NS {

using db_testing::Collect;
using db_testing::Column;

namespace la = lancedb::array;
namespace fs = std::filesystem;

TEST(LanceVectorIndex, SearchReturnsLanceDbsRowsAndDistances) {
  LANCEDB_REQUIRE_FIXTURES();
  table::testing::TempDir dir;  // a copy: the fixtures stay untouched
  fs::copy(testdirs::LanceDbFixturesDir() / "ops.lance", fs::path(dir.path()) / "ops.lance",
           fs::copy_options::recursive);
  ASSERT_OK_AND_ASSIGN(auto db, Connect(dir.path()));
  ASSERT_OK_AND_ASSIGN(auto t, db->OpenTable("ops"));
  std::vector<float> q(16);
  for (size_t i = 0; i < q.size(); ++i) q[i] = static_cast<float>(i % 5) * 0.1f - 0.2f;
  // What LanceDB 0.39 returns for search(q).nprobes(n).limit(5)[.refine_factor(r)].
  struct Case {
    size_t nprobes;
    uint32_t refine_factor;
    std::vector<int64_t> ids;
    std::vector<float> distances;
  };
  const std::vector<Case> cases = {
      {1,
       0,
       {3945, 1453, 3315, 8749, 123},
       {1.863648f, 2.271209f, 2.279986f, 2.315052f, 2.472356f}},
      {3, 0, {3945, 1453, 3315, 8749, 29}, {1.863648f, 2.271209f, 2.279986f, 2.315052f, 2.379011f}},
      {2,
       2,
       {3945, 8749, 3315, 2385, 1453},
       {1.578621f, 1.911175f, 2.097847f, 2.196870f, 2.210425f}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.nprobes);
    auto query = t->VectorSearch(q).Nprobes(c.nprobes).Limit(5);
    if (c.refine_factor) query.RefineFactor(c.refine_factor);
    auto b = Collect(query);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(Column<int64_t>(b, "id"), c.ids);
    auto distances = Column<float>(b, "_distance");
    ASSERT_EQ(distances.size(), c.distances.size());
    for (size_t i = 0; i < distances.size(); ++i) EXPECT_NEAR(distances[i], c.distances[i], 1e-4);
  }
  ASSERT_OK_AND_ASSIGN(auto plan, t->VectorSearch(q).ExplainPlan());
  EXPECT_NE(plan.find("ANNSubIndex: name=vector_idx"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("KNNVectorDistance"), std::string::npos) << plan;
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb
