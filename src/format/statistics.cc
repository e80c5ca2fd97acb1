// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Layout (docs/format/statistics.md), little-endian:
//   "LDBCSTAT" | u32 version | u32 num_zones | u32 num_columns | u32 reserved |
//   (num_zones + 1) x i64 zone_starts |
//   per column: i32 field_id | u8 type | per zone: u8 flags (bit 0: has bounds) |
//     i64 null_count | i64 nan_count | bounds when flagged (8 + 8 bytes, or for binaries
//     u32 length + bytes for the minimum then the maximum).

#include "format/statistics.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "array/half.h"
#include "array/layout.h"
#include "common/bit_util.h"
#include "format/file_reader.h"

namespace lancedb::format {

bool StatsTypeOf(const array::DataType& type, StatsType* out) {
  using array::TypeId;
  switch (type.id()) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kDate32:
    case TypeId::kDate64:
    case TypeId::kTimestamp:
      *out = StatsType::kInt;
      return true;
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
      *out = StatsType::kUInt;
      return true;
    case TypeId::kFloat16:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
      *out = StatsType::kFloat;
      return true;
    case TypeId::kBool:
      *out = StatsType::kBool;
      return true;
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      *out = StatsType::kBinary;
      return true;
    default:
      return false;
  }
}

const FileStatistics::Column* FileStatistics::FindColumn(int32_t field_id) const {
  for (const auto& c : columns) {
    if (c.field_id == field_id) return &c;
  }
  return nullptr;
}

namespace {

template <typename T>
void Put(std::string* out, T value) {
  out->append(reinterpret_cast<const char*>(&value), sizeof(T));
}

void PutString(std::string* out, const std::string& s) {
  Put<uint32_t>(out, static_cast<uint32_t>(s.size()));
  out->append(s);
}

/// Bounds-checked reader over untrusted bytes.
class Cursor {
 public:
  explicit Cursor(std::string_view bytes) : bytes_(bytes) {}
  template <typename T>
  Result<T> Get() {
    if (bytes_.size() - pos_ < sizeof(T)) return Truncated();
    T value;
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }
  Result<std::string> GetString() {
    LANCEDB_ASSIGN_OR_RETURN(auto len, Get<uint32_t>());
    if (bytes_.size() - pos_ < len) return Truncated();
    std::string s(bytes_.substr(pos_, len));
    pos_ += len;
    return s;
  }
  size_t remaining() const { return bytes_.size() - pos_; }

 private:
  static Status Truncated() { return Status::Corruption("Statistics buffer is truncated"); }
  std::string_view bytes_;
  size_t pos_ = 0;
};

Result<ColumnStats> ParseZone(Cursor* in, StatsType type) {
  ColumnStats z;
  LANCEDB_ASSIGN_OR_RETURN(auto flags, in->Get<uint8_t>());
  LANCEDB_ASSIGN_OR_RETURN(z.null_count, in->Get<int64_t>());
  LANCEDB_ASSIGN_OR_RETURN(z.nan_count, in->Get<int64_t>());
  if (z.null_count < 0 || z.nan_count < 0) return Status::Corruption("Negative statistics count");
  z.has_bounds = (flags & 1) != 0;
  if (!z.has_bounds) return z;
  switch (type) {
    case StatsType::kInt:
    case StatsType::kBool: {
      LANCEDB_ASSIGN_OR_RETURN(z.min_int, in->Get<int64_t>());
      LANCEDB_ASSIGN_OR_RETURN(z.max_int, in->Get<int64_t>());
      break;
    }
    case StatsType::kUInt: {
      LANCEDB_ASSIGN_OR_RETURN(z.min_uint, in->Get<uint64_t>());
      LANCEDB_ASSIGN_OR_RETURN(z.max_uint, in->Get<uint64_t>());
      break;
    }
    case StatsType::kFloat: {
      LANCEDB_ASSIGN_OR_RETURN(z.min_float, in->Get<double>());
      LANCEDB_ASSIGN_OR_RETURN(z.max_float, in->Get<double>());
      if (std::isnan(z.min_float) || std::isnan(z.max_float)) {
        return Status::Corruption("NaN bound in statistics");
      }
      break;
    }
    case StatsType::kBinary: {
      LANCEDB_ASSIGN_OR_RETURN(z.min_str, in->GetString());
      LANCEDB_ASSIGN_OR_RETURN(z.max_str, in->GetString());
      break;
    }
  }
  return z;
}

}  // namespace

std::string SerializeStatistics(const FileStatistics& stats) {
  std::string out(kStatisticsMagic);
  Put<uint32_t>(&out, kStatisticsVersion);
  Put<uint32_t>(&out, static_cast<uint32_t>(stats.num_zones()));
  Put<uint32_t>(&out, static_cast<uint32_t>(stats.columns.size()));
  Put<uint32_t>(&out, 0);
  for (int64_t s : stats.zone_starts) Put<int64_t>(&out, s);
  for (const auto& column : stats.columns) {
    Put<int32_t>(&out, column.field_id);
    Put<uint8_t>(&out, static_cast<uint8_t>(column.type));
    for (const auto& z : column.zones) {
      Put<uint8_t>(&out, z.has_bounds ? 1 : 0);
      Put<int64_t>(&out, z.null_count);
      Put<int64_t>(&out, z.nan_count);
      if (!z.has_bounds) continue;
      switch (column.type) {
        case StatsType::kInt:
        case StatsType::kBool:
          Put<int64_t>(&out, z.min_int);
          Put<int64_t>(&out, z.max_int);
          break;
        case StatsType::kUInt:
          Put<uint64_t>(&out, z.min_uint);
          Put<uint64_t>(&out, z.max_uint);
          break;
        case StatsType::kFloat:
          Put<double>(&out, z.min_float);
          Put<double>(&out, z.max_float);
          break;
        case StatsType::kBinary:
          PutString(&out, z.min_str);
          PutString(&out, z.max_str);
          break;
      }
    }
  }
  return out;
}

Result<FileStatistics> ParseStatistics(std::string_view bytes) {
  if (bytes.substr(0, kStatisticsMagic.size()) != kStatisticsMagic) {
    return Status::NotFound("Not a statistics buffer");
  }
  Cursor in(bytes.substr(kStatisticsMagic.size()));
  LANCEDB_ASSIGN_OR_RETURN(auto version, in.Get<uint32_t>());
  if (version != kStatisticsVersion) {
    return Status::NotSupported("Statistics version " + std::to_string(version) +
                                " is not supported");
  }
  LANCEDB_ASSIGN_OR_RETURN(auto num_zones, in.Get<uint32_t>());
  LANCEDB_ASSIGN_OR_RETURN(auto num_columns, in.Get<uint32_t>());
  LANCEDB_RETURN_NOT_OK(in.Get<uint32_t>().status());
  // Every zone takes at least 8 bytes of boundaries, every column zone 17 bytes.
  if (static_cast<uint64_t>(num_zones) * 8 + 8 > in.remaining() ||
      (num_zones > 0 &&
       static_cast<uint64_t>(num_columns) * (5 + 17ULL * num_zones) > in.remaining())) {
    return Status::Corruption("Statistics buffer is truncated");
  }
  FileStatistics stats;
  stats.zone_starts.clear();
  for (uint32_t i = 0; i <= num_zones; ++i) {
    LANCEDB_ASSIGN_OR_RETURN(auto s, in.Get<int64_t>());
    if ((i == 0 && s != 0) || (i > 0 && s <= stats.zone_starts.back())) {
      return Status::Corruption("Statistics zone boundaries are not increasing from 0");
    }
    stats.zone_starts.push_back(s);
  }
  for (uint32_t c = 0; c < num_columns; ++c) {
    FileStatistics::Column column;
    LANCEDB_ASSIGN_OR_RETURN(column.field_id, in.Get<int32_t>());
    LANCEDB_ASSIGN_OR_RETURN(auto type, in.Get<uint8_t>());
    if (type < 1 || type > 5) return Status::Corruption("Unknown statistics type");
    column.type = static_cast<StatsType>(type);
    for (uint32_t z = 0; z < num_zones; ++z) {
      LANCEDB_ASSIGN_OR_RETURN(auto zone, ParseZone(&in, column.type));
      column.zones.push_back(std::move(zone));
    }
    stats.columns.push_back(std::move(column));
  }
  return stats;
}

Result<std::shared_ptr<const FileStatistics>> ReadFileStatistics(const FileReader& reader) {
  // Our writer appends the statistics as the last global buffer; look from the end.
  for (uint32_t i = reader.num_global_buffers(); i-- > 1;) {
    LANCEDB_ASSIGN_OR_RETURN(auto buffer, reader.ReadGlobalBuffer(i));
    auto parsed = ParseStatistics(buffer->view());
    if (parsed.ok()) {
      if (parsed->zone_starts.back() != reader.num_rows()) {
        return Status::Corruption("Statistics cover " + std::to_string(parsed->zone_starts.back()) +
                                  " rows but the file has " + std::to_string(reader.num_rows()));
      }
      return std::make_shared<const FileStatistics>(parsed.MoveValueUnsafe());
    }
    if (parsed.status().code() != StatusCode::kNotFound) return parsed.status();
  }
  return std::shared_ptr<const FileStatistics>();
}

// ---------------------------------------------------------------------------------------------
// Collection.

StatisticsCollector::StatisticsCollector(const LanceSchema& schema, int64_t zone_rows)
    : zone_rows_(std::max<int64_t>(zone_rows, 1)) {
  const auto& fields = schema.fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    auto type = fields[i].ToArrowType();
    StatsType st;
    if (!type.ok() || !StatsTypeOf(**type, &st)) continue;
    tracked_.push_back({static_cast<int>(i), st});
    FileStatistics::Column column;
    column.field_id = fields[i].id;
    column.type = st;
    stats_.columns.push_back(std::move(column));
  }
}

void StatisticsCollector::Append(const array::RecordBatch& batch) {
  int64_t row = 0;
  const int64_t n = batch.num_rows();
  while (row < n) {
    if (in_zone_ == 0) {
      for (auto& c : stats_.columns) c.zones.emplace_back();
    }
    const int64_t len = std::min(zone_rows_ - in_zone_, n - row);
    for (size_t t = 0; t < tracked_.size(); ++t) {
      AppendRange(*batch.column(tracked_[t].top_index), t, row, row + len);
    }
    row += len;
    rows_ += len;
    in_zone_ += len;
    if (in_zone_ == zone_rows_) {
      stats_.zone_starts.push_back(rows_);
      in_zone_ = 0;
    }
  }
}

FileStatistics StatisticsCollector::Finish() {
  if (in_zone_ > 0) stats_.zone_starts.push_back(rows_);
  in_zone_ = 0;
  for (auto& column : stats_.columns) {
    if (column.type != StatsType::kBinary) continue;
    for (auto& z : column.zones) z.max_int = 0;  // drop the given-up marker
  }
  return std::move(stats_);
}

namespace {

/// Folds one value into the zone's bounds.
template <typename T>
void Widen(bool* has, T* lo, T* hi, T v) {
  if (!*has) {
    *lo = v;
    *hi = v;
    *has = true;
  } else {
    *lo = std::min(*lo, v);
    *hi = std::max(*hi, v);
  }
}

template <typename T, typename Fold>
void ForEachValid(const array::ArrayData& a, int64_t begin, int64_t end, ColumnStats* z,
                  Fold fold) {
  const uint8_t* validity =
      (a.buffers.empty() || a.buffers[0] == nullptr) ? nullptr : a.buffers[0]->data();
  const T* values = a.GetValues<T>(1);
  for (int64_t i = begin; i < end; ++i) {
    if (validity != nullptr && !bit_util::GetBit(validity, a.offset + i)) {
      ++z->null_count;
      continue;
    }
    fold(values[i]);
  }
}

}  // namespace

void StatisticsCollector::AppendRange(const array::ArrayData& a, size_t tracked, int64_t begin,
                                      int64_t end) {
  using array::TypeId;
  ColumnStats* z = &stats_.columns[tracked].zones.back();
  // A zone whose bounds were given up (long strings) keeps counting nulls only.
  const bool poisoned = !z->has_bounds && z->max_int == -1;
  auto ints = [z](int64_t v) { Widen(&z->has_bounds, &z->min_int, &z->max_int, v); };
  auto uints = [z](uint64_t v) { Widen(&z->has_bounds, &z->min_uint, &z->max_uint, v); };
  auto floats = [z](double v) {
    if (std::isnan(v)) {
      ++z->nan_count;
    } else {
      Widen(&z->has_bounds, &z->min_float, &z->max_float, v);
    }
  };
  switch (a.type->id()) {
    case TypeId::kInt8:
      return ForEachValid<int8_t>(a, begin, end, z, ints);
    case TypeId::kInt16:
      return ForEachValid<int16_t>(a, begin, end, z, ints);
    case TypeId::kInt32:
    case TypeId::kDate32:
      return ForEachValid<int32_t>(a, begin, end, z, ints);
    case TypeId::kInt64:
    case TypeId::kDate64:
    case TypeId::kTimestamp:
      return ForEachValid<int64_t>(a, begin, end, z, ints);
    case TypeId::kUInt8:
      return ForEachValid<uint8_t>(a, begin, end, z, uints);
    case TypeId::kUInt16:
      return ForEachValid<uint16_t>(a, begin, end, z, uints);
    case TypeId::kUInt32:
      return ForEachValid<uint32_t>(a, begin, end, z, uints);
    case TypeId::kUInt64:
      return ForEachValid<uint64_t>(a, begin, end, z, uints);
    case TypeId::kFloat16:
      return ForEachValid<uint16_t>(a, begin, end, z,
                                    [&](uint16_t h) { floats(array::HalfToFloat(h)); });
    case TypeId::kFloat32:
      return ForEachValid<float>(a, begin, end, z, floats);
    case TypeId::kFloat64:
      return ForEachValid<double>(a, begin, end, z, floats);
    case TypeId::kBool: {
      const uint8_t* bits = a.buffers[1]->data();
      for (int64_t i = begin; i < end; ++i) {
        if (a.IsNull(i)) {
          ++z->null_count;
        } else {
          ints(bit_util::GetBit(bits, a.offset + i) ? 1 : 0);
        }
      }
      return;
    }
    default:
      break;
  }
  // Strings and binaries (byte order, as the evaluator compares them).
  bool lost = poisoned;
  for (int64_t i = begin; i < end; ++i) {
    if (a.IsNull(i)) {
      ++z->null_count;
      continue;
    }
    if (lost) continue;
    std::string_view v = a.GetView(i);
    if (v.size() > kMaxStatisticsStringBytes) {
      lost = true;
      continue;
    }
    if (!z->has_bounds) {
      z->min_str = v;
      z->max_str = v;
      z->has_bounds = true;
    } else if (v < z->min_str) {
      z->min_str = v;
    } else if (v > z->max_str) {
      z->max_str = v;
    }
  }
  if (lost) {
    z->has_bounds = false;
    z->min_str.clear();
    z->max_str.clear();
    z->max_int = -1;  // marks the zone as given up (never serialized for binaries)
  }
}

}  // namespace lancedb::format
