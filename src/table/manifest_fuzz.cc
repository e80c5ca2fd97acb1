// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// libFuzzer target over the table layer's parsers of untrusted bytes: the manifest container
// (lance-format.md §1.2) and both deletion file forms (§3). Any input must yield a value or an
// error Status; crashes, sanitizer reports and hangs are bugs.
// Seeds: the fixtures' _versions/*.manifest and _deletions/*.

#include <cstddef>
#include <cstdint>

#include "table/deletion.h"
#include "table/manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  lancedb::BufferPtr bytes = lancedb::Buffer::Copy(data, static_cast<int64_t>(size));
  auto manifest = lancedb::table::Manifest::Parse(*bytes, "fuzz");
  if (manifest.ok()) (void)(*manifest)->Serialize((*manifest)->transaction());
  (void)lancedb::table::DecodeArrowDeletions(bytes).ok();
  (void)lancedb::table::DecodeBitmapDeletions(*bytes).ok();
  return 0;
}
