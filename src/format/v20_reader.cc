// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The column layout of 2.0 files (lance-format.md §2.2): value, struct and list columns, pages
// addressed by row (or item) ranges, list pages whose offsets are relative to their own items.

#include "format/v20_reader.h"

#include <google/protobuf/any.pb.h>

#include <algorithm>
#include <limits>

namespace lancedb::format {
namespace {

using array::ArrayData;
using array::ArrayPtr;
using array::DataTypePtr;
using array::TypeId;

constexpr std::string_view kArrayEncodingUrl = "lance.encodings.ArrayEncoding";

Result<ArrayPtr> Join(std::vector<ArrayPtr> parts, const DataTypePtr& type) {
  if (parts.empty()) return array::MakeNullArray(type, 0);
  if (parts.size() == 1) return parts[0];
  return array::Concatenate(parts);
}

}  // namespace

int V20ColumnCount(const LanceField& field) {
  int count = 1;
  for (const auto& child : field.children) count += V20ColumnCount(child);
  return count;
}

Result<std::unique_ptr<V20FieldReader>> V20FieldReader::Make(
    io::FileSystemPtr fs, std::string path, int64_t file_size,
    const std::vector<lance::file::v2::ColumnMetadata>* columns,
    std::vector<std::pair<uint64_t, uint64_t>> global_buffers) {
  auto reader = std::make_unique<V20FieldReader>(std::move(fs), std::move(path), file_size, columns,
                                                 std::move(global_buffers));
  LANCEDB_RETURN_NOT_OK(reader->Init());
  return reader;
}

Status V20FieldReader::Init() {
  pages_.resize(columns_->size());
  cache_.resize(columns_->size());
  for (size_t c = 0; c < columns_->size(); ++c) {
    const auto& meta = (*columns_)[c];
    int64_t rows = 0;
    uint64_t items = 0;
    for (int p = 0; p < meta.pages_size(); ++p) {
      const auto& page = meta.pages(p);
      const std::string where = Where(static_cast<int>(c), p);
      if (!page.encoding().has_direct()) {
        return Status::NotSupported("Page encoding that is not direct in " + where);
      }
      google::protobuf::Any any;
      if (!any.ParseFromString(page.encoding().direct().encoding())) {
        return Status::Corruption("Unreadable page encoding in " + where);
      }
      const std::string& url = any.type_url();
      if (url.size() < kArrayEncodingUrl.size() ||
          url.compare(url.size() - kArrayEncodingUrl.size(), kArrayEncodingUrl.size(),
                      kArrayEncodingUrl) != 0) {
        return Status::NotSupported("Page encoding '" + url + "' in 2.0 " + where);
      }
      PageInfo info;
      if (!info.encoding.ParseFromString(any.value())) {
        return Status::Corruption("Unreadable 2.0 array encoding in " + where);
      }
      if (page.length() > (uint64_t{1} << 40) ||
          page.buffer_offsets_size() != page.buffer_sizes_size()) {
        return Status::Corruption("Impossible page length or buffer table in " + where);
      }
      info.first_row = rows;
      info.num_rows = static_cast<int64_t>(page.length());
      info.first_item = items;
      rows += info.num_rows;
      if (info.encoding.has_list()) {
        if (info.encoding.list().num_items() > (uint64_t{1} << 40)) {
          return Status::Corruption("Impossible list item count in " + where);
        }
        items += info.encoding.list().num_items();
      }
      pages_[c].push_back(std::move(info));
    }
  }
  return Status::OK();
}

std::string V20FieldReader::Where(int column, int page) const {
  return "file '" + path_ + "', column " + std::to_string(column) + ", page " +
         std::to_string(page);
}

Result<BufferPtr> V20FieldReader::ReadBuffer(uint64_t pos, uint64_t len,
                                             const std::string& what) const {
  if (pos > static_cast<uint64_t>(size_) || len > static_cast<uint64_t>(size_) - pos) {
    return Status::Corruption(what + " is out of bounds");
  }
  return fs_->ReadRange(path_, static_cast<int64_t>(pos), static_cast<int64_t>(len));
}

V20BufferSource V20FieldReader::PageBuffers(int column, int page) const {
  return [this, column, page](const pb20::Buffer& ref) -> Result<BufferPtr> {
    const auto& meta = (*columns_)[static_cast<size_t>(column)];
    const uint32_t index = ref.buffer_index();
    const std::string what = "Buffer " + std::to_string(index);
    switch (ref.buffer_type()) {
      case pb20::Buffer::page: {
        const auto& p = meta.pages(page);
        if (index >= static_cast<uint32_t>(p.buffer_offsets_size())) {
          return Status::Corruption("Page buffer " + std::to_string(index) + " does not exist");
        }
        return ReadBuffer(p.buffer_offsets(static_cast<int>(index)),
                          p.buffer_sizes(static_cast<int>(index)), "Page " + what);
      }
      case pb20::Buffer::column:
        if (index >= static_cast<uint32_t>(meta.buffer_offsets_size()) ||
            index >= static_cast<uint32_t>(meta.buffer_sizes_size())) {
          return Status::Corruption("Column buffer " + std::to_string(index) + " does not exist");
        }
        return ReadBuffer(meta.buffer_offsets(static_cast<int>(index)),
                          meta.buffer_sizes(static_cast<int>(index)), "Column " + what);
      case pb20::Buffer::file:
        if (index >= global_buffers_.size()) {
          return Status::Corruption("Global buffer " + std::to_string(index) + " does not exist");
        }
        return ReadBuffer(global_buffers_[index].first, global_buffers_[index].second,
                          "Global " + what);
      default:
        return Status::Corruption("Unknown buffer type " + std::to_string(ref.buffer_type()));
    }
  };
}

Result<std::pair<int, int>> V20FieldReader::PageSpan(int column, int64_t row_start,
                                                     int64_t row_end) const {
  const auto& pages = pages_[static_cast<size_t>(column)];
  int first = 0;
  while (first < static_cast<int>(pages.size()) &&
         pages[first].first_row + pages[first].num_rows <= row_start) {
    ++first;
  }
  int last = first;
  while (last < static_cast<int>(pages.size()) && pages[last].first_row < row_end) ++last;
  const int64_t covered = pages.empty() ? 0 : pages.back().first_row + pages.back().num_rows;
  if (covered < row_end) {
    return Status::Corruption("Column " + std::to_string(column) + " of '" + path_ + "' has " +
                              std::to_string(covered) + " rows; rows up to " +
                              std::to_string(row_end) + " were requested");
  }
  return std::make_pair(first, last);
}

Result<ArrayPtr> V20FieldReader::DecodeValuePage(int column, int page,
                                                 const DataTypePtr& type) const {
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    const CachedPage& cached = cache_[static_cast<size_t>(column)];
    if (cached.page == page && cached.values != nullptr) return cached.values;
  }
  const PageInfo& info = pages_[static_cast<size_t>(column)][static_cast<size_t>(page)];
  auto decoded = DecodeV20Array(info.encoding, type, info.num_rows, PageBuffers(column, page));
  if (!decoded.ok()) return decoded.status().WithContext(Where(column, page));
  ArrayPtr values = decoded.MoveValueUnsafe();
  if (values->length != info.num_rows) {
    return Status::Corruption("Decoded " + std::to_string(values->length) + " values, expected " +
                              std::to_string(info.num_rows) + " in " + Where(column, page));
  }
  std::lock_guard<std::mutex> lock(cache_mutex_);
  cache_[static_cast<size_t>(column)] = CachedPage{page, values, nullptr};
  return values;
}

Result<std::shared_ptr<const V20ListPage>> V20FieldReader::DecodeListPage(int column,
                                                                          int page) const {
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    const CachedPage& cached = cache_[static_cast<size_t>(column)];
    if (cached.page == page && cached.list != nullptr) return cached.list;
  }
  const PageInfo& info = pages_[static_cast<size_t>(column)][static_cast<size_t>(page)];
  if (!info.encoding.has_list()) {
    return Status::Corruption("Expected list offsets, found '" + V20EncodingName(info.encoding) +
                              "' in " + Where(column, page));
  }
  auto decoded =
      DecodeV20ListOffsets(info.encoding.list(), info.num_rows, PageBuffers(column, page));
  if (!decoded.ok()) return decoded.status().WithContext(Where(column, page));
  auto list = std::make_shared<const V20ListPage>(decoded.MoveValueUnsafe());
  std::lock_guard<std::mutex> lock(cache_mutex_);
  cache_[static_cast<size_t>(column)] = CachedPage{page, nullptr, list};
  return list;
}

Result<ArrayPtr> V20FieldReader::ReadValues(int column, const DataTypePtr& type, int64_t row_start,
                                            int64_t num_rows) const {
  const int64_t row_end = row_start + num_rows;
  LANCEDB_ASSIGN_OR_RETURN(auto span, PageSpan(column, row_start, row_end));
  std::vector<ArrayPtr> parts;
  for (int p = span.first; p < span.second; ++p) {
    const PageInfo& info = pages_[static_cast<size_t>(column)][static_cast<size_t>(p)];
    if (info.num_rows == 0) continue;
    LANCEDB_ASSIGN_OR_RETURN(auto values, DecodeValuePage(column, p, type));
    const int64_t lo = std::max(row_start, info.first_row) - info.first_row;
    const int64_t hi = std::min(row_end, info.first_row + info.num_rows) - info.first_row;
    parts.push_back(lo == 0 && hi == info.num_rows ? values : array::Slice(values, lo, hi - lo));
  }
  return Join(std::move(parts), type);
}

Result<ArrayPtr> V20FieldReader::ReadList(const LanceField& field, const DataTypePtr& type,
                                          int column, int64_t row_start, int64_t num_rows) const {
  if (field.children.size() != 1) {
    return Status::Corruption("List field '" + field.name + "' without one item field");
  }
  const int64_t row_end = row_start + num_rows;
  LANCEDB_ASSIGN_OR_RETURN(auto span, PageSpan(column, row_start, row_end));
  std::vector<int64_t> offsets{0};
  std::vector<uint8_t> valid;
  std::vector<ArrayPtr> items;
  for (int p = span.first; p < span.second; ++p) {
    const PageInfo& info = pages_[static_cast<size_t>(column)][static_cast<size_t>(p)];
    if (info.num_rows == 0) continue;
    LANCEDB_ASSIGN_OR_RETURN(auto page, DecodeListPage(column, p));
    const auto lo = static_cast<size_t>(std::max(row_start, info.first_row) - info.first_row);
    const auto hi =
        static_cast<size_t>(std::min(row_end, info.first_row + info.num_rows) - info.first_row);
    const uint64_t item_lo = lo == 0 ? 0 : page->ends[lo - 1];
    for (size_t r = lo; r < hi; ++r) {
      const uint64_t begin = r == 0 ? 0 : page->ends[r - 1];
      offsets.push_back(offsets.back() + static_cast<int64_t>(page->ends[r] - begin));
      valid.push_back(page->valid[r]);
    }
    const uint64_t item_hi = page->ends[hi - 1];
    if (item_hi > item_lo) {
      auto part = Read(field.children[0], type->value_type(), column + 1,
                       static_cast<int64_t>(info.first_item + item_lo),
                       static_cast<int64_t>(item_hi - item_lo));
      if (!part.ok()) return part.status().WithContext("Items of list '" + field.name + "'");
      items.push_back(part.MoveValueUnsafe());
    }
  }
  LANCEDB_ASSIGN_OR_RETURN(auto child, Join(std::move(items), type->value_type()));
  BufferPtr offset_buffer;
  if (type->id() == TypeId::kLargeList) {
    offset_buffer = Buffer::FromVector(offsets);
  } else {
    if (offsets.back() > std::numeric_limits<int32_t>::max()) {
      return Status::Corruption("List '" + field.name + "' has too many items for 32-bit offsets");
    }
    std::vector<int32_t> narrow(offsets.begin(), offsets.end());
    offset_buffer = Buffer::FromVector(narrow);
  }
  BufferPtr validity;
  int64_t nulls = 0;
  for (uint8_t v : valid) nulls += v ? 0 : 1;
  if (nulls > 0) {
    validity = Buffer::Allocate((num_rows + 7) / 8);
    for (int64_t i = 0; i < num_rows; ++i) {
      if (valid[static_cast<size_t>(i)]) bit_util::SetBit(validity->mutable_data(), i);
    }
  }
  return ArrayPtr(ArrayData::Make(type, num_rows, {validity, offset_buffer}, {child}, nulls));
}

Result<ArrayPtr> V20FieldReader::ReadStruct(const LanceField& field, const DataTypePtr& type,
                                            int column, int64_t row_start, int64_t num_rows) const {
  if (field.children.size() != type->fields().size()) {
    return Status::Corruption("Struct field '" + field.name + "' does not match its type");
  }
  // The struct's own column carries no data (2.0 cannot store struct validity); it is only
  // checked to cover the rows.
  LANCEDB_RETURN_NOT_OK(PageSpan(column, row_start, row_start + num_rows).status());
  std::vector<ArrayPtr> children;
  int child_column = column + 1;
  for (size_t i = 0; i < field.children.size(); ++i) {
    LANCEDB_ASSIGN_OR_RETURN(auto child, Read(field.children[i], type->fields()[i]->type(),
                                              child_column, row_start, num_rows));
    children.push_back(std::move(child));
    child_column += V20ColumnCount(field.children[i]);
  }
  return ArrayPtr(ArrayData::Make(type, num_rows, {nullptr}, std::move(children), 0));
}

Result<ArrayPtr> V20FieldReader::Read(const LanceField& field, const DataTypePtr& type, int column,
                                      int64_t row_start, int64_t num_rows) const {
  if (column < 0 || static_cast<size_t>(column) + V20ColumnCount(field) > columns_->size()) {
    return Status::Corruption("File '" + path_ + "' has no column " + std::to_string(column) +
                              " for field '" + field.name + "'");
  }
  if (row_start < 0 || num_rows < 0) return Status::InvalidArgument("Negative row range");
  switch (type->id()) {
    case TypeId::kStruct:
      return ReadStruct(field, type, column, row_start, num_rows);
    case TypeId::kList:
    case TypeId::kLargeList:
      return ReadList(field, type, column, row_start, num_rows);
    default:
      if (!field.children.empty()) {
        return Status::NotSupported("2.0 column of type " + type->ToString() +
                                    " with child fields ('" + field.name + "')");
      }
      return ReadValues(column, type, row_start, num_rows);
  }
}

}  // namespace lancedb::format
