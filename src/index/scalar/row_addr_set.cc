// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/scalar/row_addr_set.h"

#include <roaring/roaring.h>

#include <algorithm>
#include <cstring>

#include "common/int_util.h"

namespace lancedb::index::scalar {

void RowAddrSet::AddMany(const uint64_t* ids, size_t n) {
  size_t i = 0;
  std::vector<uint32_t> lows;
  while (i < n) {
    const uint32_t high = static_cast<uint32_t>(ids[i] >> 32);
    lows.clear();
    for (; i < n && static_cast<uint32_t>(ids[i] >> 32) == high; ++i) {
      lows.push_back(static_cast<uint32_t>(ids[i]));
    }
    map_[high].addMany(lows.size(), lows.data());
  }
}

void RowAddrSet::AddRange(uint32_t high, uint64_t begin, uint64_t end) {
  if (begin >= end) return;
  roaring_bitmap_add_range(&map_[high].roaring, begin, end);
}

bool RowAddrSet::Contains(uint64_t id) const {
  auto it = map_.find(static_cast<uint32_t>(id >> 32));
  return it != map_.end() && it->second.contains(static_cast<uint32_t>(id));
}

uint64_t RowAddrSet::Cardinality() const {
  uint64_t n = 0;
  for (const auto& [high, bitmap] : map_) n += bitmap.cardinality();
  return n;
}

bool RowAddrSet::empty() const {
  return std::all_of(map_.begin(), map_.end(), [](const auto& e) { return e.second.isEmpty(); });
}

void RowAddrSet::UnionWith(const RowAddrSet& other) {
  for (const auto& [high, bitmap] : other.map_) map_[high] |= bitmap;
}

void RowAddrSet::IntersectWith(const RowAddrSet& other) {
  for (auto it = map_.begin(); it != map_.end();) {
    auto o = other.map_.find(it->first);
    if (o == other.map_.end()) {
      it = map_.erase(it);
      continue;
    }
    it->second &= o->second;
    it = it->second.isEmpty() ? map_.erase(it) : std::next(it);
  }
}

void RowAddrSet::Subtract(const RowAddrSet& other) {
  for (const auto& [high, bitmap] : other.map_) {
    auto it = map_.find(high);
    if (it != map_.end()) it->second -= bitmap;
  }
  DropEmpty();
}

void RowAddrSet::FilterHigh(const std::function<bool(uint32_t)>& keep) {
  for (auto it = map_.begin(); it != map_.end();) {
    it = keep(it->first) ? std::next(it) : map_.erase(it);
  }
}

std::vector<uint64_t> RowAddrSet::ToVector() const {
  std::vector<uint64_t> out;
  out.reserve(Cardinality());
  std::vector<uint32_t> lows;
  for (const auto& [high, bitmap] : map_) {
    lows.resize(bitmap.cardinality());
    bitmap.toUint32Array(lows.data());
    const uint64_t base = uint64_t{high} << 32;
    for (uint32_t low : lows) out.push_back(base | low);
  }
  return out;
}

std::string RowAddrSet::Serialize() const {
  std::string out;
  auto put32 = [&](uint32_t v) {
    char b[4];
    std::memcpy(b, &v, 4);  // little-endian hosts only (x86-64, aarch64)
    out.append(b, 4);
  };
  uint32_t n = 0;
  for (const auto& [high, bitmap] : map_) n += bitmap.isEmpty() ? 0 : 1;
  put32(n);
  for (const auto& [high, bitmap] : map_) {
    if (bitmap.isEmpty()) continue;
    Roaring copy = bitmap;
    copy.runOptimize();
    const size_t size = copy.getSizeInBytes(/*portable=*/true);
    put32(high);
    put32(static_cast<uint32_t>(size));
    const size_t at = out.size();
    out.resize(at + size);
    copy.write(out.data() + at, /*portable=*/true);
  }
  return out;
}

Result<RowAddrSet> RowAddrSet::Deserialize(
    std::string_view bytes, std::string_view what,
    const std::function<Result<uint64_t>(uint32_t)>& fragment_rows) {
  auto bad = [&](const std::string& why) {
    return Status::Corruption(std::string(what) + ": bad row id set: " + why);
  };
  if (bytes.size() < 4) return bad("shorter than its header");
  const uint32_t n = int_util::LoadU32(reinterpret_cast<const uint8_t*>(bytes.data()));
  size_t pos = 4;
  RowAddrSet out;
  for (uint32_t e = 0; e < n; ++e) {
    if (bytes.size() - pos < 8) return bad("entry " + std::to_string(e) + " is truncated");
    const uint32_t high = int_util::LoadU32(reinterpret_cast<const uint8_t*>(bytes.data() + pos));
    const uint32_t size =
        int_util::LoadU32(reinterpret_cast<const uint8_t*>(bytes.data() + pos + 4));
    pos += 8;
    if (size == 0) {
      if (!fragment_rows) {
        return Status::NotSupported(std::string(what) + ": a whole-fragment entry (fragment " +
                                    std::to_string(high) + ") cannot be expanded here");
      }
      LANCEDB_ASSIGN_OR_RETURN(uint64_t rows, fragment_rows(high));
      out.AddRange(high, 0, rows);
      continue;
    }
    if (bytes.size() - pos < size) return bad("entry " + std::to_string(e) + " is truncated");
    roaring_bitmap_t* r = roaring_bitmap_portable_deserialize_safe(bytes.data() + pos, size);
    if (r == nullptr) return bad("entry " + std::to_string(e) + " is not a Roaring bitmap");
    out.map_[high] |= Roaring(r);
    pos += size;
  }
  if (pos != bytes.size()) return bad("trailing bytes");
  return out;
}

bool RowAddrSet::operator==(const RowAddrSet& other) const {
  RowAddrSet a = *this, b = other;
  a.DropEmpty();
  b.DropEmpty();
  return a.map_ == b.map_;
}

void RowAddrSet::DropEmpty() {
  for (auto it = map_.begin(); it != map_.end();) {
    it = it->second.isEmpty() ? map_.erase(it) : std::next(it);
  }
}

}  // namespace lancedb::index::scalar
