// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "format/page_encoder.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "common/bit_util.h"

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

EncodedPage ConstantPage(const LeafItems& items, const PageLevels& levels) {
  EncodedPage page;
  page.num_rows = items.num_rows;
  auto* layout = page.layout.mutable_constant_layout();
  for (auto l : levels.layers) layout->add_layers(l);
  bool simple = items.rep.empty();
  for (uint16_t c : items.codes) simple = simple && c == NullCode(0);
  if (simple) return page;
  // Raw u16 levels: buffer 0 repetition, buffer 1 definition (lance-format.md §2.3).
  page.buffers.push_back(Buffer::Copy(items.rep.data(), items.rep.size() * 2));
  page.buffers.push_back(Buffer::Copy(levels.def.data(), levels.def.size() * 2));
  layout->set_num_rep_values(items.rep.size());
  layout->set_num_def_values(levels.def.size());
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

// Defined in miniblock_writer.cc and fullzip_writer.cc.
Result<EncodedPage> EncodeMiniBlock(const LeafPath& path, const LeafItems& items,
                                    const PageLevels& levels, const pb::CompressiveEncoding& value,
                                    bool with_validity);
Result<EncodedPage> EncodeFullZip(const LeafPath& path, const LeafItems& items,
                                  const PageLevels& levels, const pb::CompressiveEncoding& value);

Result<EncodedPage> EncodePage(const LeafPath& path, const LeafItems& items) {
  PageLevels levels = ComputePageLevels(path, items);
  const LeafValues& v = items.values;
  bool any_valid = false;
  for (uint16_t c : items.codes) {
    if (c == 0) {
      any_valid = true;
      break;
    }
  }
  if (!any_valid || v.kind == ValueKind::kNone) return ConstantPage(items, levels);
  const bool with_validity = !v.item_validity.empty();
  pb::CompressiveEncoding value = ValueEncoding(v, with_validity);
  const int64_t value_bytes =
      v.kind == ValueKind::kVariable ? v.max_value_bytes : (v.bits_per_value + 7) / 8;
  if (value_bytes >= kFullZipMinValueBytes && !with_validity) {
    return EncodeFullZip(path, items, levels, value);
  }
  return EncodeMiniBlock(path, items, levels, value, with_validity);
}

}  // namespace lancedb::format
