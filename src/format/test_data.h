// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Test-only: deterministic columns of every type in array/type.h, with nulls, empty and null
// lists, null structs, nested lists of structs, unicode, long values and vectors. Shared by the
// format tests and the pylance compatibility writer. Header-only so that it stays out of the
// library.

#pragma once

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "array/builder.h"
#include "format/lance_schema.h"

namespace lancedb::format::testing {

using namespace lancedb::array;  // NOLINT(google-build-using-namespace)

struct TestColumn {
  std::string name;
  FieldPtr field;
  ArrayPtr array;
};

/// A record batch of `cols`, in order, with schema metadata `metadata`.
inline RecordBatchPtr BatchOf(const std::vector<TestColumn>& cols, KeyValueMetadata metadata = {}) {
  std::vector<FieldPtr> fields;
  std::vector<ArrayPtr> arrays;
  for (const auto& c : cols) {
    fields.push_back(c.field);
    arrays.push_back(c.array);
  }
  return *RecordBatch::Make(schema(fields, std::move(metadata)), arrays);
}

/// The field ids of a Lance schema's top-level fields: what a reader reads for "every column".
inline std::vector<int32_t> TopLevelIds(const format::LanceSchema& schema) {
  std::vector<int32_t> ids;
  for (const auto& f : schema.fields()) ids.push_back(f.id);
  return ids;
}

inline std::vector<bool> EveryNth(int64_t n, int k, int phase = 0) {
  std::vector<bool> valid(n, true);
  for (int64_t i = 0; i < n; ++i) valid[i] = (i + phase) % k != 0;
  return valid;
}

template <typename T>
inline ArrayPtr Seq(DataTypePtr type, int64_t n, int64_t mul, bool nulls) {
  std::vector<T> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<T>(i * mul - n / 2 * (mul % 7));
  auto valid = nulls ? EveryNth(n, 7, 3) : std::vector<bool>{};
  if (nulls) {
    for (int64_t i = 0; i < n; ++i) {
      if (!valid[i]) v[i] = T{};
    }
  }
  return MakePrimitive<T>(std::move(type), v, valid);
}

inline std::vector<std::optional<std::string>> Strings(int64_t n, int null_every, size_t long_len) {
  std::vector<std::optional<std::string>> out;
  const char* words[] = {"alpha", "β-beta", "", "日本語テキスト", "emoji 😀", "x"};
  for (int64_t i = 0; i < n; ++i) {
    if (null_every > 0 && i % null_every == 1) {
      out.push_back(std::nullopt);
      continue;
    }
    std::string s = std::string(words[i % 6]) + std::to_string(i);
    if (long_len > 0 && i % 3 == 0)
      s += std::string(long_len + i % 50, static_cast<char>('a' + i % 26));
    out.push_back(s);
  }
  return out;
}

inline ArrayPtr Floats(int64_t count, float base) {
  std::vector<float> v(count);
  for (int64_t i = 0; i < count; ++i) v[i] = base + static_cast<float>(i) * 0.25f;
  return MakePrimitive<float>(float32(), v);
}

/// list<int32> with null lists, empty lists and null items.
inline ArrayPtr ListInt32(int64_t n) {
  std::vector<int64_t> offsets{0};
  std::vector<int32_t> items;
  std::vector<bool> item_valid;
  std::vector<bool> valid(n, true);
  for (int64_t i = 0; i < n; ++i) {
    if (i % 5 == 2) {
      valid[i] = false;
    } else if (i % 5 != 4) {
      for (int64_t k = 0; k < i % 4 + 1; ++k) {
        items.push_back(static_cast<int32_t>(i * 10 + k));
        item_valid.push_back((i + k) % 6 != 0);
      }
    }
    offsets.push_back(static_cast<int64_t>(items.size()));
  }
  return MakeList(list(int32()), offsets, MakePrimitive<int32_t>(int32(), items, item_valid),
                  valid);
}

/// large_list<string> without nulls but with empty lists.
inline ArrayPtr LargeListString(int64_t n) {
  std::vector<int64_t> offsets{0};
  std::vector<std::optional<std::string>> items;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t k = 0; k < i % 3; ++k) items.push_back("s" + std::to_string(i * 7 + k));
    offsets.push_back(static_cast<int64_t>(items.size()));
  }
  return MakeList(large_list(utf8()), offsets, MakeString(items));
}

inline ArrayPtr Fsl(int32_t dim, int64_t n, bool row_nulls, bool item_nulls) {
  auto items = Floats(n * dim, 1.0f);
  if (item_nulls) {
    std::vector<float> v(items->GetValues<float>(1), items->GetValues<float>(1) + n * dim);
    items = MakePrimitive<float>(float32(), v, EveryNth(n * dim, 5, 1));
  }
  return MakeFixedSizeList(fixed_size_list(float32(), dim), items,
                           row_nulls ? EveryNth(n, 4, 1) : std::vector<bool>{});
}

/// struct{a: int32 (nullable), b: string}, the struct itself nullable.
inline ArrayPtr StructAB(int64_t n, bool struct_nulls) {
  auto type = struct_({field("a", int32()), field("b", utf8())});
  return MakeStruct(type, {Seq<int32_t>(int32(), n, 3, true), MakeString(Strings(n, 0, 0))},
                    struct_nulls ? EveryNth(n, 6, 2) : std::vector<bool>{});
}

/// list<struct<x: int32, y: list<string>>> with null/empty outer lists and null structs.
inline ArrayPtr NestedListStructList(int64_t n, bool struct_nulls = true, bool inner_nulls = true) {
  std::vector<int64_t> outer{0};
  std::vector<bool> outer_valid(n, true);
  int64_t num_structs = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (i % 7 == 3) outer_valid[i] = false;
    if (i % 7 != 3 && i % 7 != 5) num_structs += i % 3 + 1;
    outer.push_back(num_structs);
  }
  std::vector<int64_t> inner{0};
  std::vector<bool> inner_valid(num_structs, true);
  std::vector<std::optional<std::string>> strings;
  std::vector<int32_t> xs(num_structs);
  std::vector<bool> struct_valid(num_structs, true);
  for (int64_t s = 0; s < num_structs; ++s) {
    xs[s] = static_cast<int32_t>(s);
    if (struct_nulls && s % 9 == 4) struct_valid[s] = false;
    if (inner_nulls && s % 5 == 1) inner_valid[s] = false;
    if (!(inner_nulls && s % 5 == 1) && s % 5 != 3) {
      for (int64_t k = 0; k < s % 3 + 1; ++k) {
        strings.push_back((s + k) % 8 == 0 ? std::optional<std::string>()
                                           : "v" + std::to_string(s + k));
      }
    }
    inner.push_back(static_cast<int64_t>(strings.size()));
  }
  auto y = MakeList(list(utf8()), inner, MakeString(strings), inner_valid);
  auto st_type = struct_({field("x", int32()), field("y", list(utf8()))});
  auto st = MakeStruct(st_type, {MakePrimitive<int32_t>(int32(), xs), y}, struct_valid);
  return MakeList(list(st_type), outer, st, outer_valid);
}

/// list<struct<x: int32>> with null and empty lists.
inline ArrayPtr ListStructInt(int64_t n) {
  auto lst = ListInt32(n);
  auto st_type = struct_({field("x", int32())});
  auto st = MakeStruct(st_type, {lst->children[0]});
  return ArrayData::Make(list(st_type), n, lst->buffers, {st});
}

/// list<list<string>> with null and empty lists at both levels.
inline ArrayPtr ListListString(int64_t n) {
  auto inner = NestedListStructList(n, false, true)->children[0]->children[1];
  auto outer = NestedListStructList(n, false, true);
  return ArrayData::Make(list(list(utf8())), n, outer->buffers, {inner});
}

/// list<int32> whose lists are null, empty, or hold only null items: no valid leaf value.
inline ArrayPtr ListWithoutValues(int64_t n) {
  std::vector<int64_t> offsets{0};
  std::vector<bool> valid(n, true);
  int64_t items = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (i % 3 == 0) valid[i] = false;
    if (i % 3 == 2) items += 2;
    offsets.push_back(items);
  }
  return MakeList(list(int32()), offsets, MakeNullArray(int32(), items), valid);
}

/// list<int32> of `n` rows, all empty except every 40000th row, which holds [row, row + 1].
inline ArrayPtr MostlyEmptyLists(int64_t n) {
  std::vector<int64_t> offsets{0};
  std::vector<int32_t> items;
  for (int64_t i = 0; i < n; ++i) {
    if (i % 40000 == 7) {
      items.push_back(static_cast<int32_t>(i));
      items.push_back(static_cast<int32_t>(i + 1));
    }
    offsets.push_back(static_cast<int64_t>(items.size()));
  }
  return MakeList(list(int32()), offsets, MakePrimitive<int32_t>(int32(), items));
}

/// struct{a: int32} where `a` is always null and the struct sometimes is.
inline ArrayPtr StructOfNulls(int64_t n) {
  auto type = struct_({field("a", int32())});
  return MakeStruct(type, {MakeNullArray(int32(), n)}, EveryNth(n, 4, 1));
}

inline ArrayPtr Bools(int64_t n) {
  std::vector<bool> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = i % 3 == 0;
  return MakeBool(v, EveryNth(n, 11, 2));
}

inline ArrayPtr Decimals(int64_t n) {
  std::vector<int64_t> words(2 * n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t value = (i - n / 2) * 12345;
    words[2 * i] = value;
    words[2 * i + 1] = value < 0 ? -1 : 0;
  }
  auto data = Buffer::FromVector(words);
  return ArrayData::Make(decimal128(12, 2), n, {MakeValidityBitmap(EveryNth(n, 9)), data});
}

/// One column per type, `n` rows each.
inline std::vector<TestColumn> AllTypeColumns(int64_t n) {
  std::vector<TestColumn> cols;
  auto add = [&](std::string name, ArrayPtr a, bool nullable = true) {
    cols.push_back({name, field(name, a->type, nullable), a});
  };
  add("null", MakeNullArray(null(), n));
  add("bool", Bools(n));
  add("int8", Seq<int8_t>(int8(), n, 1, true));
  add("int16", Seq<int16_t>(int16(), n, 3, true));
  add("int32", Seq<int32_t>(int32(), n, 7, true));
  add("int64", Seq<int64_t>(int64(), n, 1000003, false), false);
  add("uint8", Seq<uint8_t>(uint8(), n, 1, false));
  add("uint16", Seq<uint16_t>(uint16(), n, 5, true));
  add("uint32", Seq<uint32_t>(uint32(), n, 11, true));
  add("uint64", Seq<uint64_t>(uint64(), n, 1u << 20, true));
  add("float16", Seq<uint16_t>(float16(), n, 28, true));
  add("float32", Seq<float>(float32(), n, 2, true));
  add("float64", Seq<double>(float64(), n, 3, true));
  add("string", MakeString(Strings(n, 5, 0)));
  add("large_string", MakeBinaryLike(large_utf8(), Strings(n, 4, 0)));
  add("binary", MakeBinaryLike(binary(), Strings(n, 6, 0)));
  add("large_binary", MakeBinaryLike(large_binary(), Strings(n, 0, 0)));
  add("long_string", MakeString(Strings(n, 4, 300)));
  add("fixed_size_binary", MakeFixedSizeBinary(16, Strings(n, 3, 20)));
  add("date32", Seq<int32_t>(date32(), n, 1, true));
  add("date64", Seq<int64_t>(date64(), n, 86400000, true));
  add("timestamp_us", Seq<int64_t>(timestamp(TimeUnit::kMicro), n, 1000001, true));
  add("timestamp_ns_utc", Seq<int64_t>(timestamp(TimeUnit::kNano, "UTC"), n, 999, false));
  add("time32_ms", Seq<int32_t>(time32(TimeUnit::kMilli), n, 1000, true));
  add("time64_ns", Seq<int64_t>(time64(TimeUnit::kNano), n, 1000, true));
  add("duration_us", Seq<int64_t>(duration(TimeUnit::kMicro), n, 17, true));
  add("decimal128", Decimals(n));
  add("list_int32", ListInt32(n));
  add("large_list_string", LargeListString(n));
  add("fsl_float_4", Fsl(4, n, true, false));
  add("fsl_float_128", Fsl(128, n, false, false));
  add("fsl_float_128_nulls", Fsl(128, n, true, false));
  add("fsl_float_8_item_nulls", Fsl(8, n, true, true));
  add("struct", StructAB(n, true));
  add("list_struct_list", NestedListStructList(n));
  add("list_struct_list_no_struct_nulls", NestedListStructList(n, false, true));
  add("list_struct_list_no_nulls", NestedListStructList(n, false, false));
  add("list_struct_int", ListStructInt(n));
  add("list_list_string", ListListString(n));
  add("all_null_int64", MakeNullArray(int64(), n));
  add("list_without_values", ListWithoutValues(n));
  add("struct_of_nulls", StructOfNulls(n));
  add("all_null_fsl", MakeNullArray(fixed_size_list(float32(), 4), n));
  add("all_null_string", MakeNullArray(utf8(), n));
  return cols;
}

/// A dictionary column of `type` with `n` rows cycling through `dictionary` (whose last entry is
/// never used), null every `null_every` rows (0: no nulls).
inline ArrayPtr DictionaryColumn(DataTypePtr type, ArrayPtr dictionary, int64_t n, int null_every) {
  std::vector<int64_t> indices(n);
  std::vector<bool> valid(n, true);
  const int64_t used = dictionary->length - 1;
  for (int64_t i = 0; i < n; ++i) {
    indices[i] = (i * 7 + i / 3) % used;
    if (null_every > 0 && i % null_every == 2) valid[i] = false;
  }
  return MakeDictionary(std::move(type), indices, std::move(dictionary),
                        null_every > 0 ? valid : std::vector<bool>{});
}

/// One column per kind of dictionary column (index and value types, nesting, all null).
inline std::vector<TestColumn> DictionaryColumns(int64_t n) {
  std::vector<TestColumn> cols;
  auto add = [&](std::string name, ArrayPtr a, bool nullable = true) {
    cols.push_back({name, field(name, a->type, nullable), a});
  };
  auto words = MakeString({"red", "green", "", "blue", "日本", "unused"});
  add("dict_string", DictionaryColumn(dictionary(int32(), utf8()), words, n, 5));
  add("dict_string_not_null", DictionaryColumn(dictionary(int32(), utf8()), words, n, 0), false);
  add("dict_int8_large_string",
      DictionaryColumn(dictionary(int8(), large_utf8()),
                       MakeBinaryLike(large_utf8(), {"x", "yy", "zzz", "never"}), n, 4));
  add("dict_uint16_binary",
      DictionaryColumn(dictionary(uint16(), binary()),
                       MakeBinaryLike(binary(), {std::string("\0\1", 2), "b", "c"}), n, 0));
  add("dict_uint8_int64",
      DictionaryColumn(dictionary(uint8(), int64()),
                       MakePrimitive<int64_t>(int64(), {-5, 1LL << 40, 7, 0}), n, 3));
  add("dict_int64_float64",
      DictionaryColumn(dictionary(int64(), float64()),
                       MakePrimitive<double>(float64(), {0.5, -2.25, 1e300}), n, 6));
  auto item = dictionary(int16(), utf8());
  std::vector<int64_t> offsets{0};
  for (int64_t i = 0; i < n; ++i) offsets.push_back(offsets.back() + i % 3);
  add("list_dict",
      MakeList(list(item), offsets,
               DictionaryColumn(item, MakeString({"p", "q", "r", "s"}), offsets.back(), 4),
               EveryNth(n, 5, 1)));
  auto member = dictionary(int32(), utf8());
  add("struct_dict", MakeStruct(struct_({field("d", member), field("x", int32())}),
                                {DictionaryColumn(member, MakeString({"s1", "s2", "s3"}), n, 3),
                                 Seq<int32_t>(int32(), n, 1, false)},
                                EveryNth(n, 9, 4)));
  add("all_null_dict", MakeNullArray(dictionary(int32(), utf8()), n));
  return cols;
}

}  // namespace lancedb::format::testing
