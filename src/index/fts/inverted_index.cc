// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Reading an inverted index (docs/format/fts-index.md): every partition is loaded whole; posting
// blocks are decoded when a query needs them.

#include "index/fts/inverted_index.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "index/fts/fst_map.h"
#include "index/fts/posting_codec.h"
#include "index/scalar/scalar_index_internal.h"

namespace lancedb::index::fts {

struct InvertedIndex::Partition {
  std::vector<uint64_t> row_ids;
  std::vector<uint32_t> num_tokens;
  uint64_t total_tokens = 0;
  /// (token, id), sorted by token.
  std::vector<std::pair<std::string, uint32_t>> tokens;
  array::ArrayPtr posting;           // list<large_binary>, row = token id
  array::ArrayPtr lengths;           // uint32
  array::ArrayPtr positions;         // large_binary (with positions)
  array::ArrayPtr position_offsets;  // list<uint32>
};

namespace {

std::string MetaValue(const array::KeyValueMetadata& meta, const std::string& key) {
  for (const auto& [k, v] : meta) {
    if (k == key) return v;
  }
  return "";
}

Result<array::RecordBatchPtr> ReadColumns(const format::FileReader& reader,
                                          const std::vector<std::string>& names) {
  std::vector<int32_t> ids;
  for (const auto& n : names) {
    const auto* f = reader.schema().FindTopLevel(n);
    if (f == nullptr) return Status::Corruption("Inverted index file lacks column " + n);
    ids.push_back(f->id);
  }
  return reader.Read(ids, 0, reader.num_rows());
}

std::u32string Utf32(std::string_view s) {
  std::u32string out;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<uint8_t>(s[i]);
    int len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    char32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
    for (int k = 1; k < len && i + k < s.size(); ++k) {
      cp = (cp << 6) | (static_cast<uint8_t>(s[i + k]) & 0x3F);
    }
    out.push_back(cp);
    i += static_cast<size_t>(len);
  }
  return out;
}

}  // namespace

InvertedIndex::~InvertedIndex() = default;

uint32_t BoundedLevenshtein(std::u32string_view a, std::u32string_view b, uint32_t cap) {
  const size_t diff = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
  if (diff > cap) return cap + 1;
  std::vector<uint32_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<uint32_t>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<uint32_t>(i);
    uint32_t row_min = cur[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      const uint32_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
      row_min = std::min(row_min, cur[j]);
    }
    if (row_min > cap) return cap + 1;
    std::swap(prev, cur);
  }
  return std::min(prev[b.size()], cap + 1);
}

Result<FtsParams> ReadFtsParams(const io::FileSystemPtr& fs, const std::string& dir) {
  LANCEDB_ASSIGN_OR_RETURN(auto reader, scalar::OpenIndexFile(fs, dir, kFtsMetadataFile));
  return FtsParamsFromJson(MetaValue(reader->schema().metadata(), "params"));
}

Result<std::shared_ptr<const InvertedIndex>> InvertedIndex::Open(const io::FileSystemPtr& fs,
                                                                 const std::string& dir) {
  LANCEDB_ASSIGN_OR_RETURN(auto meta_reader, scalar::OpenIndexFile(fs, dir, kFtsMetadataFile));
  const auto& meta = meta_reader->schema().metadata();
  std::shared_ptr<InvertedIndex> index(new InvertedIndex());
  LANCEDB_ASSIGN_OR_RETURN(index->params_, FtsParamsFromJson(MetaValue(meta, "params")));
  const std::string version = MetaValue(meta, "format_version");
  const std::string tail = MetaValue(meta, "posting_tail_codec");
  if ((!version.empty() && version != "2") || (!tail.empty() && tail != "varint_delta_v1")) {
    return Status::NotSupported("Inverted index format version " + version + " (tail codec " +
                                tail + ") is not supported; rebuild the index");
  }
  const std::string token_format = MetaValue(meta, "token_set_format");
  LANCEDB_ASSIGN_OR_RETURN(index->analyzer_, Analyzer::Make(index->params_.analyzer));
  auto parts = nlohmann::json::parse(MetaValue(meta, "partitions"), nullptr, false);
  if (!parts.is_array()) return Status::Corruption("Inverted index: bad partitions list");
  for (const auto& pj : parts) {
    if (!pj.is_number_unsigned()) return Status::Corruption("Inverted index: bad partition id");
    const std::string prefix = "part_" + std::to_string(pj.get<uint64_t>()) + "_";
    auto part = std::make_unique<Partition>();
    // Documents.
    LANCEDB_ASSIGN_OR_RETURN(auto docs, scalar::OpenIndexFile(fs, dir, prefix + "docs.lance"));
    LANCEDB_ASSIGN_OR_RETURN(auto doc_batch, ReadColumns(*docs, {"_rowid", "_num_tokens"}));
    const auto& ids = doc_batch->column(0);
    const auto& counts = doc_batch->column(1);
    if (ids->type->id() != array::TypeId::kUInt64 || counts->type->id() != array::TypeId::kUInt32 ||
        ids->length != counts->length || ids->null_count > 0 || counts->null_count > 0) {
      return Status::Corruption("Inverted index: bad document file " + prefix + "docs.lance");
    }
    part->row_ids.assign(ids->GetValues<uint64_t>(1), ids->GetValues<uint64_t>(1) + ids->length);
    part->num_tokens.assign(counts->GetValues<uint32_t>(1),
                            counts->GetValues<uint32_t>(1) + counts->length);
    for (uint32_t n : part->num_tokens) part->total_tokens += n;
    index->total_tokens_ += part->total_tokens;
    index->num_docs_ += part->row_ids.size();
    // Tokens.
    LANCEDB_ASSIGN_OR_RETURN(auto tok, scalar::OpenIndexFile(fs, dir, prefix + "tokens.lance"));
    if (token_format == "fst" || tok->schema().FindTopLevel("_token_fst_bytes") != nullptr) {
      LANCEDB_ASSIGN_OR_RETURN(auto batch, ReadColumns(*tok, {"_token_fst_bytes"}));
      if (batch->num_rows() != 1) return Status::Corruption("Inverted index: bad FST token set");
      const std::string_view bytes = batch->column(0)->GetView(0);
      LANCEDB_ASSIGN_OR_RETURN(
          auto entries,
          DecodeFstMap(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size())));
      for (auto& [k, v] : entries)
        part->tokens.emplace_back(std::move(k), static_cast<uint32_t>(v));
    } else {
      LANCEDB_ASSIGN_OR_RETURN(auto batch, ReadColumns(*tok, {"_token", "_token_id"}));
      const auto& t = batch->column(0);
      const uint32_t* tid = batch->column(1)->GetValues<uint32_t>(1);
      for (int64_t i = 0; i < t->length; ++i) part->tokens.emplace_back(t->GetView(i), tid[i]);
      std::sort(part->tokens.begin(), part->tokens.end());
    }
    // Posting lists.
    LANCEDB_ASSIGN_OR_RETURN(auto inv, scalar::OpenIndexFile(fs, dir, prefix + "invert.lance"));
    const bool positions = inv->schema().FindTopLevel("_compressed_position") != nullptr;
    std::vector<std::string> cols = {"_posting", "_length"};
    if (positions) {
      cols.push_back("_compressed_position");
      cols.push_back("_position_block_offset");
    }
    LANCEDB_ASSIGN_OR_RETURN(auto inv_batch, ReadColumns(*inv, cols));
    part->posting = inv_batch->column(0);
    part->lengths = inv_batch->column(1);
    const int64_t num_tokens = part->posting->length;
    bool valid = part->posting->type->id() == array::TypeId::kList &&
                 part->posting->children[0]->type->is_binary_like() &&
                 part->lengths->type->id() == array::TypeId::kUInt32 &&
                 part->lengths->length == num_tokens && part->lengths->null_count == 0;
    if (positions) {
      const auto& pos = inv_batch->column(2);
      const auto& offs = inv_batch->column(3);
      valid = valid && pos->type->is_binary_like() && pos->length == num_tokens &&
              offs->type->id() == array::TypeId::kList &&
              offs->children[0]->type->id() == array::TypeId::kUInt32 && offs->length == num_tokens;
    }
    if (!valid) {
      return Status::Corruption("Inverted index: bad posting file " + prefix + "invert.lance");
    }
    if (positions) {
      part->positions = inv_batch->column(2);
      part->position_offsets = inv_batch->column(3);
    }
    for (const auto& [token, id] : part->tokens) {
      if (id >= static_cast<uint64_t>(part->posting->length)) {
        return Status::Corruption("Inverted index: token id " + std::to_string(id) +
                                  " has no posting list");
      }
    }
    index->partitions_.push_back(std::move(part));
  }
  return std::shared_ptr<const InvertedIndex>(std::move(index));
}

size_t InvertedIndex::num_partitions() const { return partitions_.size(); }

namespace {

const std::pair<std::string, uint32_t>* FindToken(
    const std::vector<std::pair<std::string, uint32_t>>& tokens, std::string_view token) {
  auto it = std::lower_bound(tokens.begin(), tokens.end(), token,
                             [](const auto& e, std::string_view t) { return e.first < t; });
  if (it == tokens.end() || it->first != token) return nullptr;
  return &*it;
}

}  // namespace

uint64_t InvertedIndex::DocFrequency(std::string_view token) const {
  uint64_t n = 0;
  for (const auto& p : partitions_) {
    if (const auto* e = FindToken(p->tokens, token)) {
      n += p->lengths->GetValues<uint32_t>(1)[e->second];
    }
  }
  return n;
}

std::vector<std::string> InvertedIndex::FuzzyExpand(std::string_view token, uint32_t max_distance,
                                                    uint32_t max_expansions,
                                                    uint32_t prefix_length) const {
  const std::u32string query = Utf32(token);
  const std::u32string prefix = query.substr(0, std::min<size_t>(prefix_length, query.size()));
  std::vector<std::string> out;
  for (const auto& p : partitions_) {
    for (const auto& [candidate, id] : p->tokens) {
      const std::u32string c = Utf32(candidate);
      if (c.compare(0, prefix.size(), prefix) != 0 || c.size() < prefix.size()) continue;
      if (BoundedLevenshtein(query, c, max_distance) <= max_distance) out.push_back(candidate);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  if (out.size() > max_expansions) out.resize(max_expansions);
  return out;
}

std::span<const uint64_t> InvertedIndex::partition_row_ids(size_t p) const {
  return partitions_[p]->row_ids;
}

std::span<const uint32_t> InvertedIndex::partition_num_tokens(size_t p) const {
  return partitions_[p]->num_tokens;
}

Status InvertedIndex::PartitionPostings(size_t p, std::string_view token,
                                        std::vector<uint32_t>* docs,
                                        std::vector<uint32_t>* freqs) const {
  docs->clear();
  freqs->clear();
  std::vector<Block> blocks;
  LANCEDB_RETURN_NOT_OK(PartitionBlocks(p, token, &blocks));
  for (const auto& block : blocks) {
    LANCEDB_RETURN_NOT_OK(DecodePostingBlock(block.bytes, block.count, docs, freqs));
  }
  const Partition& part = *partitions_[p];
  for (uint32_t d : *docs) {
    if (d >= part.row_ids.size()) {
      return Status::Corruption("Inverted index: posting names a missing document");
    }
  }
  return Status::OK();
}

uint64_t InvertedIndex::partition_num_docs(size_t p) const {
  return partitions_[p]->row_ids.size();
}

double InvertedIndex::partition_avg_length(size_t p) const {
  const auto& part = *partitions_[p];
  return part.row_ids.empty()
             ? 0.0
             : static_cast<double>(part.total_tokens) / static_cast<double>(part.row_ids.size());
}

uint64_t InvertedIndex::PartitionDocFrequency(size_t p, std::string_view token) const {
  const auto& part = *partitions_[p];
  const auto* e = FindToken(part.tokens, token);
  return e == nullptr ? 0 : part.lengths->GetValues<uint32_t>(1)[e->second];
}

Status InvertedIndex::PartitionBlocks(size_t p, std::string_view token,
                                      std::vector<Block>* blocks) const {
  blocks->clear();
  const Partition& part = *partitions_[p];
  const auto* e = FindToken(part.tokens, token);
  if (e == nullptr) return Status::OK();
  const uint32_t length = part.lengths->GetValues<uint32_t>(1)[e->second];
  auto [begin, end] = part.posting->GetListRange(e->second);
  const auto& data = part.posting->children[0];
  const int64_t nblocks = end - begin;
  if (static_cast<uint64_t>(nblocks) != (length + kPostingBlockSize - 1) / kPostingBlockSize) {
    return Status::Corruption("Inverted index: posting list of '" + std::string(token) +
                              "' has a wrong number of blocks");
  }
  for (int64_t b = 0; b < nblocks; ++b) {
    const size_t count =
        b + 1 < nblocks ? kPostingBlockSize : length - static_cast<size_t>(b) * kPostingBlockSize;
    const std::string_view bytes = data->GetView(begin + b);
    LANCEDB_ASSIGN_OR_RETURN(float score, PostingBlockMaxScore(bytes));
    blocks->push_back({bytes, count, score});
  }
  return Status::OK();
}

Status InvertedIndex::PartitionPositionStream(size_t p, std::string_view token,
                                              std::string_view* stream,
                                              std::span<const uint32_t>* block_offsets) const {
  *stream = {};
  *block_offsets = {};
  const Partition& part = *partitions_[p];
  const auto* e = FindToken(part.tokens, token);
  if (e == nullptr) return Status::OK();
  if (!part.positions) {
    return Status::InvalidArgument(
        "position is not found but required for phrase queries, try recreating the index "
        "with position (with_position=True)");
  }
  *stream = part.positions->GetView(e->second);
  auto [ob, oe] = part.position_offsets->GetListRange(e->second);
  *block_offsets =
      std::span<const uint32_t>(part.position_offsets->children[0]->GetValues<uint32_t>(1) + ob,
                                static_cast<size_t>(oe - ob));
  return Status::OK();
}

}  // namespace lancedb::index::fts
