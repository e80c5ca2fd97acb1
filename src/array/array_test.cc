// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "array/array.h"

#include <gtest/gtest.h>

#include "array/builder.h"

namespace lancedb::array {
namespace LANCEDB_TEST_FILE_NS {

ArrayPtr Ints(const std::vector<int32_t>& values, const std::vector<bool>& valid = {}) {
  return MakePrimitive<int32_t>(int32(), values, valid);
}

ArrayPtr ListOfStructs() {
  // [[{a:1,b:"x"}], null, [], [{a:null,b:"yy"}, {a:3,b:null}]]
  auto st = struct_({field("a", int32()), field("b", utf8())});
  auto child =
      MakeStruct(st, {Ints({1, 2, 3}, {true, false, true}), MakeString({"x", "yy", std::nullopt})});
  return MakeList(list(st), {0, 1, 1, 1, 3}, child, {true, false, true, true});
}

TEST(ArrayData, MakeComputesNullCount) {
  auto a = Ints({1, 2, 3}, {true, false, true});
  EXPECT_EQ(a->null_count, 1);
  EXPECT_TRUE(a->IsNull(1));
  EXPECT_EQ(a->GetValues<int32_t>(1)[2], 3);
  EXPECT_EQ(Ints({1, 2})->null_count, 0);
  EXPECT_EQ(MakeNullArray(null(), 4)->null_count, 4);
}

TEST(ArrayData, GetViewAndListRangeHonourOffset) {
  auto s = Slice(MakeBinaryLike(large_utf8(), {"ab", std::nullopt, "cde"}), 1, 2);
  EXPECT_EQ(s->GetView(1), "cde");
  EXPECT_EQ(s->GetView(0), "");
  auto fsl = MakeFixedSizeList(fixed_size_list(int32(), 2), Ints({1, 2, 3, 4, 5, 6}));
  auto sliced = Slice(fsl, 1, 2);
  EXPECT_EQ(sliced->GetListRange(1), (std::pair<int64_t, int64_t>{4, 6}));
}

TEST(ArrayToString, RendersNestedValues) {
  EXPECT_EQ(ArrayToString(*Ints({1, 2, 3}, {true, false, true})), "[1, null, 3]");
  EXPECT_EQ(ArrayToString(*MakeString({"a", std::nullopt})), "[\"a\", null]");
  EXPECT_EQ(ArrayToString(*ListOfStructs()),
            "[[{a: 1, b: \"x\"}], null, [], [{a: null, b: \"yy\"}, {a: 3, b: null}]]");
  EXPECT_EQ(ArrayToString(*Ints({1, 2, 3, 4}), 2), "[1, 2, ...]");
  auto dec = MakePrimitive<__int128>(decimal128(5, 2), {-12345, 7});
  EXPECT_EQ(ArrayToString(*dec), "[-123.45, 0.07]");
  EXPECT_EQ(ArrayToString(*MakePrimitive<uint16_t>(float16(), {0x3c00, 0xc000})), "[1, -2]");
  EXPECT_EQ(ArrayToString(*MakeBool({true, false})), "[true, false]");
}

TEST(ValidateArray, AcceptsWellFormedArrays) {
  EXPECT_TRUE(ValidateArray(*Ints({1, 2})).ok());
  EXPECT_TRUE(ValidateArray(*ListOfStructs()).ok());
  EXPECT_TRUE(ValidateArray(*Slice(ListOfStructs(), 1, 3)).ok());
  EXPECT_TRUE(ValidateArray(*MakeNullArray(list(struct_({field("a", utf8())})), 3)).ok());
  EXPECT_TRUE(ValidateArray(*MakeNullArray(null(), 3)).ok());
}

TEST(ValidateArray, RejectsShortValuesBuffer) {
  auto a = ArrayData::Make(int32(), 4, {nullptr, Buffer::Allocate(12)});
  Status st = ValidateArray(*a);
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.message().find("values buffer has 12 bytes, needs 16"), std::string::npos)
      << st.ToString();
  auto sliced = ArrayData::Make(int32(), 3, {nullptr, Buffer::Allocate(12)}, {}, 0, 1);
  EXPECT_FALSE(ValidateArray(*sliced).ok());
}

TEST(ValidateArray, RejectsWrongBufferCountAndShortValidity) {
  EXPECT_FALSE(ValidateArray(*ArrayData::Make(utf8(), 0, {nullptr, nullptr})).ok());
  auto a = ArrayData::Make(int64(), 20, {Buffer::Allocate(2), Buffer::Allocate(160)}, {}, 0);
  EXPECT_NE(ValidateArray(*a).message().find("validity"), std::string::npos);
}

TEST(ValidateArray, RejectsBadOffsets) {
  auto bytes = Buffer::Copy("abcdef");
  auto decreasing = ArrayData::Make(
      utf8(), 2, {nullptr, Buffer::FromVector(std::vector<int32_t>{0, 4, 2}), bytes});
  EXPECT_NE(ValidateArray(*decreasing).message().find("offsets decrease"), std::string::npos);
  auto beyond = ArrayData::Make(
      utf8(), 2, {nullptr, Buffer::FromVector(std::vector<int32_t>{0, 4, 9}), bytes});
  EXPECT_NE(ValidateArray(*beyond).message().find("beyond"), std::string::npos);
  auto negative = ArrayData::Make(
      binary(), 1, {nullptr, Buffer::FromVector(std::vector<int32_t>{-1, 2}), bytes});
  EXPECT_FALSE(ValidateArray(*negative).ok());
  auto short_offsets =
      ArrayData::Make(utf8(), 3, {nullptr, Buffer::FromVector(std::vector<int32_t>{0, 1}), bytes});
  EXPECT_FALSE(ValidateArray(*short_offsets).ok());
  auto list_beyond = MakeList(list(int32()), {0, 2, 5}, Ints({1, 2, 3}));
  EXPECT_FALSE(ValidateArray(*list_beyond).ok());
}

TEST(ValidateArray, RejectsBadChildren) {
  auto fsl = MakeFixedSizeList(fixed_size_list(int32(), 2), Ints({1, 2, 3, 4}));
  auto short_child = std::make_shared<ArrayData>(*fsl);
  short_child->length = 3;
  EXPECT_FALSE(ValidateArray(*short_child).ok());
  auto wrong_type = ArrayData::Make(struct_({field("a", int64())}), 2, {nullptr}, {Ints({1, 2})});
  EXPECT_NE(ValidateArray(*wrong_type).message().find("expected int64"), std::string::npos);
  auto missing = ArrayData::Make(struct_({field("a", int32())}), 2, {nullptr}, {});
  EXPECT_FALSE(ValidateArray(*missing).ok());
  auto bad_grandchild =
      ArrayData::Make(list(utf8()), 1, {nullptr, Buffer::FromVector(std::vector<int32_t>{0, 1})},
                      {ArrayData::Make(utf8(), 1, {nullptr, nullptr, nullptr})});
  EXPECT_FALSE(ValidateArray(*bad_grandchild).ok());
}

TEST(ValidateArray, RejectsSizesThatOverflow) {
  auto huge = std::make_shared<ArrayData>();
  huge->type = fixed_size_binary(1 << 30);
  huge->length = int64_t{1} << 40;
  huge->buffers = {nullptr, Buffer::Allocate(16)};
  EXPECT_FALSE(ValidateArray(*huge).ok());
  huge->type = fixed_size_list(int8(), 1 << 30);
  huge->buffers = {nullptr};
  huge->children = {MakePrimitive<int8_t>(int8(), {1})};
  EXPECT_FALSE(ValidateArray(*huge).ok());
  auto negative = std::make_shared<ArrayData>(*Ints({1}));
  negative->offset = -1;
  EXPECT_FALSE(ValidateArray(*negative).ok());
}

TEST(ValidateArray, RejectsWrongNullCount) {
  auto a = std::make_shared<ArrayData>(*Ints({1, 2}, {true, false}));
  a->null_count = 0;
  EXPECT_FALSE(ValidateArray(*a).ok());
}

TEST(Slice, IsZeroCopyAndRecountsNulls) {
  auto a = Ints({1, 2, 3, 4}, {true, false, true, true});
  auto s = Slice(a, 2, 2);
  EXPECT_EQ(s->buffers[1], a->buffers[1]);
  EXPECT_EQ(s->offset, 2);
  EXPECT_EQ(s->null_count, 0);
  EXPECT_TRUE(ArrayEquals(*s, *Ints({3, 4})));
}

TEST(Concatenate, PrimitiveWithNullsAndOffsets) {
  auto a = Slice(Ints({0, 1, 2}, {true, false, true}), 1, 2);
  auto b = Ints({3, 4});
  auto r = Concatenate({a, b});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(ArrayEquals(**r, *Ints({0, 2, 3, 4}, {false, true, true, true})));
  EXPECT_EQ((*r)->null_count, 1);
  EXPECT_TRUE(ValidateArray(**r).ok());
}

TEST(Concatenate, BoolsAtBitOffsets) {
  auto a = Slice(MakeBool({true, false, true, true, false, true, false, true, true}), 3, 6);
  auto b = Slice(MakeBool({false, true, true}, {true, true, false}), 1, 2);
  auto r = Concatenate({a, b, a});
  ASSERT_TRUE(r.ok());
  auto expected = MakeBool(
      {true, false, true, false, true, true, true, false, true, false, true, false, true, true},
      {true, true, true, true, true, true, true, false, true, true, true, true, true, true});
  EXPECT_TRUE(ArrayEquals(**r, *expected)) << ArrayToString(**r);
}

TEST(Concatenate, StringsRebaseOffsets) {
  auto a = Slice(MakeString({"skip", "ab", std::nullopt}), 1, 2);
  auto b = MakeBinaryLike(utf8(), {"cde", ""});
  auto r = Concatenate({a, b});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->offset, 0);
  EXPECT_EQ((*r)->GetValues<int32_t>(1)[0], 0);
  EXPECT_TRUE(ArrayEquals(**r, *MakeString({"ab", std::nullopt, "cde", ""})));
  EXPECT_TRUE(ValidateArray(**r).ok());
}

TEST(Concatenate, NestedListOfStructs) {
  auto a = ListOfStructs();
  auto r = Concatenate({Slice(a, 2, 2), a, Slice(a, 0, 0)});
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(ValidateArray(**r).ok());
  EXPECT_EQ(ArrayToString(**r),
            "[[], [{a: null, b: \"yy\"}, {a: 3, b: null}], [{a: 1, b: \"x\"}], null, [], "
            "[{a: null, b: \"yy\"}, {a: 3, b: null}]]");
}

TEST(Concatenate, FixedSizeListNullAndLargeTypes) {
  auto fsl =
      MakeFixedSizeList(fixed_size_list(int32(), 2), Ints({1, 2, 3, 4, 5, 6}), {true, false, true});
  auto r = Concatenate({Slice(fsl, 1, 2), fsl});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(ArrayToString(**r), "[null, [5, 6], [1, 2], null, [5, 6]]");
  auto nulls = Concatenate({MakeNullArray(null(), 2), MakeNullArray(null(), 3)});
  ASSERT_TRUE(nulls.ok());
  EXPECT_EQ((*nulls)->length, 5);
  EXPECT_EQ((*nulls)->null_count, 5);
  auto ll = MakeList(large_list(utf8()), {0, 2, 3}, MakeString({"a", "b", "c"}));
  auto r2 = Concatenate({ll, Slice(ll, 1, 1)});
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(ArrayToString(**r2), "[[\"a\", \"b\"], [\"c\"], [\"c\"]]");
  ASSERT_TRUE(ValidateArray(**r2).ok());
}

TEST(Concatenate, RejectsMismatchedTypesAndEmptyInput) {
  EXPECT_FALSE(Concatenate({}).ok());
  auto r = Concatenate({Ints({1}), MakeString({"a"})});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("type string, expected int32"), std::string::npos);
}

TEST(Take, GathersRowsOfEveryLayout) {
  auto ints = Take(Ints({10, 11, 12}, {true, false, true}), {2, 1, 1, 0});
  ASSERT_TRUE(ints.ok());
  EXPECT_EQ(ArrayToString(**ints), "[12, null, null, 10]");
  auto lists = Take(ListOfStructs(), {3, 0, 1});
  ASSERT_TRUE(lists.ok());
  ASSERT_TRUE(ValidateArray(**lists).ok());
  EXPECT_EQ(ArrayToString(**lists),
            "[[{a: null, b: \"yy\"}, {a: 3, b: null}], [{a: 1, b: \"x\"}], null]");
  auto empty = Take(ListOfStructs(), {});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ((*empty)->length, 0);
  EXPECT_TRUE(ValidateArray(**empty).ok());
}

TEST(Take, RejectsOutOfBoundsIndex) {
  auto r = Take(Ints({1, 2, 3}), {0, 3});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
  EXPECT_FALSE(Take(Ints({1}), {-1}).ok());
}

TEST(ArrayEquals, NullSlotsCompareEqualRegardlessOfValueBytes) {
  auto a = Ints({1, 99, 3}, {true, false, true});
  auto b = Ints({1, -5, 3}, {true, false, true});
  EXPECT_TRUE(ArrayEquals(*a, *b));
  EXPECT_FALSE(ArrayEquals(*a, *Ints({1, 99, 3})));
  EXPECT_FALSE(ArrayEquals(*a, *Ints({1, 99, 4}, {true, false, true})));
  EXPECT_FALSE(ArrayEquals(*a, *MakePrimitive<int64_t>(int64(), {1, 99, 3})));
  auto s1 = MakeString({"a", std::nullopt});
  auto s2 = MakeBinaryLike(utf8(), {"a", std::string("junk")});
  EXPECT_FALSE(ArrayEquals(*s1, *s2));
}

TEST(ArrayEquals, HandlesOffsetsInNestedData) {
  auto a = ListOfStructs();
  auto b = Concatenate({Ints({0})}).MoveValueUnsafe();
  auto doubled = Concatenate({a, a}).MoveValueUnsafe();
  EXPECT_TRUE(ArrayEquals(*Slice(doubled, 4, 4), *a));
  EXPECT_FALSE(ArrayEquals(*Slice(doubled, 3, 4), *a));
  EXPECT_FALSE(ArrayEquals(*a, *b));
}

TEST(MakeNullArray, HasBuffersOfTheRightShape) {
  auto type = struct_({field("l", list(utf8())), field("f", fixed_size_list(float32(), 3)),
                       field("b", boolean()), field("d", decimal128(4, 1))});
  auto a = MakeNullArray(type, 5);
  ASSERT_TRUE(ValidateArray(*a).ok());
  EXPECT_EQ(a->null_count, 5);
  EXPECT_EQ(a->children[1]->children[0]->length, 15);
  EXPECT_EQ(a->children[3]->buffers[1]->size(), 80);
  EXPECT_EQ(ArrayToString(*a, 2), "[null, null, ...]");
}

TEST(RecordBatch, MakeValidatesColumns) {
  auto s = schema({field("id", int32()), field("name", utf8())});
  auto ok = RecordBatch::Make(s, {Ints({1, 2}), MakeString({"a", "b"})});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)->num_rows(), 2);
  auto wrong_count = RecordBatch::Make(s, {Ints({1, 2})});
  EXPECT_FALSE(wrong_count.ok());
  auto wrong_type = RecordBatch::Make(s, {Ints({1, 2}), Ints({1, 2})});
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_NE(wrong_type.status().message().find("Column 'name' has type int32"), std::string::npos);
  auto wrong_len = RecordBatch::Make(s, {Ints({1, 2}), MakeString({"a"})});
  ASSERT_FALSE(wrong_len.ok());
  EXPECT_NE(wrong_len.status().message().find("Column 'name' has 1 rows, expected 2"),
            std::string::npos);
}

TEST(RecordBatch, SliceSelectStructAndEquals) {
  auto s = schema({field("id", int32()), field("name", utf8())});
  auto batch =
      RecordBatch::Make(s, {Ints({1, 2, 3}), MakeString({"a", "b", "c"})}).MoveValueUnsafe();
  auto sliced = batch->Slice(1, 2);
  EXPECT_EQ(sliced->num_rows(), 2);
  EXPECT_EQ(sliced->ToString(), "id: [2, 3]\nname: [\"b\", \"c\"]");
  auto selected = batch->SelectColumns({"name"});
  ASSERT_TRUE(selected.ok());
  EXPECT_EQ((*selected)->schema()->field(0)->name(), "name");
  auto missing = batch->SelectColumns({"nope"});
  EXPECT_TRUE(missing.status().IsNotFound());
  EXPECT_EQ(batch->GetColumnByName("id"), batch->column(0));
  EXPECT_EQ(batch->GetColumnByName("x"), nullptr);
  auto st = batch->ToStructArray();
  EXPECT_TRUE(ValidateArray(*st).ok());
  EXPECT_EQ(ArrayToString(*st, 1), "[{id: 1, name: \"a\"}, ...]");
  EXPECT_TRUE(batch->Equals(*batch->Slice(0, 3)));
  EXPECT_FALSE(batch->Equals(*sliced));
}

TEST(ConcatenateBatches, JoinsBatchesAndChecksSchema) {
  auto s = schema({field("id", int32())});
  auto b1 = RecordBatch::Make(s, {Ints({1})}).MoveValueUnsafe();
  auto b2 = RecordBatch::Make(s, {Ints({2, 3})}).MoveValueUnsafe();
  auto r = ConcatenateBatches(s, {b1, b2});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->ToString(), "id: [1, 2, 3]");
  auto empty = ConcatenateBatches(s, {});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ((*empty)->num_rows(), 0);
  auto other = schema({field("id", int64())});
  EXPECT_FALSE(ConcatenateBatches(other, {b1}).ok());
}

TEST(RecordBatchReader, VectorReaderReadsAll) {
  auto s = schema({field("id", int32())});
  auto b1 = RecordBatch::Make(s, {Ints({1})}).MoveValueUnsafe();
  auto reader = MakeVectorReader(s, {b1, b1});
  EXPECT_EQ(reader->schema(), s);
  auto all = reader->ReadAll();
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 2u);
  EXPECT_EQ(reader->Next().ValueUnsafe(), nullptr);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::array
