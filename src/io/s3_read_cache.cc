// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "io/s3_read_cache.h"

#include <algorithm>
#include <vector>

namespace lancedb::io {

bool IsImmutableTableFile(std::string_view key) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= key.size()) {
    size_t slash = key.find('/', start);
    if (slash == std::string_view::npos) slash = key.size();
    parts.push_back(key.substr(start, slash - start));
    start = slash + 1;
  }
  const size_t n = parts.size();
  if (n < 3 || parts[n - 1].empty()) return false;
  // Somewhere inside a table (or one of its branches, "<table>.lance/tree/<branch>/").
  auto in_table = [&](size_t below) {
    for (size_t i = 0; i < below; ++i) {
      if (parts[i].ends_with(".lance")) return true;
    }
    return false;
  };
  const std::string_view parent = parts[n - 2];
  if (parent == "data") return parts[n - 1].ends_with(".lance") && in_table(n - 2);
  if (parent == "_deletions") return in_table(n - 2);
  return n >= 4 && parts[n - 3] == "_indices" && in_table(n - 3);
}

BufferPtr S3ReadCache::Get(const std::string& key, int64_t offset, int64_t length) {
  std::lock_guard lock(mu_);
  auto entry = entries_.find(key);
  if (entry == entries_.end() || entry->second.ranges.empty()) return nullptr;
  auto& ranges = entry->second.ranges;
  auto it = ranges.upper_bound(offset);
  if (it == ranges.begin()) return nullptr;
  --it;
  const int64_t start = it->first;
  const BufferPtr& data = it->second.data;
  if (offset + length > start + data->size()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second.lru);
  return Buffer::Slice(data, offset - start, length);
}

void S3ReadCache::Put(const std::string& key, int64_t offset, BufferPtr data) {
  if (data == nullptr || data->size() == 0 || data->size() > capacity_ / 8) return;
  std::lock_guard lock(mu_);
  auto entry = entries_.try_emplace(key).first;
  auto& ranges = entry->second.ranges;
  if (auto it = ranges.find(offset); it != ranges.end()) {
    if (it->second.data->size() >= data->size()) return;
    EraseRangeLocked(entry, it);
  }
  lru_.emplace_front(key, offset);
  bytes_ += data->size();
  ranges.emplace(offset, Range{std::move(data), lru_.begin()});
  EvictLocked();
}

std::optional<int64_t> S3ReadCache::GetSize(const std::string& key) {
  std::lock_guard lock(mu_);
  auto entry = entries_.find(key);
  if (entry == entries_.end()) return std::nullopt;
  return entry->second.size;
}

void S3ReadCache::PutSize(const std::string& key, int64_t size) {
  std::lock_guard lock(mu_);
  entries_[key].size = size;
}

int64_t S3ReadCache::ReadAhead(const std::string& key, int64_t offset, int64_t initial,
                               int64_t max) {
  std::lock_guard lock(mu_);
  Entry& e = entries_[key];
  const int64_t current = std::max(e.read_ahead, initial);
  const bool forward =
      e.fetched_end >= 0 && offset >= e.fetched_end && offset - e.fetched_end <= 2 * current;
  e.read_ahead = forward ? std::min(max, 2 * current) : initial;
  return e.read_ahead;
}

void S3ReadCache::Fetched(const std::string& key, int64_t end) {
  std::lock_guard lock(mu_);
  entries_[key].fetched_end = end;
}

void S3ReadCache::Invalidate(const std::string& key, bool prefix) {
  std::lock_guard lock(mu_);
  auto it = entries_.lower_bound(key);
  while (it != entries_.end() && (it->first == key || (prefix && it->first.starts_with(key)))) {
    for (auto& [offset, range] : it->second.ranges) {
      bytes_ -= range.data->size();
      lru_.erase(range.lru);
    }
    it = entries_.erase(it);
  }
}

int64_t S3ReadCache::cached_bytes() const {
  std::lock_guard lock(mu_);
  return bytes_;
}

void S3ReadCache::EraseRangeLocked(std::map<std::string, Entry>::iterator entry,
                                   std::map<int64_t, Range>::iterator range) {
  bytes_ -= range->second.data->size();
  lru_.erase(range->second.lru);
  entry->second.ranges.erase(range);
}

void S3ReadCache::EvictLocked() {
  while (bytes_ > capacity_ && !lru_.empty()) {
    auto entry = entries_.find(lru_.back().first);
    EraseRangeLocked(entry, entry->second.ranges.find(lru_.back().second));
    if (entry->second.ranges.empty() && !entry->second.size) entries_.erase(entry);
  }
}

}  // namespace lancedb::io
