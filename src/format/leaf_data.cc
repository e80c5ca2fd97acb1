// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "format/leaf_data.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>

#include "array/dictionary.h"
#include "common/bit_util.h"

namespace lancedb::format {

int LeafPath::RepLevelOf(int d) const {
  int level = 0;
  for (int i = std::max(d, 0); i < depth(); ++i) level += steps[i] == StepKind::kList ? 1 : 0;
  return level;
}

bool LeafPath::HasListAtOrBelow(int d) const {
  // A layer above the path's first step (d < 0) has every step below it.
  for (int i = std::max(d, 0); i < depth(); ++i) {
    if (steps[i] == StepKind::kList) return true;
  }
  return false;
}

void AppendBits(const uint8_t* src, int64_t src_offset, int64_t count, std::vector<uint8_t>* dst,
                int64_t* nbits) {
  if (count <= 0) return;
  dst->resize(static_cast<size_t>(bit_util::BytesForBits(*nbits + count)), 0);
  if (src == nullptr) {
    for (int64_t i = 0; i < count; ++i) bit_util::SetBit(dst->data(), *nbits + i);
  } else if (*nbits % 8 == 0 && src_offset % 8 == 0) {
    std::memcpy(dst->data() + *nbits / 8, src + src_offset / 8,
                static_cast<size_t>(bit_util::BytesForBits(count)));
    // Clear bits copied past the end.
    int64_t end = *nbits + count;
    if (end % 8 != 0) dst->back() &= static_cast<uint8_t>((1u << (end % 8)) - 1);
  } else {
    for (int64_t i = 0; i < count; ++i) {
      bit_util::SetBitTo(dst->data(), *nbits + i, bit_util::GetBit(src, src_offset + i));
    }
  }
  *nbits += count;
}

Status InitLeafValues(const array::DataType& type, LeafValues* values) {
  using array::TypeId;
  values->Clear();
  values->fsl_dim = 0;
  values->item_bits = 0;
  values->large_offsets = false;
  if (type.is_dictionary()) {
    LANCEDB_RETURN_NOT_OK(array::ValidateDictionaryType(type));
    return InitLeafValues(*type.value_type(), values);
  }
  if (type.id() == TypeId::kNull) {
    values->kind = ValueKind::kNone;
    values->bits_per_value = 0;
    return Status::OK();
  }
  if (type.is_binary_like()) {
    values->kind = ValueKind::kVariable;
    values->large_offsets = type.has_large_offsets();
    values->offsets.assign(1, 0);
    return Status::OK();
  }
  if (type.id() == TypeId::kFixedSizeList) {
    const auto& item = *type.value_type();
    if (!item.is_primitive() || item.bit_width() <= 0) {
      return Status::NotSupported("fixed_size_list of " + item.ToString() +
                                  " is not supported by the file writer yet");
    }
    values->kind = ValueKind::kFixed;
    values->fsl_dim = type.fixed_size();
    values->item_bits = item.bit_width();
    values->bits_per_value = static_cast<int64_t>(type.fixed_size()) * item.bit_width();
    return Status::OK();
  }
  if (type.bit_width() > 0) {
    values->kind = ValueKind::kFixed;
    values->bits_per_value = type.bit_width();
    return Status::OK();
  }
  return Status::NotSupported("No leaf encoding for type " + type.ToString());
}

void LeafValues::Materialize() {
  if (!external) return;
  data.assign(external->data(), external->data() + external->size());
  external.reset();
}

void LeafValues::Share() {
  if (kind != ValueKind::kFixed || bits_per_value % 8 != 0 || external || !item_validity.empty()) {
    return;
  }
  auto owner = std::make_shared<std::vector<uint8_t>>(std::move(data));
  data.clear();
  external = Buffer::Wrap(owner->data(), static_cast<int64_t>(owner->size()), owner);
}

void LeafValues::Clear() {
  num_values = 0;
  external.reset();
  data.clear();
  offsets.clear();
  if (kind == ValueKind::kVariable) offsets.push_back(0);
  item_validity.clear();
  max_value_bytes = 0;
}

int64_t LeafValues::ByteSize() const {
  return static_cast<int64_t>(data.size() + offsets.size() * 8 + item_validity.size()) +
         (external ? external->size() : 0);
}

void LeafValues::AppendFrom(const LeafValues& other, int64_t start, int64_t count) {
  if (count <= 0) return;
  Materialize();
  if (kind == ValueKind::kVariable) {
    int64_t begin = other.offsets[start];
    int64_t end = other.offsets[start + count];
    int64_t base = offsets.back() - begin;
    for (int64_t i = 1; i <= count; ++i) offsets.push_back(other.offsets[start + i] + base);
    data.insert(data.end(), other.data.begin() + begin, other.data.begin() + end);
  } else if (kind == ValueKind::kFixed) {
    int64_t nbits = num_values * bits_per_value;
    if (bits_per_value % 8 == 0) {
      int64_t width = bits_per_value / 8;
      const uint8_t* src = other.value_bytes();
      data.insert(data.end(), src + start * width, src + (start + count) * width);
    } else {
      AppendBits(other.data.data(), start * bits_per_value, count * bits_per_value, &data, &nbits);
    }
    if (!other.item_validity.empty() || !item_validity.empty()) {
      if (item_validity.empty()) {
        int64_t filled = 0;
        AppendBits(nullptr, 0, num_values * fsl_dim, &item_validity, &filled);
      }
      int64_t vbits = num_values * fsl_dim;
      const uint8_t* src = other.item_validity.empty() ? nullptr : other.item_validity.data();
      AppendBits(src, start * fsl_dim, count * fsl_dim, &item_validity, &vbits);
    }
  }
  num_values += count;
}

void LeafValues::AppendNullSlot() {
  Materialize();
  if (kind == ValueKind::kVariable) {
    offsets.push_back(offsets.back());
  } else if (kind == ValueKind::kFixed) {
    if (bits_per_value % 8 == 0) {
      data.insert(data.end(), static_cast<size_t>(bits_per_value / 8), 0);
    } else {
      int64_t nbits = num_values * bits_per_value;
      data.resize(static_cast<size_t>(bit_util::BytesForBits(nbits + bits_per_value)), 0);
    }
    if (!item_validity.empty()) {
      int64_t vbits = num_values * fsl_dim;
      AppendBits(nullptr, 0, fsl_dim, &item_validity, &vbits);
    }
  }
  ++num_values;
}

void LeafItems::AddDictionary(const array::ArrayPtr& dictionary) {
  for (const auto& d : dictionaries) {
    if (d == dictionary) return;
  }
  dictionaries.push_back(dictionary);
}

void LeafItems::Clear() {
  num_rows = 0;
  rep.clear();
  codes.clear();
  values.Clear();
  num_invisible = 0;
  dictionaries.clear();
}

Result<array::ArrayPtr> LeafValuesToArray(const array::DataTypePtr& type, const LeafValues& v) {
  const int64_t n = v.num_values;
  if (v.kind == ValueKind::kVariable) {
    BufferPtr offsets;
    if (type->has_large_offsets()) {
      offsets = Buffer::FromVector(v.offsets);
    } else {
      if (v.offsets.back() > INT32_MAX) {
        return Status::NotSupported("More than 2 GiB of string data in one dictionary");
      }
      std::vector<int32_t> narrow(v.offsets.begin(), v.offsets.end());
      offsets = Buffer::FromVector(narrow);
    }
    return array::ArrayPtr(array::ArrayData::Make(
        type, n, {nullptr, std::move(offsets), Buffer::FromVector(v.data)}, {}, 0));
  }
  if (v.kind != ValueKind::kFixed || v.fsl_dim != 0 || v.bits_per_value % 8 != 0 ||
      type->byte_width() * 8 != v.bits_per_value) {
    return Status::Internal("Leaf values of " + std::to_string(v.bits_per_value) +
                            " bits cannot form an array of " + type->ToString());
  }
  const int64_t size = n * (v.bits_per_value / 8);
  BufferPtr data = v.external ? Buffer::Slice(v.external, 0, size)
                              : Buffer::Copy(v.data.data(), static_cast<int64_t>(size));
  return array::ArrayPtr(array::ArrayData::Make(type, n, {nullptr, std::move(data)}, {}, 0));
}

}  // namespace lancedb::format
