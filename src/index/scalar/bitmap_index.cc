// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// BITMAP and LABEL_LIST indices in Lance's layout (docs/format/scalar-index.md): one file,
// bitmap_page_lookup.lance, with columns keys: <column or item type> and bitmaps: binary — one
// row per distinct value (a NULL key for the rows whose value, or one of whose items, is NULL),
// each bitmap the RowAddrSet of the rows holding it — and metadata
// lance:index_stats={"num_bitmaps":N}. LABEL_LIST also keeps, in global buffer 1 named by
// lance:label_list_nulls="1", the rows whose list is NULL. Keys are written sorted (nulls first)
// but read in any order, as Lance writes them after a remap.

#include <algorithm>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <numeric>
#include <unordered_map>

#include "array/builder.h"
#include "index/scalar/scalar_index_internal.h"

namespace lancedb::index::scalar {

namespace {

constexpr char kStatsKey[] = "lance:index_stats";
constexpr char kListNullsKey[] = "lance:label_list_nulls";

/// Rows grouped by key: for each distinct key, one row of `keys` holding it and its row ids.
struct Groups {
  std::vector<int64_t> representative;  // row of `keys`, one per group
  std::vector<RowAddrSet> rows;
  int64_t null_group = -1;  // the group of NULL, or -1
};

template <typename K, typename KeyOf>
void GroupBy(const expr::Vec& keys, const std::vector<uint64_t>& ids, KeyOf key_of, Groups* g) {
  std::unordered_map<K, size_t> index;
  for (int64_t i = 0; i < keys.length; ++i) {
    size_t group;
    if (!keys.IsValid(i)) {
      if (g->null_group < 0) {
        g->null_group = static_cast<int64_t>(g->rows.size());
        g->representative.push_back(i);
        g->rows.emplace_back();
      }
      group = static_cast<size_t>(g->null_group);
    } else {
      auto [it, inserted] = index.try_emplace(key_of(i), g->rows.size());
      if (inserted) {
        g->representative.push_back(i);
        g->rows.emplace_back();
      }
      group = it->second;
    }
    g->rows[group].Add(ids[static_cast<size_t>(i)]);
  }
}

Groups Group(const expr::Vec& keys, const std::vector<uint64_t>& ids) {
  Groups g;
  switch (keys.kind) {
    case expr::ValueKind::kString:
      GroupBy<std::string_view>(
          keys, ids, [&](int64_t i) { return keys.strings[i]; }, &g);
      break;
    case expr::ValueKind::kFloat:
      GroupBy<double>(
          keys, ids, [&](int64_t i) { return keys.floats[i] + 0.0; }, &g);
      break;
    case expr::ValueKind::kBool:
      GroupBy<uint8_t>(
          keys, ids, [&](int64_t i) { return keys.bools[i]; }, &g);
      break;
    default:
      GroupBy<int64_t>(
          keys, ids, [&](int64_t i) { return keys.ints[i]; }, &g);
      break;
  }
  return g;
}

class BitmapIndex final : public ScalarIndex {
 public:
  BitmapIndex(bool label_list, array::ArrayPtr keys_array, expr::Vec keys, array::ArrayPtr bitmaps,
              RowAddrSet list_nulls)
      : label_list_(label_list),
        keys_array_(std::move(keys_array)),
        keys_(std::move(keys)),
        bitmaps_(std::move(bitmaps)),
        list_nulls_(std::move(list_nulls)) {
    for (int64_t i = 0; i < keys_.length; ++i) {
      if (keys_.IsValid(i)) {
        order_.push_back(i);
      } else {
        null_row_ = i;
      }
    }
    std::sort(order_.begin(), order_.end(),
              [&](int64_t a, int64_t b) { return CompareRows(keys_, a, b) < 0; });
  }

  ScalarIndexType type() const override {
    return label_list_ ? ScalarIndexType::kLabelList : ScalarIndexType::kBitmap;
  }
  expr::ValueKind key_kind() const override { return keys_.kind; }
  bool Supports(ScalarQuery::Kind kind) const override {
    if (label_list_) {
      return kind == ScalarQuery::Kind::kHasAny || kind == ScalarQuery::Kind::kHasAll;
    }
    return kind == ScalarQuery::Kind::kEquals || kind == ScalarQuery::Kind::kRange ||
           kind == ScalarQuery::Kind::kIn || kind == ScalarQuery::Kind::kIsNull;
  }

  Result<IndexEntries> ReadAll() const override {
    IndexEntries out;
    std::vector<int64_t> key_rows;
    for (int64_t k = 0; k < keys_array_->length; ++k) {
      LANCEDB_ASSIGN_OR_RETURN(auto rows, BitmapOf(k));
      for (uint64_t id : rows.ToVector()) {
        key_rows.push_back(k);
        out.row_ids.push_back(id);
      }
    }
    LANCEDB_ASSIGN_OR_RETURN(out.keys, array::Take(keys_array_, key_rows));
    out.list_nulls = list_nulls_;
    return out;
  }

  Result<SearchResult> Search(const ScalarQuery& q) const override {
    SearchResult out;
    switch (q.kind) {
      case ScalarQuery::Kind::kIsNull: {
        LANCEDB_ASSIGN_OR_RETURN(out.true_rows, BitmapOf(null_row_));
        return out;
      }
      case ScalarQuery::Kind::kEquals:
      case ScalarQuery::Kind::kIn:
      case ScalarQuery::Kind::kHasAny: {
        for (const Key& v : q.values) {
          LANCEDB_ASSIGN_OR_RETURN(auto rows, BitmapOf(Find(v)));
          out.true_rows.UnionWith(rows);
        }
        break;
      }
      case ScalarQuery::Kind::kHasAll: {
        for (size_t k = 0; k < q.values.size(); ++k) {
          LANCEDB_ASSIGN_OR_RETURN(auto rows, BitmapOf(Find(q.values[k])));
          if (k == 0) {
            out.true_rows = std::move(rows);
          } else {
            out.true_rows.IntersectWith(rows);
          }
        }
        break;
      }
      case ScalarQuery::Kind::kRange: {
        auto first = q.lower ? std::lower_bound(order_.begin(), order_.end(), *q.lower,
                                                [&](int64_t row, const Key& key) {
                                                  const int c = CompareAt(keys_, row, key);
                                                  return q.lower_inclusive ? c < 0 : c <= 0;
                                                })
                             : order_.begin();
        for (auto it = first; it != order_.end(); ++it) {
          if (q.upper) {
            const int c = CompareAt(keys_, *it, *q.upper);
            if (q.upper_inclusive ? c > 0 : c >= 0) break;
          }
          LANCEDB_ASSIGN_OR_RETURN(auto rows, BitmapOf(*it));
          out.true_rows.UnionWith(rows);
        }
        break;
      }
    }
    if (label_list_) {
      out.null_rows = list_nulls_;
    } else {
      LANCEDB_ASSIGN_OR_RETURN(out.null_rows, BitmapOf(null_row_));
    }
    return out;
  }

 private:
  /// The row of `key` in the keys, or -1.
  int64_t Find(const Key& key) const {
    auto it = std::lower_bound(order_.begin(), order_.end(), key, [&](int64_t row, const Key& k) {
      return CompareAt(keys_, row, k) < 0;
    });
    return it != order_.end() && CompareAt(keys_, *it, key) == 0 ? *it : -1;
  }

  Result<RowAddrSet> BitmapOf(int64_t row) const {
    if (row < 0) return RowAddrSet();
    if (bitmaps_->IsNull(row)) return RowAddrSet();
    std::string_view bytes = bitmaps_->GetView(row);
    return RowAddrSet::Deserialize(bytes, "bitmap index");
  }

  bool label_list_;
  array::ArrayPtr keys_array_;
  expr::Vec keys_;
  array::ArrayPtr bitmaps_;
  RowAddrSet list_nulls_;
  std::vector<int64_t> order_;  // rows of keys_ with a non-null key, by key
  int64_t null_row_ = -1;
};

}  // namespace

Result<std::vector<WrittenFile>> BuildBitmap(const io::FileSystemPtr& fs, const std::string& dir,
                                             bool label_list, const array::DataTypePtr& column_type,
                                             const std::vector<BuildInput>& inputs) {
  const array::DataTypePtr key_type = label_list ? column_type->value_type() : column_type;
  // The keyed values (the items, for a list) and the row id of each.
  std::vector<array::ArrayPtr> parts;
  IndexEntries entries;
  for (const auto& in : inputs) {
    if (!label_list) {
      parts.push_back(in.values);
      entries.row_ids.insert(entries.row_ids.end(), in.row_ids.begin(), in.row_ids.end());
      continue;
    }
    // The items of the batch's non-null lists: one slice of the items when they are
    // contiguous (the usual case), else a take of their positions.
    const auto& lists = in.values;
    std::vector<int64_t> items;
    bool contiguous = true;
    for (int64_t r = 0; r < lists->length; ++r) {
      if (lists->IsNull(r)) {
        entries.list_nulls.Add(in.row_ids[static_cast<size_t>(r)]);
        continue;
      }
      auto [begin, end] = lists->GetListRange(r);
      if (begin == end) continue;
      contiguous = contiguous && (items.empty() || items.back() + 1 == begin);
      for (int64_t k = begin; k < end; ++k) items.push_back(k);
      entries.row_ids.insert(entries.row_ids.end(), static_cast<size_t>(end - begin),
                             in.row_ids[static_cast<size_t>(r)]);
    }
    if (items.empty()) continue;
    if (contiguous) {
      parts.push_back(
          array::Slice(lists->children[0], items.front(), static_cast<int64_t>(items.size())));
    } else {
      LANCEDB_ASSIGN_OR_RETURN(auto taken, array::Take(lists->children[0], items));
      parts.push_back(std::move(taken));
    }
  }
  entries.keys = array::MakeNullArray(key_type, 0);
  if (!parts.empty()) {
    LANCEDB_ASSIGN_OR_RETURN(entries.keys, array::Concatenate(parts));
  }
  return BuildBitmapEntries(fs, dir, label_list, key_type, entries);
}

Result<std::vector<WrittenFile>> BuildBitmapEntries(const io::FileSystemPtr& fs,
                                                    const std::string& dir, bool label_list,
                                                    const array::DataTypePtr& key_type,
                                                    const IndexEntries& entries) {
  LANCEDB_ASSIGN_OR_RETURN(auto kind, expr::KindOf(*key_type));
  const array::ArrayPtr& all = entries.keys;
  LANCEDB_ASSIGN_OR_RETURN(auto keys, expr::FromArray(all, kind));
  Groups groups = Group(keys, entries.row_ids);
  // Groups by key, NULL first.
  std::vector<size_t> order(groups.rows.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const bool an = static_cast<int64_t>(a) == groups.null_group;
    const bool bn = static_cast<int64_t>(b) == groups.null_group;
    if (an || bn) return an && !bn;
    return CompareRows(keys, groups.representative[a], groups.representative[b]) < 0;
  });
  std::vector<int64_t> rows;
  std::vector<std::optional<std::string>> bitmaps;
  for (size_t g : order) {
    rows.push_back(groups.representative[g]);
    bitmaps.emplace_back(groups.rows[g].Serialize());
  }
  LANCEDB_ASSIGN_OR_RETURN(auto key_column, array::Take(all, rows));
  auto schema = array::schema(
      {array::field("keys", key_type, true), array::field("bitmaps", array::binary(), true)});
  LANCEDB_ASSIGN_OR_RETURN(
      auto batch, array::RecordBatch::Make(
                      schema, {key_column, array::MakeBinaryLike(array::binary(), bitmaps)},
                      static_cast<int64_t>(rows.size())));
  array::KeyValueMetadata metadata = {
      {kStatsKey, nlohmann::json{{"num_bitmaps", rows.size()}}.dump()}};
  std::vector<std::string> buffers;
  if (label_list) {
    metadata.emplace_back(kListNullsKey, "1");
    buffers.push_back(entries.list_nulls.Serialize());
  }
  LANCEDB_ASSIGN_OR_RETURN(
      auto file, WriteIndexFile(fs, dir, kBitmapFile, schema, {batch}, metadata, buffers));
  return std::vector<WrittenFile>{std::move(file)};
}

Result<std::shared_ptr<const ScalarIndex>> OpenBitmap(const io::FileSystemPtr& fs,
                                                      const std::string& dir, bool label_list,
                                                      const array::DataTypePtr& column_type) {
  const array::DataTypePtr key_type = label_list ? column_type->value_type() : column_type;
  LANCEDB_ASSIGN_OR_RETURN(auto kind, expr::KindOf(*key_type));
  LANCEDB_ASSIGN_OR_RETURN(auto reader, OpenIndexFile(fs, dir, kBitmapFile));
  const auto& fields = reader->schema().fields();
  if (fields.size() < 2) {
    return Status::Corruption("Bitmap index in '" + dir + "' lacks its keys or bitmaps");
  }
  LANCEDB_ASSIGN_OR_RETURN(auto batch,
                           reader->Read({fields[0].id, fields[1].id}, 0, reader->num_rows()));
  LANCEDB_ASSIGN_OR_RETURN(auto keys, expr::FromArray(batch->column(0), kind));
  if (!batch->column(1)->type->is_binary_like()) {
    return Status::Corruption("Bitmap index in '" + dir + "': bitmaps must be binary");
  }
  RowAddrSet list_nulls;
  if (label_list) {
    for (const auto& [k, v] : reader->schema().metadata()) {
      if (k != kListNullsKey) continue;
      const long index = std::atol(v.c_str());
      if (index <= 0 || static_cast<uint32_t>(index) >= reader->num_global_buffers()) {
        return Status::Corruption("Label list index in '" + dir + "': " + kListNullsKey +
                                  " names no global buffer");
      }
      LANCEDB_ASSIGN_OR_RETURN(auto bytes, reader->ReadGlobalBuffer(static_cast<uint32_t>(index)));
      LANCEDB_ASSIGN_OR_RETURN(list_nulls, RowAddrSet::Deserialize(bytes->view(), "list nulls"));
    }
  }
  return std::shared_ptr<const ScalarIndex>(std::make_shared<BitmapIndex>(
      label_list, batch->column(0), std::move(keys), batch->column(1), std::move(list_nulls)));
}

}  // namespace lancedb::index::scalar
