// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Concatenate, Take and ArrayEquals. Concatenate and Take are both "gather a list of row
// ranges from arrays of one type into fresh buffers"; the gather recurses into children with
// the child ranges the parent's offsets (or list size) designate. Dictionary arrays gather
// their indices and keep their dictionary when every range shares it; otherwise the first
// range's dictionary is extended with the values the other ranges use.

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "array/array.h"
#include "array/dictionary.h"
#include "array/layout.h"

namespace lancedb::array {
namespace {

/// Rows [start, start + length) of `array` (logical, i.e. before array->offset is applied).
struct Range {
  const ArrayData* array;
  int64_t start;
  int64_t length;
};

Result<ArrayPtr> Gather(const DataTypePtr& type, const std::vector<Range>& ranges);

int64_t TotalLength(const std::vector<Range>& ranges) {
  int64_t total = 0;
  for (const auto& r : ranges) total += r.length;
  return total;
}

BufferPtr GatherValidity(const std::vector<Range>& ranges, int64_t total, int64_t* null_count) {
  bool any_nulls = false;
  for (const auto& r : ranges) {
    if (r.array->null_count != 0 && r.array->buffers[0] != nullptr) any_nulls = true;
  }
  *null_count = 0;
  if (!any_nulls) return nullptr;
  auto bitmap = Buffer::Allocate(bit_util::BytesForBits(total));
  uint8_t* dst = bitmap->mutable_data();
  int64_t pos = 0;
  for (const auto& r : ranges) {
    const auto& validity = r.array->buffers[0];
    if (validity != nullptr) {
      bit_util::CopyBits(validity->data(), r.array->offset + r.start, r.length, dst, pos);
    } else {
      for (int64_t i = 0; i < r.length; ++i) bit_util::SetBit(dst, pos + i);
    }
    pos += r.length;
  }
  *null_count = total - bit_util::CountSetBits(dst, 0, total);
  return bitmap;
}

BufferPtr GatherBits(const std::vector<Range>& ranges, int64_t total) {
  auto bits = Buffer::Allocate(bit_util::BytesForBits(total));
  int64_t pos = 0;
  for (const auto& r : ranges) {
    bit_util::CopyBits(r.array->buffers[1]->data(), r.array->offset + r.start, r.length,
                       bits->mutable_data(), pos);
    pos += r.length;
  }
  return bits;
}

BufferPtr GatherFixed(const std::vector<Range>& ranges, int64_t total, int width) {
  auto values = Buffer::Allocate(total * width);
  uint8_t* dst = values->mutable_data();
  for (const auto& r : ranges) {
    const int64_t bytes = r.length * width;
    if (bytes > 0) {
      std::memcpy(dst, r.array->buffers[1]->data() + (r.array->offset + r.start) * width,
                  static_cast<size_t>(bytes));
    }
    dst += bytes;
  }
  return values;
}

int64_t LoadOffset(const ArrayData& array, int64_t i, bool large) {
  return large ? array.buffers[1]->data_as<int64_t>()[array.offset + i]
               : array.buffers[1]->data_as<int32_t>()[array.offset + i];
}

/// Rebase the offsets of every range onto one output offsets buffer; report the child (or byte)
/// ranges the rows cover.
BufferPtr GatherOffsets(const std::vector<Range>& ranges, int64_t total, bool large,
                        std::vector<Range>* child_ranges, bool use_child) {
  BufferBuilder builder((total + 1) * (large ? 8 : 4));
  int64_t next = 0;
  auto append = [&](int64_t v) {
    if (large) {
      builder.AppendValue<int64_t>(v);
    } else {
      builder.AppendValue<int32_t>(static_cast<int32_t>(v));
    }
  };
  append(0);
  for (const auto& r : ranges) {
    if (r.length == 0) continue;
    const int64_t first = LoadOffset(*r.array, r.start, large);
    for (int64_t i = 1; i <= r.length; ++i) {
      append(next + LoadOffset(*r.array, r.start + i, large) - first);
    }
    const int64_t last = LoadOffset(*r.array, r.start + r.length, large);
    next += last - first;
    const ArrayData* source = use_child ? r.array->children[0].get() : r.array;
    child_ranges->push_back({source, first, last - first});
  }
  return builder.Finish();
}

BufferPtr GatherBytes(const std::vector<Range>& byte_ranges) {
  BufferBuilder builder;
  for (const auto& r : byte_ranges) {
    if (r.length > 0) builder.Append(r.array->buffers[2]->data() + r.start, r.length);
  }
  return builder.Finish();
}

/// Whether every range's dictionary holds the same values as the first one's.
bool SameDictionary(const std::vector<Range>& ranges) {
  const ArrayData* first = ranges[0].array->dictionary.get();
  for (const auto& r : ranges) {
    const ArrayData* d = r.array->dictionary.get();
    if (d != first && !ArrayEquals(*d, *first)) return false;
  }
  return true;
}

/// Gather the indices of dictionary ranges into buffers[1] and pick the output dictionary.
/// REQUIRES: buffers[0] holds the gathered validity; rows whose index points at a null
/// dictionary value become null when the dictionaries are unified.
Status GatherDictionary(const DataTypePtr& type, const std::vector<Range>& ranges, int64_t total,
                        std::vector<BufferPtr>* buffers, ArrayPtr* dictionary) {
  const int width = type->index_type()->byte_width();
  if (ranges.empty()) {
    buffers->push_back(Buffer::Allocate(0));
    *dictionary = MakeNullArray(type->value_type(), 0);
    return Status::OK();
  }
  if (SameDictionary(ranges)) {
    buffers->push_back(GatherFixed(ranges, total, width));
    *dictionary = ranges[0].array->dictionary;
    return Status::OK();
  }
  DictionaryMemo memo(type->value_type());
  const ArrayData& first = *ranges[0].array->dictionary;
  for (int64_t i = 0; i < first.length; ++i) {
    if (first.IsValid(i)) memo.GetOrInsert(first, i);
  }
  std::unordered_map<const ArrayData*, std::vector<int64_t>> remaps;
  auto indices = Buffer::Allocate(total * width);
  uint8_t* dst = indices->mutable_data();
  std::vector<int64_t> null_rows;
  int64_t pos = 0;
  for (const auto& r : ranges) {
    const ArrayData& dict = *r.array->dictionary;
    auto& remap = remaps[&dict];
    if (remap.empty()) remap.assign(static_cast<size_t>(dict.length), -1);
    for (int64_t k = 0; k < r.length; ++k, ++pos) {
      int64_t mapped = 0;
      if (r.array->IsValid(r.start + k)) {
        const int64_t index = DictionaryIndex(*r.array, r.start + k);
        if (index < 0 || index >= dict.length) {
          return Status::InvalidArgument("Dictionary index " + std::to_string(index) +
                                         " out of range for a dictionary of " +
                                         std::to_string(dict.length) + " values");
        }
        if (dict.IsNull(index)) {
          null_rows.push_back(pos);
        } else {
          int64_t& m = remap[static_cast<size_t>(index)];
          if (m < 0) m = memo.GetOrInsert(dict, index);
          mapped = m;
        }
      }
      std::memcpy(dst + pos * width, &mapped, static_cast<size_t>(width));
    }
  }
  if (memo.size() - 1 > MaxDictionaryIndex(*type->index_type())) {
    return Status::InvalidArgument("The unified dictionary of " + std::to_string(memo.size()) +
                                   " values does not fit " + type->index_type()->ToString() +
                                   " indices (" + type->ToString() + ")");
  }
  if (!null_rows.empty()) {
    if ((*buffers)[0] == nullptr) {
      (*buffers)[0] = Buffer::Allocate(bit_util::BytesForBits(total));
      for (int64_t i = 0; i < total; ++i) bit_util::SetBit((*buffers)[0]->mutable_data(), i);
    }
    for (int64_t row : null_rows) bit_util::ClearBit((*buffers)[0]->mutable_data(), row);
  }
  buffers->push_back(std::move(indices));
  LANCEDB_ASSIGN_OR_RETURN(*dictionary, memo.Finish());
  return Status::OK();
}

Result<ArrayPtr> Gather(const DataTypePtr& type, const std::vector<Range>& ranges) {
  const int64_t total = TotalLength(ranges);
  const Layout layout = GetLayout(*type);
  if (layout == Layout::kNull) return ArrayPtr(ArrayData::Make(type, total, {}, {}, total));
  int64_t null_count = 0;
  std::vector<BufferPtr> buffers{GatherValidity(ranges, total, &null_count)};
  std::vector<ArrayPtr> children;
  ArrayPtr dictionary;
  switch (layout) {
    case Layout::kBool:
      buffers.push_back(GatherBits(ranges, total));
      break;
    case Layout::kFixed:
      buffers.push_back(GatherFixed(ranges, total, type->byte_width()));
      break;
    case Layout::kBinary: {
      std::vector<Range> byte_ranges;
      buffers.push_back(
          GatherOffsets(ranges, total, type->has_large_offsets(), &byte_ranges, false));
      buffers.push_back(GatherBytes(byte_ranges));
      break;
    }
    case Layout::kList: {
      std::vector<Range> child_ranges;
      buffers.push_back(
          GatherOffsets(ranges, total, type->has_large_offsets(), &child_ranges, true));
      LANCEDB_ASSIGN_OR_RETURN(auto child, Gather(type->value_type(), child_ranges));
      children.push_back(std::move(child));
      break;
    }
    case Layout::kFixedSizeList: {
      const int64_t size = type->fixed_size();
      std::vector<Range> child_ranges;
      for (const auto& r : ranges) {
        child_ranges.push_back(
            {r.array->children[0].get(), (r.array->offset + r.start) * size, r.length * size});
      }
      LANCEDB_ASSIGN_OR_RETURN(auto child, Gather(type->value_type(), child_ranges));
      children.push_back(std::move(child));
      break;
    }
    case Layout::kStruct: {
      for (size_t c = 0; c < type->fields().size(); ++c) {
        std::vector<Range> child_ranges;
        for (const auto& r : ranges) {
          child_ranges.push_back({r.array->children[c].get(), r.array->offset + r.start, r.length});
        }
        LANCEDB_ASSIGN_OR_RETURN(auto child, Gather(type->fields()[c]->type(), child_ranges));
        children.push_back(std::move(child));
      }
      break;
    }
    case Layout::kDictionary:
      LANCEDB_RETURN_NOT_OK(GatherDictionary(type, ranges, total, &buffers, &dictionary));
      break;
    case Layout::kNull:
      break;
  }
  auto out = ArrayData::Make(type, total, std::move(buffers), std::move(children),
                             dictionary ? -1 : null_count);
  out->dictionary = std::move(dictionary);
  return ArrayPtr(std::move(out));
}

}  // namespace

Result<ArrayPtr> GatherRows(const DataTypePtr& type,
                            const std::vector<std::pair<const ArrayData*, int64_t>>& rows) {
  std::vector<Range> ranges;
  ranges.reserve(rows.size());
  for (const auto& [array, row] : rows) ranges.push_back({array, row, 1});
  return Gather(type, ranges);
}

Result<ArrayPtr> Concatenate(const std::vector<ArrayPtr>& arrays) {
  if (arrays.empty()) return Status::InvalidArgument("Concatenate needs at least one array");
  const DataTypePtr& type = arrays[0]->type;
  std::vector<Range> ranges;
  ranges.reserve(arrays.size());
  for (size_t i = 0; i < arrays.size(); ++i) {
    if (!arrays[i]->type->Equals(*type)) {
      return Status::InvalidArgument("Concatenate: array " + std::to_string(i) + " has type " +
                                     arrays[i]->type->ToString() + ", expected " +
                                     type->ToString());
    }
    ranges.push_back({arrays[i].get(), 0, arrays[i]->length});
  }
  return Gather(type, ranges);
}

Result<ArrayPtr> Take(const ArrayPtr& array, const std::vector<int64_t>& indices) {
  std::vector<Range> ranges;
  for (int64_t index : indices) {
    if (index < 0 || index >= array->length) {
      return Status::InvalidArgument("Take: index " + std::to_string(index) +
                                     " out of bounds for array of length " +
                                     std::to_string(array->length));
    }
    if (!ranges.empty() && ranges.back().start + ranges.back().length == index) {
      ++ranges.back().length;
    } else {
      ranges.push_back({array.get(), index, 1});
    }
  }
  return Gather(array->type, ranges);
}

// ---- Equality ----

namespace {

bool RangeEquals(const ArrayData& a, int64_t a_start, const ArrayData& b, int64_t b_start,
                 int64_t length);

/// Compare the values of row a_start+i and b_start+i, both known to be valid.
bool ValueEquals(const ArrayData& a, int64_t i, const ArrayData& b, int64_t j) {
  const DataType& type = *a.type;
  switch (GetLayout(type)) {
    case Layout::kNull:
      return true;
    case Layout::kBool:
      return bit_util::GetBit(a.buffers[1]->data(), a.offset + i) ==
             bit_util::GetBit(b.buffers[1]->data(), b.offset + j);
    case Layout::kFixed: {
      const int w = type.byte_width();
      return std::memcmp(a.buffers[1]->data() + (a.offset + i) * w,
                         b.buffers[1]->data() + (b.offset + j) * w, static_cast<size_t>(w)) == 0;
    }
    case Layout::kBinary:
      return a.GetView(i) == b.GetView(j);
    case Layout::kList:
    case Layout::kFixedSizeList: {
      auto [as, ae] = a.GetListRange(i);
      auto [bs, be] = b.GetListRange(j);
      return ae - as == be - bs && RangeEquals(*a.children[0], as, *b.children[0], bs, ae - as);
    }
    case Layout::kStruct:
      for (size_t c = 0; c < a.children.size(); ++c) {
        if (!RangeEquals(*a.children[c], a.offset + i, *b.children[c], b.offset + j, 1)) {
          return false;
        }
      }
      return true;
    case Layout::kDictionary:
      // Logical equality: the values the indices point at (dictionaries may differ).
      return RangeEquals(*a.dictionary, DictionaryIndex(a, i), *b.dictionary, DictionaryIndex(b, j),
                         1);
  }
  return false;
}

bool RangeEquals(const ArrayData& a, int64_t a_start, const ArrayData& b, int64_t b_start,
                 int64_t length) {
  if (a.type->id() == TypeId::kNull) return true;
  const bool no_nulls = a.null_count == 0 && b.null_count == 0;
  if (no_nulls && GetLayout(*a.type) == Layout::kFixed) {
    const int w = a.type->byte_width();
    return length == 0 || std::memcmp(a.buffers[1]->data() + (a.offset + a_start) * w,
                                      b.buffers[1]->data() + (b.offset + b_start) * w,
                                      static_cast<size_t>(length * w)) == 0;
  }
  for (int64_t k = 0; k < length; ++k) {
    const bool a_null = a.IsNull(a_start + k);
    if (a_null != b.IsNull(b_start + k)) return false;
    if (!a_null && !ValueEquals(a, a_start + k, b, b_start + k)) return false;
  }
  return true;
}

}  // namespace

bool ArrayEquals(const ArrayData& a, const ArrayData& b) {
  if (&a == &b) return true;
  if (!a.type->Equals(*b.type) || a.length != b.length) return false;
  if (a.null_count >= 0 && b.null_count >= 0 && a.null_count != b.null_count) return false;
  return RangeEquals(a, 0, b, 0, a.length);
}

}  // namespace lancedb::array
