// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// crash_writer: the writer and the checker of the crash-safety test (tests/crash/). The writer
// runs a seeded sequence of operations on table "t" through the C++ API and appends the index
// of each acknowledged one to a log, until it is killed; the checker opens the table, reads
// every version it lists and prints the latest rows.
//
//   crash_writer write <db> <seed> <start> <log>   run operations start, start+1, ... forever
//   crash_writer check <db>                         print "versions N" then "id v" per row
//                                                   (every version read, and filtered counts
//                                                   through its scalar index checked)
//
// Operation i of `seed` (tests/crash/crash_harness.py replays the same sequence as its oracle):
// h(k) = SplitMix64(seed * 0x9E3779B97F4A7C15 + i * 0xBF58476D1CE4E5B9 + k); by h(0) % 100:
//   [0, 30)  append ids i*100 .. i*100+19 with v = 0
//   [30, 42) delete where id % 17 = h(1) % 17
//   [42, 56) update v = i where id % 13 = h(1) % 13
//   [56, 70) merge_insert on id of ids (i-1)*100 .. +4 and i*100+50 .. +4 with v = -i
//   [70, 82) compact (target 200 rows per fragment)
//   [82, 88) by i % 3: create an IVF_FLAT index on vec (when the table has at least 16 rows),
//            a BTREE index on id, or optimize the indices (merge the new rows into them)
//   [88, 100) cleanup of every old version, unverified files included
// Exit code 0 on success; on failure prints "error: <Code>: <message>" and exits 1.

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "array/builder.h"
#include "array/c_bridge.h"
#include "lancedb/lancedb.h"

namespace {

using lancedb::Result;
using lancedb::Status;
namespace la = lancedb::array;

constexpr int kDim = 4;

uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

uint64_t H(uint64_t seed, uint64_t i, uint64_t k) {
  return SplitMix64(seed * 0x9E3779B97F4A7C15ULL + i * 0xBF58476D1CE4E5B9ULL + k);
}

la::SchemaPtr Schema() {
  return la::schema({la::field("id", la::int64()), la::field("v", la::float64()),
                     la::field("vec", la::fixed_size_list(la::float32(), kDim))});
}

ArrowArrayStream Rows(const std::vector<int64_t>& ids, double value) {
  std::vector<double> vs(ids.size(), value);
  std::vector<float> floats;
  for (int64_t id : ids) {
    for (int d = 0; d < kDim; ++d) floats.push_back(static_cast<float>((id * 7 + d * 3) % 11));
  }
  auto vec = la::MakeFixedSizeList(la::fixed_size_list(la::float32(), kDim),
                                   la::MakePrimitive(la::float32(), floats));
  auto batch = la::RecordBatch::Make(
                   Schema(),
                   {la::MakePrimitive(la::int64(), ids), la::MakePrimitive(la::float64(), vs), vec},
                   static_cast<int64_t>(ids.size()))
                   .ValueOrDie();
  ArrowArrayStream s;
  Status st = la::ExportRecordBatchReader(la::MakeVectorReader(Schema(), {batch}), &s);
  if (!st.ok()) std::abort();
  return s;
}

std::vector<int64_t> Range(int64_t first, int64_t n) {
  std::vector<int64_t> out;
  for (int64_t k = first; k < first + n; ++k) out.push_back(k);
  return out;
}

Status RunOperation(lancedb::Table& t, uint64_t seed, uint64_t i) {
  const uint64_t kind = H(seed, i, 0) % 100;
  const uint64_t r = H(seed, i, 1);
  const int64_t n = static_cast<int64_t>(i);
  if (kind < 30) {
    auto rows = Rows(Range(n * 100, 20), 0.0);
    return t.Add(&rows).status();
  }
  if (kind < 42) return t.Delete("id % 17 = " + std::to_string(r % 17)).status();
  if (kind < 56) {
    return t.Update("id % 13 = " + std::to_string(r % 13), {{"v", std::to_string(n) + ".0"}})
        .status();
  }
  if (kind < 70) {
    std::vector<int64_t> ids = Range((n - 1) * 100, 5);
    for (int64_t id : Range(n * 100 + 50, 5)) ids.push_back(id);
    auto rows = Rows(ids, -static_cast<double>(n));
    return t.MergeInsert({"id"})
        .WhenMatchedUpdateAll()
        .WhenNotMatchedInsertAll()
        .Execute(&rows)
        .status();
  }
  if (kind < 82) {
    lancedb::CompactionOptions o;
    o.target_rows_per_fragment = 200;
    return t.Compact(o).status();
  }
  if (kind < 88) {
    // Index builds: a scalar index (BTREE on id), the merge of new rows into the indices, or
    // a vector index.
    if (i % 3 == 1) return t.CreateScalarIndex("id", lancedb::ScalarIndexType::kBTree);
    if (i % 3 == 2) return t.OptimizeIndices();
    LANCEDB_ASSIGN_OR_RETURN(int64_t count, t.CountRows());
    if (count < 16) return Status::OK();
    auto config = lancedb::VectorIndexConfig::IvfFlat();
    config.num_partitions = 2;
    config.seed = i;
    lancedb::CreateIndexOptions options;
    options.replace = true;
    return t.CreateIndex("vec", config, options);
  }
  lancedb::PruneOptions o;
  o.older_than = std::chrono::seconds(0);
  o.delete_unverified = true;
  return t.Prune(o).status();
}

Status Write(const std::string& uri, uint64_t seed, uint64_t start, const std::string& log) {
  LANCEDB_ASSIGN_OR_RETURN(auto db, lancedb::Connect(uri));
  std::shared_ptr<lancedb::Table> table;
  if (start == 0) {
    ArrowSchema schema;
    LANCEDB_RETURN_NOT_OK(la::ExportSchema(*Schema(), &schema));
    LANCEDB_ASSIGN_OR_RETURN(
        table, db->CreateEmptyTable("t", &schema, lancedb::CreateTableMode::kOverwrite));
  } else {
    LANCEDB_ASSIGN_OR_RETURN(table, db->OpenTable("t"));
  }
  const int fd = ::open(log.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (fd < 0) return Status::IOError("Cannot open the log '" + log + "'");
  std::printf("ready\n");
  std::fflush(stdout);
  for (uint64_t i = start;; ++i) {
    Status st = RunOperation(*table, seed, i);
    if (!st.ok()) return st.WithContext("Operation " + std::to_string(i));
    const std::string line = std::to_string(i) + "\n";
    if (::write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
      return Status::IOError("Cannot append to the log");
    }
  }
}

Status Check(const std::string& uri) {
  LANCEDB_ASSIGN_OR_RETURN(auto db, lancedb::Connect(uri));
  LANCEDB_ASSIGN_OR_RETURN(auto names, db->TableNames());
  if (names.empty()) {
    std::printf("no table\n");
    return Status::OK();
  }
  LANCEDB_ASSIGN_OR_RETURN(auto table, db->OpenTable("t"));
  LANCEDB_ASSIGN_OR_RETURN(auto versions, table->ListVersions());
  std::map<int64_t, double> rows;
  for (const auto& version : versions) {
    LANCEDB_RETURN_NOT_OK(table->Checkout(version.version));
    LANCEDB_ASSIGN_OR_RETURN(int64_t count, table->CountRows());
    ArrowArrayStream out;
    LANCEDB_RETURN_NOT_OK(table->Query().Execute(&out));
    LANCEDB_ASSIGN_OR_RETURN(auto reader, la::ImportArrayStream(&out));
    rows.clear();
    int64_t read = 0;
    while (true) {
      LANCEDB_ASSIGN_OR_RETURN(auto batch, reader->Next());
      if (!batch) break;
      const int64_t* ids = batch->column(0)->GetValues<int64_t>(1);
      const double* vs = batch->column(1)->GetValues<double>(1);
      for (int64_t k = 0; k < batch->num_rows(); ++k) {
        if (!rows.emplace(ids[k], vs[k]).second) {
          return Status::Corruption("Version " + std::to_string(version.version) + " holds id " +
                                    std::to_string(ids[k]) + " twice");
        }
      }
      read += batch->num_rows();
    }
    if (read != count) {
      return Status::Corruption("Version " + std::to_string(version.version) + " counts " +
                                std::to_string(count) + " rows but reads " + std::to_string(read));
    }
    // A filtered count answered by the scalar index (where the version has one) equals the
    // rows read.
    int64_t expected = 0;
    for (const auto& [id, v] : rows) expected += id % 7 < 3 && id > 40 ? 1 : 0;
    LANCEDB_ASSIGN_OR_RETURN(int64_t filtered, table->CountRows("id % 7 < 3 AND id > 40"));
    LANCEDB_ASSIGN_OR_RETURN(int64_t ranged, table->CountRows("id > 40"));
    int64_t above = 0;
    for (const auto& [id, v] : rows) above += id > 40 ? 1 : 0;
    if (filtered != expected || ranged != above) {
      return Status::Corruption("Version " + std::to_string(version.version) +
                                ": filtered counts differ from the rows read");
    }
  }
  std::printf("versions %zu\n", versions.size());
  for (const auto& [id, v] : rows) std::printf("%lld %.17g\n", static_cast<long long>(id), v);
  return Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string cmd = argc > 1 ? argv[1] : "";
  Status st;
  if (cmd == "write" && argc == 6) {
    st = Write(argv[2], std::strtoull(argv[3], nullptr, 10), std::strtoull(argv[4], nullptr, 10),
               argv[5]);
  } else if (cmd == "check" && argc == 3) {
    st = Check(argv[2]);
  } else {
    std::fprintf(stderr, "usage: crash_writer write <db> <seed> <start> <log> | check <db>\n");
    return 2;
  }
  if (!st.ok()) {
    std::fprintf(stderr, "error: %s\n", st.ToString().c_str());
    return 1;
  }
  return 0;
}
