// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "format/statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "array/builder.h"
#include "format/file_reader.h"
#include "format/file_writer.h"
#include "io/file_system.h"

namespace lancedb::format {
namespace LANCEDB_TEST_FILE_NS {

array::RecordBatchPtr Batch(std::vector<array::FieldPtr> fields,
                            std::vector<array::ArrayPtr> columns) {
  auto batch = array::RecordBatch::Make(array::schema(std::move(fields)), std::move(columns));
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  return *batch;
}

FileStatistics Collect(const array::RecordBatchPtr& batch, int64_t zone_rows) {
  auto schema = LanceSchema::FromArrow(*batch->schema());
  EXPECT_TRUE(schema.ok());
  StatisticsCollector collector(*schema, zone_rows);
  collector.Append(*batch);
  return collector.Finish();
}

TEST(StatisticsCollector, IntsWithNullsPerZone) {
  auto i32 = array::int32();
  auto batch =
      Batch({array::field("x", i32)},
            {array::MakePrimitive<int32_t>(i32, {5, -3, 0, 7, 100, 2, 9},
                                           {true, true, false, true, false, false, true})});
  FileStatistics stats = Collect(batch, 3);
  EXPECT_EQ(stats.zone_starts, (std::vector<int64_t>{0, 3, 6, 7}));
  ASSERT_EQ(stats.columns.size(), 1u);
  const auto& zones = stats.columns[0].zones;
  ASSERT_EQ(zones.size(), 3u);
  EXPECT_EQ(zones[0].null_count, 1);
  EXPECT_TRUE(zones[0].has_bounds);
  EXPECT_EQ(zones[0].min_int, -3);
  EXPECT_EQ(zones[0].max_int, 5);
  EXPECT_EQ(zones[1].null_count, 2);  // only 7 is valid
  EXPECT_EQ(zones[1].min_int, 7);
  EXPECT_EQ(zones[1].max_int, 7);
  EXPECT_EQ(zones[2].min_int, 9);
}

TEST(StatisticsCollector, ZonesSpanBatches) {
  auto i64 = array::int64();
  auto schema = LanceSchema::FromArrow(*array::schema({array::field("x", i64)}));
  ASSERT_TRUE(schema.ok());
  StatisticsCollector collector(*schema, 4);
  collector.Append(
      *Batch({array::field("x", i64)}, {array::MakePrimitive<int64_t>(i64, {1, 2, 3})}));
  collector.Append(
      *Batch({array::field("x", i64)}, {array::MakePrimitive<int64_t>(i64, {40, 50, 60})}));
  auto stats = collector.Finish();
  EXPECT_EQ(stats.zone_starts, (std::vector<int64_t>{0, 4, 6}));
  EXPECT_EQ(stats.columns[0].zones[0].max_int, 40);
  EXPECT_EQ(stats.columns[0].zones[1].min_int, 50);
}

TEST(StatisticsCollector, NaNAndAllNullZones) {
  auto f64 = array::float64();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto batch = Batch({array::field("f", f64)},
                     {array::MakePrimitive<double>(f64, {nan, 1.5, -2.0, 0, 0, nan},
                                                   {true, true, true, false, false, true})});
  FileStatistics stats = Collect(batch, 3);
  const auto& zones = stats.columns[0].zones;
  ASSERT_EQ(zones.size(), 2u);
  EXPECT_EQ(zones[0].nan_count, 1);
  EXPECT_DOUBLE_EQ(zones[0].min_float, -2.0);
  EXPECT_DOUBLE_EQ(zones[0].max_float, 1.5);
  // Two nulls and a NaN: no bounds.
  EXPECT_FALSE(zones[1].has_bounds);
  EXPECT_EQ(zones[1].null_count, 2);
  EXPECT_EQ(zones[1].nan_count, 1);
}

TEST(StatisticsCollector, StringsBoolsAndSkippedTypes) {
  auto batch =
      Batch({array::field("s", array::utf8()), array::field("b", array::boolean()),
             array::field("v", array::fixed_size_list(array::field("item", array::float32()), 2))},
            {array::MakeString({"pear", std::nullopt, "apple", std::string(100, 'z')}),
             array::MakeBool({true, true, false, true}, {true, false, true, true}),
             array::MakeFixedSizeList(
                 array::fixed_size_list(array::field("item", array::float32()), 2),
                 array::MakePrimitive<float>(array::float32(), {1, 2, 3, 4, 5, 6, 7, 8}))});
  FileStatistics stats = Collect(batch, 2);
  ASSERT_EQ(stats.columns.size(), 2u);  // no statistics for the vector column
  const auto& s = stats.columns[0];
  EXPECT_EQ(s.type, StatsType::kBinary);
  EXPECT_EQ(s.zones[0].min_str, "pear");
  EXPECT_EQ(s.zones[0].null_count, 1);
  EXPECT_FALSE(s.zones[1].has_bounds);  // a string longer than the limit
  const auto& b = stats.columns[1];
  EXPECT_EQ(b.type, StatsType::kBool);
  EXPECT_EQ(b.zones[0].min_int, 1);
  EXPECT_EQ(b.zones[1].min_int, 0);
  EXPECT_EQ(b.zones[1].max_int, 1);
}

TEST(Statistics, SerializeRoundTrip) {
  FileStatistics stats;
  stats.zone_starts = {0, 10, 15};
  ColumnStats a, b;
  a.has_bounds = true;
  a.min_uint = 3;
  a.max_uint = std::numeric_limits<uint64_t>::max();
  b.null_count = 5;  // all null
  stats.columns.push_back({7, StatsType::kUInt, {a, b}});
  ColumnStats s1, s2;
  s1.has_bounds = true;
  s1.min_str = std::string("a\0b", 3);
  s1.max_str = "zz";
  s2.nan_count = 2;
  stats.columns.push_back({9, StatsType::kBinary, {s1, s2}});
  ColumnStats f1, f2;
  f1.has_bounds = f2.has_bounds = true;
  f1.min_float = -0.0;
  f1.max_float = std::numeric_limits<double>::infinity();
  f2.nan_count = 1;
  f2.min_float = f2.max_float = 2.5;
  stats.columns.push_back({11, StatsType::kFloat, {f1, f2}});
  auto parsed = ParseStatistics(SerializeStatistics(stats));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, stats);
  EXPECT_EQ(parsed->FindColumn(9)->zones[0].min_str.size(), 3u);
  EXPECT_EQ(parsed->FindColumn(8), nullptr);
}

TEST(Statistics, ParseRejectsDamagedBuffers) {
  EXPECT_EQ(ParseStatistics("not stats").status().code(), StatusCode::kNotFound);
  FileStatistics stats;
  stats.zone_starts = {0, 4};
  ColumnStats z;
  z.has_bounds = true;
  z.min_str = "abc";
  z.max_str = "abd";
  stats.columns.push_back({1, StatsType::kBinary, {z}});
  const std::string bytes = SerializeStatistics(stats);
  for (size_t cut = kStatisticsMagic.size(); cut < bytes.size(); ++cut) {
    EXPECT_EQ(ParseStatistics(bytes.substr(0, cut)).status().code(), StatusCode::kCorruption)
        << "cut at " << cut;
  }
  std::string newer = bytes;
  newer[kStatisticsMagic.size()] = 9;
  EXPECT_EQ(ParseStatistics(newer).status().code(), StatusCode::kNotSupported);
  std::string bad_type = bytes;
  bad_type[kStatisticsMagic.size() + 16 + 16 + 4] = 42;
  EXPECT_EQ(ParseStatistics(bad_type).status().code(), StatusCode::kCorruption);
}

TEST(Statistics, FileWriterKeepsThemInAGlobalBuffer) {
  auto fs = io::MemoryFileSystem();
  auto i64 = array::int64();
  std::vector<int64_t> ids(20000);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>(i);
  auto batch = Batch({array::field("id", i64), array::field("s", array::utf8())},
                     {array::MakePrimitive<int64_t>(i64, ids),
                      array::MakeBinaryLike(array::utf8(), std::vector<std::optional<std::string>>(
                                                               ids.size(), "c3"))});
  auto schema = LanceSchema::FromArrow(*batch->schema());
  ASSERT_TRUE(schema.ok());
  auto writer = FileWriter::Open(fs, "stats/a.lance", *schema);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Write(*batch).ok());
  ASSERT_TRUE((*writer)->Finish().ok());
  auto reader = FileReader::Open(fs, "stats/a.lance");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->num_global_buffers(), 2u);
  auto stats = ReadFileStatistics(**reader);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  ASSERT_NE(*stats, nullptr);
  EXPECT_EQ((*stats)->zone_starts, (std::vector<int64_t>{0, 8192, 16384, 20000}));
  const auto* id = (*stats)->FindColumn((*schema).fields()[0].id);
  ASSERT_NE(id, nullptr);
  EXPECT_EQ(id->zones[1].min_int, 8192);
  EXPECT_EQ(id->zones[2].max_int, 19999);
  // The data reads back unchanged.
  auto read = (*reader)->Read({(*schema).fields()[0].id}, 19990, 10);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ((*read)->column(0)->GetValues<int64_t>(1)[9], 19999);

  // Disabled: one global buffer, no statistics.
  FileWriterOptions options;
  options.statistics_zone_rows = 0;
  auto plain = FileWriter::Open(fs, "stats/b.lance", *schema, options);
  ASSERT_TRUE(plain.ok());
  ASSERT_TRUE((*plain)->Write(*batch).ok());
  ASSERT_TRUE((*plain)->Finish().ok());
  auto plain_reader = FileReader::Open(fs, "stats/b.lance");
  ASSERT_TRUE(plain_reader.ok());
  EXPECT_EQ((*plain_reader)->num_global_buffers(), 1u);
  auto none = ReadFileStatistics(**plain_reader);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, nullptr);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::format
