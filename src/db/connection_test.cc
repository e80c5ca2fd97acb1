// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// End-to-end tests of the C++ API: Connection and Table over local disk and memory://.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <thread>

#include "array/builder.h"
#include "array/c_bridge.h"
#include "io/file_system.h"
#include "lancedb/lancedb.h"

namespace lancedb {
namespace LANCEDB_TEST_FILE_NS {

namespace la = lancedb::array;

la::SchemaPtr TestSchema() {
  return la::schema({la::field("id", la::int64(), false), la::field("name", la::utf8()),
                     la::field("vector", la::fixed_size_list(la::float32(), 2))});
}

la::RecordBatchPtr MakeBatch(int64_t first, int64_t count) {
  std::vector<int64_t> ids;
  std::vector<std::optional<std::string>> names;
  std::vector<float> vec;
  for (int64_t i = first; i < first + count; ++i) {
    ids.push_back(i);
    names.push_back(i % 5 == 0 ? std::nullopt
                               : std::optional<std::string>("n" + std::to_string(i)));
    vec.push_back(static_cast<float>(i));
    vec.push_back(-static_cast<float>(i));
  }
  auto schema = TestSchema();
  return *la::RecordBatch::Make(
      schema,
      {la::MakePrimitive(la::int64(), ids), la::MakeString(names),
       la::MakeFixedSizeList(schema->field(2)->type(), la::MakePrimitive(la::float32(), vec))});
}

ArrowArrayStream Stream(std::vector<la::RecordBatchPtr> batches,
                        la::SchemaPtr schema = TestSchema()) {
  ArrowArrayStream s;
  EXPECT_TRUE(
      la::ExportRecordBatchReader(la::MakeVectorReader(schema, std::move(batches)), &s).ok());
  return s;
}

std::vector<la::RecordBatchPtr> ReadAll(const Table& table, ScanRequest request = {}) {
  ArrowArrayStream s;
  EXPECT_TRUE(table.Scan(request, &s).ok());
  auto reader = la::ImportArrayStream(&s);
  EXPECT_TRUE(reader.ok());
  auto batches = (*reader)->ReadAll();
  EXPECT_TRUE(batches.ok());
  return *batches;
}

std::vector<int64_t> Ids(const Table& table) {
  std::vector<int64_t> ids;
  ScanRequest request;
  request.columns = {"id"};
  for (const auto& b : ReadAll(table, request)) {
    const int64_t* v = b->column(0)->GetValues<int64_t>(1);
    ids.insert(ids.end(), v, v + b->num_rows());
  }
  return ids;
}

class ConnectionTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (GetParam()) {
      char tmpl[] = "/tmp/lancedb-db-test-XXXXXX";
      dir_ = ::mkdtemp(tmpl);
      uri_ = dir_;
    } else {
      // The in-memory store under a scheme of its own, which several connections of one test
      // share (two memory:// connections are two databases, MemoryConnection below).
      static const bool registered =
          io::RegisterFileSystem("sharedmem", io::NewMemoryFileSystem()).ok();
      ASSERT_TRUE(registered);
      uri_ = "sharedmem://db-test-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name();
    }
    auto db = Connect(uri_);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = *db;
  }
  void TearDown() override {
    (void)db_->DropAllTables();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  std::shared_ptr<Table> Create(const std::string& name, int64_t rows) {
    auto s = Stream({MakeBatch(0, rows)});
    auto t = db_->CreateTable(name, &s);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return t.ok() ? *t : nullptr;
  }

  std::string dir_;
  std::string uri_;
  std::shared_ptr<Connection> db_;
};

TEST_P(ConnectionTest, CreateAddScanRoundTrip) {
  auto t = Create("items", 100);
  ASSERT_TRUE(t);
  EXPECT_EQ(*t->version(), 1u);
  EXPECT_EQ(*t->CountRows(), 100);
  auto s = Stream({MakeBatch(100, 50), MakeBatch(150, 25)});
  auto added = t->Add(&s);
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  EXPECT_EQ(added->version, 2u);
  EXPECT_EQ(*t->CountRows(), 175);
  auto ids = Ids(*t);
  ASSERT_EQ(ids.size(), 175u);
  for (int64_t i = 0; i < 175; ++i) EXPECT_EQ(ids[i], i);

  auto batches = ReadAll(*t);
  auto expected = MakeBatch(0, 175);
  auto all = la::ConcatenateBatches(batches[0]->schema(), batches);
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE((*all)->Equals(*expected)) << (*all)->ToString();
}

TEST_P(ConnectionTest, OverwriteReplacesContent) {
  auto t = Create("items", 10);
  auto s = Stream({MakeBatch(500, 3)});
  auto r = t->Add(&s, AddMode::kOverwrite);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 2u);
  EXPECT_EQ(Ids(*t), (std::vector<int64_t>{500, 501, 502}));
}

TEST_P(ConnectionTest, CreateExistingTableFailsUnlessAsked) {
  Create("items", 5);
  auto s = Stream({MakeBatch(0, 7)});
  auto again = db_->CreateTable("items", &s);
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(again.status().IsAlreadyExists());
  EXPECT_NE(again.status().message().find("items"), std::string::npos);

  auto s2 = Stream({MakeBatch(0, 7)});
  auto exist_ok = db_->CreateTable("items", &s2, CreateTableMode::kExistOk);
  ASSERT_TRUE(exist_ok.ok()) << exist_ok.status().ToString();
  EXPECT_EQ(*(*exist_ok)->CountRows(), 5);
  EXPECT_EQ(*(*exist_ok)->version(), 1u);

  auto s3 = Stream({MakeBatch(0, 7)});
  auto overwrite = db_->CreateTable("items", &s3, CreateTableMode::kOverwrite);
  ASSERT_TRUE(overwrite.ok());
  EXPECT_EQ(*(*overwrite)->CountRows(), 7);
  EXPECT_EQ(*(*overwrite)->version(), 2u);
}

TEST_P(ConnectionTest, EmptyTableFromSchema) {
  ArrowSchema schema;
  ASSERT_TRUE(la::ExportSchema(*TestSchema(), &schema).ok());
  auto t = db_->CreateEmptyTable("empty", &schema);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(*(*t)->CountRows(), 0);
  ArrowSchema out;
  ASSERT_TRUE((*t)->GetSchema(&out).ok());
  auto imported = la::ImportSchema(&out);
  ASSERT_TRUE(imported.ok());
  EXPECT_TRUE((*imported)->Equals(*TestSchema())) << (*imported)->ToString();
  auto s = Stream({MakeBatch(0, 4)});
  ASSERT_TRUE((*t)->Add(&s).ok());
  EXPECT_EQ(*(*t)->CountRows(), 4);
}

TEST_P(ConnectionTest, MismatchedSchemaIsRejectedAndChangesNothing) {
  auto t = Create("items", 5);
  auto other = la::schema({la::field("id", la::int32(), false)});
  auto batch =
      *la::RecordBatch::Make(other, {la::MakePrimitive(la::int32(), std::vector<int32_t>{1})});
  auto s = Stream({batch}, other);
  auto r = t->Add(&s);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
  EXPECT_EQ(*t->version(), 1u);
  EXPECT_EQ(*t->CountRows(), 5);
  auto reopened = db_->OpenTable("items");
  EXPECT_EQ(*(*reopened)->version(), 1u);
}

TEST_P(ConnectionTest, OpenMissingTableOrVersionIsNotFound) {
  auto missing = db_->OpenTable("nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.status().IsNotFound());
  EXPECT_NE(missing.status().message().find("nope"), std::string::npos);
  Create("items", 3);
  auto bad_version = db_->OpenTable("items", 7);
  ASSERT_FALSE(bad_version.ok());
  EXPECT_TRUE(bad_version.status().IsNotFound()) << bad_version.status().ToString();
}

TEST_P(ConnectionTest, InvalidTableNamesAreRejected) {
  for (std::string name : {"", "..", ".", "a/b", "../x", "a\\b", "sp ace"}) {
    auto s = Stream({MakeBatch(0, 1)});
    auto t = db_->CreateTable(name, &s);
    ASSERT_FALSE(t.ok()) << name;
    EXPECT_TRUE(t.status().IsInvalidArgument()) << name;
    EXPECT_EQ(s.release, nullptr) << "the stream must be consumed even when the call fails";
  }
  EXPECT_TRUE(db_->TableNames()->empty());
}

TEST_P(ConnectionTest, TablesAtALocationLiveInThatDirectory) {
  auto s = Stream({MakeBatch(0, 4)});
  auto t = db_->CreateTableAt("0a1b2c3d_ns$items", "items", &s);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ((*t)->name(), "items");
  EXPECT_NE((*t)->uri().find("0a1b2c3d_ns$items"), std::string::npos);
  // Not a `<name>.lance` directory: the root listing does not show it.
  EXPECT_TRUE(db_->TableNames()->empty());
  auto again = Stream({MakeBatch(0, 1)});
  auto dup = db_->CreateTableAt("0a1b2c3d_ns$items", "items", &again);
  ASSERT_FALSE(dup.ok());
  EXPECT_TRUE(dup.status().IsAlreadyExists());
  auto opened = db_->OpenTableAt("0a1b2c3d_ns$items", "items");
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  EXPECT_EQ(Ids(**opened), (std::vector<int64_t>{0, 1, 2, 3}));
  ArrowSchema schema;
  ASSERT_TRUE(la::ExportSchema(*TestSchema(), &schema).ok());
  auto empty = db_->CreateEmptyTableAt("ffff0000_empty", "empty", &schema);
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(*(*empty)->CountRows(), 0);
  ASSERT_TRUE(db_->DropTableAt("0a1b2c3d_ns$items").ok());
  EXPECT_TRUE(db_->OpenTableAt("0a1b2c3d_ns$items", "items").status().IsNotFound());
  EXPECT_TRUE(db_->DropTableAt("0a1b2c3d_ns$items").IsNotFound());
  ASSERT_TRUE(db_->DropTableAt("ffff0000_empty").ok());
}

TEST_P(ConnectionTest, LocationsOutsideTheRootAreRejected) {
  for (const std::string& location :
       std::vector<std::string>{"", ".", "..", "a/b", "../x", "a\\b", std::string("a\0b", 3)}) {
    auto s = Stream({MakeBatch(0, 1)});
    auto t = db_->CreateTableAt(location, "t", &s);
    ASSERT_FALSE(t.ok()) << location;
    EXPECT_TRUE(t.status().IsInvalidArgument()) << location;
    EXPECT_EQ(s.release, nullptr) << "the stream must be consumed even when the call fails";
    EXPECT_TRUE(db_->OpenTableAt(location, "t").status().IsInvalidArgument()) << location;
    EXPECT_TRUE(db_->DropTableAt(location).IsInvalidArgument()) << location;
  }
  if (!dir_.empty()) {
    EXPECT_TRUE(std::filesystem::is_empty(dir_)) << "a rejected location wrote nothing";
  }
}

TEST_P(ConnectionTest, OverwriteAtAnExpectedVersion) {
  auto t = Create("items", 3);
  auto other = *db_->OpenTable("items");
  AddOptions options;
  options.mode = AddMode::kOverwrite;
  options.expected_version = 1;
  auto s = Stream({MakeBatch(10, 2)});
  auto r = t->Add(&s, options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 2u);
  // A writer that read version 1 has lost: nothing changes.
  auto s2 = Stream({MakeBatch(20, 2)});
  auto stale = other->Add(&s2, options);
  ASSERT_FALSE(stale.ok());
  EXPECT_TRUE(stale.status().IsCommitConflict()) << stale.status().ToString();
  EXPECT_TRUE(stale.status().IsRetryable());
  EXPECT_EQ(Ids(*t), (std::vector<int64_t>{10, 11}));
  EXPECT_EQ(*t->version(), 2u);
  AddOptions append;
  append.expected_version = 2;
  auto s3 = Stream({MakeBatch(30, 1)});
  EXPECT_TRUE(t->Add(&s3, append).status().IsInvalidArgument());
}

TEST_P(ConnectionTest, ListTablesPagesVisitEveryTableOnce) {
  std::vector<std::string> created;
  for (int i = 0; i < 7; ++i) {
    std::string name = "t" + std::to_string(i);
    Create(name, 1);
    created.push_back(name);
  }
  EXPECT_EQ(*db_->TableNames(), created);
  std::vector<std::string> seen;
  std::string token;
  int pages = 0;
  do {
    auto page = db_->ListTables(token, 3);
    ASSERT_TRUE(page.ok());
    seen.insert(seen.end(), page->tables.begin(), page->tables.end());
    token = page->page_token;
    ++pages;
  } while (!token.empty() && pages < 10);
  EXPECT_EQ(seen, created);
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(*db_->TableNames("t4", 2), (std::vector<std::string>{"t5", "t6"}));
}

TEST_P(ConnectionTest, DropTableAndDropAll) {
  Create("a", 1);
  Create("b", 1);
  ASSERT_TRUE(db_->DropTable("a").ok());
  EXPECT_TRUE(db_->DropTable("a").IsNotFound());
  EXPECT_EQ(*db_->TableNames(), (std::vector<std::string>{"b"}));
  ASSERT_TRUE(db_->DropAllTables().ok());
  EXPECT_TRUE(db_->TableNames()->empty());
}

TEST_P(ConnectionTest, VersionsCheckoutAndRestore) {
  auto t = Create("items", 10);
  auto s = Stream({MakeBatch(10, 5)});
  ASSERT_TRUE(t->Add(&s).ok());
  auto versions = t->ListVersions();
  ASSERT_TRUE(versions.ok());
  ASSERT_EQ(versions->size(), 2u);
  EXPECT_EQ((*versions)[0].version, 1u);
  EXPECT_EQ((*versions)[1].version, 2u);
  EXPECT_GT((*versions)[0].timestamp_micros, 0);

  ASSERT_TRUE(t->Checkout(1).ok());
  EXPECT_EQ(*t->version(), 1u);
  EXPECT_EQ(*t->CountRows(), 10);
  auto s2 = Stream({MakeBatch(0, 1)});
  auto denied = t->Add(&s2);
  ASSERT_FALSE(denied.ok());
  EXPECT_TRUE(denied.status().IsNotSupported());
  EXPECT_NE(denied.status().message().find("fixed at version 1"), std::string::npos);
  EXPECT_TRUE(t->Checkout(42).IsNotFound());

  ASSERT_TRUE(t->Restore().ok());
  EXPECT_EQ(*t->version(), 3u);
  EXPECT_EQ(*t->CountRows(), 10);
  ASSERT_TRUE(t->CheckoutLatest().ok());
  EXPECT_EQ(*t->version(), 3u);
}

TEST_P(ConnectionTest, EightThreadsAppendThroughOneHandle) {
  auto t = Create("items", 0);
  constexpr int kThreads = 8;
  constexpr int kRows = 25;
  std::vector<std::thread> threads;
  std::vector<Status> results(kThreads);
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      auto s = Stream({MakeBatch(1000 * (i + 1), kRows)});
      auto r = t->Add(&s);
      results[i] = r.status();
    });
  }
  for (auto& th : threads) th.join();
  for (const auto& st : results) EXPECT_TRUE(st.ok()) << st.ToString();
  ASSERT_TRUE(t->CheckoutLatest().ok());
  EXPECT_EQ(*t->CountRows(), kThreads * kRows);
  auto ids = Ids(*t);
  std::set<int64_t> unique(ids.begin(), ids.end());
  EXPECT_EQ(unique.size(), static_cast<size_t>(kThreads * kRows));
  auto versions = t->ListVersions();
  ASSERT_EQ(versions->size(), static_cast<size_t>(kThreads + 1));
  for (size_t i = 0; i < versions->size(); ++i) EXPECT_EQ((*versions)[i].version, i + 1);
}

TEST_P(ConnectionTest, ReadConsistencyIntervalZeroSeesOtherWriters) {
  Create("items", 3);
  ConnectOptions strong;
  strong.read_consistency_interval = std::chrono::milliseconds(0);
  auto reader_db = Connect(uri_, strong);
  auto manual_db = Connect(uri_);
  auto strong_handle = *(*reader_db)->OpenTable("items");
  auto manual_handle = *(*manual_db)->OpenTable("items");
  auto writer = *db_->OpenTable("items");
  auto s = Stream({MakeBatch(3, 2)});
  ASSERT_TRUE(writer->Add(&s).ok());
  EXPECT_EQ(*strong_handle->CountRows(), 5);
  EXPECT_EQ(*manual_handle->CountRows(), 3);
  ASSERT_TRUE(manual_handle->CheckoutLatest().ok());
  EXPECT_EQ(*manual_handle->CountRows(), 5);
}

INSTANTIATE_TEST_SUITE_P(LocalAndMemory, ConnectionTest, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "Local" : "Memory"; });

TEST(MemoryConnection, EveryConnectionIsItsOwnDatabase) {
  std::shared_ptr<Table> kept;
  {
    auto a = *Connect("memory://same");
    auto b = *Connect("memory://same");
    ArrowArrayStream s = Stream({MakeBatch(0, 5)});
    auto t = a->CreateTable("t", &s);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    kept = *t;
    EXPECT_EQ(*a->TableNames(), std::vector<std::string>{"t"});
    EXPECT_TRUE(b->TableNames()->empty());
    EXPECT_TRUE(b->OpenTable("t").status().IsNotFound());
    ArrowArrayStream s2 = Stream({MakeBatch(0, 2)});
    auto other = b->CreateTable("t", &s2);
    ASSERT_TRUE(other.ok()) << other.status().ToString();
    EXPECT_EQ(*(*other)->CountRows(), 2);
    EXPECT_EQ(*(*a->OpenTable("t"))->CountRows(), 5);
    // A memory:// source of a clone is a table of the connection's own store.
    auto clone = a->CloneTable("c", "memory://same/t.lance");
    ASSERT_TRUE(clone.ok()) << clone.status().ToString();
    EXPECT_EQ(*(*clone)->CountRows(), 5);
    auto elsewhere = *Connect("memory://same");
    EXPECT_TRUE(elsewhere->CloneTable("c", "memory://same/t.lance").status().IsNotFound());
  }
  // A table outlives its connection, with its data.
  EXPECT_EQ(*kept->CountRows(), 5);
  EXPECT_TRUE((*Connect("memory://same"))->TableNames()->empty());
}

TEST(ConnectionProcesses, FourProcessesAppendToOneTable) {
  char tmpl[] = "/tmp/lancedb-proc-test-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  {
    auto db = *Connect(dir);
    auto s = Stream({MakeBatch(0, 0)});
    ASSERT_TRUE(db->CreateTable("shared", &s).ok());
  }
  constexpr int kProcs = 4;
  constexpr int kAppends = 3;
  std::vector<pid_t> pids;
  for (int p = 0; p < kProcs; ++p) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto db = Connect(dir);
      if (!db.ok()) ::_exit(2);
      auto t = (*db)->OpenTable("shared");
      if (!t.ok()) ::_exit(3);
      for (int a = 0; a < kAppends; ++a) {
        auto s = Stream({MakeBatch(10000 * (p + 1) + 100 * a, 10)});
        if (!(*t)->Add(&s).ok()) ::_exit(4);
      }
      ::_exit(0);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child exit " << status;
  }
  auto t = *(*Connect(dir))->OpenTable("shared");
  EXPECT_EQ(*t->CountRows(), kProcs * kAppends * 10);
  auto versions = *t->ListVersions();
  ASSERT_EQ(versions.size(), static_cast<size_t>(kProcs * kAppends + 1));
  for (size_t i = 0; i < versions.size(); ++i) EXPECT_EQ(versions[i].version, i + 1);
  std::filesystem::remove_all(dir);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb
