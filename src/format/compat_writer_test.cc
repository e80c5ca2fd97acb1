// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Writes Lance files of every type, plus the expected data as Arrow IPC files, into the
// directory named by LANCEDB_FORMAT_OUT (file version 2.2) and its subdirectory v21 (the same
// files in version 2.1), for tests/compat/test_file_compat.py to read back with pylance.
// Fails when the variable is unset.

#include <gtest/gtest.h>

#include <cstdlib>

#include "array/ipc.h"
#include "format/file_writer.h"
#include "format/test_data.h"
#include "io/file_system.h"

namespace lancedb::format {
namespace LANCEDB_TEST_FILE_NS {

using testing::AllTypeColumns;

void WriteCase(const io::FileSystemPtr& fs, const std::string& dir, const std::string& name,
               const std::vector<testing::TestColumn>& cols, int64_t max_page_bytes,
               int num_batches, FileVersion version) {
  std::vector<array::FieldPtr> fields;
  std::vector<array::ArrayPtr> arrays;
  for (const auto& c : cols) {
    fields.push_back(c.field);
    arrays.push_back(c.array);
  }
  auto schema = array::schema(fields, {{"origin", "lancedb-cpp"}});
  auto batch = array::RecordBatch::Make(schema, arrays);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  auto lance_schema = LanceSchema::FromArrow(*schema);
  ASSERT_TRUE(lance_schema.ok()) << lance_schema.status().ToString();
  FileWriterOptions options;
  options.max_page_bytes = max_page_bytes;
  options.version = version;
  auto writer = FileWriter::Open(fs, dir + "/" + name + ".lance", *lance_schema, options);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  std::vector<array::RecordBatchPtr> batches;
  const int64_t n = (*batch)->num_rows();
  for (int b = 0; b < num_batches; ++b) {
    auto slice =
        (*batch)->Slice(n * b / num_batches, n * (b + 1) / num_batches - n * b / num_batches);
    ASSERT_TRUE((*writer)->Write(*slice).ok()) << name;
  }
  auto done = (*writer)->Finish();
  ASSERT_TRUE(done.ok()) << name << ": " << done.status().ToString();
  auto ipc = array::ipc::WriteFile(schema, {*batch});
  ASSERT_TRUE(ipc.ok()) << ipc.status().ToString();
  ASSERT_TRUE(fs->WriteFile(dir + "/" + name + ".arrow", (*ipc)->span()).ok());
}

TEST(FileCompat, WriteEveryTypeForPylance) {
  const char* out = std::getenv("LANCEDB_FORMAT_OUT");
  ASSERT_NE(out, nullptr) << "LANCEDB_FORMAT_OUT not set (a producer for test_file_compat.py)";
  auto fs = io::LocalFileSystem();
  const std::string dir = out;
  const char* rows = std::getenv("LANCEDB_FORMAT_ROWS");
  auto cols = AllTypeColumns(rows != nullptr ? std::atoll(rows) : 1000);
  std::vector<std::optional<std::string>> big = {std::string(1 << 20, 'z'), "small", std::nullopt};
  for (const auto& [subdir, version] :
       {std::pair<std::string, FileVersion>{"", {2, 2}}, {"/v21", {2, 1}}}) {
    const std::string to = dir + subdir;
    ASSERT_TRUE(fs->CreateDir(to).ok());
    for (const auto& c : cols) WriteCase(fs, to, c.name, {c}, 8 << 20, 1, version);
    WriteCase(fs, to, "all_types", cols, 8 << 20, 1, version);
    WriteCase(fs, to, "all_types_paged", cols, 2048, 3, version);
    WriteCase(
        fs, to, "mostly_empty_lists",
        {{"l", array::field("l", array::list(array::int32())), testing::MostlyEmptyLists(200000)}},
        8 << 20, 1, version);
    WriteCase(fs, to, "one_mb_string",
              {{"s", array::field("s", array::utf8()), array::MakeString(big)}}, 8 << 20, 1,
              version);
  }
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::format
