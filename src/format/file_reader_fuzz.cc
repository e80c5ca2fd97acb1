// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// libFuzzer target over the Lance data file reader (lance-format.md §2): footer, offset tables,
// FileDescriptor, column metadata and every page layout. Any input must yield batches or an
// error Status; crashes, sanitizer reports and hangs are bugs.
// Seeds: files written by format_test with LANCEDB_FORMAT_OUT, and the fixtures' data/*.lance.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "format/file_reader.h"
#include "io/file_system.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto fs = lancedb::io::MemoryFileSystem();
  const std::string path = "fuzz/input.lance";
  if (!fs->WriteFile(path, std::span<const uint8_t>(data, size)).ok()) return 0;
  auto reader = lancedb::format::FileReader::Open(fs, path);
  if (!reader.ok()) return 0;
  std::vector<int32_t> ids;
  for (const auto& field : (*reader)->schema().fields()) ids.push_back(field.id);
  const int64_t rows = std::min<int64_t>((*reader)->num_rows(), 1 << 16);
  (void)(*reader)->Read(ids, 0, rows).ok();
  // Takes decode only the chunks and zipped row ranges holding their rows (repeats allowed).
  if (rows > 1) (void)(*reader)->Take(ids, {0, rows / 2, rows / 2, rows - 1}).ok();
  return 0;
}
