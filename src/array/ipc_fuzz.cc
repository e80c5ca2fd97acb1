// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// libFuzzer target over the Arrow IPC readers (file and stream). Any input must yield either
// batches or an error Status; crashes, sanitizer reports and hangs are bugs.
// Seeds: tests/data/ipc/*.arrow*, the fixtures' _deletions/*.arrow.

#include <cstddef>
#include <cstdint>

#include "array/ipc.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  lancedb::BufferPtr bytes = lancedb::Buffer::Copy(data, static_cast<int64_t>(size));
  auto file = lancedb::array::ipc::ReadFile(bytes);
  auto stream = lancedb::array::ipc::ReadStream(bytes);
  (void)file.ok();
  (void)stream.ok();
  return 0;
}
