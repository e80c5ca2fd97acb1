// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/index_details.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "index/fts/fts_params.h"
#include "index/fts/inverted_index.h"
#include "index/proto/lance_vector_index.pb.h"
#include "index/proto/vector_index.pb.h"
#include "index/scalar/scalar_index.h"
#include "index/vector/distance.h"
#include "index/vector_index_internal.h"
#include "table/create_index_op.h"

namespace lancedb::index {
namespace {

using nlohmann::ordered_json;
using LanceDetails = lance::index::pb::VectorIndexDetails;

/// The metric as Lance spells it in index_details ("L2", "COSINE", ...).
std::string MetricName(uint32_t metric) {
  static const char* const kNames[] = {"L2", "COSINE", "DOT", "HAMMING"};
  return metric < 4 ? kNames[metric] : "UNKNOWN";
}

/// "IVF_[HNSW_]{FLAT,PQ,SQ,RQ}" of Lance's details; "IVF_PQ" for a legacy (empty) message, the
/// type LanceDB built before it recorded details.
std::string LanceVectorTypeName(const LanceDetails& d, bool empty) {
  if (empty) return "IVF_PQ";
  std::string name = d.has_hnsw_index_config() ? "IVF_HNSW_" : "IVF_";
  switch (d.compression_case()) {
    case LanceDetails::kPq:
      return name + "PQ";
    case LanceDetails::kSq:
      return name + "SQ";
    case LanceDetails::kRq:
      return name + "RQ";
    default:
      return name + "FLAT";
  }
}

/// The details of an index lancedb-cpp built, in Lance's layout.
std::string OwnVectorDetailsJson(const lancedb_cpp::VectorIndexDetails& d) {
  ordered_json j;
  j["metric_type"] = MetricName(d.metric_type());
  const std::string& type = d.index_type();
  if (type.rfind("IVF_HNSW_", 0) == 0) {
    j["hnsw"] = {{"max_connections", d.m()}, {"construction_ef", d.ef_construction()}};
  }
  auto ends_with = [&](std::string_view suffix) {
    return type.size() >= suffix.size() &&
           type.compare(type.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends_with("_PQ")) {
    j["compression"] = {{"type", "pq"},
                        {"num_bits", d.num_bits() ? d.num_bits() : 8},
                        {"num_sub_vectors", d.num_sub_vectors()}};
  } else if (ends_with("_SQ")) {
    j["compression"] = {{"type", "sq"}, {"num_bits", 8}};
  } else if (ends_with("_RQ")) {
    // The rotation is a dense random orthonormal matrix (Lance's "matrix" rotation).
    j["compression"] = {
        {"type", "rq"}, {"num_bits", d.num_bits() ? d.num_bits() : 1}, {"rotation_type", "matrix"}};
  }
  return j.dump();
}

}  // namespace

std::string IndexTypeName(const table::pb::IndexMetadata& meta, std::string* distance_type) {
  const std::string& url = meta.index_details().type_url();
  auto set_distance = [&](uint32_t metric) {
    if (distance_type && metric < 4) {
      *distance_type =
          std::string(vector::DistanceTypeName(static_cast<vector::DistanceType>(metric)));
    }
  };
  if (url == kVectorIndexTypeUrl) {
    lancedb_cpp::VectorIndexDetails d;
    if (!d.ParseFromString(meta.index_details().value())) return "UNKNOWN";
    set_distance(d.metric_type());
    return d.index_type();
  }
  if (url == kLanceVectorIndexTypeUrl) {
    LanceDetails d;
    const std::string& bytes = meta.index_details().value();
    if (!d.ParseFromString(bytes)) return "UNKNOWN";
    if (!bytes.empty()) set_distance(static_cast<uint32_t>(d.metric_type()));
    return LanceVectorTypeName(d, bytes.empty());
  }
  if (url == fts::kInvertedIndexTypeUrl) return "FTS";
  if (auto scalar = scalar::ScalarIndexTypeFromUrl(url)) {
    return std::string(ScalarIndexTypeName(*scalar));
  }
  return "UNKNOWN";
}

Result<std::string> LanceVectorDetailsJson(std::string_view bytes) {
  if (bytes.empty()) return std::string("{}");
  LanceDetails d;
  if (!d.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Status::Corruption("Lance VectorIndexDetails do not parse");
  }
  ordered_json j;
  j["metric_type"] = MetricName(static_cast<uint32_t>(d.metric_type()));
  if (d.target_partition_size() > 0) j["target_partition_size"] = d.target_partition_size();
  if (d.has_hnsw_index_config()) {
    const auto& h = d.hnsw_index_config();
    j["hnsw"] = {{"max_connections", h.max_connections()},
                 {"construction_ef", h.construction_ef()}};
    if (h.max_level() != 0) j["hnsw"]["max_level"] = h.max_level();
  }
  if (d.has_pq()) {
    j["compression"] = {{"type", "pq"},
                        {"num_bits", d.pq().num_bits()},
                        {"num_sub_vectors", d.pq().num_sub_vectors()}};
  } else if (d.has_sq()) {
    j["compression"] = {{"type", "sq"}, {"num_bits", d.sq().num_bits()}};
  } else if (d.has_rq()) {
    const bool matrix = d.rq().rotation_type() == LanceDetails::RabitQuantization::MATRIX;
    j["compression"] = {{"type", "rq"},
                        {"num_bits", d.rq().num_bits()},
                        {"rotation_type", matrix ? "matrix" : "fast"}};
  }
  if (!d.runtime_hints().empty()) {
    // A protobuf map has no order; sorted keys make the text reproducible.
    std::map<std::string, std::string> hints(d.runtime_hints().begin(), d.runtime_hints().end());
    j["runtime_hints"] = hints;
  }
  return j.dump();
}

Result<std::string> IndexDetailsJson(const table::Dataset& dataset,
                                     const table::pb::IndexMetadata& meta) {
  const std::string& url = meta.index_details().type_url();
  if (url == fts::kInvertedIndexTypeUrl) {
    const std::string dir = IndexDir(dataset, table::IndexUuidString(meta));
    LANCEDB_ASSIGN_OR_RETURN(auto params, fts::ReadFtsParams(dataset.fs(), dir));
    return fts::FtsParamsToJson(params);
  }
  if (url == kVectorIndexTypeUrl) {
    lancedb_cpp::VectorIndexDetails d;
    if (!d.ParseFromString(meta.index_details().value())) {
      return Status::Corruption("Index '" + meta.name() + "': its VectorIndexDetails do not parse");
    }
    return OwnVectorDetailsJson(d);
  }
  if (url == kLanceVectorIndexTypeUrl) return LanceVectorDetailsJson(meta.index_details().value());
  if (scalar::ScalarIndexTypeFromUrl(url)) return std::string("{}");
  return std::string();
}

}  // namespace lancedb::index
