// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Writing inverted index partitions and metadata.lance (docs/format/fts-index.md §2–§4).

#include <algorithm>
#include <cmath>

#include "array/builder.h"
#include "common/buffer.h"
#include "index/fts/inverted_index.h"
#include "index/fts/posting_codec.h"
#include "index/scalar/scalar_index_internal.h"

namespace lancedb::index::fts {

namespace {

constexpr int64_t kTokensPerBatch = 8192;

array::ArrayPtr U32Array(std::vector<uint32_t> v) {
  const auto n = static_cast<int64_t>(v.size());
  return array::ArrayData::Make(array::uint32(), n, {nullptr, Buffer::FromVector(std::move(v))});
}
array::ArrayPtr U64Array(std::vector<uint64_t> v) {
  const auto n = static_cast<int64_t>(v.size());
  return array::ArrayData::Make(array::uint64(), n, {nullptr, Buffer::FromVector(std::move(v))});
}
array::ArrayPtr F32Array(std::vector<float> v) {
  const auto n = static_cast<int64_t>(v.size());
  return array::ArrayData::Make(array::float32(), n, {nullptr, Buffer::FromVector(std::move(v))});
}
/// A large_binary array of the values delimited by `offsets` in `data`.
array::ArrayPtr LargeBinary(std::string data, std::vector<int64_t> offsets) {
  const auto n = static_cast<int64_t>(offsets.size()) - 1;
  std::vector<uint8_t> bytes(data.begin(), data.end());
  return array::ArrayData::Make(
      array::large_binary(), n,
      {nullptr, Buffer::FromVector(std::move(offsets)), Buffer::FromVector(std::move(bytes))});
}

array::KeyValueMetadata FormatMetadata(const FtsParams& params) {
  array::KeyValueMetadata m = {{"format_version", "2"},
                               {"posting_block_size", "128"},
                               {"posting_tail_codec", "varint_delta_v1"}};
  if (params.with_position) {
    m.emplace_back("positions_layout", "shared_stream_v2");
    m.emplace_back("positions_codec", "packed_delta_v1");
  }
  return m;
}

}  // namespace

Status PartitionBuilder::DecodeBuildPostings(const TokenPostings& p, bool with_positions,
                                             std::vector<uint32_t>* docs,
                                             std::vector<uint32_t>* freqs,
                                             std::vector<uint32_t>* positions) {
  docs->clear();
  freqs->clear();
  positions->clear();
  size_t at = 0, pat = 0;
  uint64_t doc = 0;
  for (uint32_t i = 0; i < p.count; ++i) {
    uint64_t gap, freq;
    if (!GetVarint(p.postings, &at, &gap) || !GetVarint(p.postings, &at, &freq)) {
      return Status::Internal("FTS build: bad posting buffer");
    }
    doc = i == 0 ? gap : doc + gap;
    docs->push_back(static_cast<uint32_t>(doc));
    freqs->push_back(static_cast<uint32_t>(freq));
    if (with_positions) {
      uint64_t pos = 0;
      for (uint64_t k = 0; k < freq; ++k) {
        uint64_t delta;
        if (!GetVarint(p.positions, &pat, &delta)) {
          return Status::Internal("FTS build: bad position buffer");
        }
        pos = k == 0 ? delta : pos + delta;
        positions->push_back(static_cast<uint32_t>(pos));
      }
    }
  }
  return Status::OK();
}

double Bm25Idf(double n, double num_docs) {
  return std::log(1.0 + (num_docs - n + 0.5) / (n + 0.5));
}

double Bm25Tf(double freq, double doc_length, double avg_doc_length) {
  return (kBm25K1 + 1.0) * freq /
         (freq + kBm25K1 * (1.0 - kBm25B + kBm25B * doc_length / avg_doc_length));
}

void PartitionBuilder::Add(uint64_t row_id, std::string_view text) {
  scratch_.clear();
  analyzer_->Analyze(text, &scratch_);
  if (scratch_.empty()) return;
  const auto doc = static_cast<uint32_t>(row_ids_.size());
  row_ids_.push_back(row_id);
  num_tokens_.push_back(static_cast<uint32_t>(scratch_.size()));
  memory_bytes_ += 12;
  doc_terms_.clear();
  for (const Token& t : scratch_) {
    auto [it, inserted] = token_ids_.try_emplace(t.text, static_cast<uint32_t>(tokens_.size()));
    if (inserted) {
      tokens_.push_back(t.text);
      postings_.emplace_back();
      memory_bytes_ += 2 * t.text.size() + 128;
    }
    doc_terms_.emplace_back(it->second, t.position);
  }
  std::stable_sort(doc_terms_.begin(), doc_terms_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i < doc_terms_.size();) {
    size_t j = i;
    TokenPostings& p = postings_[doc_terms_[i].first];
    const size_t before = p.postings.capacity() + p.positions.capacity();
    uint32_t prev = 0;
    while (j < doc_terms_.size() && doc_terms_[j].first == doc_terms_[i].first) {
      if (params_.with_position) {
        const uint32_t pos = doc_terms_[j].second;
        PutVarint(j == i ? pos : pos - prev, &p.positions);
        prev = pos;
      }
      ++j;
    }
    PutVarint(p.count == 0 ? doc : doc - p.last_doc, &p.postings);
    PutVarint(j - i, &p.postings);
    p.last_doc = doc;
    p.count++;
    memory_bytes_ += p.postings.capacity() + p.positions.capacity() - before;
    i = j;
  }
}

Result<std::vector<scalar::WrittenFile>> PartitionBuilder::Flush(const io::FileSystemPtr& fs,
                                                                 const std::string& dir,
                                                                 uint32_t id) {
  const std::string prefix = "part_" + std::to_string(id) + "_";
  std::vector<scalar::WrittenFile> files;
  uint64_t total = 0;
  for (uint32_t n : num_tokens_) total += n;
  const double num_docs = static_cast<double>(row_ids_.size());
  const double avgdl = static_cast<double>(total) / num_docs;

  // Posting lists, one row per token id.
  auto item = array::field("item", array::large_binary(), true);
  std::vector<array::FieldPtr> fields = {array::field("_posting", array::list(item), false),
                                         array::field("_max_score", array::float32(), false),
                                         array::field("_length", array::uint32(), false)};
  if (params_.with_position) {
    fields.push_back(array::field("_compressed_position", array::large_binary(), false));
    fields.push_back(array::field("_position_block_offset", array::list(array::uint32()), false));
  }
  auto schema = array::schema(fields);
  std::vector<array::RecordBatchPtr> batches;
  for (size_t start = 0; start < tokens_.size(); start += kTokensPerBatch) {
    const size_t end = std::min(tokens_.size(), start + kTokensPerBatch);
    std::string blocks, positions;
    std::vector<int64_t> block_offsets = {0}, position_offsets = {0};
    std::vector<int64_t> list_offsets = {0}, offset_list_offsets = {0};
    std::vector<uint32_t> block_position_offsets;
    std::vector<float> max_scores;
    std::vector<uint32_t> lengths;
    std::vector<uint32_t> docs, freqs, token_positions;
    for (size_t t = start; t < end; ++t) {
      TokenPostings& p = postings_[t];
      LANCEDB_RETURN_NOT_OK(
          DecodeBuildPostings(p, params_.with_position, &docs, &freqs, &token_positions));
      // The encoded blocks replace the build buffers: release them as we go.
      std::string().swap(p.postings);
      std::string().swap(p.positions);
      const size_t n = docs.size();
      const double idf = Bm25Idf(static_cast<double>(n), num_docs);
      float token_max = 0;
      std::string stream;
      size_t position_cursor = 0;
      for (size_t b = 0; b < n; b += kPostingBlockSize) {
        const size_t e = std::min(n, b + kPostingBlockSize);
        double best = 0;
        for (size_t i = b; i < e; ++i) {
          best = std::max(best, Bm25Tf(freqs[i], num_tokens_[docs[i]], avgdl));
        }
        const auto score = static_cast<float>(idf * best);
        token_max = std::max(token_max, score);
        std::string block = EncodePostingBlock(std::span(docs.data() + b, e - b),
                                               std::span(freqs.data() + b, e - b), score);
        blocks += block;
        block_offsets.push_back(static_cast<int64_t>(blocks.size()));
        if (params_.with_position) {
          block_position_offsets.push_back(static_cast<uint32_t>(stream.size()));
          std::vector<uint32_t> deltas;
          for (size_t i = b; i < e; ++i) {
            uint32_t prev = 0;
            for (uint32_t k = 0; k < freqs[i]; ++k) {
              const uint32_t pos = token_positions[position_cursor++];
              deltas.push_back(k == 0 ? pos : pos - prev);
              prev = pos;
            }
          }
          stream += EncodePositionBlock(deltas);
        }
      }
      list_offsets.push_back(static_cast<int64_t>(block_offsets.size()) - 1);
      max_scores.push_back(token_max);
      lengths.push_back(static_cast<uint32_t>(n));
      if (params_.with_position) {
        positions += stream;
        position_offsets.push_back(static_cast<int64_t>(positions.size()));
        offset_list_offsets.push_back(static_cast<int64_t>(block_position_offsets.size()));
      }
    }
    std::vector<array::ArrayPtr> columns;
    columns.reserve(5);
    columns.push_back(array::MakeList(array::list(item), list_offsets,
                                      LargeBinary(std::move(blocks), std::move(block_offsets))));
    columns.push_back(F32Array(std::move(max_scores)));
    columns.push_back(U32Array(std::move(lengths)));
    if (params_.with_position) {
      columns.push_back(LargeBinary(std::move(positions), std::move(position_offsets)));
      columns.push_back(array::MakeList(array::list(array::uint32()), offset_list_offsets,
                                        U32Array(std::move(block_position_offsets))));
    }
    const auto rows = static_cast<int64_t>(end - start);
    LANCEDB_ASSIGN_OR_RETURN(auto batch, array::RecordBatch::Make(schema, columns, rows));
    batches.push_back(std::move(batch));
  }
  LANCEDB_ASSIGN_OR_RETURN(auto invert,
                           scalar::WriteIndexFile(fs, dir, prefix + "invert.lance", schema, batches,
                                                  FormatMetadata(params_)));
  files.push_back(invert);
  batches.clear();

  // The token dictionary in the Arrow token-set format, sorted by token.
  std::vector<uint32_t> order(tokens_.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return tokens_[a] < tokens_[b]; });
  std::vector<std::optional<std::string>> sorted;
  sorted.reserve(order.size());
  for (uint32_t i : order) sorted.emplace_back(tokens_[i]);
  auto token_schema = array::schema({array::field("_token", array::utf8(), false),
                                     array::field("_token_id", array::uint32(), false)});
  LANCEDB_ASSIGN_OR_RETURN(
      auto token_batch,
      array::RecordBatch::Make(token_schema, {array::MakeString(sorted), U32Array(order)},
                               static_cast<int64_t>(order.size())));
  LANCEDB_ASSIGN_OR_RETURN(
      auto token_file,
      scalar::WriteIndexFile(fs, dir, prefix + "tokens.lance", token_schema, {token_batch}, {}));
  files.push_back(token_file);

  // The documents.
  auto doc_schema = array::schema({array::field("_rowid", array::uint64(), false),
                                   array::field("_num_tokens", array::uint32(), false)});
  const auto ndocs = static_cast<int64_t>(row_ids_.size());
  LANCEDB_ASSIGN_OR_RETURN(
      auto doc_batch,
      array::RecordBatch::Make(
          doc_schema, {U64Array(std::move(row_ids_)), U32Array(std::move(num_tokens_))}, ndocs));
  LANCEDB_ASSIGN_OR_RETURN(
      auto doc_file, scalar::WriteIndexFile(fs, dir, prefix + "docs.lance", doc_schema, {doc_batch},
                                            {{"total_tokens", std::to_string(total)}}));
  files.push_back(doc_file);
  *this = PartitionBuilder(params_, analyzer_);
  return files;
}

Result<scalar::WrittenFile> WriteFtsMetadata(const io::FileSystemPtr& fs, const std::string& dir,
                                             const FtsParams& params,
                                             const std::vector<uint32_t>& partitions) {
  std::string list = "[";
  for (size_t i = 0; i < partitions.size(); ++i) {
    list += (i ? "," : "") + std::to_string(partitions[i]);
  }
  list += "]";
  array::KeyValueMetadata meta = {
      {"partitions", list}, {"params", FtsParamsToJson(params)}, {"token_set_format", "arrow"}};
  for (auto& kv : FormatMetadata(params)) meta.push_back(kv);
  // An empty portable roaring bitmap: no fragments deleted since the build.
  const std::string empty_bitmap("\x3a\x30\x00\x00\x00\x00\x00\x00", 8);
  auto schema = array::schema({array::field("deleted_fragments", array::binary(), false)});
  LANCEDB_ASSIGN_OR_RETURN(
      auto batch, array::RecordBatch::Make(
                      schema, {array::MakeBinaryLike(array::binary(), {empty_bitmap})}, 1));
  return scalar::WriteIndexFile(fs, dir, kFtsMetadataFile, schema, {batch}, meta);
}

}  // namespace lancedb::index::fts
