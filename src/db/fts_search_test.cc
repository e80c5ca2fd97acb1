// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Full-text search through the Table API: BM25 scores equal a brute-force computation over the
// analyzer's tokens; the index and the flat search of unindexed rows agree; appends, deletes,
// updates, optimize and compaction keep results equal to a fresh index; query kinds; errors.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "array/builder.h"
#include "array/c_bridge.h"
#include "common/test_util.h"
#include "lancedb/lancedb.h"

namespace lancedb {
namespace LANCEDB_TEST_FILE_NS {

namespace la = lancedb::array;

const char* kWords[] = {"apple",  "banana", "cherry", "dog",   "lazy",  "quick",   "brown",
                        "fox",    "jumps",  "over",   "the",   "runs",  "running", "houses",
                        "garden", "river",  "stone",  "light", "night", "green"};

la::SchemaPtr Schema() {
  return la::schema({la::field("id", la::int64(), false), la::field("text", la::utf8()),
                     la::field("title", la::utf8()), la::field("n", la::int64())});
}

std::string Doc(std::mt19937_64& rng, int words) {
  std::string s;
  for (int i = 0; i < words; ++i) {
    s += (i ? " " : "") + std::string(kWords[rng() % std::size(kWords)]);
  }
  return s;
}

ArrowArrayStream Rows(int64_t first, int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> ids, ns;
  std::vector<std::optional<std::string>> texts, titles;
  for (int64_t i = first; i < first + n; ++i) {
    ids.push_back(i);
    ns.push_back(i % 5);
    texts.push_back(i % 31 == 7 ? std::nullopt
                                : std::optional<std::string>(Doc(rng, 1 + rng() % 12)));
    titles.push_back(Doc(rng, 1 + rng() % 3));
  }
  auto batch = *la::RecordBatch::Make(Schema(),
                                      {la::MakePrimitive(la::int64(), ids), la::MakeString(texts),
                                       la::MakeString(titles), la::MakePrimitive(la::int64(), ns)},
                                      n);
  ArrowArrayStream s;
  EXPECT_TRUE(la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {batch}), &s).ok());
  return s;
}

std::shared_ptr<Table> MakeTable(const std::string& uri, int fragments = 3, int64_t rows = 300) {
  auto db = Connect(uri);
  EXPECT_TRUE(db.ok());
  auto first = Rows(0, rows, 1);
  auto t = (*db)->CreateTable("t", &first, CreateTableMode::kOverwrite);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  for (int f = 1; f < fragments; ++f) {
    auto more = Rows(f * rows, rows, 1 + f);
    EXPECT_TRUE((*t)->Add(&more).ok());
  }
  return *t;
}

struct Hit {
  int64_t id;
  float score;
};

Result<std::vector<Hit>> RunQuery(const FtsQuery& q) {
  ArrowArrayStream out;
  LANCEDB_RETURN_NOT_OK(q.Execute(&out));
  LANCEDB_ASSIGN_OR_RETURN(auto reader, la::ImportArrayStream(&out));
  std::vector<Hit> hits;
  while (true) {
    LANCEDB_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (!batch) break;
    auto ids = batch->GetColumnByName("id");
    auto scores = batch->GetColumnByName("_score");
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      hits.push_back({ids->GetValues<int64_t>(1)[i], scores->GetValues<float>(1)[i]});
    }
  }
  return hits;
}

/// All (id, text) rows of the table.
std::vector<std::pair<int64_t, std::optional<std::string>>> AllTexts(Table& t) {
  ArrowArrayStream out;
  EXPECT_TRUE(t.Query().Select(std::vector<std::string>{"id", "text"}).Execute(&out).ok());
  auto reader = la::ImportArrayStream(&out).MoveValueUnsafe();
  std::vector<std::pair<int64_t, std::optional<std::string>>> rows;
  while (true) {
    auto batch = reader->Next().MoveValueUnsafe();
    if (!batch) break;
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      const auto& text = batch->column(1);
      rows.emplace_back(batch->column(0)->GetValues<int64_t>(1)[i],
                        text->IsNull(i)
                            ? std::nullopt
                            : std::optional<std::string>(std::string(text->GetView(i))));
    }
  }
  return rows;
}

/// BM25 over `rows` analyzed with the default options: id -> score of the OR query.
std::map<int64_t, double> BruteForce(
    const std::vector<std::pair<int64_t, std::optional<std::string>>>& rows,
    const std::string& query, bool all = false) {
  FtsIndexConfig config;
  std::map<int64_t, std::vector<std::string>> docs;
  for (const auto& [id, text] : rows) {
    if (!text) continue;
    auto tokens = *Tokenize(*text, config);
    if (tokens.empty()) continue;
    for (auto& [tok, pos] : tokens) docs[id].push_back(tok);
  }
  double total = 0;
  for (const auto& [id, toks] : docs) total += static_cast<double>(toks.size());
  const double n = static_cast<double>(docs.size()), avgdl = total / n;
  std::map<int64_t, double> out;
  const auto query_tokens = *Tokenize(query, config);
  for (const auto& [qt, pos] : query_tokens) {
    double df = 0;
    for (const auto& [id, toks] : docs) df += std::count(toks.begin(), toks.end(), qt) > 0;
    if (df == 0) continue;
    const double idf = std::log(1 + (n - df + 0.5) / (df + 0.5));
    for (const auto& [id, toks] : docs) {
      const double f = static_cast<double>(std::count(toks.begin(), toks.end(), qt));
      if (f == 0) continue;
      out[id] +=
          idf * 2.2 * f / (f + 1.2 * (1 - 0.75 + 0.75 * static_cast<double>(toks.size()) / avgdl));
    }
  }
  if (all) {  // AND: only the documents holding every query token
    for (auto it = out.begin(); it != out.end();) {
      bool every = true;
      for (const auto& [qt, pos] : query_tokens) {
        const auto& toks = docs[it->first];
        every = every && std::find(toks.begin(), toks.end(), qt) != toks.end();
      }
      it = every ? std::next(it) : out.erase(it);
    }
  }
  return out;
}

void ExpectMatchesBruteForce(Table& t, const std::string& query) {
  auto expected = BruteForce(AllTexts(t), query);
  ASSERT_OK_AND_ASSIGN(auto hits,
                       RunQuery(t.Search(FullTextQuery::Match(query, "text")).Limit(1000)));
  ASSERT_EQ(hits.size(), expected.size()) << query;
  for (size_t i = 0; i < hits.size(); ++i) {
    ASSERT_TRUE(expected.count(hits[i].id)) << query << " row " << hits[i].id;
    EXPECT_NEAR(hits[i].score, expected[hits[i].id], 1e-4) << query << " row " << hits[i].id;
    if (i > 0) {
      EXPECT_GE(hits[i - 1].score, hits[i].score);
    }
  }
}

TEST(FullTextSearch, IndexScoresEqualBruteForceBm25) {
  auto t = MakeTable("memory://fts_bm25");
  FtsIndexConfig config;
  config.with_position = true;
  ASSERT_OK(t->CreateFtsIndex("text", config));
  for (const char* q : {"lazy dog", "the quick brown fox", "running houses", "apple apple", "zebra",
                        "river stone light night green garden"}) {
    ExpectMatchesBruteForce(*t, q);
  }
  ASSERT_OK_AND_ASSIGN(auto indices, t->ListIndices());
  ASSERT_EQ(indices.size(), 1u);
  EXPECT_EQ(indices[0].index_type, "FTS");
  EXPECT_EQ(indices[0].name, "text_idx");
}

TEST(FullTextSearch, TopKOfEveryLimitEqualsBruteForceOrderAcrossPartitions) {
  // A small memory limit over two workers writes several partitions, whose block max scores
  // use their own statistics: the pruned top-k must still be exact.
  auto t = MakeTable("memory://fts_topk", 3, 3000);
  FtsIndexConfig config;
  config.num_workers = 2;
  config.memory_limit_mib = 1;
  ASSERT_OK(t->CreateFtsIndex("text", config));
  // Deleted rows leave the results but not the index's statistics (as in LanceDB).
  const auto rows = AllTexts(*t);
  ASSERT_OK(t->Delete("id % 10 = 1").status());
  for (const char* raw :
       {"dog", "garden", "the", "apple apple", "zebra", "dog garden", "quick brown fox jumps",
        "river river stone", "AND:dog lazy", "AND:garden river stone", "AND:dog zebra"}) {
    const std::string query = raw;
    const bool all = query.rfind("AND:", 0) == 0;
    const std::string q = all ? query.substr(4) : query;
    auto expected = BruteForce(rows, q, all);
    std::vector<std::pair<float, int64_t>> order;
    for (const auto& [id, score] : expected) {
      if (id % 10 != 1) order.emplace_back(static_cast<float>(score), id);
    }
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    for (int64_t limit : {1, 3, 10, 37}) {
      auto match = FullTextQuery::Match(q, "text");
      if (all) match.op = FtsOperator::kAnd;
      ASSERT_OK_AND_ASSIGN(auto hits, RunQuery(t->Search(match).Limit(limit)));
      ASSERT_EQ(hits.size(), std::min<size_t>(order.size(), static_cast<size_t>(limit))) << q;
      for (size_t i = 0; i < hits.size(); ++i) {
        EXPECT_NEAR(hits[i].score, order[i].first, 1e-4) << q << " limit " << limit;
        if (std::abs(hits[i].score - order[i].first) < 1e-6) {
          // Equal float scores: the lower id first, as the engine orders ties.
          EXPECT_EQ(hits[i].id, order[i].second) << q << " limit " << limit << " rank " << i;
        }
      }
    }
  }
}

TEST(FullTextSearch, FlatSearchWithoutIndexEqualsIndexedSearch) {
  auto t = MakeTable("memory://fts_flat");
  ASSERT_OK_AND_ASSIGN(auto flat, RunQuery(t->Search(FullTextQuery::Match("lazy dog", "text"))));
  ExpectMatchesBruteForce(*t, "lazy dog");
  ASSERT_OK(t->CreateFtsIndex("text", FtsIndexConfig{}));
  ASSERT_OK_AND_ASSIGN(auto indexed, RunQuery(t->Search(FullTextQuery::Match("lazy dog", "text"))));
  ASSERT_EQ(flat.size(), indexed.size());
  for (size_t i = 0; i < flat.size(); ++i) {
    EXPECT_EQ(flat[i].id, indexed[i].id);
    EXPECT_NEAR(flat[i].score, indexed[i].score, 1e-5);
  }
}

TEST(FullTextSearch, AppendsDeletesUpdatesOptimizeAndCompactionEqualAFreshIndex) {
  auto t = MakeTable("memory://fts_maint");
  ASSERT_OK(t->CreateFtsIndex("text", FtsIndexConfig{}));
  auto more = Rows(900, 200, 99);
  ASSERT_OK(t->Add(&more).status());
  ASSERT_OK(t->Delete("id % 7 = 3").status());
  ASSERT_OK(t->Update(std::string("id % 11 = 5"), {{"text", "'dog dog lazy'"}}).status());
  // Deleted rows never come back; updated rows are found with their new text.
  ASSERT_OK_AND_ASSIGN(auto hits,
                       RunQuery(t->Search(FullTextQuery::Match("dog", "text")).Limit(2000)));
  std::set<int64_t> found;
  for (const auto& h : hits) {
    EXPECT_NE(h.id % 7, 3) << h.id;
    found.insert(h.id);
  }
  for (int64_t id = 5; id < 1100; id += 11) {
    if (id % 7 != 3) {
      EXPECT_TRUE(found.count(id)) << id;
    }
  }
  ASSERT_OK(t->Optimize().status());
  for (const char* q : {"dog", "lazy quick", "garden river"}) ExpectMatchesBruteForce(*t, q);
  CompactionOptions compact;
  compact.target_rows_per_fragment = 100000;
  ASSERT_OK(t->Compact(compact).status());
  for (const char* q : {"dog", "lazy quick", "garden river"}) ExpectMatchesBruteForce(*t, q);
}

TEST(FullTextSearch, UpdatedRowsMatchTheirNewTextOnceWithStableRowIds) {
  for (const bool stable : {false, true}) {
    ConnectOptions options;
    if (stable) options.storage_options["new_table_enable_stable_row_ids"] = "true";
    ASSERT_OK_AND_ASSIGN(auto db,
                         Connect("memory://fts_stable_" + std::to_string(stable), options));
    auto first = Rows(0, 300, 1);
    ASSERT_OK_AND_ASSIGN(auto t, db->CreateTable("t", &first, CreateTableMode::kOverwrite));
    ASSERT_OK(t->CreateFtsIndex("text", FtsIndexConfig{}));
    // Rows 0..29 now say "zebra", in a fragment the index does not cover.
    ASSERT_OK(t->Update(std::string("id < 30"), {{"text", "'zebra zebra'"}}).status());
    ASSERT_OK_AND_ASSIGN(auto zebra,
                         RunQuery(t->Search(FullTextQuery::Match("zebra", "text")).Limit(1000)));
    std::set<int64_t> ids;
    for (const auto& h : zebra) EXPECT_TRUE(ids.insert(h.id).second) << "twice: " << h.id;
    EXPECT_EQ(ids.size(), 30u);
    // Their old words no longer find them, through the index or the flat search.
    for (const char* word : {"dog", "apple", "river", "the quick"}) {
      ASSERT_OK_AND_ASSIGN(auto hits,
                           RunQuery(t->Search(FullTextQuery::Match(word, "text")).Limit(1000)));
      for (const auto& h : hits) EXPECT_GE(h.id, 30) << word << " stable=" << stable;
    }
    for (int64_t limit : {1, 5}) {
      ASSERT_OK_AND_ASSIGN(auto top,
                           RunQuery(t->Search(FullTextQuery::Match("dog", "text")).Limit(limit)));
      for (const auto& h : top) EXPECT_GE(h.id, 30);
    }
  }
}

TEST(FullTextSearch, QueryKinds) {
  auto t = MakeTable("memory://fts_kinds", 1, 400);
  FtsIndexConfig config;
  config.with_position = true;
  ASSERT_OK(t->CreateFtsIndex("text", config));
  ASSERT_OK(t->CreateFtsIndex("title", FtsIndexConfig{}));
  auto ids = [&](const FullTextQuery& q) {
    auto hits = RunQuery(t->Search(q).Limit(1000));
    EXPECT_TRUE(hits.ok()) << hits.status().ToString();
    std::map<int64_t, float> out;
    for (const auto& h : *hits) out[h.id] = h.score;
    return out;
  };
  auto dog = ids(FullTextQuery::Match("dog", "text"));
  auto lazy = ids(FullTextQuery::Match("lazy", "text"));
  auto both = FullTextQuery::Match("dog lazy", "text");
  both.op = FtsOperator::kAnd;
  for (const auto& [id, score] : ids(both)) {
    ASSERT_TRUE(dog.count(id) && lazy.count(id));
    EXPECT_NEAR(score, dog[id] + lazy[id], 1e-4);
  }
  auto must =
      ids(FullTextQuery::Boolean({{FtsOccur::kMust, FullTextQuery::Match("dog", "text")},
                                  {FtsOccur::kMustNot, FullTextQuery::Match("lazy", "text")}}));
  for (const auto& [id, score] : must) {
    EXPECT_TRUE(dog.count(id) && !lazy.count(id));
    EXPECT_NEAR(score, dog[id], 1e-5);
  }
  auto boosted = ids(FullTextQuery::Boost(FullTextQuery::Match("dog", "text"),
                                          FullTextQuery::Match("lazy", "text"), 0.5f));
  EXPECT_EQ(boosted.size(), dog.size());
  for (const auto& [id, score] : boosted) {
    EXPECT_NEAR(score, dog[id] - (lazy.count(id) ? 0.5f * lazy[id] : 0.0f), 1e-4);
  }
  auto title = ids(FullTextQuery::Match("dog", "title"));
  auto multi = ids(FullTextQuery::MultiMatch("dog", {"text", "title"}, {1.0f, 3.0f}));
  for (const auto& [id, score] : multi) {
    const float a = dog.count(id) ? dog[id] : 0, b = title.count(id) ? 3 * title[id] : 0;
    EXPECT_NEAR(score, std::max(a, b), 1e-4);
  }
  // A phrase matches terms in order and at the query's distance (slop: further apart).
  auto phrase = ids(FullTextQuery::Phrase("lazy dog", "text"));
  auto slop = ids(FullTextQuery::Phrase("lazy dog", "text", 3));
  EXPECT_FALSE(phrase.empty());
  for (const auto& [id, score] : phrase) EXPECT_TRUE(slop.count(id));
  EXPECT_GE(slop.size(), phrase.size());
  // The top rows of a phrase query at any limit are the first rows of the whole ranking.
  for (uint32_t phrase_slop : {0u, 3u}) {
    ASSERT_OK_AND_ASSIGN(
        auto full,
        RunQuery(t->Search(FullTextQuery::Phrase("lazy dog", "text", phrase_slop)).Limit(1000)));
    for (int64_t limit : {1, 2, 5}) {
      ASSERT_OK_AND_ASSIGN(
          auto part,
          RunQuery(t->Search(FullTextQuery::Phrase("lazy dog", "text", phrase_slop)).Limit(limit)));
      ASSERT_EQ(part.size(), std::min<size_t>(full.size(), static_cast<size_t>(limit)));
      for (size_t i = 0; i < part.size(); ++i) {
        EXPECT_EQ(part[i].id, full[i].id);
        EXPECT_EQ(part[i].score, full[i].score);
      }
    }
  }
  // Fuzzy: "dgo" is one edit from "dog".
  auto fuzzy = FullTextQuery::Match("dgo", "text");
  fuzzy.fuzziness = 2;
  EXPECT_EQ(ids(fuzzy).size(), dog.size());
  // No column: a match over both indexed columns is a multi-match.
  auto any = ids(FullTextQuery::Match("dog"));
  EXPECT_EQ(any.size(), ids(FullTextQuery::MultiMatch("dog", {"text", "title"})).size());
}

TEST(FullTextSearch, FiltersLimitOffsetAndRowIds) {
  auto t = MakeTable("memory://fts_filters");
  ASSERT_OK(t->CreateFtsIndex("text", FtsIndexConfig{}));
  ASSERT_OK_AND_ASSIGN(auto all,
                       RunQuery(t->Search(FullTextQuery::Match("dog", "text")).Limit(5000)));
  ASSERT_OK_AND_ASSIGN(
      auto pre, RunQuery(t->Search(FullTextQuery::Match("dog", "text")).Where("n = 2").Limit(5)));
  std::vector<Hit> expected;
  for (const auto& h : all) {
    if (h.id % 5 == 2 && expected.size() < 5) expected.push_back(h);
  }
  ASSERT_EQ(pre.size(), expected.size());
  for (size_t i = 0; i < pre.size(); ++i) EXPECT_EQ(pre[i].id, expected[i].id);
  ASSERT_OK_AND_ASSIGN(
      auto post,
      RunQuery(
          t->Search(FullTextQuery::Match("dog", "text")).Where("n = 2").Postfilter().Limit(5)));
  for (const auto& h : post) EXPECT_EQ(h.id % 5, 2);
  EXPECT_LE(post.size(), 5u);
  ASSERT_OK_AND_ASSIGN(auto page,
                       RunQuery(t->Search(FullTextQuery::Match("dog", "text")).Offset(3).Limit(4)));
  ASSERT_EQ(page.size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(page[i].id, all[i + 3].id);
}

TEST(FullTextSearch, BadInputIsAClearErrorAndWritesNothing) {
  auto t = MakeTable("memory://fts_errors", 1, 50);
  ASSERT_OK_AND_ASSIGN(uint64_t v0, t->version());
  auto expect_error = [&](const Status& st, const std::string& fragment) {
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find(fragment), std::string::npos) << st.ToString();
  };
  expect_error(t->CreateFtsIndex("n", FtsIndexConfig{}), "string column");
  expect_error(t->CreateFtsIndex("nope", FtsIndexConfig{}), "not found");
  FtsIndexConfig bad;
  bad.base_tokenizer = "jieba";
  expect_error(t->CreateFtsIndex("text", bad), "jieba");
  bad = FtsIndexConfig{};
  bad.language = "Klingon";
  expect_error(t->CreateFtsIndex("text", bad), "Klingon");
  bad = FtsIndexConfig{};
  bad.block_size = 100;
  expect_error(t->CreateFtsIndex("text", bad), "block_size");
  bad = FtsIndexConfig{};
  bad.memory_limit_mib = 0;
  expect_error(t->CreateFtsIndex("text", bad), "exceeds worker memory limit");
  ASSERT_OK_AND_ASSIGN(uint64_t v1, t->version());
  EXPECT_EQ(v1, v0);
  expect_error(RunQuery(t->Search(FullTextQuery::Match("dog"))).status(), "INVERTED index");
  ASSERT_OK(t->CreateFtsIndex("text", FtsIndexConfig{}));
  expect_error(RunQuery(t->Search(FullTextQuery::Match("", "text"))).status(), "empty");
  expect_error(RunQuery(t->Search(FullTextQuery::Phrase("lazy dog", "text"))).status(),
               "with_position");
  expect_error(RunQuery(t->Search(FullTextQuery::Match("dog", "n"))).status(), "string column");
  CreateIndexOptions keep;
  keep.replace = false;
  expect_error(t->CreateFtsIndex("text", FtsIndexConfig{}, keep), "already exists");
  expect_error(ParseFullTextQueryJson("{\"nope\":{}}").status(), "unknown query kind");
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb

namespace lancedb {
namespace LANCEDB_TEST_FILE_NS {

/// Row ids of a query result, in order.
Result<std::vector<uint64_t>> RowIdsOfResult(ArrowArrayStream* out) {
  LANCEDB_ASSIGN_OR_RETURN(auto reader, la::ImportArrayStream(out));
  std::vector<uint64_t> ids;
  while (true) {
    LANCEDB_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (!batch) break;
    const auto* v = batch->GetColumnByName("_rowid")->GetValues<uint64_t>(1);
    ids.insert(ids.end(), v, v + batch->num_rows());
  }
  return ids;
}

TEST(HybridSearch, ReciprocalRankFusionOfTheTwoSearches) {
  const int64_t n = 400, dim = 4;
  std::mt19937_64 rng(5);
  std::vector<int64_t> ids;
  std::vector<std::optional<std::string>> texts;
  std::vector<float> values;
  for (int64_t i = 0; i < n; ++i) {
    ids.push_back(i);
    texts.push_back(Doc(rng, 1 + static_cast<int>(rng() % 10)));
    for (int64_t d = 0; d < dim; ++d) values.push_back(static_cast<float>(rng() % 1000) / 1000.0f);
  }
  auto schema = la::schema({la::field("id", la::int64(), false), la::field("text", la::utf8()),
                            la::field("vector", la::fixed_size_list(la::float32(), dim))});
  auto batch =
      *la::RecordBatch::Make(schema,
                             {la::MakePrimitive(la::int64(), ids), la::MakeString(texts),
                              la::MakeFixedSizeList(la::fixed_size_list(la::float32(), dim),
                                                    la::MakePrimitive(la::float32(), values))},
                             n);
  ArrowArrayStream s;
  ASSERT_OK(la::ExportRecordBatchReader(la::MakeVectorReader(schema, {batch}), &s));
  ASSERT_OK_AND_ASSIGN(auto db, Connect("memory://hybrid"));
  ASSERT_OK_AND_ASSIGN(auto t, db->CreateTable("t", &s, CreateTableMode::kOverwrite));
  ASSERT_OK(t->CreateFtsIndex("text", FtsIndexConfig{}));
  const std::vector<float> query = {0.5f, 0.5f, 0.5f, 0.5f};
  for (const char* filter : {"", "id % 3 = 0"}) {
    for (int64_t offset : {0, 2}) {
      const int64_t limit = 7;
      // The two halves as separate queries, fused here.
      ArrowArrayStream vout, fout, hout;
      auto vq = t->VectorSearch(query).Limit(limit + offset).WithRowId();
      auto fq =
          t->Search(FullTextQuery::Match("dog lazy", "text")).Limit(limit + offset).WithRowId();
      auto hq = t->HybridSearch(query, FullTextQuery::Match("dog lazy", "text"))
                    .Limit(limit)
                    .Offset(offset)
                    .WithRowId();
      if (*filter) {
        vq.Where(filter);
        fq.Where(filter);
        hq.Where(filter);
      }
      ASSERT_OK(vq.Execute(&vout));
      ASSERT_OK(fq.Execute(&fout));
      ASSERT_OK_AND_ASSIGN(auto vids, RowIdsOfResult(&vout));
      ASSERT_OK_AND_ASSIGN(auto fids, RowIdsOfResult(&fout));
      std::vector<std::pair<uint64_t, double>> expected;
      auto add = [&](uint64_t id, double s) {
        for (auto& e : expected) {
          if (e.first == id) {
            e.second += s;
            return;
          }
        }
        expected.emplace_back(id, s);
      };
      for (size_t i = 0; i < vids.size(); ++i) add(vids[i], 1.0 / (i + 1 + 60.0));
      for (size_t j = 0; j < fids.size(); ++j) add(fids[j], 1.0 / (j + 1 + 60.0));
      std::stable_sort(expected.begin(), expected.end(), [](const auto& a, const auto& b) {
        return static_cast<float>(a.second) > static_cast<float>(b.second);
      });
      ASSERT_OK(hq.Execute(&hout));
      ASSERT_OK_AND_ASSIGN(auto reader, la::ImportArrayStream(&hout));
      std::vector<uint64_t> got;
      std::vector<float> scores;
      while (true) {
        ASSERT_OK_AND_ASSIGN(auto b, reader->Next());
        if (!b) break;
        ASSERT_EQ(b->schema()->field(b->num_columns() - 2)->name(), "_relevance_score");
        for (int64_t i = 0; i < b->num_rows(); ++i) {
          got.push_back(b->GetColumnByName("_rowid")->GetValues<uint64_t>(1)[i]);
          scores.push_back(b->GetColumnByName("_relevance_score")->GetValues<float>(1)[i]);
          if (*filter) {
            EXPECT_EQ(b->GetColumnByName("id")->GetValues<int64_t>(1)[i] % 3, 0);
          }
        }
      }
      const size_t want =
          std::min(expected.size() - std::min(expected.size(), static_cast<size_t>(offset)),
                   static_cast<size_t>(limit));
      ASSERT_EQ(got.size(), want) << filter << " offset " << offset;
      for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i], expected[offset + i].first) << i;
        EXPECT_FLOAT_EQ(scores[i], static_cast<float>(expected[offset + i].second));
      }
    }
  }
  ArrowArrayStream bad;
  EXPECT_FALSE(
      t->HybridSearch(query, FullTextQuery::Match("dog", "text")).RrfK(0).Execute(&bad).ok());
  EXPECT_FALSE(t->HybridSearch({1.0f}, FullTextQuery::Match("dog", "text")).Execute(&bad).ok());
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb
