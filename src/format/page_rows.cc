// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "format/page_rows.h"

#include "format/page_decoder.h"

namespace lancedb::format {

void DecodedItems::IndexRows(const LeafPath& path) {
  if (path.max_rep == 0) return;
  row_items.clear();
  row_values.clear();
  row_items.reserve(static_cast<size_t>(items.num_rows) + 1);
  row_values.reserve(static_cast<size_t>(items.num_rows) + 1);
  const std::vector<uint8_t> visible = VisibleCodeTable(path);
  int64_t values = 0;
  for (int64_t i = 0; i < items.num_items(); ++i) {
    if (items.rep[i] == path.max_rep) {
      row_items.push_back(i);
      row_values.push_back(values);
    }
    const uint16_t code = items.codes[i];
    values += code < visible.size() ? visible[code] : (CodeIsVisible(path, code) ? 1 : 0);
  }
  row_items.push_back(items.num_items());
  row_values.push_back(values);
}

int64_t DecodedItems::num_indexed_rows(const LeafPath& path) const {
  if (path.max_rep == 0) return items.num_items();
  return static_cast<int64_t>(row_items.size()) - 1;
}

void AppendRows(const LeafPath& path, const DecodedItems& page, int64_t first, int64_t end,
                LeafItems* out) {
  int64_t item_begin = first;
  int64_t item_end = end;
  int64_t value_begin = first;
  int64_t value_end = end;
  if (path.max_rep > 0) {
    item_begin = page.row_items[first];
    item_end = page.row_items[end];
    value_begin = page.row_values[first];
    value_end = page.row_values[end];
    out->rep.insert(out->rep.end(), page.items.rep.begin() + item_begin,
                    page.items.rep.begin() + item_end);
  }
  out->codes.insert(out->codes.end(), page.items.codes.begin() + item_begin,
                    page.items.codes.begin() + item_end);
  const LeafValues& values = page.items.values;
  if (values.external && out->values.num_values == 0 && out->values.data.capacity() == 0 &&
      value_end > value_begin) {
    const int64_t width = values.bits_per_value / 8;
    out->values.external =
        Buffer::Slice(values.external, value_begin * width, (value_end - value_begin) * width);
    out->values.num_values = value_end - value_begin;
  } else {
    out->values.AppendFrom(values, value_begin, value_end - value_begin);
  }
  out->num_rows += end - first;
  for (const auto& d : page.items.dictionaries) out->AddDictionary(d);
}

void AppendRowList(const LeafPath& path, const DecodedItems& page, std::span<const int64_t> rows,
                   int64_t base, LeafItems* out) {
  size_t i = 0;
  while (i < rows.size()) {
    size_t j = i + 1;
    while (j < rows.size() && rows[j] == rows[j - 1] + 1) ++j;
    AppendRows(path, page, rows[i] - base, rows[j - 1] - base + 1, out);
    i = j;
  }
}

}  // namespace lancedb::format
