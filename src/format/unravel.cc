// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Items are parsed top-down, one row at a time. An item whose code names the layer of the
// current step ends the descent there: a null (or empty list) at that step, null slots for the
// structs below it down to the first list, and a (null) value slot when no list is crossed.
// A list consumes elements while the next item's repetition level is below its own level.

#include "format/unravel.h"

#include <algorithm>
#include <cstring>

#include "array/dictionary.h"
#include "common/bit_util.h"

namespace lancedb::format {
namespace {

using array::ArrayData;
using array::DataTypePtr;
using array::TypeId;

class Unraveler {
 public:
  Unraveler(const LeafPath& path, const LeafItems& items, UnraveledLeaf* out)
      : path_(path), items_(items), out_(out) {}

  Status Run() {
    out_->steps.assign(static_cast<size_t>(path_.depth()), StepStructure{});
    if (path_.depth() == 1 && path_.steps[0] == StepKind::kLeaf) return RunLeaf();
    const int64_t n = items_.num_items();
    int64_t rows = 0;
    while (item_ < n) {
      LANCEDB_RETURN_NOT_OK(Element(0));
      ++rows;
    }
    if (rows != items_.num_rows || value_ != items_.values.num_values) {
      return Status::Corruption("Levels describe " + std::to_string(rows) + " rows and " +
                                std::to_string(value_) + " values, expected " +
                                std::to_string(items_.num_rows) + " and " +
                                std::to_string(items_.values.num_values));
    }
    return Status::OK();
  }

 private:
  /// A top-level leaf (no struct, no list): one item per row, each a value slot, valid when
  /// its code is 0 and else a null at the leaf's layer. What the general walk computes, in one
  /// pass.
  Status RunLeaf() {
    const int64_t n = items_.num_items();
    const uint16_t* codes = items_.codes.data();
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; ++i) nulls += codes[i] != 0 ? 1 : 0;
    StepStructure& s = out_->steps[0];
    if (nulls > 0) {
      s.validity.assign(static_cast<size_t>(bit_util::BytesForBits(n)), 0);
      for (int64_t i = 0; i < n; ++i) {
        const uint16_t code = codes[i];
        if (code == 0) {
          bit_util::SetBit(s.validity.data(), i);
        } else if (CodeLayer(code) != 0) {
          return Status::Corruption("Level code " + std::to_string(code) + " below its layer");
        } else if (CodeIsEmpty(code)) {
          return Status::Corruption("Empty-list level at a non-list layer");
        }
      }
    }
    s.length = n;
    s.null_count = nulls;
    item_ = value_ = n;
    if (n > items_.values.num_values) {
      return Status::Corruption("Levels describe more values than the pages hold");
    }
    if (n != items_.num_rows || n != items_.values.num_values) {
      return Status::Corruption("Levels describe " + std::to_string(n) + " rows and " +
                                std::to_string(value_) + " values, expected " +
                                std::to_string(items_.num_rows) + " and " +
                                std::to_string(items_.values.num_values));
    }
    return Status::OK();
  }

  void Push(int d, bool valid) {
    StepStructure& s = out_->steps[d];
    if (static_cast<int64_t>(s.validity.size()) * 8 <= s.length) s.validity.push_back(0);
    if (valid) {
      bit_util::SetBit(s.validity.data(), s.length);
    } else {
      s.null_count++;
    }
    s.length++;
  }

  Status ConsumeValue() {
    if (value_ >= items_.values.num_values) {
      return Status::Corruption("Levels describe more values than the pages hold");
    }
    ++value_;
    return Status::OK();
  }

  /// Null slots for step `d` and the steps below it, down to the first list.
  Status Mask(int d) {
    for (int e = d; e < path_.depth(); ++e) {
      Push(e, false);
      if (path_.steps[e] == StepKind::kList) {
        out_->steps[e].offsets.push_back(out_->steps[e].offsets.back());
        return Status::OK();
      }
      if (path_.steps[e] == StepKind::kLeaf) return ConsumeValue();
    }
    return Status::OK();
  }

  Status Element(int d) {
    if (item_ >= items_.num_items()) return Status::Corruption("Levels end inside a row");
    const uint16_t code = items_.codes[item_];
    const int layer = path_.LayerOf(d);
    const StepKind kind = path_.steps[d];
    if (code != 0 && CodeLayer(code) == layer) {
      if (CodeIsEmpty(code) && kind != StepKind::kList) {
        return Status::Corruption("Empty-list level at a non-list layer");
      }
      const bool empty = CodeIsEmpty(code);
      Push(d, empty);
      if (kind == StepKind::kList) {
        out_->steps[d].offsets.push_back(out_->steps[d].offsets.back());
      } else if (kind == StepKind::kLeaf) {
        LANCEDB_RETURN_NOT_OK(ConsumeValue());
      } else {
        LANCEDB_RETURN_NOT_OK(Mask(d + 1));
      }
      ++item_;
      return Status::OK();
    }
    if (code != 0 && CodeLayer(code) > layer) {
      return Status::Corruption("Level code " + std::to_string(code) + " below its layer");
    }
    Push(d, true);
    switch (kind) {
      case StepKind::kStruct:
        return Element(d + 1);
      case StepKind::kLeaf:
        ++item_;
        return ConsumeValue();
      case StepKind::kList: {
        const uint16_t level = static_cast<uint16_t>(path_.RepLevelOf(d));
        int64_t count = 0;
        do {
          LANCEDB_RETURN_NOT_OK(Element(d + 1));
          ++count;
        } while (item_ < items_.num_items() && items_.rep[item_] < level);
        out_->steps[d].offsets.push_back(out_->steps[d].offsets.back() + count);
        return Status::OK();
      }
    }
    return Status::OK();
  }

  const LeafPath& path_;
  const LeafItems& items_;
  UnraveledLeaf* out_;
  int64_t item_ = 0;
  int64_t value_ = 0;
};

int CountLeaves(const array::DataType& type) {
  if (type.id() == TypeId::kStruct) {
    int n = 0;
    for (const auto& f : type.fields()) n += CountLeaves(*f->type());
    return n;
  }
  if (type.id() == TypeId::kList || type.id() == TypeId::kLargeList) {
    return CountLeaves(*type.value_type());
  }
  return 1;
}

array::ArrayPtr MakeArray(DataTypePtr type, int64_t length, std::vector<BufferPtr> buffers,
                          std::vector<array::ArrayPtr> children, int64_t null_count) {
  return ArrayData::Make(std::move(type), length, std::move(buffers), std::move(children),
                         null_count);
}

BufferPtr ValidityBuffer(const StepStructure& s) {
  if (s.null_count == 0) return nullptr;
  return Buffer::Copy(s.validity.data(), static_cast<int64_t>(s.validity.size()));
}

BufferPtr BitsBuffer(const std::vector<uint8_t>& bits, int64_t nbits) {
  const int64_t size = bit_util::BytesForBits(nbits);
  auto buffer = Buffer::Allocate(size);
  const int64_t copy = std::min<int64_t>(size, static_cast<int64_t>(bits.size()));
  if (copy > 0) std::memcpy(buffer->mutable_data(), bits.data(), static_cast<size_t>(copy));
  return buffer;
}

Result<array::ArrayPtr> LeafArray(const DataTypePtr& type, const LeafValues& v,
                                  const StepStructure& s);

/// A dictionary leaf: its decoded values encoded again, with the dictionaries they came from
/// first (so a page's dictionary comes back as stored, unused values included).
Result<array::ArrayPtr> DictionaryLeafArray(const DataTypePtr& type, const UnraveledLeaf& leaf,
                                            const StepStructure& s) {
  LANCEDB_ASSIGN_OR_RETURN(auto values, LeafArray(type->value_type(), leaf.values, s));
  auto encoded = array::DictionaryEncode(values, type, leaf.dictionaries);
  // Stored dictionaries too large for the index type: keep only the values used.
  if (!encoded.ok() && !leaf.dictionaries.empty()) return array::DictionaryEncode(values, type);
  return encoded;
}

Result<array::ArrayPtr> LeafArray(const DataTypePtr& type, const LeafValues& v,
                                  const StepStructure& s) {
  const int64_t n = s.length;
  if (v.num_values != n) return Status::Corruption("Leaf value count mismatch");
  if (type->id() == TypeId::kNull) return MakeArray(type, n, {}, {}, n);
  if (v.kind == ValueKind::kVariable) {
    BufferPtr offsets;
    if (type->has_large_offsets()) {
      offsets = Buffer::FromVector(v.offsets);
    } else {
      if (v.offsets.back() > INT32_MAX) {
        return Status::NotSupported("More than 2 GiB of string data in one read; use a large type");
      }
      std::vector<int32_t> narrow(v.offsets.begin(), v.offsets.end());
      offsets = Buffer::FromVector(narrow);
    }
    return MakeArray(type, n, {ValidityBuffer(s), offsets, Buffer::FromVector(v.data)}, {},
                     s.null_count);
  }
  BufferPtr data = v.external && v.external->size() >= bit_util::BytesForBits(n * v.bits_per_value)
                       ? v.external
                       : BitsBuffer(v.data, n * v.bits_per_value);
  if (v.fsl_dim == 0) {
    return MakeArray(type, n, {ValidityBuffer(s), data}, {}, s.null_count);
  }
  const int64_t items = n * v.fsl_dim;
  BufferPtr item_validity;
  int64_t item_nulls = 0;
  if (!v.item_validity.empty()) {
    item_nulls = items - bit_util::CountSetBits(v.item_validity.data(), 0, items);
    if (item_nulls > 0) item_validity = BitsBuffer(v.item_validity, items);
  }
  auto child = MakeArray(type->value_type(), items, {item_validity, data}, {}, item_nulls);
  return MakeArray(type, n, {ValidityBuffer(s)}, {child}, s.null_count);
}

Result<array::ArrayPtr> Build(const DataTypePtr& type, int d,
                              std::span<const UnraveledLeaf* const> leaves) {
  if (leaves.empty()) return Status::Internal("No leaves for " + type->ToString());
  const StepStructure& s = leaves[0]->steps.at(static_cast<size_t>(d));
  if (type->id() == TypeId::kStruct) {
    std::vector<array::ArrayPtr> children;
    size_t next = 0;
    for (const auto& f : type->fields()) {
      const size_t count = static_cast<size_t>(CountLeaves(*f->type()));
      if (next + count > leaves.size()) return Status::Internal("Leaf count mismatch");
      LANCEDB_ASSIGN_OR_RETURN(auto child, Build(f->type(), d + 1, leaves.subspan(next, count)));
      children.push_back(std::move(child));
      next += count;
    }
    return MakeArray(type, s.length, {ValidityBuffer(s)}, std::move(children), s.null_count);
  }
  if (type->id() == TypeId::kList || type->id() == TypeId::kLargeList) {
    LANCEDB_ASSIGN_OR_RETURN(auto child, Build(type->value_type(), d + 1, leaves));
    BufferPtr offsets;
    if (type->id() == TypeId::kLargeList) {
      offsets = Buffer::FromVector(s.offsets);
    } else {
      std::vector<int32_t> narrow(s.offsets.begin(), s.offsets.end());
      offsets = Buffer::FromVector(narrow);
    }
    return MakeArray(type, s.length, {ValidityBuffer(s), offsets}, {child}, s.null_count);
  }
  if (type->is_dictionary()) return DictionaryLeafArray(type, *leaves[0], s);
  return LeafArray(type, leaves[0]->values, s);
}

}  // namespace

Result<UnraveledLeaf> Unravel(const LeafPath& path, LeafItems items) {
  if (path.max_rep > 0 && items.rep.size() != items.codes.size()) {
    return Status::Corruption("List column with " + std::to_string(items.rep.size()) +
                              " repetition levels for " + std::to_string(items.codes.size()) +
                              " items");
  }
  UnraveledLeaf out;
  Unraveler unraveler(path, items, &out);
  LANCEDB_RETURN_NOT_OK(unraveler.Run());
  out.values = std::move(items.values);
  out.dictionaries = std::move(items.dictionaries);
  return out;
}

Result<array::ArrayPtr> AssembleField(const DataTypePtr& type,
                                      const std::vector<const UnraveledLeaf*>& leaves) {
  if (static_cast<int>(leaves.size()) != CountLeaves(*type)) {
    return Status::Internal("Field of type " + type->ToString() + " needs " +
                            std::to_string(CountLeaves(*type)) + " leaves, got " +
                            std::to_string(leaves.size()));
  }
  return Build(type, 0, leaves);
}

}  // namespace lancedb::format
