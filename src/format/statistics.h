// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Zone statistics kept inside a Lance data file (docs/format/statistics.md): for every
// top-level column of an orderable primitive type and every fixed range of rows ("zone"), the
// minimum, maximum and null count (plus NaN count for floats). The FileWriter appends them as
// an extra global buffer that starts with a magic marker; readers that do not know it (pylance)
// ignore the buffer. Bounds are taken over the non-null, non-NaN values in the column's
// physical type widened to 64 bits; the evaluator's coercions are applied by the reader of the
// statistics (expr/prune.h). Thread-safety: StatisticsCollector is externally synchronized;
// FileStatistics is a plain value.

#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "array/array.h"
#include "common/buffer.h"
#include "format/lance_schema.h"

namespace lancedb::format {

class FileReader;

/// The first bytes of the statistics global buffer.
inline constexpr std::string_view kStatisticsMagic = "LDBCSTAT";
inline constexpr uint32_t kStatisticsVersion = 1;
/// Default rows per zone.
inline constexpr int64_t kDefaultZoneRows = 8192;
/// Strings or binaries longer than this give their zone no bounds.
inline constexpr size_t kMaxStatisticsStringBytes = 64;

/// How the bounds of a column are stored (serialized: u8).
enum class StatsType : uint8_t { kInt = 1, kUInt = 2, kFloat = 3, kBool = 4, kBinary = 5 };

/// The statistics type kept for an Arrow type; false when the type has no statistics.
bool StatsTypeOf(const array::DataType& type, StatsType* out);

/// Statistics of one column over one zone.
struct ColumnStats {
  int64_t null_count = 0;
  int64_t nan_count = 0;
  /// False when no value bounds are known: every value null or NaN, or a string too long.
  bool has_bounds = false;
  /// Bounds by StatsType: kInt and kBool in the ints, kUInt in the uints, kFloat in the
  /// floats, kBinary in the strings.
  int64_t min_int = 0, max_int = 0;
  uint64_t min_uint = 0, max_uint = 0;
  double min_float = 0, max_float = 0;
  std::string min_str, max_str;

  bool operator==(const ColumnStats&) const = default;
};

/// The statistics of one data file.
struct FileStatistics {
  struct Column {
    int32_t field_id = -1;
    StatsType type = StatsType::kInt;
    std::vector<ColumnStats> zones;  // one per zone of the file
    bool operator==(const Column&) const = default;
  };
  /// Zone boundaries: zone i holds rows [zone_starts[i], zone_starts[i + 1]); the last entry
  /// is the file's row count.
  std::vector<int64_t> zone_starts = {0};
  std::vector<Column> columns;

  size_t num_zones() const { return zone_starts.size() - 1; }
  /// The column with `field_id`, or nullptr.
  const Column* FindColumn(int32_t field_id) const;
  bool operator==(const FileStatistics&) const = default;
};

/// The statistics of one column over a row range, as handed to a pruning predicate.
struct RangeColumnStats {
  array::DataTypePtr type;  // the column's Arrow type
  StatsType stats_type = StatsType::kInt;
  int64_t num_rows = 0;  // rows the statistics cover (a superset of the range)
  ColumnStats stats;
};
/// Statistics of a top-level column by name over the range; nullptr when unknown.
using RangeStatsLookup = std::function<const RangeColumnStats*(const std::string& column)>;
/// A pruning predicate: false when no row of the range can match.
using RangePredicate = std::function<bool(const RangeStatsLookup&)>;

/// Serialize (docs/format/statistics.md).
std::string SerializeStatistics(const FileStatistics& stats);
/// Parse bytes written by SerializeStatistics. NotFound when they do not start with the magic
/// marker; Corruption for a damaged layout; NotSupported for a newer version.
Result<FileStatistics> ParseStatistics(std::string_view bytes);

/// Find and parse the statistics of an open file. Returns nullptr when the file has none
/// (files written by Lance); Corruption when they are damaged.
Result<std::shared_ptr<const FileStatistics>> ReadFileStatistics(const FileReader& reader);

/// Accumulates zone statistics while a file is written. Externally synchronized.
class StatisticsCollector {
 public:
  /// Track every top-level field of `schema` that has a statistics type.
  explicit StatisticsCollector(const LanceSchema& schema, int64_t zone_rows = kDefaultZoneRows);

  /// Add the rows of `batch` (columns in schema order).
  void Append(const array::RecordBatch& batch);
  /// Close the last zone and return the statistics.
  FileStatistics Finish();
  bool empty() const { return tracked_.empty(); }

 private:
  struct Tracked {
    int top_index = 0;
    StatsType type = StatsType::kInt;
  };
  void AppendRange(const array::ArrayData& column, size_t tracked, int64_t begin, int64_t end);

  int64_t zone_rows_;
  std::vector<Tracked> tracked_;
  FileStatistics stats_;
  int64_t rows_ = 0;     // rows appended
  int64_t in_zone_ = 0;  // rows in the open zone
};

}  // namespace lancedb::format
