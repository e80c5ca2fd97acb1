// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Deletion files (lance-format.md §3): the deleted row offsets of one fragment, stored as
// `_deletions/{fragment_id}-{read_version}-{id}.arrow` (an Arrow IPC file with one non-null
// uint32 column `row_id`) or `.bin` (a portable 32-bit Roaring bitmap). Offsets are positions
// within the fragment (physical rows). Stateless functions; safe from any thread.

#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/buffer.h"
#include "io/file_system.h"
#include "table/manifest.h"

namespace lancedb::table {

/// More deleted rows than this in one fragment are written as a Roaring bitmap.
inline constexpr size_t kMaxArrowDeletionRows = 5000;

/// The root that files with `base_id` live under (BasePath.path), or `root` when unset.
/// NotFound when the manifest has no such base path.
Result<std::string> ResolveBaseRoot(const pb::Manifest& manifest, const std::string& root,
                                    std::optional<uint32_t> base_id, bool* is_dataset_root);

/// Path of the deletion file of fragment `fragment_id` described by `file`.
std::string DeletionFileName(uint64_t fragment_id, const pb::DeletionFile& file);

/// Decode an Arrow IPC deletion file into sorted unique offsets. Corruption for bad bytes.
Result<std::vector<uint32_t>> DecodeArrowDeletions(const BufferPtr& bytes);
/// Decode a portable Roaring bitmap deletion file into sorted offsets.
Result<std::vector<uint32_t>> DecodeBitmapDeletions(const Buffer& bytes);
/// Encode sorted unique offsets as an Arrow IPC file / a portable Roaring bitmap.
Result<BufferPtr> EncodeArrowDeletions(const std::vector<uint32_t>& offsets);
std::string EncodeBitmapDeletions(const std::vector<uint32_t>& offsets);

/// Read the deleted offsets of `fragment` (sorted, unique); empty without a deletion file.
Result<std::vector<uint32_t>> ReadDeletions(io::FileSystem& fs, const std::string& root,
                                            const pb::Manifest& manifest,
                                            const pb::DataFragment& fragment);

/// Write a new deletion file for `fragment_id` holding `offsets` (sorted, unique, non-empty):
/// Arrow for up to kMaxArrowDeletionRows rows, a bitmap beyond. Returns its description.
Result<pb::DeletionFile> WriteDeletions(io::FileSystem& fs, const std::string& root,
                                        uint64_t fragment_id, uint64_t read_version,
                                        const std::vector<uint32_t>& offsets);

/// Sorted union of two sorted unique offset lists.
std::vector<uint32_t> UnionOffsets(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b);

}  // namespace lancedb::table
