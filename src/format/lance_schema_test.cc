// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "format/lance_schema.h"

#include <gtest/gtest.h>

#include "format/proto/file.pb.h"
#include "format/test_data.h"

namespace lancedb::format {
namespace LANCEDB_TEST_FILE_NS {

using namespace lancedb::array;  // NOLINT(google-build-using-namespace)

TEST(LanceSchema, LogicalTypeStringsMatchLance) {
  const std::vector<std::pair<DataTypePtr, std::string>> cases = {
      {null(), "null"},
      {boolean(), "bool"},
      {int8(), "int8"},
      {uint64(), "uint64"},
      {float16(), "halffloat"},
      {float32(), "float"},
      {float64(), "double"},
      {utf8(), "string"},
      {large_utf8(), "large_string"},
      {binary(), "binary"},
      {large_binary(), "large_binary"},
      {fixed_size_binary(16), "fixed_size_binary:16"},
      {date32(), "date32:day"},
      {date64(), "date64:ms"},
      {timestamp(TimeUnit::kMicro), "timestamp:us:-"},
      {timestamp(TimeUnit::kNano, "UTC"), "timestamp:ns:UTC"},
      {time32(TimeUnit::kMilli), "time32:ms"},
      {time64(TimeUnit::kMicro), "time64:us"},
      {duration(TimeUnit::kNano), "duration:ns"},
      {decimal128(38, 10), "decimal:128:38:10"},
      {list(int32()), "list"},
      {list(struct_({field("a", int32())})), "list.struct"},
      {large_list(utf8()), "large_list"},
      {fixed_size_list(float32(), 128), "fixed_size_list:float:128"},
      {struct_({field("a", int32())}), "struct"},
      {dictionary(int32(), utf8()), "dict:string:int32:false"},
      {dictionary(uint8(), int64()), "dict:int64:uint8:false"},
  };
  for (const auto& [type, expected] : cases) {
    auto lt = LogicalTypeFromArrow(*type);
    ASSERT_TRUE(lt.ok()) << type->ToString();
    EXPECT_EQ(*lt, expected);
    // And back, for the types whose string says everything.
    if (type->id() != TypeId::kStruct && !type->is_list_like()) {
      LanceField f;
      f.logical_type = expected;
      auto back = f.ToArrowType();
      ASSERT_TRUE(back.ok()) << expected;
      EXPECT_TRUE((*back)->Equals(*type)) << expected;
    }
  }
}

TEST(LanceSchema, AssignsIdsDepthFirst) {
  auto s = schema({field("id", int64(), false), field("vec", fixed_size_list(float32(), 4)),
                   field("tags", list(utf8())),
                   field("st", struct_({field("a", int32()), field("b", list(int32()))}))});
  auto ls = LanceSchema::FromArrow(*s);
  ASSERT_TRUE(ls.ok());
  const auto& f = ls->fields();
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].id, 0);
  EXPECT_EQ(f[0].parent_id, -1);
  EXPECT_FALSE(f[0].nullable);
  EXPECT_EQ(f[1].id, 1);
  EXPECT_TRUE(f[1].children.empty());  // FSL of a primitive is one field
  EXPECT_EQ(f[2].id, 2);
  ASSERT_EQ(f[2].children.size(), 1u);
  EXPECT_EQ(f[2].children[0].name, "item");
  EXPECT_EQ(f[2].children[0].id, 3);
  EXPECT_EQ(f[2].children[0].parent_id, 2);
  EXPECT_EQ(f[3].id, 4);
  EXPECT_EQ(f[3].children[1].children[0].id, 7);
  EXPECT_EQ(ls->MaxFieldId(), 7);
  EXPECT_EQ(ls->LeafFieldIds(), (std::vector<int32_t>{0, 1, 3, 5, 7}));
  EXPECT_EQ(ls->AllFieldIds(), (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(ls->FindById(6)->name, "b");
  EXPECT_EQ(ls->FindById(99), nullptr);
  auto shifted = LanceSchema::FromArrow(*s, 10);
  EXPECT_EQ(shifted->fields()[0].id, 10);
}

TEST(LanceSchema, ProtoRoundTripKeepsEverything) {
  std::vector<FieldPtr> fields;
  for (const auto& c : testing::AllTypeColumns(1)) fields.push_back(c.field);
  fields.push_back(field("meta", int32(), true, {{"lance-encoding:compression", "zstd"}}));
  auto s = schema(fields, {{"k", "v"}});
  auto ls = LanceSchema::FromArrow(*s);
  ASSERT_TRUE(ls.ok()) << ls.status().ToString();
  std::vector<lance::file::Field> protos;
  ls->ToProto(&protos);
  ASSERT_EQ(static_cast<int>(protos.size()), static_cast<int>(ls->AllFieldIds().size()));
  for (const auto& p : protos) {
    if (p.logical_type() == "string" || p.logical_type() == "binary") {
      EXPECT_EQ(p.encoding(), lance::file::VAR_BINARY);
    } else if (p.logical_type() == "int64" || p.logical_type() == "list") {
      EXPECT_EQ(p.encoding(), lance::file::PLAIN);
    }
  }
  std::vector<const lance::file::Field*> ptrs;
  for (const auto& p : protos) ptrs.push_back(&p);
  auto back = LanceSchema::FromProto(ptrs, ls->metadata());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  auto arrow = back->ToArrow();
  ASSERT_TRUE(arrow.ok()) << arrow.status().ToString();
  EXPECT_TRUE((*arrow)->Equals(*s, /*check_metadata=*/true)) << (*arrow)->ToString();
  EXPECT_TRUE(back->SameShape(*s));
}

TEST(LanceSchema, ReportsBadInput) {
  lance::file::Field orphan;
  orphan.set_name("x");
  orphan.set_id(3);
  orphan.set_parent_id(7);
  orphan.set_logical_type("int32");
  EXPECT_TRUE(LanceSchema::FromProto({&orphan}, {}).status().IsCorruption());
  LanceField f;
  f.name = "weird";
  f.logical_type = "map";
  EXPECT_TRUE(f.ToArrowType().status().IsNotSupported());
  f.logical_type = "dict:string:int8:false";
  auto dict = f.ToArrowType();
  ASSERT_TRUE(dict.ok()) << dict.status().ToString();
  EXPECT_TRUE((*dict)->Equals(*dictionary(int8(), utf8())));
  auto fsl_of_struct = fixed_size_list(struct_({field("a", int32())}), 2);
  EXPECT_TRUE(
      LanceSchema::FromArrow(*schema({field("f", fsl_of_struct)})).status().IsNotSupported());
  auto ls = LanceSchema::FromArrow(*schema({field("a", int32()), field("b", utf8())}));
  auto missing = ls->Project({"b", "zz"});
  ASSERT_TRUE(missing.status().IsNotFound());
  EXPECT_NE(missing.status().message().find("columns are: a, b"), std::string::npos);
  auto projected = ls->Project({"b"});
  ASSERT_TRUE(projected.ok());
  EXPECT_EQ(projected->fields()[0].id, 1);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::format
