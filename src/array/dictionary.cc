// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "array/dictionary.h"

#include <cstring>
#include <limits>
#include <string>

#include "array/layout.h"

namespace lancedb::array {

// Defined in array_kernels.cc: the rows (array, logical row) gathered into one fresh array.
Result<ArrayPtr> GatherRows(const DataTypePtr& type,
                            const std::vector<std::pair<const ArrayData*, int64_t>>& rows);

namespace {

void StoreIndex(uint8_t* indices, int width, int64_t i, int64_t value) {
  // Indices are non-negative and fit the width: the low bytes are the value (little endian).
  std::memcpy(indices + i * width, &value, static_cast<size_t>(width));
}

Status TooManyEntries(const DataType& dict_type, int64_t entries) {
  return Status::InvalidArgument("A dictionary of " + std::to_string(entries) +
                                 " values does not fit " + dict_type.index_type()->ToString() +
                                 " indices (" + dict_type.ToString() + ")");
}

}  // namespace

ArrayPtr MakeDictionaryArray(DataTypePtr type, int64_t length, BufferPtr validity,
                             BufferPtr indices, ArrayPtr dictionary, int64_t null_count,
                             int64_t offset) {
  auto data = ArrayData::Make(std::move(type), length, {std::move(validity), std::move(indices)},
                              {}, null_count, offset);
  data->dictionary = std::move(dictionary);
  return data;
}

int64_t DictionaryIndex(const ArrayData& array, int64_t i) {
  const uint8_t* p = array.buffers[1]->data();
  const int64_t row = array.offset + i;
  switch (array.type->index_type()->id()) {
    case TypeId::kInt8:
      return reinterpret_cast<const int8_t*>(p)[row];
    case TypeId::kUInt8:
      return p[row];
    case TypeId::kInt16: {
      int16_t v;
      std::memcpy(&v, p + row * 2, 2);
      return v;
    }
    case TypeId::kUInt16: {
      uint16_t v;
      std::memcpy(&v, p + row * 2, 2);
      return v;
    }
    case TypeId::kInt32: {
      int32_t v;
      std::memcpy(&v, p + row * 4, 4);
      return v;
    }
    case TypeId::kUInt32: {
      uint32_t v;
      std::memcpy(&v, p + row * 4, 4);
      return v;
    }
    default: {
      // int64 and uint64 (a uint64 index beyond int64 reads negative: out of range).
      int64_t v;
      std::memcpy(&v, p + row * 8, 8);
      return v;
    }
  }
}

int64_t MaxDictionaryIndex(const DataType& index_type) {
  switch (index_type.id()) {
    case TypeId::kInt8:
      return std::numeric_limits<int8_t>::max();
    case TypeId::kUInt8:
      return std::numeric_limits<uint8_t>::max();
    case TypeId::kInt16:
      return std::numeric_limits<int16_t>::max();
    case TypeId::kUInt16:
      return std::numeric_limits<uint16_t>::max();
    case TypeId::kInt32:
      return std::numeric_limits<int32_t>::max();
    case TypeId::kUInt32:
      return std::numeric_limits<uint32_t>::max();
    default:
      return std::numeric_limits<int64_t>::max();
  }
}

bool IsSupportedDictionaryValueType(const DataType& value_type) {
  const Layout layout = GetLayout(value_type);
  return (layout == Layout::kFixed && value_type.byte_width() > 0) || layout == Layout::kBinary;
}

Status ValidateDictionaryType(const DataType& type) {
  if (!type.is_dictionary()) {
    return Status::InvalidArgument("Expected a dictionary type, got " + type.ToString());
  }
  if (!IsValidDictionaryIndexType(*type.index_type())) {
    return Status::InvalidArgument("Dictionary indices must be integers, got " +
                                   type.index_type()->ToString());
  }
  if (!IsSupportedDictionaryValueType(*type.value_type())) {
    return Status::NotSupported("Dictionaries of " + type.value_type()->ToString() +
                                " values are not supported (" + type.ToString() + ")");
  }
  return Status::OK();
}

Result<ArrayPtr> DictionaryDecode(const ArrayPtr& array) {
  if (array == nullptr || !array->type->is_dictionary() || array->dictionary == nullptr) {
    return Status::InvalidArgument("DictionaryDecode needs a dictionary array");
  }
  const ArrayData& a = *array;
  const DataTypePtr& value_type = a.type->value_type();
  const int64_t dict_length = a.dictionary->length;
  std::vector<int64_t> rows;
  rows.reserve(static_cast<size_t>(a.length));
  bool any_null = false;
  for (int64_t i = 0; i < a.length; ++i) {
    if (a.IsNull(i)) {
      rows.push_back(-1);
      any_null = true;
      continue;
    }
    const int64_t index = DictionaryIndex(a, i);
    if (index < 0 || index >= dict_length) {
      return Status::InvalidArgument("Dictionary index " + std::to_string(index) +
                                     " out of range for a dictionary of " +
                                     std::to_string(dict_length) + " values");
    }
    rows.push_back(index);
  }
  if (any_null && dict_length == 0) return MakeNullArray(value_type, a.length);
  std::vector<int64_t> take = rows;
  for (auto& r : take) r = r < 0 ? 0 : r;
  LANCEDB_ASSIGN_OR_RETURN(ArrayPtr values, Take(a.dictionary, take));
  if (!any_null) return values;
  // Null rows took entry 0: clear their validity bits.
  auto out = std::make_shared<ArrayData>(*values);
  auto bitmap = Buffer::Allocate(bit_util::BytesForBits(a.length));
  uint8_t* bits = bitmap->mutable_data();
  for (int64_t i = 0; i < a.length; ++i) {
    if (rows[static_cast<size_t>(i)] >= 0 && values->IsValid(i)) bit_util::SetBit(bits, i);
  }
  out->buffers[0] = std::move(bitmap);
  out->offset = 0;
  out->null_count = ComputeNullCount(*out);
  return ArrayPtr(std::move(out));
}

Result<ArrayPtr> DictionaryEncode(const ArrayPtr& values, const DataTypePtr& dict_type,
                                  const std::vector<ArrayPtr>& seeds) {
  LANCEDB_RETURN_NOT_OK(ValidateDictionaryType(*dict_type));
  const DataTypePtr& value_type = dict_type->value_type();
  if (!values->type->Equals(*value_type)) {
    return Status::InvalidArgument("Cannot dictionary-encode " + values->type->ToString() +
                                   " values as " + dict_type->ToString());
  }
  DictionaryMemo memo(value_type);
  for (const auto& seed : seeds) {
    if (!seed->type->Equals(*value_type)) {
      return Status::InvalidArgument("Dictionary seed of type " + seed->type->ToString() + " for " +
                                     dict_type->ToString());
    }
    for (int64_t i = 0; i < seed->length; ++i) {
      if (seed->IsValid(i)) memo.GetOrInsert(*seed, i);
    }
  }
  const int width = dict_type->index_type()->byte_width();
  const int64_t n = values->length;
  auto indices = Buffer::Allocate(n * width);
  uint8_t* dst = indices->mutable_data();
  BufferPtr validity;
  if (values->null_count != 0) validity = Buffer::Allocate(bit_util::BytesForBits(n));
  for (int64_t i = 0; i < n; ++i) {
    if (values->IsNull(i)) continue;
    if (validity) bit_util::SetBit(validity->mutable_data(), i);
    StoreIndex(dst, width, i, memo.GetOrInsert(*values, i));
  }
  if (memo.size() - 1 > MaxDictionaryIndex(*dict_type->index_type())) {
    return TooManyEntries(*dict_type, memo.size());
  }
  LANCEDB_ASSIGN_OR_RETURN(ArrayPtr dictionary, memo.Finish());
  return MakeDictionaryArray(dict_type, n, std::move(validity), std::move(indices),
                             std::move(dictionary));
}

bool EqualsIgnoringOrdered(const DataType& a, const DataType& b) {
  if (a.id() != b.id()) return false;
  if (a.is_dictionary()) {
    return a.index_type()->Equals(*b.index_type()) &&
           EqualsIgnoringOrdered(*a.value_type(), *b.value_type());
  }
  if (a.fields().empty() || a.fields().size() != b.fields().size()) return a.Equals(b);
  if ((a.id() == TypeId::kFixedSizeList && a.fixed_size() != b.fixed_size())) return false;
  for (size_t i = 0; i < a.fields().size(); ++i) {
    const Field& fa = *a.fields()[i];
    const Field& fb = *b.fields()[i];
    if (fa.name() != fb.name() || fa.nullable() != fb.nullable() ||
        !EqualsIgnoringOrdered(*fa.type(), *fb.type())) {
      return false;
    }
  }
  return true;
}

ArrayPtr Relabel(const ArrayPtr& array, const DataTypePtr& type) {
  if (array->type->Equals(*type)) return array;
  auto out = std::make_shared<ArrayData>(*array);
  out->type = type;
  for (size_t i = 0; i < out->children.size() && i < type->fields().size(); ++i) {
    out->children[i] = Relabel(out->children[i], type->fields()[i]->type());
  }
  return out;
}

// ---- DictionaryMemo ----

DictionaryMemo::DictionaryMemo(DataTypePtr value_type)
    : value_type_(std::move(value_type)),
      width_(GetLayout(*value_type_) == Layout::kFixed ? value_type_->byte_width() : -1) {}

std::string_view DictionaryMemo::Key(const ArrayData& values, int64_t i) const {
  if (width_ < 0) return values.GetView(i);
  const auto* p = values.buffers[1]->data_as<char>() + (values.offset + i) * width_;
  return {p, static_cast<size_t>(width_)};
}

int64_t DictionaryMemo::GetOrInsert(const ArrayData& values, int64_t i) {
  auto [it, inserted] = index_.try_emplace(Key(values, i), size());
  if (inserted) entries_.emplace_back(&values, i);
  return it->second;
}

Result<ArrayPtr> DictionaryMemo::Finish() const { return GatherRows(value_type_, entries_); }

}  // namespace lancedb::array
