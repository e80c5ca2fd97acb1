// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// libFuzzer target over the SQL expression layer: the input is parsed as an expression, bound
// against a fixed schema (every value kind, a list, a struct) and, when it binds, evaluated as
// a projection and, if boolean, as a filter over a small batch with NULLs. Any input must yield
// a value or an error Status; crashes, sanitizer reports, leaks and hangs are bugs.
// Seeds: fuzz/corpus/parser_fuzz/ (one expression per file).

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "array/builder.h"
#include "expr/evaluator.h"
#include "expr/parser.h"

namespace {

using namespace lancedb;  // NOLINT

array::RecordBatchPtr MakeBatch() {
  auto p_type =
      array::struct_({array::field("a", array::int32()), array::field("b", array::utf8())});
  auto tags_type = array::list(array::utf8());
  auto schema = array::schema({
      array::field("id", array::int64()),
      array::field("u", array::uint64()),
      array::field("f", array::float64()),
      array::field("s", array::utf8()),
      array::field("b", array::boolean()),
      array::field("d", array::date32()),
      array::field("ts", array::timestamp(array::TimeUnit::kMicro)),
      array::field("dec", array::decimal128(10, 2)),
      array::field("t", array::time64(array::TimeUnit::kMicro)),
      array::field("dur", array::duration(array::TimeUnit::kMicro)),
      array::field("tags", tags_type),
      array::field("p", p_type),
  });
  std::vector<array::ArrayPtr> columns = {
      array::MakePrimitive<int64_t>(array::int64(), {1, -2, 0}, {true, true, false}),
      array::MakePrimitive<uint64_t>(array::uint64(), {0, 18446744073709551615ULL, 7},
                                     {true, true, false}),
      array::MakePrimitive<double>(array::float64(), {1.5, -0.0, 1e308}, {true, true, false}),
      array::MakeString({std::string(" Ab "), std::string("h\xc3\xa9llo \xce\xa3"), std::nullopt}),
      array::MakeBool({true, false, false}, {true, true, false}),
      array::MakePrimitive<int32_t>(array::date32(), {19737, -1, 0}, {true, true, false}),
      array::MakePrimitive<int64_t>(array::timestamp(array::TimeUnit::kMicro),
                                    {1705276800000000LL, -1, 0}, {true, true, false}),
      array::MakePrimitive<__int128>(array::decimal128(10, 2), {12345, -1, 0}, {true, true, false}),
      array::MakePrimitive<int64_t>(array::time64(array::TimeUnit::kMicro),
                                    {3600000000LL, 86399999999LL, 0}, {true, true, false}),
      array::MakePrimitive<int64_t>(array::duration(array::TimeUnit::kMicro), {1000000, -5, 0},
                                    {true, true, false}),
      array::MakeList(tags_type, {0, 2, 2, 2}, array::MakeString({"x", std::nullopt}),
                      {true, true, false}),
      array::MakeStruct(
          p_type,
          {array::MakePrimitive<int32_t>(array::int32(), {5, 0, 7}, {true, false, true}),
           array::MakeString({"q", std::nullopt, "r"})},
          {true, true, false}),
  };
  return array::RecordBatch::Make(schema, columns, 3).ValueOr(nullptr);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const array::RecordBatchPtr batch = MakeBatch();
  if (size > 4096) return 0;  // long inputs only slow the search down
  std::string_view sql(reinterpret_cast<const char*>(data), size);
  auto bound = expr::ParseAndBind(sql, *batch->schema());
  if (!bound.ok()) return 0;
  (void)expr::Evaluate(*bound, *batch).ok();
  auto filter = expr::ParseFilter(sql, *batch->schema());
  if (filter.ok()) (void)expr::EvaluateFilter(*filter, *batch).ok();
  return 0;
}
