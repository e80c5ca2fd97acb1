// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// read_bench: times reads of an existing table with the C++ API — a full scan, a projected scan
// and a take of rows by offset and, for the same rows, by row id. Prints one JSON object (best of
// `repeats` for each); bench/bench_read.py runs it next to pylance on the same files and prints
// ratios.
//
//   read_bench <db_dir> <table> <repeats> <col1,col2,...> <off1,off2,...>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
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

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// Drains `stream`, returning the row count (or -1 after printing an error).
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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: read_bench <db_dir> <table> <repeats> <cols> <offsets>\n");
    return 2;
  }
  const int repeats = std::max(1, std::atoi(argv[3]));
  const std::vector<std::string> columns = Split(argv[4]);
  std::vector<uint64_t> offsets;
  for (const auto& s : Split(argv[5])) offsets.push_back(std::strtoull(s.c_str(), nullptr, 10));

  auto db = lancedb::Connect(argv[1]);
  if (!db.ok()) return Fail(db.status());
  auto start = std::chrono::steady_clock::now();
  auto table = (*db)->OpenTable(argv[2]);
  if (!table.ok()) return Fail(table.status());
  const double open_s = Seconds(start);

  double best_full = 1e30, best_proj = 1e30, best_take = 1e30, best_take_ids = 1e30;
  int64_t full_rows = 0, proj_rows = 0, take_rows = 0, take_id_rows = 0;
  for (int r = 0; r < repeats; ++r) {
    ArrowArrayStream stream;
    lancedb::ScanRequest full;
    full.batch_size = 65536;
    start = std::chrono::steady_clock::now();
    if (auto st = (*table)->Scan(full, &stream); !st.ok()) return Fail(st);
    full_rows = Drain(&stream);
    if (full_rows < 0) return 1;
    best_full = std::min(best_full, Seconds(start));

    lancedb::ScanRequest proj;
    proj.batch_size = 65536;
    proj.columns = columns;
    start = std::chrono::steady_clock::now();
    if (auto st = (*table)->Scan(proj, &stream); !st.ok()) return Fail(st);
    proj_rows = Drain(&stream);
    if (proj_rows < 0) return 1;
    best_proj = std::min(best_proj, Seconds(start));

    start = std::chrono::steady_clock::now();
    if (auto st = (*table)->TakeOffsets(offsets).Execute(&stream); !st.ok()) return Fail(st);
    take_rows = Drain(&stream);
    if (take_rows < 0) return 1;
    best_take = std::min(best_take, Seconds(start));

    // The same rows by row id (the offsets are the row ids of a one-fragment table without
    // deletions): no offset-to-address mapping.
    start = std::chrono::steady_clock::now();
    if (auto st = (*table)->TakeRowIds(offsets).Execute(&stream); !st.ok()) return Fail(st);
    take_id_rows = Drain(&stream);
    if (take_id_rows < 0) return 1;
    best_take_ids = std::min(best_take_ids, Seconds(start));
  }
  std::printf(
      "{\"open_s\": %.6f, \"full_s\": %.6f, \"full_rows\": %lld, \"proj_s\": %.6f, "
      "\"proj_rows\": %lld, \"take_s\": %.6f, \"take_rows\": %lld, \"take_ids_s\": %.6f, "
      "\"take_id_rows\": %lld}\n",
      open_s, best_full, static_cast<long long>(full_rows), best_proj,
      static_cast<long long>(proj_rows), best_take, static_cast<long long>(take_rows),
      best_take_ids, static_cast<long long>(take_id_rows));
  return 0;
}
