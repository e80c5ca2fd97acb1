// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Threads sharing one Table handle run random appends, deletes, updates and compactions for a
// bounded time; afterwards the table must hold exactly the acknowledged appends minus the
// acknowledged deletes, each row once, with the value a serial order of the acknowledged
// writes gives (issue 18; the Python harness python/tests/writers_harness.py does the same with
// more operations and processes of LanceDB).

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "array/builder.h"
#include "array/c_bridge.h"
#include "lancedb/lancedb.h"

namespace lancedb {
namespace LANCEDB_TEST_FILE_NS {

namespace la = lancedb::array;

la::SchemaPtr Schema() {
  return la::schema({la::field("id", la::int64(), false), la::field("v", la::float64())});
}

ArrowArrayStream Rows(const std::vector<int64_t>& ids) {
  std::vector<double> zeros(ids.size(), 0.0);
  auto batch = *la::RecordBatch::Make(
      Schema(), {la::MakePrimitive(la::int64(), ids), la::MakePrimitive(la::float64(), zeros)},
      static_cast<int64_t>(ids.size()));
  ArrowArrayStream s;
  EXPECT_TRUE(la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {batch}), &s).ok());
  return s;
}

/// An acknowledged write: what it did and the versions it took effect between.
struct Ack {
  enum Kind { kAppend, kDelete, kUpdate } kind;
  std::vector<int64_t> ids;  // appended / deleted
  int k = -1;                // update of id % 7 = k
  uint64_t before = 0;       // takes effect in (before, version]
  uint64_t version = 0;
};

class Writers {
 public:
  explicit Writers(std::shared_ptr<Table> table) : table_(std::move(table)) {}

  void Run(int thread, std::chrono::steady_clock::time_point deadline) {
    std::mt19937_64 rng(static_cast<uint64_t>(thread) * 7919);
    int64_t next_id = int64_t{thread} << 32;
    while (std::chrono::steady_clock::now() < deadline) {
      switch (rng() % 5) {
        case 0:
        case 1: {
          std::vector<int64_t> ids;
          for (int i = 0; i < 5; ++i) ids.push_back(next_id++);
          ArrowArrayStream s = Rows(ids);
          auto r = table_->Add(&s);
          Record(r.status(), [&] {
            return Ack{Ack::kAppend, ids, -1, r->version - 1, r->version};
          });
          if (r.ok()) Give(ids);
          break;
        }
        case 2: {
          int64_t id = Take(rng);
          if (id < 0) break;
          auto r = table_->Delete("id = " + std::to_string(id));
          Record(r.status(), [&] {
            return Ack{Ack::kDelete, {id}, -1, r->version - 1, r->version};
          });
          if (r.ok() && r->num_deleted_rows != 1) {
            std::lock_guard lock(mu_);
            errors_.push_back("delete of live id " + std::to_string(id) + " deleted " +
                              std::to_string(r->num_deleted_rows) + " rows");
          }
          if (!r.ok()) Give({id});
          break;
        }
        case 3: {
          const int k = static_cast<int>(rng() % 7);
          const uint64_t before = table_->version().ValueOr(0);
          auto r = table_->Update("id % 7 = " + std::to_string(k), {{"v", "2.0"}});
          if (r.ok() && r->rows_updated == 0) break;  // committed nothing
          Record(r.status(), [&] { return Ack{Ack::kUpdate, {}, k, before, r->version}; });
          break;
        }
        default: {
          CompactionOptions o;
          o.target_rows_per_fragment = 64;
          auto r = table_->Compact(o);
          if (!r.ok() && !r.status().IsRetryable()) Error(r.status());
          break;
        }
      }
    }
  }

  /// Check the table against the acknowledged writes.
  void Check() {
    ASSERT_TRUE(errors_.empty()) << errors_.front();
    ASSERT_TRUE(table_->CheckoutLatest().ok());
    std::map<int64_t, std::vector<const Ack*>> touching;
    std::vector<std::vector<const Ack*>> updates(7);
    std::set<uint64_t> versions;
    for (const auto& a : acks_) {
      EXPECT_TRUE(versions.insert(a.version).second) << "version " << a.version << " twice";
      if (a.kind == Ack::kUpdate) updates[static_cast<size_t>(a.k)].push_back(&a);
      for (int64_t id : a.ids) touching[id].push_back(&a);
    }
    ArrowArrayStream out;
    ASSERT_TRUE(table_->Query().Execute(&out).ok());
    auto reader = la::ImportArrayStream(&out);
    ASSERT_TRUE(reader.ok());
    std::map<int64_t, double> rows;
    while (true) {
      auto batch = (*reader)->Next();
      ASSERT_TRUE(batch.ok());
      if (!*batch) break;
      const int64_t* ids = (*batch)->column(0)->GetValues<int64_t>(1);
      const double* vs = (*batch)->column(1)->GetValues<double>(1);
      for (int64_t i = 0; i < (*batch)->num_rows(); ++i) {
        EXPECT_TRUE(rows.emplace(ids[i], vs[i]).second) << "id " << ids[i] << " duplicated";
      }
    }
    size_t expected = 0;
    for (const auto& [id, acks] : touching) {
      const bool deleted = acks.size() > 1;  // appended, then deleted
      auto it = rows.find(id);
      if (deleted) {
        EXPECT_TRUE(it == rows.end()) << "deleted id " << id << " is back";
        continue;
      }
      ++expected;
      ASSERT_TRUE(it != rows.end()) << "acknowledged id " << id << " is missing";
      // v is 2.0 when an update of its residue surely came after the append, 0.0 when none
      // could have; either when an update's interval spans the append.
      const uint64_t appended = acks[0]->version;
      bool surely = false, maybe = false;
      for (const Ack* u : updates[static_cast<size_t>(id % 7)]) {
        surely |= u->before >= appended;
        maybe |= u->version > appended;
      }
      if (surely) {
        EXPECT_EQ(it->second, 2.0) << "id " << id;
      }
      if (!maybe) {
        EXPECT_EQ(it->second, 0.0) << "id " << id;
      }
    }
    EXPECT_EQ(rows.size(), expected);
    EXPECT_GT(acks_.size(), 20u);
  }

 private:
  template <typename MakeAck>
  void Record(const Status& st, MakeAck make) {
    if (!st.ok()) return Error(st);
    std::lock_guard lock(mu_);
    acks_.push_back(make());
  }
  void Error(const Status& st) {
    std::lock_guard lock(mu_);
    errors_.push_back(st.ToString());
  }
  int64_t Take(std::mt19937_64& rng) {
    std::lock_guard lock(mu_);
    if (pool_.empty()) return -1;
    auto it = pool_.begin();
    std::advance(it, static_cast<long>(rng() % pool_.size()));
    int64_t id = *it;
    pool_.erase(it);
    return id;
  }
  void Give(const std::vector<int64_t>& ids) {
    std::lock_guard lock(mu_);
    pool_.insert(ids.begin(), ids.end());
  }

  std::shared_ptr<Table> table_;
  std::mutex mu_;
  std::vector<Ack> acks_;
  std::vector<std::string> errors_;
  std::set<int64_t> pool_;
};

TEST(ConcurrentWriters, AppendsDeletesUpdatesAndCompactionsMatchTheAcknowledgedWrites) {
  auto dir =
      std::filesystem::temp_directory_path() / ("lancedb_writers_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto db = Connect(dir.string());
  ASSERT_TRUE(db.ok());
  ArrowArrayStream empty = Rows({});
  auto t = (*db)->CreateTable("t", &empty);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  Writers writers(*t);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  std::vector<std::thread> threads;
  for (int i = 1; i <= 6; ++i) threads.emplace_back([&, i] { writers.Run(i, deadline); });
  for (auto& th : threads) th.join();
  writers.Check();
  std::filesystem::remove_all(dir);
}

/// Readers on handles shared with writers (and refreshing before every read) see whole
/// commits: writers append ids in blocks of 5 and delete whole blocks, so every read must hold
/// complete blocks only.
TEST(ConcurrentWriters, ReadersSeeWholeCommitsWhileOthersWrite) {
  auto dir =
      std::filesystem::temp_directory_path() / ("lancedb_readers_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  ConnectOptions options;
  options.read_consistency_interval = std::chrono::milliseconds(0);
  auto db = Connect(dir.string(), options);
  ASSERT_TRUE(db.ok());
  ArrowArrayStream empty = Rows({});
  auto created = (*db)->CreateTable("t", &empty);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  auto table = *created;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
  std::atomic<int64_t> reads{0};
  std::vector<std::string> errors;
  std::mutex mu;
  auto fail = [&](const std::string& e) {
    std::lock_guard lock(mu);
    errors.push_back(e);
  };
  std::vector<std::thread> threads;
  for (int w = 1; w <= 2; ++w) {
    threads.emplace_back([&, w] {
      for (int64_t block = 0; std::chrono::steady_clock::now() < deadline; ++block) {
        const int64_t base = (int64_t{w} << 32) + block * 5;
        std::vector<int64_t> ids = {base, base + 1, base + 2, base + 3, base + 4};
        ArrowArrayStream s = Rows(ids);
        auto added = table->Add(&s);
        if (!added.ok()) fail(added.status().ToString());
        if (block % 3 == 2) {
          const int64_t gone = base - 10;  // the block appended two blocks ago
          auto deleted = table->Delete("id >= " + std::to_string(gone) + " AND id < " +
                                       std::to_string(gone + 5));
          if (!deleted.ok()) fail(deleted.status().ToString());
        }
      }
    });
  }
  for (int r = 0; r < 3; ++r) {
    threads.emplace_back([&] {
      while (std::chrono::steady_clock::now() < deadline) {
        ArrowArrayStream out;
        Status st = table->Query().Execute(&out);
        if (!st.ok()) {
          fail(st.ToString());
          continue;
        }
        auto reader = la::ImportArrayStream(&out);
        std::map<int64_t, int> blocks;
        while (reader.ok()) {
          auto batch = (*reader)->Next();
          if (!batch.ok()) {
            fail(batch.status().ToString());
            break;
          }
          if (!*batch) break;
          const int64_t* ids = (*batch)->column(0)->GetValues<int64_t>(1);
          for (int64_t i = 0; i < (*batch)->num_rows(); ++i) {
            ++blocks[((ids[i] >> 32) << 32) + (ids[i] & 0xFFFFFFFF) / 5];
          }
        }
        for (const auto& [block, n] : blocks) {
          if (n != 5)
            fail("a read saw " + std::to_string(n) + " rows of block " + std::to_string(block));
        }
        ++reads;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_TRUE(errors.empty()) << errors.front();
  EXPECT_GT(reads.load(), 10);
  std::filesystem::remove_all(dir);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb
