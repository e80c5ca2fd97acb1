// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Full-zip page decoder (lance-format.md §2.3): buffer 0 holds, per item, a control word
// ((rep << bits_def) | def; 0, 1, 2 or 4 bytes) followed by the value of a visible item —
// fixed width always, variable width (u32/u64 length + bytes) only for valid items. The
// repetition index (buffer 1) is not needed to decode a whole page.

#include <cstring>

#include "format/page_decoder.h"
#include "format/page_encoder.h"

namespace lancedb::format {

namespace pb = lance::encodings21;

namespace {

class FullZipDecoder final : public PageDecoder {
 public:
  Status Decode(const pb::PageLayout& layout, const PageContext& ctx,
                LeafItems* out) const override {
    auto st = DecodeImpl(layout.full_zip_layout(), ctx, out);
    return st.ok() ? st : st.WithContext("Full-zip page in " + ctx.where);
  }

 private:
  static Status CheckValueEncoding(const pb::FullZipLayout& fz, const LeafValues& layout) {
    const auto& e = fz.value_compression();
    if (fz.has_bits_per_offset()) {
      if (layout.kind != ValueKind::kVariable || !e.has_variable() || e.variable().has_values() ||
          !e.variable().offsets().has_flat() ||
          (fz.bits_per_offset() != 32 && fz.bits_per_offset() != 64)) {
        return Status::NotSupported("value encoding " + EncodingName(e) + " is not supported yet");
      }
      return Status::OK();
    }
    const bool flat = e.has_flat() && !e.flat().has_data();
    const bool fsl = e.has_fixed_size_list() && !e.fixed_size_list().has_validity() &&
                     e.fixed_size_list().values().has_flat() &&
                     !e.fixed_size_list().values().flat().has_data();
    if (layout.kind != ValueKind::kFixed || !(flat || fsl) ||
        static_cast<int64_t>(fz.bits_per_value()) != layout.bits_per_value ||
        layout.bits_per_value % 8 != 0) {
      return Status::NotSupported("value encoding " + EncodingName(e) + " is not supported yet");
    }
    return Status::OK();
  }

  static Status DecodeImpl(const pb::FullZipLayout& fz, const PageContext& ctx, LeafItems* out) {
    const LeafPath& path = *ctx.path;
    LANCEDB_RETURN_NOT_OK(CheckValueEncoding(fz, ctx.value_layout));
    if (ctx.buffers.empty()) return Status::Corruption("missing buffers");
    if (fz.bits_rep() > 16 || fz.bits_def() > 16) return Status::Corruption("bad level widths");
    const auto zipped = ctx.buffers[0]->span();
    const int cw = FullZipControlWordBytes(fz.bits_rep(), fz.bits_def());
    const bool has_rep = fz.bits_rep() > 0;
    const bool has_def = fz.bits_def() > 0;
    const uint16_t max_visible = MaxVisibleDefinition(fz.layers());
    const bool variable = fz.has_bits_per_offset();
    const int offset_bytes = variable ? static_cast<int>(fz.bits_per_offset() / 8) : 0;
    const int64_t value_bytes = variable ? 0 : static_cast<int64_t>(fz.bits_per_value() / 8);
    const int64_t num_items = static_cast<int64_t>(fz.num_items());
    out->num_rows = ctx.num_rows;
    out->values = ctx.value_layout;
    LeafValues& v = out->values;
    std::vector<uint16_t> rep;
    std::vector<uint16_t> def;
    int64_t pos = 0;
    auto need = [&](int64_t n) -> Status {
      if (pos + n > static_cast<int64_t>(zipped.size())) {
        return Status::Corruption("zipped buffer is truncated");
      }
      return Status::OK();
    };
    for (int64_t i = 0; i < num_items; ++i) {
      uint64_t word = 0;
      LANCEDB_RETURN_NOT_OK(need(cw));
      std::memcpy(&word, zipped.data() + pos, static_cast<size_t>(cw));
      pos += cw;
      const uint16_t r = static_cast<uint16_t>(word >> fz.bits_def());
      const uint16_t d = static_cast<uint16_t>(word & ((1u << fz.bits_def()) - 1));
      if (has_rep) rep.push_back(r);
      if (has_def) def.push_back(d);
      const bool visible = !(has_rep && has_def) || d <= max_visible;
      if (!visible) continue;
      if (variable) {
        if (d == 0) {
          uint64_t len = 0;
          LANCEDB_RETURN_NOT_OK(need(offset_bytes));
          std::memcpy(&len, zipped.data() + pos, static_cast<size_t>(offset_bytes));
          pos += offset_bytes;
          LANCEDB_RETURN_NOT_OK(need(static_cast<int64_t>(len)));
          v.data.insert(v.data.end(), zipped.begin() + pos, zipped.begin() + pos + len);
          pos += static_cast<int64_t>(len);
          v.offsets.push_back(v.offsets.back() + static_cast<int64_t>(len));
        } else {
          v.offsets.push_back(v.offsets.back());
        }
      } else {
        LANCEDB_RETURN_NOT_OK(need(value_bytes));
        v.data.insert(v.data.end(), zipped.begin() + pos, zipped.begin() + pos + value_bytes);
        pos += value_bytes;
      }
      v.num_values++;
    }
    if (path.max_rep > 0 && !has_rep) {
      // A page whose rows are all single items still needs rep levels for lists.
      rep.assign(static_cast<size_t>(num_items), static_cast<uint16_t>(path.max_rep));
    }
    LANCEDB_RETURN_NOT_OK(DefinitionToCodes(fz.layers(), path, def, num_items, &out->codes));
    if (path.max_rep > 0) out->rep = std::move(rep);
    return Status::OK();
  }
};

}  // namespace

std::shared_ptr<const PageDecoder> MakeFullZipDecoder() {
  return std::make_shared<FullZipDecoder>();
}

}  // namespace lancedb::format
