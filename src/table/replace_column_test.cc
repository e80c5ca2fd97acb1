// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Tests of ReplaceColumnValues: only the listed fragments get a new file, the column keeps its
// field id and type, older versions read the old values, bad input writes nothing, and a
// concurrent append makes it a retryable conflict.

#include <gtest/gtest.h>

#include "array/builder.h"
#include "io/file_system.h"
#include "table/dataset.h"
#include "table/schema_evolution.h"
#include "table/table_test_util.h"

namespace lancedb::table {
namespace LANCEDB_TEST_FILE_NS {

using testing::MemPath;
using testing::TestReader;

/// Two fragments of 3 rows.
DatasetPtr CreateTwoFragments(const io::FileSystemPtr& fs, const std::string& path) {
  WriteParams params;
  params.max_rows_per_file = 3;
  auto reader = TestReader(0, 6);
  auto ds = Dataset::Write(fs, path, reader.get(), params);
  EXPECT_TRUE(ds.ok()) << ds.status().ToString();
  return ds.ok() ? *ds : nullptr;
}

std::vector<double> ReadX(const Dataset& ds) {
  ScanOptions options;
  options.columns = {"x"};
  auto batches = (*ds.Scan(options))->ReadAll();
  std::vector<double> out;
  for (const auto& b : *batches) {
    const double* v = b->column(0)->GetValues<double>(1);
    out.insert(out.end(), v, v + b->num_rows());
  }
  return out;
}

TEST(ReplaceColumnValues, RewritesOnlyTheListedFragments) {
  auto fs = io::MemoryFileSystem();
  auto ds = CreateTwoFragments(fs, MemPath("replace"));
  ASSERT_EQ(ds->manifest().proto().fragments_size(), 2);
  const uint64_t second = ds->manifest().proto().fragments(1).id();
  const auto x_id = ds->lance_schema().fields()[1].id;
  auto values = array::MakePrimitive<double>(array::float64(), {10, 11, 12});
  auto written = ReplaceColumnValues(ds, "x", {{second, values}});
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ((*written)->version(), ds->version() + 1);
  EXPECT_EQ(ReadX(**written), (std::vector<double>{0, 0.5, 1, 10, 11, 12}));
  EXPECT_EQ(ReadX(*ds), (std::vector<double>{0, 0.5, 1, 1.5, 2, 2.5}));
  EXPECT_EQ((*written)->lance_schema().fields()[1].id, x_id);
  EXPECT_TRUE((*written)->schema()->Equals(*ds->schema()));
  const auto& frags = (*written)->manifest().proto().fragments();
  EXPECT_EQ(frags[0].files_size(), 1);
  EXPECT_EQ(frags[1].files_size(), 2);
  EXPECT_EQ(testing::ScanIds(**written), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
}

TEST(ReplaceColumnValues, BadInputWritesNothing) {
  auto fs = io::MemoryFileSystem();
  auto ds = CreateTwoFragments(fs, MemPath("replace-bad"));
  auto three = array::MakePrimitive<double>(array::float64(), {1, 2, 3});
  auto two = array::MakePrimitive<double>(array::float64(), {1, 2});
  EXPECT_TRUE(ReplaceColumnValues(ds, "nope", {{0, three}}).status().IsInvalidArgument());
  EXPECT_TRUE(ReplaceColumnValues(ds, "x", {{99, three}}).status().IsInvalidArgument());
  EXPECT_TRUE(ReplaceColumnValues(ds, "x", {{0, two}}).status().IsInvalidArgument());
  EXPECT_EQ(*ds->LatestVersion(), ds->version());
}

TEST(ReplaceColumnValues, ConcurrentAppendIsARetryableConflict) {
  auto fs = io::MemoryFileSystem();
  auto ds = CreateTwoFragments(fs, MemPath("replace-race"));
  auto more = TestReader(6, 2);
  ASSERT_TRUE(ds->Append(more.get()).ok());
  auto values = array::MakePrimitive<double>(array::float64(), {7, 8, 9});
  auto written = ReplaceColumnValues(ds, "x", {{ds->manifest().proto().fragments(0).id(), values}});
  ASSERT_FALSE(written.ok());
  EXPECT_TRUE(written.status().IsCommitConflict()) << written.status().ToString();
  EXPECT_TRUE(written.status().IsRetryable());
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::table
