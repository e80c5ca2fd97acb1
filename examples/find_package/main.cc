// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Uses only the installed API: connect to an in-memory database and list its tables.

#include <cstdio>

#include "lancedb/lancedb.h"

int main() {
  auto db = lancedb::Connect("memory://consumer");
  if (!db.ok()) {
    std::fprintf(stderr, "%s\n", db.status().ToString().c_str());
    return 1;
  }
  auto names = (*db)->TableNames();
  if (!names.ok()) return 1;
  auto missing = (*db)->OpenTable("nothing");
  std::printf("lancedb-cpp %s: %zu tables; open missing table: %s\n", lancedb::Version(),
              names->size(), missing.status().ToString().c_str());
  return missing.status().IsNotFound() ? 0 : 1;
}
