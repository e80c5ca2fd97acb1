// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "table/stable_row_ids.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <utility>

#include "table/deletion.h"
#include "table/manifest.h"
#include "table/row_ids.h"

namespace lancedb::table {

bool UsesStableRowIds(const Dataset& dataset) {
  return (dataset.manifest().proto().reader_feature_flags() & kFlagStableRowIds) != 0;
}

namespace {

/// [start, end) when the fragment's ids are one inline Range segment covering all its rows.
std::optional<std::pair<uint64_t, uint64_t>> SingleRange(const pb::DataFragment& frag) {
  if (!frag.has_inline_row_ids()) return std::nullopt;
  pb::RowIdSequence sequence;
  if (!sequence.ParseFromString(frag.inline_row_ids())) return std::nullopt;
  if (sequence.segments_size() != 1 || !sequence.segments(0).has_range()) return std::nullopt;
  const auto& range = sequence.segments(0).range();
  if (range.end() < range.start() || range.end() - range.start() != frag.physical_rows()) {
    return std::nullopt;
  }
  return std::make_pair(range.start(), range.end());
}

/// Resolve the wanted ids of a fragment whose ids are the range [start, end): an id's offset
/// is id - start, without decoding the sequence.
Status ResolveInRange(const Dataset& dataset, const pb::DataFragment& frag,
                      std::pair<uint64_t, uint64_t> range, const std::vector<uint64_t>& sorted,
                      std::unordered_map<uint64_t, uint64_t>* wanted, size_t* found) {
  auto first = std::lower_bound(sorted.begin(), sorted.end(), range.first);
  auto last = std::lower_bound(first, sorted.end(), range.second);
  if (first == last) return Status::OK();
  std::vector<uint32_t> deleted;
  if (frag.has_deletion_file()) {
    LANCEDB_ASSIGN_OR_RETURN(
        deleted, ReadDeletions(*dataset.fs(), dataset.path(), dataset.manifest().proto(), frag));
  }
  for (auto it = first; it != last; ++it) {
    const auto offset = static_cast<uint32_t>(*it - range.first);
    if (std::binary_search(deleted.begin(), deleted.end(), offset)) continue;
    uint64_t& address = (*wanted)[*it];
    if (address == UINT64_MAX) {
      address = (frag.id() << 32) | offset;
      ++*found;
    }
  }
  return Status::OK();
}

}  // namespace

Result<std::vector<uint64_t>> RowIdsToAddresses(const Dataset& dataset,
                                                const std::vector<uint64_t>& ids) {
  std::unordered_map<uint64_t, uint64_t> wanted;
  wanted.reserve(ids.size());
  for (uint64_t id : ids) wanted.emplace(id, UINT64_MAX);
  std::vector<uint64_t> sorted;
  sorted.reserve(wanted.size());
  for (const auto& entry : wanted) sorted.push_back(entry.first);
  std::sort(sorted.begin(), sorted.end());
  size_t found = 0;
  for (const auto& frag : dataset.manifest().proto().fragments()) {
    if (found == wanted.size()) break;
    if (auto range = SingleRange(frag)) {
      LANCEDB_RETURN_NOT_OK(ResolveInRange(dataset, frag, *range, sorted, &wanted, &found));
      continue;
    }
    LANCEDB_ASSIGN_OR_RETURN(auto frag_ids, FragmentRowIds(*dataset.fs(), dataset.path(), frag));
    // A deleted row's id may live on in a rewritten copy (update, compaction): skip it.
    std::vector<uint32_t> deleted;
    if (frag.has_deletion_file()) {
      LANCEDB_ASSIGN_OR_RETURN(
          deleted, ReadDeletions(*dataset.fs(), dataset.path(), dataset.manifest().proto(), frag));
    }
    size_t d = 0;
    for (size_t offset = 0; offset < frag_ids.size(); ++offset) {
      while (d < deleted.size() && deleted[d] < offset) ++d;
      if (d < deleted.size() && deleted[d] == offset) continue;
      auto it = wanted.find(frag_ids[offset]);
      if (it != wanted.end() && it->second == UINT64_MAX) {
        it->second = (frag.id() << 32) | offset;
        ++found;
      }
    }
  }
  std::vector<uint64_t> out;
  out.reserve(ids.size());
  for (uint64_t id : ids) {
    uint64_t addr = wanted[id];
    if (addr == UINT64_MAX) {
      return Status::InvalidArgument("Row id " + std::to_string(id) +
                                     " does not exist in version " +
                                     std::to_string(dataset.version()));
    }
    out.push_back(addr);
  }
  return out;
}

void EncodeRowIdSegment(const uint64_t* ids, size_t n, pb::U64Segment* segment) {
  bool contiguous = true, sorted = true;
  for (size_t i = 1; i < n; ++i) {
    contiguous = contiguous && ids[i] == ids[i - 1] + 1;
    sorted = sorted && ids[i] > ids[i - 1];
  }
  if (n > 0 && contiguous) {
    segment->mutable_range()->set_start(ids[0]);
    segment->mutable_range()->set_end(ids[0] + n);
    return;
  }
  std::string bytes(n * 8, '\0');
  for (size_t i = 0; i < n; ++i) {
    for (int b = 0; b < 8; ++b) bytes[i * 8 + b] = static_cast<char>((ids[i] >> (8 * b)) & 0xFF);
  }
  auto* array = sorted ? segment->mutable_sorted_array() : segment->mutable_array();
  array->mutable_u64_array()->set_values(std::move(bytes));
}

std::string EncodeVersionRuns(const uint64_t* versions, size_t n) {
  pb::RowDatasetVersionSequence seq;
  size_t start = 0;
  for (size_t i = 1; i <= n; ++i) {
    if (i == n || versions[i] != versions[start]) {
      auto* run = seq.add_runs();
      run->mutable_span()->mutable_range()->set_start(start);
      run->mutable_span()->mutable_range()->set_end(i);
      run->set_version(versions[start]);
      start = i;
    }
  }
  return seq.SerializeAsString();
}

}  // namespace lancedb::table
