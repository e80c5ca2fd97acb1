// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "array/builder.h"

#include <algorithm>
#include <cstring>

#include "array/dictionary.h"

namespace lancedb::array {

BufferPtr MakeValidityBitmap(const std::vector<bool>& valid) {
  bool all_valid = true;
  for (bool v : valid) all_valid = all_valid && v;
  if (all_valid) return nullptr;
  const auto n = static_cast<int64_t>(valid.size());
  auto bitmap = Buffer::Allocate(bit_util::BytesForBits(n));
  for (int64_t i = 0; i < n; ++i) {
    if (valid[i]) bit_util::SetBit(bitmap->mutable_data(), i);
  }
  return bitmap;
}

ArrayPtr MakeBool(const std::vector<bool>& values, const std::vector<bool>& valid) {
  const auto n = static_cast<int64_t>(values.size());
  auto bits = Buffer::Allocate(bit_util::BytesForBits(n));
  for (int64_t i = 0; i < n; ++i) {
    if (values[i]) bit_util::SetBit(bits->mutable_data(), i);
  }
  return ArrayData::Make(boolean(), n, {MakeValidityBitmap(valid), std::move(bits)});
}

ArrayPtr MakeBinaryLike(DataTypePtr type, const std::vector<std::optional<std::string>>& values) {
  const bool large = type->has_large_offsets();
  BufferBuilder offsets;
  BufferBuilder bytes;
  std::vector<bool> valid(values.size(), true);
  int64_t pos = 0;
  auto append_offset = [&](int64_t v) {
    if (large) {
      offsets.AppendValue<int64_t>(v);
    } else {
      offsets.AppendValue<int32_t>(static_cast<int32_t>(v));
    }
  };
  append_offset(0);
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].has_value()) {
      bytes.Append(*values[i]);
      pos += static_cast<int64_t>(values[i]->size());
    } else {
      valid[i] = false;
    }
    append_offset(pos);
  }
  return ArrayData::Make(std::move(type), static_cast<int64_t>(values.size()),
                         {MakeValidityBitmap(valid), offsets.Finish(), bytes.Finish()});
}

ArrayPtr MakeFixedSizeBinary(int32_t byte_width,
                             const std::vector<std::optional<std::string>>& values) {
  const auto n = static_cast<int64_t>(values.size());
  auto data = Buffer::Allocate(n * byte_width);
  std::vector<bool> valid(values.size(), true);
  for (int64_t i = 0; i < n; ++i) {
    if (!values[i].has_value()) {
      valid[i] = false;
      continue;
    }
    const size_t count = std::min(values[i]->size(), static_cast<size_t>(byte_width));
    std::memcpy(data->mutable_data() + i * byte_width, values[i]->data(), count);
  }
  return ArrayData::Make(fixed_size_binary(byte_width), n,
                         {MakeValidityBitmap(valid), std::move(data)});
}

ArrayPtr MakeList(DataTypePtr list_type, const std::vector<int64_t>& offsets, ArrayPtr child,
                  const std::vector<bool>& valid) {
  const int64_t n = offsets.empty() ? 0 : static_cast<int64_t>(offsets.size()) - 1;
  BufferPtr offsets_buffer;
  if (list_type->has_large_offsets()) {
    offsets_buffer = Buffer::FromVector(offsets.empty() ? std::vector<int64_t>{0} : offsets);
  } else {
    std::vector<int32_t> narrow(offsets.begin(), offsets.end());
    if (narrow.empty()) narrow.push_back(0);
    offsets_buffer = Buffer::FromVector(narrow);
  }
  return ArrayData::Make(std::move(list_type), n,
                         {MakeValidityBitmap(valid), std::move(offsets_buffer)},
                         {std::move(child)});
}

ArrayPtr MakeFixedSizeList(DataTypePtr list_type, ArrayPtr child, const std::vector<bool>& valid) {
  const int64_t size = list_type->fixed_size();
  const int64_t n = size > 0 ? child->length / size : static_cast<int64_t>(valid.size());
  return ArrayData::Make(std::move(list_type), n, {MakeValidityBitmap(valid)}, {std::move(child)});
}

ArrayPtr MakeStruct(DataTypePtr struct_type, std::vector<ArrayPtr> children,
                    const std::vector<bool>& valid) {
  const int64_t n = children.empty() ? static_cast<int64_t>(valid.size()) : children[0]->length;
  return ArrayData::Make(std::move(struct_type), n, {MakeValidityBitmap(valid)},
                         std::move(children));
}

ArrayPtr MakeDictionary(DataTypePtr dict_type, const std::vector<int64_t>& indices,
                        ArrayPtr dictionary, const std::vector<bool>& valid) {
  const int width = dict_type->index_type()->byte_width();
  const auto n = static_cast<int64_t>(indices.size());
  auto buffer = Buffer::Allocate(n * width);
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(buffer->mutable_data() + i * width, &indices[i], static_cast<size_t>(width));
  }
  return MakeDictionaryArray(std::move(dict_type), n, MakeValidityBitmap(valid), std::move(buffer),
                             std::move(dictionary));
}

}  // namespace lancedb::array
