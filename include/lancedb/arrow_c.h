// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The Arrow C Data Interface and C Stream Interface ABI structs, as the Arrow specification
// defines them ("The Arrow C data interface", "The Arrow C stream interface"). The guard macros
// are the ones the specification mandates, so this header coexists with any other copy of the
// same definitions (Arrow C++, nanoarrow, DuckDB ...) in one translation unit.
//
// Ownership: a structure whose `release` is non-null is live and owned by whoever holds it; the
// owner calls `release` exactly once, after which `release` is null. Moving a structure means
// copying it bitwise and setting the source's `release` to null.

#pragma once

#include <stdint.h>  // NOLINT(modernize-deprecated-headers): this header is also valid C.

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

/// A type, field or schema: a format string, a name, metadata, flags and children.
struct ArrowSchema {
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;
  void (*release)(struct ArrowSchema*);
  void* private_data;
};

/// An array's buffers and children; its type travels separately in an ArrowSchema.
struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;
  void (*release)(struct ArrowArray*);
  void* private_data;
};

#endif  // ARROW_C_DATA_INTERFACE

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

/// A pull-based stream of struct arrays sharing one schema. Callbacks return 0 or an errno
/// code; after an error get_last_error describes it. get_next marks the end of the stream by
/// returning a released array (release == NULL).
struct ArrowArrayStream {
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
  const char* (*get_last_error)(struct ArrowArrayStream*);
  void (*release)(struct ArrowArrayStream*);
  void* private_data;
};

#endif  // ARROW_C_STREAM_INTERFACE

#ifdef __cplusplus
}
#endif
