// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "table/compaction.h"

#include <roaring/roaring.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "table/create_index_op.h"
#include "table/dataset_impl.h"
#include "table/deletion.h"
#include "table/row_ids.h"
#include "table/stable_row_ids.h"

namespace lancedb::table {
namespace {

int64_t LiveRows(const pb::DataFragment& f) {
  return static_cast<int64_t>(f.physical_rows()) -
         (f.has_deletion_file() ? static_cast<int64_t>(f.deletion_file().num_deleted_rows()) : 0);
}

bool HasManyDeletions(const pb::DataFragment& f, const CompactionOptions& o) {
  if (!o.materialize_deletions || !f.has_deletion_file() || f.physical_rows() == 0) return false;
  return static_cast<double>(f.deletion_file().num_deleted_rows()) /
             static_cast<double>(f.physical_rows()) >
         o.materialize_deletions_threshold;
}

/// The fragments each index segment covers.
std::vector<std::set<uint64_t>> IndexCoverage(const pb::IndexSection& indices) {
  std::vector<std::set<uint64_t>> out;
  for (const auto& index : indices.indices()) {
    std::set<uint64_t> covered;
    const std::string& bytes = index.fragment_bitmap();
    roaring_bitmap_t* r = roaring_bitmap_portable_deserialize_safe(bytes.data(), bytes.size());
    if (r != nullptr) {
      std::vector<uint32_t> ids(roaring_bitmap_get_cardinality(r));
      roaring_bitmap_to_uint32_array(r, ids.data());
      covered.insert(ids.begin(), ids.end());
      roaring_bitmap_free(r);
    }
    out.push_back(std::move(covered));
  }
  return out;
}

/// Bins of adjacent fragments to rewrite together. With `coverage`, a bin holds fragments that
/// the same index segments cover, so that each rewritten fragment is either fully covered by a
/// segment or not at all.
std::vector<std::vector<pb::DataFragment>> PlanBins(
    const pb::Manifest& m, const CompactionOptions& o,
    const std::vector<std::set<uint64_t>>* coverage = nullptr) {
  std::vector<std::vector<pb::DataFragment>> bins;
  std::vector<pb::DataFragment> current;
  int64_t rows = 0;
  auto signature = [&](uint64_t id) {
    std::vector<bool> sig;
    if (coverage) {
      for (const auto& c : *coverage) sig.push_back(c.count(id) > 0);
    }
    return sig;
  };
  auto flush = [&] {
    bool worth = current.size() > 1 || (current.size() == 1 && HasManyDeletions(current[0], o));
    if (worth) bins.push_back(std::move(current));
    current.clear();
    rows = 0;
  };
  for (const auto& f : m.fragments()) {
    const bool candidate = LiveRows(f) < o.target_rows_per_fragment || HasManyDeletions(f, o);
    if (!candidate) {
      flush();
      continue;
    }
    if (!current.empty() && signature(current.back().id()) != signature(f.id())) flush();
    current.push_back(f);
    rows += LiveRows(f);
    if (rows >= o.target_rows_per_fragment) flush();
  }
  flush();
  return bins;
}

/// Live rows of a bin, in scan order, with their stable row ids and versions (§3).
struct BinRowIds {
  std::vector<uint64_t> ids;
  std::vector<uint64_t> created;  // empty when a fragment has no version sequences
  std::vector<uint64_t> updated;
};

Result<BinRowIds> CollectRowIds(const DatasetPtr& ds, const std::vector<pb::DataFragment>& bin) {
  BinRowIds out;
  bool versions = true;
  for (const auto& f : bin) {
    LANCEDB_ASSIGN_OR_RETURN(auto ids, FragmentRowIds(*ds->fs(), ds->path(), f));
    auto created = FragmentRowVersions(*ds->fs(), ds->path(), f, true);
    auto updated = FragmentRowVersions(*ds->fs(), ds->path(), f, false);
    versions = versions && created.ok() && updated.ok() && created->size() == ids.size() &&
               updated->size() == ids.size();
    LANCEDB_ASSIGN_OR_RETURN(auto deleted,
                             ReadDeletions(*ds->fs(), ds->path(), ds->manifest().proto(), f));
    size_t d = 0;
    for (size_t i = 0; i < ids.size(); ++i) {
      if (d < deleted.size() && deleted[d] == i) {
        ++d;
        continue;
      }
      out.ids.push_back(ids[i]);
      if (versions) {
        out.created.push_back((*created)[i]);
        out.updated.push_back((*updated)[i]);
      }
    }
  }
  if (!versions) out.created.clear(), out.updated.clear();
  return out;
}

/// Give the rewritten fragments the row ids (and versions) of the rows they hold.
Status AssignBinRowIds(const BinRowIds& rows, std::vector<pb::DataFragment>* fragments) {
  size_t offset = 0;
  for (auto& f : *fragments) {
    const size_t n = f.physical_rows();
    if (offset + n > rows.ids.size()) {
      return Status::Internal("Compaction wrote more rows than it read");
    }
    pb::RowIdSequence seq;
    EncodeRowIdSegment(rows.ids.data() + offset, n, seq.add_segments());
    f.set_inline_row_ids(seq.SerializeAsString());
    if (!rows.created.empty()) {
      f.set_inline_created_at_versions(EncodeVersionRuns(rows.created.data() + offset, n));
      f.set_inline_last_updated_at_versions(EncodeVersionRuns(rows.updated.data() + offset, n));
    }
    offset += n;
  }
  if (offset != rows.ids.size()) return Status::Internal("Compaction lost rows");
  return Status::OK();
}

/// Rewrite the live rows of `bin` into new fragments (ids unassigned).
Result<std::vector<pb::DataFragment>> RewriteBin(const DatasetPtr& ds,
                                                 const std::vector<pb::DataFragment>& bin,
                                                 const CompactionOptions& o,
                                                 std::vector<std::string>* written) {
  pb::Manifest subset = ds->manifest().proto();
  subset.clear_fragments();
  for (const auto& f : bin) *subset.add_fragments() = f;
  LANCEDB_ASSIGN_OR_RETURN(auto manifest, Manifest::Make(std::move(subset), pb::IndexSection()));
  LANCEDB_ASSIGN_OR_RETURN(auto view,
                           MakeDataset(ds->fs(), ds->path(), manifest, ManifestNaming::kV2));
  ScanOptions scan;
  scan.batch_size = o.max_rows_per_group;
  scan.materialize_blobs = true;  // rewrite blob payloads, not their descriptors
  LANCEDB_ASSIGN_OR_RETURN(auto reader, view->Scan(scan));
  WriteParams params;
  params.max_rows_per_file = o.target_rows_per_fragment;
  params.max_rows_per_group = o.max_rows_per_group;
  params.external_blob_bases = ds->external_blob_bases();  // references stay references
  LANCEDB_ASSIGN_OR_RETURN(auto version, WritableFileVersion(ds->manifest(), "Compacting"));
  LANCEDB_ASSIGN_OR_RETURN(
      auto fragments, WriteFragments(ds->fs(), ds->path(), ds->manifest().schema(), reader.get(),
                                     params, version, written));
  if ((ds->manifest().proto().reader_feature_flags() & kFlagStableRowIds) != 0) {
    LANCEDB_ASSIGN_OR_RETURN(auto rows, CollectRowIds(ds, bin));
    LANCEDB_RETURN_NOT_OK(AssignBinRowIds(rows, &fragments));
  }
  return fragments;
}

/// The vector index types (index/vector_index.h: lancedb-cpp's own layout and Lance's) whose
/// segments store stable row ids on tables that have them.
constexpr std::string_view kStableIdVectorIndexTypeUrl = "/lancedb_cpp.VectorIndexDetails";
constexpr std::string_view kLanceVectorIndexTypeUrl = "/lance.index.pb.VectorIndexDetails";

/// The new fragments of the groups whose old fragments are all in the serialized portable
/// roaring bitmap `bytes`.
std::set<uint64_t> CoveredNewFragments(const std::string& bytes,
                                       const std::vector<RewriteOperation::Group>& groups) {
  std::set<uint64_t> out;
  roaring_bitmap_t* r = roaring_bitmap_portable_deserialize_safe(bytes.data(), bytes.size());
  if (r == nullptr) return out;
  for (const auto& g : groups) {
    bool all = std::all_of(g.old_fragments.begin(), g.old_fragments.end(), [&](const auto& f) {
      return roaring_bitmap_contains(r, static_cast<uint32_t>(f.id()));
    });
    if (!all) continue;
    for (const auto& f : g.new_fragments) out.insert(f.id());
  }
  roaring_bitmap_free(r);
  return out;
}

/// Remove `ids` from a serialized portable roaring bitmap and add `added`.
std::string RemoveFromBitmap(const std::string& bytes, const std::set<uint64_t>& ids,
                             const std::set<uint64_t>& added) {
  roaring_bitmap_t* r = roaring_bitmap_portable_deserialize_safe(bytes.data(), bytes.size());
  if (r == nullptr) return bytes;
  for (uint64_t id : ids) roaring_bitmap_remove(r, static_cast<uint32_t>(id));
  for (uint64_t id : added) roaring_bitmap_add(r, static_cast<uint32_t>(id));
  std::string out(roaring_bitmap_portable_size_in_bytes(r), '\0');
  roaring_bitmap_portable_serialize(r, out.data());
  roaring_bitmap_free(r);
  return out;
}

/// Where a compaction moves each row of the fragments it rewrites: the live rows of a group's
/// old fragments, in order, become the rows of its new fragments, in order.
class AddressMap {
 public:
  static Result<AddressMap> Make(const DatasetPtr& ds,
                                 const std::vector<RewriteOperation::Group>& groups) {
    AddressMap m;
    for (size_t g = 0; g < groups.size(); ++g) {
      uint64_t before = 0;  // live rows of the group's earlier old fragments
      for (const auto& f : groups[g].old_fragments) {
        Old old;
        old.group = g;
        old.live_before = before;
        LANCEDB_ASSIGN_OR_RETURN(old.deleted,
                                 ReadDeletions(*ds->fs(), ds->path(), ds->manifest().proto(), f));
        before += f.physical_rows() - old.deleted.size();
        m.old_.emplace(f.id(), std::move(old));
      }
      std::vector<std::pair<uint64_t, uint64_t>> starts;  // (first rank, new fragment id)
      uint64_t rank = 0;
      for (const auto& f : groups[g].new_fragments) {
        starts.emplace_back(rank, f.id());
        rank += f.physical_rows();
      }
      m.new_.push_back(std::move(starts));
    }
    return m;
  }

  std::optional<uint64_t> operator()(uint64_t address) const {
    auto it = old_.find(address >> 32);
    if (it == old_.end()) return address;  // not rewritten
    const Old& old = it->second;
    const uint32_t offset = static_cast<uint32_t>(address);
    auto d = std::lower_bound(old.deleted.begin(), old.deleted.end(), offset);
    if (d != old.deleted.end() && *d == offset) return std::nullopt;  // deleted: dropped
    const uint64_t rank = old.live_before + offset - static_cast<uint64_t>(d - old.deleted.begin());
    const auto& starts = new_[old.group];
    auto s = std::upper_bound(starts.begin(), starts.end(), std::make_pair(rank, UINT64_MAX));
    if (s == starts.begin()) return std::nullopt;
    --s;
    return (s->second << 32) | (rank - s->first);
  }

 private:
  struct Old {
    size_t group = 0;
    uint64_t live_before = 0;
    std::vector<uint32_t> deleted;
  };
  std::map<uint64_t, Old> old_;
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> new_;
};

/// The index segments covering rewritten fragments, rewritten for the new row addresses:
/// (old metadata, new metadata) pairs; the new segments' files are added to `written`.
Result<std::vector<std::pair<pb::IndexMetadata, pb::IndexMetadata>>> RemapIndices(
    const DatasetPtr& ds, const std::vector<RewriteOperation::Group>& groups,
    const std::vector<std::set<uint64_t>>& coverage, const IndexRemapFn& remap_index,
    std::vector<std::string>* written) {
  std::vector<std::pair<pb::IndexMetadata, pb::IndexMetadata>> out;
  LANCEDB_ASSIGN_OR_RETURN(auto map, AddressMap::Make(ds, groups));
  const auto& indices = ds->manifest().index_section().indices();
  for (int i = 0; i < indices.size(); ++i) {
    const std::set<uint64_t>& covered = coverage[static_cast<size_t>(i)];
    std::set<uint64_t> fragments = covered;
    bool touched = false;
    for (const auto& g : groups) {
      // Bins never mix covered and uncovered fragments: look at the first.
      if (!covered.count(g.old_fragments[0].id())) continue;
      touched = true;
      for (const auto& f : g.old_fragments) fragments.erase(f.id());
      for (const auto& f : g.new_fragments) fragments.insert(f.id());
    }
    if (!touched) continue;
    LANCEDB_ASSIGN_OR_RETURN(
        auto remapped, remap_index(*ds, indices[i], map,
                                   std::vector<uint64_t>(fragments.begin(), fragments.end())));
    if (!remapped) continue;
    const std::string dir =
        io::JoinPath(io::JoinPath(ds->path(), "_indices"), IndexUuidString(*remapped));
    for (const auto& f : remapped->files()) written->push_back(io::JoinPath(dir, f.path()));
    out.emplace_back(indices[i], std::move(*remapped));
  }
  return out;
}

}  // namespace

Status ReserveFragmentsOperation::Build(CommitAttempt* a) {
  a->transaction.mutable_reserve_fragments()->set_num_fragments(num_fragments_);
  const uint64_t first = NextFragmentId(a->manifest);
  a->manifest.set_max_fragment_id(static_cast<uint32_t>(first + num_fragments_ - 1));
  return Status::OK();
}

Status RewriteOperation::Build(CommitAttempt* a) {
  auto* rewrite = a->transaction.mutable_rewrite();
  std::map<uint64_t, size_t> group_of;
  std::set<uint64_t> removed;
  for (size_t g = 0; g < groups_.size(); ++g) {
    auto* group = rewrite->add_groups();
    for (const auto& f : groups_[g].old_fragments) {
      group_of[f.id()] = g;
      removed.insert(f.id());
      *group->add_old_fragments() = f;
    }
    for (const auto& f : groups_[g].new_fragments) *group->add_new_fragments() = f;
  }
  // The rows rewritten are the old fragments as compaction read them: each must still be in the
  // base unchanged (same files, same deletions), or the rewrite would bring back deleted rows or
  // duplicate updated ones. The conflict table already refused writers that modified them; this
  // is the invariant itself.
  std::map<uint64_t, const pb::DataFragment*> read_as;
  for (const auto& g : groups_) {
    for (const auto& f : g.old_fragments) read_as[f.id()] = &f;
  }
  google::protobuf::RepeatedPtrField<pb::DataFragment> fragments;
  std::set<size_t> placed;
  std::set<uint64_t> seen;
  for (const auto& f : a->manifest.fragments()) {
    auto it = group_of.find(f.id());
    if (it == group_of.end()) {
      *fragments.Add() = f;
      continue;
    }
    const pb::DataFragment& read = *read_as.at(f.id());
    if (!SameDataFiles(f, read) || !SameDeletionFile(f, read)) {
      return Status::RetryableCommitConflict(
          "Rewrite (compaction) conflicts with a concurrent write committed by version " +
          std::to_string(a->base->version()) + ": it modified fragment " + std::to_string(f.id()) +
          "; retry on the new version");
    }
    seen.insert(f.id());
    if (placed.insert(it->second).second) {
      for (const auto& n : groups_[it->second].new_fragments) *fragments.Add() = n;
    }
  }
  if (seen.size() != removed.size()) {
    return Status::RetryableCommitConflict(
        "Rewrite (compaction) conflicts with a concurrent write committed by version " +
        std::to_string(a->base->version()) +
        ": fragments being compacted were removed; retry on the new version");
  }
  a->manifest.mutable_fragments()->Swap(&fragments);
  UpdateMaxFragmentId(&a->manifest);
  const bool stable = (a->manifest.reader_feature_flags() & kFlagStableRowIds) != 0;
  for (auto& index : *a->indices.mutable_indices()) {
    auto replaced = std::find_if(remapped_.begin(), remapped_.end(), [&](const auto& r) {
      return r.first.uuid().uuid() == index.uuid().uuid();
    });
    if (replaced != remapped_.end()) {
      index = replaced->second;
      auto* record = rewrite->add_rewritten_indices();
      *record->mutable_old_id() = replaced->first.uuid();
      *record->mutable_new_id() = replaced->second.uuid();
      *record->mutable_new_index_details() = replaced->second.index_details();
      record->set_new_index_version(static_cast<uint32_t>(replaced->second.index_version()));
      *record->mutable_new_index_files() = replaced->second.files();
      continue;
    }
    if (index.fragment_bitmap().empty()) continue;
    // A vector index of a table with stable row ids holds ids, which compaction keeps: a new
    // fragment stays covered when every fragment it was rewritten from was (a group mixing in
    // uncovered rows, e.g. updated ones whose indexed vectors are stale, leaves it uncovered).
    std::set<uint64_t> still_covered;
    // So do Lance's scalar and FTS indices (BTREE, BITMAP, LABEL_LIST, INVERTED) on such tables.
    const std::string& url = index.index_details().type_url();
    if (stable &&
        (url == kStableIdVectorIndexTypeUrl || url == kLanceVectorIndexTypeUrl ||
         url == "/lance.table.BTreeIndexDetails" || url == "/lance.table.BitmapIndexDetails" ||
         url == "/lance.table.LabelListIndexDetails" ||
         url == "/lance.table.InvertedIndexDetails")) {
      still_covered = CoveredNewFragments(index.fragment_bitmap(), groups_);
    }
    index.set_fragment_bitmap(RemoveFromBitmap(index.fragment_bitmap(), removed, still_covered));
  }
  return Status::OK();
}

Result<DatasetPtr> CompactFiles(const DatasetPtr& ds, const CompactionOptions& o,
                                CompactionMetrics* metrics) {
  *metrics = CompactionMetrics{};
  if (o.target_rows_per_fragment <= 0 || o.max_rows_per_group <= 0) {
    return Status::InvalidArgument(
        "target_rows_per_fragment and max_rows_per_group must be positive");
  }
  if (o.materialize_deletions_threshold < 0 || o.materialize_deletions_threshold > 1) {
    return Status::InvalidArgument("materialize_deletions_threshold must be in [0, 1]");
  }
  const Manifest& manifest = ds->manifest();
  const bool stable = (manifest.proto().reader_feature_flags() & kFlagStableRowIds) != 0;
  const bool remap = o.remap_index && !stable && manifest.index_section().indices_size() > 0;
  const auto coverage = IndexCoverage(manifest.index_section());
  auto bins = PlanBins(manifest.proto(), o, remap ? &coverage : nullptr);
  if (bins.empty()) return ds;
  LANCEDB_RETURN_NOT_OK(WritableFileVersion(manifest, "Compacting").status());
  // Rewrite the bins in parallel.
  std::vector<Result<std::vector<pb::DataFragment>>> results(bins.size(),
                                                             Status::Internal("not run"));
  std::vector<std::vector<std::string>> written(bins.size());
  std::atomic<size_t> next{0};
  const size_t threads = std::min<size_t>(
      bins.size(),
      static_cast<size_t>(o.num_threads > 0 ? o.num_threads
                                            : std::max(1u, std::thread::hardware_concurrency())));
  auto work = [&] {
    for (size_t i = next++; i < bins.size(); i = next++) {
      results[i] = RewriteBin(ds, bins[i], o, &written[i]);
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  std::vector<std::string> all_written;
  for (auto& w : written) all_written.insert(all_written.end(), w.begin(), w.end());
  auto cleanup = [&](Status st) {
    for (const auto& p : all_written) (void)ds->fs()->DeleteFile(p);
    return st;
  };
  uint32_t num_new = 0;
  for (auto& r : results) {
    if (!r.ok()) return cleanup(r.status());
    num_new += static_cast<uint32_t>(r->size());
  }
  // Reserve the new fragments' ids, then rewrite.
  ReserveFragmentsOperation reserve(num_new);
  auto reserved = CommitOperation(ds, &reserve);
  if (!reserved.ok()) return cleanup(reserved.status());
  uint64_t id = (*reserved)->manifest().proto().max_fragment_id() + 1 - num_new;
  std::vector<RewriteOperation::Group> groups(bins.size());
  for (size_t i = 0; i < bins.size(); ++i) {
    groups[i].old_fragments = bins[i];
    for (auto& f : *results[i]) {
      f.set_id(id++);
      groups[i].new_fragments.push_back(std::move(f));
    }
    metrics->fragments_removed += bins[i].size();
    metrics->fragments_added += groups[i].new_fragments.size();
    for (const auto& f : bins[i]) metrics->files_removed += static_cast<uint64_t>(f.files_size());
    for (const auto& f : groups[i].new_fragments) {
      metrics->files_added += static_cast<uint64_t>(f.files_size());
    }
  }
  std::vector<std::pair<pb::IndexMetadata, pb::IndexMetadata>> remapped;
  if (remap) {
    auto indices = RemapIndices(ds, groups, coverage, o.remap_index, &all_written);
    if (!indices.ok()) return cleanup(indices.status());
    remapped = std::move(*indices);
  }
  RewriteOperation rewrite(std::move(groups), std::move(remapped));
  rewrite.data_files = all_written;
  // The rewrite was computed from `ds`: every transaction since then, those committed before
  // the reservation included, is checked against it.
  auto result = CommitOperation(ds, &rewrite);
  if (!result.ok()) *metrics = CompactionMetrics{};
  return result;
}

}  // namespace lancedb::table
