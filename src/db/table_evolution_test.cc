// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Tests of tags and schema evolution on a Table: add_columns (SQL, all-null, batch UDF and
// their contracts), alter_columns, drop_columns, update_field_metadata; failures leave the
// table unchanged; old versions keep their schema.

#include <gtest/gtest.h>

#include "array/builder.h"
#include "array/c_bridge.h"
#include "lancedb/lancedb.h"

namespace lancedb {
namespace LANCEDB_TEST_FILE_NS {

namespace la = lancedb::array;

std::shared_ptr<Table> MakeTable(const std::string& uri, int64_t rows) {
  auto schema = la::schema({la::field("id", la::int64(), false), la::field("x", la::float64())});
  std::vector<int64_t> ids;
  std::vector<double> xs;
  for (int64_t i = 0; i < rows; ++i) {
    ids.push_back(i);
    xs.push_back(static_cast<double>(i) / 2);
  }
  auto batch = *la::RecordBatch::Make(
      schema, {la::MakePrimitive(la::int64(), ids), la::MakePrimitive(la::float64(), xs)});
  ArrowArrayStream s;
  EXPECT_TRUE(la::ExportRecordBatchReader(la::MakeVectorReader(schema, {batch}), &s).ok());
  auto db = Connect(uri);
  auto t = (*db)->CreateTable("t", &s);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return *t;
}

la::SchemaPtr SchemaOf(const std::shared_ptr<Table>& t) {
  ArrowSchema s;
  EXPECT_TRUE(t->GetSchema(&s).ok());
  return *la::ImportSchema(&s);
}

la::RecordBatchPtr ReadAll(const std::shared_ptr<Table>& t) {
  ArrowArrayStream s;
  EXPECT_TRUE(t->Scan({}, &s).ok());
  auto reader = la::ImportArrayStream(&s).MoveValueUnsafe();
  auto batches = *reader->ReadAll();
  return *la::ConcatenateBatches(reader->schema(), batches);
}

TEST(Tags, CreateListCheckoutDelete) {
  auto t = MakeTable("memory://tags", 3);
  ASSERT_TRUE(t->Delete("id = 0").ok());
  ASSERT_TRUE(t->CreateTag("one", 1).ok());
  EXPECT_TRUE(t->CreateTag("one", 2).IsAlreadyExists());
  EXPECT_TRUE(t->CreateTag("nope", 9).IsNotFound());
  EXPECT_TRUE(t->CreateTag("bad/name", 1).IsInvalidArgument());
  auto tags = t->ListTags();
  ASSERT_TRUE(tags.ok());
  ASSERT_EQ(tags->size(), 1u);
  EXPECT_EQ(tags->at("one").version, 1u);
  EXPECT_GT(tags->at("one").manifest_size, 0u);
  ASSERT_TRUE(t->UpdateTag("one", 2).ok());
  EXPECT_EQ(*t->GetTagVersion("one"), 2u);
  ASSERT_TRUE(t->UpdateTag("one", 1).ok());
  ASSERT_TRUE(t->CheckoutTag("one").ok());
  EXPECT_EQ(*t->CountRows(), 3);
  ASSERT_TRUE(t->CheckoutLatest().ok());
  ASSERT_TRUE(t->DeleteTag("one").ok());
  EXPECT_TRUE(t->GetTagVersion("one").status().IsNotFound());
  EXPECT_TRUE(t->DeleteTag("one").IsNotFound());
}

TEST(AddColumns, SqlExpressionsWriteNewFilesOnly) {
  auto t = MakeTable("memory://addsql", 10);
  ASSERT_TRUE(t->Delete("id = 3").ok());
  auto r = t->AddColumns()
               .Transform(ColumnTransform::SqlExpressions({{"doubled", "x * 2"}, {"s", "'k'"}}))
               .Execute();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 3u);
  auto rows = ReadAll(t);
  ASSERT_EQ(rows->num_rows(), 9);
  auto x = rows->GetColumnByName("x");
  auto d = rows->GetColumnByName("doubled");
  for (int64_t i = 0; i < rows->num_rows(); ++i) {
    EXPECT_EQ(d->GetValues<double>(1)[i], 2 * x->GetValues<double>(1)[i]);
  }
  EXPECT_EQ(rows->GetColumnByName("s")->GetView(0), "k");
}

TEST(AddColumns, AllNullsIncludingNestedStruct) {
  auto t = MakeTable("memory://addnull", 5);
  auto added = la::schema(
      {la::field("meta", la::struct_({la::field("a", la::int32()), la::field("b", la::utf8())}))});
  ArrowSchema c;
  ASSERT_TRUE(la::ExportSchema(*added, &c).ok());
  auto r = t->AddColumns().Transform(ColumnTransform::AllNulls(&c)).Execute();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto rows = ReadAll(t);
  auto meta = rows->GetColumnByName("meta");
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->null_count, 5);
}

TEST(AddColumns, BatchUdfSeesOnlyReadColumns) {
  auto t = MakeTable("memory://addudf", 6);
  auto out_schema = la::schema({la::field("y", la::float64())});
  ArrowSchema c;
  ASSERT_TRUE(la::ExportSchema(*out_schema, &c).ok());
  std::vector<std::string> seen;
  auto udf = [&](ArrowSchema* in_schema, ArrowArray* in, ArrowArray* out) -> Status {
    LANCEDB_ASSIGN_OR_RETURN(auto schema, la::ImportSchema(in_schema));
    LANCEDB_ASSIGN_OR_RETURN(auto batch, la::ImportRecordBatch(in, schema));
    seen = schema->field_names();
    auto x = batch->GetColumnByName("x");
    std::vector<double> ys;
    for (int64_t i = 0; i < batch->num_rows(); ++i) ys.push_back(x->GetValues<double>(1)[i] + 1);
    LANCEDB_ASSIGN_OR_RETURN(
        auto result, la::RecordBatch::Make(out_schema, {la::MakePrimitive(la::float64(), ys)}));
    return la::ExportRecordBatch(*result, out);
  };
  auto r = t->AddColumns().Transform(ColumnTransform::Udf(&c, udf)).ReadColumns({"x"}).Execute();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(seen, std::vector<std::string>{"x"});
  auto rows = ReadAll(t);
  EXPECT_EQ(rows->GetColumnByName("y")->GetValues<double>(1)[4], 3.0);
}

TEST(AddColumns, ContractErrorsCommitNothing) {
  auto t = MakeTable("memory://adderr", 3);
  auto none = t->AddColumns().Execute();
  ASSERT_TRUE(none.status().IsInvalidArgument());
  EXPECT_NE(none.status().message().find("requires a transform"), std::string::npos);
  auto rc = t->AddColumns()
                .Transform(ColumnTransform::SqlExpressions({{"z", "x + 1"}}))
                .ReadColumns({"x"})
                .Execute();
  ASSERT_TRUE(rc.status().IsInvalidArgument());
  EXPECT_NE(rc.status().message().find("BatchUDF"), std::string::npos);
  auto dup = t->AddColumns().Transform(ColumnTransform::SqlExpressions({{"x", "id"}})).Execute();
  EXPECT_TRUE(dup.status().IsInvalidArgument());
  EXPECT_EQ(*t->version(), 1u);
  EXPECT_EQ(SchemaOf(t)->num_fields(), 2);
}

TEST(SchemaEvolution, AlterDropMetadataKeepOldVersions) {
  auto t = MakeTable("memory://alter", 4);
  ColumnAlteration rename;
  rename.path = "x";
  rename.rename = "value";
  ASSERT_TRUE(t->AlterColumns({rename}).ok());
  ColumnAlteration clash;
  clash.path = "value";
  clash.rename = "id";
  EXPECT_TRUE(t->AlterColumns({clash}).status().IsInvalidArgument());
  ColumnAlteration relax;
  relax.path = "id";
  relax.nullable = true;
  ASSERT_TRUE(t->AlterColumns({relax}).ok());
  auto schema = SchemaOf(t);
  EXPECT_EQ(schema->field_names(), (std::vector<std::string>{"id", "value"}));
  EXPECT_TRUE(schema->field(0)->nullable());
  FieldMetadataUpdate md;
  md.path = "value";
  md.metadata = {{"lancedb:description", "half the id"}, {"lancedb:status", "production"}};
  ASSERT_TRUE(t->UpdateFieldMetadata({md}).ok());
  FieldMetadataUpdate del;
  del.path = "value";
  del.metadata = {{"lancedb:status", std::nullopt}};
  ASSERT_TRUE(t->UpdateFieldMetadata({del}).ok());
  EXPECT_EQ(SchemaOf(t)->field(1)->metadata(),
            (la::KeyValueMetadata{{"lancedb:description", "half the id"}}));
  EXPECT_TRUE(t->DropColumns({"id", "value"}).status().IsInvalidArgument());
  EXPECT_TRUE(t->DropColumns({"missing"}).status().IsInvalidArgument());
  ASSERT_TRUE(t->DropColumns({"id"}).ok());
  auto rows = ReadAll(t);
  EXPECT_EQ(rows->schema()->field_names(), std::vector<std::string>{"value"});
  EXPECT_EQ(rows->GetColumnByName("value")->GetValues<double>(1)[3], 1.5);
  ASSERT_TRUE(t->Checkout(1).ok());
  EXPECT_EQ(SchemaOf(t)->field_names(), (std::vector<std::string>{"id", "x"}));
  EXPECT_EQ(ReadAll(t)->GetColumnByName("x")->GetValues<double>(1)[3], 1.5);
}

TEST(SchemaEvolution, CastRewritesOnlyThatColumn) {
  auto t = MakeTable("memory://cast", 5);
  ASSERT_TRUE(t->Delete("id = 2").ok());
  auto cast_to = [](const la::DataTypePtr& type) {
    auto s = std::shared_ptr<ArrowSchema>(new ArrowSchema{}, [](ArrowSchema* p) {
      if (p->release) p->release(p);
      delete p;
    });
    EXPECT_TRUE(la::ExportType(*type, s.get()).ok());
    return s;
  };
  ColumnAlteration to_float;
  to_float.path = "x";
  to_float.data_type = cast_to(la::float32());
  to_float.rename = "xf";
  auto v = t->AlterColumns({to_float});
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, 3u);  // the cast and the rename in one Merge commit, as LanceDB
  auto rows = ReadAll(t);
  EXPECT_EQ(rows->schema()->field_names(), (std::vector<std::string>{"id", "xf"}));
  EXPECT_TRUE(rows->GetColumnByName("xf")->type->Equals(*la::float32()));
  EXPECT_EQ(rows->GetColumnByName("xf")->GetValues<float>(1)[3], 2.0f);  // id 4
  ColumnAlteration to_list;
  to_list.path = "id";
  to_list.data_type = cast_to(la::utf8());
  auto bad = t->AlterColumns({to_list});
  EXPECT_TRUE(bad.status().IsInvalidArgument());
  EXPECT_NE(bad.status().message().find("cannot cast"), std::string::npos);
  EXPECT_EQ(*t->version(), 3u);
}

std::shared_ptr<ArrowSchema> CastTo(const la::DataTypePtr& type) {
  auto s = std::shared_ptr<ArrowSchema>(new ArrowSchema{}, [](ArrowSchema* p) {
    if (p->release) p->release(p);
    delete p;
  });
  EXPECT_TRUE(la::ExportType(*type, s.get()).ok());
  return s;
}

ColumnAlteration Cast(const std::string& path, const la::DataTypePtr& type) {
  ColumnAlteration a;
  a.path = path;
  a.data_type = CastTo(type);
  return a;
}

/// Rows `first`.. of (id, s struct<a, b: utf8>, l list<elem>) with `a` and `elem` of the
/// given integer types; every third list and every fourth struct is NULL.
template <typename A, typename E>
la::RecordBatchPtr NestedRows(int64_t first, int64_t count, const la::DataTypePtr& a_type,
                              const la::DataTypePtr& elem_type) {
  std::vector<int64_t> ids, offsets{0};
  std::vector<A> as;
  std::vector<std::optional<std::string>> bs;
  std::vector<E> items;
  std::vector<bool> list_valid, struct_valid;
  for (int64_t i = first; i < first + count; ++i) {
    ids.push_back(i);
    as.push_back(static_cast<A>(i * 1000));
    bs.push_back("b" + std::to_string(i));
    struct_valid.push_back(i % 4 != 0);
    list_valid.push_back(i % 3 != 0);
    for (int64_t k = 0; k < i % 3; ++k) items.push_back(static_cast<E>(i * 10 + k));
    offsets.push_back(static_cast<int64_t>(items.size()));
  }
  auto struct_type = la::struct_({la::field("a", a_type), la::field("b", la::utf8(), false)});
  auto list_type = la::list(elem_type);
  auto schema = la::schema({la::field("id", la::int64(), false), la::field("s", struct_type),
                            la::field("l", list_type)});
  return *la::RecordBatch::Make(
      schema, {la::MakePrimitive(la::int64(), ids),
               la::MakeStruct(struct_type, {la::MakePrimitive(a_type, as), la::MakeString(bs)},
                              struct_valid),
               la::MakeList(list_type, offsets, la::MakePrimitive(elem_type, items), list_valid)});
}

std::shared_ptr<Table> MakeNestedTable(const std::string& uri) {
  auto db = *Connect(uri);
  ArrowArrayStream s;
  auto first = NestedRows<int32_t, int32_t>(0, 6, la::int32(), la::int32());
  EXPECT_TRUE(la::ExportRecordBatchReader(la::MakeVectorReader(first->schema(), {first}), &s).ok());
  auto t = *db->CreateTable("t", &s);
  auto second = NestedRows<int32_t, int32_t>(6, 6, la::int32(), la::int32());
  EXPECT_TRUE(
      la::ExportRecordBatchReader(la::MakeVectorReader(first->schema(), {second}), &s).ok());
  EXPECT_TRUE(t->Add(&s).ok());
  EXPECT_TRUE(t->Delete("id = 4").ok());
  return t;
}

TEST(PrimaryKey, RecordedInFieldMetadataOnce) {
  auto t = MakeTable("memory://pk", 3);
  const std::string key = "lance-schema:unenforced-primary-key:position";
  auto message = [&](const std::vector<std::string>& columns) {
    auto r = t->SetUnenforcedPrimaryKey(columns);
    EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
    return r.status().message();
  };
  EXPECT_EQ(message({}), "Invalid input, set_unenforced_primary_key: a column is required");
  EXPECT_EQ(message({"id", "x"}),
            "Invalid input, set_unenforced_primary_key: compound primary keys are not "
            "supported, got 2 columns");
  EXPECT_EQ(message({"nope"}),
            "Invalid input, set_unenforced_primary_key: column 'nope' not found on table");
  EXPECT_EQ(message({"x"}),
            "Invalid input, set_unenforced_primary_key: column 'x' has dtype Float64 which is "
            "not supported as a primary key. Supported: Int32, Int64, Utf8, LargeUtf8, Binary, "
            "LargeBinary, FixedSizeBinary");
  EXPECT_EQ(*t->version(), 1u);

  auto v = t->SetUnenforcedPrimaryKey({"id"});
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, 2u);
  EXPECT_EQ(SchemaOf(t)->field(0)->metadata(), (la::KeyValueMetadata{{key, "1"}}));
  EXPECT_TRUE(SchemaOf(t)->field(1)->metadata().empty());
  EXPECT_EQ(message({"id"}),
            "Invalid input, set_unenforced_primary_key: an unenforced primary key is already "
            "set on this table; changing it is not supported");
  EXPECT_EQ(*t->version(), 2u);
  EXPECT_EQ(ReadAll(t)->num_rows(), 3);
}

TEST(PrimaryKey, NestedMemberAndNullableAncestors) {
  auto t = MakeNestedTable("memory://pknested");
  const uint64_t before = *t->version();
  // s (nullable struct) holds b (non-nullable utf8): the nullable ancestor refuses it
  auto nullable = t->SetUnenforcedPrimaryKey({"s.b"});
  ASSERT_TRUE(nullable.status().IsInvalidArgument());
  EXPECT_NE(nullable.status().message().find("must not be nullable: field 's'"), std::string::npos)
      << nullable.status().message();
  auto list = t->SetUnenforcedPrimaryKey({"l"});
  EXPECT_NE(list.status().message().find("has dtype List which"), std::string::npos)
      << list.status().message();
  EXPECT_EQ(*t->version(), before);
}

TEST(SchemaEvolution, CastsStructMembersAndListElements) {
  auto t = MakeNestedTable("memory://castnested");
  const auto before = ReadAll(t);
  const uint64_t old_version = *t->version();
  auto v = t->AlterColumns({Cast("s.a", la::int64()), Cast("l", la::list(la::int64()))});
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, old_version + 1);
  // The expected rows: the same values with the new types, without the deleted id 4.
  auto rows = [](auto a, auto e, const la::DataTypePtr& at, const la::DataTypePtr& et) {
    auto low = NestedRows<decltype(a), decltype(e)>(0, 4, at, et);
    auto high = NestedRows<decltype(a), decltype(e)>(5, 7, at, et);
    return *la::ConcatenateBatches(low->schema(), {low, high});
  };
  const auto expected = rows(int64_t{}, int64_t{}, la::int64(), la::int64());
  const auto after = ReadAll(t);
  EXPECT_TRUE(after->schema()->Equals(*expected->schema())) << after->schema()->ToString();
  EXPECT_EQ(after->ToString(), expected->ToString());
  // The old version still reads the old files with the old schema.
  ASSERT_TRUE(t->Checkout(old_version).ok());
  EXPECT_EQ(ReadAll(t)->ToString(), before->ToString());
  EXPECT_EQ(before->ToString(), rows(int32_t{}, int32_t{}, la::int32(), la::int32())->ToString());
  ASSERT_TRUE(t->CheckoutLatest().ok());
  // Later writes use the new schema.
  auto more = NestedRows<int64_t, int64_t>(20, 2, la::int64(), la::int64());
  ArrowArrayStream s;
  ASSERT_TRUE(la::ExportRecordBatchReader(la::MakeVectorReader(more->schema(), {more}), &s).ok());
  ASSERT_TRUE(t->Add(&s).ok());
  EXPECT_EQ(*t->CountRows(), 13);
  // A list becomes a large list and back (as LanceDB allows), values unchanged.
  auto to_large = t->AlterColumns({Cast("l", la::large_list(la::int32()))});
  ASSERT_TRUE(to_large.ok()) << to_large.status().ToString();
  EXPECT_TRUE((*SchemaOf(t)->GetFieldByName("l"))->type()->Equals(*la::large_list(la::int32())));
  const auto large = ReadAll(t);
  ASSERT_TRUE(t->AlterColumns({Cast("l", la::list(la::int64()))}).ok());
  const auto back = ReadAll(t);
  EXPECT_TRUE(back->GetColumnByName("l")->type->Equals(*la::list(la::int64())));
  EXPECT_EQ(la::ArrayToString(*back->GetColumnByName("l")),
            la::ArrayToString(*large->GetColumnByName("l")));
  EXPECT_NE(la::ArrayToString(*large->GetColumnByName("l")).find("[200, 201]"), std::string::npos)
      << la::ArrayToString(*large->GetColumnByName("l"));
}

TEST(SchemaEvolution, IncompatibleNestedCastsLeaveTheTableUnchanged) {
  auto t = MakeNestedTable("memory://castnestedbad");
  const auto before = ReadAll(t);
  const uint64_t version = *t->version();
  const std::vector<std::pair<ColumnAlteration, std::string>> bad = {
      {Cast("s.b", la::int32()), "cannot cast"},
      {Cast("s.a", la::utf8()), "cannot cast"},
      {Cast("s.a", la::float64()), "cannot cast"},  // Lance keeps integers integers
      {Cast("l", la::list(la::utf8())), "cannot cast"},
      {Cast("l", la::fixed_size_list(la::int64(), 2)), "cannot cast"},
      {Cast("s", la::struct_({la::field("a", la::int64())})), "cannot cast"},
      {Cast("s.zz", la::int64()), "not found"},
      {Cast("id.x", la::int64()), "struct"},
      {Cast("s.a", la::int8()), "out of range"},  // values up to 11000
  };
  for (const auto& [alteration, message] : bad) {
    auto r = t->AlterColumns({Cast("l", la::list(la::int64())), alteration});
    ASSERT_TRUE(r.status().IsInvalidArgument()) << alteration.path << ": " << r.status().ToString();
    EXPECT_NE(r.status().message().find(message), std::string::npos) << r.status().message();
    EXPECT_EQ(*t->version(), version);
  }
  EXPECT_EQ(ReadAll(t)->ToString(), before->ToString());
  EXPECT_EQ(SchemaOf(t)->ToString(), before->schema()->ToString());
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb
