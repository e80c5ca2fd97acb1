// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "array/c_bridge.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>

#include "array/builder.h"

namespace lancedb::array {
namespace LANCEDB_TEST_FILE_NS {

const std::vector<bool> kValid5 = {true, false, true, true, false};

template <typename T>
ArrayPtr Prim(DataTypePtr type) {
  return MakePrimitive<T>(std::move(type), {T(1), T(2), T(3), T(4), T(5)}, kValid5);
}

/// One sample array per type in type.h, with nulls where the type allows them.
std::vector<ArrayPtr> SampleArrays() {
  auto point = struct_({field("x", int32()), field("tag", utf8(), false)});
  auto points = MakeStruct(
      point,
      {MakePrimitive<int32_t>(int32(), {1, 2, 3, 4, 5, 6}, {true, true, false, true, true, true}),
       MakeString({"a", "bb", "", "ccc", "d", "e"})},
      {true, true, true, false, true, true});
  auto floats = MakePrimitive<float>(float32(), {1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
                                     {true, true, false, true, true, true, true, true, true, true});
  return {
      MakeNullArray(null(), 5),
      MakeBool({true, false, true, false, true}, kValid5),
      Prim<int8_t>(int8()),
      Prim<int16_t>(int16()),
      Prim<int32_t>(int32()),
      Prim<int64_t>(int64()),
      Prim<uint8_t>(uint8()),
      Prim<uint16_t>(uint16()),
      Prim<uint32_t>(uint32()),
      Prim<uint64_t>(uint64()),
      MakePrimitive<uint16_t>(float16(), {0x3c00, 0, 0x4000, 0xc000, 0x7c00}, kValid5),
      Prim<float>(float32()),
      Prim<double>(float64()),
      MakeBinaryLike(utf8(), {"one", std::nullopt, "", "four", "five"}),
      MakeBinaryLike(large_utf8(), {"one", std::nullopt, "", "four", "five"}),
      MakeBinaryLike(binary(), {std::string("\0\1", 2), "x", std::nullopt, "", "yy"}),
      MakeBinaryLike(large_binary(), {std::string("\0\1", 2), "x", std::nullopt, "", "yy"}),
      MakeFixedSizeBinary(3, {"abc", std::nullopt, "def", "ghi", "jkl"}),
      Prim<int32_t>(date32()),
      Prim<int64_t>(date64()),
      Prim<int64_t>(timestamp(TimeUnit::kMicro, "UTC")),
      Prim<int64_t>(timestamp(TimeUnit::kNano)),
      Prim<int64_t>(timestamp(TimeUnit::kSecond, "+07:00")),
      Prim<int32_t>(time32(TimeUnit::kSecond)),
      Prim<int32_t>(time32(TimeUnit::kMilli)),
      Prim<int64_t>(time64(TimeUnit::kMicro)),
      Prim<int64_t>(time64(TimeUnit::kNano)),
      Prim<int64_t>(duration(TimeUnit::kMilli)),
      Prim<int64_t>(duration(TimeUnit::kNano)),
      MakePrimitive<__int128>(decimal128(20, 3), {-1, 2, 3, 12345678901234, 5}, kValid5),
      MakeList(list(int32()), {0, 2, 2, 3, 3, 5}, Prim<int32_t>(int32()) /*5 items*/, kValid5),
      MakeList(large_list(utf8()), {0, 1, 1, 3, 4, 5},
               MakeString({"a", std::nullopt, "b", "c", "d"}), kValid5),
      MakeFixedSizeList(fixed_size_list(float32(), 2), floats, kValid5),
      points,
      MakeList(list(point), {0, 2, 2, 3, 6, 6}, points, kValid5),
      MakeFixedSizeList(fixed_size_list(field("p", point, false), 2),
                        Concatenate({points, points}).MoveValueUnsafe()),
      MakeStruct(
          struct_({field("l", list(utf8())), field("n", null())}),
          {MakeList(list(utf8()), {0, 1, 1, 2}, MakeString({"x", "y"})), MakeNullArray(null(), 3)}),
      MakeDictionary(dictionary(int8(), utf8()), {1, 0, 0, 2, 1}, MakeString({"a", "b", "c"}),
                     kValid5),
      MakeDictionary(dictionary(uint16(), int64(), true), {0, 1, 0, 1, 0},
                     MakePrimitive<int64_t>(int64(), {7, 8}), kValid5),
      MakeList(list(dictionary(int32(), large_utf8())), {0, 2, 2, 3, 3, 5},
               MakeDictionary(dictionary(int32(), large_utf8()), {0, 1, 1, 0, 2},
                              MakeBinaryLike(large_utf8(), {"x", std::nullopt, "z"})),
               kValid5),
  };
}

Result<ArrayPtr> RoundTrip(const ArrayPtr& array) {
  ArrowSchema c_schema;
  ArrowArray c_array;
  LANCEDB_RETURN_NOT_OK(ExportType(*array->type, &c_schema));
  LANCEDB_RETURN_NOT_OK(ExportArray(array, &c_array));
  auto imported = ImportArray(&c_array, &c_schema);
  EXPECT_EQ(c_schema.release, nullptr);
  EXPECT_EQ(c_array.release, nullptr);
  return imported;
}

void ExpectRoundTrip(const ArrayPtr& array) {
  SCOPED_TRACE(array->type->ToString() + " offset " + std::to_string(array->offset) + " length " +
               std::to_string(array->length));
  ASSERT_TRUE(ValidateArray(*array).ok()) << ValidateArray(*array).ToString();
  auto imported = RoundTrip(array);
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_TRUE((*imported)->type->Equals(*array->type, true)) << (*imported)->type->ToString();
  EXPECT_TRUE(ArrayEquals(**imported, *array))
      << ArrayToString(**imported) << " vs " << ArrayToString(*array);
  EXPECT_EQ((*imported)->null_count, array->null_count);
}

TEST(CBridge, RoundTripsEveryType) {
  for (const auto& array : SampleArrays()) ExpectRoundTrip(array);
}

TEST(CBridge, RoundTripsSlicedArrays) {
  for (const auto& array : SampleArrays()) {
    ExpectRoundTrip(Slice(array, 1, array->length - 2));
    ExpectRoundTrip(Slice(array, 3, 2));
  }
}

TEST(CBridge, RoundTripsEmptyAndAllNullArrays) {
  for (const auto& array : SampleArrays()) {
    ExpectRoundTrip(Slice(array, 0, 0));
    ExpectRoundTrip(MakeNullArray(array->type, 0));
    ExpectRoundTrip(MakeNullArray(array->type, 4));
  }
}

TEST(CBridge, ExportIsZeroCopyAndImportWrapsProducerMemory) {
  auto array = MakeString({"hello", "world"});
  ArrowArray c_array;
  ASSERT_TRUE(ExportArray(array, &c_array).ok());
  EXPECT_EQ(c_array.n_buffers, 3);
  EXPECT_EQ(c_array.buffers[0], nullptr);
  EXPECT_EQ(c_array.buffers[1], array->buffers[1]->data());
  EXPECT_EQ(c_array.buffers[2], array->buffers[2]->data());
  const void* bytes = c_array.buffers[2];
  auto imported = ImportArray(&c_array, utf8());
  ASSERT_TRUE(imported.ok());
  EXPECT_EQ((*imported)->buffers[2]->data(), bytes);
  EXPECT_EQ((*imported)->buffers[2]->size(), 10);
  EXPECT_EQ((*imported)->GetView(1), "world");
}

TEST(CBridge, NullTypeExportsNoBuffers) {
  ArrowArray c_array;
  ASSERT_TRUE(ExportArray(MakeNullArray(null(), 7), &c_array).ok());
  EXPECT_EQ(c_array.n_buffers, 0);
  EXPECT_EQ(c_array.null_count, 7);
  c_array.release(&c_array);
  EXPECT_EQ(c_array.release, nullptr);
}

TEST(CBridge, ExportedArrayOutlivesTheProducerReference) {
  ArrowArray c_array;
  {
    auto array = MakePrimitive<int64_t>(int64(), {7, 8, 9});
    ASSERT_TRUE(ExportArray(Slice(array, 1, 2), &c_array).ok());
  }
  EXPECT_EQ(c_array.offset, 1);
  EXPECT_EQ(static_cast<const int64_t*>(c_array.buffers[1])[2], 9);
  c_array.release(&c_array);
}

// ---- Release accounting ----

int g_release_calls = 0;
void (*g_original_release)(ArrowArray*) = nullptr;

void CountingRelease(ArrowArray* array) {
  ++g_release_calls;
  array->release = g_original_release;
  array->release(array);
}

void InstallCountingRelease(ArrowArray* array) {
  g_release_calls = 0;
  g_original_release = array->release;
  array->release = CountingRelease;
}

TEST(CBridge, ImportReleasesOnceWhenTheLastBufferDies) {
  auto nested = SampleArrays()[34];  // list<struct<...>>
  ASSERT_EQ(nested->type->id(), TypeId::kList);
  ArrowArray c_array;
  ASSERT_TRUE(ExportArray(nested, &c_array).ok());
  InstallCountingRelease(&c_array);
  BufferPtr survivor;
  {
    auto imported = ImportArray(&c_array, nested->type);
    ASSERT_TRUE(imported.ok()) << imported.status().ToString();
    EXPECT_EQ(c_array.release, nullptr);
    survivor = (*imported)->children[0]->children[1]->buffers[2];
    auto copy = *imported;
    EXPECT_EQ(g_release_calls, 0);
  }
  EXPECT_EQ(g_release_calls, 0);
  survivor.reset();
  EXPECT_EQ(g_release_calls, 1);
}

TEST(CBridge, FailedImportStillReleasesOnce) {
  ArrowArray c_array;
  ASSERT_TRUE(ExportArray(MakeString({"a"}), &c_array).ok());
  InstallCountingRelease(&c_array);
  auto imported = ImportArray(&c_array, int32());  // wrong type: 3 buffers, not 2
  EXPECT_TRUE(imported.status().IsInvalidArgument());
  EXPECT_EQ(g_release_calls, 1);
  EXPECT_EQ(c_array.release, nullptr);
}

// ---- Hand-built foreign arrays ----

struct ForeignArray {
  std::vector<int32_t> offsets;
  std::string bytes;
  std::vector<const void*> buffers;
  ArrowArray c{};
  int releases = 0;

  ForeignArray(std::vector<int32_t> o, std::string b) : offsets(std::move(o)), bytes(std::move(b)) {
    buffers = {nullptr, offsets.data(), bytes.data()};
    c.length = static_cast<int64_t>(offsets.size()) - 1;
    c.null_count = 0;
    c.n_buffers = 3;
    c.buffers = buffers.data();
    c.private_data = this;
    c.release = [](ArrowArray* a) {
      ++static_cast<ForeignArray*>(a->private_data)->releases;
      a->release = nullptr;
    };
  }
};

TEST(CBridge, ImportValidatesForeignOffsets) {
  ForeignArray good({0, 2, 5}, "hello");
  auto ok = ImportArray(&good.c, utf8());
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ((*ok)->GetView(1), "llo");
  ok = Status::Internal("drop");
  EXPECT_EQ(good.releases, 1);

  ForeignArray decreasing({0, 4, 2}, "hello");
  auto bad = ImportArray(&decreasing.c, utf8());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("offsets decrease"), std::string::npos);
  EXPECT_EQ(decreasing.releases, 1);

  ForeignArray negative({-3, 1}, "hello");
  EXPECT_FALSE(ImportArray(&negative.c, binary()).ok());
  EXPECT_EQ(negative.releases, 1);
}

TEST(CBridge, ImportRejectsMissingBuffersAndWrongShapes) {
  ForeignArray missing({0, 1}, "x");
  missing.buffers[1] = nullptr;
  auto r = ImportArray(&missing.c, utf8());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("buffer 1 is null"), std::string::npos);
  EXPECT_EQ(missing.releases, 1);

  ForeignArray wrong_null_count({0, 1}, "x");
  wrong_null_count.c.null_count = 1;
  EXPECT_FALSE(ImportArray(&wrong_null_count.c, utf8()).ok());

  ForeignArray children({0, 1}, "x");
  children.c.n_children = 1;
  EXPECT_FALSE(ImportArray(&children.c, utf8()).ok());
  EXPECT_EQ(children.releases, 1);

  ForeignArray untyped({0, 1}, "x");
  EXPECT_TRUE(ImportArray(&untyped.c, DataTypePtr()).status().IsInvalidArgument());
  EXPECT_EQ(untyped.releases, 1);

  ForeignArray released({0, 1}, "x");
  released.c.release = nullptr;
  EXPECT_TRUE(ImportArray(&released.c, utf8()).status().IsInvalidArgument());
}

TEST(CBridge, ImportAcceptsNullOffsetsForEmptyArrays) {
  ForeignArray empty({0}, "");
  empty.buffers[1] = nullptr;
  empty.buffers[2] = nullptr;
  auto r = ImportArray(&empty.c, large_utf8());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->length, 0);
  EXPECT_NE((*r)->buffers[1], nullptr);
}

// ---- Schemas ----

TEST(CBridge, ExportsSpecFormatStrings) {
  std::vector<std::pair<DataTypePtr, std::string>> cases = {
      {null(), "n"},
      {boolean(), "b"},
      {int8(), "c"},
      {uint8(), "C"},
      {int16(), "s"},
      {uint16(), "S"},
      {int32(), "i"},
      {uint32(), "I"},
      {int64(), "l"},
      {uint64(), "L"},
      {float16(), "e"},
      {float32(), "f"},
      {float64(), "g"},
      {utf8(), "u"},
      {large_utf8(), "U"},
      {binary(), "z"},
      {large_binary(), "Z"},
      {fixed_size_binary(16), "w:16"},
      {date32(), "tdD"},
      {date64(), "tdm"},
      {timestamp(TimeUnit::kSecond, "UTC"), "tss:UTC"},
      {timestamp(TimeUnit::kMicro), "tsu:"},
      {time32(TimeUnit::kSecond), "tts"},
      {time32(TimeUnit::kMilli), "ttm"},
      {time64(TimeUnit::kMicro), "ttu"},
      {time64(TimeUnit::kNano), "ttn"},
      {duration(TimeUnit::kSecond), "tDs"},
      {decimal128(38, 10), "d:38,10"},
      {list(int32()), "+l"},
      {large_list(int32()), "+L"},
      {fixed_size_list(float32(), 128), "+w:128"},
      {struct_({field("a", int32())}), "+s"},
  };
  for (const auto& [type, format] : cases) {
    ArrowSchema c;
    ASSERT_TRUE(ExportType(*type, &c).ok());
    EXPECT_EQ(std::string(c.format), format);
    EXPECT_EQ(c.flags, ARROW_FLAG_NULLABLE);
    auto back = ImportType(&c);
    ASSERT_TRUE(back.ok()) << format;
    EXPECT_TRUE((*back)->Equals(*type)) << format;
    EXPECT_EQ(c.release, nullptr);
  }
}

TEST(CBridge, SchemaRoundTripKeepsNamesNullabilityAndMetadata) {
  auto s = schema({field("id", int64(), false, {{"k1", "v1"}, {"", "empty key"}}),
                   field("vec", fixed_size_list(field("item", float32(), false), 4)),
                   field("tags", list(field("element", utf8())))},
                  {{"lance:version", "2.1"}});
  ArrowSchema c;
  ASSERT_TRUE(ExportSchema(*s, &c).ok());
  EXPECT_EQ(std::string(c.format), "+s");
  EXPECT_EQ(c.n_children, 3);
  EXPECT_EQ(std::string(c.children[0]->name), "id");
  EXPECT_EQ(c.children[0]->flags & ARROW_FLAG_NULLABLE, 0);
  EXPECT_EQ(c.children[1]->children[0]->flags & ARROW_FLAG_NULLABLE, 0);
  auto back = ImportSchema(&c);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE((*back)->Equals(*s, /*check_metadata=*/true)) << (*back)->ToString();
}

TEST(CBridge, ConsumerMayMoveChildSchemasOut) {
  auto s = schema({field("a", int32()), field("b", list(utf8()))});
  ArrowSchema c;
  ASSERT_TRUE(ExportSchema(*s, &c).ok());
  ArrowSchema moved = *c.children[1];
  c.children[1]->release = nullptr;
  c.release(&c);
  auto f = ImportField(&moved);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)->ToString(), "b: list<item: string>");
}

TEST(CBridge, DictionaryExportsIndexFormatAndValueSchema) {
  ArrowSchema c;
  ASSERT_TRUE(ExportType(*dictionary(int16(), utf8(), true), &c).ok());
  EXPECT_STREQ(c.format, "s");
  ASSERT_NE(c.dictionary, nullptr);
  EXPECT_STREQ(c.dictionary->format, "u");
  EXPECT_EQ(c.flags & ARROW_FLAG_DICTIONARY_ORDERED, ARROW_FLAG_DICTIONARY_ORDERED);
  auto type = ImportType(&c);
  ASSERT_TRUE(type.ok()) << type.status().ToString();
  EXPECT_TRUE((*type)->Equals(*dictionary(int16(), utf8(), true)));
  EXPECT_EQ(c.release, nullptr);

  auto array = MakeDictionary(dictionary(int32(), utf8()), {1, 0}, MakeString({"a", "b"}));
  ArrowArray a;
  ASSERT_TRUE(ExportArray(array, &a).ok());
  EXPECT_EQ(a.n_buffers, 2);
  EXPECT_EQ(a.n_children, 0);
  ASSERT_NE(a.dictionary, nullptr);
  EXPECT_EQ(a.dictionary->length, 2);
  EXPECT_EQ(a.dictionary->buffers[2], array->dictionary->buffers[2]->data());
  auto imported = ImportArray(&a, array->type);
  ASSERT_TRUE(imported.ok());
  EXPECT_EQ((*imported)->dictionary->buffers[2]->data(), array->dictionary->buffers[2]->data());
}

TEST(CBridge, DictionaryImportRejectsBadIndicesAndShapes) {
  // A float index type.
  ArrowSchema c;
  ASSERT_TRUE(ExportType(*dictionary(int32(), utf8()), &c).ok());
  c.format = "f";
  EXPECT_TRUE(ImportType(&c).status().IsInvalidArgument());
  EXPECT_EQ(c.release, nullptr);
  // An index out of range is caught by validation.
  auto bad = MakeDictionary(dictionary(int32(), utf8()), {0, 5}, MakeString({"a"}));
  ArrowArray a;
  ASSERT_TRUE(ExportArray(bad, &a).ok());
  auto st = ImportArray(&a, bad->type).status();
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.message().find("out of range"), std::string::npos) << st.ToString();
  // A dictionary array described as a plain type, and the other way round.
  auto good = MakeDictionary(dictionary(int32(), utf8()), {0}, MakeString({"a"}));
  ASSERT_TRUE(ExportArray(good, &a).ok());
  EXPECT_TRUE(ImportArray(&a, int32()).status().IsInvalidArgument());
  EXPECT_EQ(a.release, nullptr);
  ASSERT_TRUE(ExportArray(MakePrimitive<int32_t>(int32(), {0}), &a).ok());
  EXPECT_TRUE(ImportArray(&a, good->type).status().IsInvalidArgument());
  // Values of an unsupported type.
  auto bools = MakeDictionary(dictionary(int32(), boolean()), {0}, MakeBool({true}));
  ASSERT_TRUE(ExportArray(bools, &a).ok());
  EXPECT_TRUE(ImportArray(&a, bools->type).status().IsNotSupported());
}

TEST(CBridge, ImportTypeRejectsUnsupportedFormatsAndReleases) {
  for (const char* format : {"+m", "vu", "d:10,2,256", "tsx:", "w:abc", "+l"}) {
    ArrowSchema c;
    ASSERT_TRUE(ExportType(*int32(), &c).ok());
    auto* priv_format = c.format;
    c.format = format;
    auto r = ImportType(&c);
    EXPECT_FALSE(r.ok()) << format;
    EXPECT_EQ(c.release, nullptr) << format;
    (void)priv_format;
  }
  ArrowSchema c;
  ASSERT_TRUE(ExportType(*int32(), &c).ok());
  EXPECT_TRUE(ImportSchema(&c).status().IsInvalidArgument());
}

// ---- Record batches and streams ----

RecordBatchPtr SampleBatch(int64_t base) {
  auto s = schema({field("id", int64(), false), field("name", utf8())});
  return RecordBatch::Make(s, {MakePrimitive<int64_t>(int64(), {base, base + 1, base + 2}),
                               MakeString({"a", std::nullopt, "c"})})
      .MoveValueUnsafe();
}

TEST(CBridge, RecordBatchRoundTripIncludingSlices) {
  auto batch = SampleBatch(10);
  for (const auto& b : {batch, batch->Slice(1, 2)}) {
    ArrowArray c_array;
    ArrowSchema c_schema;
    ASSERT_TRUE(ExportRecordBatch(*b, &c_array, &c_schema).ok());
    EXPECT_EQ(std::string(c_schema.format), "+s");
    auto s = ImportSchema(&c_schema);
    ASSERT_TRUE(s.ok());
    auto back = ImportRecordBatch(&c_array, *s);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE((*back)->Equals(*b)) << (*back)->ToString();
  }
}

TEST(CBridge, ImportRecordBatchRejectsNullRowsAndWrongSchema) {
  auto st_type = struct_({field("a", int32())});
  auto st = MakeStruct(st_type, {MakePrimitive<int32_t>(int32(), {1, 2})}, {true, false});
  ArrowArray c_array;
  ASSERT_TRUE(ExportArray(st, &c_array).ok());
  EXPECT_FALSE(ImportRecordBatch(&c_array, schema(st_type->fields())).ok());
  ASSERT_TRUE(ExportRecordBatch(*SampleBatch(0), &c_array).ok());
  EXPECT_FALSE(ImportRecordBatch(&c_array, schema({field("id", int64())})).ok());
  EXPECT_EQ(c_array.release, nullptr);
}

TEST(CBridge, StreamRoundTrip) {
  auto b1 = SampleBatch(0);
  auto b2 = SampleBatch(3);
  ArrowArrayStream stream;
  ASSERT_TRUE(ExportRecordBatchReader(MakeVectorReader(b1->schema(), {b1, b2}), &stream).ok());
  auto reader = ImportArrayStream(&stream);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ(stream.release, nullptr);
  EXPECT_TRUE((*reader)->schema()->Equals(*b1->schema()));
  auto all = (*reader)->ReadAll();
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_TRUE((*all)[1]->Equals(*b2));
  EXPECT_EQ((*reader)->Next().ValueUnsafe(), nullptr);
}

class FailingReader : public RecordBatchReader {
 public:
  SchemaPtr schema() const override { return SampleBatch(0)->schema(); }
  Result<RecordBatchPtr> Next() override { return Status::IOError("disk on fire"); }
};

TEST(CBridge, StreamErrorsSurfaceThroughGetLastError) {
  ArrowArrayStream stream;
  ASSERT_TRUE(ExportRecordBatchReader(std::make_unique<FailingReader>(), &stream).ok());
  ArrowArray out;
  EXPECT_EQ(stream.get_next(&stream, &out), EIO);
  EXPECT_NE(std::string(stream.get_last_error(&stream)).find("disk on fire"), std::string::npos);
  auto reader = ImportArrayStream(&stream);
  ASSERT_TRUE(reader.ok());
  auto next = (*reader)->Next();
  ASSERT_FALSE(next.ok());
  EXPECT_TRUE(next.status().IsIOError());
  EXPECT_NE(next.status().message().find("disk on fire"), std::string::npos);
}

TEST(CBridge, ImportStreamReportsGetSchemaFailure) {
  ArrowArrayStream stream{};
  static int releases = 0;
  releases = 0;
  stream.get_schema = [](ArrowArrayStream*, ArrowSchema*) { return EINVAL; };
  stream.get_last_error = [](ArrowArrayStream*) { return "no schema today"; };
  stream.release = [](ArrowArrayStream* s) {
    ++releases;
    s->release = nullptr;
  };
  auto reader = ImportArrayStream(&stream);
  ASSERT_FALSE(reader.ok());
  EXPECT_TRUE(reader.status().IsInvalidArgument());
  EXPECT_NE(reader.status().message().find("no schema today"), std::string::npos);
  EXPECT_EQ(releases, 1);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::array
