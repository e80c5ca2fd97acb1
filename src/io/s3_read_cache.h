// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// S3ReadCache: the byte ranges and sizes of immutable objects already read, so that reopening
// a data file (its footer, metadata and pages are read again by every query) costs no request.
// Only objects that Lance never rewrites are cached (IsImmutableTableFile: data files,
// deletion files, index files — all named with a UUID or a version and a random part);
// manifests are not, since a table dropped and created again reuses their names. Bounded in
// bytes, least recently used evicted first. Thread-safety: internally synchronized.

#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "common/buffer.h"

namespace lancedb::io {

/// Whether `key` names an object Lance writes once and never replaces: `<table>/data/*.lance`,
/// `<table>/_deletions/*`, `<table>/_indices/<uuid>/*` (also under a branch, `<table>/tree/<b>/`).
bool IsImmutableTableFile(std::string_view key);

class S3ReadCache {
 public:
  explicit S3ReadCache(int64_t capacity_bytes) : capacity_(capacity_bytes) {}

  /// The bytes [offset, offset + length) of `key`, when a cached range holds them (a slice of
  /// it, no copy).
  BufferPtr Get(const std::string& key, int64_t offset, int64_t length);
  /// Remember `data` as the bytes of `key` from `offset`. Ranges larger than an eighth of the
  /// capacity are not kept.
  void Put(const std::string& key, int64_t offset, BufferPtr data);
  std::optional<int64_t> GetSize(const std::string& key);
  void PutSize(const std::string& key, int64_t size);
  /// The read-ahead for a read of `key` at `offset` that missed the cache: it doubles, up to
  /// `max`, while reads keep going forward just past the previous fetch (a take of sorted row
  /// ids, a scan in small pages), and starts again at `initial` otherwise.
  int64_t ReadAhead(const std::string& key, int64_t offset, int64_t initial, int64_t max);
  /// Record that a fetch of `key` ended at `end`.
  void Fetched(const std::string& key, int64_t end);
  /// Forget everything about `key` and, when `prefix`, every key starting with it.
  void Invalidate(const std::string& key, bool prefix);

  int64_t cached_bytes() const;

 private:
  using Lru = std::list<std::pair<std::string, int64_t>>;  // (key, offset), most recent first
  struct Range {
    BufferPtr data;
    Lru::iterator lru;
  };
  struct Entry {
    std::map<int64_t, Range> ranges;  // by offset
    std::optional<int64_t> size;
    int64_t fetched_end = -1;  // where the last fetch ended (ReadAhead)
    int64_t read_ahead = 0;
  };

  void EraseRangeLocked(std::map<std::string, Entry>::iterator entry,
                        std::map<int64_t, Range>::iterator range);
  void EvictLocked();

  const int64_t capacity_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;  // guarded by mu_
  Lru lru_;                               // guarded by mu_
  int64_t bytes_ = 0;                     // guarded by mu_
};

}  // namespace lancedb::io
