// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// BTREE index in Lance's layout (docs/format/scalar-index.md):
//   page_data.lance    values: <column type>, ids: uint64 — every indexed row, sorted by value
//                      (nulls first, then ascending; ties by row id), read in logical pages of
//                      4096 rows;
//   page_lookup.lance  min, max: <column type>, null_count: uint32, page_idx: uint32 — one row
//                      per page: its first and last value (so min is NULL when the page holds a
//                      null), metadata batch_size=4096, range_partitioned=false.
// A search reads the lookup (once, at open), picks the pages whose [min, max] can hold a match
// and filters their rows exactly. Decoded pages are kept in a small per-segment cache.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <list>
#include <map>
#include <mutex>
#include <numeric>

#include "format/file_writer.h"
#include "index/scalar/scalar_index_internal.h"

namespace lancedb::index::scalar {

namespace {

/// Row permutation of `keys` sorting nulls first (by row id), then by key, then by row id.
/// An order-preserving uint64 image of a fixed-width key: signed integers with the sign bit
/// flipped, doubles in Lance's total order (-0 = +0, every NaN above +inf).
uint64_t OrderedBits(const expr::Vec& keys, int64_t i) {
  switch (keys.kind) {
    case expr::ValueKind::kFloat: {
      const double d = keys.floats[static_cast<size_t>(i)] + 0.0;  // -0 becomes +0
      if (std::isnan(d)) return ~uint64_t{0};
      uint64_t bits = 0;
      std::memcpy(&bits, &d, sizeof(bits));
      return (bits >> 63) ? ~bits : bits | (uint64_t{1} << 63);
    }
    case expr::ValueKind::kBool:
      return keys.bools[static_cast<size_t>(i)] ? 1 : 0;
    default: {
      const auto v = static_cast<uint64_t>(keys.ints[static_cast<size_t>(i)]);
      return keys.is_unsigned ? v : v ^ (uint64_t{1} << 63);
    }
  }
}

/// The order of the index's rows: nulls first, then by key; equal keys by row id.
std::vector<int64_t> SortPermutation(const expr::Vec& keys, const std::vector<uint64_t>& ids) {
  std::vector<int64_t> nulls, valid;
  for (int64_t i = 0; i < keys.length; ++i) (keys.IsValid(i) ? valid : nulls).push_back(i);
  std::sort(nulls.begin(), nulls.end(), [&](int64_t a, int64_t b) { return ids[a] < ids[b]; });
  if (keys.kind == expr::ValueKind::kString) {
    std::sort(valid.begin(), valid.end(), [&](int64_t a, int64_t b) {
      const int c = keys.strings[a].compare(keys.strings[b]);
      return c != 0 ? c < 0 : ids[a] < ids[b];
    });
  } else {
    // Fixed-width keys: sort contiguous (key, id, row) entries, not an index into the columns
    // (several times faster on large columns).
    struct Entry {
      uint64_t key;
      uint64_t id;
      int64_t row;
    };
    std::vector<Entry> entries(valid.size());
    for (size_t k = 0; k < valid.size(); ++k) {
      entries[k] = {OrderedBits(keys, valid[k]), ids[static_cast<size_t>(valid[k])], valid[k]};
    }
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
      return a.key != b.key ? a.key < b.key : a.id < b.id;
    });
    for (size_t k = 0; k < entries.size(); ++k) valid[k] = entries[k].row;
  }
  nulls.insert(nulls.end(), valid.begin(), valid.end());
  return nulls;
}

array::ArrayPtr U64Array(std::vector<uint64_t> values) {
  const auto n = static_cast<int64_t>(values.size());
  return array::ArrayData::Make(array::uint64(), n, {nullptr, Buffer::FromVector(values)});
}

array::ArrayPtr U32Array(const std::vector<uint32_t>& values) {
  const auto n = static_cast<int64_t>(values.size());
  return array::ArrayData::Make(array::uint32(), n, {nullptr, Buffer::FromVector(values)});
}

/// One decoded page: its keys and row ids.
struct Page {
  expr::Vec keys;
  std::vector<uint64_t> ids;
};
using PagePtr = std::shared_ptr<const Page>;

class BTreeIndex final : public ScalarIndex {
 public:
  BTreeIndex(std::unique_ptr<format::FileReader> data, expr::ValueKind kind, expr::Vec mins,
             expr::Vec maxes, std::vector<uint32_t> null_counts, int64_t page_rows)
      : data_(std::move(data)),
        kind_(kind),
        mins_(std::move(mins)),
        maxes_(std::move(maxes)),
        null_counts_(std::move(null_counts)),
        page_rows_(page_rows) {
    values_field_ = data_->schema().fields()[0].id;
    ids_field_ = data_->schema().fields()[1].id;
  }

  ScalarIndexType type() const override { return ScalarIndexType::kBTree; }
  expr::ValueKind key_kind() const override { return kind_; }
  bool Supports(ScalarQuery::Kind kind) const override {
    return kind == ScalarQuery::Kind::kEquals || kind == ScalarQuery::Kind::kRange ||
           kind == ScalarQuery::Kind::kIn || kind == ScalarQuery::Kind::kIsNull;
  }
  int64_t pages_loaded() const override {
    std::lock_guard lock(mu_);
    return loads_;
  }

  Result<IndexEntries> ReadAll() const override {
    LANCEDB_ASSIGN_OR_RETURN(auto batch,
                             data_->Read({values_field_, ids_field_}, 0, data_->num_rows()));
    IndexEntries out;
    out.keys = batch->column(0);
    const auto& ids = batch->column(1);
    out.row_ids.assign(ids->GetValues<uint64_t>(1), ids->GetValues<uint64_t>(1) + ids->length);
    return out;
  }

  Result<SearchResult> Search(const ScalarQuery& q) const override {
    SearchResult out;
    if (q.kind == ScalarQuery::Kind::kIsNull) {
      LANCEDB_ASSIGN_OR_RETURN(out.true_rows, NullRows());
      return out;
    }
    if (q.kind == ScalarQuery::Kind::kIn) {
      for (const Key& v : q.values) {
        ScalarQuery eq;
        eq.values = {v};
        LANCEDB_ASSIGN_OR_RETURN(auto one, Search(eq));
        out.true_rows.UnionWith(one.true_rows);
      }
    } else {
      const Key* lo =
          q.kind == ScalarQuery::Kind::kEquals ? &q.values[0] : (q.lower ? &*q.lower : nullptr);
      const Key* hi =
          q.kind == ScalarQuery::Kind::kEquals ? &q.values[0] : (q.upper ? &*q.upper : nullptr);
      const bool lo_inc = q.kind == ScalarQuery::Kind::kEquals || q.lower_inclusive;
      const bool hi_inc = q.kind == ScalarQuery::Kind::kEquals || q.upper_inclusive;
      LANCEDB_RETURN_NOT_OK(SearchRange(lo, lo_inc, hi, hi_inc, &out.true_rows));
    }
    LANCEDB_ASSIGN_OR_RETURN(out.null_rows, NullRows());
    return out;
  }

 private:
  int64_t num_pages() const { return static_cast<int64_t>(null_counts_.size()); }

  /// Rows whose key is in the range (either bound may be absent).
  Status SearchRange(const Key* lo, bool lo_inc, const Key* hi, bool hi_inc,
                     RowAddrSet* out) const {
    auto above_lo = [&](int c) { return lo_inc ? c >= 0 : c > 0; };  // c = cmp(value, lo)
    auto below_hi = [&](int c) { return hi_inc ? c <= 0 : c < 0; };  // c = cmp(value, hi)
    std::vector<uint64_t> found;  // row ids in key order: sorted once, added in bulk
    for (int64_t p = 0; p < num_pages(); ++p) {
      if (!maxes_.IsValid(p)) continue;  // every row of the page is NULL
      if (lo && !above_lo(CompareAt(maxes_, p, *lo))) continue;
      // A NULL min means the page starts with nulls: its values start after the previous max.
      if (hi && mins_.IsValid(p) && !below_hi(CompareAt(mins_, p, *hi))) break;
      LANCEDB_ASSIGN_OR_RETURN(PagePtr page, LoadPage(p));
      const expr::Vec& keys = page->keys;
      // The page's values are sorted, its nulls first: binary-search the first row at or
      // above `lo`, then take rows while they stay below `hi`.
      int64_t first = std::min<int64_t>(null_counts_[static_cast<size_t>(p)], keys.length);
      while (first < keys.length && !keys.IsValid(first)) ++first;
      if (lo) {
        int64_t a = first, b = keys.length;
        while (a < b) {
          const int64_t mid = a + (b - a) / 2;
          if (keys.IsValid(mid) && above_lo(CompareAt(keys, mid, *lo))) {
            b = mid;
          } else {
            a = mid + 1;
          }
        }
        first = a;
      }
      int64_t last = first;
      bool ended = false;  // a key at or above `hi`: the range ends in this page
      while (last < keys.length && keys.IsValid(last)) {
        if (hi && !below_hi(CompareAt(keys, last, *hi))) {
          ended = true;
          break;
        }
        ++last;
      }
      found.insert(found.end(), page->ids.begin() + first, page->ids.begin() + last);
      if (ended) break;
    }
    std::sort(found.begin(), found.end());
    out->AddMany(found.data(), found.size());
    return Status::OK();
  }

  /// Rows whose value is NULL (the first rows of the index), computed once.
  Result<RowAddrSet> NullRows() const {
    {
      std::lock_guard lock(mu_);
      if (null_rows_) return *null_rows_;
    }
    RowAddrSet nulls;
    for (int64_t p = 0; p < num_pages() && null_counts_[static_cast<size_t>(p)] > 0; ++p) {
      LANCEDB_ASSIGN_OR_RETURN(PagePtr page, LoadPage(p));
      nulls.AddMany(page->ids.data(), null_counts_[static_cast<size_t>(p)]);
    }
    std::lock_guard lock(mu_);
    null_rows_ = nulls;
    return nulls;
  }

  Result<PagePtr> LoadPage(int64_t p) const {
    {
      std::lock_guard lock(mu_);
      auto it = cache_.find(p);
      if (it != cache_.end()) {
        lru_.splice(lru_.begin(), lru_, it->second.second);
        return it->second.first;
      }
    }
    const int64_t start = p * page_rows_;
    const int64_t rows = std::min(page_rows_, data_->num_rows() - start);
    if (rows <= 0) return Status::Corruption("BTREE page " + std::to_string(p) + " is empty");
    LANCEDB_ASSIGN_OR_RETURN(auto batch, data_->Read({values_field_, ids_field_}, start, rows));
    auto page = std::make_shared<Page>();
    LANCEDB_ASSIGN_OR_RETURN(page->keys, expr::FromArray(batch->column(0), kind_));
    const auto& ids = batch->column(1);
    if (ids->type->id() != array::TypeId::kUInt64 || ids->null_count != 0) {
      return Status::Corruption("BTREE page_data ids must be non-null uint64");
    }
    page->ids.assign(ids->GetValues<uint64_t>(1), ids->GetValues<uint64_t>(1) + ids->length);
    std::lock_guard lock(mu_);
    ++loads_;
    lru_.push_front(p);
    cache_[p] = {page, lru_.begin()};
    if (cache_.size() > kCachedPages) {
      cache_.erase(lru_.back());
      lru_.pop_back();
    }
    return PagePtr(page);
  }

  // Decoded pages kept per index (LRU): 4096 pages of 4096 rows, 256 MiB for int64 keys,
  // hold a 16M-row index whole, as LanceDB's index cache does.
  static constexpr size_t kCachedPages = 4096;

  std::unique_ptr<format::FileReader> data_;
  int32_t values_field_ = 0;
  int32_t ids_field_ = 1;
  expr::ValueKind kind_;
  expr::Vec mins_, maxes_;
  std::vector<uint32_t> null_counts_;
  int64_t page_rows_;
  mutable std::mutex mu_;
  mutable std::optional<RowAddrSet> null_rows_;
  mutable std::list<int64_t> lru_;
  mutable std::map<int64_t, std::pair<PagePtr, std::list<int64_t>::iterator>> cache_;
  mutable int64_t loads_ = 0;
};

}  // namespace

Result<std::vector<WrittenFile>> BuildBTree(const io::FileSystemPtr& fs, const std::string& dir,
                                            const array::DataTypePtr& column_type,
                                            const std::vector<BuildInput>& inputs) {
  LANCEDB_ASSIGN_OR_RETURN(auto kind, expr::KindOf(*column_type));
  std::vector<array::ArrayPtr> parts;
  std::vector<uint64_t> ids;
  for (const auto& in : inputs) {
    parts.push_back(in.values);
    ids.insert(ids.end(), in.row_ids.begin(), in.row_ids.end());
  }
  array::ArrayPtr all = parts.empty() ? array::MakeNullArray(column_type, 0) : parts[0];
  if (parts.size() > 1) {
    LANCEDB_ASSIGN_OR_RETURN(all, array::Concatenate(parts));
  }
  LANCEDB_ASSIGN_OR_RETURN(auto keys, expr::FromArray(all, kind));
  const std::vector<int64_t> perm = SortPermutation(keys, ids);
  keys = expr::Vec();  // not needed past the sort: keep the build's peak memory down
  LANCEDB_ASSIGN_OR_RETURN(auto sorted, array::Take(all, perm));
  std::vector<uint64_t> sorted_ids(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) sorted_ids[k] = ids[static_cast<size_t>(perm[k])];
  const int64_t n = static_cast<int64_t>(perm.size());
  const int64_t nulls = all->null_count;

  // page_data.lance, one batch per page.
  auto data_schema = array::schema(
      {array::field("values", column_type, true), array::field("ids", array::uint64(), false)});
  std::vector<array::RecordBatchPtr> pages;
  std::vector<int64_t> firsts, lasts;
  std::vector<uint32_t> null_counts, page_idx;
  for (int64_t start = 0, p = 0; start < n; start += kBTreePageRows, ++p) {
    const int64_t rows = std::min(kBTreePageRows, n - start);
    std::vector<uint64_t> page_ids(sorted_ids.begin() + start, sorted_ids.begin() + start + rows);
    LANCEDB_ASSIGN_OR_RETURN(
        auto batch,
        array::RecordBatch::Make(
            data_schema, {array::Slice(sorted, start, rows), U64Array(std::move(page_ids))}, rows));
    pages.push_back(std::move(batch));
    firsts.push_back(start);
    lasts.push_back(start + rows - 1);
    null_counts.push_back(static_cast<uint32_t>(std::clamp<int64_t>(nulls - start, 0, rows)));
    page_idx.push_back(static_cast<uint32_t>(p));
  }
  std::vector<WrittenFile> files;
  LANCEDB_ASSIGN_OR_RETURN(auto data_file,
                           WriteIndexFile(fs, dir, kBTreeDataFile, data_schema, pages, {}, {},
                                          /*page_rows=*/kBTreePageRows));
  files.push_back(std::move(data_file));
  // page_lookup.lance.
  auto lookup_schema =
      array::schema({array::field("min", column_type, true), array::field("max", column_type, true),
                     array::field("null_count", array::uint32(), false),
                     array::field("page_idx", array::uint32(), false)});
  LANCEDB_ASSIGN_OR_RETURN(auto mins, array::Take(sorted, firsts));
  LANCEDB_ASSIGN_OR_RETURN(auto maxes, array::Take(sorted, lasts));
  LANCEDB_ASSIGN_OR_RETURN(
      auto lookup, array::RecordBatch::Make(
                       lookup_schema, {mins, maxes, U32Array(null_counts), U32Array(page_idx)},
                       static_cast<int64_t>(firsts.size())));
  LANCEDB_ASSIGN_OR_RETURN(auto lookup_file,
                           WriteIndexFile(fs, dir, kBTreeLookupFile, lookup_schema, {lookup},
                                          {{"batch_size", std::to_string(kBTreePageRows)},
                                           {"range_partitioned", "false"}}));
  files.push_back(std::move(lookup_file));
  return files;
}

Result<std::shared_ptr<const ScalarIndex>> OpenBTree(const io::FileSystemPtr& fs,
                                                     const std::string& dir,
                                                     const array::DataTypePtr& column_type) {
  LANCEDB_ASSIGN_OR_RETURN(auto kind, expr::KindOf(*column_type));
  LANCEDB_ASSIGN_OR_RETURN(auto lookup_file, OpenIndexFile(fs, dir, kBTreeLookupFile));
  LANCEDB_ASSIGN_OR_RETURN(auto data, OpenIndexFile(fs, dir, kBTreeDataFile));
  const auto& lookup_fields = lookup_file->schema().fields();
  if (lookup_fields.size() < 3 || data->schema().fields().size() < 2) {
    return Status::Corruption("BTREE index in '" + dir + "' lacks its lookup or data columns");
  }
  int64_t page_rows = kBTreePageRows;
  for (const auto& [k, v] : lookup_file->schema().metadata()) {
    if (k == "batch_size") page_rows = std::max<int64_t>(1, std::atoll(v.c_str()));
  }
  std::vector<int32_t> field_ids;
  for (size_t f = 0; f < 3; ++f) field_ids.push_back(lookup_fields[f].id);
  LANCEDB_ASSIGN_OR_RETURN(auto lookup, lookup_file->Read(field_ids, 0, lookup_file->num_rows()));
  LANCEDB_ASSIGN_OR_RETURN(auto mins, expr::FromArray(lookup->column(0), kind));
  LANCEDB_ASSIGN_OR_RETURN(auto maxes, expr::FromArray(lookup->column(1), kind));
  const auto& counts = lookup->column(2);
  if (counts->type->id() != array::TypeId::kUInt32) {
    return Status::Corruption("BTREE page_lookup null_count must be uint32");
  }
  std::vector<uint32_t> null_counts(counts->GetValues<uint32_t>(1),
                                    counts->GetValues<uint32_t>(1) + counts->length);
  return std::shared_ptr<const ScalarIndex>(std::make_shared<BTreeIndex>(
      std::move(data), kind, std::move(mins), std::move(maxes), std::move(null_counts), page_rows));
}

}  // namespace lancedb::index::scalar
