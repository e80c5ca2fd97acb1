// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// A process-wide cache of opened index segments (scalar, FTS), by table path and segment uuid:
// a query reuses the segments an earlier one opened, and segments a table no longer registers
// (replaced, optimized, remapped, dropped) are released.
// Thread-safety: internally synchronized; cached segments are immutable.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "lancedb/status.h"

namespace lancedb::index {

template <typename T>
class SegmentCache {
 public:
  using Ptr = std::shared_ptr<const T>;

  /// The segment `uuid` of table `path`, opened with `open` when not cached yet.
  Result<Ptr> GetOrOpen(const std::string& path, const std::string& uuid,
                        const std::function<Result<Ptr>()>& open) {
    const std::string key = path + "#" + uuid;
    {
      std::lock_guard lock(mu_);
      auto it = entries_.find(key);
      if (it != entries_.end()) return it->second;
    }
    LANCEDB_ASSIGN_OR_RETURN(Ptr opened, open());  // without the lock: opening reads files
    std::lock_guard lock(mu_);
    return entries_.emplace(key, std::move(opened)).first->second;
  }

  /// Forget the segments of table `path` whose uuid is not in `registered` (an older snapshot
  /// that still registers one opens it again when it needs it).
  void Retain(const std::string& path, const std::set<std::string>& registered) {
    const std::string prefix = path + "#";
    std::lock_guard lock(mu_);
    for (auto it = entries_.lower_bound(prefix);
         it != entries_.end() && it->first.compare(0, prefix.size(), prefix) == 0;) {
      it = registered.count(it->first.substr(prefix.size())) ? std::next(it) : entries_.erase(it);
    }
  }

  size_t size() const {
    std::lock_guard lock(mu_);
    return entries_.size();
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, Ptr> entries_;
};

}  // namespace lancedb::index
