// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// float16 vector columns: exact and indexed searches equal those over a float32 column holding
// the same (rounded) values, the query takes the column's precision, rows with NaN or infinite
// elements behave as in LanceDB, updates write float16 values, and bfloat16 columns (which
// LanceDB stores but does not search) are searched and indexed as their float32 values.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "array/bfloat16.h"
#include "array/builder.h"
#include "array/c_bridge.h"
#include "array/half.h"
#include "lancedb/lancedb.h"

namespace lancedb {
namespace LANCEDB_TEST_FILE_NS {

namespace la = lancedb::array;

constexpr int32_t kDim = 16;

la::SchemaPtr HalfSchema() {
  return la::schema({la::field("id", la::int64(), false),
                     la::field("h", la::fixed_size_list(la::float16(), kDim)),
                     la::field("f", la::fixed_size_list(la::float32(), kDim))});
}

/// Row i: id i, `h` its float16 vector and `f` the same values as float32.
struct HalfData {
  std::vector<uint16_t> halves;  // Layout: (rows, kDim)
  int64_t rows() const { return static_cast<int64_t>(halves.size()) / kDim; }
  std::vector<float> Row(int64_t i) const {
    std::vector<float> out(kDim);
    la::HalfToFloat(std::span(halves).subspan(static_cast<size_t>(i) * kDim, kDim), std::span(out));
    return out;
  }
};

HalfData MakeHalfData(int64_t rows, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  HalfData d;
  d.halves.resize(static_cast<size_t>(rows) * kDim);
  for (auto& h : d.halves) h = la::FloatToHalf(normal(rng));
  return d;
}

la::RecordBatchPtr HalfBatch(const HalfData& d, int64_t first, int64_t count) {
  std::vector<int64_t> ids(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) ids[static_cast<size_t>(i)] = first + i;
  std::vector<uint16_t> halves(d.halves.begin() + first * kDim,
                               d.halves.begin() + (first + count) * kDim);
  std::vector<float> floats(halves.size());
  la::HalfToFloat(std::span<const uint16_t>(halves), std::span(floats));
  auto schema = HalfSchema();
  return *la::RecordBatch::Make(
      schema,
      {la::MakePrimitive(la::int64(), ids),
       la::MakeFixedSizeList(schema->field(1)->type(), la::MakePrimitive(la::float16(), halves)),
       la::MakeFixedSizeList(schema->field(2)->type(), la::MakePrimitive(la::float32(), floats))},
      count);
}

Status AddRows(Table& table, const HalfData& d, int64_t first, int64_t count) {
  ArrowArrayStream s;
  LANCEDB_RETURN_NOT_OK(la::ExportRecordBatchReader(
      la::MakeVectorReader(HalfSchema(), {HalfBatch(d, first, count)}), &s));
  return table.Add(&s).status();
}

std::shared_ptr<Table> MakeHalfTable(const std::string& uri, const HalfData& d) {
  auto db = Connect(uri);
  EXPECT_TRUE(db.ok());
  ArrowArrayStream s;
  EXPECT_TRUE(la::ExportRecordBatchReader(
                  la::MakeVectorReader(HalfSchema(), {HalfBatch(d, 0, d.rows())}), &s)
                  .ok());
  auto t = (*db)->CreateTable("t", &s);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? *t : nullptr;
}

struct Hits {
  std::vector<int64_t> ids;
  std::vector<float> distances;
};

Hits Search(const VectorQuery& q) {
  ArrowArrayStream s;
  Status st = q.Execute(&s);
  EXPECT_TRUE(st.ok()) << st.ToString();
  Hits hits;
  if (!st.ok()) return hits;
  auto reader = la::ImportArrayStream(&s);
  auto batches = (*reader)->ReadAll();
  EXPECT_TRUE(batches.ok());
  for (const auto& b : *batches) {
    auto ids = b->GetColumnByName("id");
    auto dist = b->GetColumnByName("_distance");
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      hits.ids.push_back(ids->GetValues<int64_t>(1)[i]);
      hits.distances.push_back(dist->GetValues<float>(1)[i]);
    }
  }
  return hits;
}

void ExpectSameHits(const Hits& half, const Hits& full, const std::string& what) {
  EXPECT_EQ(half.ids, full.ids) << what;
  ASSERT_EQ(half.distances.size(), full.distances.size()) << what;
  for (size_t i = 0; i < half.distances.size(); ++i) {
    EXPECT_NEAR(half.distances[i], full.distances[i], 1e-3 * std::abs(full.distances[i]) + 1e-6)
        << what << " rank " << i;
  }
}

/// A query vector whose values are exact in float16.
std::vector<float> HalfExactQuery(uint32_t seed) { return MakeHalfData(1, seed).Row(0); }

TEST(HalfVectors, FlatSearchEqualsFloat32SearchOverTheSameValues) {
  const HalfData d = MakeHalfData(2000, 1);
  auto t = MakeHalfTable("memory://half_flat", d);
  ASSERT_NE(t, nullptr);
  for (const std::string type : {"l2", "cosine", "dot"}) {
    for (uint32_t seed : {11u, 12u, 13u}) {
      const auto q = HalfExactQuery(seed);
      ExpectSameHits(Search(t->VectorSearch(q).Column("h").DistanceType(type).Limit(20)),
                     Search(t->VectorSearch(q).Column("f").DistanceType(type).Limit(20)), type);
      // With a prefilter (the scanned path) too.
      ExpectSameHits(
          Search(t->VectorSearch(q).Column("h").DistanceType(type).Where("id % 3 = 1").Limit(20)),
          Search(t->VectorSearch(q).Column("f").DistanceType(type).Where("id % 3 = 1").Limit(20)),
          type + " prefiltered");
    }
  }
  // A row's own vector is at distance 0.
  auto self = Search(t->VectorSearch(d.Row(77)).Column("h").Limit(1));
  ASSERT_EQ(self.ids.size(), 1u);
  EXPECT_EQ(self.ids[0], 77);
  EXPECT_EQ(self.distances[0], 0.0f);
}

TEST(HalfVectors, QueryTakesTheColumnPrecision) {
  const HalfData d = MakeHalfData(500, 2);
  auto t = MakeHalfTable("memory://half_query", d);
  ASSERT_NE(t, nullptr);
  std::vector<float> q = HalfExactQuery(5);
  for (auto& x : q) x += 1e-3f;  // not representable in float16
  std::vector<float> rounded(q.size());
  for (size_t i = 0; i < q.size(); ++i) rounded[i] = la::HalfToFloat(la::FloatToHalf(q[i]));
  ASSERT_NE(q, rounded);
  ExpectSameHits(Search(t->VectorSearch(q).Column("h").Limit(10)),
                 Search(t->VectorSearch(rounded).Column("f").Limit(10)), "rounded query");
}

TEST(HalfVectors, IndexOnHalfColumnEqualsIndexOnFloatColumn) {
  const HalfData d = MakeHalfData(1500, 3);
  const std::vector<std::pair<std::string, VectorIndexConfig>> configs = {
      {"IVF_FLAT", VectorIndexConfig::IvfFlat()},      {"IVF_PQ", VectorIndexConfig::IvfPq()},
      {"IVF_SQ", VectorIndexConfig::IvfSq()},          {"IVF_RQ", VectorIndexConfig::IvfRq()},
      {"IVF_HNSW_SQ", VectorIndexConfig::HnswSq()},    {"IVF_HNSW_PQ", VectorIndexConfig::HnswPq()},
      {"IVF_HNSW_FLAT", VectorIndexConfig::HnswFlat()}};
  for (const auto& [name, base] : configs) {
    // Every index with l2 and one other distance (kept short: this is a fast test).
    const std::string other = name.size() % 2 ? "cosine" : "dot";
    for (const std::string& type : {std::string("l2"), other}) {
      auto t = MakeHalfTable("memory://half_index_" + name + "_" + type, d);
      ASSERT_NE(t, nullptr);
      VectorIndexConfig config = base;
      config.num_partitions = 8;
      if (name.find("PQ") != std::string::npos) config.num_sub_vectors = 4;
      config.distance_type = type;
      config.seed = 42;
      config.ef_construction = 40;
      // The float32 column's IVF_FLAT / PQ / SQ in lancedb-cpp's own layout, as on float16
      // (LanceDB's layout, the default on float32, trains and searches them as LanceDB does).
      config.own_layout = true;
      ASSERT_TRUE(t->CreateIndex("h", config).ok()) << name;
      ASSERT_TRUE(t->CreateIndex("f", config).ok()) << name;
      for (uint32_t seed : {21u, 22u}) {
        const auto q = HalfExactQuery(seed);
        const std::string what = name + " " + type;
        ExpectSameHits(Search(t->VectorSearch(q).Column("h").Nprobes(3).Limit(10)),
                       Search(t->VectorSearch(q).Column("f").Nprobes(3).Limit(10)), what);
        ExpectSameHits(Search(t->VectorSearch(q).Column("h").Nprobes(3).RefineFactor(3).Limit(10)),
                       Search(t->VectorSearch(q).Column("f").Nprobes(3).RefineFactor(3).Limit(10)),
                       what + " refined");
      }
    }
  }
}

TEST(HalfVectors, OptimizeExtendsAnHnswIndexOnAHalfColumn) {
  const HalfData d = MakeHalfData(1500, 4);
  HalfData first;
  first.halves.assign(d.halves.begin(), d.halves.begin() + 1000 * kDim);
  auto t = MakeHalfTable("memory://half_optimize", first);
  ASSERT_NE(t, nullptr);
  auto config = VectorIndexConfig::HnswSq();
  config.num_partitions = 4;
  config.seed = 3;
  ASSERT_TRUE(t->CreateIndex("h", config).ok());
  // In Lance's layout, as LanceDB writes IVF_HNSW_SQ on a float16 column.
  EXPECT_EQ((*t->ListIndices())[0].type_url, "/lance.index.pb.VectorIndexDetails");
  ASSERT_TRUE(AddRows(*t, d, 1000, 500).ok());
  Status st = t->OptimizeIndices();
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(t->IndexStats("h_idx")->num_unindexed_rows, 0);
  EXPECT_EQ((*t->ListIndices())[0].type_url, "/lance.index.pb.VectorIndexDetails");
  // An appended row is found through the index.
  auto hits = Search(t->VectorSearch(d.Row(1234)).Column("h").Nprobes(4).FastSearch().Limit(1));
  ASSERT_EQ(hits.ids.size(), 1u);
  EXPECT_EQ(hits.ids[0], 1234);
}

TEST(HalfVectors, RowsWithNanNeverMatchAndInfiniteRowsFollowLanceDb) {
  HalfData d = MakeHalfData(50, 5);
  d.halves[3 * kDim + 2] = 0x7E00;                                 // row 3: a NaN
  for (int j = 0; j < kDim; ++j) d.halves[5 * kDim + j] = 0x7C00;  // row 5: all +inf
  auto t = MakeHalfTable("memory://half_nan", d);
  ASSERT_NE(t, nullptr);
  const auto q = d.Row(2);
  for (const std::string type : {"l2", "cosine", "dot"}) {
    auto hits = Search(t->VectorSearch(q).Column("h").DistanceType(type).Limit(50));
    EXPECT_EQ(std::count(hits.ids.begin(), hits.ids.end(), 3), 0) << type;
    if (type == "l2") {  // the infinite row comes last, at +inf
      ASSERT_EQ(hits.ids.size(), 49u);
      EXPECT_EQ(hits.ids.back(), 5);
      EXPECT_TRUE(std::isinf(hits.distances.back()));
    }
    if (type == "cosine") {  // inf / inf: NaN, dropped
      EXPECT_EQ(hits.ids.size(), 48u);
      EXPECT_EQ(std::count(hits.ids.begin(), hits.ids.end(), 5), 0);
    }
  }
}

TEST(HalfVectors, UpdateWritesHalfValuesRoundedOnce) {
  const HalfData d = MakeHalfData(10, 6);
  auto t = MakeHalfTable("memory://half_update", d);
  ASSERT_NE(t, nullptr);
  std::string literal = "[";
  for (int j = 0; j < kDim; ++j) literal += (j ? ", " : "") + std::string(j == 0 ? "0.1" : "70000");
  literal += "]";
  auto updated = t->Update("id = 4", {{"h", literal}});
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ(updated->rows_updated, 1u);
  // Read the row back through a plain query.
  ArrowArrayStream s;
  ASSERT_TRUE(t->Query().Where("id = 4").Select({"h"}).Execute(&s).ok());
  auto reader = la::ImportArrayStream(&s);
  auto batches = (*reader)->ReadAll();
  ASSERT_TRUE(batches.ok());
  ASSERT_EQ(batches->size(), 1u);
  const auto& child = *(*batches)[0]->column(0)->children[0];
  ASSERT_EQ(child.type->id(), la::TypeId::kFloat16);
  const uint16_t* values = child.GetValues<uint16_t>(1);
  EXPECT_EQ(values[0], la::DoubleToHalf(0.1));  // 0x2E66
  EXPECT_EQ(values[0], 0x2E66);
  EXPECT_EQ(values[1], 0x7C00);  // 70000 overflows to +inf
}

/// Rows of bfloat16 vectors `b` and the same (widened) values as float32 in `f`.
std::shared_ptr<Table> MakeBFloat16Table(const std::string& uri, int64_t rows, uint32_t seed,
                                         std::vector<std::vector<float>>* widened) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<uint16_t> bf(static_cast<size_t>(rows) * kDim);
  std::vector<float> floats(bf.size());
  for (size_t i = 0; i < bf.size(); ++i) {
    bf[i] = la::FloatToBFloat16(normal(rng));
    floats[i] = la::BFloat16ToFloat(bf[i]);
  }
  for (int64_t r = 0; r < rows; ++r) {
    widened->emplace_back(floats.begin() + r * kDim, floats.begin() + (r + 1) * kDim);
  }
  std::vector<int64_t> ids(static_cast<size_t>(rows));
  for (int64_t i = 0; i < rows; ++i) ids[static_cast<size_t>(i)] = i;
  auto b_type = la::fixed_size_list(la::BFloat16Field("item"), kDim);
  auto f_type = la::fixed_size_list(la::float32(), kDim);
  auto schema =
      la::schema({la::field("id", la::int64()), la::field("b", b_type), la::field("f", f_type)});
  auto batch = *la::RecordBatch::Make(
      schema,
      {la::MakePrimitive(la::int64(), ids),
       la::MakeFixedSizeList(b_type, la::ArrayData::Make(la::fixed_size_binary(2), rows * kDim,
                                                         {nullptr, Buffer::FromVector(bf)})),
       la::MakeFixedSizeList(f_type, la::MakePrimitive(la::float32(), floats))},
      rows);
  auto db = Connect(uri);
  EXPECT_TRUE(db.ok());
  ArrowArrayStream s;
  EXPECT_TRUE(la::ExportRecordBatchReader(la::MakeVectorReader(schema, {batch}), &s).ok());
  auto t = (*db)->CreateTable("t", &s);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? *t : nullptr;
}

TEST(HalfVectors, BFloat16VectorsAreSearchedAsTheirFloat32Values) {
  // LanceDB stores bfloat16 vectors but neither searches nor indexes them; lancedb-cpp does
  // both, as over the same values widened to float32 (the query takes bfloat16 precision).
  std::vector<std::vector<float>> rows;
  auto t = MakeBFloat16Table("memory://bf16_flat", 1500, 7, &rows);
  ASSERT_NE(t, nullptr);
  for (const std::string type : {"l2", "cosine", "dot"}) {
    for (int r : {3, 500, 1234}) {
      std::vector<float> q = rows[static_cast<size_t>(r)];
      ExpectSameHits(Search(t->VectorSearch(q).Column("b").DistanceType(type).Limit(20)),
                     Search(t->VectorSearch(q).Column("f").DistanceType(type).Limit(20)), type);
      ExpectSameHits(
          Search(t->VectorSearch(q).Column("b").DistanceType(type).Where("id % 3 = 1").Limit(20)),
          Search(t->VectorSearch(q).Column("f").DistanceType(type).Where("id % 3 = 1").Limit(20)),
          type + " prefiltered");
    }
  }
  auto self = Search(t->VectorSearch(rows[77]).Column("b").Limit(1));
  ASSERT_EQ(self.ids.size(), 1u);
  EXPECT_EQ(self.ids[0], 77);
  EXPECT_EQ(self.distances[0], 0.0f);
  // A query not representable in bfloat16 is rounded to it.
  std::vector<float> q = rows[9];
  for (auto& x : q) x += 1e-4f;
  std::vector<float> rounded(q.size());
  for (size_t i = 0; i < q.size(); ++i) rounded[i] = la::BFloat16ToFloat(la::FloatToBFloat16(q[i]));
  ExpectSameHits(Search(t->VectorSearch(q).Column("b").Limit(10)),
                 Search(t->VectorSearch(rounded).Column("f").Limit(10)), "rounded query");
  // As LanceDB, an unnamed search does not take the bfloat16 column: only `f` has dimension 16.
  ExpectSameHits(Search(t->VectorSearch(rows[5]).Limit(10)),
                 Search(t->VectorSearch(rows[5]).Column("f").Limit(10)), "unnamed column");
}

TEST(HalfVectors, IndexOnBFloat16ColumnEqualsIndexOnFloatColumn) {
  std::vector<std::vector<float>> rows;
  for (VectorIndexType type : {VectorIndexType::kIvfFlat, VectorIndexType::kIvfPq,
                               VectorIndexType::kIvfSq, VectorIndexType::kIvfHnswSq}) {
    const std::string name(VectorIndexTypeName(type));
    rows.clear();
    auto t = MakeBFloat16Table("memory://bf16_index_" + name, 1500, 8, &rows);
    ASSERT_NE(t, nullptr);
    VectorIndexConfig config;
    config.index_type = type;
    config.num_partitions = 8;
    config.num_sub_vectors = 4;
    config.seed = 42;
    config.ef_construction = 40;
    // LanceDB does not index bfloat16: its index is in lancedb-cpp's own layout, compared
    // with the same on the float32 column.
    config.own_layout = true;
    ASSERT_TRUE(t->CreateIndex("b", config).ok()) << name;
    ASSERT_TRUE(t->CreateIndex("f", config).ok()) << name;
    auto indices = *t->ListIndices();
    ASSERT_EQ(indices.size(), 2u);
    for (const auto& info : indices) EXPECT_EQ(info.type_url, "/lancedb_cpp.VectorIndexDetails");
    for (int r : {11, 777}) {
      const auto& q = rows[static_cast<size_t>(r)];
      ExpectSameHits(Search(t->VectorSearch(q).Column("b").Nprobes(3).Limit(10)),
                     Search(t->VectorSearch(q).Column("f").Nprobes(3).Limit(10)), name);
      ExpectSameHits(Search(t->VectorSearch(q).Column("b").Nprobes(3).RefineFactor(3).Limit(10)),
                     Search(t->VectorSearch(q).Column("f").Nprobes(3).RefineFactor(3).Limit(10)),
                     name + " refined");
    }
  }
  // Without own_layout too (a bfloat16 column's index is always in the own layout).
  rows.clear();
  auto t = MakeBFloat16Table("memory://bf16_default", 600, 9, &rows);
  ASSERT_NE(t, nullptr);
  auto config = VectorIndexConfig::IvfPq();
  config.num_partitions = 4;
  config.num_sub_vectors = 4;
  ASSERT_TRUE(t->CreateIndex("b", config).ok());
  EXPECT_EQ((*t->ListIndices())[0].type_url, "/lancedb_cpp.VectorIndexDetails");
  auto hits = Search(t->VectorSearch(rows[5]).Column("b").Nprobes(4).RefineFactor(5).Limit(1));
  ASSERT_EQ(hits.ids.size(), 1u);
  EXPECT_EQ(hits.ids[0], 5);
  // hamming needs uint8 vectors.
  auto hamming = VectorIndexConfig::IvfFlat();
  hamming.distance_type = "hamming";
  Status st = t->CreateIndex("b", hamming);
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb
