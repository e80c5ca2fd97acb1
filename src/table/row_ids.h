// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Stable row ids (lance-format.md §3): a fragment's RowIdSequence gives the row id of each of
// its physical rows (deleted rows included), as a list of U64Segments — Range, RangeWithHoles,
// RangeWithBitmap (bit i, LSB-first within each byte, set when start + i is present),
// sorted_array and array, whose values are EncodedU64Array (U16/U32 offsets from a base, or raw
// U64, all little endian). The created-at and last-updated-at version sequences are positional
// runs: each run gives one version to as many rows as its span segment holds.
// Thread-safety: stateless functions.

#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "io/file_system.h"
#include "lancedb/status.h"
#include "table/manifest.h"
#include "table/proto/rowids.pb.h"

namespace lancedb::table {

/// Append the values of `segment` to `out`; Corruption when `out` would exceed `max_values`
/// or the segment is malformed (a hole or bitmap outside its range, odd-sized arrays).
Status AppendSegment(const pb::U64Segment& segment, size_t max_values, std::vector<uint64_t>* out);

/// Decode a serialized RowIdSequence into one id per row (at most `max_rows`).
Result<std::vector<uint64_t>> DecodeRowIdSequence(std::string_view bytes, size_t max_rows);

/// Decode a serialized RowDatasetVersionSequence into one version per row (at most `max_rows`).
Result<std::vector<uint64_t>> DecodeVersionSequence(std::string_view bytes, size_t max_rows);

/// The row ids of every physical row of `frag` (inline or external sequence). Corruption when
/// the fragment has none or their count differs from physical_rows.
Result<std::vector<uint64_t>> FragmentRowIds(io::FileSystem& fs, const std::string& root,
                                             const pb::DataFragment& frag);

/// The created-at (`created` true) or last-updated-at versions of every physical row of
/// `frag`; an empty vector when the fragment records none.
Result<std::vector<uint64_t>> FragmentRowVersions(io::FileSystem& fs, const std::string& root,
                                                  const pb::DataFragment& frag, bool created);

}  // namespace lancedb::table
