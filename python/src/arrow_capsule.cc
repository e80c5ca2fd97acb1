// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "arrow_capsule.h"

#include <cstdlib>

namespace lancedb::python {
namespace {

constexpr const char* kStreamCapsule = "arrow_array_stream";
constexpr const char* kSchemaCapsule = "arrow_schema";

// Resolve `obj` to a capsule named `name`, calling `method` on non-capsules.
nb::object CapsuleOf(nb::handle obj, const char* name, const char* method) {
  if (PyCapsule_CheckExact(obj.ptr())) return nb::borrow(obj);
  if (!nb::hasattr(obj, method)) {
    throw nb::type_error((std::string("expected an object implementing ") + method + ", got " +
                          nb::type_name(obj.type()).c_str())
                             .c_str());
  }
  nb::object capsule = obj.attr(method)();
  if (!PyCapsule_IsValid(capsule.ptr(), name)) {
    throw nb::type_error(
        (std::string(method) + " did not return a '" + name + "' capsule").c_str());
  }
  return capsule;
}

void DeleteStreamCapsule(PyObject* capsule) {
  auto* stream = static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule, kStreamCapsule));
  if (stream == nullptr) {
    PyErr_Clear();
    return;
  }
  if (stream->release != nullptr) stream->release(stream);
  std::free(stream);
}

void DeleteSchemaCapsule(PyObject* capsule) {
  auto* schema = static_cast<ArrowSchema*>(PyCapsule_GetPointer(capsule, kSchemaCapsule));
  if (schema == nullptr) {
    PyErr_Clear();
    return;
  }
  if (schema->release != nullptr) schema->release(schema);
  std::free(schema);
}

}  // namespace

ArrowArrayStream TakeStream(nb::handle obj) {
  nb::object capsule = CapsuleOf(obj, kStreamCapsule, "__arrow_c_stream__");
  auto* src = static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule.ptr(), kStreamCapsule));
  if (src == nullptr) throw nb::python_error();
  if (src->release == nullptr) throw nb::value_error("the Arrow stream was already consumed");
  ArrowArrayStream out = *src;
  src->release = nullptr;
  return out;
}

ArrowSchema TakeSchema(nb::handle obj) {
  nb::object capsule = CapsuleOf(obj, kSchemaCapsule, "__arrow_c_schema__");
  auto* src = static_cast<ArrowSchema*>(PyCapsule_GetPointer(capsule.ptr(), kSchemaCapsule));
  if (src == nullptr) throw nb::python_error();
  if (src->release == nullptr) throw nb::value_error("the Arrow schema was already consumed");
  ArrowSchema out = *src;
  src->release = nullptr;
  return out;
}

StreamExport::~StreamExport() {
  if (stream_.release != nullptr) stream_.release(&stream_);
}

nb::object StreamExport::ArrowCStream(nb::handle /*requested_schema*/) {
  if (stream_.release == nullptr) throw nb::value_error("this result stream was already consumed");
  auto* heap = static_cast<ArrowArrayStream*>(std::malloc(sizeof(ArrowArrayStream)));
  if (heap == nullptr) throw std::bad_alloc();
  *heap = stream_;
  stream_.release = nullptr;
  PyObject* capsule = PyCapsule_New(heap, kStreamCapsule, DeleteStreamCapsule);
  if (capsule == nullptr) {
    heap->release(heap);
    std::free(heap);
    throw nb::python_error();
  }
  return nb::steal(capsule);
}

SchemaExport::~SchemaExport() {
  if (schema_.release != nullptr) schema_.release(&schema_);
}

nb::object SchemaExport::ArrowCSchema() {
  if (schema_.release == nullptr) throw nb::value_error("this schema was already consumed");
  auto* heap = static_cast<ArrowSchema*>(std::malloc(sizeof(ArrowSchema)));
  if (heap == nullptr) throw std::bad_alloc();
  *heap = schema_;
  schema_.release = nullptr;
  PyObject* capsule = PyCapsule_New(heap, kSchemaCapsule, DeleteSchemaCapsule);
  if (capsule == nullptr) {
    heap->release(heap);
    std::free(heap);
    throw nb::python_error();
  }
  return nb::steal(capsule);
}

void RegisterArrowExports(nb::module_& m) {
  nb::class_<StreamExport>(m, "ArrowStream",
                           "A stream of record batches produced by the engine. Consume it once "
                           "with any Arrow library, e.g. pyarrow.RecordBatchReader.from_stream.")
      .def("__arrow_c_stream__", &StreamExport::ArrowCStream,
           nb::arg("requested_schema") = nb::none(),
           "Return an 'arrow_array_stream' PyCapsule (moves the stream out).");
  nb::class_<SchemaExport>(m, "ArrowSchemaHolder",
                           "A schema produced by the engine; consume it once, e.g. pyarrow.schema.")
      .def("__arrow_c_schema__", &SchemaExport::ArrowCSchema,
           "Return an 'arrow_schema' PyCapsule (moves the schema out).");
}

}  // namespace lancedb::python
