// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "array/dictionary.h"

#include <gtest/gtest.h>

#include "array/builder.h"

namespace lancedb::array {
namespace LANCEDB_TEST_FILE_NS {

DataTypePtr StringDict(DataTypePtr index = int32()) { return dictionary(std::move(index), utf8()); }

/// ["b", null, "a", "b", "c"] over the dictionary ["a", "b", "c"].
ArrayPtr Colors() {
  return MakeDictionary(StringDict(), {1, 0, 0, 1, 2}, MakeString({"a", "b", "c"}),
                        {true, false, true, true, true});
}

std::vector<std::optional<std::string>> Strings(const ArrayPtr& values) {
  std::vector<std::optional<std::string>> out;
  for (int64_t i = 0; i < values->length; ++i) {
    if (values->IsNull(i)) {
      out.push_back(std::nullopt);
    } else {
      out.emplace_back(values->GetView(i));
    }
  }
  return out;
}

std::vector<std::optional<std::string>> Decoded(const ArrayPtr& array) {
  auto values = DictionaryDecode(array);
  EXPECT_TRUE(values.ok()) << values.status().ToString();
  return values.ok() ? Strings(*values) : std::vector<std::optional<std::string>>{};
}

using Opt = std::vector<std::optional<std::string>>;

TEST(DictionaryType, EqualityNameAndAccessors) {
  auto t = dictionary(int8(), utf8(), true);
  EXPECT_TRUE(t->is_dictionary());
  EXPECT_TRUE(t->index_type()->Equals(*int8()));
  EXPECT_TRUE(t->value_type()->Equals(*utf8()));
  EXPECT_TRUE(t->ordered());
  EXPECT_EQ(t->ToString(), "dictionary<values=string, indices=int8, ordered=1>");
  EXPECT_TRUE(t->Equals(*dictionary(int8(), utf8(), true)));
  EXPECT_FALSE(t->Equals(*dictionary(int8(), utf8(), false)));
  EXPECT_FALSE(t->Equals(*dictionary(int16(), utf8(), true)));
  EXPECT_FALSE(t->Equals(*dictionary(int8(), large_utf8(), true)));
  EXPECT_FALSE(t->Equals(*utf8()));
  EXPECT_EQ(t->byte_width(), -1);
  EXPECT_FALSE(t->is_primitive());
  EXPECT_FALSE(t->is_nested());
}

TEST(DictionaryType, ValidateNamesBadIndexAndValueTypes) {
  EXPECT_TRUE(ValidateDictionaryType(*dictionary(uint64(), float64())).ok());
  EXPECT_TRUE(ValidateDictionaryType(*dictionary(float32(), utf8())).IsInvalidArgument());
  auto st = ValidateDictionaryType(*dictionary(int32(), list(int32())));
  EXPECT_TRUE(st.IsNotSupported());
  EXPECT_NE(st.message().find("list<item: int32>"), std::string::npos) << st.ToString();
  EXPECT_TRUE(ValidateDictionaryType(*dictionary(int32(), boolean())).IsNotSupported());
}

TEST(DictionaryArray, ValidateChecksIndicesAndDictionary) {
  EXPECT_TRUE(ValidateArray(*Colors()).ok());
  // A null row may hold any index.
  auto null_slot = MakeDictionary(StringDict(), {99, 0}, MakeString({"a"}), {false, true});
  EXPECT_TRUE(ValidateArray(*null_slot).ok()) << ValidateArray(*null_slot).ToString();
  auto out_of_range = MakeDictionary(StringDict(), {0, 3}, MakeString({"a", "b", "c"}));
  auto st = ValidateArray(*out_of_range);
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.message().find("index 3 at row 1"), std::string::npos) << st.ToString();
  auto negative = MakeDictionary(StringDict(int8()), {-1}, MakeString({"a"}));
  EXPECT_TRUE(ValidateArray(*negative).IsInvalidArgument());
  auto wrong_values = MakeDictionary(StringDict(), {0}, MakeString({"a"}));
  std::const_pointer_cast<ArrayData>(wrong_values)->dictionary =
      MakePrimitive<int32_t>(int32(), {1});
  EXPECT_TRUE(ValidateArray(*wrong_values).IsInvalidArgument());
  auto missing = MakeDictionary(StringDict(), {0}, MakeString({"a"}));
  std::const_pointer_cast<ArrayData>(missing)->dictionary = nullptr;
  EXPECT_TRUE(ValidateArray(*missing).IsInvalidArgument());
}

TEST(DictionaryArray, DecodeGivesValuesWithNulls) {
  EXPECT_EQ(Decoded(Colors()), (Opt{"b", std::nullopt, "a", "b", "c"}));
  EXPECT_EQ(Decoded(Slice(Colors(), 2, 3)), (Opt{"a", "b", "c"}));
  // A valid index pointing at a null value decodes to null.
  auto null_value = MakeDictionary(StringDict(), {0, 1}, MakeString({std::nullopt, "x"}));
  EXPECT_EQ(Decoded(null_value), (Opt{std::nullopt, "x"}));
  EXPECT_EQ(Decoded(MakeNullArray(StringDict(), 3)),
            (Opt{std::nullopt, std::nullopt, std::nullopt}));
}

TEST(DictionaryArray, EncodeKeepsSeedOrderAndFirstAppearance) {
  auto values = MakeString({"y", std::nullopt, "x", "y", "w"});
  auto encoded = DictionaryEncode(values, StringDict(int16()));
  ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
  EXPECT_EQ(Strings((*encoded)->dictionary), (Opt{"y", "x", "w"}));
  EXPECT_EQ(DictionaryIndex(**encoded, 3), 0);
  EXPECT_EQ((*encoded)->null_count, 1);
  EXPECT_EQ(Decoded(*encoded), Strings(values));
  // Seeds come first, unused ones included, nulls and duplicates skipped.
  auto seeded = DictionaryEncode(values, StringDict(int16()),
                                 {MakeString({"z", std::nullopt, "x", "z"}), MakeString({"w"})});
  ASSERT_TRUE(seeded.ok());
  EXPECT_EQ(Strings((*seeded)->dictionary), (Opt{"z", "x", "w", "y"}));
  EXPECT_EQ(Decoded(*seeded), Strings(values));
  EXPECT_TRUE(ValidateArray(**seeded).ok());
}

TEST(DictionaryArray, EncodeFailsWhenIndicesOverflow) {
  std::vector<int64_t> ints;
  for (int64_t i = 0; i < 200; ++i) ints.push_back(i);
  auto values = MakePrimitive<int64_t>(int64(), ints);
  auto st = DictionaryEncode(values, dictionary(int8(), int64())).status();
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.message().find("200 values does not fit int8"), std::string::npos) << st.ToString();
  EXPECT_TRUE(DictionaryEncode(values, dictionary(uint8(), int64())).ok());
  EXPECT_TRUE(DictionaryEncode(values, StringDict()).status().IsInvalidArgument());
}

TEST(DictionaryArray, EncodeFixedWidthValues) {
  auto values = MakePrimitive<double>(float64(), {1.5, 2.5, 1.5, 0}, {true, true, true, false});
  auto encoded = DictionaryEncode(values, dictionary(uint32(), float64()));
  ASSERT_TRUE(encoded.ok());
  EXPECT_EQ((*encoded)->dictionary->length, 2);
  auto decoded = DictionaryDecode(*encoded);
  ASSERT_TRUE(decoded.ok());
  EXPECT_TRUE(ArrayEquals(**decoded, *values));
}

TEST(DictionaryArray, TakeAndSliceKeepTheDictionary) {
  auto colors = Colors();
  auto taken = Take(colors, {4, 1, 0});
  ASSERT_TRUE(taken.ok());
  EXPECT_EQ((*taken)->dictionary, colors->dictionary);
  EXPECT_EQ(Decoded(*taken), (Opt{"c", std::nullopt, "b"}));
  EXPECT_EQ(Slice(colors, 1, 2)->dictionary, colors->dictionary);
  EXPECT_EQ(Slice(colors, 1, 2)->null_count, 1);
}

TEST(DictionaryArray, ConcatenateUnifiesDifferentDictionaries) {
  auto a = Colors();
  auto b = MakeDictionary(StringDict(), {0, 1, 0}, MakeString({"d", "a", "unused"}));
  auto same = Concatenate({a, Slice(a, 1, 3)});
  ASSERT_TRUE(same.ok());
  EXPECT_EQ((*same)->dictionary, a->dictionary);
  auto merged = Concatenate({a, b});
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_TRUE(ValidateArray(**merged).ok()) << ValidateArray(**merged).ToString();
  // The first dictionary is kept as is; only used values of the others are added.
  EXPECT_EQ(Strings((*merged)->dictionary), (Opt{"a", "b", "c", "d"}));
  EXPECT_EQ(Decoded(*merged), (Opt{"b", std::nullopt, "a", "b", "c", "d", "a", "d"}));
  // Equal dictionaries in different objects are not rewritten.
  auto copy = MakeDictionary(StringDict(), {2}, MakeString({"a", "b", "c"}));
  auto equal = Concatenate({a, copy});
  ASSERT_TRUE(equal.ok());
  EXPECT_EQ((*equal)->dictionary, a->dictionary);
}

TEST(DictionaryArray, ConcatenateFailsWhenTheUnionOverflowsTheIndexType) {
  std::vector<int64_t> first;
  std::vector<int64_t> second;
  for (int64_t i = 0; i < 100; ++i) {
    first.push_back(i);
    second.push_back(i + 100);
  }
  auto t = dictionary(int8(), int64());
  std::vector<int64_t> idx(100);
  for (int64_t i = 0; i < 100; ++i) idx[i] = i;
  auto a = MakeDictionary(t, idx, MakePrimitive<int64_t>(int64(), first));
  auto b = MakeDictionary(t, idx, MakePrimitive<int64_t>(int64(), second));
  auto st = Concatenate({a, b}).status();
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.message().find("200 values"), std::string::npos) << st.ToString();
}

TEST(DictionaryArray, NestedDictionariesGatherThroughListsAndStructs) {
  auto item = StringDict(uint8());
  auto lists =
      MakeList(list(item), {0, 2, 2, 3}, MakeDictionary(item, {0, 1, 1}, MakeString({"p", "q"})));
  auto other = MakeList(list(item), {0, 1}, MakeDictionary(item, {0}, MakeString({"r"})));
  auto merged = Concatenate({lists, other});
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_TRUE(ValidateArray(**merged).ok());
  EXPECT_EQ(ArrayToString(**merged), "[[\"p\", \"q\"], [], [\"q\"], [\"r\"]]");
  auto st = struct_({field("c", item)});
  auto structs = MakeStruct(st, {MakeDictionary(item, {1, 0}, MakeString({"p", "q"}))});
  auto taken = Take(structs, {1, 1, 0});
  ASSERT_TRUE(taken.ok());
  EXPECT_EQ(ArrayToString(**taken), "[{c: \"p\"}, {c: \"p\"}, {c: \"q\"}]");
}

TEST(DictionaryArray, EqualityIsLogical) {
  auto a = MakeDictionary(StringDict(), {0, 1}, MakeString({"x", "y"}));
  auto b = MakeDictionary(StringDict(), {1, 0}, MakeString({"y", "x"}));
  auto c = MakeDictionary(StringDict(), {1, 1}, MakeString({"y", "x"}));
  EXPECT_TRUE(ArrayEquals(*a, *b));
  EXPECT_FALSE(ArrayEquals(*a, *c));
  EXPECT_FALSE(ArrayEquals(*a, *MakeString({"x", "y"})));
}

TEST(DictionaryArray, NullArrayAndRendering) {
  auto nulls = MakeNullArray(StringDict(int64()), 2);
  EXPECT_TRUE(ValidateArray(*nulls).ok()) << ValidateArray(*nulls).ToString();
  EXPECT_EQ(nulls->null_count, 2);
  EXPECT_EQ(ArrayToString(*nulls), "[null, null]");
  EXPECT_EQ(ArrayToString(*Colors()), "[\"b\", null, \"a\", \"b\", \"c\"]");
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::array
