// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The Arrow PyCapsule interface: take ArrowArrayStream / ArrowSchema structures out of the
// capsules any Arrow library produces (`__arrow_c_stream__`, `__arrow_c_schema__`), and hand
// ours to any consumer the same way. Nothing is copied: structures are moved, buffers stay put.
// Thread-safety: call with the GIL held; the export holders are used from one thread at a time.

#pragma once

#include <nanobind/nanobind.h>

#include "lancedb/arrow_c.h"

namespace lancedb::python {

namespace nb = nanobind;

/// Move the stream out of `obj`: an "arrow_array_stream" capsule or an object with
/// `__arrow_c_stream__`. The capsule is left holding a released stream. Raises TypeError.
ArrowArrayStream TakeStream(nb::handle obj);
/// Move the schema out of `obj`: an "arrow_schema" capsule or an object with
/// `__arrow_c_schema__`. Raises TypeError.
ArrowSchema TakeSchema(nb::handle obj);

/// A stream the library produced, waiting for a consumer; single use.
class StreamExport {
 public:
  explicit StreamExport(ArrowArrayStream stream) : stream_(stream) {}
  ~StreamExport();
  StreamExport(const StreamExport&) = delete;
  StreamExport& operator=(const StreamExport&) = delete;

  /// Return an "arrow_array_stream" capsule owning the stream. The requested schema is
  /// ignored (allowed by the protocol). Raises ValueError when already consumed.
  nb::object ArrowCStream(nb::handle requested_schema);

 private:
  ArrowArrayStream stream_;
};

/// A schema the library produced, waiting for a consumer; single use.
class SchemaExport {
 public:
  explicit SchemaExport(ArrowSchema schema) : schema_(schema) {}
  ~SchemaExport();
  SchemaExport(const SchemaExport&) = delete;
  SchemaExport& operator=(const SchemaExport&) = delete;

  /// Return an "arrow_schema" capsule owning the schema. Raises ValueError when consumed.
  nb::object ArrowCSchema();

 private:
  ArrowSchema schema_;
};

/// Register StreamExport and SchemaExport as Python classes of `m`.
void RegisterArrowExports(nb::module_& m);

}  // namespace lancedb::python
