// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "format/page_encoder.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "array/dictionary.h"
#include "common/bit_util.h"
#include "format/page_decoder.h"

namespace lancedb::format {

namespace pb = lance::encodings21;

namespace {

/// Values of at least this many bytes go to a full-zip page (lance-format.md §2.3).
constexpr int64_t kFullZipMinValueBytes = 256;

pb::CompressiveEncoding FlatEncoding(int64_t bits) {
  pb::CompressiveEncoding e;
  e.mutable_flat()->set_bits_per_value(static_cast<uint64_t>(bits));
  return e;
}

/// The value compression of a leaf (no compression: Flat, FSL over Flat, Variable).
pb::CompressiveEncoding ValueEncoding(const LeafValues& v, bool with_validity) {
  if (v.kind == ValueKind::kVariable) {
    pb::CompressiveEncoding e;
    *e.mutable_variable()->mutable_offsets() = FlatEncoding(v.large_offsets ? 64 : 32);
    return e;
  }
  if (v.fsl_dim > 0) {
    pb::CompressiveEncoding e;
    auto* fsl = e.mutable_fixed_size_list();
    fsl->set_items_per_value(static_cast<uint64_t>(v.fsl_dim));
    fsl->set_has_validity(with_validity);
    *fsl->mutable_values() = FlatEncoding(v.item_bits);
    return e;
  }
  return FlatEncoding(v.bits_per_value);
}

EncodedPage ConstantPage(const LeafItems& items, const PageLevels& levels, int minor_version) {
  EncodedPage page;
  page.num_rows = items.num_rows;
  auto* layout = page.layout.mutable_constant_layout();
  for (auto l : levels.layers) layout->add_layers(l);
  bool simple = items.rep.empty();
  for (uint16_t c : items.codes) simple = simple && c == NullCode(0);
  // A 2.1 reader takes a page without level buffers only for a single nullable layer.
  if (minor_version < 2) simple = simple && levels.layers.size() == 1;
  if (simple) return page;
  // Raw u16 levels: buffer 0 repetition, buffer 1 definition (lance-format.md §2.3).
  page.buffers.push_back(Buffer::Copy(items.rep.data(), items.rep.size() * 2));
  page.buffers.push_back(Buffer::Copy(levels.def.data(), levels.def.size() * 2));
  if (minor_version >= 2) {
    layout->set_num_rep_values(items.rep.size());
    layout->set_num_def_values(levels.def.size());
  }
  return page;
}

}  // namespace

PageLevels ComputePageLevels(const LeafPath& path, const LeafItems& items) {
  const int num_layers = path.depth();
  std::vector<bool> has_null(num_layers, false);
  std::vector<bool> has_empty(num_layers, false);
  for (uint16_t c : items.codes) {
    if (c == 0) continue;
    (CodeIsEmpty(c) ? has_empty : has_null)[CodeLayer(c)] = true;
  }
  // A null struct makes its members null: as Lance, every item layer below a struct layer with
  // nulls (down to the next list) is declared nullable, or Lance reads the members of a null
  // struct as valid values.
  std::vector<bool> nullable = has_null;
  for (int layer = num_layers - 1, above = 0; layer >= 0; --layer) {
    if (path.steps[path.depth() - 1 - layer] == StepKind::kList) {
      above = 0;
      continue;
    }
    if (above) nullable[layer] = true;
    if (has_null[layer]) above = 1;
  }
  PageLevels out;
  // code -> def level, indexed by code.
  std::vector<uint16_t> def_of(2 * num_layers + 1, 0);
  uint16_t next = 1;
  bool seen_list = false;
  for (int layer = 0; layer < num_layers; ++layer) {
    int d = path.depth() - 1 - layer;
    bool is_list = path.steps[d] == StepKind::kList;
    if (is_list && !seen_list) {
      seen_list = true;
      out.max_visible_def = static_cast<uint16_t>(next - 1);
    }
    if (!is_list) {
      out.layers.push_back(nullable[layer] ? pb::REPDEF_NULLABLE_ITEM : pb::REPDEF_ALL_VALID_ITEM);
      if (nullable[layer]) def_of[NullCode(layer)] = next++;
      continue;
    }
    if (has_null[layer] && has_empty[layer]) {
      out.layers.push_back(pb::REPDEF_NULL_AND_EMPTY_LIST);
      def_of[NullCode(layer)] = next++;
      def_of[EmptyCode(layer)] = next++;
    } else if (has_null[layer]) {
      out.layers.push_back(pb::REPDEF_NULLABLE_LIST);
      def_of[NullCode(layer)] = next++;
    } else if (has_empty[layer]) {
      out.layers.push_back(pb::REPDEF_EMPTYABLE_LIST);
      def_of[EmptyCode(layer)] = next++;
    } else {
      out.layers.push_back(pb::REPDEF_ALL_VALID_LIST);
    }
  }
  out.max_def = static_cast<uint16_t>(next - 1);
  if (out.max_def > 0) {
    out.def.reserve(items.codes.size());
    for (uint16_t c : items.codes) out.def.push_back(def_of[c]);
  }
  return out;
}

namespace {

/// The value slots of `items` as an Arrow array of `type`, null where the item is not valid.
Result<array::ArrayPtr> SlotValues(const LeafPath& path, const LeafItems& items,
                                   const array::DataTypePtr& type) {
  LANCEDB_ASSIGN_OR_RETURN(auto plain, LeafValuesToArray(type, items.values));
  const int64_t n = items.values.num_values;
  auto validity = Buffer::Allocate(bit_util::BytesForBits(n));
  int64_t slot = 0;
  for (uint16_t code : items.codes) {
    if (!CodeIsVisible(path, code)) continue;
    if (slot >= n) break;
    if (code == 0) bit_util::SetBit(validity->mutable_data(), slot);
    ++slot;
  }
  auto out = std::make_shared<array::ArrayData>(*plain);
  out->buffers[0] = std::move(validity);
  out->null_count = array::ComputeNullCount(*out);
  return array::ArrayPtr(std::move(out));
}

/// The block form of a page dictionary (lance-format.md §2.3): raw values for fixed width;
/// u32|u64 bits_per_offset, u32|u64 bytes_start, (n + 1) offsets from 0, bytes for variable.
std::pair<BufferPtr, pb::CompressiveEncoding> DictionaryBlock(const array::ArrayData& dict) {
  const array::DataType& type = *dict.type;
  const int64_t n = dict.length;
  if (!type.is_binary_like()) {
    const int64_t width = type.byte_width();
    return {Buffer::Copy(dict.buffers[1]->data() + dict.offset * width, n * width),
            FlatEncoding(width * 8)};
  }
  const bool large = type.has_large_offsets();
  const int64_t word = large ? 8 : 4;
  BufferBuilder out;
  auto put = [&](int64_t v) {
    if (large) {
      out.AppendValue<uint64_t>(static_cast<uint64_t>(v));
    } else {
      out.AppendValue<uint32_t>(static_cast<uint32_t>(v));
    }
  };
  put(word * 8);
  put(2 * word + (n + 1) * word);
  int64_t end = 0;
  put(0);
  for (int64_t i = 0; i < n; ++i) {
    end += static_cast<int64_t>(dict.GetView(i).size());
    put(end);
  }
  for (int64_t i = 0; i < n; ++i) {
    std::string_view v = dict.GetView(i);
    out.Append(reinterpret_cast<const uint8_t*>(v.data()), static_cast<int64_t>(v.size()));
  }
  pb::CompressiveEncoding e;
  *e.mutable_variable()->mutable_offsets() = FlatEncoding(word * 8);
  return {out.Finish(), e};
}

/// A page of a dictionary leaf, as Lance writes one: a mini-block page of indices of the index
/// type's width with the page dictionary in buffer 2 (the repetition index, if any, follows).
/// The dictionary starts with the input dictionaries (LeafItems::dictionaries).
Result<EncodedPage> EncodeDictionaryPage(const LeafPath& path, const LeafItems& items,
                                         const PageLevels& levels, int minor_version) {
  const array::DataTypePtr& type = path.leaf_type;
  LANCEDB_ASSIGN_OR_RETURN(auto values, SlotValues(path, items, type->value_type()));
  auto encoded = array::DictionaryEncode(values, type, items.dictionaries);
  if (!encoded.ok() && !items.dictionaries.empty()) {
    // The input dictionaries together outgrow the index type: keep the values used.
    encoded = array::DictionaryEncode(values, type);
  }
  LANCEDB_RETURN_NOT_OK(encoded.status());
  const array::ArrayData& dict_array = **encoded;
  const int64_t index_bits = type->index_type()->byte_width() * 8;
  LeafItems indexed;
  indexed.num_rows = items.num_rows;
  indexed.rep = items.rep;
  indexed.codes = items.codes;
  indexed.values = FixedLayout(index_bits);
  indexed.values.num_values = dict_array.length;
  const uint8_t* indices = dict_array.buffers[1]->data();
  indexed.values.data.assign(indices, indices + dict_array.length * (index_bits / 8));
  indexed.values.max_value_bytes = index_bits / 8;
  LANCEDB_ASSIGN_OR_RETURN(
      EncodedPage page,
      EncodeMiniBlock(path, indexed, levels, FlatEncoding(index_bits), false, minor_version));
  auto [dictionary, encoding] = DictionaryBlock(*dict_array.dictionary);
  page.buffers.insert(page.buffers.begin() + 2, std::move(dictionary));
  auto* mb = page.layout.mutable_mini_block_layout();
  *mb->mutable_dictionary() = std::move(encoding);
  mb->set_num_dictionary_items(static_cast<uint64_t>(dict_array.dictionary->length));
  return page;
}

}  // namespace

Result<EncodedPage> EncodePage(const LeafPath& path, const LeafItems& items, int minor_version) {
  PageLevels levels = ComputePageLevels(path, items);
  const LeafValues& v = items.values;
  bool any_valid = false;
  for (uint16_t c : items.codes) {
    if (c == 0) {
      any_valid = true;
      break;
    }
  }
  if (!any_valid || v.kind == ValueKind::kNone) return ConstantPage(items, levels, minor_version);
  if (path.leaf_type != nullptr && path.leaf_type->is_dictionary()) {
    return EncodeDictionaryPage(path, items, levels, minor_version);
  }
  const bool with_validity = !v.item_validity.empty();
  pb::CompressiveEncoding value = ValueEncoding(v, with_validity);
  const int64_t value_bytes =
      v.kind == ValueKind::kVariable ? v.max_value_bytes : (v.bits_per_value + 7) / 8;
  if (value_bytes >= kFullZipMinValueBytes && !with_validity) {
    return EncodeFullZip(path, items, levels, value);
  }
  return EncodeMiniBlock(path, items, levels, value, with_validity, minor_version);
}

}  // namespace lancedb::format
