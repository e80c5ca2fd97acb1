// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Returning freed memory to the operating system. Writers free many page-sized buffers; with
// glibc's dynamic mmap threshold those end up on the heap, where fragmentation keeps the
// freed memory resident, so a long write's resident size grows with the data written. Calling
// ReleaseFreeMemory() after each data file keeps it flat. Thread-safety: thread-safe.

#pragma once

namespace lancedb {

/// Give free heap memory back to the operating system (malloc_trim on glibc; no-op elsewhere
/// and under sanitizers, whose allocators are their own).
void ReleaseFreeMemory();

}  // namespace lancedb
