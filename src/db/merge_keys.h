// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Composite join keys over Arrow columns for merge_insert's hash join, hashed and compared in
// their own types (no per-row key strings): fixed-width values by their bytes, strings and
// binaries by their bytes, booleans by their bit; other types (nested) by a rendering of the
// value. A key with a NULL part matches nothing.
// Thread-safety: immutable after construction.

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "array/array.h"

namespace lancedb::db {

/// The key columns of one batch (all of the same length).
class KeyColumns {
 public:
  /// REQUIRES: every column has at least `num_rows` rows.
  KeyColumns(std::vector<array::ArrayPtr> columns, int64_t num_rows);

  int64_t num_rows() const { return num_rows_; }
  /// Hash of every row's key; `valid[i]` is 0 when a part of key i is NULL.
  void Hash(std::vector<uint64_t>* hashes, std::vector<uint8_t>* valid) const;
  /// Whether key `row` equals key `other_row` of `other`. REQUIRES: same column types.
  bool Equal(int64_t row, const KeyColumns& other, int64_t other_row) const;
  /// When the key is one signed 64-bit integer column (int64, timestamp, date64, time64,
  /// duration): that column, for the integer fast paths; else nullptr.
  const array::ArrayData* single_int64() const;

 private:
  enum class Kind : uint8_t { kFixed, kBool, kBinary, kRendered };
  struct Column {
    array::ArrayPtr array;
    Kind kind = Kind::kFixed;
    int width = 0;                      // kFixed: bytes per value
    const uint8_t* values = nullptr;    // kFixed: first value (offset applied)
    std::vector<std::string> rendered;  // kRendered: one string per row
  };
  static bool EqualAt(const Column& a, int64_t i, const Column& b, int64_t j);
  static uint64_t HashAt(const Column& c, int64_t i);

  std::vector<Column> columns_;
  int64_t num_rows_;
};

/// An open-addressing hash index of the keys of a build side (the merge input).
class KeyIndex {
 public:
  /// Index every row of `keys` with a non-NULL key. Rows with a NULL key part are appended to
  /// `unkeyed`; when a key occurs twice the later row is returned in `duplicate` (else -1) and
  /// the index is incomplete.
  KeyIndex(KeyColumns keys, std::vector<int64_t>* unkeyed, int64_t* duplicate);

  /// For every row of `probe`: the build row with an equal key, or -1. A single integer key
  /// outside the build side's [min, max] is rejected without hashing.
  void Probe(const KeyColumns& probe, std::vector<int64_t>* matches) const;

  /// The build row whose key equals key `row` of `probe` (with hash `hash`), or -1.
  int64_t Find(const KeyColumns& probe, int64_t row, uint64_t hash) const {
    for (size_t slot = hash & mask_;; slot = (slot + 1) & mask_) {
      const int64_t candidate = rows_[slot];
      if (candidate < 0) return -1;
      if (hashes_[slot] == hash && probe.Equal(row, keys_, candidate)) return candidate;
    }
  }

 private:
  KeyColumns keys_;
  size_t mask_ = 0;
  std::vector<int64_t> rows_;     // per slot: build row, -1 when empty
  std::vector<uint64_t> hashes_;  // per slot: hash of that row's key
  bool int_range_ = false;        // single int64 key: min_/max_ bound the build keys
  int64_t min_ = 0;
  int64_t max_ = -1;
};

}  // namespace lancedb::db
