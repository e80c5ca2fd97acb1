// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "table/stable_row_ids.h"

#include <unordered_map>

#include "table/manifest.h"
#include "table/row_ids.h"

namespace lancedb::table {

bool UsesStableRowIds(const Dataset& dataset) {
  return (dataset.manifest().proto().reader_feature_flags() & kFlagStableRowIds) != 0;
}

Result<std::vector<uint64_t>> RowIdsToAddresses(const Dataset& dataset,
                                                const std::vector<uint64_t>& ids) {
  std::unordered_map<uint64_t, uint64_t> wanted;
  wanted.reserve(ids.size());
  for (uint64_t id : ids) wanted.emplace(id, UINT64_MAX);
  size_t found = 0;
  for (const auto& frag : dataset.manifest().proto().fragments()) {
    if (found == wanted.size()) break;
    LANCEDB_ASSIGN_OR_RETURN(auto frag_ids, FragmentRowIds(*dataset.fs(), dataset.path(), frag));
    for (size_t offset = 0; offset < frag_ids.size(); ++offset) {
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
      return Status::InvalidArgument("Row id " + std::to_string(id) + " does not exist in version " +
                                     std::to_string(dataset.version()));
    }
    out.push_back(addr);
  }
  return out;
}

}  // namespace lancedb::table
