// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Tests of the query options LanceDB's builders expose beyond filter and projection: OrderBy
// (plain, vector and full-text queries), WithRowAddress and FragmentIds, on tables of several
// fragments with deletions, with and without stable row ids. The expected orders are those
// LanceDB 0.39 returns for the same data.

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>

#include "array/builder.h"
#include "array/c_bridge.h"
#include "common/test_util.h"
#include "lancedb/lancedb.h"

namespace lancedb {
namespace LANCEDB_TEST_FILE_NS {

namespace la = lancedb::array;

la::SchemaPtr Schema() {
  return la::schema(
      {la::field("id", la::int64(), false), la::field("a", la::int64()), la::field("s", la::utf8()),
       la::field("st", la::struct_({la::field("x", la::int64())})),
       la::field("v", la::fixed_size_list(la::float32(), 2)), la::field("text", la::utf8())});
}

/// Rows id = first .. first + a.size() - 1 with the given `a` (nullopt = null); s = "s<id>",
/// st.x = -id, v = [id, 0], text "word<id % 3> common".
la::RecordBatchPtr Rows(int64_t first, const std::vector<std::optional<int64_t>>& a) {
  std::vector<int64_t> ids, as, xs;
  std::vector<bool> valid;
  std::vector<std::optional<std::string>> s, text;
  std::vector<float> v;
  for (size_t i = 0; i < a.size(); ++i) {
    const int64_t id = first + static_cast<int64_t>(i);
    ids.push_back(id);
    as.push_back(a[i].value_or(0));
    valid.push_back(a[i].has_value());
    xs.push_back(-id);
    s.push_back("s" + std::to_string(id));
    text.push_back("word" + std::to_string(id % 3) + " common");
    v.push_back(static_cast<float>(id));
    v.push_back(0.0f);
  }
  const auto n = static_cast<int64_t>(ids.size());
  auto st = la::MakeStruct(la::struct_({la::field("x", la::int64())}),
                           {la::MakePrimitive(la::int64(), xs)});
  auto vectors = la::MakeFixedSizeList(la::fixed_size_list(la::float32(), 2),
                                       la::MakePrimitive(la::float32(), v));
  auto batch = la::RecordBatch::Make(
      Schema(),
      {la::MakePrimitive(la::int64(), ids), la::MakePrimitive(la::int64(), as, valid),
       la::MakeString(s), st, vectors, la::MakeString(text)},
      n);
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  return *batch;
}

ArrowArrayStream Stream(const la::RecordBatchPtr& batch) {
  ArrowArrayStream s;
  EXPECT_TRUE(la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {batch}), &s).ok());
  return s;
}

/// Three fragments: ids 0-4 (a = 3, 1, null, 2, 5), 5-7 (a = 1, 4, null), 8-9 (a = 2, 0); the
/// row with id 6 deleted.
std::shared_ptr<Table> MakeTable(const std::string& uri, bool stable_row_ids = false) {
  ConnectOptions options;
  if (stable_row_ids) options.storage_options["new_table_enable_stable_row_ids"] = "true";
  auto db = Connect(uri, options);
  EXPECT_TRUE(db.ok());
  auto s = Stream(Rows(0, {3, 1, std::nullopt, 2, 5}));
  auto t = (*db)->CreateTable("t", &s);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  auto s2 = Stream(Rows(5, {1, 4, std::nullopt}));
  EXPECT_TRUE((*t)->Add(&s2).ok());
  auto s3 = Stream(Rows(8, {2, 0}));
  EXPECT_TRUE((*t)->Add(&s3).ok());
  EXPECT_TRUE((*t)->Delete("id = 6").ok());
  return *t;
}

template <typename Q>
Result<la::RecordBatchPtr> RunQuery(const Q& q, std::vector<int64_t>* batch_rows = nullptr) {
  ArrowArrayStream s;
  LANCEDB_RETURN_NOT_OK(q.Execute(&s));
  LANCEDB_ASSIGN_OR_RETURN(auto reader, la::ImportArrayStream(&s));
  LANCEDB_ASSIGN_OR_RETURN(auto batches, reader->ReadAll());
  if (batch_rows) {
    for (const auto& b : batches) batch_rows->push_back(b->num_rows());
  }
  return la::ConcatenateBatches(reader->schema(), batches);
}

template <typename T = int64_t>
std::vector<std::optional<T>> Column(const la::RecordBatchPtr& b, const std::string& name) {
  auto c = b->GetColumnByName(name);
  EXPECT_NE(c, nullptr) << name;
  std::vector<std::optional<T>> out;
  if (c == nullptr) return out;
  for (int64_t i = 0; i < c->length; ++i) {
    out.push_back(c->IsNull(i) ? std::nullopt : std::optional<T>(c->GetValues<T>(1)[i]));
  }
  return out;
}

std::vector<std::optional<int64_t>> Ids(const la::RecordBatchPtr& b) { return Column(b, "id"); }

using Opt = std::vector<std::optional<int64_t>>;
constexpr auto kNull = std::nullopt;

ColumnOrdering Asc(std::string c, bool nulls_first = false) {
  return {std::move(c), true, nulls_first};
}
ColumnOrdering Desc(std::string c, bool nulls_first = false) {
  return {std::move(c), false, nulls_first};
}

TEST(QueryOrderBy, SortsBeforeOffsetAndLimit) {
  auto t = MakeTable("memory://order-plain");
  // Live rows (id: a): 0:3 1:1 2:null 3:2 4:5 5:1 7:null 8:2 9:0.
  ASSERT_OK_AND_ASSIGN(auto all, RunQuery(t->Query().OrderBy({Asc("a")})));
  EXPECT_EQ(Column(all, "a"), (Opt{0, 1, 1, 2, 2, 3, 5, kNull, kNull}));
  EXPECT_EQ(Ids(all), (Opt{9, 1, 5, 3, 8, 0, 4, 2, 7}));  // ties keep scan order
  ASSERT_OK_AND_ASSIGN(auto top3, RunQuery(t->Query().OrderBy({Asc("a")}).Limit(3)));
  EXPECT_EQ(Column(top3, "a"), (Opt{0, 1, 1}));
  ASSERT_OK_AND_ASSIGN(auto nf, RunQuery(t->Query().OrderBy({Desc("a", true)})));
  EXPECT_EQ(Column(nf, "a"), (Opt{kNull, kNull, 5, 3, 2, 2, 1, 1, 0}));
  EXPECT_EQ(Ids(nf), (Opt{2, 7, 4, 0, 3, 8, 1, 5, 9}));
  ASSERT_OK_AND_ASSIGN(auto window,
                       RunQuery(t->Query().Where("a > 0").OrderBy({Desc("a")}).Offset(1).Limit(3)));
  EXPECT_EQ(Column(window, "a"), (Opt{3, 2, 2}));
  // Several keys: a ascending, then id descending.
  ASSERT_OK_AND_ASSIGN(auto two, RunQuery(t->Query().OrderBy({Asc("a"), Desc("id")}).Limit(5)));
  EXPECT_EQ(Ids(two), (Opt{9, 5, 1, 8, 3}));
}

TEST(QueryOrderBy, KeysAreTableColumnsWhateverTheSelection) {
  auto t = MakeTable("memory://order-select");
  // Sorted by a column the selection leaves out, and by a struct member.
  ASSERT_OK_AND_ASSIGN(
      auto b,
      RunQuery(t->Query().Select(std::vector<std::string>{"s"}).OrderBy({Desc("a")}).Limit(2)));
  EXPECT_EQ(b->schema()->field_names(), std::vector<std::string>{"s"});
  EXPECT_EQ(b->column(0)->GetView(0), "s4");
  EXPECT_EQ(b->column(0)->GetView(1), "s0");
  ASSERT_OK_AND_ASSIGN(auto by_member, RunQuery(t->Query().OrderBy({Asc("st.x")}).Limit(3)));
  EXPECT_EQ(Ids(by_member), (Opt{9, 8, 7}));
  // An alias shadowing a column does not change what the key means.
  ASSERT_OK_AND_ASSIGN(auto alias,
                       RunQuery(t->Query()
                                    .Select(std::vector<std::pair<std::string, std::string>>{
                                        {"a", "-a"}, {"id", "id"}})
                                    .OrderBy({Asc("a")})
                                    .Limit(2)));
  EXPECT_EQ(Column(alias, "a"), (Opt{0, -1}));
  // Sorting a fixed-size list and a string.
  ASSERT_OK_AND_ASSIGN(auto by_vector, RunQuery(t->Query().OrderBy({Desc("v")}).Limit(2)));
  EXPECT_EQ(Ids(by_vector), (Opt{9, 8}));
  ASSERT_OK_AND_ASSIGN(auto by_string, RunQuery(t->Query().OrderBy({Asc("s")}).Limit(3)));
  EXPECT_EQ(Ids(by_string), (Opt{0, 1, 2}));
}

TEST(QueryOrderBy, BatchesRowIdsAndRowOffsets) {
  auto t = MakeTable("memory://order-batches");
  std::vector<int64_t> rows;
  ASSERT_OK_AND_ASSIGN(
      auto b,
      RunQuery(t->Query().OrderBy({Asc("a")}).WithRowId().WithRowAddress().MaxBatchLength(4),
               &rows));
  EXPECT_EQ(rows, (std::vector<int64_t>{4, 4, 1}));
  const auto ids = Ids(b);
  const auto row_ids = Column<uint64_t>(b, "_rowid");
  const auto addresses = Column<uint64_t>(b, "_rowaddr");
  // Fragment k holds ids [first_k, ...): 0-4, 5-7, 8-9.
  for (size_t i = 0; i < ids.size(); ++i) {
    const int64_t id = *ids[i];
    const uint64_t fragment = id < 5 ? 0 : id < 8 ? 1 : 2;
    const uint64_t offset = static_cast<uint64_t>(id - (id < 5 ? 0 : id < 8 ? 5 : 8));
    EXPECT_EQ(*addresses[i], (fragment << 32) | offset) << "id " << id;
    EXPECT_EQ(*row_ids[i], *addresses[i]);
  }
  // _rowoffset numbers the rows in scan order, whatever the output order.
  ASSERT_OK_AND_ASSIGN(auto offsets,
                       RunQuery(t->Query()
                                    .Select(std::vector<std::pair<std::string, std::string>>{
                                        {"id", "id"}, {"o", "_rowoffset"}})
                                    .OrderBy({Desc("id")})
                                    .Limit(3)));
  EXPECT_EQ(Ids(offsets), (Opt{9, 8, 7}));
  EXPECT_EQ(Column<uint64_t>(offsets, "o"), (std::vector<std::optional<uint64_t>>{8, 7, 6}));
}

TEST(QueryOrderBy, ScalarIndexAndTakesGiveTheSameOrder) {
  auto t = MakeTable("memory://order-index");
  ASSERT_OK_AND_ASSIGN(auto scanned,
                       RunQuery(t->Query().Where("id >= 3").OrderBy({Desc("a")}).Limit(4)));
  ASSERT_OK(t->CreateScalarIndex("id", ScalarIndexType::kBTree));
  ASSERT_OK_AND_ASSIGN(auto indexed,
                       RunQuery(t->Query().Where("id >= 3").OrderBy({Desc("a")}).Limit(4)));
  EXPECT_EQ(Ids(indexed), Ids(scanned));
  EXPECT_EQ(Ids(indexed), (Opt{4, 3, 8, 5}));
  ASSERT_OK_AND_ASSIGN(
      auto taken, RunQuery(t->TakeOffsets({0, 1, 2, 3}).OrderBy({Asc("a", true)}).WithRowId()));
  EXPECT_EQ(Ids(taken), (Opt{2, 1, 3, 0}));
}

TEST(QueryOrderBy, RejectsWhatIsNotAColumn) {
  auto t = MakeTable("memory://order-errors");
  for (const std::string bad : {"nope", "_rowid", "a + 1", "_distance"}) {
    auto r = RunQuery(t->Query().OrderBy({Asc(bad)}));
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
    EXPECT_NE(r.status().message().find("order_by: Column '" + bad + "' not found; columns are: "),
              std::string::npos)
        << r.status().ToString();
  }
  auto member = RunQuery(t->Query().OrderBy({Asc("st.nope")}));
  ASSERT_FALSE(member.ok());
  EXPECT_NE(member.status().message().find("order_by"), std::string::npos);
  EXPECT_NE(member.status().message().find("nope"), std::string::npos);
  // The error comes before any data is read, from the schema too.
  ArrowSchema schema;
  EXPECT_TRUE(t->Query().OrderBy({Asc("nope")}).OutputSchema(&schema).IsInvalidArgument());
}

TEST(QueryRowAddress, IsTheAddressOnStableRowIdTablesToo) {
  auto t = MakeTable("memory://rowaddr-stable", /*stable_row_ids=*/true);
  ASSERT_OK(t->Update(std::optional<std::string>("id = 1"), {{"a", "10"}}));
  // id 1 now lives in a new fragment (3) at offset 0; its row id is unchanged.
  ASSERT_OK_AND_ASSIGN(auto b, RunQuery(t->Query().Where("id < 3").WithRowId().WithRowAddress()));
  EXPECT_EQ(b->schema()->field_names(),
            (std::vector<std::string>{"id", "a", "s", "st", "v", "text", "_rowid", "_rowaddr"}));
  std::map<int64_t, std::pair<uint64_t, uint64_t>> by_id;
  const auto ids = Ids(b);
  const auto row_ids = Column<uint64_t>(b, "_rowid");
  const auto addresses = Column<uint64_t>(b, "_rowaddr");
  for (size_t i = 0; i < ids.size(); ++i) by_id[*ids[i]] = {*row_ids[i], *addresses[i]};
  ASSERT_EQ(by_id.size(), 3u);
  EXPECT_EQ(by_id[0], std::make_pair(uint64_t{0}, uint64_t{0}));
  EXPECT_EQ(by_id[1], std::make_pair(uint64_t{1}, uint64_t{3} << 32));
  EXPECT_EQ(by_id[2], std::make_pair(uint64_t{2}, uint64_t{2}));
  // A filter reading one column and returning the others takes them by address (this failed
  // once: the late take used the row ids).
  ASSERT_OK(t->Compact({}).status());
  ASSERT_OK_AND_ASSIGN(
      auto late, RunQuery(t->Query().Where("a >= 4").Select(std::vector<std::string>{"s", "id"})));
  std::set<int64_t> late_ids;
  for (const auto& id : Ids(late)) late_ids.insert(*id);
  EXPECT_EQ(late_ids, (std::set<int64_t>{1, 4}));
  for (int64_t i = 0; i < late->num_rows(); ++i) {
    EXPECT_EQ(late->column(0)->GetView(i), "s" + std::to_string(*Ids(late)[i]));
  }
  // Takes report both too.
  // A repeated row id gives its row once (as LanceDB); a repeated offset repeats it.
  ASSERT_OK_AND_ASSIGN(auto taken, RunQuery(t->TakeRowIds({1, 1}).WithRowId().WithRowAddress()));
  EXPECT_EQ(Ids(taken), (Opt{1}));
  ASSERT_OK_AND_ASSIGN(auto offsets, RunQuery(t->TakeOffsets({0, 0})));
  EXPECT_EQ(Ids(offsets), (Opt{0, 0}));
  EXPECT_EQ(*Column<uint64_t>(taken, "_rowid")[0], 1u);
}

TEST(QueryFragmentIds, ReadsOnlyThoseFragments) {
  auto t = MakeTable("memory://fragments");
  ASSERT_OK_AND_ASSIGN(auto one, RunQuery(t->Query().FragmentIds({1})));
  EXPECT_EQ(Ids(one), (Opt{5, 7}));  // id 6 is deleted
  ASSERT_OK_AND_ASSIGN(auto two, RunQuery(t->Query().FragmentIds({2, 0, 2}).Where("a > 1")));
  EXPECT_EQ(Ids(two), (Opt{0, 3, 4, 8}));
  ASSERT_OK_AND_ASSIGN(
      auto ordered,
      RunQuery(t->Query().FragmentIds({0, 2}).OrderBy({Asc("a")}).Limit(2).WithRowAddress()));
  EXPECT_EQ(Ids(ordered), (Opt{9, 1}));
  EXPECT_EQ(Column<uint64_t>(ordered, "_rowaddr"),
            (std::vector<std::optional<uint64_t>>{(uint64_t{2} << 32) | 1, 1}));
  ASSERT_OK_AND_ASSIGN(auto none, RunQuery(t->Query().FragmentIds({})));
  EXPECT_EQ(none->num_rows(), 0);
  // A scalar index covering every fragment does not leak rows of the others.
  ASSERT_OK(t->CreateScalarIndex("id", ScalarIndexType::kBTree));
  ASSERT_OK_AND_ASSIGN(auto indexed, RunQuery(t->Query().FragmentIds({1}).Where("id > 2")));
  EXPECT_EQ(Ids(indexed), (Opt{5, 7}));
}

TEST(QueryFragmentIds, RejectsUnknownIdsAndTakes) {
  auto t = MakeTable("memory://fragments-errors");
  auto r = RunQuery(t->Query().FragmentIds({1, 7, 5}));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
  EXPECT_NE(r.status().message().find("fragment_ids not found in dataset: 5, 7"), std::string::npos)
      << r.status().ToString();
  EXPECT_NE(r.status().message().find("has fragments 0, 1, 2"), std::string::npos);
  EXPECT_TRUE(RunQuery(t->TakeOffsets({0}).FragmentIds({0})).status().IsNotSupported());
  EXPECT_TRUE(RunQuery(t->VectorSearch({0, 0}).Limit(2)).ok());
  auto vq = t->Query().FragmentIds({0}).NearestTo({0, 0});
  EXPECT_TRUE(RunQuery(vq).status().IsNotSupported());
}

TEST(VectorQueryOrderBy, SortsTheNearestRowsOfEachQuery) {
  auto t = MakeTable("memory://order-vector");
  // Nearest to [0, 0]: ids 0, 1, 2, 3 (limit 3 + offset 1), by id descending, skip 1.
  ASSERT_OK_AND_ASSIGN(auto b,
                       RunQuery(t->VectorSearch({0, 0}).Limit(3).Offset(1).OrderBy({Desc("id")})));
  EXPECT_EQ(Ids(b), (Opt{2, 1, 0}));
  // Each query vector's rows are ordered on their own.
  ASSERT_OK_AND_ASSIGN(auto batch, RunQuery(t->VectorSearch({0, 0})
                                                .AddQueryVector({9, 0})
                                                .Limit(2)
                                                .OrderBy({Desc("id")})
                                                .WithRowAddress()));
  EXPECT_EQ(Ids(batch), (Opt{1, 0, 9, 8}));
  EXPECT_EQ(
      Column<uint64_t>(batch, "_rowaddr"),
      (std::vector<std::optional<uint64_t>>{1, 0, (uint64_t{2} << 32) | 1, uint64_t{2} << 32}));
  auto bad = RunQuery(t->VectorSearch({0, 0}).OrderBy({Asc("_distance")}));
  EXPECT_TRUE(bad.status().IsInvalidArgument()) << bad.status().ToString();
}

TEST(FtsQueryOrderBy, SortsTheBestRows) {
  auto t = MakeTable("memory://order-fts");
  ASSERT_OK(t->CreateFtsIndex("text", FtsIndexConfig{}));
  // "word1" matches ids 1, 4, 7 (deleted: 6 is word0); all score alike.
  ASSERT_OK_AND_ASSIGN(
      auto b,
      RunQuery(
          t->Search(FullTextQuery::Match("word1", "text")).OrderBy({Desc("id")}).WithRowAddress()));
  EXPECT_EQ(Ids(b), (Opt{7, 4, 1}));
  EXPECT_EQ(Column<uint64_t>(b, "_rowaddr"),
            (std::vector<std::optional<uint64_t>>{(uint64_t{1} << 32) | 2, 4, 1}));
  // Hybrid queries take neither (their fused ranking is the order).
  HybridQueryRequest hybrid;
  hybrid.vector.vectors = {{0, 0}};
  hybrid.text = FullTextQuery::Match("word1", "text");
  hybrid.base.order_by = {Asc("id")};
  ArrowArrayStream out;
  EXPECT_TRUE(t->ExecuteHybridQuery(hybrid, &out).IsNotSupported());
  hybrid.base.order_by.clear();
  hybrid.base.with_row_address = true;
  EXPECT_TRUE(t->ExecuteHybridQuery(hybrid, &out).IsNotSupported());
  ASSERT_OK_AND_ASSIGN(auto window, RunQuery(t->Search(FullTextQuery::Match("common", "text"))
                                                 .Limit(3)
                                                 .Offset(1)
                                                 .OrderBy({Asc("a", true)})));
  EXPECT_EQ(window->num_rows(), 3);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb
