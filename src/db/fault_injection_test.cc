// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Every write, with a fault injected into its n-th storage call (a failed write, read or
// delete, or a read returning half the bytes), for every n until the write completes without
// reaching the fault: it either succeeds with the right result or returns an error and leaves
// the table as it was (same version, same rows), and the table stays writable (issue 11).

#include "io/fault_injection.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <sstream>

#include "array/builder.h"
#include "array/c_bridge.h"
#include "lancedb/lancedb.h"

namespace lancedb {
namespace LANCEDB_TEST_FILE_NS {

namespace la = lancedb::array;
using Fs = io::FaultInjectingFileSystem;

la::SchemaPtr Schema() {
  return la::schema({la::field("id", la::int64(), false), la::field("v", la::float64()),
                     la::field("vec", la::fixed_size_list(la::float32(), 4))});
}

ArrowArrayStream Rows(int64_t first, int64_t count, double v = 0.0) {
  std::vector<int64_t> ids;
  std::vector<double> vs;
  std::vector<float> floats;
  for (int64_t i = first; i < first + count; ++i) {
    ids.push_back(i);
    vs.push_back(v + static_cast<double>(i));
    for (int d = 0; d < 4; ++d) floats.push_back(static_cast<float>((i * 7 + d * 3) % 11));
  }
  auto vec = la::MakeFixedSizeList(la::fixed_size_list(la::float32(), 4),
                                   la::MakePrimitive(la::float32(), floats));
  auto batch = *la::RecordBatch::Make(
      Schema(), {la::MakePrimitive(la::int64(), ids), la::MakePrimitive(la::float64(), vs), vec},
      count);
  ArrowArrayStream s;
  EXPECT_TRUE(la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {batch}), &s).ok());
  return s;
}

/// The table's newest version and its rows, sorted, as text.
struct State {
  uint64_t version = 0;
  std::string rows;
  bool operator==(const State&) const = default;
};

/// The rows of the checked-out version, sorted, as text.
std::string ReadRows(Table& t) {
  std::string rows;
  ArrowArrayStream out;
  EXPECT_TRUE(t.Query().Execute(&out).ok());
  auto reader = la::ImportArrayStream(&out).MoveValueUnsafe();
  std::vector<std::string> lines;
  while (true) {
    auto batch = reader->Next();
    EXPECT_TRUE(batch.ok()) << "version " << *t.version() << ": " << batch.status().ToString();
    if (!batch.ok() || !*batch) break;
    std::stringstream text((*batch)->ToString());
    for (std::string line; std::getline(text, line);) lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  for (const auto& l : lines) rows += l + "\n";
  return rows;
}

/// The table's newest version and its rows; every version it lists must read.
State Observe(Table& t) {
  auto versions = t.ListVersions();
  EXPECT_TRUE(versions.ok()) << versions.status().ToString();
  for (const auto& v : std::move(versions).ValueOr({})) {
    EXPECT_TRUE(t.Checkout(v.version).ok());
    auto count = t.CountRows();
    EXPECT_TRUE(count.ok()) << "version " << v.version << ": " << count.status().ToString();
    ReadRows(t);
    // A filtered count goes through the scalar indices of the version, when it has some.
    auto filtered = t.CountRows("id >= 3 AND id < 31");
    EXPECT_TRUE(filtered.ok()) << "version " << v.version << ": " << filtered.status().ToString();
  }
  State s;
  EXPECT_TRUE(t.CheckoutLatest().ok());
  s.version = *t.version();
  s.rows = ReadRows(t);
  return s;
}

using Write = std::function<Status(Table&)>;

struct Case {
  std::string name;
  Write write;
  /// The write may commit a version that changes no row before failing (compaction reserves
  /// fragment ids first, as LanceDB).
  bool may_leave_empty_version = false;
  /// Run before the write, without faults.
  Write prepare = nullptr;
};

std::vector<Case> Cases() {
  auto status = [](auto r) { return r.status(); };
  return {
      {"add",
       [](Table& t) {
         auto s = Rows(100, 10);
         return t.Add(&s).status();
       }},
      {"delete", [&](Table& t) { return status(t.Delete("id % 3 = 0")); }},
      {"update",
       [&](Table& t) {
         return status(t.Update("id < 15", {{"v", "v + 100"}}));
       }},
      {"merge_insert",
       [](Table& t) {
         auto s = Rows(35, 10, 0.5);
         return t.MergeInsert({"id"})
             .WhenMatchedUpdateAll()
             .WhenNotMatchedInsertAll()
             .Execute(&s)
             .status();
       }},
      {"compact",
       [&](Table& t) {
         CompactionOptions o;
         o.target_rows_per_fragment = 100;
         return status(t.Compact(o));
       },
       true},
      {"create_index",
       [](Table& t) {
         auto config = VectorIndexConfig::IvfFlat();
         config.num_partitions = 2;
         config.seed = 7;
         return t.CreateIndex("vec", config, {});
       }},
      {"create_scalar_index",
       [](Table& t) { return t.CreateScalarIndex("id", ScalarIndexType::kBTree); }},
      {"compact_scalar_indexed",
       [&](Table& t) {
         CompactionOptions o;
         o.target_rows_per_fragment = 100;
         return status(t.Compact(o));
       },
       true,
       // The compaction remaps the indices in its Rewrite.
       [](Table& t) {
         LANCEDB_RETURN_NOT_OK(t.CreateScalarIndex("id", ScalarIndexType::kBTree));
         CreateIndexOptions options;
         options.name = "id_bitmap";
         return t.CreateScalarIndex("id", ScalarIndexType::kBitmap, options);
       }},
      {"optimize_scalar_index", [](Table& t) { return t.OptimizeIndices(); }, false,
       [](Table& t) {
         LANCEDB_RETURN_NOT_OK(t.CreateScalarIndex("id", ScalarIndexType::kBTree));
         auto more = Rows(60, 5);
         return t.Add(&more).status();
       }},
      {"add_columns",
       [](Table& t) {
         return t.AddColumns()
             .Transform(ColumnTransform::SqlExpressions({{"w", "v * 2"}}))
             .Execute()
             .status();
       }},
      {"drop_columns", [&](Table& t) { return status(t.DropColumns({"v"})); }},
      {"prune",
       [&](Table& t) {
         PruneOptions o;
         o.older_than = std::chrono::seconds(0);
         o.delete_unverified = true;
         return status(t.Prune(o));
       },
       false,
       // After a compaction the old versions' data files are garbage: a cleanup interrupted
       // while deleting them must not leave a listed version without its files.
       [&](Table& t) {
         CompactionOptions o;
         o.target_rows_per_fragment = 100;
         return status(t.Compact(o));
       }},
  };
}

/// A table of 40 rows in 4 fragments, with a deleted row, at version 5.
std::shared_ptr<Table> MakeTable(const std::string& uri) {
  auto db = Connect(uri);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  auto first = Rows(0, 10);
  auto t = (*db)->CreateTable("t", &first);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  for (int64_t f = 1; f < 4; ++f) {
    auto more = Rows(f * 10, 10);
    EXPECT_TRUE((*t)->Add(&more).ok());
  }
  EXPECT_TRUE((*t)->Delete("id = 17").ok());
  return *t;
}

void RunWithFaults(const Case& c, Fs::Target target, Fs::Fault fault) {
  static int counter = 0;
  auto fs = std::make_shared<Fs>(io::MemoryFileSystem());
  ASSERT_TRUE(io::RegisterFileSystem("faulty", fs).ok());
  // The result of the write without faults.
  const std::string clean_uri = "faulty://fi/" + c.name + "/clean" + std::to_string(++counter);
  auto clean = MakeTable(clean_uri);
  if (c.prepare) {
    ASSERT_TRUE(c.prepare(*clean).ok()) << c.name;
  }
  ASSERT_TRUE(c.write(*clean).ok()) << c.name;
  const State expected = Observe(*clean);
  int failures = 0;
  for (int64_t n = 1;; ++n) {
    ASSERT_LT(n, 2000) << c.name << ": the write never completes";
    auto t = MakeTable("faulty://fi/" + c.name + "/" + std::to_string(++counter));
    if (c.prepare) {
      ASSERT_TRUE(c.prepare(*t).ok()) << c.name;
    }
    const State before = Observe(*t);
    fs->Arm(target, n, fault);
    Status st = c.write(*t);
    const bool fired = fs->fired();
    fs->Disarm();
    if (!fired) {
      EXPECT_TRUE(st.ok()) << c.name << ": " << st.ToString();
      ::testing::Test::RecordProperty(c.name + "_calls", static_cast<int>(n - 1));
      break;
    }
    const State after = Observe(*t);
    if (st.ok()) {
      // The fault hit a call the write could do without (a best-effort hint, a cleanup).
      EXPECT_EQ(after.rows, expected.rows) << c.name << " with fault at call " << n;
    } else {
      ++failures;
      EXPECT_EQ(after.rows, before.rows)
          << c.name << " failed at call " << n << ": " << st.ToString();
      if (c.may_leave_empty_version) {
        EXPECT_LE(after.version, before.version + 1) << c.name << " at call " << n;
      } else {
        EXPECT_EQ(after.version, before.version)
            << c.name << " failed at call " << n << " but committed: " << st.ToString();
      }
    }
    // The table is still writable (a delete works whatever the schema became).
    auto deleted = t->Delete("id = 5");
    ASSERT_TRUE(deleted.ok()) << c.name << " after a fault at call " << n << ": "
                              << deleted.status().ToString();
    EXPECT_EQ(deleted->num_deleted_rows, 1u) << c.name << " after a fault at call " << n;
    if (::testing::Test::HasFailure()) return;
  }
  if (fault == Fs::Fault::kError && target == Fs::Target::kWrite && c.name != "prune") {
    EXPECT_GT(failures, 0) << c.name << " writes nothing?";
  }
  ASSERT_TRUE(io::RegisterFileSystem("faulty", nullptr).ok());
}

TEST(FaultInjection, FailedWritesLeaveTheTableAsItWas) {
  for (const auto& c : Cases()) RunWithFaults(c, Fs::Target::kWrite, Fs::Fault::kError);
}

TEST(FaultInjection, FailedReadsLeaveTheTableAsItWas) {
  for (const auto& c : Cases()) RunWithFaults(c, Fs::Target::kRead, Fs::Fault::kError);
}

TEST(FaultInjection, ShortReadsAreErrorsNeverWrongData) {
  for (const auto& c : Cases()) RunWithFaults(c, Fs::Target::kRead, Fs::Fault::kShortRead);
}

TEST(FaultInjection, FailedDeletesLeaveTheTableAsItWas) {
  for (const auto& c : Cases()) RunWithFaults(c, Fs::Target::kDelete, Fs::Fault::kError);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb
