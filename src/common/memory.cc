// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "common/memory.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace lancedb {

void ReleaseFreeMemory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace lancedb
