// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Lance's VectorIndexDetails as list_indices describes them: the type name and the JSON of
// every compression, the HNSW parameters, runtime hints, legacy (empty) and corrupt messages.

#include "index/index_details.h"

#include <gtest/gtest.h>

#include "common/test_util.h"
#include "index/proto/lance_vector_index.pb.h"

namespace lancedb::index {
namespace LANCEDB_TEST_FILE_NS {

using Details = lance::index::pb::VectorIndexDetails;

table::pb::IndexMetadata Segment(const std::string& type_url, const std::string& value) {
  table::pb::IndexMetadata meta;
  meta.mutable_index_details()->set_type_url(type_url);
  meta.mutable_index_details()->set_value(value);
  return meta;
}

TEST(LanceVectorDetails, TypeNameAndDistanceFollowGraphAndCompression) {
  struct Case {
    Details details;
    std::string type, distance;
  };
  std::vector<Case> cases(6);
  cases[0].details.mutable_flat();
  cases[0].type = "IVF_FLAT";
  cases[0].distance = "l2";
  cases[1].details.mutable_pq()->set_num_bits(8);
  cases[1].details.set_metric_type(Details::COSINE);
  cases[1].type = "IVF_PQ";
  cases[1].distance = "cosine";
  cases[2].details.mutable_sq()->set_num_bits(8);
  cases[2].details.set_metric_type(Details::DOT);
  cases[2].type = "IVF_SQ";
  cases[2].distance = "dot";
  cases[3].details.mutable_rq()->set_num_bits(1);
  cases[3].type = "IVF_RQ";
  cases[3].distance = "l2";
  cases[4].details.mutable_hnsw_index_config()->set_max_connections(20);
  cases[4].details.mutable_flat();
  cases[4].type = "IVF_HNSW_FLAT";
  cases[4].distance = "l2";
  cases[5].details.mutable_hnsw_index_config()->set_max_connections(20);
  cases[5].details.mutable_pq()->set_num_bits(8);
  cases[5].details.set_metric_type(Details::HAMMING);
  cases[5].type = "IVF_HNSW_PQ";
  cases[5].distance = "hamming";
  for (const auto& c : cases) {
    std::string distance;
    auto meta = Segment(kLanceVectorIndexTypeUrl, c.details.SerializeAsString());
    EXPECT_EQ(IndexTypeName(meta, &distance), c.type);
    EXPECT_EQ(distance, c.distance) << c.type;
  }
  // A legacy segment records nothing: LanceDB built IVF_PQ then; no distance is known.
  std::string distance;
  EXPECT_EQ(IndexTypeName(Segment(kLanceVectorIndexTypeUrl, ""), &distance), "IVF_PQ");
  EXPECT_EQ(distance, "");
  EXPECT_EQ(IndexTypeName(Segment("/lance.table.NGramIndexDetails", "")), "UNKNOWN");
  EXPECT_EQ(IndexTypeName(Segment("/lance.table.BTreeIndexDetails", "")), "BTREE");
}

TEST(LanceVectorDetails, JsonHasLanceKeysInLanceOrder) {
  Details d;
  d.set_metric_type(Details::COSINE);
  d.set_target_partition_size(4096);
  d.mutable_hnsw_index_config()->set_max_connections(30);
  d.mutable_hnsw_index_config()->set_construction_ef(200);
  d.mutable_hnsw_index_config()->set_max_level(8);
  d.mutable_sq()->set_num_bits(4);
  (*d.mutable_runtime_hints())["lance.sq.sample_rate"] = "256";
  (*d.mutable_runtime_hints())["lance.ivf.max_iters"] = "50";
  ASSERT_OK_AND_ASSIGN(auto json, LanceVectorDetailsJson(d.SerializeAsString()));
  EXPECT_EQ(json, R"({"metric_type":"COSINE","target_partition_size":4096,)"
                  R"("hnsw":{"max_connections":30,"construction_ef":200,"max_level":8},)"
                  R"("compression":{"type":"sq","num_bits":4},)"
                  R"("runtime_hints":{"lance.ivf.max_iters":"50","lance.sq.sample_rate":"256"}})");

  Details rq;
  rq.set_metric_type(Details::DOT);
  rq.mutable_rq()->set_num_bits(1);
  rq.mutable_rq()->set_rotation_type(Details::RabitQuantization::MATRIX);
  rq.mutable_hnsw_index_config()->set_max_connections(16);  // max_level 0 is left out
  ASSERT_OK_AND_ASSIGN(json, LanceVectorDetailsJson(rq.SerializeAsString()));
  EXPECT_EQ(json, R"({"metric_type":"DOT","hnsw":{"max_connections":16,"construction_ef":0},)"
                  R"("compression":{"type":"rq","num_bits":1,"rotation_type":"matrix"}})");

  Details flat;
  flat.mutable_flat();
  ASSERT_OK_AND_ASSIGN(json, LanceVectorDetailsJson(flat.SerializeAsString()));
  EXPECT_EQ(json, R"({"metric_type":"L2"})");
  ASSERT_OK_AND_ASSIGN(json, LanceVectorDetailsJson(""));
  EXPECT_EQ(json, "{}");
}

TEST(LanceVectorDetails, CorruptBytesAreAnError) {
  ASSERT_RAISES(kCorruption, "VectorIndexDetails", LanceVectorDetailsJson("\xff\xff\xff"));
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::index
