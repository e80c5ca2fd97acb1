// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The README's first command: a tour of lancedb-cpp on a local, embedded database.
// Creates ./demo_db (or the directory given as the first argument), writes a table with several
// column types and a vector column, appends to it, reads it back, filters it with SQL, runs a
// nearest-neighbour search, deletes rows, time-travels, and prints what
// it did. The table is a real Lance dataset: `lance.dataset("demo_db/items.lance")` opens it.

#include <cstdio>
#include <string>
#include <vector>

#include "array/builder.h"
#include "array/c_bridge.h"
#include "lancedb/lancedb.h"

namespace {

using namespace lancedb;  // NOLINT(google-build-using-namespace)
namespace la = lancedb::array;

la::SchemaPtr ItemSchema() {
  return la::schema({
      la::field("id", la::int64(), false),
      la::field("name", la::utf8()),
      la::field("price", la::float64()),
      la::field("in_stock", la::boolean()),
      la::field("tags", la::list(la::utf8())),
      la::field("added", la::timestamp(la::TimeUnit::kMicro)),
      la::field("vector", la::fixed_size_list(la::float32(), 4)),
  });
}

// Build `count` rows starting at id `first`.
la::RecordBatchPtr MakeItems(int64_t first, int64_t count) {
  std::vector<int64_t> ids;
  std::vector<std::optional<std::string>> names;
  std::vector<double> prices;
  std::vector<bool> in_stock;
  std::vector<std::optional<std::string>> tag_values;
  std::vector<int64_t> tag_offsets{0};
  std::vector<int64_t> added;
  std::vector<float> vectors;
  const char* kWords[] = {"red", "green", "blue", "large", "small"};
  for (int64_t i = first; i < first + count; ++i) {
    ids.push_back(i);
    names.push_back(i % 7 == 3 ? std::nullopt
                               : std::optional<std::string>("item-" + std::to_string(i)));
    prices.push_back(9.99 + static_cast<double>(i) * 0.5);
    in_stock.push_back(i % 3 != 0);
    for (int64_t t = 0; t < i % 3; ++t) tag_values.push_back(kWords[(i + t) % 5]);
    tag_offsets.push_back(static_cast<int64_t>(tag_values.size()));
    added.push_back(1'700'000'000'000'000 + i * 1'000'000);
    for (int d = 0; d < 4; ++d)
      vectors.push_back(static_cast<float>(i) * 0.1f + static_cast<float>(d));
  }
  auto schema = ItemSchema();
  std::vector<la::ArrayPtr> columns = {
      la::MakePrimitive(la::int64(), ids),
      la::MakeString(names),
      la::MakePrimitive(la::float64(), prices),
      la::MakeBool(in_stock),
      la::MakeList(schema->field(4)->type(), tag_offsets, la::MakeString(tag_values)),
      la::MakePrimitive(la::timestamp(la::TimeUnit::kMicro), added),
      la::MakeFixedSizeList(schema->field(6)->type(), la::MakePrimitive(la::float32(), vectors)),
  };
  return *la::RecordBatch::Make(schema, std::move(columns), count);
}

// Wrap batches as an ArrowArrayStream, the way any Arrow producer hands data to lancedb-cpp.
Status ToStream(std::vector<la::RecordBatchPtr> batches, ArrowArrayStream* out) {
  return la::ExportRecordBatchReader(la::MakeVectorReader(ItemSchema(), std::move(batches)), out);
}

int Fail(const Status& st) {
  std::fprintf(stderr, "demo failed: %s\n", st.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string uri = argc > 1 ? argv[1] : "demo_db";
  std::printf("lancedb-cpp %s demo\n", lancedb::Version());

  auto db = lancedb::Connect(uri);
  if (!db.ok()) return Fail(db.status());
  std::printf("connected to %s\n", uri.c_str());
  (void)(*db)->DropTable("items");  // start fresh on every run

  ArrowArrayStream stream;
  if (auto st = ToStream({MakeItems(0, 1000)}, &stream); !st.ok()) return Fail(st);
  auto table = (*db)->CreateTable("items", &stream);
  if (!table.ok()) return Fail(table.status());
  std::printf("created table 'items' with 1000 rows at version %llu\n",
              static_cast<unsigned long long>(*(*table)->version()));

  if (auto st = ToStream({MakeItems(1000, 500), MakeItems(1500, 250)}, &stream); !st.ok()) {
    return Fail(st);
  }
  auto added = (*table)->Add(&stream);
  if (!added.ok()) return Fail(added.status());
  std::printf("appended 750 rows -> version %llu, %lld rows\n",
              static_cast<unsigned long long>(added->version),
              static_cast<long long>(*(*table)->CountRows()));

  lancedb::ScanRequest request;
  request.columns = {"id", "name", "tags", "vector"};
  request.batch_size = 5;
  if (auto st = (*table)->Scan(request, &stream); !st.ok()) return Fail(st);
  auto reader = la::ImportArrayStream(&stream);
  if (!reader.ok()) return Fail(reader.status());
  auto first = (*reader)->Next();
  if (!first.ok()) return Fail(first.status());
  std::printf("first rows:\n%s\n", (*first)->ToString().c_str());

  // Print every batch of a stream (results are small here).
  auto print_stream = [](ArrowArrayStream* s) -> Status {
    LANCEDB_ASSIGN_OR_RETURN(auto r, la::ImportArrayStream(s));
    LANCEDB_ASSIGN_OR_RETURN(auto batches, r->ReadAll());
    for (const auto& b : batches) std::printf("%s\n", b->ToString().c_str());
    return Status::OK();
  };

  std::printf("SQL: price > 800 AND in_stock, id and price * 2, 3 rows:\n");
  auto query = (*table)->Query();
  query.Where("price > 800 AND in_stock")
      .Select(
          std::vector<std::pair<std::string, std::string>>{{"id", "id"}, {"double", "price * 2"}})
      .Limit(3);
  if (auto st = query.Execute(&stream); !st.ok()) return Fail(st);
  if (auto st = print_stream(&stream); !st.ok()) return Fail(st);

  std::printf("nearest 3 rows to [10, 11, 12, 13] (l2):\n");
  auto search = (*table)->VectorSearch({10.0f, 11.0f, 12.0f, 13.0f});
  search.Select(std::vector<std::string>{"id", "name"}).Limit(3);
  if (auto st = search.Execute(&stream); !st.ok()) return Fail(st);
  if (auto st = print_stream(&stream); !st.ok()) return Fail(st);

  auto deleted = (*table)->Delete("id % 100 = 7");
  if (!deleted.ok()) return Fail(deleted.status());
  std::printf("deleted %llu rows where id %% 100 = 7 -> version %llu, %lld rows\n",
              static_cast<unsigned long long>(deleted->num_deleted_rows),
              static_cast<unsigned long long>(deleted->version),
              static_cast<long long>(*(*table)->CountRows()));

  auto names = (*db)->TableNames();
  if (!names.ok()) return Fail(names.status());
  std::printf("tables:");
  for (const auto& n : *names) std::printf(" %s", n.c_str());
  std::printf("\n");

  auto versions = (*table)->ListVersions();
  if (!versions.ok()) return Fail(versions.status());
  for (const auto& v : *versions) {
    std::printf("version %llu committed at %lld us\n", static_cast<unsigned long long>(v.version),
                static_cast<long long>(v.timestamp_micros));
  }
  if (auto st = (*table)->Checkout(1); !st.ok()) return Fail(st);
  std::printf("checked out version 1: %lld rows\n", static_cast<long long>(*(*table)->CountRows()));
  if (auto st = (*table)->CheckoutLatest(); !st.ok()) return Fail(st);
  std::printf("back to the latest version: %lld rows\n",
              static_cast<long long>(*(*table)->CountRows()));
  std::printf("done: open %s/items.lance with pylance or LanceDB to see the same table\n",
              uri.c_str());
  return 0;
}
