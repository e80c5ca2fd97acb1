// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// What ListIndices reports about each index (rows covered and not, segments, file sizes,
// creation time, details) on tables lancedb-cpp writes and on the one LanceDB wrote, and
// Table::Tokenize with the analysis options an FTS index stores.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>

#include "array/builder.h"
#include "array/c_bridge.h"
#include "common/test_dirs.h"
#include "common/test_util.h"
#include "lancedb/lancedb.h"
#include "table/table_test_util.h"

namespace lancedb {
namespace LANCEDB_TEST_FILE_NS {

namespace la = lancedb::array;
namespace fs = std::filesystem;

constexpr int32_t kDim = 8;

la::SchemaPtr Schema() {
  return la::schema({la::field("id", la::int64(), false), la::field("text", la::utf8()),
                     la::field("category", la::utf8()), la::field("tags", la::list(la::utf8())),
                     la::field("vector", la::fixed_size_list(la::float32(), kDim))});
}

/// Rows [first, first + n): deterministic text, categories, tags and vectors.
ArrowArrayStream Rows(int64_t first, int64_t n) {
  static const char* const kWords[] = {"the", "quick", "brown", "fox",     "jumps", "over",
                                       "a",   "lazy",  "dog",   "running", "houses"};
  std::vector<int64_t> ids;
  std::vector<std::optional<std::string>> texts, cats, items;
  std::vector<int64_t> offsets = {0};
  std::vector<float> values;
  for (int64_t i = first; i < first + n; ++i) {
    ids.push_back(i);
    texts.push_back(std::string(kWords[i % 11]) + " " + kWords[(i * 7) % 11] + " " +
                    kWords[(i * 3) % 11]);
    cats.push_back("c" + std::to_string(i % 5));
    items.push_back("t" + std::to_string(i % 3));
    offsets.push_back(static_cast<int64_t>(items.size()));
    for (int32_t k = 0; k < kDim; ++k) values.push_back(static_cast<float>((i * 31 + k * 17) % 97));
  }
  auto schema = Schema();
  auto batch = *la::RecordBatch::Make(
      schema,
      {la::MakePrimitive(la::int64(), ids), la::MakeString(texts), la::MakeString(cats),
       la::MakeList(la::list(la::utf8()), offsets, la::MakeString(items), {}),
       la::MakeFixedSizeList(schema->field(4)->type(), la::MakePrimitive(la::float32(), values))},
      n);
  ArrowArrayStream s;
  EXPECT_TRUE(la::ExportRecordBatchReader(la::MakeVectorReader(schema, {batch}), &s).ok());
  return s;
}

std::shared_ptr<Table> MakeTable(const std::string& uri, int fragments, int64_t rows) {
  auto db = Connect(uri);
  EXPECT_TRUE(db.ok());
  auto first = Rows(0, rows);
  auto t = (*db)->CreateTable("t", &first, CreateTableMode::kOverwrite);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  for (int f = 1; f < fragments; ++f) {
    auto more = Rows(f * rows, rows);
    EXPECT_TRUE((*t)->Add(&more).ok());
  }
  return *t;
}

uint64_t NowMillis() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

std::map<std::string, IndexInfo> ByName(const std::vector<IndexInfo>& list) {
  std::map<std::string, IndexInfo> out;
  for (const auto& info : list) out[info.name] = info;
  return out;
}

/// Bytes of the files in the index directory of `info` on disk.
uint64_t SizeOnDisk(const std::string& db_dir, const IndexInfo& info) {
  uint64_t total = 0;
  for (const auto& e :
       fs::directory_iterator(fs::path(db_dir) / "t.lance/_indices" / info.index_uuid)) {
    total += fs::file_size(e.path());
  }
  return total;
}

TEST(IndexMetadata, ListIndicesCountsRowsSegmentsAndFileSizes) {
  table::testing::TempDir dir;
  auto t = MakeTable(dir.path(), 2, 300);
  const uint64_t before = NowMillis();
  ASSERT_OK(t->CreateScalarIndex("id", ScalarIndexType::kBTree));
  ASSERT_OK(t->CreateFtsIndex("text", FtsIndexConfig{}));
  auto pq = VectorIndexConfig::IvfPq();
  pq.num_partitions = 2;
  pq.num_sub_vectors = 2;
  pq.seed = 7;
  ASSERT_OK(t->CreateIndex("vector", pq));
  const uint64_t after = NowMillis();

  ASSERT_OK_AND_ASSIGN(auto list, t->ListIndices());
  ASSERT_EQ(list.size(), 3u);
  for (const auto& info : list) {
    SCOPED_TRACE(info.name);
    EXPECT_EQ(info.num_indexed_rows, 600);
    EXPECT_EQ(info.num_unindexed_rows, 0);
    EXPECT_EQ(info.num_segments, 1);
    ASSERT_TRUE(info.created_at_millis.has_value());
    EXPECT_GE(*info.created_at_millis, before);
    EXPECT_LE(*info.created_at_millis, after);
    ASSERT_TRUE(info.size_bytes.has_value());
    EXPECT_EQ(*info.size_bytes, SizeOnDisk(dir.path(), info));
  }

  // Deleted rows leave the count; appended rows are unindexed until optimize covers them.
  ASSERT_OK(t->Delete("id < 50"));
  auto more = Rows(600, 100);
  ASSERT_OK(t->Add(&more));
  ASSERT_OK_AND_ASSIGN(list, t->ListIndices());
  for (const auto& info : list) {
    EXPECT_EQ(info.num_indexed_rows, 550) << info.name;
    EXPECT_EQ(info.num_unindexed_rows, 100) << info.name;
  }
  ASSERT_OK(t->OptimizeIndices());
  ASSERT_OK_AND_ASSIGN(list, t->ListIndices());
  for (const auto& info : list) {
    EXPECT_EQ(info.num_indexed_rows, 650) << info.name;
    EXPECT_EQ(info.num_unindexed_rows, 0) << info.name;
    EXPECT_EQ(info.num_segments, 1) << info.name;
    EXPECT_EQ(*info.size_bytes, SizeOnDisk(dir.path(), info)) << info.name;
  }
}

TEST(IndexMetadata, DetailsDescribeEachIndexType) {
  auto t = MakeTable("memory://index_details", 1, 300);
  auto vector_index = [&](VectorIndexConfig c, const std::string& name) {
    c.num_partitions = 2;
    c.seed = 1;
    CreateIndexOptions options;
    options.name = name;
    return t->CreateIndex("vector", c, options);
  };
  auto flat = VectorIndexConfig::IvfFlat();
  flat.distance_type = "cosine";
  ASSERT_OK(vector_index(flat, "flat"));
  auto pq = VectorIndexConfig::IvfPq();
  pq.num_sub_vectors = 2;
  pq.num_bits = 4;
  ASSERT_OK(vector_index(pq, "pq"));
  auto sq = VectorIndexConfig::IvfSq();
  sq.distance_type = "dot";
  ASSERT_OK(vector_index(sq, "sq"));
  ASSERT_OK(vector_index(VectorIndexConfig::IvfRq(), "rq"));
  auto hnsw = VectorIndexConfig::HnswSq();
  hnsw.m = 10;
  hnsw.ef_construction = 50;
  ASSERT_OK(vector_index(hnsw, "hnsw_sq"));
  ASSERT_OK(t->CreateScalarIndex("id", ScalarIndexType::kBTree));
  ASSERT_OK(t->CreateScalarIndex("category", ScalarIndexType::kBitmap));
  ASSERT_OK(t->CreateScalarIndex("tags", ScalarIndexType::kLabelList));
  FtsIndexConfig fts;
  fts.base_tokenizer = "whitespace";
  fts.with_position = true;
  fts.stem = false;
  fts.custom_stop_words = std::vector<std::string>{"the", "a"};
  ASSERT_OK(t->CreateFtsIndex("text", fts));

  ASSERT_OK_AND_ASSIGN(auto list, t->ListIndices());
  auto by_name = ByName(list);
  const std::map<std::string, std::pair<std::string, std::string>> expected = {
      {"flat", {"IVF_FLAT", R"({"metric_type":"COSINE"})"}},
      {"pq",
       {"IVF_PQ",
        R"({"metric_type":"L2","compression":{"type":"pq","num_bits":4,"num_sub_vectors":2}})"}},
      {"sq", {"IVF_SQ", R"({"metric_type":"DOT","compression":{"type":"sq","num_bits":8}})"}},
      {"rq",
       {"IVF_RQ",
        R"({"metric_type":"L2","compression":{"type":"rq","num_bits":1,"rotation_type":"fast"}})"}},
      {"hnsw_sq",
       {"IVF_HNSW_SQ",
        R"({"metric_type":"L2","hnsw":{"max_connections":10,"construction_ef":50,"max_level":7},)"
        R"("compression":{"type":"sq","num_bits":8}})"}},
      {"id_idx", {"BTREE", "{}"}},
      {"category_idx", {"BITMAP", "{}"}},
      {"tags_idx", {"LABEL_LIST", "{}"}},
      {"text_idx",
       {"FTS", R"({"lance_tokenizer":"text","base_tokenizer":"whitespace","language":"English",)"
               R"("with_position":true,"max_token_length":40,"lower_case":true,"stem":false,)"
               R"("remove_stop_words":true,"custom_stop_words":["the","a"],"ascii_folding":true,)"
               R"("min_ngram_length":3,"max_ngram_length":3,"prefix_only":false,"block_size":128,)"
               R"("split_identifiers":false,"split_on_numerics":false,"preserve_original":false,)"
               R"("index_operators":false})"}},
  };
  ASSERT_EQ(by_name.size(), expected.size());
  for (const auto& [name, type_and_json] : expected) {
    ASSERT_EQ(by_name.count(name), 1u) << name;
    EXPECT_EQ(by_name[name].index_type, type_and_json.first) << name;
    EXPECT_EQ(by_name[name].details_json, type_and_json.second) << name;
  }
}

TEST(IndexMetadata, PrewarmIndexOpensEachKindAndReportsUnknownNamesAndBadFiles) {
  table::testing::TempDir dir;
  auto t = MakeTable(dir.path(), 2, 300);
  ASSERT_OK(t->CreateScalarIndex("id", ScalarIndexType::kBTree));
  ASSERT_OK(t->CreateFtsIndex("text", FtsIndexConfig{}));
  auto flat = VectorIndexConfig::IvfFlat();
  flat.num_partitions = 2;
  ASSERT_OK(t->CreateIndex("vector", flat));
  ASSERT_OK_AND_ASSIGN(auto list, t->ListIndices());
  ASSERT_EQ(list.size(), 3u);
  for (const auto& info : list) {
    Status st = t->PrewarmIndex(info.name);
    EXPECT_TRUE(st.ok()) << info.name << ": " << st.ToString();
  }

  Status missing = t->PrewarmIndex("nope");
  EXPECT_TRUE(missing.IsNotFound()) << missing.ToString();
  EXPECT_EQ(missing.message(), "Lance index not found: name=nope");

  // A second table whose (never opened) vector index file is cut short: prewarming reads it and
  // reports it.
  ASSERT_OK_AND_ASSIGN(auto db, Connect(dir.path()));
  auto rows = Rows(0, 300);
  ASSERT_OK_AND_ASSIGN(auto u, db->CreateTable("u", &rows, CreateTableMode::kCreate));
  ASSERT_OK(u->CreateIndex("vector", flat));
  ASSERT_OK_AND_ASSIGN(auto ulist, u->ListIndices());
  for (const auto& e :
       fs::directory_iterator(fs::path(dir.path()) / "u.lance/_indices" / ulist[0].index_uuid)) {
    fs::resize_file(e.path(), 10);
  }
  EXPECT_FALSE(u->PrewarmIndex(ulist[0].name).ok());
}

TEST(IndexMetadata, LanceDbIndicesAreListedAsLanceDbListsThem) {
  LANCEDB_REQUIRE_FIXTURES();
  // Copied: opening a table must not write into the fixtures.
  table::testing::TempDir dir;
  fs::copy(testdirs::LanceDbFixturesDir() / "ops.lance", fs::path(dir.path()) / "ops.lance",
           fs::copy_options::recursive);
  ASSERT_OK_AND_ASSIGN(auto db, Connect(dir.path()));
  ASSERT_OK_AND_ASSIGN(auto t, db->OpenTable("ops"));
  ASSERT_OK_AND_ASSIGN(auto list, t->ListIndices());
  // The values LanceDB 0.39's list_indices() reports for this table.
  struct Expected {
    std::string type;
    uint64_t created_at, size_bytes;
    int32_t index_version;
  };
  const std::map<std::string, Expected> expected = {
      {"category_idx", {"BITMAP", 1796002912447, 13936, 0}},
      {"id_idx", {"BTREE", 1796002912440, 40549, 0}},
      {"tags_idx", {"LABEL_LIST", 1796002912476, 27618, 1}},
      {"text_idx", {"FTS", 1796002912469, 56342, 2}},
      {"vector_idx", {"IVF_PQ", 1796002912432, 74321, 1}},
  };
  auto by_name = ByName(list);
  ASSERT_EQ(by_name.size(), expected.size());
  for (const auto& [name, e] : expected) {
    SCOPED_TRACE(name);
    const IndexInfo& info = by_name[name];
    EXPECT_EQ(info.index_type, e.type);
    EXPECT_EQ(info.created_at_millis, e.created_at);
    EXPECT_EQ(info.size_bytes, e.size_bytes);
    EXPECT_EQ(info.index_version, e.index_version);
    EXPECT_EQ(info.num_indexed_rows, 6435);
    EXPECT_EQ(info.num_unindexed_rows, 0);
    EXPECT_EQ(info.num_segments, 1);
  }
  EXPECT_EQ(by_name["id_idx"].details_json, "{}");
  EXPECT_EQ(by_name["vector_idx"].details_json,
            R"({"metric_type":"L2","compression":{"type":"pq","num_bits":8,"num_sub_vectors":4},)"
            R"("runtime_hints":{"lance.ivf.max_iters":"50","lance.ivf.sample_rate":"256",)"
            R"("lance.ivf.shuffle_partition_batches":"10240",)"
            R"("lance.ivf.shuffle_partition_concurrency":"2","lance.pq.kmeans_redos":"1",)"
            R"("lance.pq.max_iters":"50","lance.pq.sample_rate":"256",)"
            R"("lance.skip_transpose":"false"}})");
  ASSERT_OK_AND_ASSIGN(auto stats, t->IndexStats("vector_idx"));
  EXPECT_EQ(stats.index_type, "IVF_PQ");
  EXPECT_EQ(stats.distance_type, "l2");
  // Its FTS index's stored options tokenize (English stemming and stop words).
  ASSERT_OK_AND_ASSIGN(auto tokens, t->Tokenize("The running foxes", "text", std::nullopt));
  EXPECT_EQ(tokens, (std::vector<std::pair<std::string, uint32_t>>{{"run", 0}, {"fox", 1}}));
}

TEST(IndexMetadata, TokenizeUsesTheOptionsTheIndexStores) {
  auto t = MakeTable("memory://index_tokenize", 1, 50);
  FtsIndexConfig fts;
  fts.base_tokenizer = "whitespace";
  fts.lower_case = false;
  fts.stem = false;
  fts.custom_stop_words = std::vector<std::string>{"Over"};
  ASSERT_OK(t->CreateFtsIndex("text", fts));
  ASSERT_OK(t->CreateScalarIndex("id", ScalarIndexType::kBTree));
  using Tokens = std::vector<std::pair<std::string, uint32_t>>;
  // A removed stop word keeps its position, as in LanceDB.
  const Tokens expected = {{"The", 0}, {"Running", 1}, {"foxes,", 3}};
  ASSERT_OK_AND_ASSIGN(auto by_column, t->Tokenize("The Running Over foxes,", "text", {}));
  EXPECT_EQ(by_column, expected);
  ASSERT_OK_AND_ASSIGN(auto by_name, t->Tokenize("The Running Over foxes,", {}, "text_idx"));
  EXPECT_EQ(by_name, expected);
  ASSERT_OK_AND_ASSIGN(auto none, t->Tokenize("", "text", {}));
  EXPECT_TRUE(none.empty());

  ASSERT_RAISES(kInvalidArgument, "Specify exactly one of 'column' or 'index_name'",
                t->Tokenize("x", {}, {}));
  ASSERT_RAISES(kInvalidArgument, "Specify exactly one of 'column' or 'index_name'",
                t->Tokenize("x", "text", "text_idx"));
  ASSERT_RAISES(kInvalidArgument, "Column 'id' does not have a full text search index",
                t->Tokenize("x", "id", {}));
  ASSERT_RAISES(kNotFound,
                "Field path `nope` not found in schema. Available field paths: id, text, "
                "category, tags, tags.item, vector",
                t->Tokenize("x", "nope", {}));
  ASSERT_RAISES(kInvalidArgument, "No index named 'nope'", t->Tokenize("x", {}, "nope"));
  ASSERT_RAISES(kInvalidArgument, "Index 'id_idx' is not a full text search index",
                t->Tokenize("x", {}, "id_idx"));
  CreateIndexOptions second;
  second.name = "text_again";
  ASSERT_OK(t->CreateFtsIndex("text", FtsIndexConfig{}, second));
  ASSERT_RAISES(kInvalidArgument,
                "Column 'text' has multiple full text search indexes; tokenization by column "
                "is ambiguous",
                t->Tokenize("x", "text", {}));
  ASSERT_OK_AND_ASSIGN(auto stemmed, t->Tokenize("The Running", {}, "text_again"));
  EXPECT_EQ(stemmed, (Tokens{{"run", 0}}));
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb
