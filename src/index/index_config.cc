// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Names of the public index configuration types (include/lancedb/index.h).

#include <algorithm>
#include <cctype>

#include "lancedb/index.h"

namespace lancedb {

std::string_view VectorIndexTypeName(VectorIndexType type) {
  switch (type) {
    case VectorIndexType::kIvfFlat:
      return "IVF_FLAT";
    case VectorIndexType::kIvfPq:
      return "IVF_PQ";
    case VectorIndexType::kIvfSq:
      return "IVF_SQ";
    case VectorIndexType::kIvfRq:
      return "IVF_RQ";
    case VectorIndexType::kIvfHnswFlat:
      return "IVF_HNSW_FLAT";
    case VectorIndexType::kIvfHnswSq:
      return "IVF_HNSW_SQ";
    case VectorIndexType::kIvfHnswPq:
      return "IVF_HNSW_PQ";
  }
  return "IVF_PQ";
}

Result<VectorIndexType> ParseVectorIndexType(std::string_view name) {
  // Compare without case and underscores: "IVF_HNSW_SQ", "IvfHnswSq", "HnswSq" all match.
  std::string key;
  for (char c : name) {
    if (c != '_') key.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  static constexpr std::pair<std::string_view, VectorIndexType> kNames[] = {
      {"IVFFLAT", VectorIndexType::kIvfFlat},
      {"IVFPQ", VectorIndexType::kIvfPq},
      {"IVFSQ", VectorIndexType::kIvfSq},
      {"IVFRQ", VectorIndexType::kIvfRq},
      {"IVFHNSWFLAT", VectorIndexType::kIvfHnswFlat},
      {"HNSWFLAT", VectorIndexType::kIvfHnswFlat},
      {"IVFHNSWSQ", VectorIndexType::kIvfHnswSq},
      {"HNSWSQ", VectorIndexType::kIvfHnswSq},
      {"IVFHNSWPQ", VectorIndexType::kIvfHnswPq},
      {"HNSWPQ", VectorIndexType::kIvfHnswPq},
  };
  for (const auto& [n, t] : kNames) {
    if (key == n) return t;
  }
  return Status::InvalidArgument("Unknown vector index type '" + std::string(name) +
                                 "'; expected one of: IVF_FLAT, IVF_PQ, IVF_SQ, IVF_RQ, "
                                 "IVF_HNSW_FLAT, IVF_HNSW_SQ, IVF_HNSW_PQ");
}

std::string_view ScalarIndexTypeName(ScalarIndexType type) {
  switch (type) {
    case ScalarIndexType::kBTree:
      return "BTREE";
    case ScalarIndexType::kBitmap:
      return "BITMAP";
    case ScalarIndexType::kLabelList:
      return "LABEL_LIST";
  }
  return "BTREE";
}

Result<ScalarIndexType> ParseScalarIndexType(std::string_view name) {
  std::string key;
  for (char c : name) {
    if (c != '_') key.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  if (key == "BTREE") return ScalarIndexType::kBTree;
  if (key == "BITMAP") return ScalarIndexType::kBitmap;
  if (key == "LABELLIST") return ScalarIndexType::kLabelList;
  return Status::InvalidArgument("Unknown scalar index type '" + std::string(name) +
                                 "'; expected one of: BTREE, BITMAP, LABEL_LIST");
}

}  // namespace lancedb
