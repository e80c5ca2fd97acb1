// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "array/type.h"

#include <gtest/gtest.h>

namespace lancedb::array {
namespace LANCEDB_TEST_FILE_NS {

TEST(DataType, ParameterlessFactoriesReturnSingletons) {
  EXPECT_EQ(int32().get(), int32().get());
  EXPECT_EQ(utf8().get(), utf8().get());
  EXPECT_NE(int32().get(), int64().get());
}

TEST(DataType, ToStringFollowsArrowNames) {
  EXPECT_EQ(null()->ToString(), "null");
  EXPECT_EQ(boolean()->ToString(), "bool");
  EXPECT_EQ(float16()->ToString(), "halffloat");
  EXPECT_EQ(float32()->ToString(), "float");
  EXPECT_EQ(float64()->ToString(), "double");
  EXPECT_EQ(utf8()->ToString(), "string");
  EXPECT_EQ(large_utf8()->ToString(), "large_string");
  EXPECT_EQ(fixed_size_binary(16)->ToString(), "fixed_size_binary[16]");
  EXPECT_EQ(date32()->ToString(), "date32[day]");
  EXPECT_EQ(date64()->ToString(), "date64[ms]");
  EXPECT_EQ(timestamp(TimeUnit::kMicro, "UTC")->ToString(), "timestamp[us, tz=UTC]");
  EXPECT_EQ(timestamp(TimeUnit::kNano)->ToString(), "timestamp[ns]");
  EXPECT_EQ(time32(TimeUnit::kMilli)->ToString(), "time32[ms]");
  EXPECT_EQ(time64(TimeUnit::kNano)->ToString(), "time64[ns]");
  EXPECT_EQ(duration(TimeUnit::kSecond)->ToString(), "duration[s]");
  EXPECT_EQ(decimal128(10, 2)->ToString(), "decimal128(10, 2)");
  EXPECT_EQ(list(int32())->ToString(), "list<item: int32>");
  EXPECT_EQ(large_list(utf8())->ToString(), "large_list<item: string>");
  EXPECT_EQ(fixed_size_list(float32(), 4)->ToString(), "fixed_size_list<item: float>[4]");
  EXPECT_EQ(struct_({field("a", int32()), field("b", utf8(), false)})->ToString(),
            "struct<a: int32, b: string not null>");
}

TEST(DataType, WidthsOfFixedAndVariableTypes) {
  EXPECT_EQ(null()->bit_width(), 0);
  EXPECT_EQ(boolean()->bit_width(), 1);
  EXPECT_EQ(boolean()->byte_width(), -1);
  EXPECT_EQ(int16()->byte_width(), 2);
  EXPECT_EQ(float16()->byte_width(), 2);
  EXPECT_EQ(timestamp(TimeUnit::kMilli)->byte_width(), 8);
  EXPECT_EQ(decimal128(5, 1)->byte_width(), 16);
  EXPECT_EQ(fixed_size_binary(7)->byte_width(), 7);
  EXPECT_EQ(utf8()->bit_width(), -1);
  EXPECT_EQ(list(int8())->byte_width(), -1);
}

TEST(DataType, Predicates) {
  EXPECT_TRUE(uint64()->is_integer());
  EXPECT_FALSE(float32()->is_integer());
  EXPECT_TRUE(float16()->is_floating());
  EXPECT_TRUE(large_binary()->is_binary_like());
  EXPECT_TRUE(large_binary()->has_large_offsets());
  EXPECT_TRUE(fixed_size_list(int8(), 2)->is_list_like());
  EXPECT_TRUE(struct_({})->is_nested());
  EXPECT_TRUE(int32()->is_primitive());
  EXPECT_TRUE(boolean()->is_primitive());
  EXPECT_FALSE(utf8()->is_primitive());
  EXPECT_FALSE(list(int8())->is_primitive());
}

TEST(DataType, EqualsComparesParameters) {
  EXPECT_TRUE(timestamp(TimeUnit::kMicro, "UTC")->Equals(*timestamp(TimeUnit::kMicro, "UTC")));
  EXPECT_FALSE(timestamp(TimeUnit::kMicro, "UTC")->Equals(*timestamp(TimeUnit::kMicro)));
  EXPECT_FALSE(time32(TimeUnit::kSecond)->Equals(*time32(TimeUnit::kMilli)));
  EXPECT_FALSE(decimal128(10, 2)->Equals(*decimal128(10, 3)));
  EXPECT_FALSE(fixed_size_binary(3)->Equals(*fixed_size_binary(4)));
  EXPECT_TRUE(list(int32())->Equals(*list(int32())));
  EXPECT_FALSE(list(int32())->Equals(*list(int64())));
  EXPECT_FALSE(list(int32())->Equals(*large_list(int32())));
  EXPECT_FALSE(fixed_size_list(int32(), 2)->Equals(*fixed_size_list(int32(), 3)));
  // The element type counts too: float16 and float32 vectors of one width differ.
  EXPECT_TRUE(fixed_size_list(float32(), 8)->Equals(*fixed_size_list(float32(), 8)));
  EXPECT_FALSE(fixed_size_list(float32(), 8)->Equals(*fixed_size_list(float16(), 8)));
  EXPECT_FALSE(list(field("element", int32()))->Equals(*list(int32())));
}

TEST(DataType, EqualsChecksChildMetadataOnlyWhenAsked) {
  auto a = struct_({field("x", int32(), true, {{"k", "v"}})});
  auto b = struct_({field("x", int32())});
  EXPECT_TRUE(a->Equals(*b));
  EXPECT_FALSE(a->Equals(*b, /*check_metadata=*/true));
}

TEST(Field, WithersCopyTheOtherAttributes) {
  auto f = field("a", int32(), false, {{"k", "v"}});
  EXPECT_EQ(f->WithName("b")->name(), "b");
  EXPECT_FALSE(f->WithName("b")->nullable());
  EXPECT_TRUE(f->WithType(utf8())->type()->Equals(*utf8()));
  EXPECT_TRUE(f->WithNullable(true)->nullable());
  EXPECT_TRUE(f->WithMetadata({})->metadata().empty());
  EXPECT_EQ(f->ToString(), "a: int32 not null");
}

TEST(Schema, GetFieldByNameListsColumnsWhenMissing) {
  auto s = schema({field("id", int64()), field("vector", fixed_size_list(float32(), 2))});
  EXPECT_EQ(s->GetFieldIndex("vector"), 1);
  EXPECT_EQ(s->GetFieldIndex("nope"), -1);
  ASSERT_TRUE(s->GetFieldByName("id").ok());
  auto missing = s->GetFieldByName("vectr");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.status().IsNotFound());
  EXPECT_EQ(missing.status().message(), "Column 'vectr' not found; columns are: id, vector");
  EXPECT_EQ(s->field_names(), (std::vector<std::string>{"id", "vector"}));
}

TEST(Schema, EqualsAndMetadata) {
  auto a = schema({field("a", int32())}, {{"k", "v"}});
  auto b = schema({field("a", int32())});
  EXPECT_TRUE(a->Equals(*b));
  EXPECT_FALSE(a->Equals(*b, true));
  EXPECT_TRUE(a->Equals(*b->WithMetadata({{"k", "v"}}), true));
  EXPECT_EQ(GetMetadata(a->metadata(), "k"), "v");
  EXPECT_EQ(GetMetadata(a->metadata(), "z"), std::nullopt);
  EXPECT_FALSE(a->Equals(*schema({field("b", int32())})));
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::array
