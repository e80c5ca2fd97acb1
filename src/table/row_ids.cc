// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Decoding of row-id and row-version sequences (lance-format.md §3).

#include "table/row_ids.h"

#include <cstring>

namespace lancedb::table {
namespace {

template <typename T>
Status AppendOffsets(uint64_t base, const std::string& bytes, size_t max_values,
                     std::vector<uint64_t>* out) {
  if (bytes.size() % sizeof(T) != 0) {
    return Status::Corruption("Row id array of " + std::to_string(bytes.size()) +
                              " bytes is not a multiple of " + std::to_string(sizeof(T)));
  }
  const size_t n = bytes.size() / sizeof(T);
  if (n > max_values - out->size()) return Status::Corruption("Row id sequence is too long");
  for (size_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
    out->push_back(base + static_cast<uint64_t>(v));
  }
  return Status::OK();
}

Status AppendArray(const pb::EncodedU64Array& array, size_t max_values,
                   std::vector<uint64_t>* out) {
  switch (array.array_case()) {
    case pb::EncodedU64Array::kU16Array:
      return AppendOffsets<uint16_t>(array.u16_array().base(), array.u16_array().offsets(),
                                     max_values, out);
    case pb::EncodedU64Array::kU32Array:
      return AppendOffsets<uint32_t>(array.u32_array().base(), array.u32_array().offsets(),
                                     max_values, out);
    case pb::EncodedU64Array::kU64Array:
      return AppendOffsets<uint64_t>(0, array.u64_array().values(), max_values, out);
    default:
      return Status::Corruption("Row id array without values");
  }
}

Status CheckRange(uint64_t start, uint64_t end, size_t max_values, size_t have) {
  if (end < start || end - start > max_values - have) {
    return Status::Corruption("Row id range [" + std::to_string(start) + ", " +
                              std::to_string(end) + ") is invalid or too long");
  }
  return Status::OK();
}

Result<std::string> LoadSequenceBytes(io::FileSystem& fs, const std::string& root,
                                      const pb::ExternalFile& file) {
  LANCEDB_ASSIGN_OR_RETURN(auto buffer, fs.ReadRange(io::JoinPath(root, file.path()),
                                                     static_cast<int64_t>(file.offset()),
                                                     static_cast<int64_t>(file.size())));
  return std::string(buffer->view());
}

}  // namespace

Status AppendSegment(const pb::U64Segment& segment, size_t max_values, std::vector<uint64_t>* out) {
  switch (segment.segment_case()) {
    case pb::U64Segment::kRange: {
      const auto& r = segment.range();
      LANCEDB_RETURN_NOT_OK(CheckRange(r.start(), r.end(), max_values, out->size()));
      for (uint64_t v = r.start(); v < r.end(); ++v) out->push_back(v);
      return Status::OK();
    }
    case pb::U64Segment::kRangeWithHoles: {
      const auto& r = segment.range_with_holes();
      if (r.end() < r.start()) return Status::Corruption("Row id range with holes is inverted");
      const uint64_t span = r.end() - r.start();
      std::vector<uint64_t> holes;
      LANCEDB_RETURN_NOT_OK(AppendArray(r.holes(), static_cast<size_t>(span), &holes));
      LANCEDB_RETURN_NOT_OK(CheckRange(r.start(), r.end() - holes.size(), max_values, out->size()));
      size_t h = 0;
      for (uint64_t v = r.start(); v < r.end(); ++v) {
        if (h < holes.size() && holes[h] == v) {
          ++h;
          continue;
        }
        out->push_back(v);
      }
      if (h != holes.size()) {
        return Status::Corruption("Row id holes are unsorted or outside their range");
      }
      return Status::OK();
    }
    case pb::U64Segment::kRangeWithBitmap: {
      const auto& r = segment.range_with_bitmap();
      if (r.end() < r.start() || r.end() - r.start() > uint64_t{r.bitmap().size()} * 8) {
        return Status::Corruption("Row id bitmap shorter than its range");
      }
      const auto* bits = reinterpret_cast<const uint8_t*>(r.bitmap().data());
      for (uint64_t i = 0; i < r.end() - r.start(); ++i) {
        if ((bits[i / 8] >> (i % 8)) & 1) {
          if (out->size() >= max_values) return Status::Corruption("Row id sequence is too long");
          out->push_back(r.start() + i);
        }
      }
      return Status::OK();
    }
    case pb::U64Segment::kSortedArray:
      return AppendArray(segment.sorted_array(), max_values, out);
    case pb::U64Segment::kArray:
      return AppendArray(segment.array(), max_values, out);
    default:
      return Status::Corruption("Row id segment without a kind");
  }
}

Result<std::vector<uint64_t>> DecodeRowIdSequence(std::string_view bytes, size_t max_rows) {
  pb::RowIdSequence sequence;
  if (!sequence.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Status::Corruption("Unreadable row id sequence");
  }
  std::vector<uint64_t> ids;
  for (const auto& segment : sequence.segments()) {
    LANCEDB_RETURN_NOT_OK(AppendSegment(segment, max_rows, &ids));
  }
  return ids;
}

Result<std::vector<uint64_t>> DecodeVersionSequence(std::string_view bytes, size_t max_rows) {
  pb::RowDatasetVersionSequence sequence;
  if (!sequence.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Status::Corruption("Unreadable row version sequence");
  }
  std::vector<uint64_t> versions;
  std::vector<uint64_t> span;
  for (const auto& run : sequence.runs()) {
    span.clear();
    LANCEDB_RETURN_NOT_OK(AppendSegment(run.span(), max_rows - versions.size(), &span));
    versions.insert(versions.end(), span.size(), run.version());
  }
  return versions;
}

Result<std::vector<uint64_t>> FragmentRowIds(io::FileSystem& fs, const std::string& root,
                                             const pb::DataFragment& frag) {
  const std::string what = "Row ids of fragment " + std::to_string(frag.id());
  std::string bytes;
  if (frag.has_inline_row_ids()) {
    bytes = frag.inline_row_ids();
  } else if (frag.has_external_row_ids()) {
    LANCEDB_ASSIGN_OR_RETURN(bytes, LoadSequenceBytes(fs, root, frag.external_row_ids()));
  } else {
    return Status::Corruption(what + " are missing in a table with stable row ids");
  }
  auto ids = DecodeRowIdSequence(bytes, static_cast<size_t>(frag.physical_rows()));
  if (!ids.ok()) return ids.status().WithContext(what);
  if (ids->size() != frag.physical_rows()) {
    return Status::Corruption(what + ": " + std::to_string(ids->size()) + " ids for " +
                              std::to_string(frag.physical_rows()) + " rows");
  }
  return ids;
}

Result<std::vector<uint64_t>> FragmentRowVersions(io::FileSystem& fs, const std::string& root,
                                                  const pb::DataFragment& frag, bool created) {
  std::string bytes;
  if (created && frag.has_inline_created_at_versions()) {
    bytes = frag.inline_created_at_versions();
  } else if (created && frag.has_external_created_at_versions()) {
    LANCEDB_ASSIGN_OR_RETURN(bytes,
                             LoadSequenceBytes(fs, root, frag.external_created_at_versions()));
  } else if (!created && frag.has_inline_last_updated_at_versions()) {
    bytes = frag.inline_last_updated_at_versions();
  } else if (!created && frag.has_external_last_updated_at_versions()) {
    LANCEDB_ASSIGN_OR_RETURN(bytes,
                             LoadSequenceBytes(fs, root, frag.external_last_updated_at_versions()));
  } else {
    return std::vector<uint64_t>{};
  }
  const std::string what = std::string(created ? "Created" : "Last-updated") +
                           " versions of fragment " + std::to_string(frag.id());
  auto versions = DecodeVersionSequence(bytes, static_cast<size_t>(frag.physical_rows()));
  if (!versions.ok()) return versions.status().WithContext(what);
  if (versions->size() != frag.physical_rows()) {
    return Status::Corruption(what + ": " + std::to_string(versions->size()) + " versions for " +
                              std::to_string(frag.physical_rows()) + " rows");
  }
  return versions;
}

}  // namespace lancedb::table
