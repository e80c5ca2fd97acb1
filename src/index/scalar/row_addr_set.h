// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// RowAddrSet: a set of 64-bit row addresses ((fragment id << 32) | offset) or stable row ids,
// held as one 32-bit Roaring bitmap per high half, as Lance's RowIdTreeMap. Its serialized form
// is Lance's (lance-format.md §4; docs/format/scalar-index.md): u32 number of entries, then per
// entry in ascending high half: u32 high half, u32 byte size, a portable Roaring bitmap of the
// low halves; size 0 selects a whole fragment. Thread-compatible value type.

#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <roaring/roaring.hh>
#include <string>
#include <string_view>
#include <vector>

#include "lancedb/status.h"

namespace lancedb::index::scalar {

class RowAddrSet {
 public:
  RowAddrSet() = default;

  void Add(uint64_t id) { map_[static_cast<uint32_t>(id >> 32)].add(static_cast<uint32_t>(id)); }
  /// Add `n` ids, in any order.
  void AddMany(const uint64_t* ids, size_t n);
  /// Add the ids [high << 32 | begin, high << 32 | end).
  void AddRange(uint32_t high, uint64_t begin, uint64_t end);
  bool Contains(uint64_t id) const;
  uint64_t Cardinality() const;
  bool empty() const;

  void UnionWith(const RowAddrSet& other);
  void IntersectWith(const RowAddrSet& other);
  void Subtract(const RowAddrSet& other);
  /// Keep only the ids whose high half satisfies `keep`.
  void FilterHigh(const std::function<bool(uint32_t)>& keep);

  /// The ids, ascending.
  std::vector<uint64_t> ToVector() const;
  /// The bitmap of each high half (fragment), ascending.
  const std::map<uint32_t, Roaring>& by_high() const { return map_; }

  /// Lance's RowIdTreeMap bytes.
  std::string Serialize() const;
  /// Parse Lance's RowIdTreeMap bytes. A whole-fragment entry is expanded to the offsets
  /// [0, rows) with `fragment_rows(high)`; without that callback it is NotSupported.
  /// Corruption (naming `what`) for malformed bytes.
  static Result<RowAddrSet> Deserialize(
      std::string_view bytes, std::string_view what,
      const std::function<Result<uint64_t>(uint32_t)>& fragment_rows = nullptr);

  bool operator==(const RowAddrSet& other) const;

 private:
  void DropEmpty();
  std::map<uint32_t, Roaring> map_;
};

}  // namespace lancedb::index::scalar
