// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Full-text query planning and execution (fts_search.h). Scores are Okapi BM25 as Lance
// computes them (docs/format/fts-index.md §5): indexed rows with the index's statistics, rows
// of fragments the index does not cover with the index's and those rows' statistics combined.

#include "db/fts_search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "array/c_bridge.h"
#include "common/buffer.h"
#include "db/table_impl.h"
#include "db/vector_search.h"
#include "expr/evaluator.h"
#include "index/fts/posting_codec.h"
#include "io/file_system.h"
#include "table/dataset_impl.h"
#include "table/deletion.h"
#include "table/row_ids.h"
#include "table/stable_row_ids.h"

namespace lancedb::db {

namespace fts = index::fts;
using Kind = FullTextQuery::Kind;
using ScoreMap = std::unordered_map<uint64_t, double>;

/// A matching row and its score.
struct Scored {
  uint64_t row_id;
  double score;
};

namespace {

bool IsTextType(const array::DataType& t) {
  if (t.id() == array::TypeId::kString || t.id() == array::TypeId::kLargeString) return true;
  if (t.id() == array::TypeId::kList || t.id() == array::TypeId::kLargeList) {
    const auto& v = *t.value_type();
    return v.id() == array::TypeId::kString || v.id() == array::TypeId::kLargeString;
  }
  return false;
}

const index::FtsSegment* SegmentOf(const std::vector<index::FtsSegment>& segments,
                                   const std::string& column) {
  for (const auto& s : segments) {
    if (s.column == column) return &s;
  }
  return nullptr;
}

Status CheckColumn(const table::Dataset& ds, const std::string& column) {
  auto field = ds.schema()->GetFieldByName(column);
  if (!field.ok()) {
    std::string names;
    for (const auto& f : ds.schema()->fields()) names += (names.empty() ? "" : ", ") + f->name();
    return Status::InvalidArgument("Column '" + column + "' not found; columns are: " + names);
  }
  if (!IsTextType(*(*field)->type())) {
    return Status::InvalidArgument("Full-text search needs a string column; column '" + column +
                                   "' is " + (*field)->type()->ToString());
  }
  return Status::OK();
}

/// Resolve the columns of `q` in place.
Status Resolve(const table::Dataset& ds, const std::vector<index::FtsSegment>& segments,
               FullTextQuery* q) {
  switch (q->kind) {
    case Kind::kMatch:
    case Kind::kPhrase: {
      if (q->query.empty()) return Status::InvalidArgument("Full-text query text is empty");
      if (q->column.empty()) {
        std::vector<std::string> indexed;
        for (const auto& s : segments) {
          if (std::find(indexed.begin(), indexed.end(), s.column) == indexed.end()) {
            indexed.push_back(s.column);
          }
        }
        if (indexed.empty()) {
          return Status::InvalidArgument(
              "Cannot perform full text search unless an INVERTED index has been created on at "
              "least one column");
        }
        if (indexed.size() == 1) {
          q->column = indexed[0];
        } else if (q->kind == Kind::kPhrase) {
          return Status::InvalidArgument(
              "the column must be specified in the query: phrase queries search one column and "
              "several columns have FTS indices");
        } else {
          FullTextQuery multi = *q;
          multi.kind = Kind::kMultiMatch;
          multi.columns = indexed;
          multi.boosts.assign(indexed.size(), q->boost);
          *q = std::move(multi);
          return Status::OK();
        }
      }
      LANCEDB_RETURN_NOT_OK(CheckColumn(ds, q->column));
      if (q->kind == Kind::kPhrase) {
        const auto* seg = SegmentOf(segments, q->column);
        if (seg != nullptr && !seg->index->params().with_position) {
          return Status::InvalidArgument(
              "position is not found but required for phrase queries, try recreating the index "
              "with position (with_position=True) on column '" +
              q->column + "'");
        }
      }
      return Status::OK();
    }
    case Kind::kMultiMatch: {
      if (q->query.empty()) return Status::InvalidArgument("Full-text query text is empty");
      if (q->columns.empty()) return Status::InvalidArgument("MultiMatchQuery has no columns");
      if (!q->boosts.empty() && q->boosts.size() != q->columns.size()) {
        return Status::InvalidArgument("MultiMatchQuery: " + std::to_string(q->boosts.size()) +
                                       " boosts for " + std::to_string(q->columns.size()) +
                                       " columns");
      }
      if (q->boosts.empty()) q->boosts.assign(q->columns.size(), 1.0f);
      for (const auto& c : q->columns) LANCEDB_RETURN_NOT_OK(CheckColumn(ds, c));
      return Status::OK();
    }
    case Kind::kBoolean:
      if (q->children.size() != q->occurs.size()) {
        return Status::InvalidArgument("BooleanQuery: clauses and roles differ in number");
      }
      if (q->children.empty()) return Status::InvalidArgument("BooleanQuery has no clauses");
      for (auto& c : q->children) LANCEDB_RETURN_NOT_OK(Resolve(ds, segments, &c));
      return Status::OK();
    case Kind::kBoost:
      if (q->children.size() != 2) {
        return Status::InvalidArgument("BoostQuery needs a positive and a negative query");
      }
      for (auto& c : q->children) LANCEDB_RETURN_NOT_OK(Resolve(ds, segments, &c));
      return Status::OK();
  }
  return Status::Internal("unknown full-text query kind");
}

/// Which rows of the snapshot are live, and where they are.
class LiveRows {
 public:
  static Result<LiveRows> Make(const table::Dataset& ds) {
    LiveRows live;
    live.stable_ = table::UsesStableRowIds(ds);
    const auto& manifest = ds.manifest().proto();
    for (const auto& f : manifest.fragments()) {
      std::vector<uint32_t> deleted;
      if (f.has_deletion_file()) {
        LANCEDB_ASSIGN_OR_RETURN(deleted, table::ReadDeletions(*ds.fs(), ds.path(), manifest, f));
      }
      if (live.stable_) {
        LANCEDB_ASSIGN_OR_RETURN(auto ids, table::FragmentRowIds(*ds.fs(), ds.path(), f));
        size_t d = 0;
        for (size_t off = 0; off < ids.size(); ++off) {
          while (d < deleted.size() && deleted[d] < off) ++d;
          if (d < deleted.size() && deleted[d] == off) continue;
          live.addresses_[ids[off]] = (f.id() << 32) | off;
        }
      } else {
        live.fragments_[f.id()] = {f.physical_rows(), std::move(deleted)};
      }
    }
    return live;
  }
  /// The address of live row `row_id`, or nullopt when it is deleted or gone.
  std::optional<uint64_t> Address(uint64_t row_id) const {
    if (stable_) {
      auto it = addresses_.find(row_id);
      if (it == addresses_.end()) return std::nullopt;
      return it->second;
    }
    auto it = fragments_.find(row_id >> 32);
    if (it == fragments_.end()) return std::nullopt;
    const uint64_t off = row_id & 0xFFFFFFFFu;
    // physical_rows 0 means unknown (old manifests): only the deletions decide.
    if (it->second.first != 0 && off >= it->second.first) return std::nullopt;
    const auto& del = it->second.second;
    if (std::binary_search(del.begin(), del.end(), static_cast<uint32_t>(off))) {
      return std::nullopt;
    }
    return row_id;
  }
  bool stable() const { return stable_; }
  /// Row ids of `addresses` (the same without stable row ids).
  std::vector<uint64_t> RowIds(const std::vector<uint64_t>& addresses) const {
    if (!stable_) return addresses;
    std::unordered_map<uint64_t, uint64_t> back;
    for (const auto& [id, a] : addresses_) back[a] = id;
    std::vector<uint64_t> out;
    for (uint64_t a : addresses) out.push_back(back[a]);
    return out;
  }

 private:
  bool stable_ = false;
  std::unordered_map<uint64_t, uint64_t> addresses_;
  std::unordered_map<uint64_t, std::pair<uint64_t, std::vector<uint32_t>>> fragments_;
};

/// LiveRows of `ds`, shared by the queries of one table version (the last few versions are
/// kept).
Result<std::shared_ptr<const LiveRows>> CachedLiveRows(const table::Dataset& ds) {
  static std::mutex mu;
  static auto* cache = new std::vector<std::pair<std::string, std::shared_ptr<const LiveRows>>>();
  // The version's transaction file name is unique (a uuid): a table recreated at the same
  // path never shares a key with its predecessor.
  const auto& m = ds.manifest().proto();
  const std::string key = ds.path() + "@" + std::to_string(ds.version()) + "#" +
                          m.transaction_file() + "#" + std::to_string(m.timestamp().seconds()) +
                          "." + std::to_string(m.timestamp().nanos());
  {
    std::lock_guard lock(mu);
    for (const auto& [k, v] : *cache) {
      if (k == key) return v;
    }
  }
  LANCEDB_ASSIGN_OR_RETURN(auto made, LiveRows::Make(ds));
  auto shared = std::make_shared<const LiveRows>(std::move(made));
  std::lock_guard lock(mu);
  cache->emplace_back(key, shared);
  if (cache->size() > 8) cache->erase(cache->begin());
  return shared;
}

/// The rows of a column that no index covers, tokenized (only the tokens a query asks for are
/// kept, with their positions).
struct FlatDocs {
  uint64_t num_docs = 0;
  uint64_t total_tokens = 0;
  std::unordered_map<std::string, uint64_t> doc_freq;
  /// token -> (row id, doc length, positions)
  struct Hit {
    uint64_t row_id;
    uint32_t doc_length;
    std::vector<uint32_t> positions;
  };
  std::unordered_map<std::string, std::vector<Hit>> hits;
};

/// One searched column: its index (if any), analyzer and unindexed rows.
struct ColumnSource {
  const index::FtsSegment* segment = nullptr;
  std::unique_ptr<fts::Analyzer> own_analyzer;
  const fts::Analyzer* analyzer = nullptr;
  std::unordered_set<std::string> wanted;  // query tokens, for the flat part
  FlatDocs flat;
};

/// The distinct terms of a phrase, how often each occurs, and each query token's term.
struct PhraseTerms {
  std::vector<std::string> distinct;
  std::vector<int> counts;
  std::vector<size_t> slot;

  explicit PhraseTerms(const std::vector<fts::Token>& tokens) : slot(tokens.size()) {
    for (size_t i = 0; i < tokens.size(); ++i) {
      auto it = std::find(distinct.begin(), distinct.end(), tokens[i].text);
      if (it == distinct.end()) {
        distinct.push_back(tokens[i].text);
        counts.push_back(0);
        it = distinct.end() - 1;
      }
      slot[i] = static_cast<size_t>(it - distinct.begin());
      counts[slot[i]]++;
    }
  }
};

/// Best-first order of results: higher score (as returned, float32), then lower row id.
bool Better(const Scored& a, const Scored& b) {
  const auto fa = static_cast<float>(a.score), fb = static_cast<float>(b.score);
  return fa != fb ? fa > fb : a.row_id < b.row_id;
}

/// The best k offered rows (a heap whose front is the worst kept).
class TopK {
 public:
  explicit TopK(size_t k) : k_(k) {}
  /// The score a row must beat to enter (-infinity until k rows are kept).
  double Threshold() const {
    return heap_.size() < k_ ? -std::numeric_limits<double>::infinity() : heap_.front().score;
  }
  void Offer(const Scored& s, const std::function<bool(uint64_t)>& keep) {
    if (heap_.size() == k_ && !Better(s, heap_.front())) return;
    if (!keep(s.row_id)) return;
    heap_.push_back(s);
    std::push_heap(heap_.begin(), heap_.end(), Better);
    if (heap_.size() > k_) {
      std::pop_heap(heap_.begin(), heap_.end(), Better);
      heap_.pop_back();
    }
  }
  /// Whether a row with this score and id would enter (before its `keep` check).
  bool WouldAccept(const Scored& s) const { return heap_.size() < k_ || Better(s, heap_.front()); }
  std::vector<Scored> Take() { return std::move(heap_); }

 private:
  size_t k_;
  std::vector<Scored> heap_;
};

/// A position in one term's posting list of one partition, decoding a block at a time.
/// `scale` turns a block's stored max score (partition statistics) into an upper bound of the
/// index-wide score: idf_index/idf_partition times max(1, avgdl_index/avgdl_partition) (the
/// tf factor grows by at most that ratio when the average length grows), times the query
/// weight, with a small margin.
struct PostingCursor {
  std::vector<fts::InvertedIndex::Block> blocks;
  double weight = 0;  // boost x multiplicity x index-wide idf
  double scale = 0;
  double upper_bound = 0;
  double avgdl = 1;
  const uint32_t* lengths = nullptr;
  size_t num_docs = 0;  // documents of the partition: every posting must name one
  size_t block = 0;
  size_t pos = 0;
  std::vector<uint32_t> docs, freqs;

  bool done() const { return block >= blocks.size(); }
  uint32_t doc() const { return docs[pos]; }
  double Score() const { return weight * fts::Bm25Tf(freqs[pos], lengths[docs[pos]], avgdl); }
  /// The largest score any posting can have (set by Start()).
  double UpperBound() const { return upper_bound; }
  Status Start() {
    float best = 0;
    for (const auto& b : blocks) best = std::max(best, b.max_score);
    upper_bound = best * scale;
    return Load(0);
  }
  Status Load(size_t b) {
    block = b;
    pos = 0;
    docs.clear();
    freqs.clear();
    if (done()) return Status::OK();
    LANCEDB_RETURN_NOT_OK(fts::DecodePostingBlock(blocks[b].bytes, blocks[b].count, &docs, &freqs));
    if (docs.empty() || docs.back() >= num_docs || !std::is_sorted(docs.begin(), docs.end())) {
      return Status::Corruption("Inverted index: a posting block names a missing document");
    }
    return Status::OK();
  }
  Status Next() {
    if (++pos < docs.size()) return Status::OK();
    return Load(block + 1);
  }
  /// Move to the first posting with a document >= target.
  Status SeekGE(uint32_t target) {
    if (done() || doc() >= target) return Status::OK();
    size_t b = block;
    while (b + 1 < blocks.size()) {
      LANCEDB_ASSIGN_OR_RETURN(uint32_t first,
                               fts::PostingBlockFirstDoc(blocks[b + 1].bytes, blocks[b + 1].count));
      if (first > target) break;
      ++b;
    }
    if (b != block) LANCEDB_RETURN_NOT_OK(Load(b));
    while (!done() && doc() < target) LANCEDB_RETURN_NOT_OK(Next());
    return Status::OK();
  }
  // Positions (phrase queries): the token's stream, each block's offset into it, and the
  // current block's decoded gaps with each document's first gap.
  std::string_view position_stream;
  std::span<const uint32_t> position_offsets;
  size_t positions_block = SIZE_MAX;
  std::vector<uint32_t> gaps;
  std::vector<size_t> doc_starts;
  std::vector<uint32_t> current_positions;

  /// The positions of the current document.
  Result<const std::vector<uint32_t>*> Positions() {
    if (positions_block != block) {
      if (position_offsets.size() != blocks.size()) {
        return Status::Corruption("Inverted index: bad position offsets");
      }
      const size_t from = position_offsets[block];
      const size_t to =
          block + 1 < blocks.size() ? position_offsets[block + 1] : position_stream.size();
      if (from > to || to > position_stream.size()) {
        return Status::Corruption("Inverted index: bad position offsets");
      }
      doc_starts.assign(1, 0);
      for (uint32_t f : freqs) doc_starts.push_back(doc_starts.back() + f);
      gaps.clear();
      LANCEDB_RETURN_NOT_OK(fts::DecodePositionBlock(position_stream.substr(from, to - from),
                                                     doc_starts.back(), &gaps));
      if (gaps.size() != doc_starts.back()) {
        return Status::Corruption("Inverted index: bad position block");
      }
      positions_block = block;
    }
    current_positions.clear();
    uint32_t value = 0;
    for (size_t i = doc_starts[pos]; i < doc_starts[pos + 1]; ++i) {
      value = i == doc_starts[pos] ? gaps[i] : value + gaps[i];
      current_positions.push_back(value);
    }
    return &current_positions;
  }

  /// Skip the rest of the current block and the next blocks while their bound is below
  /// `needed` (only when the current block cannot reach it either).
  Status SkipBlocksBelow(double needed) {
    if (done() || blocks[block].max_score * scale >= needed) return Status::OK();
    size_t b = block + 1;
    while (b < blocks.size() && blocks[b].max_score * scale < needed) ++b;
    return Load(b);
  }
};

class Evaluator {
 public:
  Evaluator(const FtsPlan& plan, const LiveRows& live) : plan_(plan), live_(live) {}

  Status Prepare(const FullTextQuery& q) {
    if (q.kind == Kind::kBoolean || q.kind == Kind::kBoost) {
      for (const auto& c : q.children) LANCEDB_RETURN_NOT_OK(Prepare(c));
      return Status::OK();
    }
    std::vector<std::string> columns =
        q.kind == Kind::kMultiMatch ? q.columns : std::vector<std::string>{q.column};
    for (const auto& c : columns) {
      LANCEDB_ASSIGN_OR_RETURN(ColumnSource * src, Source(c));
      for (const auto& t : Analyze(*src, q.query)) src->wanted.insert(t.text);
    }
    return Status::OK();
  }

  /// Tokenize the unindexed rows of every column.
  Status LoadFlat() {
    if (plan_.request.fast_search) return Status::OK();
    for (auto& [column, src] : sources_) LANCEDB_RETURN_NOT_OK(LoadFlat(column, &src));
    return Status::OK();
  }

  Result<ScoreMap> Evaluate(const FullTextQuery& q) {
    switch (q.kind) {
      case Kind::kMatch:
        return Match(q, q.column, q.boost);
      case Kind::kPhrase:
        return Phrase(q);
      case Kind::kMultiMatch: {
        ScoreMap out;
        for (size_t i = 0; i < q.columns.size(); ++i) {
          LANCEDB_ASSIGN_OR_RETURN(auto s, Match(q, q.columns[i], q.boosts[i]));
          for (const auto& [row, score] : s) {
            auto [it, inserted] = out.emplace(row, score);
            if (!inserted) it->second = std::max(it->second, score);
          }
        }
        return out;
      }
      case Kind::kBoolean:
        return Boolean(q);
      case Kind::kBoost: {
        LANCEDB_ASSIGN_OR_RETURN(auto pos, Evaluate(q.children[0]));
        LANCEDB_ASSIGN_OR_RETURN(auto neg, Evaluate(q.children[1]));
        for (auto& [row, score] : pos) {
          auto it = neg.find(row);
          if (it != neg.end()) score -= q.negative_boost * it->second;
        }
        return pos;
      }
    }
    return Status::Internal("unknown full-text query kind");
  }

 private:
  Result<ColumnSource*> Source(const std::string& column) {
    auto it = sources_.find(column);
    if (it != sources_.end()) return &it->second;
    ColumnSource& src = sources_[column];
    src.segment = SegmentOf(*plan_.segments, column);
    if (src.segment != nullptr) {
      src.analyzer = &src.segment->index->analyzer();
    } else {
      LANCEDB_ASSIGN_OR_RETURN(src.own_analyzer, fts::Analyzer::Make(fts::AnalyzerOptions{}));
      src.analyzer = src.own_analyzer.get();
    }
    return &src;
  }

  /// Query tokens with positions relative to the first one.
  static std::vector<fts::Token> Analyze(const ColumnSource& src, const std::string& text) {
    std::vector<fts::Token> tokens;
    src.analyzer->Analyze(text, &tokens);
    if (!tokens.empty()) {
      const uint32_t first = tokens[0].position;
      for (auto& t : tokens) t.position -= first;
    }
    return tokens;
  }

  Status LoadFlat(const std::string& column, ColumnSource* src) {
    const auto& ds = *plan_.dataset;
    ::lance::table::Manifest subset = ds.manifest().proto();
    subset.clear_fragments();
    for (const auto& f : ds.manifest().proto().fragments()) {
      if (src->segment == nullptr || !src->segment->fragments.count(f.id())) {
        *subset.add_fragments() = f;
      }
    }
    if (subset.fragments_size() == 0) return Status::OK();
    LANCEDB_ASSIGN_OR_RETURN(auto manifest, table::Manifest::Make(std::move(subset), {}));
    LANCEDB_ASSIGN_OR_RETURN(
        auto sub, table::MakeDataset(ds.fs(), ds.path(), manifest, ds.manifest_naming()));
    table::ScanOptions opts;
    opts.columns = {column};
    opts.with_row_id = true;
    opts.batch_size = 8192;
    LANCEDB_ASSIGN_OR_RETURN(auto reader, sub->Scan(opts));
    std::vector<fts::Token> tokens;
    std::string text;
    std::unordered_map<std::string, FlatDocs::Hit> doc_hits;
    while (true) {
      LANCEDB_ASSIGN_OR_RETURN(auto batch, reader->Next());
      if (batch == nullptr) break;
      const auto& values = *batch->column(0);
      const uint64_t* ids = batch->column(1)->GetValues<uint64_t>(1);
      for (int64_t i = 0; i < values.length; ++i) {
        text.clear();
        if (values.IsNull(i)) continue;
        if (values.type->id() == array::TypeId::kList ||
            values.type->id() == array::TypeId::kLargeList) {
          auto [b, e] = values.GetListRange(i);
          bool first = true;
          for (int64_t k = b; k < e; ++k) {
            if (values.children[0]->IsNull(k)) continue;
            if (!first) text.push_back(' ');
            first = false;
            text.append(values.children[0]->GetView(k));
          }
        } else {
          text.append(values.GetView(i));
        }
        tokens.clear();
        src->analyzer->Analyze(text, &tokens);
        if (tokens.empty()) continue;
        src->flat.num_docs++;
        src->flat.total_tokens += tokens.size();
        doc_hits.clear();
        for (const auto& t : tokens) {
          if (!src->wanted.count(t.text)) continue;
          auto& hit = doc_hits[t.text];
          hit.positions.push_back(t.position);
        }
        for (auto& [tok, hit] : doc_hits) {
          hit.row_id = ids[i];
          hit.doc_length = static_cast<uint32_t>(tokens.size());
          src->flat.doc_freq[tok]++;
          src->flat.hits[tok].push_back(std::move(hit));
        }
      }
    }
    return Status::OK();
  }

  static uint32_t AutoFuzziness(std::string_view token) {
    size_t chars = 0;
    for (char c : token) chars += (static_cast<uint8_t>(c) & 0xC0) != 0x80;
    return chars <= 2 ? 0 : chars <= 5 ? 1 : 2;
  }

  /// Visit each unindexed row holding `token` of `src`: (row, freq, BM25 weight idf x tf with
  /// the index's and the unindexed rows' statistics combined, positions).
  Status ForEachFlatHit(const ColumnSource& src, const std::string& token,
                        const std::function<void(uint64_t row, uint32_t freq, double tf_weight,
                                                 std::span<const uint32_t>)>& fn) {
    const auto* index = src.segment ? src.segment->index.get() : nullptr;
    const double n_index = index ? static_cast<double>(index->num_docs()) : 0;
    auto it = src.flat.hits.find(token);
    if (it == src.flat.hits.end()) return Status::OK();
    const double df_index = index ? static_cast<double>(index->DocFrequency(token)) : 0;
    const double n = n_index + static_cast<double>(src.flat.num_docs);
    const double df = df_index + static_cast<double>(src.flat.doc_freq.at(token));
    const double total =
        static_cast<double>(src.flat.total_tokens) + (index ? index->total_tokens() : 0);
    const double idf = fts::Bm25Idf(df, n);
    const double avgdl = total / n;
    for (const auto& hit : it->second) {
      const auto freq = static_cast<uint32_t>(hit.positions.size());
      fn(hit.row_id, freq, idf * fts::Bm25Tf(freq, hit.doc_length, avgdl), hit.positions);
    }
    return Status::OK();
  }

  Result<ScoreMap> Match(const FullTextQuery& q, const std::string& column, double boost) {
    LANCEDB_ASSIGN_OR_RETURN(auto scored, MatchScored(q, column, boost));
    ScoreMap out;
    out.reserve(scored.size());
    for (const auto& s : scored) out.emplace(s.row_id, s.score);
    return out;
  }

 public:
  /// A match query's matching rows with their scores (any order). The index part accumulates
  /// into one dense array per partition (no hashing per posting); the unindexed rows are few.
  Result<std::vector<Scored>> MatchScored(const FullTextQuery& q, const std::string& column,
                                          double boost, bool skip_index = false) {
    LANCEDB_ASSIGN_OR_RETURN(ColumnSource * src, Source(column));
    const auto tokens = Analyze(*src, q.query);
    // Distinct query tokens, each with its multiplicity and (fuzzy) expansions.
    std::vector<std::pair<std::string, int>> distinct;
    for (const auto& t : tokens) {
      auto it = std::find_if(distinct.begin(), distinct.end(),
                             [&](const auto& d) { return d.first == t.text; });
      if (it == distinct.end()) {
        distinct.emplace_back(t.text, 1);
      } else {
        it->second++;
      }
    }
    std::vector<std::vector<std::string>> groups;
    for (const auto& [token, count] : distinct) {
      std::vector<std::string> expansions = {token};
      const uint32_t fuzz = q.fuzziness ? *q.fuzziness : AutoFuzziness(token);
      if (fuzz > 0 && src->segment != nullptr) {
        expansions =
            src->segment->index->FuzzyExpand(token, fuzz, q.max_expansions, q.prefix_length);
        if (src->flat.hits.count(token) &&
            std::find(expansions.begin(), expansions.end(), token) == expansions.end()) {
          expansions.push_back(token);
        }
      }
      groups.push_back(std::move(expansions));
    }
    const bool all = q.op == FtsOperator::kAnd;
    std::vector<Scored> out;
    // Indexed rows.
    if (src->segment != nullptr && !skip_index) {
      const auto& index = *src->segment->index;
      const double n = static_cast<double>(index.num_docs());
      const double avgdl = static_cast<double>(index.total_tokens()) / n;
      std::vector<uint32_t> docs, freqs;
      for (size_t p = 0; p < index.num_partitions(); ++p) {
        const auto row_ids = index.partition_row_ids(p);
        const auto lengths = index.partition_num_tokens(p);
        // Dense per-document accumulators, reused across queries on this thread; only the
        // touched entries are reset afterwards.
        thread_local std::vector<double> acc;
        thread_local std::vector<uint32_t> hits, mark;
        if (acc.size() < row_ids.size()) {
          acc.resize(row_ids.size(), 0.0);
          hits.resize(row_ids.size(), 0);
          mark.resize(row_ids.size(), 0);
        }
        std::vector<uint32_t> touched;
        struct ResetTouched {  // leave the accumulators zeroed on every exit, errors included
          std::vector<uint32_t>& touched;
          ~ResetTouched() {
            for (uint32_t d : touched) {
              acc[d] = 0.0;
              hits[d] = 0;
              mark[d] = 0;
            }
          }
        } reset{touched};
        for (size_t g = 0; g < groups.size(); ++g) {
          for (const auto& e : groups[g]) {
            LANCEDB_RETURN_NOT_OK(index.PartitionPostings(p, e, &docs, &freqs));
            if (docs.empty()) continue;
            const double weight = boost * distinct[g].second *
                                  fts::Bm25Idf(static_cast<double>(index.DocFrequency(e)), n);
            const double k = fts::kBm25K1 * (1.0 - fts::kBm25B);
            const double kb = fts::kBm25K1 * fts::kBm25B / avgdl;
            for (size_t i = 0; i < docs.size(); ++i) {
              const uint32_t d = docs[i];
              const double f = freqs[i];
              acc[d] += weight * (fts::kBm25K1 + 1.0) * f / (f + k + kb * lengths[d]);
              if (mark[d] != g + 1) {
                if (hits[d] == 0) touched.push_back(d);
                mark[d] = static_cast<uint32_t>(g + 1);
                hits[d]++;
              }
            }
          }
        }
        for (uint32_t d : touched) {
          if ((!all || hits[d] >= groups.size()) && IndexHitCurrent(*src, row_ids[d])) {
            out.push_back({row_ids[d], acc[d]});
          }
        }
      }
    }
    // Unindexed rows.
    std::unordered_map<uint64_t, std::pair<double, uint32_t>> flat;
    for (size_t g = 0; g < groups.size(); ++g) {
      std::unordered_set<uint64_t> seen;
      for (const auto& e : groups[g]) {
        LANCEDB_RETURN_NOT_OK(ForEachFlatHit(
            *src, e, [&](uint64_t row, uint32_t, double w, std::span<const uint32_t>) {
              flat[row].first += boost * distinct[g].second * w;
              if (seen.insert(row).second) flat[row].second++;
            }));
      }
    }
    for (const auto& [row, st] : flat) {
      if (all && st.second < groups.size()) continue;
      out.push_back({row, st.first});
    }
    return out;
  }

  /// The best `k` rows accepted by `keep` of a match query over an indexed column without
  /// fuzzy expansion, plus the column's unindexed matching rows; nullopt for other queries.
  /// OR runs MaxScore document at a time: terms whose summed upper bounds cannot lift a row
  /// above the k-th best score are only probed for rows the others found, and with one list
  /// left, blocks whose max score cannot beat the k-th best are not decoded. AND drives with the
  /// rarest term and probes the others. Block bounds are stored with the partition's statistics
  /// and rescaled to the index's (see PostingCursor).
  Result<std::optional<std::vector<Scored>>> TopMatch(
      const FullTextQuery& q, size_t k, const std::function<bool(uint64_t row_id)>& keep) {
    using Out = std::optional<std::vector<Scored>>;
    LANCEDB_ASSIGN_OR_RETURN(ColumnSource * src, Source(q.column));
    if (src->segment == nullptr || k == 0 || q.boost <= 0) return Out();
    const auto tokens = Analyze(*src, q.query);
    if (tokens.empty()) return Out();
    std::vector<std::pair<std::string, int>> terms;
    for (const auto& t : tokens) {
      auto it = std::find_if(terms.begin(), terms.end(),
                             [&](const auto& d) { return d.first == t.text; });
      if (it == terms.end()) {
        terms.emplace_back(t.text, 1);
      } else {
        it->second++;
      }
      const uint32_t fuzz = q.fuzziness ? *q.fuzziness : AutoFuzziness(t.text);
      if (fuzz > 0) return Out();
    }
    const bool conjunction = q.op == FtsOperator::kAnd && terms.size() > 1;
    const auto& index = *src->segment->index;
    const double n = static_cast<double>(index.num_docs());
    const double avgdl = static_cast<double>(index.total_tokens()) / n;
    TopK top(k);
    for (size_t p = 0; p < index.num_partitions(); ++p) {
      const auto row_ids = index.partition_row_ids(p);
      const auto lengths = index.partition_num_tokens(p);
      std::vector<PostingCursor> cursors;
      bool missing = false;
      for (const auto& [term, count] : terms) {
        const double df = static_cast<double>(index.DocFrequency(term));
        PostingCursor c;
        LANCEDB_RETURN_NOT_OK(index.PartitionBlocks(p, term, &c.blocks));
        if (c.blocks.empty()) {
          missing = true;
          continue;
        }
        c.weight = q.boost * count * fts::Bm25Idf(df, n);
        const double idf_p = fts::Bm25Idf(static_cast<double>(index.PartitionDocFrequency(p, term)),
                                          static_cast<double>(index.partition_num_docs(p)));
        c.scale =
            c.weight / idf_p * std::max(1.0, avgdl / index.partition_avg_length(p)) * (1.0 + 1e-4);
        c.lengths = lengths.data();
        c.num_docs = row_ids.size();
        c.avgdl = avgdl;
        LANCEDB_RETURN_NOT_OK(c.Start());
        cursors.push_back(std::move(c));
      }
      if (cursors.empty() || (conjunction && missing)) continue;
      auto offer = [&](uint32_t d, double score) -> Status {
        if (d >= row_ids.size()) {
          return Status::Corruption("Inverted index: posting names a missing document");
        }
        if (IndexHitCurrent(*src, row_ids[d])) top.Offer({row_ids[d], score}, keep);
        return Status::OK();
      };
      if (conjunction) {
        std::sort(cursors.begin(), cursors.end(),
                  [](const auto& a, const auto& b) { return a.blocks.size() < b.blocks.size(); });
        PostingCursor& driver = cursors[0];
        while (!driver.done()) {
          const uint32_t d = driver.doc();
          double score = driver.Score();
          bool all = true;
          for (size_t i = 1; i < cursors.size() && all; ++i) {
            LANCEDB_RETURN_NOT_OK(cursors[i].SeekGE(d));
            all = !cursors[i].done() && cursors[i].doc() == d;
            if (all) score += cursors[i].Score();
          }
          if (all) LANCEDB_RETURN_NOT_OK(offer(d, score));
          LANCEDB_RETURN_NOT_OK(driver.Next());
        }
        continue;
      }
      // MaxScore over the terms in ascending order of their upper bounds.
      std::sort(cursors.begin(), cursors.end(),
                [](const auto& a, const auto& b) { return a.UpperBound() < b.UpperBound(); });
      std::vector<double> prefix(cursors.size() + 1, 0.0);
      for (size_t i = 0; i < cursors.size(); ++i) {
        prefix[i + 1] = prefix[i] + cursors[i].UpperBound();
      }
      while (true) {
        // Prune only below the k-th score lowered by a hair: a row whose float32 score ties
        // the k-th (a lower row id wins ties) must still be scored.
        const double kth = top.Threshold();
        const double threshold = kth > 0 ? kth * (1.0 - 1e-6) : kth;
        size_t essential = 0;  // cursors [essential, end) must be scanned
        while (essential < cursors.size() && prefix[essential + 1] < threshold) ++essential;
        if (essential == cursors.size()) break;
        // With one list left to scan, skip its blocks that cannot reach the threshold.
        if (essential + 1 == cursors.size()) {
          LANCEDB_RETURN_NOT_OK(cursors.back().SkipBlocksBelow(threshold - prefix[essential]));
        }
        uint32_t d = UINT32_MAX;
        for (size_t i = essential; i < cursors.size(); ++i) {
          if (!cursors[i].done()) d = std::min(d, cursors[i].doc());
        }
        if (d == UINT32_MAX) break;
        double score = 0;
        for (size_t i = essential; i < cursors.size(); ++i) {
          if (!cursors[i].done() && cursors[i].doc() == d) {
            score += cursors[i].Score();
            LANCEDB_RETURN_NOT_OK(cursors[i].Next());
          }
        }
        bool pruned = false;
        for (size_t i = essential; i-- > 0;) {
          if (score + prefix[i + 1] < threshold) {
            pruned = true;
            break;
          }
          LANCEDB_RETURN_NOT_OK(cursors[i].SeekGE(d));
          if (!cursors[i].done() && cursors[i].doc() == d) score += cursors[i].Score();
        }
        if (!pruned) LANCEDB_RETURN_NOT_OK(offer(d, score));
      }
    }
    std::vector<Scored> out = top.Take();
    LANCEDB_ASSIGN_OR_RETURN(auto flat, MatchScored(q, q.column, q.boost, /*skip_index=*/true));
    out.insert(out.end(), flat.begin(), flat.end());
    return Out(std::move(out));
  }

  /// The best `k` rows accepted by `keep` of a phrase query over an indexed column, plus the
  /// unindexed matching rows; nullopt when the column has no index.
  Result<std::optional<std::vector<Scored>>> TopPhrase(
      const FullTextQuery& q, size_t k, const std::function<bool(uint64_t row_id)>& keep) {
    using Out = std::optional<std::vector<Scored>>;
    LANCEDB_ASSIGN_OR_RETURN(ColumnSource * src, Source(q.column));
    if (src->segment == nullptr || k == 0) return Out();
    TopK top(k);
    LANCEDB_RETURN_NOT_OK(IndexPhrase(q, *src, keep, &top));
    std::vector<Scored> out = top.Take();
    LANCEDB_ASSIGN_OR_RETURN(auto flat, FlatPhrase(q, *src));
    for (const auto& [row, score] : flat) out.push_back({row, score});
    return Out(std::move(out));
  }

 private:
  /// Whether positions `by_slot[i]` (ascending, of query token i) hold the phrase: each token
  /// at the previous one's position plus its query gap, up to `slop` further.
  static bool PhraseMatches(const std::vector<fts::Token>& tokens,
                            const std::vector<const std::vector<uint32_t>*>& by_slot,
                            uint32_t slop) {
    std::vector<uint32_t> reach = *by_slot[0], next;
    for (size_t i = 1; i < tokens.size() && !reach.empty(); ++i) {
      const uint32_t gap = tokens[i].position - tokens[i - 1].position;
      next.clear();
      for (uint32_t p : *by_slot[i]) {
        for (uint32_t r : reach) {
          const uint64_t low = static_cast<uint64_t>(r) + gap;
          if (p >= low && p <= low + slop) {
            next.push_back(p);
            break;
          }
        }
      }
      std::swap(reach, next);
    }
    return !reach.empty();
  }

  /// Offer to `top` the indexed rows holding the phrase: documents holding every term are found
  /// as for AND (the rarest term drives), and positions are decoded only for those that would
  /// enter `top`.
  Status IndexPhrase(const FullTextQuery& q, const ColumnSource& src,
                     const std::function<bool(uint64_t row_id)>& keep, TopK* top) {
    const auto tokens = Analyze(src, q.query);
    if (tokens.empty()) return Status::OK();
    const PhraseTerms terms(tokens);
    const auto& index = *src.segment->index;
    const double n = static_cast<double>(index.num_docs());
    const double avgdl = static_cast<double>(index.total_tokens()) / n;
    std::vector<const std::vector<uint32_t>*> by_slot(tokens.size());
    std::vector<std::vector<uint32_t>> held(terms.distinct.size());
    for (size_t p = 0; p < index.num_partitions(); ++p) {
      const auto row_ids = index.partition_row_ids(p);
      std::vector<PostingCursor> cursors(terms.distinct.size());
      bool missing = false;
      for (size_t t = 0; t < terms.distinct.size() && !missing; ++t) {
        PostingCursor& c = cursors[t];
        const std::string& term = terms.distinct[t];
        LANCEDB_RETURN_NOT_OK(index.PartitionBlocks(p, term, &c.blocks));
        missing = c.blocks.empty();
        if (missing) break;
        LANCEDB_RETURN_NOT_OK(
            index.PartitionPositionStream(p, term, &c.position_stream, &c.position_offsets));
        c.weight = terms.counts[t] * fts::Bm25Idf(static_cast<double>(index.DocFrequency(term)), n);
        c.lengths = index.partition_num_tokens(p).data();
        c.num_docs = row_ids.size();
        c.avgdl = avgdl;
        LANCEDB_RETURN_NOT_OK(c.Start());
      }
      if (missing) continue;
      size_t driver = 0;
      for (size_t t = 1; t < cursors.size(); ++t) {
        if (cursors[t].blocks.size() < cursors[driver].blocks.size()) driver = t;
      }
      while (!cursors[driver].done()) {
        const uint32_t d = cursors[driver].doc();
        double score = 0;
        bool all = true;
        for (size_t t = 0; t < cursors.size() && all; ++t) {
          LANCEDB_RETURN_NOT_OK(cursors[t].SeekGE(d));
          all = !cursors[t].done() && cursors[t].doc() == d;
          if (all) score += cursors[t].Score();
        }
        const Scored cand{row_ids[d], score};  // d < row_ids.size(): PostingCursor checks
        if (all && top->WouldAccept(cand)) {
          for (size_t t = 0; t < cursors.size(); ++t) {
            LANCEDB_ASSIGN_OR_RETURN(auto positions, cursors[t].Positions());
            held[t] = *positions;
          }
          for (size_t i = 0; i < tokens.size(); ++i) by_slot[i] = &held[terms.slot[i]];
          if (IndexHitCurrent(src, cand.row_id) && PhraseMatches(tokens, by_slot, q.slop)) {
            top->Offer(cand, keep);
          }
        }
        LANCEDB_RETURN_NOT_OK(cursors[driver].Next());
      }
    }
    return Status::OK();
  }

  /// The unindexed rows holding the phrase, with their scores.
  Result<ScoreMap> FlatPhrase(const FullTextQuery& q, const ColumnSource& src) {
    ScoreMap out;
    const auto tokens = Analyze(src, q.query);
    if (tokens.empty()) return out;
    const PhraseTerms terms(tokens);
    const size_t nd = terms.distinct.size();
    struct RowState {
      std::vector<std::vector<uint32_t>> positions;
      double score = 0;
      size_t found = 0;
    };
    std::unordered_map<uint64_t, RowState> rows;
    for (size_t k = 0; k < nd; ++k) {
      LANCEDB_RETURN_NOT_OK(
          ForEachFlatHit(src, terms.distinct[k],
                         [&](uint64_t row, uint32_t, double w, std::span<const uint32_t> pos) {
                           RowState& st = rows[row];
                           if (st.positions.empty()) st.positions.resize(nd);
                           st.positions[k].assign(pos.begin(), pos.end());
                           st.score += terms.counts[k] * w;
                           st.found++;
                         }));
    }
    std::vector<const std::vector<uint32_t>*> by_slot(tokens.size());
    for (auto& [row, st] : rows) {
      if (st.found < nd) continue;
      for (size_t i = 0; i < tokens.size(); ++i) by_slot[i] = &st.positions[terms.slot[i]];
      if (PhraseMatches(tokens, by_slot, q.slop)) out.emplace(row, st.score);
    }
    return out;
  }

  /// Every row holding the phrase (inside a boolean or boost query).
  Result<ScoreMap> Phrase(const FullTextQuery& q) {
    LANCEDB_ASSIGN_OR_RETURN(ColumnSource * src, Source(q.column));
    LANCEDB_ASSIGN_OR_RETURN(ScoreMap out, FlatPhrase(q, *src));
    if (src->segment != nullptr) {
      TopK all(SIZE_MAX);
      LANCEDB_RETURN_NOT_OK(IndexPhrase(
          q, *src, [](uint64_t) { return true; }, &all));
      for (const auto& s : all.Take()) out.emplace(s.row_id, s.score);
    }
    return out;
  }

  Result<ScoreMap> Boolean(const FullTextQuery& q) {
    std::optional<ScoreMap> must;
    ScoreMap should;
    std::unordered_set<uint64_t> excluded;
    bool has_should = false;
    for (size_t i = 0; i < q.children.size(); ++i) {
      LANCEDB_ASSIGN_OR_RETURN(auto s, Evaluate(q.children[i]));
      switch (q.occurs[i]) {
        case FtsOccur::kMust:
          if (!must) {
            must = std::move(s);
          } else {
            ScoreMap both;
            for (const auto& [row, score] : *must) {
              auto it = s.find(row);
              if (it != s.end()) both.emplace(row, score + it->second);
            }
            must = std::move(both);
          }
          break;
        case FtsOccur::kShould:
          has_should = true;
          for (const auto& [row, score] : s) should[row] += score;
          break;
        case FtsOccur::kMustNot:
          for (const auto& [row, score] : s) excluded.insert(row);
          break;
      }
    }
    ScoreMap out;
    if (must) {
      out = std::move(*must);
      for (auto& [row, score] : out) {
        auto it = should.find(row);
        if (it != should.end()) score += it->second;
      }
    } else if (has_should) {
      out = std::move(should);
    }
    for (uint64_t row : excluded) out.erase(row);
    return out;
  }

  /// Whether an index hit on `row` is current. With stable row ids an updated row keeps its
  /// id but moves to a fragment the index does not cover: its indexed (old) text must not
  /// match, and the flat search finds its new text.
  bool IndexHitCurrent(const ColumnSource& src, uint64_t row) const {
    if (!live_.stable()) return true;
    auto address = live_.Address(row);
    return address && src.segment->fragments.count(*address >> 32) > 0;
  }

  const FtsPlan& plan_;
  const LiveRows& live_;
  std::map<std::string, ColumnSource> sources_;
};

std::string QueryText(const FullTextQuery& q) {
  switch (q.kind) {
    case Kind::kMatch:
      return "MatchQuery: column=" + q.column + ", query=[" + q.query + "]";
    case Kind::kPhrase:
      return "PhraseQuery: column=" + q.column + ", query=" + q.query;
    case Kind::kMultiMatch: {
      std::string cols;
      for (const auto& c : q.columns) cols += (cols.empty() ? "" : ", ") + c;
      return "MultiMatchQuery: columns=[" + cols + "], query=[" + q.query + "]";
    }
    case Kind::kBoolean:
      return "CompoundFtsScorer: query=Boolean";
    case Kind::kBoost:
      return "CompoundFtsScorer: query=Boost";
  }
  return "";
}

}  // namespace

Result<FtsPlan> PlanFtsQuery(table::DatasetPtr dataset, const FtsQueryRequest& request) {
  FtsPlan plan;
  LANCEDB_ASSIGN_OR_RETURN(auto segments, index::LoadFtsIndices(*dataset));
  plan.segments = std::make_shared<const std::vector<index::FtsSegment>>(std::move(segments));
  plan.query = request.query;
  LANCEDB_RETURN_NOT_OK(Resolve(*dataset, *plan.segments, &plan.query));
  if (request.base.limit && *request.base.limit < 0) {
    return Status::InvalidArgument("Limit must be non-negative");
  }
  if (request.base.offset < 0) return Status::InvalidArgument("Offset must be non-negative");
  plan.limit = request.base.limit && *request.base.limit > 0 ? *request.base.limit : 10;
  plan.offset = request.base.offset;
  // `_score` is always returned (last); naming it in the selection is allowed, as in LanceDB.
  QueryRequest base = request.base;
  if (base.select == SelectKind::kColumns) {
    std::erase(base.columns, std::string("_score"));
  }
  LANCEDB_ASSIGN_OR_RETURN(plan.projection, PlanRankedProjection(dataset, base, "full-text"));
  LANCEDB_ASSIGN_OR_RETURN(plan.order_by,
                           query::BindOrdering(request.base.order_by, *dataset->schema()));
  std::vector<array::FieldPtr> fields;
  for (const auto& f : plan.projection.output_schema->fields()) fields.push_back(f);
  fields.push_back(array::field("_score", array::float32()));
  if (request.base.with_row_id) {
    fields.push_back(array::field(expr::kRowIdColumn, array::uint64(), false));
  }
  if (request.base.with_row_address) {
    fields.push_back(array::field(query::kRowAddrColumn, array::uint64(), false));
  }
  plan.output_schema = array::schema(std::move(fields));
  plan.request = request;
  plan.dataset = std::move(dataset);
  return plan;
}

Result<std::unique_ptr<array::RecordBatchReader>> ExecuteFtsPlan(const FtsPlan& plan) {
  const auto& ds = *plan.dataset;
  LANCEDB_ASSIGN_OR_RETURN(auto live_rows, CachedLiveRows(ds));
  const LiveRows& live = *live_rows;
  Evaluator evaluator(plan, live);
  LANCEDB_RETURN_NOT_OK(evaluator.Prepare(plan.query));
  LANCEDB_RETURN_NOT_OK(evaluator.LoadFlat());
  std::optional<std::vector<uint64_t>> allowed;  // sorted row ids passing the prefilter
  const bool prefilter = plan.request.prefilter && plan.projection.filter;
  if (prefilter) {
    LANCEDB_ASSIGN_OR_RETURN(auto addresses,
                             query::MatchingRowAddresses(plan.dataset, &*plan.projection.filter));
    allowed = live.RowIds(addresses);
    std::sort(allowed->begin(), allowed->end());
  }
  const size_t k = static_cast<size_t>(plan.limit + plan.offset);
  std::vector<Scored> scored;
  bool done = false;
  if (plan.query.kind == Kind::kMatch) {
    LANCEDB_ASSIGN_OR_RETURN(auto top, evaluator.TopMatch(plan.query, k, [&](uint64_t row) {
      if (allowed && !std::binary_search(allowed->begin(), allowed->end(), row)) return false;
      return live.Address(row).has_value();
    }));
    if (top) {
      scored = std::move(*top);
      done = true;
    } else {
      LANCEDB_ASSIGN_OR_RETURN(
          scored, evaluator.MatchScored(plan.query, plan.query.column, plan.query.boost));
      done = true;
    }
  }
  if (plan.query.kind == Kind::kPhrase) {
    LANCEDB_ASSIGN_OR_RETURN(auto top, evaluator.TopPhrase(plan.query, k, [&](uint64_t row) {
      if (allowed && !std::binary_search(allowed->begin(), allowed->end(), row)) return false;
      return live.Address(row).has_value();
    }));
    if (top) {
      scored = std::move(*top);
      done = true;
    }
  }
  if (!done) {
    LANCEDB_ASSIGN_OR_RETURN(auto scores, evaluator.Evaluate(plan.query));
    scored.reserve(scores.size());
    for (const auto& [row, score] : scores) scored.push_back({row, score});
  }
  struct Ranked {
    double score;
    uint64_t row_id;
    uint64_t address;
  };
  // Best first: higher score (as returned, float32), then lower row id.
  auto better = [](const Scored& a, const Scored& b) {
    const auto fa = static_cast<float>(a.score), fb = static_cast<float>(b.score);
    return fa != fb ? fa > fb : a.row_id < b.row_id;
  };
  // Select the best candidates in rounds, keeping those that are live and pass the prefilter,
  // until k are kept or every candidate was looked at.
  std::vector<Ranked> ranked;
  size_t looked = 0;
  size_t want = k;
  while (ranked.size() < k && looked < scored.size()) {
    const size_t upto = std::min(scored.size(), looked + 2 * want + 16);
    auto first = scored.begin() + static_cast<std::ptrdiff_t>(looked);
    auto mid = scored.begin() + static_cast<std::ptrdiff_t>(upto);
    if (mid != scored.end()) std::nth_element(first, mid, scored.end(), better);
    std::sort(first, mid, better);
    for (auto it = first; it != mid && ranked.size() < k; ++it) {
      if (allowed && !std::binary_search(allowed->begin(), allowed->end(), it->row_id)) continue;
      auto address = live.Address(it->row_id);
      if (!address) continue;
      ranked.push_back({it->score, it->row_id, *address});
    }
    looked = upto;
    want *= 4;
  }
  if (!plan.request.prefilter && plan.projection.filter && !ranked.empty()) {
    std::vector<uint64_t> addresses, ids;
    for (const auto& r : ranked) {
      addresses.push_back(r.address);
      ids.push_back(r.row_id);
    }
    LANCEDB_ASSIGN_OR_RETURN(auto rows,
                             TakeRowsWithIds(ds, addresses, ids, plan.projection.filter->columns));
    LANCEDB_ASSIGN_OR_RETURN(auto keep, expr::EvaluateFilter(*plan.projection.filter, *rows));
    std::vector<Ranked> kept;
    for (int64_t i : keep) kept.push_back(ranked[static_cast<size_t>(i)]);
    ranked = std::move(kept);
  }
  if (!plan.order_by.empty()) {
    // The ordering applies to the limit + offset best rows, then offset and limit.
    std::vector<uint64_t> rows;
    for (const auto& r : ranked) rows.push_back(r.address);
    LANCEDB_ASSIGN_OR_RETURN(auto order, query::OrderRowsAt(ds, rows, plan.order_by, -1));
    std::vector<Ranked> ordered;
    for (int64_t i : order) ordered.push_back(ranked[static_cast<size_t>(i)]);
    ranked = std::move(ordered);
  }
  const size_t begin = std::min(ranked.size(), static_cast<size_t>(plan.offset));
  const size_t end = std::min(ranked.size(), begin + static_cast<size_t>(plan.limit));
  std::vector<uint64_t> addresses, ids;
  std::vector<float> out_scores;
  for (size_t i = begin; i < end; ++i) {
    addresses.push_back(ranked[i].address);
    ids.push_back(ranked[i].row_id);
    out_scores.push_back(static_cast<float>(ranked[i].score));
  }
  std::vector<array::RecordBatchPtr> batches;
  const auto n = static_cast<int64_t>(addresses.size());
  if (n > 0) {
    std::set<std::string> wanted;
    for (const auto& o : plan.projection.outputs) wanted.insert(o.columns.begin(), o.columns.end());
    LANCEDB_ASSIGN_OR_RETURN(auto rows, TakeRowsWithIds(ds, addresses, ids, wanted));
    std::vector<array::ArrayPtr> columns;
    for (const auto& out : plan.projection.outputs) {
      LANCEDB_ASSIGN_OR_RETURN(auto col, expr::Evaluate(out, *rows));
      columns.push_back(std::move(col));
    }
    columns.push_back(
        array::ArrayData::Make(array::float32(), n, {nullptr, Buffer::FromVector(out_scores)}));
    if (plan.request.base.with_row_id) columns.push_back(rows->GetColumnByName(expr::kRowIdColumn));
    if (plan.request.base.with_row_address) {
      columns.push_back(
          array::ArrayData::Make(array::uint64(), n, {nullptr, Buffer::FromVector(addresses)}));
    }
    LANCEDB_ASSIGN_OR_RETURN(auto all,
                             array::RecordBatch::Make(plan.output_schema, std::move(columns), n));
    const int64_t step = std::max<int64_t>(plan.request.base.max_batch_length, 1);
    for (int64_t start = 0; start < n; start += step) {
      batches.push_back(all->Slice(start, std::min(step, n - start)));
    }
  }
  return array::MakeVectorReader(plan.output_schema, std::move(batches));
}

std::string ExplainFtsPlan(const FtsPlan& plan, bool verbose) {
  std::string out;
  std::string exprs;
  for (size_t i = 0; i < plan.projection.output_names.size(); ++i) {
    exprs += (i ? ", " : "") + plan.projection.output_names[i];
  }
  out += "ProjectionExec: expr=[" + exprs + (exprs.empty() ? "" : ", ") + "_score]\n";
  out += "  LanceRead: uri=" + io::JoinPath(plan.dataset->path(), "data") + ", projection=[" +
         exprs + "], source=stream(_rowid)\n";
  std::string indent = "    ";
  out += indent + "GlobalLimitExec: skip=" + std::to_string(plan.offset) +
         ", fetch=" + std::to_string(plan.limit) + "\n";
  indent += "  ";
  if (!plan.order_by.empty()) {
    out += indent + "SortExec: TopK(fetch=" + std::to_string(plan.limit + plan.offset) +
           "), expr=[" + query::OrderingText(plan.order_by) + "]\n";
    indent += "  ";
  }
  if (!plan.request.prefilter && plan.projection.filter) {
    out += indent + "FilterExec: " + plan.request.base.filter.value_or("") + "\n";
    indent += "  ";
  }
  out += indent + QueryText(plan.query) + "\n";
  std::vector<std::string> columns = plan.query.kind == Kind::kMultiMatch
                                         ? plan.query.columns
                                         : std::vector<std::string>{plan.query.column};
  for (const auto& c : columns) {
    if (c.empty()) continue;
    const auto* seg = SegmentOf(*plan.segments, c);
    size_t unindexed = 0;
    for (const auto& f : plan.dataset->manifest().proto().fragments()) {
      unindexed += seg == nullptr || !seg->fragments.count(f.id());
    }
    if (seg != nullptr) {
      out += indent + "  InvertedIndex: column=" + c + ", index=" + seg->name +
             (verbose ? ", partitions=" + std::to_string(seg->index->num_partitions()) : "") + "\n";
    }
    if (unindexed > 0 && !plan.request.fast_search) {
      out += indent + "  FlatMatchQuery: column=" + c +
             ", num_fragments=" + std::to_string(unindexed) + "\n";
    }
  }
  if (plan.request.prefilter && plan.projection.filter) {
    out += indent + "  Prefilter: " + plan.request.base.filter.value_or("") + "\n";
  }
  return out;
}

Status LocalTable::ExecuteFtsQuery(const FtsQueryRequest& request, ArrowArrayStream* out) const {
  if (out == nullptr) return Status::InvalidArgument("ExecuteFtsQuery needs an output stream");
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  LANCEDB_ASSIGN_OR_RETURN(auto plan, PlanFtsQuery(ds, request));
  LANCEDB_ASSIGN_OR_RETURN(auto reader, ExecuteFtsPlan(plan));
  return array::ExportRecordBatchReader(std::move(reader), out);
}

Status LocalTable::FtsQuerySchema(const FtsQueryRequest& request, ArrowSchema* out) const {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  LANCEDB_ASSIGN_OR_RETURN(auto plan, PlanFtsQuery(ds, request));
  return array::ExportSchema(*plan.output_schema, out);
}

Result<std::string> LocalTable::ExplainFtsQuery(const FtsQueryRequest& request,
                                                bool verbose) const {
  LANCEDB_ASSIGN_OR_RETURN(auto ds, Snapshot());
  LANCEDB_ASSIGN_OR_RETURN(auto plan, PlanFtsQuery(ds, request));
  return ExplainFtsPlan(plan, verbose);
}

Status LocalTable::CreateFtsIndex(const std::string& column, const FtsIndexConfig& config,
                                  const CreateIndexOptions& options) {
  LANCEDB_RETURN_NOT_OK(CheckWritable());
  LANCEDB_ASSIGN_OR_RETURN(auto latest, LatestForWrite());
  LANCEDB_ASSIGN_OR_RETURN(auto written, index::CreateFtsIndex(latest, column, config, options));
  Publish(written);
  return Status::OK();
}

}  // namespace lancedb::db

namespace lancedb {

Result<std::vector<std::pair<std::string, uint32_t>>> Tokenize(std::string_view text,
                                                               const FtsIndexConfig& config) {
  LANCEDB_ASSIGN_OR_RETURN(auto params, index::FtsParamsOf(config));
  LANCEDB_ASSIGN_OR_RETURN(auto analyzer, index::fts::Analyzer::Make(params.analyzer));
  std::vector<index::fts::Token> tokens;
  analyzer->Analyze(text, &tokens);
  std::vector<std::pair<std::string, uint32_t>> out;
  for (auto& t : tokens) out.emplace_back(std::move(t.text), t.position - tokens[0].position);
  return out;
}

}  // namespace lancedb
