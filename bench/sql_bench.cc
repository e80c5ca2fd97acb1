// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// sql_bench: times filtered reads with the C++ API — count_rows(filter) and a filtered scan
// of every column — on a table lancedb-cpp writes (copied from a LanceDB-written table, so
// its files keep zone statistics) and on the LanceDB-written table itself (no statistics).
// Prints one JSON object (best of `repeats` after a warm-up); bench/bench_sql.py runs it next
// to LanceDB and prints ratios.
//
//   sql_bench <lancedb_dir> <table> <cpp_dir> <repeats> <filter> [<filter> ...]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "array/c_bridge.h"
#include "lancedb/lancedb.h"

namespace la = lancedb::array;

namespace {

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int Fail(const lancedb::Status& st) {
  std::fprintf(stderr, "error: %s\n", st.ToString().c_str());
  return 1;
}

/// Drains `stream`: the row count, or -1 after printing an error.
int64_t Drain(ArrowArrayStream* stream) {
  auto reader = la::ImportArrayStream(stream);
  if (!reader.ok()) {
    Fail(reader.status());
    return -1;
  }
  int64_t rows = 0;
  while (true) {
    auto batch = (*reader)->Next();
    if (!batch.ok()) {
      Fail(batch.status());
      return -1;
    }
    if (!*batch) break;
    rows += (*batch)->num_rows();
  }
  return rows;
}

struct Timing {
  double seconds = 1e30;
  int64_t rows = -1;
};

/// Best of `repeats` (after one warm-up) of count_rows(filter) and of the filtered scan.
bool Measure(const lancedb::Table& table, const std::string& filter, int repeats, Timing* count,
             Timing* scan) {
  for (int r = 0; r <= repeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    auto n = table.CountRows(filter);
    if (!n.ok()) return Fail(n.status()) == 0;
    if (r > 0) count->seconds = std::min(count->seconds, Seconds(start));
    count->rows = *n;

    start = std::chrono::steady_clock::now();
    ArrowArrayStream stream;
    if (auto st = table.Query().Where(filter).Execute(&stream); !st.ok()) return Fail(st) == 0;
    scan->rows = Drain(&stream);
    if (scan->rows < 0) return false;
    if (r > 0) scan->seconds = std::min(scan->seconds, Seconds(start));
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr,
                 "usage: sql_bench <lancedb_dir> <table> <cpp_dir> <repeats> <filter>...\n");
    return 2;
  }
  const std::string name = argv[2];
  const int repeats = std::max(1, std::atoi(argv[4]));
  auto ldb = lancedb::Connect(argv[1]);
  if (!ldb.ok()) return Fail(ldb.status());
  auto source = (*ldb)->OpenTable(name);
  if (!source.ok()) return Fail(source.status());

  // Copy LanceDB's table into one written by lancedb-cpp.
  auto cpp = lancedb::Connect(argv[3]);
  if (!cpp.ok()) return Fail(cpp.status());
  ArrowArrayStream all;
  if (auto st = (*source)->Query().Execute(&all); !st.ok()) return Fail(st);
  auto start = std::chrono::steady_clock::now();
  auto copy = (*cpp)->CreateTable(name, &all);
  if (!copy.ok()) return Fail(copy.status());
  const double write_s = Seconds(start);

  std::printf("{\"write_s\": %.6f, \"filters\": [", write_s);
  for (int i = 5; i < argc; ++i) {
    Timing cpp_count, cpp_scan, raw_count, raw_scan;
    if (!Measure(**copy, argv[i], repeats, &cpp_count, &cpp_scan)) return 1;
    if (!Measure(**source, argv[i], repeats, &raw_count, &raw_scan)) return 1;
    std::printf(
        "%s{\"count_s\": %.6f, \"count\": %lld, \"scan_s\": %.6f, \"scan_rows\": %lld, "
        "\"nostats_count_s\": %.6f, \"nostats_scan_s\": %.6f}",
        i > 5 ? ", " : "", cpp_count.seconds, static_cast<long long>(cpp_count.rows),
        cpp_scan.seconds, static_cast<long long>(cpp_scan.rows), raw_count.seconds,
        raw_scan.seconds);
  }
  std::printf("]}\n");
  return 0;
}
