// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Full-zip page decoder (lance-format.md §2.3): buffer 0 holds, per item, a control word
// ((rep << bits_def) | def; 0, 1, 2 or 4 bytes) followed by the value of a visible item —
// fixed width always, variable width (u32/u64 length + bytes) only for valid items. Variable
// values may be compressed one by one (FSST codes with the page's symbol table, or General
// lz4/zstd framing per value); a fixed-size list with item validity zips ceil(dim/8) validity
// bytes before each value's items. The repetition index (buffer 1) is not needed to decode a whole
// page.

#include <cstring>
#include <optional>

#include "format/fsst.h"
#include "format/general_compression.h"
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
  /// How the values of a page are stored per item.
  struct ValueForm {
    enum Transform { kNone, kFsst, kGeneral } transform = kNone;
    std::optional<FsstDecoder> fsst;
    pb::CompressionScheme scheme = pb::COMPRESSION_ALGORITHM_UNSPECIFIED;
    bool fsl_validity = false;  // fixed: [ceil(dim/8) validity bytes][items] per value
  };

  static Result<ValueForm> CheckValueEncoding(const pb::FullZipLayout& fz,
                                              const LeafValues& layout) {
    const auto& e = fz.value_compression();
    ValueForm form;
    if (fz.has_bits_per_offset()) {
      const pb::CompressiveEncoding* inner = &e;
      if (e.has_fsst()) {
        LANCEDB_ASSIGN_OR_RETURN(form.fsst, FsstDecoder::Make(e.fsst().symbol_table()));
        form.transform = ValueForm::kFsst;
        inner = &e.fsst().values();
      } else if (e.has_general()) {
        form.transform = ValueForm::kGeneral;
        form.scheme = e.general().compression().scheme();
        inner = &e.general().values();
      }
      const bool plain_variable = inner->has_variable() && !inner->variable().has_values();
      if (layout.kind != ValueKind::kVariable || !plain_variable ||
          (fz.bits_per_offset() != 32 && fz.bits_per_offset() != 64)) {
        return Status::NotSupported("value encoding " + EncodingName(e) + " is not supported");
      }
      return form;
    }
    const bool flat = e.has_flat() && !e.flat().has_data();
    const bool fsl = e.has_fixed_size_list() && e.fixed_size_list().values().has_flat() &&
                     !e.fixed_size_list().values().flat().has_data();
    int64_t bits = layout.bits_per_value;
    if (fsl && e.fixed_size_list().has_validity()) {
      form.fsl_validity = true;
      bits += (layout.fsl_dim + 7) / 8 * 8;
    }
    if (layout.kind != ValueKind::kFixed || !(flat || fsl) ||
        static_cast<int64_t>(fz.bits_per_value()) != bits || layout.bits_per_value % 8 != 0) {
      return Status::NotSupported("value encoding " + EncodingName(e) + " is not supported");
    }
    return form;
  }

  /// Apply the per-value transform of `form` to the raw values of a page.
  static Status Transform(const ValueForm& form, const LeafValues& raw, LeafValues* out) {
    if (form.transform == ValueForm::kFsst) return form.fsst->Decode(raw, out);
    for (int64_t i = 0; i < raw.num_values; ++i) {
      const int64_t a = raw.offsets[i];
      const int64_t b = raw.offsets[i + 1];
      if (b > a) {
        LANCEDB_RETURN_NOT_OK(DecompressGeneral(
            form.scheme, std::span<const uint8_t>(raw.data.data() + a, static_cast<size_t>(b - a)),
            &out->data));
      }
      out->offsets.push_back(static_cast<int64_t>(out->data.size()));
    }
    out->num_values += raw.num_values;
    return Status::OK();
  }

  /// Append one fixed value with its zipped FSL item validity.
  static void AppendValidityValue(const uint8_t* p, int64_t value_bytes, LeafValues* v) {
    const int64_t dim = v->fsl_dim;
    const int64_t vbytes = (dim + 7) / 8;
    if (v->item_validity.empty()) {
      int64_t filled = 0;
      AppendBits(nullptr, 0, v->num_values * dim, &v->item_validity, &filled);
    }
    int64_t vbits = v->num_values * dim;
    AppendBits(p, 0, dim, &v->item_validity, &vbits);
    v->data.insert(v->data.end(), p + vbytes, p + value_bytes);
  }

  static Status DecodeImpl(const pb::FullZipLayout& fz, const PageContext& ctx, LeafItems* out) {
    const LeafPath& path = *ctx.path;
    LANCEDB_ASSIGN_OR_RETURN(ValueForm form, CheckValueEncoding(fz, ctx.value_layout));
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
    LeafValues raw;
    if (form.transform != ValueForm::kNone) raw = ctx.value_layout;
    LeafValues& v = form.transform != ValueForm::kNone ? raw : out->values;
    std::vector<uint16_t> rep;
    std::vector<uint16_t> def;
    int64_t pos = 0;
    auto need = [&](int64_t n) -> Status {
      if (pos + n > static_cast<int64_t>(zipped.size())) {
        return Status::Corruption("zipped buffer is truncated");
      }
      return Status::OK();
    };
    if (cw == 0 && !variable && form.transform == ValueForm::kNone && !form.fsl_validity) {
      // Plain fixed-width values (vectors): the values are buffer 0 itself.
      if (num_items < 0 || value_bytes <= 0 ||
          num_items > static_cast<int64_t>(zipped.size()) / value_bytes) {
        return Status::Corruption("zipped buffer is truncated");
      }
      v.external = Buffer::Slice(ctx.buffers[0], 0, num_items * value_bytes);
      v.num_values = num_items;
      pos = num_items * value_bytes;
    }
    for (int64_t i = v.external ? num_items : 0; i < num_items; ++i) {
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
        if (form.fsl_validity) {
          AppendValidityValue(zipped.data() + pos, value_bytes, &v);
        } else {
          v.data.insert(v.data.end(), zipped.begin() + pos, zipped.begin() + pos + value_bytes);
        }
        pos += value_bytes;
      }
      v.num_values++;
    }
    if (form.transform != ValueForm::kNone)
      LANCEDB_RETURN_NOT_OK(Transform(form, raw, &out->values));
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
