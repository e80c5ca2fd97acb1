// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// ArrayData basics: construction, element access, validation, slicing, null arrays and
// rendering. Concatenate/Take/ArrayEquals live in array_kernels.cc, RecordBatch in
// record_batch.cc.

#include "array/array.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "array/dictionary.h"
#include "array/half.h"
#include "array/layout.h"

namespace lancedb::array {

std::shared_ptr<ArrayData> ArrayData::Make(DataTypePtr type, int64_t length,
                                           std::vector<BufferPtr> buffers,
                                           std::vector<ArrayPtr> children, int64_t null_count,
                                           int64_t offset) {
  auto data = std::make_shared<ArrayData>();
  data->type = std::move(type);
  data->length = length;
  data->offset = offset;
  data->buffers = std::move(buffers);
  data->children = std::move(children);
  data->null_count = null_count < 0 ? ComputeNullCount(*data) : null_count;
  return data;
}

std::string_view ArrayData::GetView(int64_t i) const {
  int64_t start;
  int64_t end;
  if (type->has_large_offsets()) {
    const int64_t* offsets = GetValues<int64_t>(1);
    start = offsets[i];
    end = offsets[i + 1];
  } else {
    const int32_t* offsets = GetValues<int32_t>(1);
    start = offsets[i];
    end = offsets[i + 1];
  }
  if (end == start) return {};
  const char* bytes = buffers[2]->data_as<char>();
  return {bytes + start, static_cast<size_t>(end - start)};
}

std::pair<int64_t, int64_t> ArrayData::GetListRange(int64_t i) const {
  switch (type->id()) {
    case TypeId::kList: {
      const int32_t* offsets = GetValues<int32_t>(1);
      return {offsets[i], offsets[i + 1]};
    }
    case TypeId::kLargeList: {
      const int64_t* offsets = GetValues<int64_t>(1);
      return {offsets[i], offsets[i + 1]};
    }
    default: {
      int64_t size = type->fixed_size();
      return {(offset + i) * size, (offset + i + 1) * size};
    }
  }
}

int64_t ComputeNullCount(const ArrayData& array) {
  if (array.type != nullptr && array.type->id() == TypeId::kNull) return array.length;
  if (array.buffers.empty() || array.buffers[0] == nullptr || array.length <= 0) return 0;
  return array.length -
         bit_util::CountSetBits(array.buffers[0]->data(), array.offset, array.length);
}

// ---- Validation ----

namespace {

Status Invalid(const ArrayData& array, const std::string& what) {
  return Status::InvalidArgument("Invalid array of type " + array.type->ToString() + ": " + what);
}

int64_t BufferSize(const ArrayData& array, int i) {
  return array.buffers[i] == nullptr ? 0 : array.buffers[i]->size();
}

Status CheckBufferSize(const ArrayData& array, int i, const char* name, int64_t needed) {
  int64_t have = BufferSize(array, i);
  if (have < needed) {
    return Invalid(array, std::string(name) + " buffer has " + std::to_string(have) +
                              " bytes, needs " + std::to_string(needed) + " for offset " +
                              std::to_string(array.offset) + " + length " +
                              std::to_string(array.length));
  }
  return Status::OK();
}

// Check offsets[offset .. offset+length] are non-negative, non-decreasing and <= limit.
template <typename OffsetT>
Status CheckOffsets(const ArrayData& array, int64_t limit, const char* limit_name) {
  const int64_t count = array.length + 1;
  LANCEDB_RETURN_NOT_OK(
      CheckBufferSize(array, 1, "offsets", (array.offset + count) * int64_t{sizeof(OffsetT)}));
  const OffsetT* offsets = array.buffers[1]->data_as<OffsetT>() + array.offset;
  if (offsets[0] < 0) {
    return Invalid(array, "first offset " + std::to_string(offsets[0]) + " is negative");
  }
  for (int64_t i = 0; i < array.length; ++i) {
    if (offsets[i + 1] < offsets[i]) {
      return Invalid(array, "offsets decrease at element " + std::to_string(i) + " (" +
                                std::to_string(offsets[i]) + " > " +
                                std::to_string(offsets[i + 1]) + ")");
    }
  }
  if (static_cast<int64_t>(offsets[array.length]) > limit) {
    return Invalid(array, "last offset " + std::to_string(offsets[array.length]) +
                              " is beyond the " + limit_name + " (" + std::to_string(limit) + ")");
  }
  return Status::OK();
}

Status CheckOffsetsAgainst(const ArrayData& array, int64_t limit, const char* limit_name) {
  if (array.length == 0 && BufferSize(array, 1) == 0) return Status::OK();
  return array.type->has_large_offsets() ? CheckOffsets<int64_t>(array, limit, limit_name)
                                         : CheckOffsets<int32_t>(array, limit, limit_name);
}

Status CheckChildType(const ArrayData& array, const ArrayData& child, const DataTypePtr& expected,
                      size_t i) {
  if (child.type == nullptr || !child.type->Equals(*expected)) {
    return Invalid(array, "child " + std::to_string(i) + " has type " +
                              (child.type ? child.type->ToString() : "<none>") + ", expected " +
                              expected->ToString());
  }
  return Status::OK();
}

Status ValidateChildren(const ArrayData& array, int64_t needed_child_length) {
  const auto& fields = array.type->fields();
  if (array.children.size() != fields.size()) {
    return Invalid(array, "has " + std::to_string(array.children.size()) + " children, expected " +
                              std::to_string(fields.size()));
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    if (array.children[i] == nullptr)
      return Invalid(array, "child " + std::to_string(i) + " is null");
    const ArrayData& child = *array.children[i];
    LANCEDB_RETURN_NOT_OK(CheckChildType(array, child, fields[i]->type(), i));
    if (needed_child_length >= 0 && child.length < needed_child_length) {
      return Invalid(array, "child " + std::to_string(i) + " has " + std::to_string(child.length) +
                                " elements, needs " + std::to_string(needed_child_length));
    }
    Status st = ValidateArray(child);
    if (!st.ok()) return st.WithContext("child '" + fields[i]->name() + "'");
  }
  return Status::OK();
}

Status ValidateDictionary(const ArrayData& array) {
  const DataType& type = *array.type;
  Status st = ValidateDictionaryType(type);
  if (!st.ok()) return st;
  const int width = type.index_type()->byte_width();
  LANCEDB_RETURN_NOT_OK(
      CheckBufferSize(array, 1, "indices", (array.offset + array.length) * width));
  if (array.dictionary == nullptr) return Invalid(array, "has no dictionary");
  const ArrayData& dict = *array.dictionary;
  if (dict.type == nullptr || !dict.type->Equals(*type.value_type())) {
    return Invalid(array, "dictionary has type " + (dict.type ? dict.type->ToString() : "<none>") +
                              ", expected " + type.value_type()->ToString());
  }
  st = ValidateArray(dict);
  if (!st.ok()) return st.WithContext("dictionary");
  for (int64_t i = 0; i < array.length; ++i) {
    if (array.IsNull(i)) continue;
    const int64_t index = DictionaryIndex(array, i);
    if (index < 0 || index >= dict.length) {
      return Invalid(array, "index " + std::to_string(index) + " at row " + std::to_string(i) +
                                " is out of range for a dictionary of " +
                                std::to_string(dict.length) + " values");
    }
  }
  return Status::OK();
}

Status ValidateLayout(const ArrayData& array) {
  const DataType& type = *array.type;
  const int64_t end = array.offset + array.length;
  switch (GetLayout(type)) {
    case Layout::kNull:
      for (const auto& b : array.buffers) {
        if (b != nullptr) return Invalid(array, "null arrays have no buffers");
      }
      return Status::OK();
    case Layout::kBool:
      return CheckBufferSize(array, 1, "values", bit_util::BytesForBits(end));
    case Layout::kFixed:
      if (type.byte_width() > 0 && end > std::numeric_limits<int64_t>::max() / type.byte_width()) {
        return Invalid(array, "values buffer size overflows");
      }
      return CheckBufferSize(array, 1, "values", end * type.byte_width());
    case Layout::kBinary: {
      int64_t data_size = BufferSize(array, 2);
      return CheckOffsetsAgainst(array, data_size, "data buffer size");
    }
    case Layout::kList: {
      LANCEDB_RETURN_NOT_OK(ValidateChildren(array, -1));
      return CheckOffsetsAgainst(array, array.children[0]->length, "child length");
    }
    case Layout::kFixedSizeList: {
      if (type.fixed_size() < 0) return Invalid(array, "negative list size");
      int64_t size = type.fixed_size();
      if (size > 0 && end > std::numeric_limits<int64_t>::max() / size) {
        return Invalid(array, "list size overflows");
      }
      return ValidateChildren(array, end * size);
    }
    case Layout::kStruct:
      return ValidateChildren(array, end);
    case Layout::kDictionary:
      return ValidateDictionary(array);
  }
  return Status::OK();
}

}  // namespace

Status ValidateArray(const ArrayData& array) {
  if (array.type == nullptr) return Status::InvalidArgument("Invalid array: no type");
  if (array.length < 0 || array.offset < 0) {
    return Invalid(array, "negative length " + std::to_string(array.length) + " or offset " +
                              std::to_string(array.offset));
  }
  if (array.offset > std::numeric_limits<int64_t>::max() / 16 - array.length) {
    return Invalid(array, "offset + length overflows");
  }
  const Layout layout = GetLayout(*array.type);
  const size_t expected_buffers = NumBuffers(layout);
  if (layout == Layout::kNull ? array.buffers.size() > 1
                              : array.buffers.size() != expected_buffers) {
    return Invalid(array, "has " + std::to_string(array.buffers.size()) + " buffers, expected " +
                              std::to_string(expected_buffers));
  }
  if (layout != Layout::kNull && array.buffers[0] != nullptr) {
    LANCEDB_RETURN_NOT_OK(
        CheckBufferSize(array, 0, "validity", bit_util::BytesForBits(array.offset + array.length)));
  }
  if (layout != Layout::kList && layout != Layout::kFixedSizeList && layout != Layout::kStruct &&
      !array.children.empty()) {
    return Invalid(array,
                   "has " + std::to_string(array.children.size()) + " children, expected none");
  }
  LANCEDB_RETURN_NOT_OK(ValidateLayout(array));
  int64_t nulls = ComputeNullCount(array);
  if (array.null_count != nulls) {
    return Invalid(array, "null_count is " + std::to_string(array.null_count) +
                              " but the validity bitmap has " + std::to_string(nulls) + " nulls");
  }
  return Status::OK();
}

// ---- Slice ----

ArrayPtr Slice(const ArrayPtr& array, int64_t offset, int64_t length) {
  offset = std::clamp<int64_t>(offset, 0, array->length);
  length = std::clamp<int64_t>(length, 0, array->length - offset);
  auto out = std::make_shared<ArrayData>(*array);
  out->offset = array->offset + offset;
  out->length = length;
  if (array->null_count == 0 && array->type->id() != TypeId::kNull) {
    out->null_count = 0;
  } else {
    out->null_count = ComputeNullCount(*out);
  }
  return out;
}

// ---- Null arrays ----

ArrayPtr MakeNullArray(const DataTypePtr& type, int64_t length) {
  const Layout layout = GetLayout(*type);
  if (layout == Layout::kNull) return ArrayData::Make(type, length, {}, {}, length);
  std::vector<BufferPtr> buffers;
  buffers.push_back(Buffer::Allocate(bit_util::BytesForBits(length)));
  std::vector<ArrayPtr> children;
  switch (layout) {
    case Layout::kBool:
      buffers.push_back(Buffer::Allocate(bit_util::BytesForBits(length)));
      break;
    case Layout::kFixed:
      buffers.push_back(Buffer::Allocate(length * type->byte_width()));
      break;
    case Layout::kBinary:
      buffers.push_back(Buffer::Allocate((length + 1) * OffsetWidth(*type)));
      buffers.push_back(Buffer::Allocate(0));
      break;
    case Layout::kList:
      buffers.push_back(Buffer::Allocate((length + 1) * OffsetWidth(*type)));
      children.push_back(MakeNullArray(type->value_type(), 0));
      break;
    case Layout::kFixedSizeList:
      children.push_back(MakeNullArray(type->value_type(), length * type->fixed_size()));
      break;
    case Layout::kStruct:
      for (const auto& f : type->fields()) children.push_back(MakeNullArray(f->type(), length));
      break;
    case Layout::kDictionary:
      buffers.push_back(Buffer::Allocate(length * type->index_type()->byte_width()));
      return MakeDictionaryArray(type, length, std::move(buffers[0]), std::move(buffers[1]),
                                 MakeNullArray(type->value_type(), 0), length);
    case Layout::kNull:
      break;
  }
  return ArrayData::Make(type, length, std::move(buffers), std::move(children), length);
}

// ---- Rendering ----

namespace {

template <typename T>
std::string NumberToString(T value) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), value);
  return std::string(buf, res.ptr);
}

std::string Decimal128ToString(const uint8_t* bytes, int32_t scale) {
  uint64_t lo;
  int64_t hi;
  std::memcpy(&lo, bytes, 8);
  std::memcpy(&hi, bytes + 8, 8);
  __int128 v = (static_cast<__int128>(hi) << 64) | lo;
  bool negative = v < 0;
  unsigned __int128 mag =
      negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string digits;
  do {
    digits.push_back(static_cast<char>('0' + static_cast<int>(mag % 10)));
    mag /= 10;
  } while (mag != 0);
  while (scale > 0 && static_cast<int32_t>(digits.size()) <= scale) digits.push_back('0');
  std::reverse(digits.begin(), digits.end());
  if (scale > 0) digits.insert(digits.size() - scale, ".");
  return negative ? "-" + digits : digits;
}

std::string HexBytes(std::string_view bytes) {
  static const char* kHex = "0123456789ABCDEF";
  std::string s;
  for (unsigned char c : bytes) {
    s.push_back(kHex[c >> 4]);
    s.push_back(kHex[c & 15]);
  }
  return s;
}

std::string FixedValueToString(const ArrayData& array, int64_t i) {
  const DataType& type = *array.type;
  const int width = type.byte_width();
  const uint8_t* p = array.buffers[1]->data() + (array.offset + i) * width;
  auto load = [p]<typename T>(T) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
  };
  switch (type.id()) {
    case TypeId::kInt8:
      return NumberToString(load(int8_t{}));
    case TypeId::kInt16:
      return NumberToString(load(int16_t{}));
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32:
      return NumberToString(load(int32_t{}));
    case TypeId::kInt64:
    case TypeId::kDate64:
    case TypeId::kTimestamp:
    case TypeId::kTime64:
    case TypeId::kDuration:
      return NumberToString(load(int64_t{}));
    case TypeId::kUInt8:
      return NumberToString(load(uint8_t{}));
    case TypeId::kUInt16:
      return NumberToString(load(uint16_t{}));
    case TypeId::kUInt32:
      return NumberToString(load(uint32_t{}));
    case TypeId::kUInt64:
      return NumberToString(load(uint64_t{}));
    case TypeId::kFloat16:
      return NumberToString(HalfToFloat(load(uint16_t{})));
    case TypeId::kFloat32:
      return NumberToString(load(float{}));
    case TypeId::kFloat64:
      return NumberToString(load(double{}));
    case TypeId::kDecimal128:
      return Decimal128ToString(p, type.scale());
    default:
      return HexBytes({reinterpret_cast<const char*>(p), static_cast<size_t>(width)});
  }
}

void AppendValue(const ArrayData& array, int64_t i, int64_t max_items, std::string* out);

void AppendRange(const ArrayData& array, int64_t start, int64_t end, int64_t max_items,
                 std::string* out) {
  out->push_back('[');
  for (int64_t i = start; i < end; ++i) {
    if (i > start) *out += ", ";
    if (i - start >= max_items) {
      *out += "...";
      break;
    }
    AppendValue(array, i, max_items, out);
  }
  out->push_back(']');
}

void AppendValue(const ArrayData& array, int64_t i, int64_t max_items, std::string* out) {
  if (array.IsNull(i)) {
    *out += "null";
    return;
  }
  const DataType& type = *array.type;
  switch (GetLayout(type)) {
    case Layout::kNull:
      *out += "null";
      return;
    case Layout::kBool:
      *out += bit_util::GetBit(array.buffers[1]->data(), array.offset + i) ? "true" : "false";
      return;
    case Layout::kFixed:
      *out += FixedValueToString(array, i);
      return;
    case Layout::kBinary: {
      std::string_view v = array.GetView(i);
      if (type.id() == TypeId::kString || type.id() == TypeId::kLargeString) {
        *out += "\"" + std::string(v) + "\"";
      } else {
        *out += HexBytes(v);
      }
      return;
    }
    case Layout::kList:
    case Layout::kFixedSizeList: {
      auto [s, e] = array.GetListRange(i);
      AppendRange(*array.children[0], s, e, max_items, out);
      return;
    }
    case Layout::kStruct: {
      out->push_back('{');
      for (size_t c = 0; c < array.children.size(); ++c) {
        if (c > 0) *out += ", ";
        *out += type.fields()[c]->name() + ": ";
        AppendValue(*array.children[c], array.offset + i, max_items, out);
      }
      out->push_back('}');
      return;
    }
    case Layout::kDictionary: {
      const int64_t index = DictionaryIndex(array, i);
      if (array.dictionary == nullptr || index < 0 || index >= array.dictionary->length) {
        *out += "<bad index " + std::to_string(index) + ">";
        return;
      }
      AppendValue(*array.dictionary, index, max_items, out);
      return;
    }
  }
}

}  // namespace

std::string ArrayToString(const ArrayData& array, int64_t max_items) {
  std::string out;
  AppendRange(array, 0, array.length, max_items, &out);
  return out;
}

}  // namespace lancedb::array
