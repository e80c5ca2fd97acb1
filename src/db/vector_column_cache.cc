// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "db/vector_column_cache.h"

#include <unistd.h>

#include <list>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include "format/file_reader.h"
#include "table/dataset_impl.h"

namespace lancedb::db {

namespace {

int64_t ArrayBytes(const array::ArrayData& a) {
  int64_t bytes = 0;
  for (const auto& b : a.buffers) bytes += b ? b->size() : 0;
  for (const auto& c : a.children) bytes += c ? ArrayBytes(*c) : 0;
  return bytes;
}

int64_t DefaultBudget() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return int64_t{1} << 30;
  return static_cast<int64_t>(pages) * page_size / 4;
}

/// Least-recently-used map from "path#field" to a column. Internally synchronized.
class ColumnCache {
 public:
  array::ArrayPtr Get(const std::string& key) {
    std::lock_guard lock(mu_);
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    lru_.splice(lru_.begin(), lru_, it->second);
    return it->second->second;
  }

  void Put(const std::string& key, const array::ArrayPtr& column) {
    const int64_t bytes = ArrayBytes(*column);
    std::lock_guard lock(mu_);
    if (bytes > budget_ || index_.count(key)) return;
    while (bytes_ + bytes > budget_ && !lru_.empty()) {
      bytes_ -= ArrayBytes(*lru_.back().second);
      index_.erase(lru_.back().first);
      lru_.pop_back();
    }
    lru_.emplace_front(key, column);
    index_[key] = lru_.begin();
    bytes_ += bytes;
  }

  void Clear() {
    std::lock_guard lock(mu_);
    lru_.clear();
    index_.clear();
    bytes_ = 0;
  }

  int64_t bytes() {
    std::lock_guard lock(mu_);
    return bytes_;
  }

 private:
  using Entry = std::pair<std::string, array::ArrayPtr>;
  std::mutex mu_;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  int64_t bytes_ = 0;
  const int64_t budget_ = DefaultBudget();
};

ColumnCache& GetCache() {
  static ColumnCache* cache = new ColumnCache();
  return *cache;
}

}  // namespace

Result<array::ArrayPtr> ResidentFragmentColumn(const table::Dataset& dataset,
                                               const table::pb::DataFragment& fragment,
                                               int32_t field_id) {
  const format::LanceField* field = dataset.lance_schema().FindById(field_id);
  if (field == nullptr || field->parent_id != -1) {
    return Status::Internal("ResidentFragmentColumn: no top-level field " +
                            std::to_string(field_id));
  }
  const int holder = table::FieldHolders(fragment, {*field})[0];
  if (holder < 0) return array::ArrayPtr();
  const auto& file = fragment.files(holder);
  LANCEDB_ASSIGN_OR_RETURN(auto path,
                           table::DataFilePath(dataset.manifest().proto(), dataset.path(), file));
  const std::string key = path + "#" + std::to_string(field_id);
  ColumnCache& cache = GetCache();
  if (auto hit = cache.Get(key)) return hit;
  const int64_t size =
      file.file_size_bytes() > 0 ? static_cast<int64_t>(file.file_size_bytes()) : -1;
  LANCEDB_ASSIGN_OR_RETURN(auto reader, format::FileReader::Open(dataset.fs(), path, size));
  LANCEDB_ASSIGN_OR_RETURN(auto batch, reader->Read({field_id}, 0, reader->num_rows()));
  array::ArrayPtr column = batch->column(0);
  cache.Put(key, column);
  return column;
}

void ClearResidentColumnCache() { GetCache().Clear(); }

int64_t ResidentColumnCacheBytes() { return GetCache().bytes(); }

}  // namespace lancedb::db
