// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "table/row_changes.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>
#include <optional>

#include "table/deletion.h"
#include "table/manifest.h"
#include "table/row_ids.h"
#include "table/stable_row_ids.h"

namespace lancedb::table {
namespace {

constexpr uint64_t kNoVersion = std::numeric_limits<uint64_t>::max();

/// One live row: its stable id, the version that last wrote it (kNoVersion when its fragment
/// records none) and the fragment holding it.
struct LiveRow {
  uint64_t id;
  uint64_t last_updated;
  uint64_t fragment;
};

bool SameSequence(const pb::DataFragment& a, const pb::DataFragment& b) {
  return a.inline_row_ids() == b.inline_row_ids() &&
         a.external_row_ids().SerializeAsString() == b.external_row_ids().SerializeAsString() &&
         a.inline_last_updated_at_versions() == b.inline_last_updated_at_versions() &&
         a.external_last_updated_at_versions().SerializeAsString() ==
             b.external_last_updated_at_versions().SerializeAsString();
}

/// The fragment of `other` that holds the same rows as `frag` at the same offsets, each last
/// written by the same version (deletions may differ), or nullptr. Data files may differ: a
/// column added to the fragment changes no row's content.
const pb::DataFragment* Aligned(const pb::DataFragment& frag,
                                const std::map<uint64_t, const pb::DataFragment*>& other) {
  auto it = other.find(frag.id());
  if (it == other.end()) return nullptr;
  const pb::DataFragment& o = *it->second;
  const bool aligned = o.physical_rows() == frag.physical_rows() && SameSequence(frag, o) &&
                       (frag.has_inline_last_updated_at_versions() ||
                        frag.has_external_last_updated_at_versions() || SameDataFiles(frag, o));
  return aligned ? &o : nullptr;
}

/// The first id when `frag`'s row ids are one inline range covering its rows (id = first +
/// offset), else nullopt.
std::optional<uint64_t> IdRangeStart(const pb::DataFragment& frag) {
  if (!frag.has_inline_row_ids()) return std::nullopt;
  pb::RowIdSequence sequence;
  if (!sequence.ParseFromString(frag.inline_row_ids()) || sequence.segments_size() != 1 ||
      !sequence.segments(0).has_range()) {
    return std::nullopt;
  }
  const auto& range = sequence.segments(0).range();
  if (range.end() < range.start() || range.end() - range.start() != frag.physical_rows()) {
    return std::nullopt;
  }
  return range.start();
}

/// The version when `frag`'s last-updated-at versions are one inline run over all its rows,
/// else nullopt.
std::optional<uint64_t> SingleVersion(const pb::DataFragment& frag) {
  if (!frag.has_inline_last_updated_at_versions()) return std::nullopt;
  pb::RowDatasetVersionSequence sequence;
  if (!sequence.ParseFromString(frag.inline_last_updated_at_versions()) ||
      sequence.runs_size() != 1 || !sequence.runs(0).span().has_range()) {
    return std::nullopt;
  }
  const auto& span = sequence.runs(0).span().range();
  if (span.end() < span.start() || span.end() - span.start() != frag.physical_rows()) {
    return std::nullopt;
  }
  return sequence.runs(0).version();
}

/// Append the live rows of `frag` to `out`.
Status CollectLiveRows(const Dataset& ds, const pb::DataFragment& frag, std::vector<LiveRow>* out) {
  io::FileSystem& fs = *ds.fs();
  LANCEDB_ASSIGN_OR_RETURN(auto ids, FragmentRowIds(fs, ds.path(), frag));
  LANCEDB_ASSIGN_OR_RETURN(auto versions, FragmentRowVersions(fs, ds.path(), frag, false));
  LANCEDB_ASSIGN_OR_RETURN(auto deleted, ReadDeletions(fs, ds.path(), ds.manifest().proto(), frag));
  const bool has_versions = versions.size() == ids.size();
  size_t d = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    while (d < deleted.size() && deleted[d] < i) ++d;
    if (d < deleted.size() && deleted[d] == i) continue;
    out->push_back({ids[i], has_versions ? versions[i] : kNoVersion, frag.id()});
  }
  return Status::OK();
}

/// Append the rows of `before` (a fragment of `from`) that `after` (its aligned copy in `to`)
/// deleted; rows live in both are unchanged and skipped.
Status CollectNewlyDeleted(const Dataset& from, const pb::DataFragment& before, const Dataset& to,
                           const pb::DataFragment& after, std::vector<LiveRow>* out) {
  if (SameDeletionFile(before, after)) return Status::OK();
  io::FileSystem& fs = *from.fs();
  LANCEDB_ASSIGN_OR_RETURN(auto was,
                           ReadDeletions(fs, from.path(), from.manifest().proto(), before));
  LANCEDB_ASSIGN_OR_RETURN(auto now, ReadDeletions(fs, to.path(), to.manifest().proto(), after));
  std::vector<uint32_t> gone;
  std::set_difference(now.begin(), now.end(), was.begin(), was.end(), std::back_inserter(gone));
  if (gone.empty()) return Status::OK();
  if (gone.back() >= before.physical_rows()) {
    return Status::Corruption("Deletion of offset " + std::to_string(gone.back()) +
                              " outside fragment " + std::to_string(before.id()));
  }
  // A fragment as appended holds one id range written by one version: read those directly
  // instead of decoding a million-entry sequence for a few deleted rows.
  const std::optional<uint64_t> first_id = IdRangeStart(before);
  const std::optional<uint64_t> version = SingleVersion(before);
  std::vector<uint64_t> ids, versions;
  if (!first_id) {
    LANCEDB_ASSIGN_OR_RETURN(ids, FragmentRowIds(fs, from.path(), before));
  }
  if (!version) {
    LANCEDB_ASSIGN_OR_RETURN(versions, FragmentRowVersions(fs, from.path(), before, false));
  }
  const bool has_versions = version.has_value() || versions.size() == before.physical_rows();
  for (uint32_t offset : gone) {
    const uint64_t id = first_id ? *first_id + offset : ids[offset];
    const uint64_t v = version ? *version : (has_versions ? versions[offset] : kNoVersion);
    out->push_back({id, v, before.id()});
  }
  return Status::OK();
}

/// The rows of `from` that may have changed (live in `from`, not known to be live and
/// unchanged in `to`), sorted by id. Rows of fragments aligned in both versions count only
/// when `to` deleted them.
Result<std::vector<LiveRow>> RowsBefore(
    const Dataset& from, const Dataset& to,
    const std::map<uint64_t, const pb::DataFragment*>& to_frags) {
  std::vector<LiveRow> rows;
  for (const auto& frag : from.manifest().proto().fragments()) {
    if (const pb::DataFragment* after = Aligned(frag, to_frags)) {
      LANCEDB_RETURN_NOT_OK(CollectNewlyDeleted(from, frag, to, *after, &rows));
    } else {
      LANCEDB_RETURN_NOT_OK(CollectLiveRows(from, frag, &rows));
    }
  }
  std::sort(rows.begin(), rows.end(),
            [](const LiveRow& a, const LiveRow& b) { return a.id < b.id; });
  return rows;
}

/// The live rows of the fragments of `to` that are not aligned with one of `from`, sorted by
/// id (a row live in an aligned fragment was live and the same in `from`).
Result<std::vector<LiveRow>> RowsAfter(
    const Dataset& to, const std::map<uint64_t, const pb::DataFragment*>& from_frags) {
  std::vector<LiveRow> rows;
  for (const auto& frag : to.manifest().proto().fragments()) {
    if (Aligned(frag, from_frags) != nullptr) continue;
    LANCEDB_RETURN_NOT_OK(CollectLiveRows(to, frag, &rows));
  }
  std::sort(rows.begin(), rows.end(),
            [](const LiveRow& a, const LiveRow& b) { return a.id < b.id; });
  return rows;
}

/// Why the versions in (from, to] cannot be diffed row by row; empty when they can.
Result<std::string> HistoryRebuildReason(const Dataset& from, const Dataset& to) {
  if (to.version() < from.version()) {
    return "version " + std::to_string(to.version()) + " is older than version " +
           std::to_string(from.version());
  }
  io::FileSystem& fs = *to.fs();
  LANCEDB_ASSIGN_OR_RETURN(auto listing, ListVersionFiles(fs, to.path()));
  for (uint64_t v = from.version() + 1; v <= to.version(); ++v) {
    if (!std::binary_search(listing.versions.begin(), listing.versions.end(), v)) {
      return "version " + std::to_string(v) + " is no longer on storage";
    }
    LANCEDB_ASSIGN_OR_RETURN(auto txn,
                             ReadVersionTransaction(fs, to.path(), v, listing.NamingOf(v)));
    if (!txn.has_value()) return "version " + std::to_string(v) + " records no transaction";
    if (txn->has_restore()) return "version " + std::to_string(v) + " is a Restore";
    if (txn->has_overwrite()) return "version " + std::to_string(v) + " is an Overwrite";
    if (txn->has_data_replacement()) {
      return "version " + std::to_string(v) + " is a DataReplacement";
    }
  }
  return std::string();
}

/// Whether a row live in both versions holds the same content in both.
bool SameContent(const LiveRow& a, const LiveRow& b) {
  if (a.last_updated != kNoVersion && b.last_updated != kNoVersion) {
    return a.last_updated == b.last_updated;
  }
  // Without versions only a row that stayed in its fragment is known to be unchanged.
  return a.last_updated == b.last_updated && a.fragment == b.fragment;
}

/// Set membership of u64 keys: a bitmap over [min, max] when that span is small next to the
/// number of keys (ids of one table are dense), else binary search in the sorted keys.
class KeySet {
 public:
  explicit KeySet(std::vector<uint64_t> keys) : sorted_(std::move(keys)) {
    std::sort(sorted_.begin(), sorted_.end());
    if (sorted_.empty()) return;
    min_ = sorted_.front();
    span_ = sorted_.back() - min_;
    const uint64_t words = span_ / 64 + 1;
    if (words <= std::max<uint64_t>(8 * sorted_.size(), uint64_t{1} << 16)) {
      bits_.assign(words, 0);
      for (uint64_t k : sorted_) bits_[(k - min_) / 64] |= uint64_t{1} << ((k - min_) % 64);
    }
  }

  /// Append to `out` the indexes i < n with values[i] in the set.
  void Match(const uint64_t* values, int64_t n, std::vector<int64_t>* out) const {
    if (sorted_.empty()) return;
    // Locals, so that the loop keeps them in registers.
    const uint64_t min = min_, span = span_;
    if (!bits_.empty()) {
      const uint64_t* bits = bits_.data();
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t k = values[i] - min;  // wraps above span when below min
        if (k <= span && ((bits[k >> 6] >> (k & 63)) & 1)) out->push_back(i);
      }
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      if (values[i] - min <= span &&
          std::binary_search(sorted_.begin(), sorted_.end(), values[i])) {
        out->push_back(i);
      }
    }
  }

 private:
  std::vector<uint64_t> sorted_;
  std::vector<uint64_t> bits_;
  uint64_t min_ = 0;
  uint64_t span_ = 0;
};

}  // namespace

Result<std::vector<uint64_t>> RowAddressesWhereIn(const Dataset& dataset, const std::string& column,
                                                  std::vector<uint64_t> keys) {
  std::vector<uint64_t> out;
  std::vector<int64_t> matches;
  const KeySet set(std::move(keys));
  ScanOptions options;
  options.columns = {column};
  options.with_row_address = true;
  options.batch_size = 65536;
  LANCEDB_ASSIGN_OR_RETURN(auto reader, dataset.Scan(options));
  const auto& type = reader->schema()->field(0)->type();
  if (type->id() != array::TypeId::kUInt64 && type->id() != array::TypeId::kInt64) {
    return Status::InvalidArgument("Column '" + column + "' is " + type->ToString() +
                                   ", not an integer key column (uint64 or int64)");
  }
  while (true) {
    LANCEDB_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (batch == nullptr) break;
    const array::ArrayData& values = *batch->column(0);
    const uint64_t* addresses = batch->column(1)->GetValues<uint64_t>(1);
    matches.clear();
    set.Match(values.GetValues<uint64_t>(1), values.length, &matches);
    for (int64_t i : matches) {
      if (values.null_count == 0 || values.IsValid(i)) out.push_back(addresses[i]);
    }
  }
  return out;
}

Result<RowChanges> DiffRows(const Dataset& from, const Dataset& to) {
  if (from.path() != to.path()) {
    return Status::InvalidArgument("Cannot diff versions of two datasets: '" + from.path() +
                                   "' and '" + to.path() + "'");
  }
  if (!UsesStableRowIds(from) || !UsesStableRowIds(to)) {
    return Status::InvalidArgument("Dataset '" + to.path() +
                                   "' has no stable row ids; its changes cannot be tracked");
  }
  RowChanges changes;
  LANCEDB_ASSIGN_OR_RETURN(changes.rebuild_reason, HistoryRebuildReason(from, to));
  if (!changes.rebuild_reason.empty()) return changes;
  std::map<uint64_t, const pb::DataFragment*> from_frags, to_frags;
  for (const auto& f : from.manifest().proto().fragments()) from_frags[f.id()] = &f;
  for (const auto& f : to.manifest().proto().fragments()) to_frags[f.id()] = &f;
  LANCEDB_ASSIGN_OR_RETURN(auto before, RowsBefore(from, to, to_frags));
  LANCEDB_ASSIGN_OR_RETURN(auto after, RowsAfter(to, from_frags));
  size_t i = 0, j = 0;
  while (i < before.size() || j < after.size()) {
    if (j == after.size() || (i < before.size() && before[i].id < after[j].id)) {
      changes.deleted.push_back(before[i++].id);
    } else if (i == before.size() || after[j].id < before[i].id) {
      changes.inserted.push_back(after[j++].id);
    } else {
      if (!SameContent(before[i], after[j])) changes.updated.push_back(after[j].id);
      ++i;
      ++j;
    }
  }
  return changes;
}

}  // namespace lancedb::table
