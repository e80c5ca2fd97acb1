// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "format/container.h"

#include <cstring>

namespace lancedb::format {
namespace {

template <typename T>
void Put(std::string* out, T value) {
  out->append(reinterpret_cast<const char*>(&value), sizeof(T));
}

template <typename T>
T Get(std::string_view bytes, size_t pos) {
  T value;
  std::memcpy(&value, bytes.data() + pos, sizeof(T));
  return value;
}

}  // namespace

std::string EncodeFooter(const Footer& footer) {
  std::string out;
  Put(&out, footer.column_meta_start);
  Put(&out, footer.cmo_table_pos);
  Put(&out, footer.gbo_table_pos);
  Put(&out, footer.num_global_buffers);
  Put(&out, footer.num_columns);
  Put(&out, footer.major);
  Put(&out, footer.minor);
  out.append(kMagic);
  return out;
}

Result<Footer> DecodeFooter(std::string_view bytes, int64_t file_size, const std::string& path) {
  if (bytes.size() != static_cast<size_t>(kFooterSize) || file_size < kFooterSize) {
    return Status::Corruption("File '" + path + "' is too small (" + std::to_string(file_size) +
                              " bytes) to be a Lance file");
  }
  if (bytes.substr(36) != kMagic) {
    return Status::Corruption("File '" + path + "' does not end with the Lance magic \"LANC\"");
  }
  Footer f;
  f.column_meta_start = Get<uint64_t>(bytes, 0);
  f.cmo_table_pos = Get<uint64_t>(bytes, 8);
  f.gbo_table_pos = Get<uint64_t>(bytes, 16);
  f.num_global_buffers = Get<uint32_t>(bytes, 24);
  f.num_columns = Get<uint32_t>(bytes, 28);
  f.major = Get<uint16_t>(bytes, 32);
  f.minor = Get<uint16_t>(bytes, 34);
  const uint64_t meta_end = static_cast<uint64_t>(file_size - kFooterSize);
  const uint64_t cmo_end = f.cmo_table_pos + 16ull * f.num_columns;
  const uint64_t gbo_end = f.gbo_table_pos + 16ull * f.num_global_buffers;
  if (f.column_meta_start > meta_end || f.cmo_table_pos > meta_end || cmo_end > meta_end ||
      f.gbo_table_pos > meta_end || gbo_end > meta_end || f.num_columns > (1u << 24) ||
      f.num_global_buffers > (1u << 24)) {
    return Status::Corruption("File '" + path + "' has a footer whose offsets are out of bounds");
  }
  return f;
}

}  // namespace lancedb::format
