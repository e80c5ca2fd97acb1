// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// storage_bench: times table creation (write) and a full scan with the C++ API on data read
// beforehand from an Arrow IPC stream file (reading the input is not timed). Prints one JSON
// object; bench/bench_storage.py runs it next to pylance on the same data and prints ratios.
//
//   storage_bench <in.arrows> <db_dir> [repeats]

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "array/c_bridge.h"
#include "array/ipc.h"
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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: storage_bench <in.arrows> <db_dir> [repeats]\n");
    return 2;
  }
  int repeats = argc > 3 ? std::atoi(argv[3]) : 3;
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  auto data = la::ipc::ReadStream(lancedb::Buffer::Copy(ss.str()));
  if (!data.ok()) return Fail(data.status());
  int64_t rows = 0;
  for (const auto& b : data->batches) rows += b->num_rows();

  auto db = lancedb::Connect(argv[2]);
  if (!db.ok()) return Fail(db.status());
  double best_write = 1e30, best_scan = 1e30;
  int64_t scanned = 0;
  for (int r = 0; r < repeats; ++r) {
    (void)(*db)->DropTable("bench");
    ArrowArrayStream stream;
    auto st =
        la::ExportRecordBatchReader(la::MakeVectorReader(data->schema, data->batches), &stream);
    if (!st.ok()) return Fail(st);
    auto start = std::chrono::steady_clock::now();
    auto table = (*db)->CreateTable("bench", &stream);
    if (!table.ok()) return Fail(table.status());
    best_write = std::min(best_write, Seconds(start));

    start = std::chrono::steady_clock::now();
    lancedb::ScanRequest request;
    request.batch_size = 65536;
    if (auto s = (*table)->Scan(request, &stream); !s.ok()) return Fail(s);
    auto reader = la::ImportArrayStream(&stream);
    if (!reader.ok()) return Fail(reader.status());
    scanned = 0;
    while (true) {
      auto batch = (*reader)->Next();
      if (!batch.ok()) return Fail(batch.status());
      if (!*batch) break;
      scanned += (*batch)->num_rows();
    }
    best_scan = std::min(best_scan, Seconds(start));
  }
  if (scanned != rows) {
    std::fprintf(stderr, "error: scanned %lld rows, expected %lld\n",
                 static_cast<long long>(scanned), static_cast<long long>(rows));
    return 1;
  }
  std::printf("{\"rows\": %lld, \"write_s\": %.6f, \"scan_s\": %.6f}\n",
              static_cast<long long>(rows), best_write, best_scan);
  return 0;
}
