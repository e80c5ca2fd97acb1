// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "format/shredder.h"

#include <algorithm>
#include <cstring>

#include "array/dictionary.h"

namespace lancedb::format {
namespace {

using array::ArrayData;
using array::TypeId;

Status BuildPaths(const LanceField& field, const array::DataType& type, LeafPath prefix,
                  std::vector<LeafPath>* out) {
  prefix.nullable.push_back(field.nullable);
  if (type.id() == TypeId::kStruct) {
    if (field.children.size() != type.fields().size()) {
      return Status::Internal("Struct field '" + field.name + "' children mismatch");
    }
    if (field.children.empty()) {
      return Status::NotSupported("Struct field '" + field.name + "' has no members");
    }
    prefix.steps.push_back(StepKind::kStruct);
    for (size_t i = 0; i < field.children.size(); ++i) {
      LeafPath p = prefix;
      p.child_index.push_back(static_cast<int>(i));
      LANCEDB_RETURN_NOT_OK(BuildPaths(field.children[i], *type.fields()[i]->type(), p, out));
    }
    return Status::OK();
  }
  if (type.id() == TypeId::kList || type.id() == TypeId::kLargeList) {
    prefix.steps.push_back(StepKind::kList);
    prefix.child_index.push_back(0);
    prefix.max_rep++;
    return BuildPaths(field.children.at(0), *type.value_type(), std::move(prefix), out);
  }
  if (!field.children.empty()) {
    return Status::NotSupported("Field '" + field.name + "' of type " + type.ToString() +
                                " is not supported by the file writer yet");
  }
  prefix.steps.push_back(StepKind::kLeaf);
  prefix.field_id = field.id;
  LeafValues probe;
  LANCEDB_RETURN_NOT_OK(InitLeafValues(type, &probe));
  out->push_back(std::move(prefix));
  return Status::OK();
}

std::pair<int64_t, int64_t> ListRange(const ArrayData& a, int64_t index) {
  int64_t i = a.offset + index;
  if (a.type->id() == TypeId::kLargeList) {
    const auto* off = a.buffers[1]->data_as<int64_t>();
    return {off[i], off[i + 1]};
  }
  const auto* off = a.buffers[1]->data_as<int32_t>();
  return {off[i], off[i + 1]};
}

bool ArrayIsNull(const ArrayData& a, int64_t index) {
  if (a.type->id() == TypeId::kNull) return true;
  return a.IsNull(index);
}

}  // namespace

Result<std::vector<LeafPath>> BuildLeafPaths(const LanceSchema& schema) {
  std::vector<LeafPath> out;
  for (const auto& field : schema.fields()) {
    LANCEDB_ASSIGN_OR_RETURN(array::DataTypePtr type, field.ToArrowType());
    std::vector<LeafPath> paths;
    LANCEDB_RETURN_NOT_OK(BuildPaths(field, *type, LeafPath{}, &paths));
    for (auto& p : paths) {
      // Resolve the leaf's Arrow type by following the path.
      const array::DataTypePtr* leaf = &type;
      for (size_t d = 0; d + 1 < p.steps.size(); ++d) {
        leaf = &(*leaf)->fields()[p.child_index[d]]->type();
      }
      p.leaf_type = *leaf;
      out.push_back(std::move(p));
    }
  }
  return out;
}

std::vector<int> LeafTopLevelIndex(const LanceSchema& schema) {
  std::vector<int> out;
  for (size_t i = 0; i < schema.fields().size(); ++i) {
    LanceSchema one({schema.fields()[i]}, {});
    for (int32_t id : one.LeafFieldIds()) {
      (void)id;
      out.push_back(static_cast<int>(i));
    }
  }
  return out;
}

Shredder::Shredder(const LeafPath& path, const ArrayData& top) : path_(path) {
  const ArrayData* a = &top;
  arrays_.push_back(a);
  for (int d = 0; d + 1 < path.depth(); ++d) {
    a = a->children[path.child_index[d]].get();
    arrays_.push_back(a);
  }
}

Result<Shredder> Shredder::Make(const LeafPath& path, const ArrayData& top) {
  Shredder shredder(path, top);
  const ArrayData& leaf = *shredder.arrays_.back();
  if (leaf.type->is_dictionary()) {
    LANCEDB_ASSIGN_OR_RETURN(shredder.decoded_leaf_,
                             array::DictionaryDecode(std::make_shared<ArrayData>(leaf)));
    shredder.dictionary_ = leaf.dictionary;
    shredder.arrays_.back() = shredder.decoded_leaf_.get();
  }
  return shredder;
}

void Shredder::AppendRow(int64_t row, LeafItems* out) {
  if (dictionary_) out->AddDictionary(dictionary_);
  pending_rep_ = static_cast<uint16_t>(path_.max_rep);
  Visit(0, row, out);
  out->num_rows++;
}

void Shredder::AppendRows(int64_t begin, int64_t end, LeafItems* out) {
  if (dictionary_ && begin < end) out->AddDictionary(dictionary_);
  const ArrayData& a = *arrays_[0];
  LeafValues& v = out->values;
  const bool bulk =
      path_.depth() == 1 && v.fsl_dim == 0 &&
      (v.kind == ValueKind::kNone || (v.kind == ValueKind::kFixed && v.bits_per_value % 8 == 0));
  if (!bulk) {
    for (int64_t row = begin; row < end; ++row) AppendRow(row, out);
    return;
  }
  const int64_t count = end - begin;
  const size_t first_code = out->codes.size();
  out->codes.resize(first_code + static_cast<size_t>(count), 0);
  if (v.kind == ValueKind::kNone) {
    std::fill(out->codes.begin() + first_code, out->codes.end(), NullCode(0));
  } else {
    const int64_t width = v.bits_per_value / 8;
    const size_t first_byte = v.data.size();
    const uint8_t* src = a.buffers[1]->data() + (a.offset + begin) * width;
    v.data.insert(v.data.end(), src, src + count * width);
    if (a.null_count != 0 && !a.buffers.empty() && a.buffers[0] != nullptr) {
      for (int64_t i = 0; i < count; ++i) {
        if (a.IsNull(begin + i)) {
          out->codes[first_code + i] = NullCode(0);
          std::memset(v.data.data() + first_byte + i * width, 0, static_cast<size_t>(width));
        }
      }
    }
    v.max_value_bytes = std::max(v.max_value_bytes, width);
  }
  v.num_values += count;
  out->num_rows += count;
}

void Shredder::EmitItem(uint16_t code, LeafItems* out) {
  if (path_.max_rep > 0) out->rep.push_back(pending_rep_);
  pending_rep_ = 0;
  out->codes.push_back(code);
}

void Shredder::Visit(int d, int64_t index, LeafItems* out) {
  const ArrayData& a = *arrays_[d];
  if (path_.steps[d] == StepKind::kList) {
    // A list instance starts here (null, empty or not): its level is the item's repetition.
    pending_rep_ = std::max<uint16_t>(pending_rep_, static_cast<uint16_t>(path_.RepLevelOf(d)));
  }
  if (ArrayIsNull(a, index)) {
    EmitAbsent(d, index, /*empty=*/false, out);
    return;
  }
  switch (path_.steps[d]) {
    case StepKind::kList: {
      auto [start, end] = ListRange(a, index);
      if (start == end) {
        EmitAbsent(d, index, /*empty=*/true, out);
        return;
      }
      for (int64_t i = start; i < end; ++i) Visit(d + 1, i, out);
      return;
    }
    case StepKind::kStruct:
      Visit(d + 1, a.offset + index, out);
      return;
    case StepKind::kLeaf:
      EmitItem(0, out);
      AppendValue(index, out);
      return;
  }
}

void Shredder::EmitAbsent(int d, int64_t index, bool empty, LeafItems* out) {
  int layer = path_.LayerOf(d);
  // Every list below a null struct is masked too: the item starts an instance of each of them.
  pending_rep_ = std::max<uint16_t>(pending_rep_, static_cast<uint16_t>(path_.RepLevelOf(d)));
  EmitItem(empty ? EmptyCode(layer) : NullCode(layer), out);
  if (path_.HasListAtOrBelow(d)) {  // invisible: no value slot
    out->num_invisible++;
    return;
  }
  out->values.AppendNullSlot();
}

void Shredder::AppendValue(int64_t index, LeafItems* out) const {
  const ArrayData& a = *arrays_.back();
  LeafValues& v = out->values;
  const int64_t i = a.offset + index;
  if (v.kind == ValueKind::kVariable) {
    int64_t begin;
    int64_t end;
    if (a.type->has_large_offsets()) {
      const auto* off = a.buffers[1]->data_as<int64_t>();
      begin = off[i];
      end = off[i + 1];
    } else {
      const auto* off = a.buffers[1]->data_as<int32_t>();
      begin = off[i];
      end = off[i + 1];
    }
    const uint8_t* bytes = a.buffers.size() > 2 && a.buffers[2] ? a.buffers[2]->data() : nullptr;
    if (end > begin) v.data.insert(v.data.end(), bytes + begin, bytes + end);
    v.offsets.push_back(v.offsets.back() + (end - begin));
    v.max_value_bytes = std::max(v.max_value_bytes, end - begin);
    v.num_values++;
    return;
  }
  if (v.kind == ValueKind::kNone) {
    v.num_values++;
    return;
  }
  // Fixed width, possibly a fixed-size list of a primitive.
  const ArrayData* values = &a;
  int64_t first = i;
  int64_t count = 1;
  if (v.fsl_dim > 0) {
    values = a.children[0].get();
    first = values->offset + i * v.fsl_dim;
    count = v.fsl_dim;
  }
  const int64_t item_bits = v.fsl_dim > 0 ? v.item_bits : v.bits_per_value;
  const uint8_t* src = values->buffers[1]->data();
  if (item_bits % 8 == 0) {
    int64_t width = item_bits / 8;
    v.data.insert(v.data.end(), src + first * width, src + (first + count) * width);
  } else {
    int64_t nbits = v.num_values * v.bits_per_value;
    AppendBits(src, first * item_bits, count * item_bits, &v.data, &nbits);
  }
  if (v.fsl_dim > 0) {
    const auto& validity = values->buffers.empty() ? nullptr : values->buffers[0];
    bool has_nulls = false;
    if (validity != nullptr) {
      for (int64_t k = 0; k < count && !has_nulls; ++k) {
        has_nulls = !bit_util::GetBit(validity->data(), first + k);
      }
    }
    if (has_nulls && v.item_validity.empty()) {
      int64_t filled = 0;
      AppendBits(nullptr, 0, v.num_values * v.fsl_dim, &v.item_validity, &filled);
    }
    if (has_nulls || !v.item_validity.empty()) {
      int64_t vbits = v.num_values * v.fsl_dim;
      AppendBits(has_nulls ? validity->data() : nullptr, first, count, &v.item_validity, &vbits);
    }
  }
  v.max_value_bytes = std::max(v.max_value_bytes, (v.bits_per_value + 7) / 8);
  v.num_values++;
}

}  // namespace lancedb::format
