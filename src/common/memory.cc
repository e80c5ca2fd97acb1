// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "common/memory.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

// Under a sanitizer the allocator is the sanitizer's, not glibc's: glibc's heap holds nothing
// of ours to give back, and trimming it while the sanitizer runtime owns malloc can crash
// (seen under ThreadSanitizer once libcurl's TLS library initialized glibc's arena).
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define LANCEDB_SANITIZED_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer) || \
    __has_feature(memory_sanitizer)
#define LANCEDB_SANITIZED_ALLOCATOR 1
#endif
#endif

namespace lancedb {

void ReleaseFreeMemory() {
#if defined(__GLIBC__) && !defined(LANCEDB_SANITIZED_ALLOCATOR)
  malloc_trim(0);
#endif
}

}  // namespace lancedb
