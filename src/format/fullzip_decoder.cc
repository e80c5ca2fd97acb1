// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Full-zip page decoder (lance-format.md §2.3): buffer 0 holds, per item, a control word
// ((rep << bits_def) | def; 0, 1, 2 or 4 bytes) followed by the value of a visible item —
// fixed width always, variable width (u32/u64 length + bytes) only for valid items. Variable
// values may be compressed one by one (FSST codes with the page's symbol table, or General
// lz4/zstd framing per value); a fixed-size list with item validity zips ceil(dim/8) validity
// bytes before each value's items. The repetition index (buffer 1, rows + 1 byte offsets into
// buffer 0) is not needed to decode a whole page; takes use it to decode only the rows they need.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>

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

  /// Takes read their rows' index entries and zipped bytes by range.
  std::vector<size_t> RangeBuffers(const pb::PageLayout& layout) const override { return {0, 1}; }

  Result<bool> DecodeRows(const pb::PageLayout& layout, const PageContext& ctx,
                          std::span<const int64_t> rows, LeafItems* out) const override {
    auto taken = DecodeRowsImpl(layout.full_zip_layout(), ctx, rows, out);
    if (!taken.ok()) return taken.status().WithContext("Full-zip page in " + ctx.where);
    return taken;
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

  /// The geometry of a page's zipped buffer.
  struct Zipped {
    int cw = 0;  // control word bytes
    int bits_def = 0;
    bool has_rep = false;
    bool has_def = false;
    uint16_t max_visible = 0;
    bool variable = false;
    int offset_bytes = 0;     // variable: bytes of a value's length
    int64_t value_bytes = 0;  // fixed: bytes of a value
    bool fsl_validity = false;
  };

  static Result<Zipped> OpenZipped(const pb::FullZipLayout& fz, const PageContext& ctx,
                                   const ValueForm& form) {
    if (ctx.buffers.empty()) return Status::Corruption("missing buffers");
    if (fz.bits_rep() > 16 || fz.bits_def() > 16) return Status::Corruption("bad level widths");
    Zipped z;
    z.cw = FullZipControlWordBytes(fz.bits_rep(), fz.bits_def());
    z.bits_def = static_cast<int>(fz.bits_def());
    z.has_rep = fz.bits_rep() > 0;
    z.has_def = fz.bits_def() > 0;
    z.max_visible = MaxVisibleDefinition(fz.layers());
    z.variable = fz.has_bits_per_offset();
    z.offset_bytes = z.variable ? static_cast<int>(fz.bits_per_offset() / 8) : 0;
    z.value_bytes = z.variable ? 0 : static_cast<int64_t>(fz.bits_per_value() / 8);
    z.fsl_validity = form.fsl_validity;
    return z;
  }

  /// Decode the items at [pos, end) of `bytes` (zipped items): `max_items` of them, or, when
  /// `until_end`, as many as end exactly at `end`. Levels go to `rep`/`def`, values to `v`;
  /// `*num_items` counts the items read.
  static Status DecodeItems(const Zipped& z, std::span<const uint8_t> bytes, int64_t pos,
                            int64_t end, int64_t max_items, bool until_end,
                            std::vector<uint16_t>* rep, std::vector<uint16_t>* def, LeafValues* v,
                            int64_t* num_items) {
    auto need = [&](int64_t n) -> Status {
      if (pos + n > end) return Status::Corruption("zipped buffer is truncated");
      return Status::OK();
    };
    for (int64_t i = 0; i < max_items; ++i) {
      if (until_end && pos == end) break;
      uint64_t word = 0;
      LANCEDB_RETURN_NOT_OK(need(z.cw));
      std::memcpy(&word, bytes.data() + pos, static_cast<size_t>(z.cw));
      pos += z.cw;
      const uint16_t r = static_cast<uint16_t>(word >> z.bits_def);
      const uint16_t d = static_cast<uint16_t>(word & ((1u << z.bits_def) - 1));
      if (z.has_rep) rep->push_back(r);
      if (z.has_def) def->push_back(d);
      ++*num_items;
      const bool visible = !(z.has_rep && z.has_def) || d <= z.max_visible;
      if (!visible) continue;
      if (z.variable) {
        if (d == 0) {
          uint64_t len = 0;
          LANCEDB_RETURN_NOT_OK(need(z.offset_bytes));
          std::memcpy(&len, bytes.data() + pos, static_cast<size_t>(z.offset_bytes));
          pos += z.offset_bytes;
          if (len > static_cast<uint64_t>(end - pos)) {
            return Status::Corruption("zipped buffer is truncated");
          }
          v->data.insert(v->data.end(), bytes.begin() + pos, bytes.begin() + pos + len);
          pos += static_cast<int64_t>(len);
          v->offsets.push_back(v->offsets.back() + static_cast<int64_t>(len));
        } else {
          v->offsets.push_back(v->offsets.back());
        }
      } else {
        LANCEDB_RETURN_NOT_OK(need(z.value_bytes));
        if (z.fsl_validity) {
          AppendValidityValue(bytes.data() + pos, z.value_bytes, v);
        } else {
          v->data.insert(v->data.end(), bytes.begin() + pos, bytes.begin() + pos + z.value_bytes);
        }
        pos += z.value_bytes;
      }
      v->num_values++;
    }
    if (until_end && pos != end) return Status::Corruption("zipped row overruns its range");
    return Status::OK();
  }

  static Status DecodeImpl(const pb::FullZipLayout& fz, const PageContext& ctx, LeafItems* out) {
    const LeafPath& path = *ctx.path;
    LANCEDB_ASSIGN_OR_RETURN(ValueForm form, CheckValueEncoding(fz, ctx.value_layout));
    LANCEDB_ASSIGN_OR_RETURN(Zipped z, OpenZipped(fz, ctx, form));
    const int64_t num_items = static_cast<int64_t>(fz.num_items());
    out->num_rows = ctx.num_rows;
    out->values = ctx.value_layout;
    LeafValues raw;
    if (form.transform != ValueForm::kNone) raw = ctx.value_layout;
    LeafValues& v = form.transform != ValueForm::kNone ? raw : out->values;
    std::vector<uint16_t> rep;
    std::vector<uint16_t> def;
    if (!ctx.buffers[0]) return Status::Internal("zipped buffer unread");
    const auto zipped = ctx.buffers[0]->span();
    if (z.cw == 0 && !z.variable && form.transform == ValueForm::kNone && !form.fsl_validity) {
      // Plain fixed-width values (vectors): the values are buffer 0 itself.
      if (num_items < 0 || z.value_bytes <= 0 ||
          num_items > static_cast<int64_t>(zipped.size()) / z.value_bytes) {
        return Status::Corruption("zipped buffer is truncated");
      }
      v.external = Buffer::Slice(ctx.buffers[0], 0, num_items * z.value_bytes);
      v.num_values = num_items;
    } else {
      int64_t read = 0;
      LANCEDB_RETURN_NOT_OK(DecodeItems(z, zipped, 0, static_cast<int64_t>(zipped.size()),
                                        num_items, false, &rep, &def, &v, &read));
    }
    if (form.transform != ValueForm::kNone)
      LANCEDB_RETURN_NOT_OK(Transform(form, raw, &out->values));
    if (path.max_rep > 0 && !z.has_rep) {
      // A page whose rows are all single items still needs rep levels for lists.
      rep.assign(static_cast<size_t>(num_items), static_cast<uint16_t>(path.max_rep));
    }
    LANCEDB_RETURN_NOT_OK(DefinitionToCodes(fz.layers(), path, def, num_items, &out->codes));
    if (path.max_rep > 0) out->rep = std::move(rep);
    return Status::OK();
  }

  /// Index entries of runs closer than this are read at once.
  static constexpr int64_t kMaxIndexGap = 64 << 10;
  static constexpr int64_t kMaxIndexRead = 8 << 20;

  /// Entry `i` of a repetition index of `width`-byte offsets.
  static int64_t IndexEntry(std::span<const uint8_t> index, int width, int64_t i) {
    uint64_t offset = 0;
    std::memcpy(&offset, index.data() + i * width, static_cast<size_t>(width));
    return static_cast<int64_t>(std::min<uint64_t>(offset, INT64_MAX));
  }

  /// Rows are located by the repetition index (buffer 1: rows + 1 byte offsets into buffer 0)
  /// for variable values or lists, by arithmetic for fixed-width values without lists. Runs of
  /// consecutive rows read their index entries and zipped bytes by range.
  static Result<bool> DecodeRowsImpl(const pb::FullZipLayout& fz, const PageContext& ctx,
                                     std::span<const int64_t> rows, LeafItems* out) {
    const LeafPath& path = *ctx.path;
    LANCEDB_ASSIGN_OR_RETURN(ValueForm form, CheckValueEncoding(fz, ctx.value_layout));
    LANCEDB_ASSIGN_OR_RETURN(Zipped z, OpenZipped(fz, ctx, form));
    if (path.max_rep > 0 && !z.has_rep) return false;
    const bool indexed = z.variable || z.has_rep;
    int width = 0;
    const int64_t stride = z.cw + z.value_bytes;
    const int64_t size = PageBufferSize(ctx, 0);
    if (indexed) {
      const int64_t index_size = PageBufferSize(ctx, 1);
      if (index_size < 0) return false;
      const int64_t entries = ctx.num_rows + 1;
      width = static_cast<int>(index_size / entries);
      if (index_size % entries != 0 || (width != 1 && width != 2 && width != 4 && width != 8)) {
        return Status::Corruption("repetition index of " + std::to_string(index_size) +
                                  " bytes for " + std::to_string(ctx.num_rows) + " rows");
      }
    } else if (stride <= 0 || static_cast<int64_t>(fz.num_items()) != ctx.num_rows ||
               ctx.num_rows > size / stride) {
      return Status::Corruption("zipped buffer is truncated");
    }
    out->values.Materialize();
    LeafValues raw;
    if (form.transform != ValueForm::kNone) raw = ctx.value_layout;
    LeafValues& v = form.transform != ValueForm::kNone ? raw : out->values;
    std::vector<uint16_t> rep;
    std::vector<uint16_t> def;
    // Runs of consecutive rows, [first, end).
    std::vector<std::pair<int64_t, int64_t>> runs;
    for (size_t i = 0; i < rows.size();) {
      size_t j = i + 1;
      while (j < rows.size() && rows[j] == rows[j - 1] + 1) ++j;
      if (rows[i] < 0 || rows[j - 1] >= ctx.num_rows) {
        return Status::InvalidArgument("row " + std::to_string(rows[j - 1]) +
                                       " is not in the page");
      }
      runs.emplace_back(rows[i], rows[j - 1] + 1);
      i = j;
    }
    int64_t num_items = 0;
    BufferPtr window;  // index entries [window_first, window_last]
    int64_t window_first = 0;
    int64_t window_last = -1;
    for (size_t r = 0; r < runs.size(); ++r) {
      const auto [first, end] = runs[r];
      if (!indexed) {
        LANCEDB_ASSIGN_OR_RETURN(BufferPtr bytes,
                                 ReadPageRange(ctx, 0, first * stride, (end - first) * stride));
        LANCEDB_RETURN_NOT_OK(DecodeItems(z, bytes->span(), 0, bytes->size(), end - first, false,
                                          &rep, &def, &v, &num_items));
        continue;
      }
      if (end > window_last) {
        // Read the index entries of this run and of the following runs close to it at once.
        size_t k = r;
        while (k + 1 < runs.size() &&
               (runs[k + 1].first - runs[k].second) * width <= kMaxIndexGap &&
               (runs[k + 1].second - first + 1) * width <= kMaxIndexRead) {
          ++k;
        }
        window_first = first;
        window_last = runs[k].second;
        LANCEDB_ASSIGN_OR_RETURN(window, ReadPageRange(ctx, 1, window_first * width,
                                                       (window_last - window_first + 1) * width));
      }
      const int64_t begin_pos = IndexEntry(window->span(), width, first - window_first);
      const int64_t end_pos = IndexEntry(window->span(), width, end - window_first);
      if (begin_pos > end_pos || end_pos > size) {
        return Status::Corruption("repetition index points outside the zipped buffer");
      }
      LANCEDB_ASSIGN_OR_RETURN(BufferPtr bytes,
                               ReadPageRange(ctx, 0, begin_pos, end_pos - begin_pos));
      LANCEDB_RETURN_NOT_OK(DecodeItems(z, bytes->span(), 0, bytes->size(), INT64_MAX, true, &rep,
                                        &def, &v, &num_items));
    }
    if (form.transform != ValueForm::kNone)
      LANCEDB_RETURN_NOT_OK(Transform(form, raw, &out->values));
    std::vector<uint16_t> codes;
    LANCEDB_RETURN_NOT_OK(DefinitionToCodes(fz.layers(), path, def, num_items, &codes));
    out->codes.insert(out->codes.end(), codes.begin(), codes.end());
    if (path.max_rep > 0) out->rep.insert(out->rep.end(), rep.begin(), rep.end());
    out->num_rows += static_cast<int64_t>(rows.size());
    return true;
  }
};

}  // namespace

std::shared_ptr<const PageDecoder> MakeFullZipDecoder() {
  return std::make_shared<FullZipDecoder>();
}

}  // namespace lancedb::format
