// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// libFuzzer target over the parsers of S3's XML replies (ListObjectsV2, errors, multipart
// uploads) and its timestamps: bytes from the network. Any input must yield a value or an error
// Status; crashes, sanitizer reports and hangs are bugs. Seeds: fuzz/corpus/s3_xml_fuzz/.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "io/s3_xml.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view xml(reinterpret_cast<const char*>(data), size);
  auto page = lancedb::io::ParseListObjectsV2(xml);
  (void)page.ok();
  (void)lancedb::io::ParseS3Error(xml);
  auto id = lancedb::io::ParseInitiateMultipartUpload(xml);
  (void)id.ok();
  (void)lancedb::io::ParseS3Timestamp(xml.substr(0, 64));
  return 0;
}
